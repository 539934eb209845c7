"""Download each benchmark's files from upstream, at the revisions pinned in the registry.

Two kinds of upstream:

* GitHub (FollowTable, PI-Indic-Align). The revision is resolved to its full commit with
  ``GET {api}/repos/{repo}/commits/{revision}``; the files are listed with the git trees
  API (``GET {api}/repos/{repo}/git/trees/{sha}?recursive=1``, whose entries carry the git
  blob SHA-1 and size of every file) and fetched from ``{raw}/{repo}/{commit}/{path}``.
  FollowTable's ``corpus.jsonl`` is not a file upstream: it is packed from the
  ``data/<DS>/tables/<id>.txt`` files, one ``{"_id": "<id>", "text": "<file text>"}`` line
  per table, ids in string order (the layout of the project's data mirror).
* The Hugging Face Hub (FollowIR, mFollowIR), through ``huggingface_hub``: the revision
  is resolved with ``HfApi.dataset_info``, the files are listed with
  ``HfApi.list_repo_tree`` (LFS files carry their SHA-256, the others their git blob id)
  and fetched with ``hf_hub_download`` at the resolved commit. The dataset card's
  ``configs`` section says which files make up which config; each config's files land in
  ``<local_dir>/<config>/`` where :mod:`leaderboard.data.mteb_layout` reads them.

Every file is verified before it is kept: its size and its git blob SHA-1
(``sha1(b"blob <size>\\0" + content)``) as listed upstream, or the SHA-256 of a Git LFS
object. Files are written to a temporary file in the target folder and renamed over the
target only once verified, so a failed or interrupted pull leaves no partial file (and no
half-packed corpus). A small manifest, ``<local_dir>/.manifest.json``, written last,
records each local file's checksum and the upstream revision; a later pull of the same
revision re-verifies the local files against it and needs no network at all.

The base URLs can be pointed elsewhere (a mirror, or a test server) with constructor
arguments or the environment variables ``LEADERBOARD_GITHUB_API``,
``LEADERBOARD_GITHUB_RAW``, ``LEADERBOARD_GITHUB_MEDIA`` and ``LEADERBOARD_HF_ENDPOINT``
(else ``HF_ENDPOINT``, as ``huggingface_hub`` reads it).
Tokens come from ``GITHUB_TOKEN`` and ``HF_TOKEN``; they are sent only as an
``Authorization`` header to the matching host (never forwarded on a redirect) and never
printed.
"""

from __future__ import annotations

import fnmatch
import hashlib
import http.client
import io
import json
import os
import re
import shutil
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO, Callable, Iterable, Literal, Mapping, Sequence

import httpx2
import yaml
from huggingface_hub import HfApi, hf_hub_download
from huggingface_hub import constants as hf_constants
from huggingface_hub.errors import (
    EntryNotFoundError,
    HfHubHTTPError,
    LocalEntryNotFoundError,
    OfflineModeIsEnabled,
)
from huggingface_hub.hf_api import RepoFile

from leaderboard import __version__
from leaderboard.data.base import MissingDataError
from leaderboard.registry import FOLLOWTABLE_FILES, DataSource, Task, all_tasks
from leaderboard.fileio import atomic_file, atomic_write_text

ENV_GITHUB_API = "LEADERBOARD_GITHUB_API"
ENV_GITHUB_RAW = "LEADERBOARD_GITHUB_RAW"
ENV_GITHUB_MEDIA = "LEADERBOARD_GITHUB_MEDIA"
ENV_HF_ENDPOINT = "LEADERBOARD_HF_ENDPOINT"
ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_HF_TOKEN = "HF_TOKEN"

DEFAULT_GITHUB_API = "https://api.github.com"
DEFAULT_GITHUB_RAW = "https://raw.githubusercontent.com"
DEFAULT_GITHUB_MEDIA = "https://media.githubusercontent.com/media"
DEFAULT_HF_ENDPOINT = "https://huggingface.co"

MANIFEST_NAME = ".manifest.json"
MANIFEST_FORMAT = 1
# Temporary files are named so that a later pull can sweep up what a killed one left.
PART_PREFIX = ".pull-"
PART_SUFFIX = ".part"

# Benchmarks that `leaderboard data pull` accepts, with the aliases users type.
BENCHMARKS = ("followtable", "pi-indic-val150", "followir", "mfollowir", "mfollowir-cl")
BENCHMARK_ALIASES = {"pi-indic": "pi-indic-val150"}

# FollowTable: the local corpus.jsonl is packed from this upstream folder of tables.
FOLLOWTABLE_CORPUS = "corpus.jsonl"
FOLLOWTABLE_TABLES = "tables"
FOLLOWTABLE_TABLE_SUFFIX = ".txt"
# Raw instructions: present upstream for WTR, TArX and IndusTR, lost for WQT.
FOLLOWTABLE_OPTIONAL = ("query_instruction.json",)

