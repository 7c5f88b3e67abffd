"""`assigncheck fuzz --target NAME --seconds S [--jobs J] [--out DIR]`: atheris fuzzing with minimized reproducers.

Exit 0 when nothing was found, 1 when any target produced a finding (its reproducer is in `--out`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assigncheck.ci import flag_types
from assigncheck.spec.errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    from assigncheck.ci.target_flags import add_java_options

    parser = subparsers.add_parser("fuzz", help="fuzz an assignor or a wire decoder; write minimized reproducers")
    parser.add_argument("--target", required=True, type=flag_types.nonempty,
                        help="a built-in assignor, package.module:object, cmd:..., codec:subscription|assignment|"
                             "sticky|cooperative, or 'all' (every built-in and every decoder, --seconds each)")
    parser.add_argument("--promises", metavar="TEXT", default=None,
                        help="what the target promises, e.g. balance=perfect,fixpoint (default: what it declares)")
    add_java_options(parser)
    parser.add_argument("--seconds", type=flag_types.seconds(), default=60.0,
                        help="fuzzing time per target (default 60)")
    parser.add_argument("--jobs", type=flag_types.int_in(1, flag_types.MAX_JOBS), default=1,
                        help="parallel libFuzzer processes per target (default 1)")
    parser.add_argument("--out", type=flag_types.nonempty, default="fuzz-out",
                        help="reproducers, crash artifacts and the persistent corpus (default fuzz-out/)")
    parser.add_argument("--seed", type=flag_types.int_in(0, flag_types.MAX_SEED), default=1,
                        help="libFuzzer seed of the first job; job j uses seed + j")
    parser.add_argument("--budget", type=flag_types.seconds(), default=2.0,
                        help="seconds one assign call may take (H7)")
    parser.add_argument("--max-len", type=flag_types.int_in(1, 1 << 20), default=256,
                        help="longest fuzz input in bytes (default 256)")
    parser.add_argument("--engine", choices=("atheris", "random"), default="atheris",
                        help="libFuzzer via atheris (default), or seeded random mutation without coverage")
    parser.add_argument("--vectors", type=Path, default=None,
                        help="regression vectors encoded as the seed corpus (default: the package's own)")
    parser.add_argument("--stop-on-finding", action="store_true",
                        help="stop a target's jobs as soon as its first reproducer is written")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from assigncheck.ci.engines import require
    from assigncheck.ci.target_flags import refs_from_args
    from assigncheck.fuzz.harness import CODEC_TARGETS, all_targets
    from assigncheck.fuzz.jobs import fuzz_target
    from assigncheck.targets import registry

    if args.engine == "atheris":
        require("fuzzing with atheris", "atheris", flag="--engine")
    out = flag_types.output_dir(args.out, "--out")
    targets = all_targets() if args.target == "all" else [args.target]
    if args.promises is not None and (args.target == "all" or args.target.startswith("codec:")):
        raise InputError("--promises", "applies to one assignor target, not to 'all' or a codec")
    for k, target in enumerate(targets):
        if target.startswith("codec:"):
            if target not in CODEC_TARGETS:
                raise InputError("--target", f"unknown codec target {target!r}; known: {', '.join(CODEC_TARGETS)}")
        else:  # a bad target is one line and exit 2, before any job starts
            (ref,) = refs_from_args(target, args.promises, args.classpath, args.config, args.maven)
            registry.probe(registry.load(ref))
            targets[k] = ref.key()
    found = 0
    for target in targets:
        result = fuzz_target(target, seconds=args.seconds, jobs=args.jobs, out=out, seed=args.seed,
                             budget_s=args.budget, engine=args.engine, max_len=args.max_len, vectors=args.vectors,
                             stop_on_finding=args.stop_on_finding)
        print(f"{target}: {result.execs:,} execs in {result.seconds:.1f} s ({result.rate:,.0f}/s over {args.jobs} "
              f"job(s)), coverage {result.cov}, findings {len(result.findings)}")
        for path, invariant in sorted(result.findings.items()):
            print(f"  {invariant}: {path}")
        for failure in result.failed_jobs:
            print(f"  harness failure: {failure}", file=sys.stderr)
        found += len(result.findings) + len(result.failed_jobs)
    return 1 if found else 0
