"""Writing a scored submission's explanation files (:mod:`leaderboard.submission.explain_files`
says what they are) as the tasks' files come: into the submission's folder, swapped in
whole (:class:`ExplanationFolder`, publishing's scoring), or into the run store's cache
(:class:`KeptExplanations`, a submitter's own scoring, whose folder a pull request must
carry without them); and what a submitter's folder holds under ``explain/`` that CI did
not write there for it (:func:`held_explanations`), which that scoring removes and
`validate` reports."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from leaderboard.core.fileio import gunzip_bounded
from leaderboard.core.report import Report
from leaderboard.core.user_git import batch_blobs, git_command
from leaderboard.store.files import StoredRef, check_file, keep
from leaderboard.store.locations import FolderStore, HubStore, store_path
from leaderboard.submission.explain_files import (MANIFEST, ExplainFile, ExplainFilesError,
                                                  TaskFiles,
                                                  explain_dir, explanation_manifest,
                                                  parse_manifest, stored_refs, unpacked)
from leaderboard.submission.files import SubmissionFiles
from leaderboard.submission.ids import id_problem
from leaderboard.submission.layout import (DEFAULT_BRANCH, EXPLAIN_DIR,
                                           MAX_EXPLAIN_MANIFEST_BYTES, SUBMISSIONS_DIR,
                                           folder_path)
from leaderboard.submission.transaction import plain_file


class ExplanationFolder:
    """A submission's explanation folder written as the tasks' files come, each file as
    soon as its task is scored (`leaderboard score` writes while the workers still score
    the others: :mod:`leaderboard.submission.task_checks`), into a new folder beside the
    submission, swapped in by two renames by :meth:`finish`: a failure, or
    :meth:`discard`, leaves the previous files as they were."""

    def __init__(self, submission_root: Path) -> None:
        self.root = submission_root
        parent = submission_root.parent
        # A previous write that died between its renames left its folders here.
        for stale in parent.glob(f".{submission_root.name}.explain-*"):
            shutil.rmtree(stale, ignore_errors=True)
        self.work: Path | None = Path(tempfile.mkdtemp(
            prefix=f".{submission_root.name}.explain-new-", dir=parent))
        self.work.chmod(0o755)
        self.written: set[str] = set()

    def add(self, task: TaskFiles) -> None:
        """Write ``task``'s files that are not written yet (tasks share text parts)."""
        assert self.work is not None, "the folder was finished or discarded"
        for rel, file in task.files.items():
            if rel in self.written:
                continue
            path = self.work / rel
            missing = []
            folder = path.parent
            while not folder.is_dir():
                missing.append(folder)
                folder = folder.parent
            for folder in reversed(missing):
                folder.mkdir()
                folder.chmod(0o755)
            data = file.gzipped()
            if not self._link_unchanged(rel, file, data, path):
                path.write_bytes(data)
                path.chmod(0o644)
            self.written.add(rel)

    def _link_unchanged(self, rel: str, file: ExplainFile, data: bytes, path: Path) -> bool:
        """Link the folder's current file ``rel`` at ``path`` when it holds exactly ``data``,
        or other gzip bytes of the same JSON as ``file`` (and mode 0644, which a link
        shares): rescoring unchanged runs writes no byte, and the folder's transaction then
        finds the file unchanged by its inode, without comparing the bytes (on the 2-core
        Zen 3 host, writing a 20 KB file cost 0.5 ms of CPU; a rescored submission's 751
        files took the main process 0.6-1.0 CPU-s). The same JSON compressed by another
        machine (ISA-L picks its kernels by CPU) or library is the same file: rescoring a
        committed submission rewrote all its ~300 files, each with new bytes and the same
        content, one commit of binary churn per publish. A file that differs, even by a
        damaged byte, is written anew. Returns whether it linked."""
        current = plain_file(explain_dir(self.root), rel)
        if current is None:
            return False
        try:
            fd = os.open(current, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            with open(fd, "rb", buffering=0) as old:
                info = os.fstat(fd)
                if stat.S_IMODE(info.st_mode) != 0o644:
                    return False
                if info.st_size == len(data):
                    held = old.read(len(data) + 1)
                    same = held == data or _holds_json_of(held, file)
                else:  # another compression of it, at most (a gzip never grows past this)
                    held = old.read(file.size + len(data) + 1024)
                    same = _holds_json_of(held, file)
                if not same:
                    return False
            os.link(current, path, follow_symlinks=False)
        except OSError:  # raced away, or links refused (another device): written instead
            return False
        return True

    def finish(self, tasks: list[TaskFiles], inputs_sha256: Mapping[str, str]) -> Path:
        """Write the manifest of ``tasks`` (every one of them added) and swap the folder
        in; returns it."""
        assert self.work is not None, "the folder was finished or discarded"
        work, target = self.work, explain_dir(self.root)
        old = None
        try:
            manifest = work / MANIFEST
            manifest.write_bytes(explanation_manifest(self.root.name, tasks, inputs_sha256))
            manifest.chmod(0o644)
            if os.path.lexists(target):  # a link named explain (removed) included
                old = Path(tempfile.mkdtemp(prefix=f".{self.root.name}.explain-old-",
                                            dir=self.root.parent))
                os.replace(target, old / EXPLAIN_DIR)
            os.replace(work, target)
        except BaseException:
            self.discard()
            raise
        self.work = None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return target

    def discard(self) -> None:
        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)
            self.work = None


