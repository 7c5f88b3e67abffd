"""One fuzzing job (a subprocess of `assigncheck fuzz`): libFuzzer through atheris, or a plain seeded
random-mutation loop (`--engine random`, no coverage feedback, for machines without atheris).

    python -m assigncheck.fuzz.runner --target range --out fuzz-out --corpus DIR --seeds DIR --seconds 60

libFuzzer exits the process when it is done, which is why each job is its own process. Each finding is
written (and minimized) the moment it is found; libFuzzer's corpus directory persists, so a rerun resumes.
Status lines on stderr follow libFuzzer's format (`#N ... cov: C ... exec/s: R`); every finding adds a
line `FINDING new|known PATH`.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from assigncheck.run.gc import freeze_loaded

if TYPE_CHECKING:
    from assigncheck.spec.model import AnyProblem

DICTIONARY = Path(__file__).with_name("dictionary.txt")


# The regression vectors (a problem every assignor it names must pass), shipped in the package: the seed corpus.
VECTORS = Path(__file__).with_name("vectors")
READY = "READY"  # on stderr once the target is loaded: the job's fuzzing time starts (`fuzz.jobs` watches for it)


def build_seeds(vectors: Path, seed_dir: Path, kind: str) -> int:
    """Encode every regression vector of this kind into `seed_dir` (one file per vector); the count written."""
    from assigncheck.formats.documents import load_problem
    from assigncheck.fuzz.decode import encode
    from assigncheck.spec.errors import InputError
    from assigncheck.spec.model import StreamsProblem

    seed_dir.mkdir(parents=True, exist_ok=True)
    written = 0
    for path in sorted(vectors.glob("*.json")) if vectors.is_dir() else []:
        try:
            problem = load_problem(path)
            if isinstance(problem, StreamsProblem) != (kind == "streams"):
                continue
            data = encode(problem)
        except (InputError, ValueError):  # scenarios and problems too big for the decoder are not seeds
            continue
        (seed_dir / hashlib.sha1(data).hexdigest()).write_bytes(data)
        written += 1
    return written


class Job:
    """The per-input callback: run the target, record each new finding once per process. Per raw key
    (invariant and crash cause) up to PER_KEY raw problems are minimized, skipping one whose shape features
    contain those of a finding already recorded (it most likely shows the same bug)."""

    PER_KEY = 4

    def __init__(self, target: str, out: Path, *, seed: int, budget_s: float, minimize_s: float,
                 cpu_factor: float | None = None) -> None:
        from assigncheck.fuzz.harness import AssignorTarget, load

        self.target = load(target) if target.startswith("codec:") else load(target, budget_s=budget_s, seed=seed,
                                                                             cpu_factor=cpu_factor)
        self.out = out
        self.seed = seed
        self.minimize_s = minimize_s
        self.seen: set[str] = set()  # codec messages
        self.recorded: dict[str, list[frozenset[str]]] = {}  # raw key -> features of each recorded finding
        if isinstance(self.target, AssignorTarget):  # what the gate reports as enforced in this stage
            print(f"PROMISES {self.target.assignor.promises.to_text()}", file=sys.stderr, flush=True)

    def __call__(self, data: bytes) -> None:
        from assigncheck.findings.signature import raw_key, telling
        from assigncheck.fuzz.harness import AssignorTarget

        if isinstance(self.target, AssignorTarget):
            for hit in self.target.run(data):
                known = self.recorded.setdefault(raw_key(hit.violation), [])
                mine = telling(hit.problem)
                if len(known) >= self.PER_KEY or any(f <= mine for f in known):
                    continue
                written = self.target.file(hit, self.out, seed=self.seed, minimize_s=self.minimize_s)
                kept = load_problem_quietly(written.path)
                known.append((telling(kept) if kept is not None else frozenset()) or mine)
                print(f"FINDING {'new' if written.new else 'known'} {hit.violation.invariant} {written.path}",
                      file=sys.stderr, flush=True)
            return
        violation = self.target.run(data)
        if violation is not None and violation.message not in self.seen:
            self.seen.add(violation.message)
            path = self.target.file(violation, data, self.out, self.seed)
            print(f"FINDING {'new' if path else 'known'} {violation.invariant} {path}", file=sys.stderr, flush=True)


def load_problem_quietly(path: Path) -> AnyProblem | None:
    """The problem of a reproducer another job may be replacing: None when it is gone or half there."""
    from assigncheck.formats.documents import load_problem
    from assigncheck.spec.errors import InputError

    try:
        return load_problem(path)
    except (InputError, OSError):
        return None


def _mutate(data: bytes, rng: random.Random, max_len: int) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(4)
        if op == 0 or not buf:
            buf[rng.randint(0, len(buf)):0] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 1:
            buf[rng.randrange(len(buf))] = rng.randrange(256)
        elif op == 2:
            del buf[rng.randrange(len(buf))]
        else:
            buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
    return bytes(buf[:max_len])


def random_engine(job: Job, dirs: Sequence[Path], seconds: float, seed: int, max_len: int,
                  runs: int | None = None) -> None:
    """Seeded mutations of the seed inputs and of fresh random bytes; status once a second."""
    rng = random.Random(seed)
    pool = [p.read_bytes() for d in dirs if d.is_dir() for p in sorted(d.iterdir()) if p.is_file()] or [b""]
    start = last = time.monotonic()
    n = 0
    while time.monotonic() - start < seconds and (runs is None or n < runs):
        base = rng.choice(pool) if rng.random() < 0.7 else bytes(rng.randrange(256) for _ in range(rng.randint(1, 48)))
        job(_mutate(base, rng, max_len))
        n += 1
        if time.monotonic() - last >= 1.0:
            last = time.monotonic()
            print(f"#{n}\tpulse  cov: 0 ft: 0 corp: {len(pool)} exec/s: {int(n / (last - start))}", file=sys.stderr,
                  flush=True)
    print(f"#{n}\tDONE   cov: 0 ft: 0 corp: {len(pool)} exec/s: {int(n / max(time.monotonic() - start, 1e-9))}",
          file=sys.stderr, flush=True)


def atheris_engine(args: argparse.Namespace) -> None:
    import atheris

    # Import the checker and the decoder before instrumenting: coverage feedback comes from the code under
    # test (the assignor, or the wire codec), and uninstrumented harness code runs several times faster.
    import assigncheck.fuzz.decode  # noqa: F401
    import assigncheck.generate.scenario  # noqa: F401
    import assigncheck.impl.min_cost_flow  # noqa: F401 - numba compiles Python bytecode: never instrumented bytecode
    import assigncheck.impl.sticky_kernel  # noqa: F401 - compiled too, like min_cost_flow
    import assigncheck.run.assignor_check  # noqa: F401
    import assigncheck.targets.command  # noqa: F401 - the harness of cmd:/java: targets, not code under test
    import assigncheck.targets.java  # noqa: F401
    import assigncheck.targets.registry  # noqa: F401
    from assigncheck.run.calls import hang_limit

    with atheris.instrument_imports(include=["assigncheck.impl", "assigncheck.formats.wire",
                                             *_outside_modules(args.target)]):
        job = Job(args.target, args.out, seed=args.seed, budget_s=args.budget, minimize_s=args.minimize_seconds,
                  cpu_factor=args.cpu_factor)
    freeze_loaded()
    print(READY, file=sys.stderr, flush=True)
    libfuzzer = [
        sys.argv[0], f"-max_total_time={int(args.seconds)}", f"-seed={args.seed}", "-use_value_profile=1",
        *([f"-runs={args.runs}"] if args.runs is not None else []),
        f"-artifact_prefix={args.out}/", f"-max_len={args.max_len}", "-len_control=0",
        f"-timeout={int(hang_limit(args.budget) * 3)}", "-print_final_stats=1", f"-dict={DICTIONARY}",
        str(args.corpus), *[str(d) for d in args.seeds_dirs],
    ]
    atheris.Setup(libfuzzer, job)
    atheris.Fuzz()


def _outside_modules(target: str) -> list[str]:
    """The module of a `pkg.mod:Obj` target, so an outside assignor's branches guide the fuzzer too."""
    from assigncheck.formats.reproducer import TargetRef

    spec = target if target.startswith("codec:") else TargetRef.parse(target).spec
    module, sep, _ = spec.partition(":")
    return [module] if sep and "." in module and not spec.startswith(("codec:", "cmd")) else []


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m assigncheck.fuzz.runner")
    parser.add_argument("--target", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--seeds", dest="seeds_dirs", type=Path, action="append", default=[])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--runs", type=int, default=None, help="stop after this many inputs (default: none)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=2.0)
    parser.add_argument("--cpu-factor", type=float, default=None,
                        help="the CPU factor --budget was scaled by (a gate run's), recorded in each reproducer")
    parser.add_argument("--minimize-seconds", type=float, default=20.0)
    parser.add_argument("--max-len", type=int, default=256)
    parser.add_argument("--engine", choices=("atheris", "random"), default="atheris")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    args.corpus.mkdir(parents=True, exist_ok=True)
    if args.engine == "random":
        job = Job(args.target, args.out, seed=args.seed, budget_s=args.budget, minimize_s=args.minimize_seconds,
                  cpu_factor=args.cpu_factor)
        freeze_loaded()
        print(READY, file=sys.stderr, flush=True)
        random_engine(job, [args.corpus, *args.seeds_dirs], args.seconds, args.seed, args.max_len, args.runs)
    else:
        atheris_engine(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
