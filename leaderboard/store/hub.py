"""Writing to a Hugging Face dataset repository, with ``huggingface_hub``.

Reading needs no client: a file at a commit is one GET of the Hub's ``/resolve/`` URL,
through the bounded reader of :mod:`leaderboard.store.http`. Writing goes through
``HfApi.create_commit`` (one commit for everything pushed at once, unchanged files
skipped by the Hub) and is checked afterwards with ``HfApi.get_paths_info`` at the new
commit: each file's size, and its LFS SHA-256 or git blob id, must be what was uploaded
before a manifest names that commit, and a file the commit removes must be gone. A push
that replaces what an earlier one wrote lists the repository first
(``HfApi.list_repo_tree`` at its head commit, which the new commit must follow). The token is huggingface_hub's own
(``$HF_TOKEN`` or a saved login); nothing here prints or stores it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2
from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi
from huggingface_hub import constants as hf_constants
from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled
from huggingface_hub.hf_api import RepoFile

from leaderboard import __version__
from leaderboard.core.checksums import file_checksum
from leaderboard.core.errors import FollowBoardError
from leaderboard.store.locations import HubStore


class HubWriteError(FollowBoardError):
    """A push to the Hub failed; the message says what and what to do."""


@dataclass(frozen=True)
class Upload:
    local: Path        # the verified file to upload
    repo_path: str     # where it goes in the repository


@dataclass(frozen=True)
class Listed:
    """A file the repository holds from an earlier push, kept by the new commit: its size,
    and the SHA-256 of its bytes (checked against an LFS listing) unless ``gzip`` (then
    it is the content's, and only the size of the listing is compared)."""

    repo_path: str
    size: int
    sha256: str
    gzip: bool = False


def _mismatch(entry: RepoFile | None, upload: Upload) -> str | None:
    """Why the Hub's listing of a file is not the uploaded file (None: it is)."""
    if entry is None:
        return "missing"
    size = upload.local.stat().st_size
    if entry.size != size:
        return f"{entry.size} bytes, not {size}"
    if entry.lfs is not None:
        same = entry.lfs.sha256 == file_checksum(upload.local, "sha256").digest
        return None if same else "another sha256"
    same = entry.blob_id == file_checksum(upload.local, "git-sha1").digest
    return None if same else "another git blob id"


def _carried_mismatch(entry: RepoFile | None, kept: Listed) -> str | None:
    if entry is None:
        return "missing"
    if not kept.gzip and entry.size != kept.size:
        return f"{entry.size} bytes, not {kept.size}"
    if not kept.gzip and entry.lfs is not None and entry.lfs.sha256 != kept.sha256:
        return "another sha256"
    return None


def _api(store: HubStore, token: str | None) -> HfApi:
    if hf_constants.HF_HUB_OFFLINE:
        raise HubWriteError(f"cannot push to {store.describe()}: HF_HUB_OFFLINE is set")
    return HfApi(endpoint=store.endpoint, token=token,
                 library_name="followboard-leaderboard", library_version=__version__)


@contextmanager
def _hub_errors(store: HubStore) -> Iterator[None]:
    """huggingface_hub's and the network's errors as one HubWriteError that says what to do."""
    try:
        yield
    except OfflineModeIsEnabled:
        raise HubWriteError(f"cannot push to {store.describe()}: HF_HUB_OFFLINE is set") \
            from None
    except HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else None
        hint = (" (a token with write access to the dataset: $HF_TOKEN)"
                if status in (401, 403) else
                " (does the dataset repository exist? create it once on the Hub)"
                if status == 404 else "")
        raise HubWriteError(f"pushing to {store.describe()} failed: HTTP {status}{hint}") \
            from None
    except httpx2.HTTPError as exc:
        raise HubWriteError(f"pushing to {store.describe()} failed: {exc}") from None


def repository_files(store: HubStore, *, token: str | None = None) -> tuple[str, list[str]]:
    """The head commit of ``store``'s repository and the path of every file it holds."""
    api = _api(store, token)
    with _hub_errors(store):
        head = api.dataset_info(store.repo, revision="main").sha
        assert head is not None  # the Hub names the commit of a revision it resolves
        paths = sorted(entry.path for entry in api.list_repo_tree(
            store.repo, revision=head, recursive=True, repo_type="dataset")
            if isinstance(entry, RepoFile))
    return head, paths


def push_files(store: HubStore, uploads: list[Upload], message: str, *,
               carried: Sequence[Listed] = (), delete: Sequence[str] = (),
               parent_commit: str | None = None, token: str | None = None) -> str:
    """Upload ``uploads`` to ``store`` and remove the files ``delete`` names, in one commit
    (on ``parent_commit`` when given: refused if the repository moved since), and return
    the commit, once it is checked to hold them, the ``carried`` files of earlier pushes,
    and none of the removed ones."""
    api = _api(store, token)
    with _hub_errors(store):
        info = api.create_commit(
            store.repo, repo_type="dataset", commit_message=message,
            parent_commit=parent_commit,
            operations=[CommitOperationAdd(path_in_repo=u.repo_path,
                                           path_or_fileobj=str(u.local)) for u in uploads]
            + [CommitOperationDelete(path_in_repo=path) for path in delete])
        commit = info.oid
        listed: dict[str, RepoFile] = {}
        paths = [u.repo_path for u in uploads] + [c.repo_path for c in carried] + list(delete)
        for start in range(0, len(paths), 500):
            for entry in api.get_paths_info(store.repo, paths[start:start + 500],
                                            revision=commit, repo_type="dataset"):
                if isinstance(entry, RepoFile):
                    listed[entry.path] = entry
    bad = [f"{u.repo_path} ({why})" for u in uploads
           if (why := _mismatch(listed.get(u.repo_path), u))]
    bad += [f"{c.repo_path} ({why})" for c in carried
            if (why := _carried_mismatch(listed.get(c.repo_path), c))]
    bad += [f"{path} (not removed)" for path in delete if path in listed]
    if bad:
        raise HubWriteError(f"after the push, commit {commit} of {store.describe()} does not "
                            f"hold what was uploaded: {', '.join(bad[:5])}"
                            + (f" and {len(bad) - 5} more" if len(bad) > 5 else ""))
    return commit
