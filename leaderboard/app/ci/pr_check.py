"""`leaderboard ci pr-check`: everything a maintainer would check on a submission PR.

1. Diff the PR's head against its merge base; refuse a PR that is not exactly one
   submission folder (:mod:`leaderboard.app.ci.policy`).
2. Measure the folder at the head commit (kinds of file, sizes, layout) from git objects,
   then extract it into a temporary folder; nothing of the PR is executed or imported.
3. Validate and score it with the engine (:func:`leaderboard.submission.pipeline.check_submission`);
   run files its manifest lists instead of carrying are fetched from the run store or the
   submitter's dataset at a commit, and verified against the manifest first.
4. Compare every scored task with the leaders committed on the base branch.
5. Tell people: annotations on the offending file and line, a job summary, step outputs,
   and a report folder (``report.json``, ``comment.md``, ``pr-number``, the scored
   ``results.json``) that the workflow uploads for the comment job.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TextIO

import github_action_utils as gha

from leaderboard import __version__
from leaderboard.app.board_ids import reference_ids, taken_ids, taken_names
from leaderboard.app.ci.comment import comment_body, job_summary
from leaderboard.app.ci.standing import CommittedResults, load_committed, task_standings
from leaderboard.app.ci.git import (
    SHA_RE,
    Change,
    CommitNotFound,
    TreeEntry,
    changed_files,
    NoCommonHistory,
    extract,
    file_at,
    folder_names,
    merge_base,
    read_blobs,
    resolve_commit,
    tree_entries,
)
from leaderboard.app.ci.policy import (
    AUTHOR_UNKNOWN,
    CONFIG_FILE,
    NO_COMMON_HISTORY,
    check_derived,
    check_removal,
    check_tree,
    classify_changes,
    full_check_paths,
    is_maintainer,
    maintainers_of,
    ownership_problem,
    reserved_id_problem,
)
from leaderboard.app.ci.pr_report import (
    MAX_STORED_PROBLEMS,
    CiReport,
    Problem,
    SubmissionCheck,
    write_ci_report,
)
from leaderboard.app.model_facts import check_model_facts, submitted_row
from leaderboard.app.workflow_log import commands_stopped
from leaderboard.core.display import score_text
from leaderboard.core.fileio import atomic_write_text, gunzip_bounded
from leaderboard.core.measures import is_signed
from leaderboard.core.processes import remove_dead_temp_folders
from leaderboard.core.report import (SUMMARISE_WARNINGS_AFTER, Issue, Report, plural,
                                      summarise_kinds)
from leaderboard.publish.standings.verdicts import TIER_TEXT
from leaderboard.store.locations import configured_store, RunStore
from leaderboard.submission.explain_files import explanation_manifest
from leaderboard.submission.ids import id_problem, lookalike_problem
from leaderboard.submission.layout import (
    folder_path,
    MANIFEST_NAME,
    METADATA_NAME,
    RESULTS_NAME,
    RUNS_DIR,
    SUBMISSIONS_DIR,
    Writer,
    written_by,
)
from leaderboard.submission.manifest import report_copied_runs
from leaderboard.submission.metadata import owner_of
from leaderboard.submission.pipeline import (check_submission, report_name_lookalike,
                                             results_for)
from leaderboard.submission.results import (
    ModelInfo,
    SystemResult,
    as_pulled,
    committed_form,
    per_query_content,
    unverified_problems,
    write_committed,
)

Progress = Callable[[str], None]
# The check's work folder in the temporary directory: "followboard-pr-<pid>-XXXX".
PR_WORK_PREFIX = "followboard-pr-"
# The report in the report folder (--out): written last, so that one present is whole and
# the folder's comment.md and pr-number are its own; the comment job reads it alone.
REPORT_NAME = "report.json"
# Annotations: GitHub shows at most 10 errors and 10 warnings per step and 50 per job,
# so more would only be noise; the log lists everything.
MAX_ANNOTATIONS = 50
MAX_ANNOTATIONS_PER_FILE = 10
MAX_PROBLEMS_PER_FILE = 25


def _quiet(_: str) -> None:
    return None


@dataclass
class PrCheckRequest:
    repo: Path            # a clone with both commits (fetch-depth: 0)
    base: str             # the base branch commit the PR targets
    head: str             # the PR's head commit
    data_dir: Path
    pr_number: int | None = None
    seed: int = 0
    # The PR's author (GitHub login) and GitHub's author_association for them: changes
    # to a merged submission are accepted only from its owner or a maintainer. None: not
    # checked (a local run).
    pr_author: str | None = None
    author_association: str | None = None
    # The author was required but came empty (policy.author_unknown): the PR is refused.
    author_unknown: bool = False
    # Why a submission PR into its base branch is refused (policy.base_branch_problem):
    # it is not into the default branch, or the branches are not known.
    base_branch_problem: str | None = None
    # Where run files listed in a manifest are read (None: the repository's configured store).
    store: RunStore | None = None


def scorer_version() -> str:
    return f"followboard {__version__}"


def _problems(issues: list[Issue], sub_id: str) -> list[Problem]:
    """Errors first, then warnings, paths from the repository root, accounting for every
    finding: a kind of warning found in many files one line, as `validate` lists it
    (:func:`~leaderboard.core.report.summarise_kinds`); at most
    :data:`MAX_PROBLEMS_PER_FILE` of a file, then one line counting the rest of it; past
    :data:`MAX_STORED_PROBLEMS` in all, the last line, on the submission's folder, counts
    what did not fit. The comment and the log then say "more" only of what they cut
    themselves."""
    listed: list[tuple[Problem, int]] = []  # each with how many findings it stands for
    for severity in ("error", "warning"):
        shown, summaries = summarise_kinds([i for i in issues if i.severity == severity],
                                           SUMMARISE_WARNINGS_AFTER)
        listed += [(Problem(path=f"{SUBMISSIONS_DIR}/{i.path}"[:2000],
                            line=i.line if i.line else None, message=i.message[:2000],
                            severity=severity), i.count) for i in summaries]
        per_file: dict[str, list[Issue]] = {}
        for issue in shown:
            per_file.setdefault(issue.path, []).append(issue)
        for path, found in per_file.items():
            where = f"{SUBMISSIONS_DIR}/{path}"[:2000]
            listed += [(Problem(path=where, line=i.line if i.line else None,
                                message=i.message[:2000], severity=severity), i.count)
                       for i in found[:MAX_PROBLEMS_PER_FILE]]
            rest = sum(i.count for i in found[MAX_PROBLEMS_PER_FILE:])
            if rest:
                message = f"… and {plural(rest, 'more ' + severity)} of this file"
                listed.append((Problem(path=where, message=message, severity=severity), rest))
    if len(listed) <= MAX_STORED_PROBLEMS:
        return [problem for problem, _ in listed]
    cut = listed[MAX_STORED_PROBLEMS - 1:]
    counted = {severity: sum(n for problem, n in cut if problem.severity == severity)
               for severity in ("error", "warning")}
    said = ", ".join(plural(n, severity) for severity, n in counted.items() if n)
    last = Problem(path=f"{SUBMISSIONS_DIR}/{sub_id}",
                   severity="error" if counted["error"] else "warning",
                   message=f"… and {plural(sum(counted.values()), 'more finding')}: {said}")
    return [problem for problem, _ in listed[:MAX_STORED_PROBLEMS - 1]] + [last]


def _produced_by(blob: bytes) -> dict[str, str]:
    """The ``produced_by`` of a results.json's bytes, as far as they hold one (nothing of
    a file that is no such JSON: it differs from the scorer's anyway)."""
    try:
        obj = json.loads(blob)
    except ValueError:
        return {}
    produced = obj.get("produced_by") if isinstance(obj, dict) else None
    if not isinstance(produced, dict):
        return {}
    return {k: v for k, v in produced.items() if isinstance(k, str) and isinstance(v, str)}


