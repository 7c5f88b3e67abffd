"""Java for `java:` targets and the Java benchmark: the JDK, Kafka's API on the classpath, and a compile cache.

- `jdk()`: `java` and `javac` (`$JAVA_HOME/bin` first, then PATH).
- `resolve_classpath(classpath, class_name)`: the entries checked, plus Kafka's pinned jars from Maven Central
  (`maven.py`) when no entry holds a Kafka assignor API: the group coordinator's for a class of Kafka's
  `org.apache.kafka.coordinator` packages, kafka-streams for one of `org.apache.kafka.streams`, kafka-clients
  otherwise.
- `bridge_sources(classpath)`: the bridge's sources for the APIs the classpath holds (the classic client API
  always; the broker-side group API, Streams' KIP-924 TaskAssignor and the KIP-1071 streams-group TaskAssignor
  when present).
- `compiled(sources, classpath)`: our own Java sources compiled once per (sources, classpath content, javac) into
  `$XDG_CACHE_HOME/assigncheck/java/<hash>` (default `~/.cache`), built in a temporary directory and renamed into
  place, so two processes compiling at once never see a half-written directory.
Anything missing is a `TargetUnavailable` (one line, exit 2) naming the option to fix.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

from assigncheck.drivers import JAVA_BRIDGE as _BRIDGE
from assigncheck.run.cache import cache_dir
from assigncheck.spec.errors import TargetUnavailable

BRIDGE_SOURCES = tuple(_BRIDGE / f"{name}.java" for name in ("AssigncheckBridge", "AssigncheckJson"))
GROUP_BRIDGE_SOURCE = _BRIDGE / "AssigncheckGroupBridge.java"
STREAMS_BRIDGE_SOURCE = _BRIDGE / "AssigncheckStreamsBridge.java"
STREAMS_GROUP_BRIDGE_SOURCE = _BRIDGE / "AssigncheckStreamsGroupBridge.java"
BRIDGE_CLASS = "AssigncheckBridge"
ASSIGNOR_CLASS_FILE = "org/apache/kafka/clients/consumer/ConsumerPartitionAssignor.class"
GROUP_ASSIGNOR_CLASS_FILE = "org/apache/kafka/coordinator/group/api/assignor/PartitionAssignor.class"
TASK_ASSIGNOR_CLASS_FILE = "org/apache/kafka/streams/processor/assignment/TaskAssignor.class"  # KIP-924, 3.8+
# KIP-1071's broker-side streams TaskAssignor: in the coordinator in 4.1-4.3, in its API jar from 4.4
GROUP_TASK_ASSIGNOR_CLASS_FILES = ("org/apache/kafka/coordinator/group/api/streams/assignor/TaskAssignor.class",
                                   "org/apache/kafka/coordinator/group/streams/assignor/TaskAssignor.class")
COORDINATOR_PACKAGE = "org.apache.kafka.coordinator."
STREAMS_PACKAGE = "org.apache.kafka.streams."
INSTALL_JDK = "java: targets need a JDK 11+ (java and javac on PATH, or JAVA_HOME): install openjdk-17-jdk-headless"
_digests: dict[tuple[str, int, int], str] = {}


def jdk() -> tuple[str, str]:
    """(java, javac) executables."""
    found = []
    for tool in ("java", "javac"):
        home = os.environ.get("JAVA_HOME")
        candidate = Path(home, "bin", tool) if home else None
        path = str(candidate) if candidate is not None and os.access(candidate, os.X_OK) else shutil.which(tool)
        if path is None:
            raise TargetUnavailable("--target", f"no {tool} found. {INSTALL_JDK}")
        found.append(path)
    return found[0], found[1]


def holds(classpath: Sequence[str], class_file: str) -> bool:
    """Whether some entry (a directory or a jar) holds `class_file`."""
    for entry in classpath:
        path = Path(entry)
        if path.is_dir() and (path / class_file).is_file():
            return True
        if path.is_file():
            try:
                with zipfile.ZipFile(path) as jar:
                    jar.getinfo(class_file)
                    return True
            except (KeyError, OSError, zipfile.BadZipFile):
                continue
    return False


def resolve_classpath(classpath: Sequence[str], class_name: str) -> tuple[str, ...]:
    """Absolute entries, each checked to exist, and Kafka's pinned jars when no entry holds an assignor API."""
    from assigncheck.toolchains import maven

    entries = []
    for entry in classpath:
        path = Path(entry).expanduser()
        if not path.exists():
            raise TargetUnavailable("--classpath", f"{entry} does not exist")
        entries.append(str(path.resolve()))
    if not holds(entries, ASSIGNOR_CLASS_FILE) and not holds(entries, GROUP_ASSIGNOR_CLASS_FILE):
        pinned = (maven.COORDINATOR if class_name.startswith(COORDINATOR_PACKAGE)
                  else maven.STREAMS if class_name.startswith(STREAMS_PACKAGE) else maven.CLIENTS)
        entries += maven.jars(pinned, flag="--classpath")  # the option that would have named them
    return tuple(entries)