# File formats the Hugging Face reader (mteb_layout) reads from a config folder.
HF_DATA_SUFFIXES = (".parquet", ".jsonl")
HF_CARD = "README.md"

RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
MAX_BACKOFF_S = 30.0
CHUNK_BYTES = 1 << 20
# Where Hub downloads are staged (inside the source folder, so a rename lands them).
HF_STAGING = ".pull-staging"
LFS_POINTER_MAX_BYTES = 1024
LFS_POINTER_HEADER = b"version https://git-lfs.github.com/spec/v1"

Host = Literal["github", "huggingface"]


# --- errors ----------------------------------------------------------------------------

class PullError(Exception):
    """A pull failed; the message says what, where, and what to do about it."""


class SourceUnreachableError(PullError):
    """No connection to an upstream host at all (offline, DNS, refused, timed out)."""

    def __init__(self, host: Host, base_url: str, reason: str) -> None:
        self.host = host
        self.base_url = base_url
        self.reason = reason
        super().__init__(f"cannot reach {host_title(host)} at {base_url} ({reason})")


class ChecksumError(PullError):
    """A downloaded file differs from what upstream lists; it was not kept."""


class UpstreamError(PullError):
    """Upstream answered, but not with what the pinned revision should have."""


def host_title(host: Host) -> str:
    return "GitHub" if host == "github" else "the Hugging Face Hub"


# --- configuration ---------------------------------------------------------------------

@dataclass(frozen=True)
class Endpoints:
    """Base URLs of the upstream services; tests point them at a local server."""

    github_api: str = DEFAULT_GITHUB_API
    github_raw: str = DEFAULT_GITHUB_RAW
    github_media: str = DEFAULT_GITHUB_MEDIA
    hf_endpoint: str = DEFAULT_HF_ENDPOINT

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "Endpoints":
        env = os.environ if environ is None else environ

        def pick(name: str, default: str) -> str:
            return (env.get(name) or default).rstrip("/")

        return cls(github_api=pick(ENV_GITHUB_API, DEFAULT_GITHUB_API),
                   github_raw=pick(ENV_GITHUB_RAW, DEFAULT_GITHUB_RAW),
                   github_media=pick(ENV_GITHUB_MEDIA, DEFAULT_GITHUB_MEDIA),
                   hf_endpoint=pick(ENV_HF_ENDPOINT,
                                    env.get("HF_ENDPOINT") or DEFAULT_HF_ENDPOINT))


@dataclass(frozen=True)
class Checksum:
    """What a file must hash to: a git blob SHA-1 or a SHA-256, and its size."""

    algorithm: Literal["git-sha1", "sha256"]
    digest: str
    size: int

    def hasher(self) -> "hashlib._Hash":
        # A git blob id hashes a header with the size first, so the expected size seeds it;
        # a file of another size fails the size check before the digest is compared.
        if self.algorithm == "git-sha1":
            return hashlib.sha1(b"blob %d\0" % self.size)
        return hashlib.sha256()

    def problem(self, size: int, digest: str) -> str | None:
        """Why (size, digest) does not match, or None when it does."""
        if size != self.size:
            return f"size {size} bytes, expected {self.size}"
        if digest != self.digest:
            return f"{self.algorithm} {digest}, expected {self.digest}"
        return None

    def to_json(self) -> dict[str, Any]:
        return {"algorithm": self.algorithm, "digest": self.digest, "size": self.size}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Checksum":
        return cls(algorithm=obj["algorithm"], digest=str(obj["digest"]), size=int(obj["size"]))


