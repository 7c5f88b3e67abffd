"""Kafka's jars from Maven Central, resolved by the user's own `mvn` into a cache: `--maven G:A:V[,G:A:V...]`, and
the pinned artifacts `java:` targets use when no classpath names Kafka's API.

`jars(coordinates)` runs `mvn dependency:copy-dependencies` on a throwaway POM listing the coordinates (their runtime
dependencies come along) into `$XDG_CACHE_HOME/assigncheck/maven/<hash>/` (default `~/.cache`), built in a temporary
directory with a manifest of each jar's size and digest, renamed into place, then reused while every jar matches its
manifest: a set that does not (a jar truncated or changed on disk) is fetched again. `python -m
assigncheck.toolchains.maven` fetches every pinned set (the project's `make` does, so the tests and the gate need
nothing by hand).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape

from assigncheck.formats.bounded import bounded
from assigncheck.formats.cache import cache_dir, cache_error
from assigncheck.formats.coordinates import parse as parse_coordinates
from assigncheck.spec.errors import InputError, TargetUnavailable
from assigncheck.toolchains import digests

KAFKA = "org.apache.kafka"
# The classic client API (ConsumerPartitionAssignor): the version the README's client findings were made on.
CLIENTS = (f"{KAFKA}:kafka-clients:3.9.1",)
# The broker-side assignors (KIP-848 consumer groups, KIP-932 share groups): the first 4.x and the newest.
COORDINATOR_FIRST = (f"{KAFKA}:kafka-group-coordinator:4.0.0",)
COORDINATOR = (f"{KAFKA}:kafka-group-coordinator:4.4.0",)
# Kafka Streams' KIP-924 task assignors (TaskAssignor): the newest.
STREAMS = (f"{KAFKA}:kafka-streams:4.4.0",)
# KIP-1071's streams-group task assignors: the first coordinator with them (their API's 4.1-4.3 package).
STREAMS_GROUP_FIRST = (f"{KAFKA}:kafka-group-coordinator:4.1.0",)
# The broker live groups run on (`assigncheck live`): Kafka in KRaft mode, with its kafka-clients for Java members.
BROKER = (f"{KAFKA}:kafka_2.13:4.4.0",)
PINNED = (CLIENTS, COORDINATOR_FIRST, COORDINATOR, STREAMS, STREAMS_GROUP_FIRST, BROKER)
RESOLVE_S = 600.0  # a cold local repository downloads ~25 MB per Kafka 4 set
LAYOUT = "2"  # of a cached set: its jars and a manifest of their sizes and digests (`toolchains.digests`)
ERROR_CHARS = 1000  # of mvn's first error line: enough for a path and "No space left on device" after it


def parse(text: str) -> tuple[str, ...]:
    """`G:A:V[,G:A:V...]` as coordinates, each checked; an `InputError` naming --maven otherwise."""
    return parse_coordinates(text)


def cache_root() -> Path:
    return cache_dir("maven")


def _pom(coordinates: Sequence[str]) -> str:
    deps = "".join(
        f"<dependency><groupId>{escape(g)}</groupId><artifactId>{escape(a)}</artifactId>"
        f"<version>{escape(v)}</version></dependency>" for g, a, v in (c.split(":") for c in coordinates))
    return ('<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
            "<groupId>assigncheck</groupId><artifactId>classpath</artifactId><version>0</version>"
            f"<dependencies>{deps}</dependencies></project>\n")


def _cached(directory: Path, flag: str) -> tuple[str, ...] | None:
    """The jars of a cached set, each as its manifest recorded it; None when there is none. A set that does not
    match its manifest (a jar truncated, changed or removed) is discarded, to be fetched again, and says so."""
    if not directory.is_dir():
        return None
    wrong = digests.damaged(directory)
    if wrong is None:
        found = digests.listed(directory)
        assert found is not None
        return tuple(map(str, found))
    print(f"assigncheck: the jar cache {directory} does not match its manifest ({wrong}): fetching it again",
          file=sys.stderr)
    digests.discard(directory)
    if directory.exists():
        raise TargetUnavailable(flag, cache_error(f"a damaged set of jars ({wrong}) that cannot be removed",
                                                  directory))
    return None


def jars(coordinates: Sequence[str], flag: str = "--maven") -> tuple[str, ...]:
    """The jars of `coordinates` and their runtime dependencies (resolved once, then from the cache, checked against
    the sizes and digests recorded when they were fetched); a failure is a `TargetUnavailable` naming `flag` (the
    option that asked for them)."""
    key = hashlib.sha256("\n".join([LAYOUT, *sorted(coordinates)]).encode()).hexdigest()[:20]
    target = cache_root() / key
    found = _cached(target, flag)
    if found is not None:
        return found
    mvn = shutil.which("mvn")
    if mvn is None:
        raise TargetUnavailable(flag, f"resolving {', '.join(coordinates)} needs Maven: install maven (mvn on "
                                           "PATH), or pass --classpath with the jars")
    try:
        cache_root().mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(dir=cache_root(), prefix=f".{key}-"))
    except OSError as e:
        raise TargetUnavailable(flag, f"cannot write the jar cache {cache_root()}: {e.strerror or e} "
                                           "(set XDG_CACHE_HOME to a writable directory)") from None
    try:
        _resolve(mvn, coordinates, work, flag)
        try:
            os.rename(work / "jars", target)
        except OSError:  # another process finished the same set first: use its copy
            if _cached(target, flag) is None:
                raise
    except OSError as e:  # a full disk while copying the jars: the cache's fault, not the coordinates'
        raise TargetUnavailable(flag, f"cannot write the jar cache {cache_root()}: {e.strerror or e}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    found = _cached(target, flag)
    if found is None:
        raise TargetUnavailable(flag, cache_error("a set of jars that does not match what was just fetched", target))
    return found


def _resolve(mvn: str, coordinates: Sequence[str], work: Path, flag: str) -> None:
    """`mvn dependency:copy-dependencies` of `coordinates` into `work/jars`, with its manifest."""
    (work / "pom.xml").write_text(_pom(coordinates), encoding="utf-8")
    try:
        done = subprocess.run([mvn, "-q", "-B", "-f", str(work / "pom.xml"), "dependency:copy-dependencies",
                               f"-DoutputDirectory={work / 'jars'}", "-DincludeScope=runtime"],
                              capture_output=True, text=True, timeout=RESOLVE_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise TargetUnavailable(flag, f"mvn did not resolve {', '.join(coordinates)} within "
                                           f"{RESOLVE_S:.0f} s") from None
    names = sorted(p.name for p in (work / "jars").glob("*.jar")) if done.returncode == 0 else []
    if not names:
        errors = [ln for ln in (done.stdout + done.stderr).splitlines() if "ERROR" in ln] or ["no jar came back"]
        raise TargetUnavailable(flag, f"mvn could not resolve {', '.join(coordinates)}: "
                                           f"{bounded(errors[0].replace('[ERROR]', '').strip(), ERROR_CHARS)}")
    digests.write_manifest(work / "jars", [Path(n) for n in names])


def main() -> int:
    """Fetch every pinned set (the project's set-up step)."""
    try:
        for coordinates in PINNED:
            print(f"{', '.join(coordinates)}: {len(jars(coordinates))} jars", file=sys.stderr)
    except (InputError, TargetUnavailable) as e:
        print(f"assigncheck: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = [
    "BROKER", "CLIENTS", "COORDINATOR", "COORDINATOR_FIRST", "ERROR_CHARS", "KAFKA", "LAYOUT", "PINNED", "RESOLVE_S",
    "STREAMS", "STREAMS_GROUP_FIRST", "cache_root", "jars", "main", "parse"
]
