"""What a submission pull request may change, and how big a submission may be.

A submission PR comes from a stranger's fork, so its scope is checked before anything in it
is read: it may add or change files of exactly one folder ``submissions/<id>/`` and nothing
else (no code, workflows, other submissions, or reported results). Inside that folder,
who writes each entry decides what the PR may do with it
(:mod:`leaderboard.submission.layout`): the submitter's (``metadata.yaml``,
``manifest.txt``, ``runs/``) are read; the scorer's (``results.json``,
``per-query.json.gz``) may be carried only byte-identical to what CI computes; CI's
(the explorer's files under ``explain/``) a PR may neither add, change nor delete (CI
rewrites them after the merge), and those already merged do not count against the PR's
limits.

Two kinds of finding come out: *refusals* (the PR is the wrong shape; a reason per
problem, no scoring is attempted) and *issues* on files (reported like validator errors,
with the file named, so the submitter can fix them in place).
"""

from __future__ import annotations

import tomllib
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from leaderboard.app.ci.git import Change, GitError, TreeEntry, safe_relative
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import size_text
from leaderboard.core.report import Report, plural
from leaderboard.submission.ids import id_problem
from leaderboard.submission.metadata import GITHUB_LOGIN_RE
from leaderboard.submission.layout import (
    DEFAULT_BRANCH,
    MAX_FILES,
    MAX_FILE_BYTES,
    MAX_NAME_BYTES,
    MAX_PATH_CHARS,
    MAX_SUBMISSION_BYTES,
    NO_LINKS,
    STRAY_FILE,
    SUBMISSIONS_DIR,
    Writer,
    entry_of,
    folder_path,
    left_to_ci,
    written_by,
)

# Limits on what a PR may add, measured on the committed blobs (a gzipped run counts at
# its compressed size): the limits of a submission's files wherever they are, which
# leaderboard.submission.layout sets out; a manifest's files are held to them too.
# At most this many offending paths are listed in a refusal.
MAX_LISTED_PATHS = 10


@dataclass
class PrScope:
    """The submission folders a PR adds or changes, or why the PR is refused."""

    submission_ids: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    # Paths (from the repository root) the refusals are about, for file annotations.
    refused_paths: list[str] = field(default_factory=list)
    # Submission id -> paths the PR deletes inside it.
    deleted: dict[str, list[str]] = field(default_factory=dict)
    # Submission id -> paths the PR adds or modifies inside it.
    touched: dict[str, list[str]] = field(default_factory=dict)
    # Whether the PR changes anything under submissions/ (a submission PR, well formed
    # or not).
    changes_submissions: bool = False

    @property
    def ok(self) -> bool:
        return not self.refusals


def _listing(paths: list[str]) -> str:
    shown = ", ".join(paths[:MAX_LISTED_PATHS])
    more = len(paths) - MAX_LISTED_PATHS
    return shown + (f" and {more} more" if more > 0 else "")


