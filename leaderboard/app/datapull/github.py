"""GitHub upstreams of `leaderboard data pull` (FollowTable, PI-Indic-Align).

The revision is resolved to its full commit with ``GET {api}/repos/{repo}/commits/{rev}``;
files are listed with the git trees API (entries carry each file's git blob SHA-1 and
size) and fetched from ``{raw}/{repo}/{commit}/{path}`` with a small urllib client
(timeouts, bounded retries, no token on redirects). A Git LFS pointer is replaced by its
object from ``{media}``. FollowTable's ``corpus.jsonl`` is packed from its tables folder.
"""

from __future__ import annotations

import hashlib
import http.client
import io
import json
import posixpath
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO, Callable, Mapping

from leaderboard import __version__
from leaderboard.core.fileio import atomic_file, json_too_deep, MAX_JSON_DEPTH
from leaderboard.benchmarks import benchmark_of
from leaderboard.core.tasks import DataSource
from leaderboard.app.datapull.common import (
    FOLLOWTABLE_CORPUS,
    FOLLOWTABLE_OPTIONAL,
    FOLLOWTABLE_TABLE_SUFFIX,
    FOLLOWTABLE_TABLES,
    LFS_POINTER_HEADER,
    LFS_POINTER_MAX_BYTES,
    MAX_BACKOFF_S,
    PART_PREFIX,
    PART_SUFFIX,
    RETRYABLE_STATUS,
    ChecksumError,
    Host,
    PackedCorpus,
    PullError,
    PullPlan,
    RemoteFile,
    SourceTasks,
    SourceUnreachableError,
    UpstreamError,
    _check_resolved,
    _describe,
    verify,
)
from leaderboard.core.checksums import CHUNK_BYTES, Checksum
from leaderboard.core.config import ENV_GITHUB_TOKEN, ENV_HF_TOKEN, Endpoints


# --- HTTP --------------------------------------------------------------------------------

