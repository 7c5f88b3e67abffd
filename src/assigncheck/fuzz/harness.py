"""Fuzz targets: bytes -> problem -> the assignor under test -> the spec's verdict.

An assignor target checks everything `run.assignor_check.check_assignor` checks (H1-H8 with a per-call time
budget, determinism, order independence, and the assignor's declared promises); with the scenario bit set
the bytes also carry membership changes, and every rebalance round reached is checked the same way. A
codec target feeds raw bytes to one wire decoder: a `WireFormatError` is the expected answer to junk, any
other exception (or a decoded message that does not survive re-encoding) is a finding.

Target names: a built-in assignor (`targets.registry.names()`), any outside target `targets.registry.load_target`
accepts (`pkg.mod:Obj`, `cmd:...`), or `codec:subscription|assignment|sticky|cooperative`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assigncheck.findings.replay import CODEC, On, Replayed, Reproducer
from assigncheck.findings.reproducers import Filed, Reproducers, write_codec
from assigncheck.findings.signature import signature
from assigncheck.formats import wire as codec
from assigncheck.formats.reproducer import TargetRef
from assigncheck.fuzz.decode import read
from assigncheck.generate.scenario import Scenario, run_scenario, validate_scenario
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.assignment_check import in_domain
from assigncheck.spec.errors import InputError, WireFormatError
from assigncheck.spec.model import AnyProblem, Assignment, Problem, StreamsProblem
from assigncheck.spec.promises import Assignor, problem_kind
from assigncheck.spec.violations import Violation
from assigncheck.targets import registry

# Decoded prefixes remembered per process (a few MB at most) so repeats are not judged again.
JUDGED_MAX = 100_000

# Each pair decodes and encodes its own message type (hence Any: the table holds four).
CODEC_TARGETS: dict[str, tuple[Callable[[bytes], Any], Callable[[Any], bytes]]] = {
    "codec:subscription": (codec.decode_subscription, codec.encode_subscription),
    "codec:assignment": (codec.decode_assignment, codec.encode_assignment),
    "codec:sticky": (codec.decode_sticky_user_data, codec.encode_sticky_user_data),
    "codec:cooperative": (codec.decode_cooperative_user_data, codec.encode_cooperative_user_data),
}


@dataclass(frozen=True)
class Hit:
    """A raw fuzz hit: a violation an input provoked on the problem it reached, before it is filed (minimized,
    one reproducer per signature) as a finding."""

    target: str
    violation: Violation
    problem: AnyProblem
    data: bytes

    @property
    def signature(self) -> str:
        """What tells this hit's bug from others (`findings.signature.signature`)."""
        return signature(self.violation, self.problem)


