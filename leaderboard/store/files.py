"""Files named by content: a size and a SHA-256, checked before anything uses them.

A :class:`StoredRef` names a file by the size and SHA-256 of its bytes, or (``gzip``) of
the bytes it inflates to. :func:`check_file` holds a local copy to it; :func:`download`
streams a remote copy into the cache (:mod:`leaderboard.store.cache`), verified before it
is renamed into place; :func:`cached_copy` finds a verified copy there, and :func:`keep`
puts verified bytes there that were made on this machine. Every problem is a
:class:`StoreError` naming the file (``<submission id>/<path>``) and where it was.

Which places hold a submission's file, in which order, is the submission's business
(:class:`leaderboard.submission.files.SubmissionFiles`).
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from leaderboard.core.checksums import file_checksum
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import atomic_file, file_kind, gunzip_bounded, size_text
from leaderboard.core.report import Report
from leaderboard.store.cache import PART_PREFIX, cached_path
from leaderboard.store.http import HttpLimits, fetch, hide_credentials

# gzip adds a header and, on content it cannot compress, 5 bytes per 16 KiB block.
_GZIP_SLACK = 1024


@dataclass(frozen=True)
class StoredRef:
    """A file a submission names by content: its path inside the submission folder, and
    the size and SHA-256 of its bytes, or (``gzip``) of the bytes it inflates to."""

    path: str
    size: int
    sha256: str
    gzip: bool = False

    @property
    def max_stored_bytes(self) -> int:
        return self.size + self.size // 1000 + _GZIP_SLACK if self.gzip else self.size

    def describe(self) -> str:
        what = "inflating to " if self.gzip else ""
        return f"{what}{self.size} bytes with sha256 {self.sha256}"


def unique_errors(found: Mapping[str, object]) -> list[StoreError]:
    """The :class:`StoreError` values of a ``locate_all`` answer, each once (the files
    left when a submission's deadline passed share one)."""
    seen: dict[int, StoreError] = {}
    for value in found.values():
        if isinstance(value, StoreError):
            seen.setdefault(id(value), value)
    return list(seen.values())


class StoreError(FollowBoardError):
    """A stored file that could not be had; ``display`` is ``<id>/<path>``."""

    def __init__(self, display: str, message: str) -> None:
        message = hide_credentials(message)
        super().__init__(f"{display}: {message}")
        self.display = display
        self.message = message


def _problem(size: int, sha: str, ref: StoredRef) -> str | None:
    what = "inflates to" if ref.gzip else "is"
    if size != ref.size:
        return f"it {what} {size} bytes, not the {ref.size} listed"
    if sha != ref.sha256:
        return f"its sha256 is {sha}, not the {ref.sha256} listed"
    return None


def check_file(path: Path, ref: StoredRef) -> tuple[str | None, bytes | None]:
    """(why ``path`` is not ``ref``'s file or None, and the content of a gzip ref)."""
    try:
        stored = path.stat().st_size
        if not ref.gzip:
            if stored != ref.size:
                return f"it is {stored} bytes, not the {ref.size} listed", None
            checksum = file_checksum(path, "sha256")
            return _problem(checksum.size, checksum.digest, ref), None
        if stored > ref.max_stored_bytes:
            return (f"it is {size_text(stored)} compressed, more than "
                    f"{ref.size} bytes of content can take"), None
        raw = path.read_bytes()
    except OSError as exc:
        return f"cannot read it: {exc.strerror or exc}", None
    return check_file_bytes(raw, ref)


def check_file_bytes(raw: bytes, ref: StoredRef) -> tuple[str | None, bytes | None]:
    """:func:`check_file` on bytes in memory (a gzip ref's stored bytes)."""
    report = Report()
    content = gunzip_bounded(raw, ref.size, "", report) if raw[:2] == b"\x1f\x8b" else None
    if content is None:
        return (report.issues[0].message if report.issues else "not a gzip file"), None
    problem = _problem(len(content), hashlib.sha256(content).hexdigest(), ref)
    return problem, (None if problem else content)


def _sweep(folder: Path) -> None:
    """Remove temporary files a killed fetch left (older than an hour: not in flight)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(PART_PREFIX):
            try:
                if entry.stat().st_mtime < time.time() - 3600:
                    os.unlink(entry.path)
            except OSError:
                pass


def cache_entry(cache: Path, ref: StoredRef, display: str) -> Path:
    """Where the cache keeps ``ref``; a :class:`StoreError` saying the cache is damaged
    when something other than a regular file is there (a folder, a link, a FIFO), which
    nothing may read, write over or follow."""
    path = cached_path(cache, ref.sha256, ref.gzip)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise StoreError(display, f"the run store's cache cannot be read at {path}: "
                                  f"{exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise StoreError(display, f"the run store's cache is damaged: {path} is "
                                  f"{file_kind(path)} where a file belongs; remove it and "
                                  "run the command again")
    return path


def cached_copy(cache: Path, ref: StoredRef, display: str) -> tuple[Path, bytes | None] | None:
    """The cache's verified copy of ``ref`` (and its content, for a gzip ref), or None; a
    damaged copy is removed, so that it is fetched afresh rather than trusted."""
    cached = cache_entry(cache, ref, display)
    if not cached.is_file():
        return None
    problem, content = check_file(cached, ref)
    if problem is None:
        return cached, content
    cached.unlink(missing_ok=True)
    return None


def download(url: str, ref: StoredRef, cache: Path, display: str,
             limits: HttpLimits | None = None, until: float | None = None
             ) -> tuple[Path, bytes | None]:
    """Stream ``url`` into the cache under ``ref``'s name, verified before it is renamed
    into place (nothing is kept otherwise). Raises :class:`FetchError` when the file
    cannot be had, :class:`StoreError` (naming ``display``) when it is not ``ref``'s."""
    target = cache_entry(cache, ref, display)
    _sweep(target.parent)
    content: bytes | None = None
    with atomic_file(target, prefix=PART_PREFIX, durable=False) as sink:
        got = fetch(url, sink, size=ref.size, limits=limits or HttpLimits(),
                    max_bytes=ref.max_stored_bytes, until=until)
        if ref.gzip:
            sink.seek(0)
            problem, content = check_file_bytes(sink.read(), ref)
        else:
            problem = _problem(got.size, got.sha256, ref)
        if problem:
            # Raised inside the block: atomic_file removes the temporary file.
            raise StoreError(display, f"the store's copy at {got.url} does not match: "
                                      f"{problem}; nothing was kept")
    return target, content


def keep(cache: Path, ref: StoredRef, data: bytes, display: str) -> Path:
    """Put ``data``, ``ref``'s bytes made on this machine, into the cache (once; checked
    first, written atomically), where every reader of ``ref`` looks for it."""
    target = cache_entry(cache, ref, display)
    if target.is_file() and check_file(target, ref)[0] is None:
        return target
    problem, _ = (check_file_bytes(data, ref) if ref.gzip else
                  (_problem(len(data), hashlib.sha256(data).hexdigest(), ref), None))
    if problem:
        raise StoreError(display, f"not kept: {problem}")
    with atomic_file(target, prefix=PART_PREFIX, durable=False) as sink:
        sink.write(data)
    return target
