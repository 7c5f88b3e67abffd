"""javac for our own Java sources: the JDK, a user's classpath checked, and a compile cache.

- `jdk()`: `java` and `javac` (`$JAVA_HOME/bin` first, then PATH).
- `resolve_classpath(classpath)`: each entry checked to exist, made absolute.
- `holds(classpath, class_file)`: whether some entry (a directory or a jar) holds a class, e.g. an API to compile
  against.
- `compiled(sources, classpath)`: sources compiled once per (sources, classpath content, javac) into
  `$XDG_CACHE_HOME/assigncheck/java/<hash>` (default `~/.cache`), built in a temporary directory and renamed into
  place, so two processes compiling at once never see a half-written directory.
Which sources, against which Kafka jars, is the caller's choice (`targets/java_bridge.py` for the `java:` bridge,
`live/members.py` for the live member).

Warnings: this compile is against whatever classpath a user brings (any Kafka version the sources support), where an
API the sources call for older versions may be deprecated, so javac runs with `-nowarn` and only an error stops it.
The sources' own warnings are errors in the project's Maven build (`drivers/java/pom.xml`, `-Xlint:all -Werror`
against the pinned Kafka version), which `make test` runs.
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

from assigncheck.run.cache import cache_dir
from assigncheck.spec.errors import TargetUnavailable

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
    """Whether some entry (a directory or a jar) holds `class_file` (`org/example/Name.class`)."""
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


def resolve_classpath(classpath: Sequence[str], flag: str = "--classpath") -> tuple[str, ...]:
    """Absolute entries, each checked to exist (a `TargetUnavailable` naming `flag` otherwise)."""
    entries = []
    for entry in classpath:
        path = Path(entry).expanduser()
        if not path.exists():
            raise TargetUnavailable(flag, f"{entry} does not exist")
        entries.append(str(path.resolve()))
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