def _check_results_json(entries: list[TreeEntry], touched: list[str], sub_id: str,
                        expected: tuple[str, bytes] | None, report: Report, repo: Path) -> str:
    """A results.json the PR carries must be byte-identical to the scorer's output, and a
    per-query.json.gz must hold exactly the scorer's per-query scores (its gzip bytes may
    differ by the zlib that wrote them; results.json names it by its content).

    One that records a task's data as not verified by a pull (or of an unknown revision)
    is refused, saying why, wherever the check runs: CI scores on pulled data and records
    its revision alone, so such a file is never CI's, and a check on data no pull verified
    (which writes those notes itself) compares it with the notes set aside
    (``expected``'s text is then :func:`leaderboard.submission.results.as_pulled`'s)."""
    state = "absent"
    for name in (e.name for e in written_by(Writer.SCORER)):
        path = folder_path(sub_id, name)
        entry = next((e for e in entries if e.path == path), None)
        # Not in the PR, deleted by it (the scorer writes a fresh one after merge), or not
        # scored (invalid: the errors say why).
        if path not in touched or entry is None or expected is None:
            continue
        (blob,) = read_blobs(repo, [entry.sha])
        if name == RESULTS_NAME:  # JSON, byte for byte; the per-query file by content
            refused = unverified_problems(_produced_by(blob), f"{SUBMISSIONS_DIR}/{sub_id}")
            for problem in refused:
                report.add(f"{sub_id}/{name}", None, problem)
            if refused:
                state = "differs"
                continue
            same = blob == expected[0].encode("utf-8")
        else:
            # Inflated no further than the scorer's content and a byte: a few MiB of
            # gzip inflate to tens of GiB (unreadable gzip is None: it differs too).
            same = gunzip_bounded(blob, len(expected[1]), path, Report()) == expected[1]
        if same:
            state = "matches" if state != "differs" else state
            continue
        report.add(f"{sub_id}/{name}", None,
                   f"{name} differs from what the scorer computes from these runs; delete "
                   "it from the pull request (CI writes it after merge) or regenerate it with "
                   "`leaderboard score` at the base branch's version")
        state = "differs"
    return state


