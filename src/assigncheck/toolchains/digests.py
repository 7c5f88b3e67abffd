"""Content digests of files and directories, each file's remembered per (path, size, mtime) for the process: what
the cache's manifests record and check (Kafka's jars, compiled bridges: `manifest`, `damaged`), and what a
reproducer records of each classpath entry (`entry`)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

MANIFEST = ".manifest"  # in a cache entry: one line per file, "sha256 size relative/path"
_known: dict[tuple[str, int, int], str] = {}


def file_digest(path: Path) -> str:
    """The sha256 of one regular file's bytes (hex)."""
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _known:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
        _known[key] = h.hexdigest()
    return _known[key]


def files(directory: Path) -> list[Path]:
    """The regular files under `directory`, sorted (FIFOs, devices and sockets are never read)."""
    return sorted(p for p in directory.rglob("*") if p.is_file())


def entry(path: str | Path) -> str:
    """"sha256:<hex>" of a classpath entry: a jar's bytes, or a directory's file names and contents."""
    path = Path(path)
    if not path.is_dir():
        return f"sha256:{file_digest(path)}"
    h = hashlib.sha256()
    for f in files(path):
        h.update(f.relative_to(path).as_posix().encode() + b"\0" + file_digest(f).encode() + b"\0")
    return f"sha256:{h.hexdigest()}"


def write_manifest(directory: Path, names: Iterable[Path] | None = None) -> None:
    """Record the size and digest of each file under `directory` (or of `names` in it) in its manifest."""
    listed = [directory / n for n in names] if names is not None else [
        p for p in files(directory) if p.name != MANIFEST]
    lines = [f"{file_digest(p)} {p.stat().st_size} {p.relative_to(directory).as_posix()}" for p in listed]
    (directory / MANIFEST).write_text("\n".join(lines) + "\n", encoding="utf-8")


def listed(directory: Path) -> list[Path] | None:
    """The files `directory`'s manifest lists, in its order (None when it has no readable manifest)."""
    try:
        text = (directory / MANIFEST).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    names = [line.split(" ", 2)[2] for line in text.splitlines() if line.count(" ") >= 2]
    return [directory / n for n in names] or None


def damaged(directory: Path) -> str | None:
    """What in `directory` does not match its manifest (a file missing, resized or changed, or no manifest), or
    None when every file it lists is as recorded."""
    try:
        text = (directory / MANIFEST).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return "no manifest"
    lines = text.splitlines()
    if not lines:
        return "an empty manifest"
    for line in lines:
        digest, size, name = (line.split(" ", 2) + ["", ""])[:3]
        path = directory / name
        try:
            if not name or not path.is_file():
                return f"{name or 'a line'} missing"
            if str(path.stat().st_size) != size:
                return f"{name} is {path.stat().st_size:,} bytes, not {size}"
            if file_digest(path) != digest:
                return f"{name} changed (sha256)"
        except OSError as e:
            return f"{name} unreadable: {e.strerror or e}"
    return None


def discard(directory: Path) -> None:
    """Remove a cache entry: renamed out of the way first, so that no process sees it half removed."""
    import shutil
    import tempfile

    try:
        aside = Path(tempfile.mkdtemp(dir=directory.parent, prefix=f".stale-{directory.name}-"))
        os.rename(directory, aside / directory.name)
    except OSError:
        aside = directory
    shutil.rmtree(aside, ignore_errors=True)


__all__ = [
    "MANIFEST", "damaged", "discard", "entry", "file_digest", "files", "listed", "write_manifest"
]