def write_explanations(submission_root: Path, tasks: list[TaskFiles],
                       inputs_sha256: Mapping[str, str]) -> Path:
    """Replace the submission's explanation folder with ``tasks``' files, all at once
    (:class:`ExplanationFolder`), as the synthetic submissions of the site benchmarks are
    written. Returns the folder."""
    folder = ExplanationFolder(submission_root)
    for task in tasks:
        try:
            folder.add(task)
        except BaseException:
            folder.discard()
            raise
    return folder.finish(tasks, inputs_sha256)


class KeptExplanations:
    """A submission's explanation files put into the run store's cache as the tasks' files
    come, each under the SHA-256 it is named by, instead of into the submission's folder:
    a submitter's own scoring, whose folder a pull request must carry without them (CI
    writes them there after the merge: :mod:`leaderboard.submission.layout`). Every
    reader finds them there (:class:`leaderboard.submission.files.SubmissionFiles`); a
    file kept for a scoring that then fails is a cache entry no manifest names."""

    def __init__(self, cache: Path, submission_id: str) -> None:
        self.cache = cache
        self.submission_id = submission_id
        self.kept: set[str] = set()

    def add(self, task: TaskFiles) -> None:
        for rel, file in task.files.items():
            if rel in self.kept:
                continue
            ref = StoredRef(f"{EXPLAIN_DIR}/{rel}", file.size, file.sha256, gzip=True)
            keep(self.cache, ref, file.gzipped(), f"{self.submission_id}/{ref.path}")
            self.kept.add(rel)

    def finish(self, tasks: list[TaskFiles], inputs_sha256: Mapping[str, str]) -> bytes:
        """Keep the manifest of ``tasks`` (every one of them added), checked as a reader
        checks it; returns its bytes, which results.json names."""
        manifest = explanation_manifest(self.submission_id, tasks, inputs_sha256)
        path = f"{EXPLAIN_DIR}/{MANIFEST}"
        parse_manifest(manifest, f"{self.submission_id}/{path}")
        keep(self.cache, StoredRef(path, len(manifest), hashlib.sha256(manifest).hexdigest()),
             manifest, f"{self.submission_id}/{path}")
        return manifest


@dataclass(frozen=True)
class HeldExplanations:
    """What a submission folder holds under ``explain/`` that CI did not write there for
    this submission, as paths inside the folder (``explain/...``). CI alone writes the
    folder, after the merge, whole and with a manifest naming the submission and listing
    every file (:mod:`leaderboard.submission.layout`): a pull request may not add, change
    nor delete a file of it."""

    # Files no writing of CI's for this submission holds (``why``): the whole folder when
    # its manifest is another submission's (a copied folder) or missing, else the files
    # the manifest does not list. Another submission's files, or a stray one, which a
    # submitter's scoring removes.
    foreign: tuple[str, ...] = ()
    why: str = ""
    # Files the manifest lists that are not as it lists them, or missing: (path, why).
    # No scoring can put back what CI wrote.
    altered: tuple[tuple[str, str], ...] = ()


def _held_files(folder: Path, prefix: str) -> list[str]:
    """Everything under ``folder`` but folders (links not followed), by path."""
    found: list[str] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                found += _held_files(Path(entry.path), f"{prefix}{entry.name}/")
            else:
                found.append(prefix + entry.name)
    return sorted(found)


