"""Reading a run file: size limits, gzip, through the guarded reader all submitted files
share (:func:`leaderboard.core.fileio.read_submitted_bytes`).

Standard library only (no numpy, no pyarrow), so that files can be read, on worker
threads, while the parser's dependencies are still being imported.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from leaderboard.core.fileio import read_submitted_bytes
from leaderboard.core.report import Report

MAX_FILE_BYTES = 512 * 1024 * 1024  # uncompressed; ~4x the largest legitimate run
MAX_COMPRESSED_BYTES = 128 * 1024 * 1024


@dataclass(frozen=True)
class RunBytes:
    """A run file's decompressed bytes, not yet parsed; None when they could not be read,
    and ``report`` says why. ``display`` is the file's name in every message.
    ``stopped_early``: ``data`` is only the beginning of a gzip file whose first lines
    already hold more errors than the checker lists (:class:`_StopAtErrorCap`)."""

    display: str
    report: Report
    data: bytes | None
    stopped_early: bool = False


class _StopAtErrorCap:
    """Stops inflating a gzip run whose first lines already take the checker past its
    error cap (a gzip bomb of bad lines): the checker would stop reading there anyway,
    so the rest is never inflated, instead of up to :data:`MAX_FILE_BYTES` of it.

    Asked once a file has inflated past :data:`leaderboard.core.fileio.ENOUGH_AFTER_BYTES`,
    which no legitimate run reaches; the parser (numpy) is imported only then, so this
    module stays standard library only for every ordinary file."""

    def __init__(self) -> None:
        self.stopped = False

    def __call__(self, head: bytes) -> int | None:
        from leaderboard.core.runs.parsing import verdict_within

        keep = verdict_within(head)
        self.stopped = keep is not None
        return keep


def read_run_file(path: Path, display: str) -> RunBytes:
    report = Report()
    stop = _StopAtErrorCap()
    data = read_submitted_bytes(path, display, report, max_bytes=MAX_FILE_BYTES,
                                max_compressed_bytes=MAX_COMPRESSED_BYTES, enough=stop)
    return RunBytes(display, report, data, stop.stopped)


def start_reading(files: Mapping[str, tuple[Path, str]]) -> dict[str, Future[RunBytes]]:
    """Read and inflate run files, one after the other, on a worker thread: ``files`` maps
    a key (a role) to (path, display name); each future gives :func:`read_run_file`'s
    result.

    Inflating gzip and reading from disk release the GIL, so a caller that starts the
    reading before its heavy imports has the files in memory by the time it can parse
    them (a 4 MB gzipped run takes 25-30 ms to inflate, the imports 100 ms). One thread
    is enough for that; a thread per file only took CPU from the imports on a 2-core
    machine (a one-task `leaderboard eval` was 6-7 ms slower).
    """
    if not files:
        return {}
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="read-run-bytes")
    try:
        return {key: pool.submit(read_run_file, path, display)
                for key, (path, display) in files.items()}
    finally:
        pool.shutdown(wait=False)  # the worker finishes what was submitted, then exits
