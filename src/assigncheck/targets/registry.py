"""`load_target`: turn a `--target` spec into an assignor (a built-in by name, `assigncheck.impl.get`, or anyone
else's), and `load`: the same from a reproducer's target reference, in any process."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from assigncheck.formats.reproducer import TargetRef
from assigncheck.impl import BUILTINS, get, import_attr, is_builtin, names
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import AnyProblem, Assignment
from assigncheck.spec.promises import Assignor, Promises, problem_kind

# prefix (before the first ':') -> ("module:function" under assigncheck.targets, leading arguments); the
# function is called as function(*arguments, rest), plus `classpath=` and `config=` keywords for the loaders
# in OPTION_LOADERS. New kinds of outside targets plug in here.
TARGET_LOADERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "cmd": ("command:load", ()),
    "cmd2": ("command:load_v2", ()),
    "kafka-python": ("python_libs:load", ("kafka-python",)),
    "aiokafka": ("python_libs:load", ("aiokafka",)),
    "java": ("java:load", ()),
}


class PythonTarget:
    """An outside Python object as an assignor: its `assign` method (or the object itself, when callable), the
    promises it declares (a `Promises`, or their text as `--promises` takes it), and its output: an `Assignment`,
    or a plain mapping `{member: {topic: [partition, ...]}}` (anything else fails H7)."""

    def __init__(self, name: str, fn: Callable[[AnyProblem], Any], promises: Promises | None = None,
                 problem_kind: str | None = None) -> None:
        self.name = name
        self.promises = promises if promises is not None else Promises()
        self._fn = fn
        if problem_kind is not None:
            self.problem_kind = problem_kind

    def assign(self, problem: AnyProblem) -> Assignment:
        out = self._fn(problem)
        return assignment_of_mapping(out, self.name) if isinstance(out, Mapping) else out


def assignment_of_mapping(out: Mapping[Any, Any], name: str) -> Assignment:
    """A plain `{member: {topic: [partition, ...]}}` answer as an `Assignment`; a `TypeError` naming what is wrong
    (a crash of the target's, H7) when it is not one."""
    for member, parts in out.items():
        if not isinstance(member, str) or not isinstance(parts, Mapping):
            raise TypeError(f"{name} returned a mapping that is not {{member: {{topic: [partitions]}}}}: "
                            f"{member!r} maps to {type(parts).__name__}")
        for topic, indices in parts.items():
            if not isinstance(topic, str) or isinstance(indices, str | bytes | Mapping) or not all(
                    isinstance(i, int | np.integer) and not isinstance(i, bool) for i in indices):
                raise TypeError(f"{name} returned a mapping that is not {{member: {{topic: [partitions]}}}}: "
                                f"{member!r} / {topic!r}")
    return Assignment.of(out)


def _promises_of(spec: str, obj: Any) -> Promises | None:
    promises = getattr(obj, "promises", None)
    if promises is None or isinstance(promises, Promises):
        return promises
    if isinstance(promises, str):
        try:
            return Promises.parse(promises)
        except InputError as e:
            raise InputError(f"{spec}.promises", e.message) from None
    raise InputError(f"{spec}.promises", "must be a Promises or their text such as 'balance=perfect,fixpoint'")


def from_object(spec: str, obj: Any) -> Assignor:
    """An outside Python object as an assignor, named `spec` (a class: by its `name`, if it has one). A class is
    instantiated; its (or the object's) `assign` method is called, or the object itself when it is callable."""
    name = spec
    if isinstance(obj, type):
        try:
            obj = obj()
        except Exception as e:  # a user's class that needs arguments, or fails to build
            raise InputError("--target", f"cannot instantiate {spec!r}: {e}") from None
        name = obj.name if isinstance(getattr(obj, "name", None), str) else spec
    promises = _promises_of(spec, obj)
    kind = getattr(obj, "problem_kind", None)
    assign = getattr(obj, "assign", None)
    if callable(assign):
        return PythonTarget(name, assign, promises, kind)
    if callable(obj):
        return PythonTarget(name, obj, promises, kind)
    raise InputError("--target", f"{spec!r} is neither an assignor nor a callable taking a Problem")


# Prefix loaders that take a classpath and configuration (`--classpath`, `--config`), and those that take the
# directory their program runs in (a reproducer's, `TargetRef.cwd`).
OPTION_LOADERS: frozenset[str] = frozenset({"java"})
CWD_LOADERS: frozenset[str] = frozenset({"cmd", "cmd2"})


def load_target(spec: str, *, classpath: tuple[str, ...] = (), config: tuple[tuple[str, str], ...] = (),
                cwd: str | None = None) -> Assignor:
    """`range` (a built-in), `package.module:object`, or `prefix:rest` for a registered prefix loader."""
    prefix, sep, rest = spec.partition(":")
    if (classpath or config) and prefix not in OPTION_LOADERS:
        raise InputError("--classpath" if classpath else "--config", f"applies to java: targets only, not {spec!r}")
    if spec in BUILTINS:
        return get(spec)
    if not sep or not prefix or not rest:
        raise InputError("--target", f"{spec!r} is not a built-in ({', '.join(names())}) nor 'package.module:object'")
    if prefix in TARGET_LOADERS:
        function, arguments = TARGET_LOADERS[prefix]
        options: dict[str, Any] = {"classpath": classpath, "config": config} if prefix in OPTION_LOADERS else {}
        if cwd is not None and prefix in CWD_LOADERS:
            options["cwd"] = cwd
        return import_attr(f"{__package__}.{function}", "--target")(*arguments, rest, **options)
    target = from_object(spec, import_attr(spec, "--target"))
    if getattr(target, "spec", None) is None:
        try:  # lets other processes (fuzz jobs, Spark executors) load the same target again
            target.spec = spec  # type: ignore[attr-defined]  # recorded on the user's object, when it allows
        except AttributeError:
            pass
    return target


class Declared:
    """A target checked against promises declared on the command line instead of its own."""

    def __init__(self, inner: Assignor, promises: Promises, ref: TargetRef) -> None:
        self.inner, self.promises, self.ref = inner, promises, ref

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def problem_kind(self) -> str:
        return problem_kind(self.inner)

    def assign(self, problem: AnyProblem) -> Assignment:
        return self.inner.assign(problem)

    def __getattr__(self, name: str) -> Any:
        """The inner target's optional capabilities (`assign_metered`, `close`, `out_of_turn`, ...)."""
        inner = self.__dict__.get("inner")
        if inner is None or name.startswith("__"):
            raise AttributeError(name)
        return getattr(inner, name)


def load(ref: TargetRef | str) -> Assignor:
    """The target `ref` names, holding the promises it declares (or its own): the one way every stage, every
    worker process and replay load a target, so that all of them check the same promises."""
    ref = TargetRef(ref) if isinstance(ref, str) else ref
    classpath = ref.classpath
    if ref.maven:
        if not ref.spec.startswith("java:"):
            raise InputError("--maven", f"applies to java: targets only, not {ref.spec!r}")
        from assigncheck.toolchains.maven import jars

        classpath += jars(ref.maven)
    target = load_target(ref.spec, classpath=classpath, config=ref.config, cwd=ref.cwd)
    declared = ref.declared()
    if declared is not None:
        own = getattr(target, "promises", None)
        if isinstance(own, Promises) and declared.group_type == "classic":  # the API's, not a promise to declare
            declared = dataclasses.replace(declared, group_type=own.group_type)
        return Declared(target, declared, ref)
    if ref.spec not in BUILTINS:  # built-ins are shared instances named by their spec already
        try:
            target.ref = ref  # type: ignore[attr-defined]  # recorded on the target, when it allows
        except AttributeError:
            pass
    return target


def ref_of(target: Assignor) -> TargetRef:
    """The reference that loads `target` again in another process (its own, or its spec or name)."""
    ref = getattr(target, "ref", None)
    if isinstance(ref, TargetRef):
        return ref
    return TargetRef(getattr(target, "spec", None) or target.name)


def probe(target: Assignor) -> Assignor:
    """Check that an outside target runs at all, on the smallest problem a real group can send (one member,
    one topic of one partition): a program that cannot start, is not an assignor or fails even there is a
    usage error (TargetUnavailable, exit 2), not a finding on every problem of a stage."""
    from assigncheck.run.calls import HANG_MIN_S, run_assignor
    from assigncheck.spec.errors import AssignorFailed, TargetUnavailable
    from assigncheck.spec.groups import protocol_form

    if is_builtin(target):
        return target
    try:
        # the documented hang limit (30 s), not the one a 10 s budget would give (100 s)
        run_assignor(target, protocol_form(smallest(problem_kind(target)), target.promises), budget_s=PROBE_BUDGET_S,
                     hang_s=HANG_MIN_S)
    except AssignorFailed as failed:
        raise TargetUnavailable("--target", f"{target.name} cannot assign even the smallest problem (one member, "
                                            f"one partition): {failed.violation.message}") from None
    return target


PROBE_BUDGET_S = 10.0


def smallest(kind: str = "consumer") -> AnyProblem:
    """The smallest problem a real group can send: one member (or Streams client), one partition (task)."""
    from assigncheck.spec.model import Client, Member, Problem, StreamsProblem

    if kind == "streams":
        return StreamsProblem({"st": 1}, (Client("probe-0", 1),))
    return Problem({"t": 1}, (Member("probe-0", frozenset({"t"})),))


__all__ = [
    "BUILTINS", "CWD_LOADERS", "Declared", "OPTION_LOADERS", "PROBE_BUDGET_S", "PythonTarget", "TARGET_LOADERS",
    "assignment_of_mapping", "from_object", "get", "load", "load_target", "names", "probe", "ref_of", "smallest"
]
