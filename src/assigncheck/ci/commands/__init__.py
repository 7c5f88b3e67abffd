"""The `assigncheck` verbs, one module each with `register(subparsers)`; each parser sets `run(args) -> int`."""
