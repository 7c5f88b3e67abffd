"""The optimized built-in assignors, one module each, by name in `BUILTINS` (`get(name)`), with the compiled
kernels only they use (`min_cost_flow`, `sticky_kernel`; `native` from native/impl). Anyone else's assignor is
loaded by `assigncheck.targets.registry.load_target`.

Built-ins are listed by module path and imported on first use, so `assigncheck assign --assignor range` never imports
the min-cost-flow code of `sticky`, and a module under construction breaks only its name.
"""

from __future__ import annotations

import importlib
from typing import Any

from assigncheck.spec.errors import InputError
from assigncheck.spec.promises import Assignor

# name -> "module:class" inside assigncheck.impl
BUILTINS: dict[str, str] = {
    "range": "range:RangeAssignor",
    "roundrobin": "roundrobin:RoundRobinAssignor",
    "sticky-constrained": "constrained:ConstrainedStickyAssignor",
    "sticky-constrained-4phase": "constrained_kip615:FourPhaseConstrainedAssignor",
    "sticky": "sticky:StickyAssignor",
    "cooperative-sticky": "cooperative:CooperativeStickyAssignor",
    "lag": "lag:LagAssignor",
    "streams-sticky": "streams:StreamsStickyAssignor",
}

_instances: dict[str, Assignor] = {}


def names() -> list[str]:
    """Every built-in assignor name, sorted."""
    return sorted(BUILTINS)


def import_attr(path: str, field: str) -> Any:
    """`module:attribute`, imported; any failure is an `InputError` on `field`, in one line."""
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
        cls = import_attr(f"{__name__}.{BUILTINS[name]}", "--assignor")
        _instances[name] = cls()
    return _instances[name]


def is_builtin(target: object) -> bool:
    """Whether `target` is the shared instance `get` gives for its name (not an object that only shares a name)."""
    name = getattr(target, "name", None)
    return isinstance(name, str) and _instances.get(name) is target


__all__ = ["BUILTINS", "get", "import_attr", "is_builtin", "names"]