def git_blob_sha1(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def file_checksum(path: Path, algorithm: Literal["git-sha1", "sha256"]) -> Checksum:
    size = path.stat().st_size
    h = Checksum(algorithm, "", size).hasher()
    with path.open("rb") as fh:
        while chunk := fh.read(CHUNK_BYTES):
            h.update(chunk)
    return Checksum(algorithm, h.hexdigest(), size)


def file_matches(path: Path, expected: Checksum) -> bool:
    """True when the file exists and has exactly the expected size and digest."""
    try:
        if path.stat().st_size != expected.size:
            return False
        return file_checksum(path, expected.algorithm) == expected
    except OSError:
        return False


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


def _describe(reason: object) -> str:
    if isinstance(reason, BaseException):
        text = str(reason) or type(reason).__name__
        return f"{type(reason).__name__}: {text}" if type(reason).__name__ not in text else text
    return str(reason)


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


# --- Hugging Face Hub errors ------------------------------------------------------------

def _never_connected(exc: BaseException) -> bool:
    """True when no connection to the Hub was made at all (offline, DNS, refused)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, (httpx2.ConnectError, httpx2.ConnectTimeout, OfflineModeIsEnabled)):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class _hub_errors:  # noqa: N801 - used as a context manager
    """Turn huggingface_hub's exceptions into PullErrors that say what to do.

    Several of them subclass OSError, which :meth:`DataPuller.pull` would otherwise
    report as a local disk problem.
    """

    def __init__(self, endpoint: str, what: str) -> None:
        self.endpoint = endpoint
        self.what = what

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: Any) -> bool:
        if exc is None or isinstance(exc, PullError) or not isinstance(
                exc, (HfHubHTTPError, EntryNotFoundError, httpx2.HTTPError,
                      OfflineModeIsEnabled, LocalEntryNotFoundError)):
            return False
        if isinstance(exc, OfflineModeIsEnabled) or hf_constants.HF_HUB_OFFLINE:
            raise SourceUnreachableError("huggingface", self.endpoint,
                                         "HF_HUB_OFFLINE is set") from None
        if _never_connected(exc):
            cause = exc
            while cause.__cause__ is not None or cause.__context__ is not None:
                cause = cause.__cause__ or cause.__context__  # type: ignore[assignment]
            raise SourceUnreachableError("huggingface", self.endpoint,
                                         _describe(cause)) from None
        status = None
        if isinstance(exc, HfHubHTTPError) and exc.response is not None:
            status = exc.response.status_code
        if status == 404 or isinstance(exc, EntryNotFoundError):
            raise UpstreamError(f"{self.what}: not found on the Hub (HTTP 404); is the "
                                f"repository public and the pinned revision still there?"
                                ) from None
        if status in (401, 403):
            raise UpstreamError(f"{self.what}: access denied (HTTP {status}); set "
                                f"${ENV_HF_TOKEN} to a token with read access and try "
                                f"again") from None
        if status is not None:
            raise UpstreamError(f"{self.what}: HTTP {status} (still failing after retries)"
                                ) from None
        raise PullError(f"{self.what}: the transfer failed ({_describe(exc)})") from None


# --- what to fetch -----------------------------------------------------------------------

@dataclass(frozen=True)
class RemoteFile:
    """One upstream file, where it goes locally, and what it must hash to."""

    upstream_path: str
    local_path: str            # relative to the source's local_dir, POSIX separators
    url: str
    checksum: Checksum
    # Identity of the upstream content (blob id or LFS oid): a local file pulled from the
    # same id needs no new download even when its own checksum differs (GitHub LFS).
    upstream_id: str


@dataclass(frozen=True)
class PackedCorpus:
    """FollowTable's corpus.jsonl, built from one upstream file per table."""

    local_path: str
    tables_folder: str         # upstream folder, e.g. data/WTR/tables
    tables: tuple[tuple[str, RemoteFile], ...]   # (table id, file), ids in string order
    upstream_id: str           # git tree id of the tables folder: same id, same corpus


@dataclass
class PullPlan:
    source: DataSource
    commit: str
    files: list[RemoteFile]
    packed: list[PackedCorpus] = field(default_factory=list)


@dataclass
class SourceResult:
    source: DataSource
    local_root: Path
    downloaded: int = 0
    skipped: int = 0
    bytes_downloaded: int = 0
    # True when the manifest matched and every local file verified: no request was made.
    offline_check: bool = False

    def summary(self) -> str:
        if self.offline_check:
            return (f"{self.source.local_dir}: up to date ({self.skipped} files verified "
                    f"against {MANIFEST_NAME}, {self.source.repo}@{self.source.revision})")
        return (f"{self.source.local_dir}: {self.downloaded} downloaded "
                f"({_human_bytes(self.bytes_downloaded)}), {self.skipped} already present "
                f"and verified ({self.source.repo}@{self.source.revision})")


def _human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} B"


# --- choosing sources ---------------------------------------------------------------------

@dataclass(frozen=True)
class SourceTasks:
    """A data source and the registry tasks that read it."""

    source: DataSource
    benchmark: str
    tasks: tuple[Task, ...]


def sources_by_local_dir() -> dict[str, SourceTasks]:
    grouped: dict[str, list[Task]] = {}
    for task in all_tasks().values():
        grouped.setdefault(task.source.local_dir, []).append(task)
    return {d: SourceTasks(ts[0].source, ts[0].benchmark, tuple(ts)) for d, ts in grouped.items()}


def select_sources(names: Sequence[str]) -> list[SourceTasks]:
    """Sources for benchmark names (``all``, aliases) or task ids / id prefixes, in order."""
    every = sources_by_local_dir()
    chosen: dict[str, SourceTasks] = {}
    for raw in names:
        name = BENCHMARK_ALIASES.get(raw, raw).rstrip("/")
        if name == "all":
            matched = list(every.values())
        elif name in BENCHMARKS:
            matched = [s for s in every.values() if s.benchmark == name]
        else:
            matched = [s for s in every.values()
                       if any(t.id == name or t.id.startswith(name + "/") for t in s.tasks)]
        if not matched:
            choices = ", ".join(("all", *BENCHMARKS, *BENCHMARK_ALIASES))
            raise ValueError(f"unknown benchmark or task {raw!r}; choose from {choices}, "
                             "or give a task id (see `leaderboard tasks`)")
        for s in matched:
            chosen.setdefault(s.source.local_dir, s)
    return list(chosen.values())