def check_one_submission(req: PrCheckRequest, head: str, base: str, sub_id: str,
                         touched: list[str], committed: CommittedResults, work: Path,
                         out_dir: Path | None, progress: Progress,
                         deleted: list[str] | None = None) -> SubmissionCheck:
    prefix = f"{SUBMISSIONS_DIR}/{sub_id}"
    entries = tree_entries(req.repo, head, prefix)
    report = Report()
    readable = check_tree(sub_id, entries, report)
    base_entries = tree_entries(req.repo, base, prefix)
    updates_existing = bool(base_entries)
    check_derived(sub_id, touched + (deleted or []), report, merged=updates_existing)
    config = file_at(req.repo, base, CONFIG_FILE)
    maintainers = maintainers_of(None if config is None else config.decode("utf-8", "replace"),
                                 f"{CONFIG_FILE} at the base commit {base[:12]}")
    if updates_existing and req.pr_author is not None:
        meta_entry = next((e for e in base_entries
                           if e.path == f"{prefix}/{METADATA_NAME}" and not e.is_symlink), None)
        base_owner = None
        if meta_entry is not None:
            (blob,) = read_blobs(req.repo, [meta_entry.sha])
            base_owner = owner_of(blob.decode("utf-8", "replace"))
        problem = ownership_problem(sub_id, base_owner, req.pr_author, req.author_association,
                                    maintainers, reference_ids())
        if problem:
            report.add(f"{sub_id}/{METADATA_NAME}", None, problem)
    elif req.pr_author is not None:
        problem = reserved_id_problem(sub_id, reference_ids(), req.pr_author,
                                      req.author_association, maintainers)
        if problem:
            report.add(f"{sub_id}/{METADATA_NAME}", None, problem)
    if not updates_existing:
        # Whoever adds it: no submission may pass for another.
        taken = taken_ids({name: "a submission on the base branch"
                           for name in folder_names(req.repo, base, SUBMISSIONS_DIR)
                           if id_problem(name) is None})
        if problem := lookalike_problem(sub_id, taken):
            report.add(f"{sub_id}/{METADATA_NAME}", None, problem)
    model_name = None
    standings = []
    results_state = "absent"
    if readable:
        # Only the submitter's files are read. The scorer's own results.json and per-query
        # file are compared below, never read; CI's are no part of a PR; stray files at the
        # top were reported by check_tree.
        submitted = written_by(Writer.SUBMITTER)
        to_extract = [e for e in entries
                      if any(s.holds(e.path[len(prefix) + 1:]) for s in submitted)]
        extract(req.repo, to_extract, SUBMISSIONS_DIR, work)
        root = work / sub_id
        root.mkdir(exist_ok=True)
        # Run files the PR lists in its manifest instead of carrying them come from the run
        # store or the submitter's dataset, verified; a carried file must match its entry.
        # Explained too: the results.json a PR may carry, and the one publishing writes,
        # names the explanation files' manifest; and a run the explorer cannot explain
        # is found before the merge rather than by the publish job.
        # Only the data the registry pins: the standing and the scores the comment shows
        # are the board's.
        outcome = check_submission(root, req.data_dir, score=True, explain=True,
                                   progress=progress,
                                   store=req.store or configured_store(req.repo),
                                   record_local=False, pinned_data=True,
                                   shown=Path(SUBMISSIONS_DIR, sub_id), name_data_dir=False)
        # Said first: a submission's own warnings, as many as there are, cannot hide it.
        unverified = sorted({str(revision.folder) for revision in outcome.data_revisions.values()
                             if not revision.verified})
        if unverified:
            carried = (f"; the {RESULTS_NAME} the pull request carries is held to what "
                       "the scorer records on pulled data, as CI holds it (with no note that "
                       "the files were not verified)"
                       if folder_path(sub_id, RESULTS_NAME) in touched else "")
            report.add(sub_id, None,
                       f"the check ran on data that no `leaderboard data pull` verified "
                       f"({', '.join(unverified)}), while CI scores on the data it "
                       f"pulls{carried}", "warning")
        report.extend(outcome.report)
        report_copied_runs(sub_id, outcome.submission.inputs, committed.run_digests, report)
        meta = outcome.submission.metadata
        model_name = meta.model.name if meta is not None else None
        if meta is not None:
            check_model_name(root, sub_id, meta.model.name, committed, report)
            check_model_facts(root, sub_id, meta.model, board_rows(committed, sub_id), report)
        if (meta is not None and meta.owner and not updates_existing
                and req.pr_author is not None
                and not is_maintainer(req.pr_author, req.author_association, maintainers)
                and meta.owner.lower() != req.pr_author.lower()):
            report.add(f"{sub_id}/{METADATA_NAME}", None,
                       f"owner: {meta.owner!r} must be your own GitHub login "
                       f"({req.pr_author!r}, the author of this pull request)")
        if outcome.report.ok and not outcome.submission.files:
            report.add(f"{sub_id}/{RUNS_DIR}", None, "no run files: add runs/<task id>/<role>.trec.gz, "
                                               f"or list them in {MANIFEST_NAME}")
        expected = None
        if report.ok and meta is not None and outcome.scores:
            results = results_for(outcome)
            content = per_query_content(results, outcome.per_query_json)
            explained = explanation_manifest(sub_id, outcome.explanations,
                                             results.inputs_sha256 or {})
            expected = (committed_form(results, content, explained), content)
            standings = task_standings(
                [task for task in outcome.submission.tasks() if task.id in outcome.scores],
                results.systems[0], committed, seed=req.seed, progress=progress)
            if out_dir is not None:
                folder = out_dir / "results" / sub_id
                folder.mkdir(parents=True, exist_ok=True)
                write_committed(folder, *expected)  # what the scorer writes of the PR
            if unverified:
                # CI's data is pulled: a results.json is compared with what it records.
                expected = (committed_form(as_pulled(results), content, explained), content)
        results_state = _check_results_json(entries, touched, sub_id, expected, report,
                                            req.repo)
    return SubmissionCheck(
        id=sub_id, model_name=model_name, updates_existing=updates_existing,
        valid=report.ok, n_errors=report.n_errors, n_warnings=report.n_warnings,
        problems=_problems(report.issues, sub_id), tasks=standings if report.ok else [],
        results_json=results_state)  # type: ignore[arg-type]