def unsafe_name(path: str) -> bool:
    """A path git allows but a submission must not have: a backslash (a separator on
    Windows, refused when extracting), a control character, bytes that are not UTF-8,
    or '.', '..', '.git' parts."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F or 0xD800 <= ord(c) <= 0xDFFF for c in path):
        return True
    try:
        safe_relative(path)
    except GitError:
        return True
    return False


def in_submissions(path: str) -> bool:
    """Whether a changed path is under submissions/: a PR with one is a submission PR
    (:attr:`PrScope.changes_submissions`), checked whole."""
    return path.split("/", 1)[0] == SUBMISSIONS_DIR


def classify_changes(changes: list[Change], merged: Container[str] = frozenset()) -> PrScope:
    """Sort a PR's changed files into submission folders; refuse anything else.

    ``merged``: the ids of the submission folders on the base branch. A PR touching
    several folders is refused, and the files it may not change are marked: every file
    outside its one new folder, or, with no single new folder to call its own, every file
    of every folder it touches."""
    scope = PrScope()
    scope.changes_submissions = any(in_submissions(c.path) for c in changes)
    outside: list[str] = []
    loose: list[str] = []
    unsafe = [c.path for c in changes if unsafe_name(c.path)]
    if unsafe:
        shown = [ascii(p) for p in unsafe]
        scope.refusals.append(
            f"the pull request has file name(s) with a backslash, a control character, "
            f"bytes that are not UTF-8 or a '.'/'..' part ({_listing(shown)}); name files "
            "with plain characters and '/' between folders.")
        scope.refused_paths += shown
        changes = [c for c in changes if c.path not in unsafe]
    for change in changes:
        parts = PurePosixPath(change.path).parts
        if len(parts) < 3 or parts[0] != SUBMISSIONS_DIR:
            (loose if parts and parts[0] == SUBMISSIONS_DIR else outside).append(change.path)
            continue
        sub_id = parts[1]
        bucket = scope.deleted if change.status == "D" else scope.touched
        bucket.setdefault(sub_id, []).append(change.path)
        if sub_id not in scope.submission_ids:
            scope.submission_ids.append(sub_id)
    if outside:
        scope.refusals.append(
            f"the pull request changes {plural(len(outside), 'file')} outside submissions/ "
            f"({_listing(outside)}). A submission PR may only add files under "
            "submissions/<id>/; send code, workflow, documentation or results changes in a "
            "separate pull request.")
        scope.refused_paths += outside
    if loose:
        scope.refusals.append(
            f"the pull request changes file(s) directly under submissions/ ({_listing(loose)}); "
            "every file of a submission lives in its own folder submissions/<id>/.")
        scope.refused_paths += loose
    if len(scope.submission_ids) > 1:
        existing = [i for i in scope.submission_ids if i in merged]
        new = [i for i in scope.submission_ids if i not in merged]
        own = new[0] if len(new) == 1 else None
        scope.refusals.append(
            f"the pull request touches {len(scope.submission_ids)} submission folders "
            f"({_listing(scope.submission_ids)})"
            + (f", already merged: {_listing(existing)}" if existing else "")
            + "; open one pull request per submission, and leave other people's "
              "submissions alone.")
        scope.refused_paths += [p for i in scope.submission_ids if i != own
                                for p in scope.touched.get(i, []) + scope.deleted.get(i, [])]
    bad_ids = [(i, id_problem(i)) for i in scope.submission_ids if id_problem(i)]
    if bad_ids:
        scope.refusals.append(
            f"submission folder name(s) {_listing([repr(i) for i, _ in bad_ids])} are not "
            f"valid ids: {'; '.join(str(problem) for _, problem in bad_ids)}.")
    if not scope.submission_ids and not scope.refusals:
        scope.refusals.append("the pull request does not add or change any submission "
                              "(no file under submissions/<id>/).")
    return scope


def check_derived(sub_id: str, changed: list[str], report: Report, *,
                  merged: bool) -> None:
    """A PR may not add, change or delete what CI writes after the merge (the explorer's
    files; ``changed``: the paths the PR adds, changes or deletes in the submission). Of
    a submission not ``merged`` (the base branch has no such folder) CI wrote none, so
    what the PR adds there is a copy (of the run store's cache, where a local scoring
    keeps them, or of another folder): the refusal says to delete it."""
    for entry in written_by(Writer.CI):
        prefix = folder_path(sub_id, entry.name) + ("/" if entry.kind == "folder" else "")
        paths = [p for p in changed if p.startswith(prefix) or p == prefix]
        if paths:
            where = f"under {entry.name}/" if entry.kind == "folder" else entry.name
            step = "" if merged else (
                f"; {sub_id} is not merged (the base branch has no such folder), so CI wrote "
                f"none of them: delete {prefix} from the branch (`git rm -r "
                f"{prefix.rstrip('/')}`)" + ("; `leaderboard score` keeps the explorer's "
                                             "files in the run store's cache"
                                             if entry.stored else ""))
            report.add(f"{sub_id}/{entry.name}", None,
                       f"{plural(len(paths), 'file')} {where} changed ({_listing(paths)}): "
                       f"{left_to_ci(entry)}{step}")


def check_removal(scope: PrScope, sub_id: str, head_entries: list[TreeEntry]) -> None:
    """A PR that deletes a whole submission is a maintainer's decision, not a submission."""
    if scope.deleted.get(sub_id) and not head_entries:
        scope.refusals.append(
            f"the pull request removes the submission {sub_id!r}; removing a submission is "
            "done by the maintainers (open an issue).")
        scope.refused_paths += scope.deleted[sub_id]


