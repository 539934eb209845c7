"""A commit a job without a write token hands to the job that pushes it, checked there.

The jobs that read strangers' files (``publish.yml`` scoring merged submissions) or run
models (``baselines.yml`` on the GPU runner) hold no write token: they commit on a local
branch and hand the commit over as a git bundle in an artifact. The job that holds the
token pushes it only after this check, run by its own checkout's code: the commit sits
directly on the commit the workflow ran for (one commit, one parent), and changes only
what the job that made it may change:

* publishing (:func:`check_published`): in submissions merged at the base, the
  scorer's files and CI's, the manifest (``score`` writes it, ``runs push`` records the
  store in it), and the removal of what the run store keeps instead (:data:`PUBLISHED`);
  never ``metadata.yaml``, a run file's content, a new folder, or anything outside
  ``submissions/``;
* a reference model's proposal (:func:`check_proposal`): the entries of its own folder
  ``submissions/<id>/`` a pull request may carry (not CI's explanation files).

Every file the commit adds or changes must be a plain file: no link, no submodule, no
executable.

Only the checked tree crosses from the job that made the commit: its author, committer,
dates and message are that job's to forge (a maintainer's name, ``[skip ci]``, a date
years away). The pushing job never pushes the handed-over commit object; it commits the
checked tree on the base itself (:func:`recommit`), as the workflow's one identity, at its
own clock's time, with a message composed from what the check read (:func:`message`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from leaderboard.app.ci.git import (
    Change,
    GitError,
    changed_files,
    file_at,
    git,
    parents,
    resolve_commit,
)
from leaderboard.app.ci.policy import unsafe_name
from leaderboard.core.errors import FollowBoardError, UsageError
from leaderboard.submission.ids import id_problem
from leaderboard.submission.layout import (
    EXPLAIN_DIR,
    KEPT_NAME,
    MANIFEST_NAME,
    METADATA_NAME,
    PER_QUERY_NAME,
    RESULTS_NAME,
    RUNS_DIR,
    SUBMISSIONS_DIR,
    Writer,
    entry_of,
    folder_path,
    left_to_ci,
)

# The one git mode a handed-over commit may give a file.
PLAIN_FILE = "100644"

# What publishing may do to each entry of a merged submission: A(dd), M(odify), D(elete).
PUBLISHED: dict[str, str] = {
    METADATA_NAME: "",       # the submitter's: publishing never rewrites it
    MANIFEST_NAME: "AM",     # `score` writes it, `runs push` records the store in it
    RUNS_DIR: "D",           # the submitter's; removed once the run store holds them
    RESULTS_NAME: "AM",
    PER_QUERY_NAME: "AMD",   # removed once the run store holds it
    EXPLAIN_DIR: "AMD",      # likewise
    KEPT_NAME: "AMD",        # written when a submission is kept, removed once it scores
}

# The identity every commit the workflows push is made as (GitHub's Actions bot).
WORKFLOW_NAME = "github-actions[bot]"
WORKFLOW_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"


class NotAnId(UsageError):
    """The folder a proposal is checked against is named by no submission id (a usage
    error, exit 2)."""


_VERBS = {"A": "adds", "M": "changes", "D": "deletes", "T": "changes the kind of"}


@dataclass
class Handover:
    """A handed-over commit and what is wrong with it (nothing: it may be pushed)."""

    base: str
    commit: str
    changes: list[Change] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # The first line of the pushed commit's message, said by the check (never read from
    # the handed-over commit).
    subject: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


def _read(repo: Path, base: str, commit: str) -> Handover:
    """The commit's changes from ``base``, with the problems every handover has: not one
    commit on ``base``, a name no submission may have, a file that is not plain."""
    hand = Handover(resolve_commit(repo, base), resolve_commit(repo, commit))
    found = parents(repo, hand.commit)
    if found != [hand.base]:
        hand.problems.append(
            f"{commit} is not one commit on {hand.base} (its parents: "
            f"{', '.join(found) or 'none'}); a handed-over commit is the one commit its "
            "job made on the commit the workflow ran for")
        return hand
    hand.changes = changed_files(repo, hand.base, hand.commit)
    for change in hand.changes:
        if unsafe_name(change.path):
            hand.problems.append(f"{ascii(change.path)}: a name no submission file may have")
        elif change.status != "D" and change.mode != PLAIN_FILE:
            hand.problems.append(f"{change.path}: the commit makes it git mode {change.mode}, "
                                 f"not a plain file ({PLAIN_FILE})")
    return hand


def _inside(path: str) -> tuple[str, str] | None:
    """``(id, path inside the folder)`` of a path in a submission folder, else None."""
    parts = PurePosixPath(path).parts
    if len(parts) < 3 or parts[0] != SUBMISSIONS_DIR:
        return None
    return parts[1], "/".join(parts[2:])


def check_published(repo: Path, base: str, commit: str) -> Handover:
    """Whether ``commit`` changes only what publishing writes (:data:`PUBLISHED`) in the
    submissions merged at ``base``."""
    hand = _read(repo, base, commit)
    merged: dict[str, bool] = {}
    for change in hand.changes:
        if unsafe_name(change.path):
            continue
        where = _inside(change.path)
        if where is None:
            hand.problems.append(f"{change.path}: outside {SUBMISSIONS_DIR}/<id>/; "
                                 "publishing changes submission folders only")
            continue
        sub_id, rel = where
        if sub_id not in merged:
            merged[sub_id] = file_at(repo, hand.base, folder_path(sub_id, METADATA_NAME)) \
                is not None
        if not merged[sub_id]:
            hand.problems.append(f"{change.path}: {folder_path(sub_id)}/ is no submission "
                                 f"merged at {hand.base}; publishing adds no submission")
            continue
        entry = entry_of(rel)
        if entry is None:
            hand.problems.append(f"{change.path}: no entry of a submission folder holds it")
        elif change.status not in PUBLISHED[entry.name]:
            may = ", ".join(_VERBS[s].removesuffix("s") for s in PUBLISHED[entry.name])
            hand.problems.append(
                f"{change.path}: the commit {_VERBS.get(change.status, 'changes')} it; "
                f"publishing may {may or 'not change'} {entry.name}"
                + ("/" if entry.kind == "folder" else ""))
    hand.subject = "Publish merged submissions: " + ", ".join(sorted(merged))
    return hand


def check_proposal(repo: Path, base: str, commit: str, sub_id: str) -> Handover:
    """Whether ``commit`` changes only ``submissions/<sub_id>/``, and there only what a
    pull request may carry."""
    problem = id_problem(sub_id)
    if problem:
        raise NotAnId(problem)
    hand = _read(repo, base, commit)
    for change in hand.changes:
        if unsafe_name(change.path):
            continue
        where = _inside(change.path)
        if where is None or where[0] != sub_id:
            hand.problems.append(f"{change.path}: outside {folder_path(sub_id)}/, the only "
                                 "folder this proposal may change")
            continue
        entry = entry_of(where[1])
        if entry is None:
            hand.problems.append(f"{change.path}: no entry of a submission folder holds it")
        elif entry.writer is Writer.CI:
            hand.problems.append(f"{change.path}: {left_to_ci(entry)}")
    hand.subject = f"Baseline {sub_id}: runs and results"
    return hand


class NotARef(UsageError):
    """The ref the workflow's own commit is to be written to is no branch name (a usage
    error, exit 2)."""


class NothingToRecommit(FollowBoardError, ValueError):
    """The handed-over commit passed its check but changes nothing: the workflow makes no
    empty commit of it (exit 1)."""


def check_branch(repo: Path, branch: str) -> None:
    """Raise :class:`NotARef` unless ``branch`` is a branch's full name
    (``refs/heads/NAME``): a usage error, refused before any check is run."""
    try:
        if not branch.startswith("refs/heads/"):
            raise GitError(branch)
        git(repo, "check-ref-format", branch)
    except GitError:
        raise NotARef(f"{branch!r} is not a branch's full name (refs/heads/NAME)") from None


def message(hand: Handover) -> str:
    """The pushed commit's message: the check's subject, then what the commit changes in
    each folder and where its tree comes from; nothing the handed-over commit says."""
    counts: dict[str, dict[str, int]] = {}
    for change in hand.changes:
        where = _inside(change.path)
        folder = f"{folder_path(where[0])}/" if where else change.path
        verbs = counts.setdefault(folder, {})
        verbs[change.status] = verbs.get(change.status, 0) + 1
    lines = [f"{folder}: " + ", ".join(f"{_VERBS.get(status, 'changes')} {count}"
                                        for status, count in sorted(verbs.items()))
             + (" file" if sum(verbs.values()) == 1 else " files")
             for folder, verbs in sorted(counts.items())]
    return (f"{hand.subject}\n\n" + "\n".join(lines) + "\n\n"
            f"The tree of {hand.commit}, handed over by a job without a write token and "
            f"checked by `leaderboard ci check-commit` on {hand.base}; that commit's "
            "author, dates and message are not kept.\n")


def recommit(repo: Path, hand: Handover, branch: str) -> str:
    """The workflow's own commit of ``hand``'s checked tree on its base, written to
    ``branch`` (a full ``refs/heads/`` name): author and committer :data:`WORKFLOW_NAME`
    now, the message :func:`message`. Only a commit that passed its check and changes
    something is recommitted."""
    if not hand.ok:
        raise ValueError(f"{hand.commit} did not pass its check; it is not recommitted")
    if not hand.changes:
        raise NothingToRecommit(
            f"{hand.commit} changes nothing; there is no tree to recommit on {hand.base} "
            "(the job that made it should hand over no commit when it has nothing to push)")
    check_branch(repo, branch)
    now = f"{int(time.time())} +0000"
    who = {"GIT_AUTHOR_NAME": WORKFLOW_NAME, "GIT_AUTHOR_EMAIL": WORKFLOW_EMAIL,
           "GIT_AUTHOR_DATE": now, "GIT_COMMITTER_NAME": WORKFLOW_NAME,
           "GIT_COMMITTER_EMAIL": WORKFLOW_EMAIL, "GIT_COMMITTER_DATE": now}
    tree = git(repo, "rev-parse", "--verify", f"{hand.commit}^{{tree}}").decode().strip()
    made = git(repo, "commit-tree", "--no-gpg-sign", tree, "-p", hand.base, "-F", "-",
               input_bytes=message(hand).encode(), env=who).decode().strip()
    git(repo, "update-ref", "-m", "leaderboard ci check-commit --recommit", branch, made)
    return made