def check_model_name(root: Path, sub_id: str, name: str, committed: CommittedResults,
                     report: Report) -> None:
    """Whoever adds it, a submission's model name, new or changed, may not pass for
    another's (:func:`leaderboard.submission.ids.name_lookalike_problem`): a reference
    model's, one of the model registry's, or a name the base branch's board shows (a
    merged submission's, scored or not yet, a reported row's). A merged submission keeping
    its name is not checked again."""
    merged = merged_models(committed)
    own = merged.get(sub_id)
    if own is not None and own.name == name:
        return
    shown = {model.name: f"the name of the submission {system_id} on the base branch"
             for system_id, model in merged.items() if system_id != sub_id}
    for system in committed.reported:
        shown.setdefault(system.model.name,
                         f"the name of the reported row {system.system_id} on the base branch")
    report_name_lookalike(root, sub_id, name, taken_names(shown), report)


def merged_models(committed: CommittedResults) -> dict[str, ModelInfo]:
    """The model of every merged submission at the base commit, by id in order: a scored
    one's from its results.json, one not yet scored from its metadata.yaml."""
    models = {sid: system.model for sid, system in committed.verified.items()}
    models.update(committed.unscored)
    return dict(sorted(models.items()))


def board_rows(committed: CommittedResults, sub_id: str) -> list[tuple[SystemResult, str]]:
    """The base branch's rows but submission ``sub_id``'s own (a merged submission's
    earlier version), each with whose it is, for
    :func:`leaderboard.app.model_facts.check_model_facts`: a merged submission not yet
    scored as its metadata.yaml states its model."""
    rows = [(committed.verified.get(system_id) or submitted_row(system_id, model),
             f"the submission {system_id} on the base branch")
            for system_id, model in merged_models(committed).items() if system_id != sub_id]
    return rows + [(system, f"the reported row {system.system_id} on the base branch")
                   for system in committed.reported]


