"""The optional engines (pip extras) and what needs each: a command or stage whose engine is not installed
stops with one line naming the extra to install; the gate runs, by default, the stages whose engines are
(under CI it refuses to run fewer than all of them unless told which: see `in_ci`)."""

from __future__ import annotations

import importlib.util
import os

from assigncheck.spec.errors import InputError

# engine module -> the extra that installs it
EXTRAS: dict[str, str] = {"z3": "proofs", "atheris": "fuzz", "pyspark": "spark", "pyarrow": "spark",
                          "matplotlib": "plots", "kafka": "kafka", "aiokafka": "kafka", "confluent_kafka": "kafka"}
# gate stage -> the engines it needs (the properties and scale stages need only core dependencies)
STAGE_ENGINES: dict[str, tuple[str, ...]] = {"properties": (), "proofs": ("z3",), "fuzz": ("atheris",),
                                             "campaign": ("pyspark", "pyarrow"), "scale": (),
                                             "live": ()}


def installed(module: str) -> bool:
    """Whether `module` can be imported (found, not imported: pyspark takes a second to import)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # ValueError: a module blocked in sys.modules
        return False


def missing(modules: tuple[str, ...]) -> list[str]:
    return [m for m in modules if not installed(m)]


def install_hint(modules: list[str]) -> str:
    extras = sorted({EXTRAS.get(m, m) for m in modules})
    return f"pip install 'assigncheck[{','.join(extras)}]'"


def require(what: str, *modules: str, flag: str = "") -> None:
    """An InputError (exit 2) naming the extra to install when one of `modules` is missing."""
    gone = missing(modules)
    if gone:
        raise InputError(flag, f"{what} needs {', '.join(gone)}: {install_hint(gone)}")


def in_ci() -> bool:
    """Whether this runs under CI (`CI=true`, as GitHub Actions, GitLab CI and most services set it). There a
    gate that cannot run all its default stages fails instead of passing on part of its work."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def available_stages(stages: tuple[str, ...]) -> tuple[tuple[str, ...], dict[str, str]]:
    """The stages whose engines are installed, and for the others the install command that would add them."""
    ready = tuple(s for s in stages if not missing(STAGE_ENGINES[s]))
    absent = {s: install_hint(missing(STAGE_ENGINES[s])) for s in stages if s not in ready}
    return ready, absent
