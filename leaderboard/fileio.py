"""Atomic file writes: the one way this project replaces a file it publishes.

Results, runs, prediction files, caches and metadata are written to a temporary file in
the target's folder, flushed to disk, then renamed over the target, so a crash or a full
disk leaves the old file (or none), never a half-written one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _readable_mode() -> int:
    # mkstemp creates 0600; published files should be readable like any other file.
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _readable_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """UTF-8 text with ``\\n`` line ends, written atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))