def pr_changes(repo: Path, base: str, head: str) -> tuple[str, list[Change]]:
    """Where the PR's branch left the base branch, and the files the PR changes from
    there (its diff, as GitHub shows it); :class:`NoCommonHistory` when it did not."""
    fork_point = merge_base(repo, base, head)
    return fork_point, changed_files(repo, fork_point, head)


@dataclass(frozen=True)
class CheckScope:
    """Whether a PR gets the whole check, and the files that decide it (none: the check
    needs no benchmark data, and reports the PR as no submission)."""

    full: bool
    paths: list[str]
    why: str


def check_scope(repo: Path, base: str, head: str) -> CheckScope:
    """What `pr-check` of ``head`` against ``base`` needs, from the same diff it reads
    (:func:`pr_changes`): the whole check for a PR that changes a submission or anything
    the check depends on (:func:`~leaderboard.app.ci.policy.full_check_paths`), and for
    one whose diff cannot be told."""
    base, head = resolve_commit(repo, base), resolve_commit(repo, head)
    try:
        _, changes = pr_changes(repo, base, head)
    except NoCommonHistory:
        return CheckScope(True, [], "its branch shares no history with the base branch")
    paths = full_check_paths(changes)
    if paths:
        more = f" and {plural(len(paths) - 1, 'more file')}" if len(paths) > 1 else ""
        return CheckScope(True, paths, f"it changes {paths[0]}{more}")
    return CheckScope(False, [], f"it changes {plural(len(changes), 'file')}, none under "
                                 "submissions/ nor one the check depends on")