def check_tree(sub_id: str, entries: list[TreeEntry], report: Report) -> bool:
    """Layout, file kinds and sizes of a submission folder at the PR's head.

    Issues are reported with paths relative to ``submissions/`` (``<id>/runs/...``) like the
    validator's. Returns False when the folder must not be read at all (oversized, too
    many files, links or submodules), True when validation may go on. Every file at the
    head is checked, touched by the PR or not: the whole folder must be valid.
    """
    prefix = f"{SUBMISSIONS_DIR}/{sub_id}/"
    readable = True
    total = 0

    def written(entry: TreeEntry) -> Writer | None:
        found = entry_of(entry.path[len(prefix):])
        return found.writer if found is not None else None

    # What CI writes after the merge (a PR cannot change it: check_derived) is never read
    # from the PR and is no part of what it adds.
    entries = [e for e in entries if written(e) is not Writer.CI]
    for entry in entries:
        rel = entry.path[len(prefix):]
        shown = f"{sub_id}/{rel}"
        if unsafe_name(entry.path):
            report.add(ascii(shown), None, "file name with a backslash, a control character "
                                           "or bytes that are not UTF-8")
            readable = False
            continue
        if len(rel) > MAX_PATH_CHARS or any(len(part.encode()) > MAX_NAME_BYTES
                                            for part in rel.split("/")):
            report.add(shown[:80] + "...", None,
                       f"path over {MAX_PATH_CHARS} characters, or a name in it over "
                       f"{MAX_NAME_BYTES} bytes: runs/<task id>/<role>.trec.gz is far shorter")
            readable = False
            continue
        if entry.is_symlink:
            report.add(shown, None, f"{NO_LINKS}; commit the file itself")
            readable = False
            continue
        if entry.is_submodule:
            report.add(shown, None, "git submodules are not allowed in a submission")
            readable = False
            continue
        total += entry.size
        if entry.size > MAX_FILE_BYTES:
            report.add(shown, None, f"file is {size_text(entry.size)}, over the "
                                    f"{size_text(MAX_FILE_BYTES)} limit per file; compress "
                                    "runs with gzip (.trec.gz)")
            readable = False
        writer = written(entry)
        if writer is Writer.SCORER:
            continue  # checked against the scorer's own output later
        if writer is not Writer.SUBMITTER:
            report.add(shown, None, STRAY_FILE)
    if len(entries) > MAX_FILES:
        report.add(f"{sub_id}", None, f"{len(entries):,} files, over the limit of {MAX_FILES:,}")
        readable = False
    if total > MAX_SUBMISSION_BYTES:
        report.add(f"{sub_id}", None, f"the submission is {size_text(total)}, over the "
                                      f"{size_text(MAX_SUBMISSION_BYTES)} limit; compress "
                                      "runs with gzip (.trec.gz)")
        readable = False
    return readable


# Who is a maintainer: the account owning the repository (GitHub's author_association
# OWNER), and the GitHub logins the base branch's pyproject.toml names under
# [tool.followboard] maintainers. Not MEMBER (any member of the owning organization,
# who may hold no access to this repository) nor COLLABORATOR (invited with any role,
# read-only too): GitHub says nothing there of who may merge.
MAINTAINER_ASSOCIATIONS = frozenset({"OWNER"})
CONFIG_FILE = "pyproject.toml"
MAINTAINERS_KEY = "maintainers"


# What the check's result depends on besides a submission: the code that runs it (the
# data registry and its pins, leaderboard/benchmarks/, included), the reference models
# whose ids it reserves, the configuration and lock file it is installed from, and the
# workflow that runs it. Folders end with "/".
CHECK_INPUTS = ("leaderboard/", "reference_models/", CONFIG_FILE, "requirements/",
                ".github/workflows/pr-validate.yml")


def full_check_paths(changes: list[Change]) -> list[str]:
    """The changed files for which a pull request gets the whole check (the benchmark data
    pulled, the submission scored): every one under submissions/ (:func:`in_submissions`,
    the test :func:`classify_changes` makes: a PR with none is one `pr-check` reports as
    "no submission changed" without reading any data), and every one of
    :data:`CHECK_INPUTS`."""
    return [c.path for c in changes
            if in_submissions(c.path)
            or any(c.path == i or (i.endswith("/") and c.path.startswith(i))
                   for i in CHECK_INPUTS)]


class MaintainersError(FollowBoardError, ValueError):
    """A maintainers list that cannot be read; the message names the file."""


def maintainers_of(text: str | None, origin: str) -> frozenset[str]:
    """The logins of ``[tool.followboard] maintainers`` in a pyproject.toml's text (none
    without the file, the table or the key), lower-cased; a list that is not GitHub
    logins is a :class:`MaintainersError` naming ``origin``."""
    if text is None:
        return frozenset()
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MaintainersError(f"{origin}: cannot read the project's configuration ({exc})") \
            from None
    table = config.get("tool", {}).get("followboard")
    value = table.get(MAINTAINERS_KEY, []) if isinstance(table, dict) else []
    if not isinstance(value, list) or not all(
            isinstance(v, str) and GITHUB_LOGIN_RE.fullmatch(v) for v in value):
        raise MaintainersError(f"{origin}: [tool.followboard] {MAINTAINERS_KEY} must be a "
                               "list of GitHub logins, such as [\"jane-doe\"]")
    return frozenset(v.lower() for v in value)


# baselines.yml opens its PRs with the repository's own token, as this account; only a
# workflow of this repository holding pull-requests: write can do that (a fork PR's token
# is read-only), and only maintainers can dispatch baselines.yml.
REPOSITORY_BOT = "github-actions[bot]"