def held_explanations(submission_root: Path, *, apart: str | None) -> HeldExplanations:
    """What ``submission_root/explain/`` holds that CI did not write there for this
    submission (its folder's name): see :class:`HeldExplanations`. Nothing when there is
    no explain/; a file or link named ``explain`` is foreign, and so is every file where
    CI's explanation files for it belong ``apart`` from its folder (that says why:
    :attr:`Placement.apart`, asked of the user's folder, not of the copy of it a change
    scores): its own, copied there from the cache, are what a pull request would add."""
    folder = explain_dir(submission_root)
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        return HeldExplanations((EXPLAIN_DIR,), "it is not a folder")
    if not folder.is_dir():
        return HeldExplanations()
    held = _held_files(folder, "")
    every = tuple(f"{EXPLAIN_DIR}/{rel}" for rel in held)
    where = f"{EXPLAIN_DIR}/{MANIFEST}"
    manifest = plain_file(folder, MANIFEST)
    if manifest is None:
        return HeldExplanations(every, f"it holds no {MANIFEST}")
    try:
        data, owner = _manifest_owner(manifest, where)
        if owner != submission_root.name:
            return HeldExplanations(every, f"its {MANIFEST} is {owner}'s"
                                    if isinstance(owner, str) and owner
                                    else f"its {MANIFEST} names no submission")
        if apart is not None:
            return HeldExplanations(every, apart)
        doc = parse_manifest(data, where)
    except (OSError, ExplainFilesError) as exc:
        if apart is not None:
            return HeldExplanations(every, apart)
        return HeldExplanations(altered=((where, f"not the manifest CI wrote ({exc})"),))
    listed = {ref.path: ref for ref in stored_refs(doc)}
    foreign = tuple(path for path in every if path != where and path not in listed)
    altered = []
    for path, ref in listed.items():
        file = plain_file(submission_root, path)
        if file is None:
            altered.append((path, f"deleted, while {where} lists it"
                            if not os.path.lexists(submission_root / path)
                            else f"not a plain file, while {where} lists one"))
        elif problem := check_file(file, ref)[0]:
            altered.append((path, f"not the file {where} lists ({problem})"))
    return HeldExplanations(foreign, f"not listed in its {MANIFEST}" if foreign else "",
                            tuple(altered))


def _manifest_owner(manifest: Path, where: str) -> tuple[bytes, object]:
    """The bytes of the explanation manifest ``manifest`` and the submission it names
    (whatever its ``submission`` holds); raises :class:`ExplainFilesError` or OSError."""
    with manifest.open("rb") as stream:
        data = stream.read(MAX_EXPLAIN_MANIFEST_BYTES + 1)
    return data, unpacked(data, where).get("submission")


# The default branch a local check reads, the first of these that exists: the
# leaderboard's repository as last fetched (<remote>/HEAD names the branch the remote calls
# its default), else the local one, as `ci pr-check` run by hand takes it. That repository
# is `upstream` where a clone has it: How to submit has a submitter clone their fork, which
# is `origin` then (the fork's branch as forked, or as last synced), and GitHub's guide and
# `gh repo fork --clone` name the project's remote `upstream`; else `origin`, a clone of the
# project itself.
DEFAULT_BRANCH_REFS = ("refs/remotes/upstream/HEAD", f"refs/remotes/upstream/{DEFAULT_BRANCH}",
                       "refs/remotes/origin/HEAD", f"refs/remotes/origin/{DEFAULT_BRANCH}",
                       f"refs/heads/{DEFAULT_BRANCH}")


@dataclass(frozen=True)
class InCheckout:
    """What git holds of ``submissions/<id>/`` in the checkout a submission folder is in
    (:func:`in_checkout`)."""

    branch: str       # the default branch read, as git names it (upstream/HEAD, ...)
    folder: bool      # the default branch holds submissions/<id>/, a folder
    explained: bool   # the default branch holds submissions/<id>/explain/manifest.json
    committed: bool   # HEAD holds submissions/<id>/explain/manifest.json