class AssignorTarget:
    """One assignor under test. `check(problem)` -> the violations `check_assignor` reports."""

    def __init__(self, target: str | TargetRef, *, budget_s: float = 2.0, seed: int = 0, oracle: bool | None = None,
                 kind: str | None = None, cooperative: bool | None = None, cpu_factor: float | None = None) -> None:
        self.ref = TargetRef.parse(target) if isinstance(target, str) else target
        self.spec = self.ref.spec
        self.assignor: Assignor = registry.load(self.ref)  # with the promises the reference declares
        self.budget_s = budget_s
        self.cpu_factor = cpu_factor  # what budget_s was scaled by (a gate run's calibration), for the reproducers
        self.seed = seed
        # The min-cost-flow oracle only matters for promises that need it; skipping it keeps fuzzing fast.
        needs_oracle = self.assignor.promises.balance == "optimal" or self.assignor.promises.stickiness != "none"
        self.oracle = oracle if oracle is not None or needs_oracle else False
        self.kind = kind or problem_kind(self.assignor)
        # Kafka hands cooperative rebalances only to assignors that support them; here that is an assignor
        # declaring how many rounds it needs (`promises.max_rounds`). Others get every input as eager.
        self.cooperative = self.assignor.promises.max_rounds is not None if cooperative is None else cooperative
        self._judged: set[bytes] = set()

    def applies(self, problem: AnyProblem) -> bool:
        """Problems outside the assignor's declared domain (equal subscriptions only) are not its bugs."""
        return isinstance(problem, StreamsProblem) or in_domain(problem, self.assignor.promises)

    def check(self, problem: AnyProblem) -> list[Violation]:
        if not self.applies(problem):
            return []
        _, report = check_assignor(self.assignor, problem, budget_s=self.budget_s, seed=self.seed,
                                   oracle=self.oracle, measure=False)
        return list(report.violations)

    def problems(self, data: bytes) -> list[AnyProblem]:
        """The problems one input reaches: the decoded one, or every round input of its scenario."""
        return self._reached(read(data, self.kind)[0])

    def _reached(self, decoded: AnyProblem | Scenario) -> list[AnyProblem]:
        if isinstance(decoded, StreamsProblem):
            return [decoded]
        problem = decoded.initial if isinstance(decoded, Scenario) else decoded
        if not self.cooperative and problem.protocol == "cooperative":
            problem = problem.replace(protocol="eager")
        if not isinstance(decoded, Scenario):
            return [problem]
        reached: list[AnyProblem] = []

        def assign(p: Problem) -> Assignment:
            reached.append(p)
            return self.assignor.assign(p)

        scenario = Scenario(problem, decoded.steps)
        validate_scenario(scenario)  # a step that does not fit is a decoder bug: let it stop the job loudly
        try:
            run_scenario(assign, scenario)
        except Exception:  # noqa: BLE001 - the assignor crashed; check_assignor reports it as H7 below
            pass
        return reached or [problem]

    def run(self, data: bytes) -> list[Hit]:
        """Every violation this input provokes, on the first problem it reaches that has any. An input that
        decodes to what an earlier one did (libFuzzer often mutates bytes the decoder never reads: ~30% of its
        inputs) was judged already; the check is deterministic, and H8 runs the assignor twice anyway."""
        decoded, used = read(data, self.kind)
        if data[:used] in self._judged:
            return []
        if len(self._judged) >= JUDGED_MAX:
            self._judged.clear()
        self._judged.add(data[:used])
        for problem in self._reached(decoded):
            violations = self.check(problem)
            if violations:
                return [Hit(self.spec, v, problem, data) for v in violations]
        return []

    def reproduces(self, problem: AnyProblem, invariant: str, cause: str | None = None) -> bool:
        """Whether `problem` breaks `invariant` (with this crash `cause`, when given)."""
        return any(v.invariant == invariant and cause in (None, v.cause) for v in self.check(problem))

    def file(self, hit: Hit, out_dir: str | Path, *, seed: int | None = None, minimize_s: float = 20.0) -> Filed:
        """The hit's minimized reproducer, unless its signature is on disk already (`findings.reproducers`;
        a job may find another job's file there)."""
        filing = Reproducers.of(out_dir, "fuzz", self.assignor, self.budget_s, self.ref, factor=self.cpu_factor)
        return filing.file(hit.problem, hit.violation, self.check, seed=self.seed if seed is None else seed,
                           minimize_s=minimize_s, data=hit.data)


class CodecTarget:
    """One wire decoder: junk must give `WireFormatError`; what decodes must re-encode to itself."""

    def __init__(self, spec: str) -> None:
        if spec not in CODEC_TARGETS:
            raise InputError("--target", f"unknown codec target {spec!r}; known: {', '.join(CODEC_TARGETS)}")
        self.spec = spec
        self.decode, self.encode = CODEC_TARGETS[spec]

    def run(self, data: bytes) -> Violation | None:
        try:
            message = self.decode(data)
        except WireFormatError:
            return None
        except Exception as e:  # noqa: BLE001 - exactly what this target hunts
            return Violation("codec.crash", f"{self.spec} raised {type(e).__name__}: {e}")
        again = self.decode(self.encode(message))
        if again != message:
            return Violation("codec.roundtrip", f"{self.spec}: {message!r} re-encodes to {again!r}")
        return None

    def file(self, violation: Violation, data: bytes, out_dir: str | Path, seed: int | None = None) -> Path | None:
        """The finding's reproducer (its input bytes); None when that input's file is on disk already."""
        return write_codec(out_dir, self.spec, violation, data, seed)


def replay_codec(found: Reproducer, on: On) -> Replayed:
    """A codec finding replayed (the `codec` kind of `findings.replay`): its input bytes decoded again by its
    decoder, or by the one `on` names."""
    assert found.codec is not None, "a codec finding has its decoder and input"
    name, data = found.codec
    target = on.ref.spec if on.ref is not None else name
    violation = CodecTarget(target).run(data)
    return Replayed(bool(violation), f"reproduces: {violation}" if violation else f"no longer reproduces on {target}",
                    target, found.file, keys=CODEC)


def kind_of(spec: str) -> str:
    """The problem kind of the target `spec` names (loading it is cheap: `cmd:` starts its process lazily)."""
    return "consumer" if spec.startswith("codec:") else problem_kind(registry.load(TargetRef.parse(spec)))


def load(spec: str, **options: Any) -> AssignorTarget | CodecTarget:
    """The fuzz target called `spec` (see the module doc)."""
    if spec.startswith("codec:"):
        return CodecTarget(spec)
    return AssignorTarget(spec, **options)


def all_targets() -> list[str]:
    """What `--target all` fuzzes: every built-in assignor, then every wire decoder."""
    return [*registry.names(), *CODEC_TARGETS]