# Why a check refuses when it does not know who opened the pull request.
AUTHOR_UNKNOWN = ("the pull request's author is not known (--pr-author is empty or missing), "
                  "so who may change which submission cannot be checked; the check refuses "
                  "rather than skip it. Re-run the workflow; if this persists, a maintainer "
                  "must look at the workflow's inputs.")
NO_COMMON_HISTORY = ("the pull request's branch shares no history with the base branch (git "
                     "finds no common commit), so what it changes cannot be told: make the "
                     "branch from the leaderboard's main branch (fork the repository, or "
                     "`git switch -c my-model origin/main`) and commit the submission there.")


BRANCHES_UNKNOWN = ("the pull request's base branch or the repository's default branch is not "
                    "known (--base-ref or --default-branch is empty or missing), so whether "
                    "the pull request is into the default branch cannot be checked; the check "
                    "refuses rather than skip it. Re-run the workflow; if this persists, a "
                    "maintainer must look at the workflow's inputs.")


def base_branch_problem(base_ref: str | None, default_branch: str | None, *,
                        in_actions: bool) -> str | None:
    """Why a submission pull request into ``base_ref`` is refused (None: it is not).

    A submission goes into the default branch, which the ownership check reads and the
    site is built from. Merged into any other branch (a baselines/<model>-<run> branch
    of baselines.yml, say), a change reaches the default branch later inside that
    branch's own pull request, past the checks this one got: the bot's PR is exempt from
    the ownership check. Outside GitHub Actions (a local run) a base branch not given is
    not checked, and the default branch not given is
    :data:`leaderboard.submission.layout.DEFAULT_BRANCH`; inside,
    either missing refuses, as does either given empty anywhere."""
    if not in_actions:
        if base_ref is None:
            return None
        default_branch = DEFAULT_BRANCH if default_branch is None else default_branch
    base, default = (base_ref or "").strip(), (default_branch or "").strip()
    if not base or not default:
        return BRANCHES_UNKNOWN
    if base == default:
        return None
    return (f"the pull request is into the branch {base!r}, not {default!r}, the "
            "repository's default branch: open a submission pull request against "
            f"{default!r} (Edit, beside the title, changes its base). Merged into another "
            f"branch, a change would reach {default!r} later inside that branch's own pull "
            "request, past the checks made on this one.")


def author_unknown(given: str | None, *, in_actions: bool) -> bool:
    """Whether a check must refuse for want of the PR's author: one given empty (a
    workflow expression that came out empty), or none given inside GitHub Actions.
    Outside Actions a missing author means a local run, which checks no ownership."""
    if given is None:
        return in_actions
    return not given.strip()


def is_maintainer(author: str, association: str | None, maintainers: frozenset[str]) -> bool:
    """Whether ``author`` is a maintainer (``maintainers``: :func:`maintainers_of` the base
    branch's configuration)."""
    return ((association or "").upper() in MAINTAINER_ASSOCIATIONS
            or author.lower() in maintainers)


def reserved_id_problem(sub_id: str, reference_ids: Container[str], author: str,
                        association: str | None, maintainers: frozenset[str]) -> str | None:
    """Why ``author`` may not add a submission ``sub_id`` (None: they may): the id of a
    declared reference model is kept for its runs, which `baselines run` writes (and
    would refuse to write into a folder holding another model's runs)."""
    if (sub_id not in reference_ids or is_maintainer(author, association, maintainers)
            or author == REPOSITORY_BOT):
        return None
    return (f"the id {sub_id!r} is a reference model's (reference_models/models.yaml), kept "
            "for the runs `leaderboard baselines run` makes of it: choose another id for "
            "your submission")


def ownership_problem(sub_id: str, base_owner: str | None, author: str,
                      association: str | None, maintainers: frozenset[str],
                      reference_ids: Container[str]) -> str | None:
    """Why ``author`` may not change the merged submission ``sub_id`` (None: they may).

    Only the owner recorded in the base branch's metadata.yaml, or a maintainer, may
    change a merged submission; a PR cannot make itself the owner or a maintainer, since
    both are read from the base branch, not from the PR. The repository's bot (the account
    baselines.yml opens its PRs as) may change the folders of the declared reference
    models (``reference_ids``), which it runs, and no other."""
    if is_maintainer(author, association, maintainers) or (
            author == REPOSITORY_BOT and sub_id in reference_ids):
        return None
    if base_owner is not None and base_owner.lower() == author.lower():
        return None
    whose = (f"belongs to @{base_owner} (owner: in its metadata.yaml on the base branch)"
             if base_owner else "records no owner")
    return (f"the submission {sub_id!r} is already merged and {whose}; only its owner or a "
            f"maintainer may change it, and this pull request is by @{author}. To report a "
            "problem with it, open an issue.")