# --- manifest ----------------------------------------------------------------------------

def read_manifest(local_root: Path) -> dict[str, Any] | None:
    path = local_root / MANIFEST_NAME
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return None  # unreadable manifest: treat as absent, files are re-verified upstream
    if not isinstance(obj, dict) or obj.get("format") != MANIFEST_FORMAT:
        return None
    return obj


def write_manifest(local_root: Path, source: DataSource, commit: str,
                   entries: Mapping[str, Mapping[str, Any]]) -> None:
    manifest = {
        "format": MANIFEST_FORMAT,
        "host": source.host,
        "repo": source.repo,
        "revision": source.revision,
        "commit": commit,
        "files": {k: dict(entries[k]) for k in sorted(entries)},
    }
    atomic_write_text(local_root / MANIFEST_NAME,
                      json.dumps(manifest, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def manifest_problems(local_root: Path, manifest: Mapping[str, Any]) -> list[str]:
    """Local files that are missing or differ from the manifest (empty list: all verified)."""
    problems = []
    for rel, entry in manifest.get("files", {}).items():
        path = local_root / rel
        try:
            expected = Checksum.from_json(entry)
        except (KeyError, TypeError, ValueError):
            problems.append(f"{path}: manifest entry unreadable")
            continue
        if not path.is_file():
            problems.append(f"{path}: missing")
        elif not file_matches(path, expected):
            problems.append(f"{path}: differs from the pulled file ({expected.algorithm} check)")
    return problems


def manifest_matches_source(manifest: Mapping[str, Any] | None, source: DataSource) -> bool:
    return bool(manifest and manifest.get("repo") == source.repo
                and manifest.get("revision") == source.revision and manifest.get("files"))


# --- the puller --------------------------------------------------------------------------

ProgressFactory = Callable[[int, str], Any]


def _tqdm_progress(total: int, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="file", file=sys.stderr, leave=False,
                dynamic_ncols=True, mininterval=0.5)


class _NoProgress:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


class DataPuller:
    """Pull registry data sources into a local data directory."""

    def __init__(self, data_dir: Path, *, endpoints: Endpoints | None = None,
                 http: HttpClient | None = None, jobs: int = 8, force: bool = False,
                 progress: bool = True, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.data_dir = Path(data_dir)
        self.endpoints = endpoints or Endpoints.from_env(env)
        self.http = http or HttpClient()
        self.jobs = max(1, jobs)
        self.force = force
        self._progress: ProgressFactory = (_tqdm_progress if progress
                                           else (lambda _n, _d: _NoProgress()))
        self._github_token = env.get(ENV_GITHUB_TOKEN) or None
        self._hf_token = env.get(ENV_HF_TOKEN) or env.get("HUGGING_FACE_HUB_TOKEN") or None
        self._stop = threading.Event()

    # -- public --

    def pull(self, item: SourceTasks) -> SourceResult:
        """Pull one source; raise a :class:`PullError` (nothing half-written) on failure."""
        source = item.source
        local_root = self.data_dir / source.local_dir
        try:
            local_root.mkdir(parents=True, exist_ok=True)
            _sweep_partial_files(local_root)
            shutil.rmtree(local_root / HF_STAGING, ignore_errors=True)
            manifest = read_manifest(local_root)
            if not self.force and manifest_matches_source(manifest, source):
                assert manifest is not None
                if (not manifest_problems(local_root, manifest)
                        and not source_missing_files(item, self.data_dir)):
                    return SourceResult(source, local_root, skipped=len(manifest["files"]),
                                        offline_check=True)
            try:
                plan = (self._plan_github(item) if source.host == "github"
                        else self._plan_huggingface(item))
                result = self._execute(plan, local_root, manifest)
            finally:
                # Hub downloads are staged here; whatever is left was not kept.
                shutil.rmtree(local_root / HF_STAGING, ignore_errors=True)
        except OSError as exc:
            # Network errors are PullErrors by now; an OSError here is the local disk
            # (read-only data mirror, full disk, permissions).
            where = exc.filename or local_root
            raise PullError(f"cannot write under {local_root} ({where}: "
                            f"{exc.strerror or exc})") from None
        still_missing = source_missing_files(item, self.data_dir)
        if still_missing:
            listing = "\n".join(f"  - {p}" for p in still_missing[:10])
            raise UpstreamError(
                f"{source.repo}@{source.revision} was pulled into {local_root}, but the "
                f"readers still miss:\n{listing}\nThe upstream layout differs from what "
                f"the readers expect.")
        return result

    # -- GitHub --

    def _github_json(self, path: str) -> tuple[Any, Mapping[str, str]]:
        base = self.endpoints.github_api
        return self.http.get_json(f"{base}/{path}", "github", base, self._github_token)

    def _github_commit(self, source: DataSource) -> tuple[str, str]:
        obj, _ = self._github_json(f"repos/{source.repo}/commits/{_q(source.revision)}")
        try:
            commit, tree = str(obj["sha"]), str(obj["commit"]["tree"]["sha"])
        except (KeyError, TypeError):
            raise UpstreamError(f"GitHub answered an unexpected commit object for "
                                f"{source.repo}@{source.revision}") from None
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
                raise UpstreamError(f"{source.repo}@{source.revision} has no folder "
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

    def _plan_github(self, item: SourceTasks) -> PullPlan:
        source = item.source
        commit, root_tree = self._github_commit(source)
        if item.benchmark == "followtable":
            folder = "data/" + item.tasks[0].params["folder"]
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
            raise UpstreamError(f"{source.repo}@{source.revision} lacks "
                                + ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else ""))
        return PullPlan(source, commit, files)

    def _plan_followtable(self, source: DataSource, commit: str, folder: str,
                          listing: dict[str, dict]) -> PullPlan:
        files: list[RemoteFile] = []
        packed: list[PackedCorpus] = []
        missing: list[str] = []
        for name in (*FOLLOWTABLE_FILES, *FOLLOWTABLE_OPTIONAL):
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
            raise UpstreamError(f"{source.repo}@{source.revision} lacks " + ", ".join(missing))
        return PullPlan(source, commit, files, packed)

    # -- Hugging Face --

    def _hub(self) -> HfApi:
        return HfApi(endpoint=self.endpoints.hf_endpoint, token=self._hf_token or False,
                     library_name="followboard-leaderboard", library_version=__version__)

    def _plan_huggingface(self, item: SourceTasks) -> PullPlan:
        source = item.source
        api = self._hub()
        with _hub_errors(self.endpoints.hf_endpoint, f"{source.repo}@{source.revision}"):
            commit = self._hub_retrying(lambda: api.dataset_info(
                source.repo, revision=source.revision, timeout=self.http.timeout).sha)
            if not isinstance(commit, str):
                raise UpstreamError(f"the Hub answered no commit for "
                                    f"{source.repo}@{source.revision}")
            _check_resolved(source, commit)
            entries = self._hub_retrying(lambda: list(api.list_repo_tree(
                source.repo, revision=commit, recursive=True, repo_type="dataset")))
        listing = {e.path: e for e in entries if isinstance(e, RepoFile)}

        def remote(path: str, local_path: str) -> RemoteFile:
            entry = listing[path]
            if entry.lfs is not None:
                checksum = Checksum("sha256", entry.lfs.sha256, int(entry.lfs.size))
            else:
                checksum = Checksum("git-sha1", entry.blob_id, int(entry.size))
            return RemoteFile(path, local_path, f"{source.repo}@{commit}:{path}", checksum,
                              upstream_id=checksum.digest)

        card_text = None
        if HF_CARD in listing:
            card = remote(HF_CARD, HF_CARD)
            staged = self._hub_fetch(source, commit, card)
            card_text = staged.read_text("utf-8", "replace")
        configs = hf_configs(card_text, list(listing))
        files: list[RemoteFile] = []
        seen_local: dict[str, str] = {}
        for config, paths in configs.items():
            for path in paths:
                local = f"{config}/{PurePosixPath(path).name}"
                if local in seen_local:
                    raise UpstreamError(f"{source.repo}@{source.revision}: config {config!r} has "
                                        f"two files named {PurePosixPath(path).name} "
                                        f"({seen_local[local]}, {path})")
                seen_local[local] = path
                files.append(remote(path, local))
        missing = [c for c in _expected_hf_configs(item) if not any(
            alias in configs for alias in c)]
        if missing:
            raise UpstreamError(
                f"{source.repo}@{source.revision} has no config "
                + ", ".join(" or ".join(c) for c in missing)
                + f" (it has {', '.join(sorted(configs)) or 'none'})")
        if HF_CARD in listing:
            files.append(remote(HF_CARD, HF_CARD))
        return PullPlan(source, commit, files)

    def _hub_retrying(self, call: Callable[[], Any]) -> Any:
        """``call`` again after a dropped connection or HTTP 408/425/429/5xx, with backoff."""
        for n in range(self.http.retries + 1):
            if n:
                self.http.sleep(min(self.http.backoff * 2 ** (n - 1), MAX_BACKOFF_S))
            try:
                return call()
            except HfHubHTTPError as exc:
                status = exc.response.status_code if exc.response is not None else None
                if status not in RETRYABLE_STATUS or n == self.http.retries:
                    raise
            except (httpx2.TransportError, LocalEntryNotFoundError) as exc:
                # Nothing reached at all on the first try: unreachable, not worth retrying.
                if n == self.http.retries or _never_connected(exc):
                    raise
        raise AssertionError("unreachable")

    def _hub_fetch(self, source: DataSource, commit: str, remote: RemoteFile) -> Path:
        """Download one Hub file into the staging folder and verify it; return its path."""
        staging = self.data_dir / source.local_dir / HF_STAGING
        with _hub_errors(self.endpoints.hf_endpoint, remote.url):
            path = Path(self._hub_retrying(lambda: hf_hub_download(
                source.repo, remote.upstream_path, repo_type="dataset", revision=commit,
                local_dir=staging, endpoint=self.endpoints.hf_endpoint,
                token=self._hf_token or False, etag_timeout=self.http.timeout,
                force_download=True, library_name="followboard-leaderboard",
                library_version=__version__)))
        got = file_checksum(path, remote.checksum.algorithm)
        try:
            self._verify(remote, got.size, got.digest)
        except ChecksumError:
            path.unlink(missing_ok=True)
            raise
        return path

    # -- transfers --

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
                    out.write(chunk)
                    hasher.update(chunk)
                    size += len(chunk)
            # http.client ends a body cut short silently; a connection that closed before
            # the promised length is a dropped transfer (retried), not a bad file.
            if promised is not None and size < promised:
                raise http.client.IncompleteRead(b"", promised - size)
            return size, hasher.hexdigest()

        return self.http.retrying(remote.url, "github", self.endpoints.github_raw, attempt,
                                  self._github_token)

    def _verify(self, remote: RemoteFile, size: int, digest: str) -> None:
        problem = remote.checksum.problem(size, digest)
        if problem:
            raise ChecksumError(
                f"{remote.upstream_path} from {remote.url}: checksum mismatch ({problem}); "
                f"the file was not kept. Upstream may have been rewritten or a proxy altered "
                f"it; try again, or copy the file in by hand from a trusted mirror.")

    def _fetch_bytes(self, remote: RemoteFile) -> bytes:
        buf = io.BytesIO()
        size, digest = self._stream(remote, buf)
        self._verify(remote, size, digest)
        content = buf.getvalue()
        if _is_lfs_pointer(content):
            return self._fetch_bytes(self._lfs_object(remote, content))
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

    def _download(self, plan: PullPlan, remote: RemoteFile, target: Path) -> tuple[Checksum, int]:
        """Download, verify, then rename into place; return the local checksum and bytes."""
        if plan.source.host == "huggingface":
            staged = self._hub_fetch(plan.source, plan.commit, remote)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged, target)  # same folder tree: an atomic rename
            return remote.checksum, remote.checksum.size
        with atomic_file(target, prefix=PART_PREFIX, suffix=PART_SUFFIX) as fh:
            size, digest = self._stream(remote, fh)
            self._verify(remote, size, digest)
            checksum = remote.checksum
            if size <= LFS_POINTER_MAX_BYTES:
                fh.seek(0)
                head = fh.read()
                if _is_lfs_pointer(head):
                    real = self._lfs_object(remote, head)
                    size, digest = self._stream(real, fh)
                    self._verify(real, size, digest)
                    checksum = real.checksum
        return checksum, size

    def _pack(self, packed: PackedCorpus, target: Path) -> tuple[Checksum, int]:
        """Fetch and verify every table, then write corpus.jsonl in one atomic step."""
        texts: dict[str, str] = {}

        def fetch(item: tuple[str, RemoteFile]) -> None:
            table_id, remote = item
            content = self._fetch_bytes(remote)
            try:
                texts[table_id] = content.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                raise UpstreamError(f"{remote.upstream_path}: not UTF-8 text "
                                    f"({exc.reason} at byte {exc.start})") from None

        bar = self._progress(len(packed.tables), f"{target.parent.name}/{packed.local_path} "
                                                 f"({len(packed.tables)} tables)")
        try:
            self._parallel(fetch, packed.tables, bar)
        finally:
            bar.close()
        checksum = write_packed_corpus(target, texts)
        return checksum, sum(r.checksum.size for _, r in packed.tables)

    def _parallel(self, fn: Callable[[Any], Any], items: Sequence[Any], bar: Any) -> None:
        """Run fn over items on a thread pool; on the first failure stop the rest and raise."""
        self._stop.clear()
        pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="pull")
        futures: list[Future] = []
        try:
            futures = [pool.submit(fn, it) for it in items]
            pending = set(futures)
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_EXCEPTION)
                for f in done:
                    exc = f.exception()
                    if exc is not None:
                        raise exc
                    bar.update(1)
        except BaseException:
            # Stop in-flight downloads at their next chunk; each removes its own temp file.
            self._stop.set()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            self._stop.clear()

    def _execute(self, plan: PullPlan, local_root: Path,
                 manifest: Mapping[str, Any] | None) -> SourceResult:
        source = plan.source
        result = SourceResult(source, local_root)
        # Entries of an earlier pull of this repository (any revision): a file is reused
        # only when its upstream id is unchanged, so an older revision is harmless here.
        previous: Mapping[str, Any] = (manifest.get("files") or {}) if (
            manifest and manifest.get("repo") == source.repo) else {}
        entries: dict[str, dict[str, Any]] = {}
        to_fetch: list[RemoteFile] = []
        for remote in plan.files:
            target = local_root / remote.local_path
            kept = None if self.force else _already_verified(target, remote.checksum,
                                                               remote.upstream_id,
                                                               previous.get(remote.local_path))
            if kept is not None:
                entries[remote.local_path] = _entry(remote.upstream_path, remote.upstream_id, kept)
                result.skipped += 1
            else:
                to_fetch.append(remote)
        to_pack: list[PackedCorpus] = []
        for packed in plan.packed:
            target = local_root / packed.local_path
            kept = None if self.force else _already_verified(target, None, packed.upstream_id,
                                                               previous.get(packed.local_path))
            if kept is not None:
                entries[packed.local_path] = _entry(packed.tables_folder, packed.upstream_id, kept)
                result.skipped += 1
            else:
                to_pack.append(packed)

        lock = threading.Lock()

        def fetch(remote: RemoteFile) -> None:
            checksum, size = self._download(plan, remote, local_root / remote.local_path)
            with lock:
                entries[remote.local_path] = _entry(remote.upstream_path, remote.upstream_id,
                                                    checksum)
                result.downloaded += 1
                result.bytes_downloaded += size

        if to_fetch:
            bar = self._progress(len(to_fetch), source.local_dir)
            try:
                self._parallel(fetch, to_fetch, bar)
            finally:
                bar.close()
        for packed in to_pack:
            checksum, size = self._pack(packed, local_root / packed.local_path)
            entries[packed.local_path] = _entry(packed.tables_folder, packed.upstream_id, checksum)
            result.downloaded += 1
            result.bytes_downloaded += size
        # Last: the manifest only ever describes files that are all in place and verified.
        write_manifest(local_root, source, plan.commit, entries)
        return result