def run_pr_check(req: PrCheckRequest, out_dir: Path | None = None,
                 progress: Progress = _quiet) -> CiReport:
    """Check a PR from git objects; writes only under ``out_dir`` (and a temporary folder)."""
    base = resolve_commit(req.repo, req.base)
    head = resolve_commit(req.repo, req.head)
    try:
        fork_point, changes = pr_changes(req.repo, base, head)
    except NoCommonHistory:
        return CiReport(status="refused", pr_number=req.pr_number, base_sha=base,
                        head_sha=head, scorer=scorer_version(), refusals=[NO_COMMON_HISTORY])
    scope = classify_changes(changes, merged=folder_names(req.repo, base, SUBMISSIONS_DIR))
    if scope.ok:
        sub_id = scope.submission_ids[0]
        check_removal(scope, sub_id, tree_entries(req.repo, head, f"{SUBMISSIONS_DIR}/{sub_id}"))
    common = dict(pr_number=req.pr_number, base_sha=base, head_sha=head, merge_base=fork_point,
                  scorer=scorer_version())
    if not scope.changes_submissions:  # no submission PR: nothing to check, nor refuse
        return CiReport(status="none", **common)
    if req.author_unknown:  # fail closed: no ownership check is skipped
        return CiReport(status="refused", refusals=[AUTHOR_UNKNOWN], **common)
    if req.base_branch_problem and scope.changes_submissions:
        return CiReport(status="refused", refusals=[req.base_branch_problem, *scope.refusals],
                        refused_paths=scope.refused_paths[:MAX_STORED_PROBLEMS], **common)
    if not scope.ok:
        return CiReport(status="refused", refusals=scope.refusals,
                        refused_paths=scope.refused_paths[:MAX_STORED_PROBLEMS], **common)
    committed = load_committed(req.repo, base, req.store)
    # Named after this process: one killed (its runs extracted, up to 55 MB) is removed by
    # the next check, which nothing did before.
    remove_dead_temp_folders(PR_WORK_PREFIX)
    with tempfile.TemporaryDirectory(prefix=f"{PR_WORK_PREFIX}{os.getpid()}-") as tmp:
        check = check_one_submission(req, head, base, sub_id,
                                     scope.touched.get(sub_id, []), committed, Path(tmp),
                                     out_dir, progress, scope.deleted.get(sub_id, []))
    return CiReport(status="valid" if check.valid else "invalid", submissions=[check],
                    comparison_notes=committed.problems[:50], **common)


def error_report(req: PrCheckRequest, exc: BaseException | str) -> CiReport:
    """A report for a check that failed itself, so the PR still gets a comment saying so:
    the exception that stopped it (its type named), or the reason a workflow step gives
    (``ci error-report --reason``) as it is given."""
    def sha(rev: str) -> str:
        rev = rev.strip()
        if SHA_RE.fullmatch(rev.lower()):
            return rev.lower()
        try:
            return resolve_commit(req.repo, rev)  # a name as given: git's are case-sensitive
        except Exception:  # noqa: BLE001 - the report must be written whatever failed
            return "0" * 40
    text = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
    message = " ".join(text.split())[:1000]
    return CiReport(status="error", pr_number=req.pr_number, base_sha=sha(req.base),
                    head_sha=sha(req.head), scorer=scorer_version(), internal_error=message)


def require_commits(req: PrCheckRequest) -> None:
    """Refuse, before any check runs, a request whose repository or commits are not
    there: a :class:`CommitNotFound` (exit 2) naming what the command needs, rather than
    an "internal error" report of a check that never started. (In the workflow the
    error-report step then writes the report the comment job posts.)"""
    for rev, what, option, variable in ((req.base, "the base commit", "--base", "$BASE_SHA"),
                                        (req.head, "the head commit", "--head", "$HEAD_SHA")):
        try:
            resolve_commit(req.repo, rev)
        except CommitNotFound as exc:
            if exc.no_repository:
                raise CommitNotFound(
                    f"{req.repo.absolute()} is not a git repository: pr-check reads the pull "
                    "request from git objects, so it runs in a git checkout (--repo, default "
                    "the current folder) that holds the base commit (--base; $BASE_SHA in "
                    "the workflow) and the head commit (--head; $HEAD_SHA)",
                    no_repository=True) from None
            raise CommitNotFound(
                f"{what} {rev!r} ({option}; {variable} in the workflow) is not in the git "
                f"repository at {req.repo.absolute()}: fetch it (in Actions, check out with "
                "fetch-depth: 0)") from None


