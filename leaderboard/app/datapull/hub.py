"""Hugging Face Hub upstreams of `leaderboard data pull` (FollowIR, mFollowIR).

Through ``huggingface_hub``: the revision is resolved with ``HfApi.dataset_info``, files
are listed with ``HfApi.list_repo_tree`` (LFS files carry their SHA-256, the others their
git blob id) and fetched with ``hf_hub_download`` at the resolved commit into a staging
folder, verified, then renamed into place. The dataset card's ``configs`` section says
which files make up each split of each config (:mod:`leaderboard.core.data.hf_card`); of
each config the reader needs, the files of the split mteb reads are pulled (another split,
a "dev" beside "test", is not), each to its path in the repository, beside the card, where
:mod:`leaderboard.core.data.mteb_layout` reads them by the same card.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterable

import httpx2
from tqdm.auto import tqdm
from huggingface_hub import HfApi, hf_hub_download
from huggingface_hub import constants as hf_constants
from huggingface_hub.errors import (
    EntryNotFoundError,
    HfHubHTTPError,
    LocalEntryNotFoundError,
    OfflineModeIsEnabled,
)
from huggingface_hub.hf_api import RepoFile

from leaderboard.core.data.base import DataFormatError
from leaderboard.core.data.hf_card import CARD_NAME, card_configs, matching
from leaderboard.core.data.layout_files import (
    MTEB_CONFIGS,
    MTEB_DATA_SUFFIXES,
    mteb_config_names,
    mteb_split,
    mteb_split_wanted,
)
from leaderboard.core.tasks import DataSource
from leaderboard import __version__
from leaderboard.app.datapull.common import (
    HF_STAGING,
    MAX_BACKOFF_S,
    RETRYABLE_STATUS,
    ChecksumError,
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
from leaderboard.app.datapull.github import HttpClient
from leaderboard.core.checksums import Checksum, file_checksum
from leaderboard.core.config import Endpoints, ENV_HF_TOKEN



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


class _SilentBar(tqdm):  # type: ignore[misc]
    """No per-file bars: the pull shows one bar per source, and parallel bars garble."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["disable"] = True
        super().__init__(*args, **kwargs)


class HubClient:
    """Plans and fetches the files of one Hugging Face dataset at its pinned commit."""

    def __init__(self, endpoints: Endpoints, http: HttpClient, token: str | None,
                 data_dir: Path) -> None:
        self.endpoints = endpoints
        self.http = http  # only its timeout, retries and backoff are used
        self._hf_token = token
        self.data_dir = data_dir


    def _hub(self) -> HfApi:
        return HfApi(endpoint=self.endpoints.hf_endpoint, token=self._hf_token or False,
                     library_name="followboard-leaderboard", library_version=__version__)

    def plan(self, item: SourceTasks) -> PullPlan:
        source = item.source
        api = self._hub()
        with _hub_errors(self.endpoints.hf_endpoint, source.pinned):
            commit = self._hub_retrying(lambda: api.dataset_info(
                source.repo, revision=source.revision, timeout=self.http.timeout).sha)
            if not isinstance(commit, str):
                raise UpstreamError(f"the Hub answered no commit for "
                                    f"{source.pinned}")
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
        if CARD_NAME in listing:
            card = remote(CARD_NAME, CARD_NAME)
            staged = self._hub_fetch(source, commit, card)
            card_text = staged.read_text("utf-8", "replace")
        configs = hf_configs(card_text, list(listing), source.pinned)
        paths, missing = _read_paths(item, configs)
        if missing:
            raise UpstreamError(
                f"{source.pinned} has no config "
                + ", ".join(" or ".join(c) for c in missing)
                + f" (it has {', '.join(sorted(configs)) or 'none'})")
        # Each file at its path in the repository, beside the card that names it: the
        # reader reads the folder by the same card, as datasets reads the repository.
        files = [remote(path, path) for path in paths]
        if CARD_NAME in listing:
            files.append(remote(CARD_NAME, CARD_NAME))
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
                force_download=True, tqdm_class=_SilentBar,
                library_name="followboard-leaderboard",
                library_version=__version__)))
        got = file_checksum(path, remote.checksum.algorithm)
        try:
            verify(remote, got.size, got.digest)
        except ChecksumError:
            path.unlink(missing_ok=True)
            raise
        return path

    def download(self, plan: PullPlan, remote: RemoteFile, target: Path) -> tuple[Checksum, int]:
        """Fetch, verify, then rename into place; return the local checksum and bytes."""
        staged = self._hub_fetch(plan.source, plan.commit, remote)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, target)  # same folder tree: an atomic rename
        return remote.checksum, remote.checksum.size


def hf_configs(card: str | None, paths: Iterable[str], where: str
               ) -> dict[str, dict[str, list[str]]]:
    """Config name -> split -> the data files (parquet or JSON lines) that make it up, as
    the dataset card's ``configs`` section declares them (``data_files`` patterns, by
    split). A repository (``where``) without a card declaring configs is refused:
    ``datasets``, and so mteb, reads it as one config "default" of every data file it
    holds, which is none of the configs the tasks read (and no mteb task loads)."""
    paths = sorted(paths)
    try:
        declared = card_configs(card, CARD_NAME) if card else {}
    except DataFormatError as exc:
        raise UpstreamError(str(exc)) from None
    if not declared:
        raise UpstreamError(
            f"{where}: "
            + (f"its dataset card ({CARD_NAME}) declares no configs (a 'configs' "
               "section giving their data_files)" if card is not None
               else f"it has no dataset card ({CARD_NAME})")
            + ": datasets, and so mteb, reads it as one config 'default' of all its files, "
            f"not as the configs {', '.join(MTEB_CONFIGS)} the tasks read")
    out: dict[str, dict[str, list[str]]] = {}
    for name, splits in declared.items():
        for split, patterns in splits.items():
            matched = matching(paths, patterns)
            data = [p for p in matched if p.endswith(MTEB_DATA_SUFFIXES)]
            if matched and not data:
                formats = ", ".join(sorted({PurePosixPath(p).suffix for p in matched}))
                raise UpstreamError(f"config {name!r} is stored as {formats} files; the "
                                    f"reader reads only "
                                    f"{' and '.join(MTEB_DATA_SUFFIXES)}")
            if data:
                out.setdefault(name, {})[split] = data
    return out


def _read_paths(item: SourceTasks, configs: dict[str, dict[str, list[str]]]
                ) -> tuple[list[str], list[tuple[str, ...]]]:
    """The files the reader reads for the source's tasks, those of the split mteb reads
    of each config it needs (:func:`leaderboard.core.data.layout_files.mteb_split`), and
    the needed configs the repository lacks (each as its accepted names)."""
    paths: dict[str, None] = {}
    missing: list[tuple[str, ...]] = []
    for task in item.tasks:
        # mFollowIR suffixes every config with the language code (``corpus-fas``).
        for config in MTEB_CONFIGS:
            names = mteb_config_names(task, config)
            name = next((n for n in names if n in configs), None)
            if name is None:
                if names not in missing:
                    missing.append(names)
                continue
            splits = configs[name]
            split = mteb_split(task, config, list(splits))
            if split is None:
                raise UpstreamError(f"{item.source.pinned}: config "
                                    f"{name!r} has the splits "
                                    f"{', '.join(map(repr, splits))}, and mteb reads "
                                    f"{mteb_split_wanted(task, config)}")
            paths.update(dict.fromkeys(splits[split]))
    return list(paths), missing