def _entry(upstream: str, upstream_id: str, checksum: Checksum) -> dict[str, Any]:
    return {"upstream": upstream, "upstream_id": upstream_id, **checksum.to_json()}


def _already_verified(target: Path, expected: Checksum | None, upstream_id: str,
                      previous: Mapping[str, Any] | None) -> Checksum | None:
    """The local file's checksum when it can be kept, else None.

    A file is kept when it hashes to what upstream lists, or when the manifest says it was
    pulled from the same upstream content and it still hashes to what was recorded then
    (packed corpora, LFS objects behind GitHub pointers).
    """
    if not target.is_file():
        return None
    if expected is not None and file_matches(target, expected):
        return expected
    if previous and previous.get("upstream_id") == upstream_id:
        try:
            recorded = Checksum.from_json(previous)
        except (KeyError, TypeError, ValueError):
            return None
        if file_matches(target, recorded):
            return recorded
    return None


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


def _sweep_partial_files(local_root: Path) -> None:
    """Remove temp files a killed pull left behind (a clean failure removes its own)."""
    for path in local_root.rglob(f"{PART_PREFIX}*{PART_SUFFIX}"):
        try:
            path.unlink()
        except OSError:
            pass


def _is_lfs_pointer(content: bytes) -> bool:
    return len(content) <= LFS_POINTER_MAX_BYTES and content.startswith(LFS_POINTER_HEADER)


