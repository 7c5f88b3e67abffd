"""Maven coordinates as assigncheck takes them, from `--maven` and from a reproducer's `target.maven` alike: at
most `MAX_COORDINATES` of them, each `group:artifact:version` with one fixed version. `LATEST`, `RELEASE` and
version ranges (`[1.0,2.0)`) are refused: the jars are resolved once and cached under the coordinates, and a
finding must replay on the jars it was found on."""

from __future__ import annotations

import re

from assigncheck.formats.bounded import bounded
from assigncheck.spec.errors import InputError

MAX_COORDINATES = 32  # a target and its libraries; more is a mistake, and each unknown one costs mvn a timeout
EXAMPLE = "org.apache.kafka:kafka-group-coordinator:4.0.0"
_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_RANGE = re.compile(r"[\[(][^\[\]()]*[\])]")  # a version range: [1.0,2.0), (,1.0], [1.5]
_NOT_PINS = ("LATEST", "RELEASE")


def split(text: str) -> list[str]:
    """`text` split at the commas between coordinates, not at those inside a version range."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c in "[("
        depth -= c in "])" and depth > 0
        if c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def check(coordinate: str, path: str = "--maven") -> str:
    """`coordinate` when it is group:artifact:version with a fixed version; an `InputError` naming `path`."""
    shown = repr(bounded(coordinate, 120))
    group, _, rest = coordinate.partition(":")
    artifact, _, version = rest.partition(":")
    if _RANGE.fullmatch(version) or version.upper() in _NOT_PINS:
        raise InputError(path, f"{shown}: {version} is not one version; name the version the jars are to be "
                               "(a cached set, and a finding, must not change under a new release)")
    if not all(_PART.fullmatch(p) for p in (group, artifact, version)):
        raise InputError(path, f"{shown} is not group:artifact:version (e.g. {EXAMPLE})")
    return coordinate


def parse(text: str, path: str = "--maven") -> tuple[str, ...]:
    """`G:A:V[,G:A:V...]` as coordinates, each checked (`check`)."""
    coordinates = split(text)
    if not coordinates:
        raise InputError(path, "needs at least one group:artifact:version")
    return checked(coordinates, path)


def checked(coordinates: list[str] | tuple[str, ...], path: str = "--maven") -> tuple[str, ...]:
    """Each of `coordinates` checked, and at most `MAX_COORDINATES` of them."""
    if len(coordinates) > MAX_COORDINATES:
        raise InputError(path, f"names {len(coordinates):,} coordinates; at most {MAX_COORDINATES} (a target's "
                               "jar and its libraries: their dependencies come along)")
    return tuple(check(c, path) for c in coordinates)

__all__ = ["EXAMPLE", "MAX_COORDINATES", "check", "checked", "parse", "split"]
