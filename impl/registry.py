"""The built-in assignors by name, and `load_target`: turn a `--target` spec into an assignor.

Built-ins are listed by module path and imported on first use, so `assigncheck assign --assignor range`
never imports the min-cost-flow code of `sticky`, and a module under construction breaks only its name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from assigncheck.spec.errors import InputError
from assigncheck.spec.model import AnyProblem, Assignment
from assigncheck.spec.promises import Assignor, Promises

# name -> "module:class" inside assigncheck.impl
BUILTINS: dict[str, str] = {
    "range": "range:RangeAssignor",
    "roundrobin": "roundrobin:RoundRobinAssignor",
    "sticky-constrained": "constrained:ConstrainedStickyAssignor",
    "sticky-constrained-4phase": "constrained4:FourPhaseConstrainedAssignor",
    "sticky": "sticky:StickyAssignor",
    "cooperative-sticky": "cooperative:CooperativeStickyAssignor",
    "lag": "lag:LagAssignor",
    "streams-sticky": "streams:StreamsStickyAssignor",
}

_instances: dict[str, Assignor] = {}

# prefix (before the first ':') -> ("module:function" under assigncheck.impl, leading arguments); the
# function is called as function(*arguments, rest). New kinds of outside targets plug in here.
TARGET_LOADERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "cmd": ("targets.command:load", ()),
    "kafka-python": ("targets.python_libs:load", ("kafka-python",)),
    "aiokafka": ("targets.python_libs:load", ("aiokafka",)),
}


def names() -> list[str]:
    """Every built-in assignor name, sorted."""
    return sorted(BUILTINS)


def _import_attr(path: str, field: str) -> Any:
    module_name, _, attr = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise InputError(field, f"cannot import {module_name!r}: {e}") from None
    except (Exception, SystemExit) as e:  # noqa: BLE001 - the user's module broke on import: say how, in one line
        raise InputError(field, f"importing {module_name!r} failed: {type(e).__name__}: {e}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise InputError(field, f"module {module_name!r} has no attribute {attr!r}") from None


def get(name: str) -> Assignor:
    """The built-in assignor called `name` (one shared instance per name; assignors keep no state)."""
    if name not in BUILTINS:
        raise InputError("--assignor", f"unknown assignor {name!r}; known: {', '.join(names())}")
    if name not in _instances:
        cls = _import_attr(f"{__package__}.{BUILTINS[name]}", "--assignor")
        _instances[name] = cls()
    return _instances[name]


class CallableAssignor:
    """An outside function `Problem -> Assignment` seen as an assignor: it promises only H1-H8."""

    def __init__(self, name: str, fn: Callable[[AnyProblem], Assignment], promises: Promises | None = None) -> None:
        self.name = name
        self.promises = promises if promises is not None else Promises()
        self._fn = fn

    def assign(self, problem: AnyProblem) -> Assignment:
        return self._fn(problem)


def from_object(spec: str, obj: Any) -> Assignor:
    """An outside Python object as an assignor, named `spec`. A class is instantiated (a complete
    assignor is used as is); anything else callable is wrapped."""
    if isinstance(obj, type):
        try:
            obj = obj()
        except Exception as e:  # a user's class that needs arguments, or fails to build
            raise InputError("--target", f"cannot instantiate {spec!r}: {e}") from None
        if isinstance(getattr(obj, "name", None), str) and isinstance(getattr(obj, "promises", None), Promises) \
                and callable(getattr(obj, "assign", None)):
            return obj
    promises = getattr(obj, "promises", None)
    if promises is not None and not isinstance(promises, Promises):
        raise InputError("--target", f"{spec!r}.promises must be a Promises, got {type(promises).__name__}")
    assign = getattr(obj, "assign", None)
    if callable(assign):
        return CallableAssignor(spec, assign, promises)
    if callable(obj):
        return CallableAssignor(spec, obj, promises)
    raise InputError("--target", f"{spec!r} is neither an assignor nor a callable taking a Problem")


def load_target(spec: str) -> Assignor:
    """`range` (a built-in), `package.module:object`, or `prefix:rest` for a registered prefix loader."""
    if spec in BUILTINS:
        return get(spec)
    prefix, sep, rest = spec.partition(":")
    if not sep or not prefix or not rest:
        raise InputError("--target", f"{spec!r} is not a built-in ({', '.join(names())}) nor 'package.module:object'")
    if prefix in TARGET_LOADERS:
        function, arguments = TARGET_LOADERS[prefix]
        return _import_attr(f"{__package__}.{function}", "--target")(*arguments, rest)
    target = from_object(spec, _import_attr(spec, "--target"))
    if getattr(target, "spec", None) is None:
        try:  # lets other processes (fuzz jobs, Spark executors) load the same target again
            target.spec = spec  # type: ignore[attr-defined]
        except AttributeError:
            pass
    return target