def _q(path: str) -> str:
    return urllib.parse.quote(path, safe="/")


def _check_resolved(source: DataSource, commit: str) -> None:
    rev = source.revision.lower()
    if re.fullmatch(r"[0-9a-f]{7,40}", rev) and not commit.lower().startswith(rev):
        raise UpstreamError(f"{source.repo}: revision {source.revision} resolved to commit "
                            f"{commit}, which does not start with it")


def hf_configs(card: str | None, paths: Iterable[str]) -> dict[str, list[str]]:
    """Config name -> the data files (parquet or JSON lines) that make it up.

    Read from the dataset card's ``configs`` section (``data_files`` patterns); without one,
    every top-level folder holding data files is a config, as the Hub's own loader assumes.
    """
    paths = sorted(paths)
    declared = _card_configs(card) if card else {}
    out: dict[str, list[str]] = {}
    if declared:
        for name, patterns in declared.items():
            matched = [p for p in paths if any(fnmatch.fnmatchcase(p, pat) for pat in patterns)]
            data = [p for p in matched if p.endswith(HF_DATA_SUFFIXES)]
            if matched and not data:
                formats = ", ".join(sorted({PurePosixPath(p).suffix for p in matched}))
                raise UpstreamError(f"config {name!r} is stored as {formats} files; the reader "
                                    f"reads only {' and '.join(HF_DATA_SUFFIXES)}")
            if data:
                out[name] = data
        return out
    for p in paths:
        parts = PurePosixPath(p).parts
        if len(parts) == 2 and p.endswith(HF_DATA_SUFFIXES):
            out.setdefault(parts[0], []).append(p)
    return out