class _NoAuthRedirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects (the Hub sends LFS files to a CDN) without the Authorization header.

    urllib already drops headers added with ``add_unredirected_header``; this class only
    exists to make that guarantee explicit for any header spelled "Authorization".
    """

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001, ANN201
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None:
            new.headers.pop("Authorization", None)
            new.unredirected_hdrs.pop("Authorization", None)
        return new


class _Stopped(Exception):
    """A download noticed that the pull was cancelled (another file failed, or Ctrl-C)."""


@dataclass
class HttpClient:
    """urllib with timeouts and bounded retries with exponential backoff.

    Retried: connection failures, timeouts, connections dropped mid-body and HTTP 408, 425,
    429 and 5xx. Not retried: other HTTP errors and checksum mismatches (a file that hashes
    wrong after a complete transfer is what upstream serves, and retrying will not fix it).
    """

    timeout: float = 60.0
    retries: int = 3
    backoff: float = 1.0
    sleep: Callable[[float], None] = time.sleep
    user_agent: str = f"followboard-leaderboard/{__version__} (+data pull)"
    _opener: urllib.request.OpenerDirector = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._opener = urllib.request.build_opener(_NoAuthRedirects())

    def _request(self, url: str, token: str | None, accept: str | None) -> urllib.request.Request:
        req = urllib.request.Request(url, headers={"User-Agent": self.user_agent})
        if accept:
            req.add_header("Accept", accept)
        if token:
            req.add_unredirected_header("Authorization", f"Bearer {token}")
        return req

    def retrying(self, url: str, host: Host, base_url: str,
                 attempt: Callable[[Callable[[], Any]], Any],
                 token: str | None = None, accept: str | None = None) -> Any:
        """Call ``attempt(open_response)`` until it succeeds or the retries are spent."""
        last: BaseException | None = None
        connected = False
        for n in range(self.retries + 1):
            if n:
                self.sleep(min(self.backoff * 2 ** (n - 1), MAX_BACKOFF_S))
            try:
                return attempt(lambda: self._opener.open(self._request(url, token, accept),
                                                         timeout=self.timeout))
            except urllib.error.HTTPError as exc:
                connected = True
                if exc.code in RETRYABLE_STATUS:
                    last = exc
                    wait_s = _retry_after(exc)
                    if wait_s is not None and n < self.retries:
                        self.sleep(min(wait_s, MAX_BACKOFF_S))
                    continue
                raise _http_error(exc, url, host) from None
            except urllib.error.URLError as exc:
                # A connection that was made and then dropped is not "unreachable".
                if isinstance(exc.reason, (http.client.HTTPException, ConnectionResetError)):
                    connected = True
                last = exc
            except (http.client.HTTPException, ConnectionError, TimeoutError) as exc:
                connected = True  # dropped or stalled in the middle of the body
                last = exc
        assert last is not None
        if isinstance(last, urllib.error.HTTPError):
            raise UpstreamError(f"{url}: HTTP {last.code} {last.reason} "
                                f"(still failing after {self.retries + 1} attempts)") from None
        if not connected:
            reason = last.reason if isinstance(last, urllib.error.URLError) else last
            raise SourceUnreachableError(host, base_url, _describe(reason)) from None
        raise PullError(f"{url}: the transfer failed {self.retries + 1} times "
                        f"({_describe(last)})") from None

    def get_json(self, url: str, host: Host, base_url: str,
                 token: str | None = None) -> tuple[Any, Mapping[str, str]]:
        def attempt(open_response: Callable[[], Any]) -> tuple[Any, Mapping[str, str]]:
            with open_response() as resp:
                return resp.read(), dict(resp.headers.items())

        body, headers = self.retrying(url, host, base_url, attempt, token, "application/json")
        if json_too_deep(body):
            raise UpstreamError(f"{url}: the answer is JSON nested deeper than "
                                f"{MAX_JSON_DEPTH} levels")
        try:
            return json.loads(body), headers
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise UpstreamError(f"{url}: the answer is not JSON") from None


def _content_length(resp: Any) -> int | None:
    value = resp.headers.get("Content-Length") if getattr(resp, "headers", None) else None
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _retry_after(exc: urllib.error.HTTPError) -> float | None:
    value = exc.headers.get("Retry-After") if exc.headers else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None

def _http_error(exc: urllib.error.HTTPError, url: str, host: Host) -> PullError:
    if exc.code == 404:
        return UpstreamError(f"{url}: not found (HTTP 404); is the repository public and the "
                             f"pinned revision still there?")
    if exc.code in (401, 403):
        env = ENV_GITHUB_TOKEN if host == "github" else ENV_HF_TOKEN
        limited = exc.headers is not None and exc.headers.get("X-RateLimit-Remaining") == "0"
        why = "rate limit reached" if limited else "access denied"
        return UpstreamError(f"{url}: {why} (HTTP {exc.code}); set ${env} to a token with "
                             f"read access and try again")
    return UpstreamError(f"{url}: HTTP {exc.code} {exc.reason}")


class GitHubClient:
    """Plans and fetches the files of one GitHub source at its pinned commit."""

    def __init__(self, endpoints: Endpoints, http: HttpClient, token: str | None,
                 stop: threading.Event) -> None:
        self.endpoints = endpoints
        self.http = http
        self._github_token = token
        self._stop = stop  # set when the pull is cancelled: downloads stop at their next chunk


    def _github_json(self, path: str) -> tuple[Any, Mapping[str, str]]:
        base = self.endpoints.github_api
        return self.http.get_json(f"{base}/{path}", "github", base, self._github_token)

    def _github_commit(self, source: DataSource) -> tuple[str, str]:
        obj, _ = self._github_json(f"repos/{source.repo}/commits/{_q(source.revision)}")
        try:
            commit, tree = str(obj["sha"]), str(obj["commit"]["tree"]["sha"])
        except (KeyError, TypeError):
            raise UpstreamError(f"GitHub answered an unexpected commit object for "
                                f"{source.pinned}") from None
        _check_resolved(source, commit)
        return commit, tree

    def _github_tree(self, repo: str, sha: str, recursive: bool) -> tuple[list[dict], bool]:
        suffix = "?recursive=1" if recursive else ""
        obj, _ = self._github_json(f"repos/{repo}/git/trees/{sha}{suffix}")
        if not isinstance(obj, dict) or not isinstance(obj.get("tree"), list):
            raise UpstreamError(f"GitHub answered an unexpected tree object for {repo} tree {sha}")
        return obj["tree"], bool(obj.get("truncated"))

    def _github_folder(self, source: DataSource, root_tree: str,
                       folder: str) -> tuple[str, dict[str, dict]]:
        """Every entry under ``folder`` (paths relative to the repo root) and its tree id."""
        sha = root_tree
        walked = []
        for part in [p for p in folder.split("/") if p]:
            entries, _ = self._github_tree(source.repo, sha, recursive=False)
            match = [e for e in entries if e.get("path") == part and e.get("type") == "tree"]
            walked.append(part)
            if not match:
                raise UpstreamError(f"{source.pinned} has no folder "
                                    f"{'/'.join(walked)}")
            sha = match[0]["sha"]
        entries, truncated = self._github_tree(source.repo, sha, recursive=True)
        if truncated:
            # The recursive listing has a size cap; walk the folders one at a time instead.
            entries = self._github_walk(source.repo, sha)
        prefix = f"{folder.strip('/')}/" if folder.strip("/") else ""
        return sha, {prefix + e["path"]: dict(e, path=prefix + e["path"]) for e in entries}

    def _github_walk(self, repo: str, sha: str) -> list[dict]:
        out: list[dict] = []
        pending = [("", sha)]
        while pending:
            prefix, tree_sha = pending.pop()
            entries, truncated = self._github_tree(repo, tree_sha, recursive=False)
            if truncated:
                raise UpstreamError(f"GitHub truncated the listing of {repo} folder "
                                    f"{prefix or '/'}; it is too large to list")
            for e in entries:
                e = dict(e, path=prefix + e["path"])
                out.append(e)
                if e.get("type") == "tree":
                    pending.append((e["path"] + "/", e["sha"]))
        return out

    def _github_file(self, source: DataSource, commit: str, entry: dict,
                     local_path: str) -> RemoteFile:
        path = entry["path"]
        try:
            checksum = Checksum("git-sha1", str(entry["sha"]), int(entry["size"]))
        except (KeyError, TypeError, ValueError):
            raise UpstreamError(f"GitHub listed {source.repo}:{path} without sha/size") from None
        url = f"{self.endpoints.github_raw}/{source.repo}/{commit}/{_q(path)}"
        return RemoteFile(path, local_path, url, checksum, upstream_id=checksum.digest)

    def plan(self, item: SourceTasks) -> PullPlan:
        source = item.source
        commit, root_tree = self._github_commit(source)
        if benchmark_of(item.benchmark).github_plan == "table-folder":
            # The source lists its files under one dataset folder (FollowTable:
            # data/<DS>/corpus.jsonl, data/<DS>/qrels/test.tsv, ...).
            folder = posixpath.commonpath(source.files)
            _, listing = self._github_folder(source, root_tree, folder)
            return self._plan_followtable(source, commit, folder, listing)
        # Every other GitHub source names its files; list just the folders that hold them.
        listing: dict[str, dict] = {}
        for folder in sorted({str(PurePosixPath(f).parent) for f in source.files}):
            _, entries = self._github_folder(source, root_tree, "" if folder == "." else folder)
            listing.update(entries)
        files = []
        missing = []
        for path in source.files:
            entry = listing.get(path)
            if entry is None or entry.get("type") != "blob":
                missing.append(path)
                continue
            files.append(self._github_file(source, commit, entry, path))
        if missing:
            raise UpstreamError(f"{source.pinned} lacks "
                                + ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else ""))
        return PullPlan(source, commit, files)

    def _plan_followtable(self, source: DataSource, commit: str, folder: str,
                          listing: dict[str, dict]) -> PullPlan:
        files: list[RemoteFile] = []
        packed: list[PackedCorpus] = []
        missing: list[str] = []
        listed = tuple(posixpath.relpath(f, folder) for f in source.files)
        for name in (*listed, *FOLLOWTABLE_OPTIONAL):
            path = f"{folder}/{name}"
            entry = listing.get(path)
            if entry is not None and entry.get("type") == "blob":
                files.append(self._github_file(source, commit, entry, name))
            elif name == FOLLOWTABLE_CORPUS:
                tables_folder = f"{folder}/{FOLLOWTABLE_TABLES}"
                tables_entry = listing.get(tables_folder)
                tables = sorted(
                    (PurePosixPath(p).stem, self._github_file(source, commit, e, p))
                    for p, e in listing.items()
                    if e.get("type") == "blob" and str(PurePosixPath(p).parent) == tables_folder
                    and p.endswith(FOLLOWTABLE_TABLE_SUFFIX))
                if not tables or tables_entry is None:
                    missing.append(f"{path} (or {tables_folder}/*{FOLLOWTABLE_TABLE_SUFFIX})")
                else:
                    packed.append(PackedCorpus(name, tables_folder, tuple(tables),
                                               upstream_id=str(tables_entry["sha"])))
            elif name not in FOLLOWTABLE_OPTIONAL:
                missing.append(path)
        if missing:
            raise UpstreamError(f"{source.pinned} lacks " + ", ".join(missing))
        return PullPlan(source, commit, files, packed)

    def _stream(self, remote: RemoteFile, out: BinaryIO) -> tuple[int, str]:
        """Download a GitHub file into ``out`` (rewound on each retry); return (size, digest)."""

        def attempt(open_response: Callable[[], Any]) -> tuple[int, str]:
            out.seek(0)
            out.truncate()
            hasher = remote.checksum.hasher()
            size = 0
            with open_response() as resp:
                promised = _content_length(resp)
                while chunk := resp.read(CHUNK_BYTES):
                    if self._stop.is_set():
                        raise _Stopped()
                    size += len(chunk)
                    if size > remote.checksum.size:
                        # Past the listed size it cannot be the file: stop here (a body
                        # without a Content-Length streamed 400 MB for a 42-byte file).
                        raise ChecksumError(
                            f"{remote.upstream_path} from {remote.url}: the server sent "
                            f"more than the {remote.checksum.size:,} bytes upstream lists; "
                            "the file was not kept")
                    out.write(chunk)
                    hasher.update(chunk)
            # http.client ends a body cut short silently; a connection that closed before
            # the promised length is a dropped transfer (retried), not a bad file.
            if promised is not None and size < promised:
                raise http.client.IncompleteRead(b"", promised - size)
            return size, hasher.hexdigest()

        return self.http.retrying(remote.url, "github", self.endpoints.github_raw, attempt,
                                  self._github_token)

    def fetch_bytes(self, remote: RemoteFile) -> bytes:
        """A verified file's bytes (a Git LFS pointer replaced by its object)."""
        buf = io.BytesIO()
        size, digest = self._stream(remote, buf)
        verify(remote, size, digest)
        content = buf.getvalue()
        if _is_lfs_pointer(content):
            return self.fetch_bytes(self._lfs_object(remote, content))
        return content

    def _lfs_object(self, remote: RemoteFile, pointer: bytes) -> RemoteFile:
        """The real content behind a Git LFS pointer that GitHub's raw endpoint served."""
        fields = dict(line.split(" ", 1) for line in pointer.decode("ascii", "replace").splitlines()
                      if " " in line)
        oid, size = fields.get("oid", ""), fields.get("size", "")
        if not oid.startswith("sha256:") or not size.isdigit():
            raise UpstreamError(f"{remote.upstream_path}: unreadable Git LFS pointer")
        source_repo_commit = remote.url[len(self.endpoints.github_raw) + 1:]
        url = f"{self.endpoints.github_media}/{source_repo_commit}"
        return RemoteFile(remote.upstream_path, remote.local_path, url,
                          Checksum("sha256", oid.split(":", 1)[1], int(size)), remote.upstream_id)

    def download(self, remote: RemoteFile, target: Path) -> tuple[Checksum, int]:
        """Download, verify, then rename into place; return the local checksum and bytes."""
        with atomic_file(target, prefix=PART_PREFIX, suffix=PART_SUFFIX) as fh:
            size, digest = self._stream(remote, fh)
            verify(remote, size, digest)
            checksum = remote.checksum
            if size <= LFS_POINTER_MAX_BYTES:
                fh.seek(0)
                head = fh.read()
                if _is_lfs_pointer(head):
                    real = self._lfs_object(remote, head)
                    size, digest = self._stream(real, fh)
                    verify(real, size, digest)
                    checksum = real.checksum
        return checksum, size


def write_packed_corpus(target: Path, tables: Mapping[str, str]) -> Checksum:
    """Write FollowTable's corpus.jsonl atomically: one JSON line per table, ids in order.

    Lines are ``{"_id": "<id>", "text": "<table text>"}`` with non-ASCII characters kept
    as they are, ids in string order -- the layout of the project's data mirror.
    """
    hasher = hashlib.sha256()
    size = 0
    with atomic_file(target, prefix=PART_PREFIX, suffix=PART_SUFFIX) as fh:
        for table_id in sorted(tables):
            line = (json.dumps({"_id": table_id, "text": tables[table_id]},
                               ensure_ascii=False) + "\n").encode("utf-8")
            fh.write(line)
            hasher.update(line)
            size += len(line)
    return Checksum("sha256", hasher.hexdigest(), size)

def _is_lfs_pointer(content: bytes) -> bool:
    return len(content) <= LFS_POINTER_MAX_BYTES and content.startswith(LFS_POINTER_HEADER)


def _q(path: str) -> str:
    return urllib.parse.quote(path, safe="/")
