"""A model on the Hugging Face Hub, fetched at one commit into the Hub's own cache.

``huggingface_hub`` does the work: ``HfApi.model_info`` resolves the revision (a branch or
tag becomes the commit it points at, which is what the metadata records) and lists the
files; ``snapshot_download`` fetches, at that commit, what a runner reads: the JSON and
text configuration files, the tokenizer, the model card, and one format of weights
(safetensors when the repository has them, else ``pytorch_model*.bin``), never ONNX or
other exports. Files already in the cache are not fetched again.

Without a network, or with ``HF_HUB_OFFLINE`` set, a model already in the cache is used
from there (a branch is resolved through the cache's own refs); otherwise the error says
the Hub cannot be reached and what to do instead. The endpoint is
``$LEADERBOARD_HF_ENDPOINT`` when set, as for `leaderboard data pull`, else
``huggingface_hub``'s (``HF_ENDPOINT``); ``HF_TOKEN`` is read by ``huggingface_hub``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import httpx2
from huggingface_hub import HfApi, snapshot_download
from huggingface_hub import constants as hf_constants
from huggingface_hub.errors import (
    HfHubHTTPError,
    LocalEntryNotFoundError,
    OfflineModeIsEnabled,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)

from leaderboard import __version__
from leaderboard.core.config import ENV_HF_ENDPOINT, ENV_HF_TOKEN
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import atomic_write_text

# "owner/name", as the Hub spells repository ids.
HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")
COMMIT = re.compile(r"[0-9a-f]{40}")
# What a runner reads besides the weights (sentence-transformers' module configs included).
CONFIG_PATTERNS = ("*.json", "*.txt", "*.model", "*.tiktoken", "README.md")
SAFETENSORS = ("*.safetensors",)
PYTORCH_BIN = ("pytorch_model*.bin",)
LIBRARY = "followboard-leaderboard"


class HubModelError(FollowBoardError, ValueError):
    """The model could not be had from the Hub; the message says why and what to do."""


@dataclass(frozen=True)
class HubSnapshot:
    repo_id: str
    revision: str        # as asked for (a branch, tag or commit)
    commit: str          # what it resolved to
    folder: Path         # the snapshot in the Hub cache

    @property
    def url(self) -> str:
        return f"https://huggingface.co/{self.repo_id}"


def hub_endpoint() -> str:
    return os.environ.get(ENV_HF_ENDPOINT) or hf_constants.ENDPOINT


def _unreachable(exc: BaseException) -> bool:
    """True when no answer came from the Hub at all (offline, refused, timed out)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, (httpx2.TransportError, OfflineModeIsEnabled)):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def fetch_model(repo_id: str, revision: str = "main", *, cache_dir: Path | None = None
                ) -> HubSnapshot:
    """The snapshot of ``repo_id`` at ``revision``, downloaded unless the cache has it."""
    endpoint = hub_endpoint()
    try:
        if hf_constants.HF_HUB_OFFLINE:
            raise OfflineModeIsEnabled("HF_HUB_OFFLINE is set")
        api = HfApi(endpoint=endpoint, library_name=LIBRARY, library_version=__version__)
        info = api.model_info(repo_id, revision=revision)
        commit = info.sha
        if not isinstance(commit, str) or not COMMIT.fullmatch(commit):
            raise HubModelError(f"the Hub at {endpoint} answered no commit for "
                                f"{repo_id}@{revision}")
        names = [s.rfilename for s in info.siblings or []]
        weights = SAFETENSORS if any(n.endswith(".safetensors") for n in names) else PYTORCH_BIN
        # Fetched by the commit, so a branch moving meanwhile cannot mix two versions.
        folder = snapshot_download(repo_id, revision=commit, cache_dir=cache_dir,
                                   allow_patterns=list(CONFIG_PATTERNS + weights),
                                   endpoint=endpoint, library_name=LIBRARY,
                                   library_version=__version__)
        remember_revision(Path(folder), revision, commit)
    except RevisionNotFoundError:
        raise HubModelError(f"revision {revision!r} of {repo_id} does not resolve on the Hub "
                            f"at {endpoint}: no branch, tag or commit of that name") from None
    except RepositoryNotFoundError:  # gated repositories too
        raise HubModelError(f"{repo_id}: no such model on the Hub at {endpoint}, or it is "
                            f"private or gated (set ${ENV_HF_TOKEN} to a token that may read "
                            "it)") from None
    except (HfHubHTTPError, httpx2.HTTPError, OfflineModeIsEnabled, LocalEntryNotFoundError
            ) as exc:
        if not _unreachable(exc):
            status = getattr(getattr(exc, "response", None), "status_code", None)
            raise HubModelError(f"{repo_id}@{revision}: the Hub at {endpoint} answered "
                                + (f"HTTP {status}" if status else str(exc).splitlines()[0])
                                ) from None
        folder = _cached_snapshot(repo_id, revision, cache_dir, endpoint, exc)
    folder_path = Path(folder)
    commit = folder_path.name
    if not COMMIT.fullmatch(commit):  # snapshots/<commit> in the Hub cache
        raise HubModelError(f"{repo_id}@{revision}: the Hub cache folder {folder_path} is not "
                            "named by a commit")
    return HubSnapshot(repo_id, revision, commit, folder_path)


def remember_revision(snapshot: Path, revision: str, commit: str) -> None:
    """Record in the cache that ``revision`` resolved to ``commit`` (the cache's
    ``refs/<revision>`` file, as huggingface_hub writes it when it resolves a branch), so
    that an offline run finds the same snapshot by the branch's name."""
    if revision == commit:
        return
    ref = snapshot.parent.parent / "refs" / revision
    try:
        if not ref.is_file() or ref.read_text(encoding="utf-8") != commit:
            ref.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(ref, commit)
    except OSError:
        pass  # a read-only cache only costs the offline lookup by branch name


def _cached_snapshot(repo_id: str, revision: str, cache_dir: Path | None, endpoint: str,
                     reason: BaseException) -> str:
    """The cache's copy of the model when the Hub cannot be reached; else the error."""
    for weights in (SAFETENSORS, PYTORCH_BIN):
        try:
            return snapshot_download(repo_id, revision=revision, cache_dir=cache_dir,
                                     local_files_only=True,
                                     allow_patterns=list(CONFIG_PATTERNS + weights))
        except LocalEntryNotFoundError:
            continue
    why = ("HF_HUB_OFFLINE is set" if isinstance(reason, OfflineModeIsEnabled)
           else f"no connection: {_first_cause(reason)}")
    cache = cache_dir or hf_constants.HF_HUB_CACHE
    raise HubModelError(f"cannot fetch {repo_id}@{revision}: the Hub at {endpoint} cannot be "
                        f"reached ({why}) and the Hugging Face cache ({cache}) holds no copy "
                        "of it; run where the Hub is reachable, or give the model's folder "
                        "instead of its Hub id") from None


def _first_cause(exc: BaseException) -> str:
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