def _card_configs(card: str) -> dict[str, list[str]]:
    m = re.match(r"\A---\s*\n(.*?)\n---\s*(\n|\Z)", card, re.S)
    if not m:
        return {}
    try:
        meta = yaml.safe_load(m.group(1)) or {}
    except yaml.YAMLError as exc:
        raise UpstreamError(f"the dataset card's metadata is not valid YAML: {exc}") from None
    out: dict[str, list[str]] = {}
    for config in meta.get("configs") or []:
        if not isinstance(config, dict) or "config_name" not in config:
            continue
        patterns: list[str] = []
        files = config.get("data_files")
        for item in files if isinstance(files, list) else [files]:
            if isinstance(item, str):
                patterns.append(item)
            elif isinstance(item, dict):
                value = item.get("path")
                patterns.extend(value if isinstance(value, list) else [value] if value else [])
        out[str(config["config_name"])] = [str(p) for p in patterns]
    return out


def _expected_hf_configs(item: SourceTasks) -> list[tuple[str, ...]]:
    """Configs the reader needs for each task of a source (each as its accepted names)."""
    from leaderboard.data.mteb_layout import CONFIGS, config_names

    needed: list[tuple[str, ...]] = []
    for task in item.tasks:
        # mFollowIR suffixes every config with the language code (``corpus-fas``).
        for config in CONFIGS:
            names = config_names(task, config)
            if names not in needed:
                needed.append(names)
    return needed