def in_checkout(folder: Path, sub_id: str) -> InCheckout | None:
    """What the default branch (:data:`DEFAULT_BRANCH_REFS`) and HEAD of the git checkout
    ``folder`` is in hold of the submission ``sub_id``, from the objects git has here,
    fetching nothing: one ``git cat-file`` (a few milliseconds). None when ``folder`` is
    in no git checkout, the checkout has none of those branches, ``sub_id`` is not an id
    or git cannot be run.

    The checkout is the one the user's own git takes (:func:`~leaderboard.core.user_git.git_command`)."""
    if id_problem(sub_id) is not None:
        return None
    where = folder_path(sub_id)
    manifest = f"{where}/{EXPLAIN_DIR}/{MANIFEST}"
    asked = [line for ref in DEFAULT_BRANCH_REFS
             for line in (ref, f"{ref}:{where}", f"{ref}:{manifest}")] + [f"HEAD:{manifest}"]
    try:
        # <ref>:<path> is from the checkout's root.
        proc = subprocess.run([*git_command(folder), "cat-file", "--batch-check=%(objecttype)"],
                              input="".join(f"{line}\n" for line in asked).encode(),
                              capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):  # no git, or it hung
        return None
    kinds = proc.stdout.decode("utf-8", "replace").splitlines()
    if proc.returncode != 0 or len(kinds) != len(asked):  # not a checkout
        return None
    committed = kinds[-1] == "blob"
    for i, ref in enumerate(DEFAULT_BRANCH_REFS):
        branch, tree, blob = kinds[3 * i:3 * i + 3]
        if branch == "commit":
            return InCheckout(ref.removeprefix("refs/remotes/").removeprefix("refs/heads/"),
                              tree == "tree", blob == "blob", committed)
    return None


def merged_files(folder: Path, name: str) -> dict[str, bytes] | None:
    """The file ``name`` of each submission the default branch (:data:`DEFAULT_BRANCH_REFS`)
    of the git checkout ``folder`` is in holds (``submissions/<id>/<name>``, a file, not a
    link), by id: the merged submissions, as a pull request's base holds them for `ci
    pr-check`. From the objects git has here, fetching nothing. None when ``folder`` is in
    no git checkout, the checkout has none of those branches or git cannot be run."""
    git = git_command(folder)
    try:
        # The first of the branches that exists, as in_checkout takes it.
        proc = subprocess.run([*git, "cat-file", "--batch-check=%(objecttype)"],
                              input="".join(f"{ref}\n" for ref in DEFAULT_BRANCH_REFS).encode(),
                              capture_output=True, timeout=30, check=False)
        kinds = proc.stdout.decode("utf-8", "replace").splitlines()
        if proc.returncode != 0 or len(kinds) != len(DEFAULT_BRANCH_REFS):  # not a checkout
            return None
        branch = next((ref for ref, kind in zip(DEFAULT_BRANCH_REFS, kinds)
                       if kind == "commit"), None)
        if branch is None:
            return None
        listing = subprocess.run([*git, "ls-tree", "-r", "-z", "--full-tree", branch, "--",
                                  f"{SUBMISSIONS_DIR}/"],
                                 capture_output=True, timeout=30, check=False)
        if listing.returncode != 0:
            return None
        found: dict[str, str] = {}  # id -> blob
        for record in listing.stdout.split(b"\0"):
            meta, _, path = record.partition(b"\t")
            parts = path.decode("utf-8", "surrogateescape").split("/")
            fields = meta.decode("ascii", "replace").split()
            if (len(parts) == 3 and parts[2] == name and len(fields) == 3
                    and fields[1] == "blob" and fields[0] != "120000"):
                found[parts[1]] = fields[2]
        blobs = subprocess.run([*git, "cat-file", "--batch"],
                               input="".join(f"{sha}\n" for sha in found.values()).encode(),
                               capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):  # no git, or it hung
        return None
    if blobs.returncode != 0:
        return None
    try:
        contents = batch_blobs(blobs.stdout, list(found.values()))
    except ValueError:
        return None
    return dict(zip(found, contents))


def _holds_json_of(gz: bytes, file: ExplainFile) -> bool:
    """Whether gzip bytes ``gz`` inflate to ``file``'s JSON (its size and SHA-256): read
    no further than one byte past that size; damaged or other bytes are not it."""
    content = gunzip_bounded(gz, file.size, "explanation file", Report())
    return (content is not None and len(content) == file.size
            and hashlib.sha256(content).hexdigest() == file.sha256)


@dataclass(frozen=True)
class Placement:
    """Whether a submission is merged, and where CI's explanation files for it belong
    (:func:`placement`)."""

    merged: bool
    # Why CI's explanation files for it belong apart from its folder (in the run store,
    # or its cache), so that a pull request may not add them there and every file under
    # its explain/ is foreign (:func:`held_explanations`); None where they belong in it.
    apart: str | None


# Why a submission not merged yet holds no file of CI's in its folder (Placement.apart).
NOT_MERGED = "it is not merged yet"


