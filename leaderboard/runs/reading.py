"""Reading a run file: size limits, gzip, through the guarded reader all submitted files
share (:func:`leaderboard.fileio.read_submitted_bytes`)."""

from __future__ import annotations

from pathlib import Path

from leaderboard.fileio import read_submitted_bytes
from leaderboard.report import Report

MAX_FILE_BYTES = 512 * 1024 * 1024  # uncompressed; ~4x the largest legitimate run
MAX_COMPRESSED_BYTES = 128 * 1024 * 1024


def read_run_bytes(path: Path, display: str, report: Report) -> bytes | None:
    """The decompressed bytes of a run file, or None after reporting why not."""
    return read_submitted_bytes(path, display, report, max_bytes=MAX_FILE_BYTES,
                                max_compressed_bytes=MAX_COMPRESSED_BYTES)