# --- presence (shared with `leaderboard data status`) ---------------------------------------

def missing_files(task: Task, data_dir: Path) -> list[Path]:
    """Files the task's reader needs that are not in ``data_dir`` (empty: all present)."""
    data_dir = Path(data_dir)
    if task.benchmark == "followtable":
        root = data_dir / task.source.local_dir
        return [root / f for f in FOLLOWTABLE_FILES if not (root / f).is_file()]
    if task.benchmark in ("followir", "mfollowir", "mfollowir-cl"):
        from leaderboard.data import mteb_layout

        try:
            mteb_layout.check_present(task, data_dir)
        except MissingDataError as exc:
            return list(exc.missing)
        return []
    from leaderboard.data import pi_indic

    langs = dict.fromkeys((task.params["query_lang"], task.params["doc_lang"]))
    paths = [pi_indic.language_file(data_dir, task, lang) for lang in langs]
    return [p for p in paths if not p.is_file()]


def source_missing_files(item: SourceTasks, data_dir: Path) -> list[Path]:
    """Files any task of the source needs that are not in ``data_dir``."""
    missing: dict[Path, None] = {}
    for task in item.tasks:
        missing.update(dict.fromkeys(missing_files(task, data_dir)))
    return list(missing)


# --- pulling several sources ------------------------------------------------------------------

@dataclass
class PullOutcome:
    results: list[SourceResult] = field(default_factory=list)
    # One message per failure; an unreachable host is one message for all its sources.
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def pull_sources(items: Sequence[SourceTasks], data_dir: Path, *, puller: DataPuller | None = None,
                 log: Callable[[str], None] = lambda m: print(m, file=sys.stderr)) -> PullOutcome:
    """Pull each source in turn; keep going after a failure, but stop asking a host that
    could not be reached at all (its other sources join the same message)."""
    data_dir = Path(data_dir)
    puller = puller or DataPuller(data_dir)
    outcome = PullOutcome()
    unreachable: dict[Host, tuple[SourceUnreachableError, list[DataSource]]] = {}
    for item in items:
        host: Host = item.source.host
        if host in unreachable:
            unreachable[host][1].append(item.source)
            continue
        log(f"pulling {item.source.repo}@{item.source.revision} -> "
            f"{data_dir / item.source.local_dir}")
        try:
            result = puller.pull(item)
        except SourceUnreachableError as exc:
            unreachable[host] = (exc, [item.source])
            continue
        except PullError as exc:
            outcome.errors.append(f"{item.source.local_dir}: {exc}")
            continue
        outcome.results.append(result)
    for host, (exc, sources) in unreachable.items():
        outcome.errors.append(unreachable_message(exc, sources, data_dir))
    return outcome


def unreachable_message(exc: SourceUnreachableError, sources: Sequence[DataSource],
                        data_dir: Path) -> str:
    lines = [f"{exc}; nothing was downloaded.",
             "Without network access, copy the files in by hand (e.g. from a mirror of the "
             "same revision) to:"]
    for s in sources:
        lines.append(f"  {data_dir / s.local_dir}   <- {s.repo} at {s.revision}")
    lines.append("then check them with `leaderboard data status"
                 f" --data-dir {data_dir}`.")
    return "\n".join(lines)
