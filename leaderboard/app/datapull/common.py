"""What every `leaderboard data pull` source shares: errors, file kinds, plans.

:mod:`leaderboard.app.datapull.pull` runs a pull; :mod:`leaderboard.app.datapull.github` and
:mod:`leaderboard.app.datapull.hub` plan and fetch the files of their kind of upstream. The
endpoints and tokens they use are :mod:`leaderboard.core.config`'s, the checksums
:mod:`leaderboard.core.checksums`'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from leaderboard.benchmarks import BENCHMARKS as _DECLARED
from leaderboard.core.checksums import Checksum
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.tasks import DataSource, Task

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


RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
MAX_BACKOFF_S = 30.0
# Where Hub downloads are staged (inside the source folder, so a rename lands them).
HF_STAGING = ".pull-staging"
LFS_POINTER_MAX_BYTES = 1024
LFS_POINTER_HEADER = b"version https://git-lfs.github.com/spec/v1"

Host = Literal["github", "huggingface"]

# --- errors ----------------------------------------------------------------------------

class PullError(FollowBoardError):
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


def local_path_problem(path: str) -> str | None:
    """Why ``path`` (a file's place under a source's folder, from an upstream listing or a
    dataset card) could land outside that folder; None when it cannot."""
    parts = path.split("/")
    if not path or path.startswith("/") or "\\" in path or any(
            part in ("", ".", "..") for part in parts) or re.search(r"[\x00-\x1f]", path):
        return (f"{path!r} is not a plain relative path (no leading /, no '..', '.' or "
                "empty parts, no backslashes or control characters)")
    return None


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

@dataclass(frozen=True)
class SourceTasks:
    """A data source and the registry tasks that read it."""

    source: DataSource
    benchmark: str
    tasks: tuple[Task, ...]