def bridge_sources(classpath: Sequence[str]) -> tuple[Path, ...]:
    """The bridge's sources that compile against `classpath`: the group and Streams bridges only where their APIs
    are (the KIP-1071 one needs no API to compile, only to run)."""
    return (BRIDGE_SOURCES + ((GROUP_BRIDGE_SOURCE,) if holds(classpath, GROUP_ASSIGNOR_CLASS_FILE) else ())
            + ((STREAMS_BRIDGE_SOURCE,) if holds(classpath, TASK_ASSIGNOR_CLASS_FILE) else ())
            + ((STREAMS_GROUP_BRIDGE_SOURCE,) if any(holds(classpath, f) for f in GROUP_TASK_ASSIGNOR_CLASS_FILES)
               else ()))


def _digest(path: Path) -> str:
    """Content digest of one file, remembered per (path, size, mtime) for this process."""
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _digests:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
        _digests[key] = h.hexdigest()
    return _digests[key]


def cache_key(sources: Sequence[Path], classpath: Sequence[str], javac: str) -> str:
    """The sources' and the classpath's content, and which javac: what the compiled classes depend on."""
    h = hashlib.sha256(os.path.realpath(javac).encode())
    for source in sources:
        h.update(b"\0source\0" + source.name.encode() + b"\0" + _digest(source).encode())
    for entry in classpath:
        path = Path(entry)
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        h.update(b"\0entry\0")
        for f in files:
            h.update(str(f.relative_to(path) if path.is_dir() else f.name).encode() + b"\0" + _digest(f).encode())
    return h.hexdigest()[:24]


def cache_root() -> Path:
    return cache_dir("java")


def compiled(sources: Sequence[Path], classpath: Sequence[str]) -> Path:
    """The directory of `sources` compiled against `classpath` (compiled on first use, then reused)."""
    _, javac = jdk()
    root = cache_root()
    target = root / cache_key(sources, classpath, javac)
    if target.is_dir():
        return target
    try:
        root.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(dir=root, prefix=f".{target.name}-"))
    except OSError as e:
        raise TargetUnavailable("--target", f"cannot write the Java build cache {root}: {e.strerror or e} "
                                            "(set XDG_CACHE_HOME to a writable directory)") from None
    try:
        done = subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", "-d", str(work), "-cp",
                               os.pathsep.join(classpath), *map(str, sources)], capture_output=True, text=True)
        if done.returncode != 0:
            errors = [line for line in done.stderr.splitlines() if "error" in line] or done.stderr.splitlines()
            raise TargetUnavailable("--classpath", f"javac cannot compile {sources[0].name} against "
                                                   f"{os.pathsep.join(classpath)}: {' '.join(errors[:2])[:400]}")
        try:
            os.rename(work, target)
        except OSError:  # another process finished the same build first: use its copy
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target
