"""File I/O shared by the project: atomic writes, and reading validated JSON.

Results, runs, prediction files, caches and metadata are written to a temporary file in
the target's folder, flushed to disk, then renamed over the target, so a crash or a full
disk leaves the old file (or none), never a half-written one.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TypeVar

from pydantic import BaseModel, ValidationError

ModelT = TypeVar("ModelT", bound=BaseModel)


def _readable_mode() -> int:
    # mkstemp creates 0600; published files should be readable like any other file.
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextmanager
def atomic_file(path: Path, *, prefix: str = ".", suffix: str = ".tmp") -> Iterator[BinaryIO]:
    """A new binary file that replaces ``path`` only if the ``with`` block succeeds.

    The file is created in ``path``'s folder (so the final rename stays on one file
    system) as ``{prefix}{name}.XXXX{suffix}``; on success it is flushed to disk, made
    readable like any other file and renamed over ``path``; on any error, an interrupt
    included, it is removed and ``path`` is untouched. The handle is opened ``w+b``, so
    the block may rewind and rewrite it (a retried download does).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f"{prefix}{path.name}.", suffix=suffix,
                                    dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w+b") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _readable_mode())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: Path, data: bytes) -> None:
    with atomic_file(path) as fh:
        fh.write(data)


def atomic_write_text(path: Path, text: str) -> None:
    """UTF-8 text with ``\\n`` line ends, written atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def read_json_model(path: Path, model: type[ModelT], error: type[Exception], *,
                    what: str = "", max_bytes: int | None = None) -> ModelT:
    """Read a JSON file and validate it as ``model``; every failure raises ``error`` with a
    message naming the file (and the JSON line or the offending key), never a traceback.

    ``what`` names the expected kind of file in schema errors (e.g. "a FollowBoard CI
    report"); ``max_bytes`` refuses oversized files before reading them.
    """
    try:
        if max_bytes is not None:
            size = path.stat().st_size
            if size > max_bytes:
                raise error(f"{path}: {size} bytes, over the {max_bytes} byte limit"
                            + (f" of {what}" if what else ""))
        data = path.read_bytes()
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc}") from None
    try:
        # pydantic parses and validates in one pass, ~3x faster than json.loads followed by
        # model_validate on results files (the site reads one per submission).
        return model.model_validate_json(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            _raise_json_error(path, data, error)
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        prefix = f"not {what}: " if what else ""
        raise error(f"{path}: {prefix}{where}: {first['msg']} "
                    f"({exc.error_count()} problem(s) in all)") from None


def _raise_json_error(path: Path, data: bytes, error: type[Exception]) -> None:
    """Raise ``error`` naming the line of the JSON (or UTF-8) fault in ``data``.

    Only called on a file pydantic could not parse; Python's own decoder gives the line
    number and message users know from every other JSON tool."""
    try:
        json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise error(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise error(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    # both decoders should agree; if Python's accepts the text, report pydantic's reading
    raise error(f"{path}: invalid JSON")
