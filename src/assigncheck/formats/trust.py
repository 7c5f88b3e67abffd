"""Which reproducer files this machine wrote: a replay runs the program or imports the module a file names only
when it is trusted (`findings.consent`), and a file assigncheck wrote here is.

Each reproducer assigncheck writes (`formats.reproducer.save`) is recorded as a keyed hash of its bytes, an
HMAC-SHA256 under a secret of this user's (`trust/key` in the cache directory, made on first use, readable by
its owner only), kept as an empty file named by the hash (`trust/written/<hash>`), as direnv's `allow` keeps
the files a user allowed. A file is trusted when its bytes hash to a recorded name: the same file anywhere on
this machine, not one edited since, nor one written elsewhere (another user's, a colleague's, an attachment),
whose hash no one can forge without the key. Where the cache cannot be written nothing is recorded, and a
replay needs the user's word (`replay --trust`).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from assigncheck.formats.cache import cache_dir

KEY_BYTES = 32


def _root() -> Path:
    return cache_dir("trust")


def _key(create: bool) -> bytes | None:
    """This user's secret, made once (None where it does not exist and `create` is off, or cannot be made)."""
    path = _root() / "key"
    try:
        key = path.read_bytes()
        if len(key) == KEY_BYTES:
            return key
    except OSError:
        pass
    if not create:
        return None
    try:
        _root().mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = _root() / f".key-{os.getpid()}-{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(KEY_BYTES))
        try:
            os.link(tmp, path)  # never replaces a key another process made first: both then use that one
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
        key = path.read_bytes()
    except OSError:
        return None
    return key if len(key) == KEY_BYTES else None


def _name(key: bytes, data: bytes) -> str:
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def record(data: bytes) -> bool:
    """Record the bytes of a file assigncheck wrote on this machine; False where the cache cannot be written."""
    key = _key(create=True)
    if key is None:
        return False
    try:
        written = _root() / "written"
        written.mkdir(mode=0o700, exist_ok=True)
        (written / _name(key, data)).touch()
    except OSError:
        return False
    return True


def written_here(data: bytes) -> bool:
    """Whether assigncheck wrote a file of exactly these bytes on this machine, as this user."""
    key = _key(create=False)
    return key is not None and (_root() / "written" / _name(key, data)).is_file()

__all__ = ["record", "written_here"]
