"""A submission's stored files, found wherever they are and verified before use.

:class:`SubmissionFiles` answers "give me this file of submission X, which must be N
bytes with SHA-256 H". It looks, in order,

1. beside the manifest, in the submission's folder (a pull request's own files, the
   repository's folder store);
2. in the configured store when it can be read without a revision (a folder holding
   ``submissions/<id>/``, an HTTPS location);
3. in the on-disk cache (:mod:`leaderboard.store.cache`), where a local scoring also
   keeps the files CI writes into the folder only after the merge
   (:mod:`leaderboard.submission.layout`);
4. at the manifest's ``source:``, a Hugging Face dataset at a commit (the submitter's
   own, or the store's copy written by ``leaderboard runs push``).

Whatever it finds is checked against the size and SHA-256 before it is handed out
(:mod:`leaderboard.store.files`); a remote file is streamed into the cache and renamed
into place only when it matches. Every problem is a
:class:`leaderboard.store.files.StoreError` naming the submission and the file, and where
it was looked for.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from huggingface_hub import constants as hf_constants

from leaderboard.core.report import Report, plural
from leaderboard.store.cache import cache_dir
from leaderboard.store.files import (StoredRef, StoreError, cached_copy, check_file, download)
from leaderboard.store.http import FetchError, HttpLimits
from leaderboard.store.locations import (FolderStore, HttpsStore, HubSource, HubStore,
                                         RunStore, configured_store, store_path)
from leaderboard.submission.manifest import load_manifest
from leaderboard.submission.layout import MANIFEST_NAME, Writer, entry_of, score_command
from leaderboard.submission.transaction import plain_file

# Files fetched at once: remote reads wait on the network, local ones on the disk.
FETCH_JOBS = 8


class Late(StoreError):
    """A file not fetched because the deadline of the files fetched with it had passed."""


@dataclass
class SubmissionFiles:
    """Where the stored files of submission ``sub_id`` are: its folder (if any), the
    manifest's source (if any) and the configured store."""

    sub_id: str
    folder: Path | None
    source: HubSource | None
    store: RunStore
    cache: Path = field(default_factory=cache_dir)
    limits: HttpLimits = field(default_factory=HttpLimits)

    def display(self, rel: str) -> str:
        return f"{self.sub_id}/{rel}"

    def local(self, rel: str) -> Path | None:
        """The file in the submission's folder, when it is there: a regular file reached
        without a link on the way (``explain/texts`` linked to another submission's
        folder holds none of this one's files)."""
        return None if self.folder is None else plain_file(self.folder, rel)

    def store_is_the_folder(self) -> bool:
        """Whether the configured store is a folder store whose place for this submission
        is its folder: where no store is set (the folder itself is the store's root) or
        the store is the repository holding it; such a store holds nothing the folder
        does not."""
        if self.folder is None or not isinstance(self.store, FolderStore):
            return False
        return self.folder.resolve() in (self.store.root.resolve(),
                                         (self.store.root / store_path(self.sub_id, "")).resolve())

    def _in_folder_store(self, rel: str) -> Path | None:
        if not isinstance(self.store, FolderStore):
            return None
        path = self.store.root / store_path(self.sub_id, rel)
        if self.folder is not None and path.resolve() == (self.folder / rel).resolve():
            return None  # the folder store is the repository: step 1 looked already
        return path if path.is_file() and not path.is_symlink() else None

    def local_edit_step(self) -> str:
        """What to do about a copy in the submission's folder that does not match its
        listing, said wherever one is refused (it is kept): it is the submitter's edit,
        which scoring records, or a stale copy, whose removal lets the listed file be
        fetched, where anything but the folder itself may hold it (a folder store that is
        the folder, or where no store is set, or a dataset store the files never went to,
        holds none)."""
        assert self.folder is not None  # the copy refused is the folder's
        step = f"run {score_command(self.folder)} to record the edit"
        elsewhere = (self.source is not None or isinstance(self.store, HttpsStore)
                     or (isinstance(self.store, FolderStore) and not self.store_is_the_folder()))
        return step + (", or remove the file to fetch the stored one" if elsewhere else "")

    def held_by_source(self, ref: StoredRef) -> bool:
        """Whether the manifest's source holds ``ref``'s very file (fetched into the cache
        and verified, or found there): a file the folder also has need not be sent
        again. False when there is no source or its copy cannot be had or differs."""
        if self.source is None or hf_constants.HF_HUB_OFFLINE:
            return False
        try:
            if cached_copy(self.cache, ref, self.display(ref.path)) is not None:
                return True
            self._download(self.source.download_url(ref.path), ref, self.display(ref.path))
        except (FetchError, StoreError):
            return False
        return True

    def held_by_store(self, ref: StoredRef) -> bool:
        """Whether the run store, apart from the submission's folder, holds ``ref``'s very
        file: a folder store that is not the folder (its copy verified), an HTTPS store or
        the manifest's source (fetched into the cache and verified; for the source, found
        there counts, as :meth:`held_by_source` has it). A copy the cache alone holds does
        not count: the store, not this machine, is what every reader reads."""
        path = self._in_folder_store(ref.path)
        if path is not None and check_file(path, ref)[0] is None:
            return True
        if isinstance(self.store, HttpsStore):
            url = self.store.url(store_path(self.sub_id, ref.path))
            try:
                self._download(url, ref, self.display(ref.path))
                return True
            except (FetchError, StoreError):
                pass
        return self.held_by_source(ref)

    def locate(self, ref: StoredRef, until: float | None = None) -> Path:
        """A verified local copy of ``ref`` (the folder's, the folder store's or the
        cache's); raises :class:`StoreError`. ``until``: no fetch starts after that
        ``time.monotonic()`` instant (:class:`Late`), and none goes on past it."""
        return self._obtain(ref, until)[0]

    def read(self, ref: StoredRef) -> bytes:
        """``ref``'s verified content (inflated, for a gzip ref)."""
        path, content = self._obtain(ref)
        return content if content is not None else path.read_bytes()

    def _obtain(self, ref: StoredRef, until: float | None = None
                ) -> tuple[Path, bytes | None]:
        display = self.display(ref.path)
        own = "the submission's folder"
        candidates = [(own, self.local(ref.path)),
                      (self.store.describe(), self._in_folder_store(ref.path))]
        # CI rewrites its files (the explorer's) only after a merge, so a submission
        # scored again holds the earlier scoring's copies in its folder, or in the folder
        # store it was pushed to, until then: such a copy is passed over, not a fault.
        written_by_ci = (entry := entry_of(ref.path)) is not None and entry.writer is Writer.CI
        earlier: list[str] = []
        for where, path in candidates:
            if path is None:
                continue
            problem, content = check_file(path, ref)
            if problem and written_by_ci:
                earlier.append(f"the copy in {where} ({path}) does not match: {problem}")
                continue
            if problem:
                step = f"; {self.local_edit_step()}" if where == own else ""
                raise StoreError(display, f"the copy in {where} ({path}) does not match: "
                                          f"{problem}{step}")
            return path, content
        hit = cached_copy(self.cache, ref, display)
        if hit is not None:
            return hit
        if earlier and not (self.source is not None or isinstance(self.store, HttpsStore)):
            raise StoreError(display, "; ".join(earlier) + "; an earlier scoring's copy "
                                      "(CI rewrites the explorer's files after the merge), "
                                      "while the run store's cache holds none of this "
                                      "scoring's: scoring again writes them")
        if until is not None and time.monotonic() > until:
            raise Late(display, "not fetched: the submission's deadline passed")
        tried: list[str] = []
        if isinstance(self.store, HttpsStore):
            url = self.store.url(store_path(self.sub_id, ref.path))
            try:
                return self._download(url, ref, display, until)
            except FetchError as exc:
                if not exc.not_found or self.source is None:
                    raise StoreError(display, str(exc)) from None
                tried.append(url)
        if self.source is not None:
            if hf_constants.HF_HUB_OFFLINE:
                raise StoreError(display, f"it is at {self.source.url()}, and HF_HUB_OFFLINE "
                                          "is set: unset it to fetch from the Hub")
            try:
                return self._download(self.source.download_url(ref.path), ref, display, until)
            except FetchError as exc:
                raise StoreError(display, str(exc)) from None
        if isinstance(self.store, HubStore):
            raise StoreError(display, "not in the submission's folder, and its manifest names "
                                      "no source: the file was never pushed to "
                                      f"{self.store.describe()} (`leaderboard runs push`)")
        where = "; ".join(["not in the submission's folder", *(f"not at {u}" for u in tried)])
        if isinstance(self.store, FolderStore) and not self.store_is_the_folder():
            where += f"; not in {self.store.describe()}"
        raise StoreError(display, f"the file is missing ({where})")

    def _download(self, url: str, ref: StoredRef, display: str, until: float | None = None
                  ) -> tuple[Path, bytes | None]:
        return download(url, ref, self.cache, display, self.limits, until)

    def locate_all(self, refs: list[StoredRef], jobs: int = FETCH_JOBS
                   ) -> dict[str, Path | StoreError]:
        """Every ref located at once (by path): a verified path, or why not.

        The fetches share one deadline (:meth:`HttpLimits.total_deadline_s` of their
        sizes together): against a store that never answers, a submission of a thousand
        files waits two timeouts, not one per file. Files not fetched by then share one
        :class:`StoreError` saying how many are left
        (:func:`leaderboard.store.files.unique_errors` lists it once)."""
        seconds = self.limits.total_deadline_s(sum(r.max_stored_bytes for r in refs))
        until = time.monotonic() + seconds
        left: list[str] = []

        def one(ref: StoredRef) -> Path | StoreError:
            try:
                return self.locate(ref, until)
            except Late:
                left.append(ref.path)
                return Late(self.sub_id, "")
            except StoreError as exc:
                return exc
        if len(refs) <= 1:
            found = {r.path: one(r) for r in refs}
        else:
            with ThreadPoolExecutor(max_workers=min(jobs, len(refs)),
                                    thread_name_prefix="store-fetch") as pool:
                found = dict(zip((r.path for r in refs), pool.map(one, refs)))
        if left:
            late = StoreError(self.sub_id, f"{len(left)} of {plural(len(refs), 'file')} not fetched: "
                                           f"fetching them took longer than the {seconds:.0f} "
                                           f"s this submission's files may take together "
                                           f"({self.store.describe()} is slow or does not "
                                           "answer); run the command again later")
            found.update({path: late for path in left})
        return found

    def link(self, rel: str) -> str | None:
        """The web address of the stored copy of ``rel`` when it is not in the folder (the
        site links files in the folder to the repository itself)."""
        if self.local(rel) is not None:
            return None
        if isinstance(self.store, HttpsStore):
            return self.store.url(store_path(self.sub_id, rel))
        if self.source is not None:
            return self.source.page_url(rel)
        return None


def submission_files(folder: Path, store: RunStore | None = None) -> SubmissionFiles:
    """The stored files of the submission in ``folder`` (its manifest read for the source;
    ``store`` by default the configured one). A manifest that cannot be read is a
    :class:`StoreError`."""
    report = Report()
    manifest = load_manifest(folder, report, f"{folder.name}/{MANIFEST_NAME}")
    if not report.ok:
        raise StoreError(f"{folder.name}/{MANIFEST_NAME}", "; ".join(report.lines()[:3]))
    return SubmissionFiles(folder.name, folder, manifest.source if manifest else None,
                           store if store is not None else configured_store(folder))
