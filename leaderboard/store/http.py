"""The one HTTP reader of stored files: streamed, bounded in size and time, redirects checked.

Every remote read of the run store (the Hub's ``/resolve/`` URLs, an HTTPS store) comes
here, with urllib from the standard library. What a store sends is untrusted until its
SHA-256 matches, so the reader

* sends no credentials (stored files are public; nothing can leak to a redirect target);
* follows at most :data:`MAX_REDIRECTS` redirects, each to the same scheme as the store
  (https to https; a loopback test server's http to http): a redirect to ``file:``,
  ``ftp:`` or from https down to http is refused;
* refuses a ``Content-Length`` other than the size the manifest lists, and stops reading
  at one byte past the limit, so a store cannot fill the disk;
* gives up when the store is silent for ``timeout_s`` (connect and every read), and when
  the whole file takes longer than ``timeout_s + size / min_rate`` (checked between
  reads, so a store that trickles bytes is stopped too);
* retries, with backoff, only what a retry can fix: HTTP 429/5xx and connections cut
  mid-file.

The bytes go to a file handle the caller owns (a temporary file in the cache), hashed on
the way; the caller verifies and renames.
"""

from __future__ import annotations

import hashlib
import http.client
import re
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import BinaryIO, Callable
from urllib.parse import urljoin, urlsplit

from leaderboard import __version__
from leaderboard.core.errors import FollowBoardError

CHUNK_BYTES = 1 << 20
MAX_REDIRECTS = 5
RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
USER_AGENT = f"followboard/{__version__} (run store)"


# A URL's user name and password ("https://user:secret@host/..."), shown as "***@".
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#@\s]*@")


def hide_credentials(text: str) -> str:
    """``text`` with the user name and password of every URL in it replaced by ``***``:
    a message never shows a secret that reached a URL (a store setting, a redirect)."""
    return _USERINFO.sub(r"\1***@", text)


class FetchError(FollowBoardError):
    """A remote file could not be fetched; the message says why, without the file's name
    (the caller adds the submission and the file), and without any URL's credentials."""

    def __init__(self, message: str, *, not_found: bool = False) -> None:
        super().__init__(hide_credentials(message))
        self.not_found = not_found


@dataclass(frozen=True)
class HttpLimits:
    timeout_s: float = 30.0           # connecting, and each read
    min_rate: float = 256 * 1024      # bytes per second a whole file may not fall below
    retries: int = 2
    backoff_s: float = 1.0
    sleep: Callable[[float], None] = time.sleep

    def deadline_s(self, size: int) -> float:
        return self.timeout_s + size / self.min_rate

    def total_deadline_s(self, size: int) -> float:
        """How long fetching several files of ``size`` bytes in all may take together:
        a store that never answers costs two timeouts, not one per file."""
        return 2 * self.timeout_s + size / self.min_rate


@dataclass(frozen=True)
class Fetched:
    size: int
    sha256: str
    url: str   # after redirects


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects come back as HTTPError 3xx, and :func:`fetch` checks each one itself."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001, ANN201
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def _describe(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None)
    if isinstance(reason, BaseException):
        exc = reason
    if isinstance(exc, (TimeoutError, socket.timeout)):
        return "no answer in time"
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return text


def _redirect_target(url: str, location: str | None, scheme: str) -> str:
    if not location:
        raise FetchError(f"{url} redirected without a Location")
    target = urljoin(url, location)
    if urlsplit(target).scheme.lower() != scheme:
        raise FetchError(f"{url} redirected to another scheme ({target.split(':', 1)[0]}:); "
                         f"only {scheme}: is followed")
    return target


