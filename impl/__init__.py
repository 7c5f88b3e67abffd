"""The assignors under test: the optimized built-ins (one module each, by name in `registry.BUILTINS`) and, in
`targets`, the adapters that check anyone else's assignor unmodified (a Python object, `cmd:`/`cmd2:` programs,
kafka-python and aiokafka, `java:` classes). `registry.load_target` turns a `--target` into an assignor."""
