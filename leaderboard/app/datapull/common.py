"""What every `leaderboard data pull` source shares: errors, endpoints, checksums, plans.

:mod:`leaderboard.app.datapull.pull` runs a pull; :mod:`leaderboard.app.datapull.github` and
:mod:`leaderboard.app.datapull.hub` plan and fetch the files of their kind of upstream.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Mapping

from leaderboard.benchmarks import BENCHMARKS as _DECLARED
from leaderboard.core.tasks import DataSource

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

# Benchmarks that `leaderboard data pull` accepts, with the aliases users type: every
# declaration in leaderboard.benchmarks.
BENCHMARKS = tuple(b.id for b in _DECLARED)
BENCHMARK_ALIASES = {alias: b.id for b in _DECLARED for alias in b.pull_aliases}

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

def _describe(reason: object) -> str:
    if isinstance(reason, BaseException):
        text = str(reason) or type(reason).__name__
        return f"{type(reason).__name__}: {text}" if type(reason).__name__ not in text else text
    return str(reason)

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


def verify(remote: RemoteFile, size: int, digest: str) -> None:
    """Raise :class:`ChecksumError` unless (size, digest) is what upstream lists."""
    problem = remote.checksum.problem(size, digest)
    if problem:
        raise ChecksumError(
            f"{remote.upstream_path} from {remote.url}: checksum mismatch ({problem}); "
            f"the file was not kept. Upstream may have been rewritten or a proxy altered "
            f"it; try again, or copy the file in by hand from a trusted mirror.")


def _check_resolved(source: DataSource, commit: str) -> None:
    rev = source.revision.lower()
    if re.fullmatch(r"[0-9a-f]{7,40}", rev) and not commit.lower().startswith(rev):
        raise UpstreamError(f"{source.repo}: revision {source.revision} resolved to commit "
                            f"{commit}, which does not start with it")
