"""Java for `java:` targets and the Java benchmark: the JDK, the bundled kafka-clients jar, and a compile cache.

- `jdk()`: `java` and `javac` (`$JAVA_HOME/bin` first, then PATH).
- `bundled_kafka_jars()`: kafka-clients 3.9.1 and slf4j-api as the PyPI package `shigawire-apache-flink-libraries`
  installs them (`pyflink/lib/`, the `[java]` extra); nothing is downloaded at run time.
- `compiled(sources, classpath)`: our own Java sources compiled once per (sources, classpath content, javac) into
  `$XDG_CACHE_HOME/assigncheck/java/<hash>` (default `~/.cache`), built in a temporary directory and renamed into
  place, so two processes compiling at once never see a half-written directory.
Anything missing is a `TargetUnavailable` (one line, exit 2) naming the option to fix.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

from assigncheck.spec.errors import TargetUnavailable

BRIDGE_SOURCES = tuple(Path(__file__).with_name("java_bridge") / f"{name}.java"
                       for name in ("AssigncheckBridge", "AssigncheckJson"))
BRIDGE_CLASS = "AssigncheckBridge"
ASSIGNOR_CLASS_FILE = "org/apache/kafka/clients/consumer/ConsumerPartitionAssignor.class"
INSTALL_JDK = "java: targets need a JDK 11+ (java and javac on PATH, or JAVA_HOME): install openjdk-17-jdk-headless"
INSTALL_JARS = ("kafka-clients is not installed: pip install 'assigncheck[java]' (kafka-clients 3.9.1, from the "
                "PyPI package shigawire-apache-flink-libraries), or pass --classpath with your kafka-clients jar")
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


def bundled_kafka_jars() -> tuple[str, ...]:
    """kafka-clients.jar and slf4j-api.jar of the installed `shigawire-apache-flink-libraries`, or () if absent."""
    spec = importlib.util.find_spec("pyflink")
    for base in (spec.submodule_search_locations or []) if spec is not None else []:
        lib = Path(base, "lib")
        jars = (lib / "kafka-clients.jar", lib / "slf4j-api.jar")
        if all(j.is_file() for j in jars):
            return tuple(str(j) for j in jars)
    return ()


def has_assignor_api(classpath: Sequence[str]) -> bool:
    """Whether some entry holds Kafka's ConsumerPartitionAssignor interface."""
    for entry in classpath:
        path = Path(entry)
        if path.is_dir() and (path / ASSIGNOR_CLASS_FILE).is_file():
            return True
        if path.is_file():
            try:
                with zipfile.ZipFile(path) as jar:
                    jar.getinfo(ASSIGNOR_CLASS_FILE)
                    return True
            except (KeyError, OSError, zipfile.BadZipFile):
                continue
    return False


def resolve_classpath(classpath: Sequence[str], class_name: str) -> tuple[str, ...]:
    """Absolute entries, each checked to exist. No classpath: the bundled kafka-clients (Kafka's own classes need
    nothing else). A classpath without kafka-clients gets the bundled one appended, when installed."""
    entries = []
    for entry in classpath:
        path = Path(entry).expanduser()
        if not path.exists():
            raise TargetUnavailable("--classpath", f"{entry} does not exist")
        entries.append(str(path.resolve()))
    if not has_assignor_api(entries):
        bundled = bundled_kafka_jars()
        if not bundled:
            why = "" if entries else f" (needed for {class_name})"
            raise TargetUnavailable("--classpath", f"no kafka-clients jar on the classpath{why}. {INSTALL_JARS}")
        entries += bundled
    return tuple(entries)


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
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base, "assigncheck", "java")


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
