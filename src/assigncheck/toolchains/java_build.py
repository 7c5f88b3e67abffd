"""javac for our own Java sources: the JDK, a user's classpath checked, and a compile cache.

- `jdk()`: `java` and `javac` (`$JAVA_HOME/bin` first, then PATH).
- `resolve_classpath(classpath)`: `dir/*` expanded to the jars in `dir`, as `java -cp` does; each entry checked to be
  a jar (a regular file) or a directory before anything reads it, made absolute.
- `holds(classpath, class_file)`: whether some entry (a directory or a jar) holds a class, e.g. an API to compile
  against.
- `compiled(sources, classpath)`: sources compiled once per (sources, classpath content, javac) into
  `$XDG_CACHE_HOME/assigncheck/java/<hash>` (default `~/.cache`), built in a temporary directory and renamed into
  place, so two processes compiling at once never see a half-written directory; with a manifest of each class
  file's size and digest, checked at every use: classes changed on disk are compiled again.
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
import stat
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

from assigncheck.formats.cache import cache_dir, cache_error
from assigncheck.formats.json_input import file_kind
from assigncheck.spec.errors import TargetUnavailable
from assigncheck.toolchains import digests
from assigncheck.toolchains.digests import file_digest

INSTALL_JDK = "java: targets need a JDK 11+ (java and javac on PATH, or JAVA_HOME): install openjdk-17-jdk-headless"
LAYOUT = "2"  # of a compiled directory: its classes and a manifest of their sizes and digests (`toolchains.digests`)
ERROR_CHARS = 1000  # of javac's first errors: enough for a path and "No space left on device" after it


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


def expand(entry: str, flag: str = "--classpath") -> list[str]:
    """A classpath entry as `java -cp` reads it: `dir/*` is every jar in `dir` (not in its subdirectories), sorted;
    any other entry is itself."""
    if entry != "*" and not entry.endswith(("/*", os.sep + "*")):
        return [entry]
    folder = Path(entry[:-1] or ".").expanduser()
    if not folder.is_dir():
        raise TargetUnavailable(flag, f"{entry}: {folder} is not a directory")
    found = sorted(str(folder / p.name) for p in folder.iterdir() if p.suffix.lower() == ".jar" and p.is_file())
    if not found:
        raise TargetUnavailable(flag, f"{entry}: {folder} holds no .jar file")
    return found


def checked_entry(entry: str, flag: str = "--classpath") -> str:
    """`entry` made absolute, once it is known to be a regular file (a jar) or a directory: checked before anything
    reads it (a device or a FIFO would never end, or block forever)."""
    path = Path(entry).expanduser()
    try:
        mode = path.stat().st_mode
    except OSError as e:
        if isinstance(e, FileNotFoundError):
            raise TargetUnavailable(flag, f"{entry} does not exist") from None
        raise TargetUnavailable(flag, f"{entry} cannot be read: {e.strerror or e}") from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise TargetUnavailable(flag, f"{entry} is {file_kind(mode)}, not a jar or a directory")
    return str(path.resolve())


def resolve_classpath(classpath: Sequence[str], flag: str = "--classpath") -> tuple[str, ...]:
    """Absolute entries, `dir/*` expanded to its jars, each checked to be a jar or a directory (a
    `TargetUnavailable` naming `flag` otherwise)."""
    return tuple(checked_entry(e, flag) for entry in classpath for e in expand(entry, flag))


def cache_key(sources: Sequence[Path], classpath: Sequence[str], javac: str) -> str:
    """The sources' and the classpath's content, and which javac: what the compiled classes depend on."""
    h = hashlib.sha256(os.path.realpath(javac).encode() + b"\0layout\0" + LAYOUT.encode())
    for source in sources:
        h.update(b"\0source\0" + source.name.encode() + b"\0" + file_digest(source).encode())
    for entry in classpath:
        h.update(b"\0entry\0" + digests.entry(entry).encode())
    return h.hexdigest()[:24]


def cache_root() -> Path:
    return cache_dir("java")


def compiled(sources: Sequence[Path], classpath: Sequence[str]) -> Path:
    """The directory of `sources` compiled against `classpath` (compiled on first use, then reused while its classes
    match the sizes and digests recorded when they were compiled; compiled again when they do not)."""
    _, javac = jdk()
    root = cache_root()
    target = root / cache_key(sources, classpath, javac)
    if target.is_dir():
        wrong = digests.damaged(target)
        if wrong is None:
            return target
        print(f"assigncheck: the Java build cache {target} does not match its manifest ({wrong}): compiling it "
              "again", file=sys.stderr)
        digests.discard(target)
        if target.exists():
            raise TargetUnavailable("--target", cache_error(f"damaged compiled classes ({wrong}) that cannot be "
                                                            "removed", target))
    try:
        root.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(dir=root, prefix=f".{target.name}-"))
    except OSError as e:
        raise TargetUnavailable("--target", f"cannot write the Java build cache {root}: {e.strerror or e} "
                                            "(set XDG_CACHE_HOME to a writable directory)") from None
    try:
        _javac(javac, sources, classpath, work)
        try:
            digests.write_manifest(work)
            os.rename(work, target)
        except OSError as e:
            if not target.is_dir():  # not another process's copy, finished first: a full disk, a quota
                raise TargetUnavailable("--target", f"cannot write the Java build cache {root}: "
                                                    f"{e.strerror or e}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def _javac(javac: str, sources: Sequence[Path], classpath: Sequence[str], out: Path) -> None:
    done = subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", "-d", str(out), "-cp", os.pathsep.join(classpath),
                           *map(str, sources)], capture_output=True, text=True)
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if "error" in line] or done.stderr.splitlines()
        raise TargetUnavailable("--classpath", f"javac cannot compile {sources[0].name} against "
                                               f"{os.pathsep.join(classpath)}: {' '.join(errors[:2])[:ERROR_CHARS]}")


__all__ = [
    "ERROR_CHARS", "INSTALL_JDK", "LAYOUT", "cache_key", "cache_root", "checked_entry", "compiled", "expand", "holds",
    "jdk", "resolve_classpath"
]