def placement(files: SubmissionFiles) -> Placement:
    """Whether the submission of ``files`` is merged, and whether CI's explanation files
    for it belong in its folder: one rule, for `validate` (which compares the
    results.json of one not merged yet, as `ci pr-check` does, and refuses an explain/
    that does not belong), `score` (which removes it) and `runs pull` (which keeps those
    files in the run store's cache instead). Nothing is fetched.

    In a git checkout, the default branch decides (:func:`in_checkout`: upstream/HEAD,
    else upstream/main, else origin/HEAD, else origin/main, else main, as git has it
    here: :data:`DEFAULT_BRANCH_REFS`), never HEAD, which a submitter's branch
    makes hold anything (an explain/ copied from the cache and committed):

    - the default branch does not hold ``submissions/<id>/``: a submission not merged
      yet, whose explain/ belongs apart, whatever the folder or HEAD holds;
    - it holds the folder and its ``explain/manifest.json``: merged, and the explain/
      publishing committed belongs in the folder;
    - it holds the folder but no ``explain/manifest.json``: the files belong apart (the
      run store keeps them, or publishing has not run yet), and the submission is merged
      unless the store is the folder (:meth:`SubmissionFiles.store_is_the_folder`), where
      publishing commits explain/ with the folder: it is the mark of the merge there.
      Except where HEAD holds the folder's ``explain/manifest.json``: then the default
      branch as git has it is most likely older than HEAD (publishing committed it after
      the last fetch, or a fork's origin is behind), and removing the files would delete
      a merged submission's published explain/ in the branch, which pr-check refuses; so
      they belong in the folder and the submission is merged. Were they instead a copy
      committed into a merged folder, pr-check, which reads the real base branch, refuses
      them: keeping them loses nothing, removing them might.

    So a HEAD that holds explain/ of a folder the default branch lacks entirely is taken
    for a copy committed on the submitter's branch (a new submission): where the default
    branch is merely stale (merged and published since the last fetch), `git fetch`
    makes it known.

    Outside a git checkout, as far as the folder and the run store tell
    (:func:`_merged_as_stored`), and a merged submission's files belong in its folder."""
    git = None if files.folder is None else in_checkout(files.folder, files.sub_id)
    if git is None:
        merged = _merged_as_stored(files)
        return Placement(merged, None if merged else NOT_MERGED)
    where = folder_path(files.sub_id)
    if not git.folder:
        return Placement(False, f"{NOT_MERGED}: the default branch, {git.branch}, holds "
                                f"no {where}/")
    if git.explained or git.committed:
        return Placement(True, None)
    return Placement(not files.store_is_the_folder(),
                     f"the default branch, {git.branch}, holds no "
                     f"{where}/{EXPLAIN_DIR}/{MANIFEST}")


def _merged_as_stored(files: SubmissionFiles) -> bool:
    """Whether the submission of ``files`` is merged as far as its folder and the run
    store tell (outside a git checkout): CI's explanation files for it are where
    publishing keeps them, in its folder (an ``explain/manifest.json`` naming it), in a
    folder store's place for it, or in the dataset store its manifest's ``source:`` names
    (where `runs push --all` moved them). A submission not merged yet has them in the run
    store's cache alone (its own scoring keeps them there), or in the submitter's own
    dataset. An HTTPS store is not asked."""
    where = f"{EXPLAIN_DIR}/{MANIFEST}"
    if files.folder is not None and _names(plain_file(files.folder, where), files.sub_id):
        return True
    if (isinstance(files.store, FolderStore) and not files.store_is_the_folder()
            and _names(plain_file(files.store.root, store_path(files.sub_id, where)),
                       files.sub_id)):
        return True
    return (isinstance(files.store, HubStore) and files.source is not None
            and files.source.repo == files.store.repo)


def _names(manifest: Path | None, sub_id: str) -> bool:
    """Whether the explanation manifest ``manifest`` (if any) names ``sub_id``."""
    if manifest is None:
        return False
    try:
        return _manifest_owner(manifest, f"{EXPLAIN_DIR}/{MANIFEST}")[1] == sub_id
    except (OSError, ExplainFilesError):
        return False


def remove_foreign(submission_root: Path, held: HeldExplanations) -> None:
    """Remove ``held.foreign`` from the folder, and the folders that leaves empty (the
    caller's change of the folder makes it so, as one transaction)."""
    for path in held.foreign:
        target = submission_root / path
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        else:
            target.unlink()
    folder = explain_dir(submission_root)
    if not folder.is_dir() or folder.is_symlink():
        return
    for current, _, _ in os.walk(folder, topdown=False):  # the deepest first
        if not os.listdir(current):
            os.rmdir(current)