def run_pr_check_safely(req: PrCheckRequest, out_dir: Path | None = None,
                        progress: Progress = _quiet) -> CiReport:
    """:func:`run_pr_check`, turning any failure of the check itself into an error report.
    An earlier check's report in ``out_dir`` is removed before anything is written there:
    left until this check's replaced it, a check killed meanwhile left it beside its own
    comment.md, pr-number and results, and `ci error-report` kept it as this check's."""
    try:
        if out_dir is not None:
            (out_dir / REPORT_NAME).unlink(missing_ok=True)
        return run_pr_check(req, out_dir, progress)
    except Exception as exc:  # noqa: BLE001 - every failure must still reach the PR
        with commands_stopped(sys.stderr):  # the message may quote the pull request
            print(f"pr-check: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return error_report(req, exc)


# --------------------------------------------------------------------------- reporting

def _safe_line(text: str) -> str:
    return " ".join(text.split())


def emit_annotations(report: CiReport) -> int:
    """``::error file=...,line=...::message`` for the first problems; returns how many."""
    count = 0
    if report.internal_error:
        gha.error(report.internal_error, title="The check failed (internal error)")
        count += 1
    for reason in report.refusals:
        gha.error(reason, title="Pull request refused")
        count += 1
    for path in report.refused_paths[:MAX_ANNOTATIONS_PER_FILE]:
        gha.error("not allowed in a submission pull request", title="Refused", file=path)
        count += 1
    for sub in report.submissions:
        per_file: dict[str, int] = {}
        for p in sub.problems:
            per_file[p.path] = per_file.get(p.path, 0) + 1
            if count >= MAX_ANNOTATIONS or per_file[p.path] > MAX_ANNOTATIONS_PER_FILE:
                continue
            emit = gha.error if p.severity == "error" else gha.warning
            emit(p.message, file=p.path, line=p.line)
            count += 1
    return count


def print_log(report: CiReport, stream: TextIO | None = None) -> None:
    """A plain listing for the job log. Inside Actions, workflow commands are suspended
    while it prints, so text quoted from a run file cannot act as a command."""
    with commands_stopped(stream) as stream:
        if report.internal_error:
            print(f"internal error: {_safe_line(report.internal_error)}", file=stream)
        for reason in report.refusals:
            print(f"refused: {_safe_line(reason)}", file=stream)
        for sub in report.submissions:
            for p in sub.problems:
                where = f"{p.path}:{p.line}" if p.line else p.path
                kind = "" if p.severity == "error" else "warning: "
                print(_safe_line(f"{where}: {kind}{p.message}"), file=stream)
            for t in sub.tasks:
                score = ("n/a" if t.primary is None
                         else score_text(t.primary, is_signed(t.primary_metric)))
                print(_safe_line(f"{sub.id} {t.task}: {t.primary_metric} {score}, "
                                 f"{TIER_TEXT[t.tier] if t.tier else 'not tested'}"), file=stream)
    ids = (", ".join(s.id for s in report.submissions)
           or ("no submission changed" if report.status == "none" else "-"))
    print(f"pr-check: {report.status} ({ids})", file=stream)


def write_outputs(report: CiReport, out_dir: Path | None) -> None:
    """Report folder, step outputs and job summary (each only where it is configured)."""
    comment = comment_body(report)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        # Each file whole (a kill while writing left an empty comment.md beside the new
        # report), the report last: a report present means its comment and number are
        # those of the same check (`ci error-report` keeps a report it finds).
        atomic_write_text(out_dir / "comment.md", comment)
        atomic_write_text(out_dir / "pr-number",
                          f"{report.pr_number}\n" if report.pr_number is not None else "")
        write_ci_report(out_dir / REPORT_NAME, report)
    if os.environ.get("GITHUB_OUTPUT"):
        gha.set_output("status", report.status)
        gha.set_output("valid", "true" if report.status == "valid" else "false")
        gha.set_output("submission", ",".join(s.id for s in report.submissions))
        gha.set_output("pr-number", "" if report.pr_number is None else str(report.pr_number))
        if out_dir is not None:
            gha.set_output("report-dir", str(out_dir))
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        gha.append_job_summary(job_summary(report))