def _stream(response: http.client.HTTPResponse, sink: BinaryIO, max_bytes: int,
            deadline: float, started: float, url: str) -> tuple[int, str]:
    digest = hashlib.sha256()
    got = 0
    while True:
        try:
            # read1: what has arrived (up to the chunk), so the deadline is checked while a
            # slow store trickles; read() would wait for the whole chunk.
            block = response.read1(min(CHUNK_BYTES, max_bytes + 1 - got))
        except http.client.IncompleteRead as exc:
            raise _CutShort(f"the connection closed after {got + len(exc.partial)} bytes") \
                from None
        except (TimeoutError, socket.timeout):
            raise FetchError(f"{url}: the store stopped sending after {got} bytes "
                             f"(silent for more than the read timeout)") from None
        except OSError as exc:
            raise _CutShort(f"the connection failed after {got} bytes ({_describe(exc)})") \
                from None
        if not block:
            return got, digest.hexdigest()
        got += len(block)
        if got > max_bytes:
            raise FetchError(f"{url}: the store sent more than the {max_bytes} bytes expected")
        digest.update(block)
        sink.write(block)
        if time.monotonic() > deadline:
            raise FetchError(f"{url}: too slow: {got} bytes in "
                             f"{time.monotonic() - started:.1f} s")


class _CutShort(Exception):
    """A transfer that broke off: worth a retry."""


def fetch(url: str, sink: BinaryIO, *, size: int, limits: HttpLimits,
          max_bytes: int | None = None, until: float | None = None) -> Fetched:
    """Write the body at ``url`` into ``sink`` (rewound for each try) and return its size
    and SHA-256. ``size`` is what the body should be: a ``Content-Length`` that differs is
    refused. ``max_bytes`` (default ``size``) is where reading stops, for a body whose
    exact size is not known (a gzip file named by its content's size). ``until`` (a
    ``time.monotonic()`` instant) ends the fetch earlier than its own deadline: that of
    all the files fetched with it."""
    limit = size if max_bytes is None else max_bytes
    scheme = urlsplit(url).scheme.lower()
    started = time.monotonic()
    deadline = started + limits.deadline_s(limit)
    if until is not None:
        deadline = min(deadline, until)
    attempt = 0
    while True:
        try:
            return _fetch_once(url, sink, size=size, limit=limit, scheme=scheme,
                               limits=limits, deadline=deadline, started=started)
        except _Retryable as exc:
            attempt += 1
            if attempt > limits.retries or time.monotonic() > deadline:
                raise FetchError(f"{url}: {exc} (still failing after {attempt} tries)") \
                    from None
            limits.sleep(min(limits.backoff_s * 2 ** (attempt - 1), 30.0))


class _Retryable(Exception):
    pass


def _fetch_once(url: str, sink: BinaryIO, *, size: int, limit: int, scheme: str,
                limits: HttpLimits, deadline: float, started: float) -> Fetched:
    sink.seek(0)
    sink.truncate()
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        request = urllib.request.Request(current, headers={
            "User-Agent": USER_AGENT, "Accept-Encoding": "identity"})
        timeout = max(0.05, min(limits.timeout_s, deadline - time.monotonic()))
        try:
            response = _OPENER.open(request, timeout=timeout)
        except urllib.error.HTTPError as exc:
            exc.close()
            if exc.code in (301, 302, 303, 307, 308):
                current = _redirect_target(current, exc.headers.get("Location"), scheme)
                continue
            if exc.code == 404:
                raise FetchError(f"{current}: not found (HTTP 404)", not_found=True) from None
            if exc.code in RETRYABLE_STATUS:
                raise _Retryable(f"HTTP {exc.code}") from None
            raise FetchError(f"{current}: HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            # No answer at all: unreachable (refused, no route, DNS) or silent. Not retried:
            # a store that is down stays down for the seconds a retry would wait.
            raise FetchError(f"cannot reach the store at {current} ({_describe(exc)})") \
                from None
        with response:
            length = response.headers.get("Content-Length")
            announced = int(length) if length and length.strip().isdigit() else None
            if announced is not None and announced > limit:
                raise FetchError(f"{current}: the store announces {announced} bytes, more "
                                 f"than the {limit} expected")
            if announced is not None and limit == size and announced != size:
                raise FetchError(f"{current}: the store announces {announced} bytes, not "
                                 f"the {size} expected")
            try:
                got, sha = _stream(response, sink, limit, deadline, started, current)
            except _CutShort as exc:
                raise _Retryable(str(exc)) from None
            if announced is not None and got < announced:
                raise _Retryable(f"the connection closed after {got} of {announced} bytes")
        sink.flush()
        return Fetched(got, sha, current)
    raise FetchError(f"{url}: more than {MAX_REDIRECTS} redirects")
