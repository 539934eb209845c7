"""Validate and score whole submissions: the work behind `validate`, `score` and CI.

Each task is checked and scored as `leaderboard eval` checks and scores one
(:mod:`leaderboard.core.evaluate`). Validation never writes anything. Scoring validates
first and writes ``submissions/<id>/results.json`` atomically, only when every file is
valid, so a failed run never leaves a half-updated results file behind.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from leaderboard import __version__
from leaderboard.benchmarks.registry import UnknownTaskError, get_task
from leaderboard.core.config import data_dir_option
from leaderboard.core.data import DataFormatError, data_files
from leaderboard.core.data.revision import (
    DataRevision,
    DataRevisionError,
    data_revision,
    recorded_note,
    unlisted_text,
)
from leaderboard.core.evaluate import Progress, quiet
from leaderboard.core.report import Report, plural
from leaderboard.core.scoring import ScoreSheet
from leaderboard.core.tasks import Task
from leaderboard.store.cache import cache_dir
from leaderboard.store.files import StoreError
from leaderboard.store.locations import RunStore, configured_store
from leaderboard.submission.explain_files import (MANIFEST, TaskFiles, explain_problem,
                                                  explanation_manifest)
from leaderboard.submission.explain_writers import (ExplanationFolder, HeldExplanations,
                                                    KeptExplanations, Placement,
                                                    held_explanations, merged_files,
                                                    placement, remove_foreign)
from leaderboard.submission.files import SubmissionFiles
from leaderboard.submission.ids import (id_problem, lookalike_problem,
                                         name_lookalike_problem)
from leaderboard.submission.folder import (Submission, collect_inputs, discover,
                                           reported_not_a_submission)
from leaderboard.submission.kept import Trial
from leaderboard.submission.layout import (CI_FILES, EXPLAIN_DIR, KEPT_NAME, MANIFEST_NAME,
                                           MAX_MANIFEST_BYTES, METADATA_NAME, RESULTS_NAME, REWRITTEN_AFTER_MERGE, entry,
                                           in_folder, score_command)
from leaderboard.submission.manifest import (input_digests, report_copied_runs, run_digests,
                                             write_manifest)
from leaderboard.submission.metadata import (SubmittedModel, key_line, model_name_of,
                                             model_of)
from leaderboard.submission.transaction import ChangeError, FolderChange, change_folder
from leaderboard.submission.task_checks import CheckOptions, TaskJob, TaskResult, checked_tasks
from leaderboard.submission.results import (DATA_KEY, OWN_DATA_DIR, ExplainManifestFile,
                                            ResultsFile,
                                            ResultsFileError, Source, as_pulled,
                                            benchmark_of, unverified_problems,
                                            SystemResult, compare_scores, off_pin_problems,
                                            read_results, rewritten_line, stale_inputs,
                                            write_submission_results)


@dataclass
class SubmissionOutcome:
    submission: Submission
    report: Report
    scores: dict[str, ScoreSheet] = field(default_factory=dict)
    # Each scored task's part of the per-query file, where its worker wrote it
    # (results.per_query_content uses them when every task has one).
    per_query_json: dict[str, str] = field(default_factory=dict)
    results_path: Path | None = None
    # The explorer's files of each scored task (when asked for), and the folder they were
    # written to (None: not written, or kept in the run store's cache).
    explanations: list[TaskFiles] = field(default_factory=list)
    explain_path: Path | None = None
    # The revision of each task's data that its scores are computed on (results.json
    # records it).
    data_revisions: dict[str, DataRevision] = field(default_factory=dict)
    # Whether results.json was compared with the scores computed from the runs.
    checked_scores: bool = False
    # Without ``score``: whether the default branch holds the submission
    # (:func:`leaderboard.submission.explain_writers.placement`); None with ``score``.
    merged: bool | None = None
    # Tasks left unchecked because their data could not be loaded (each an error of the
    # report): the runs of these were not found wrong, only not read.
    unchecked: list[str] = field(default_factory=list)


def check_submission(root: Path, data_dir: Path, *, score: bool, explain: bool = False,
                     compress: bool = False,
                     on_explained: Callable[[TaskFiles], None] | None = None,
                     progress: Progress = quiet, check_scores: bool = False,
                     store: RunStore | None = None, record_local: bool | None = None,
                     pinned_data: bool = False, shown: Path | None = None,
                     name_data_dir: bool = True,
                     taken_ids: Mapping[str, str] | None = None,
                     taken_names: Mapping[str, str] | None = None) -> SubmissionOutcome:
    """Validate every file of a submission and, when asked and all is valid, score it;
    ``explain`` also explains each scored task from the runs just parsed
    (:mod:`leaderboard.submission.explain_files`), so they are never parsed twice.
    ``on_explained`` is given each valid task's explanation files as soon as they are
    computed, in whatever order (:func:`leaderboard.submission.task_checks.checked_tasks`),
    also when another task then turns out invalid: the caller keeps them only if the
    whole submission is valid (``outcome.explanations``, in task order).

    Without ``score`` (`validate`), a results.json that no longer matches the files is
    reported, and the submission is scored and its results.json compared with what the
    scorer computes (as `ci pr-check` compares a PR's), so a hand-edited score is found
    even when the recorded SHA-256 of the runs was kept: for a submission not merged yet
    (:func:`leaderboard.submission.explain_writers.placement`), whose pull request carries
    its results.json, and with ``check_scores`` for a merged one too. Of one not merged
    yet, the explanation manifest results.json names is computed and compared too, as
    `ci pr-check` does, not looked for: a submitter's `score` kept the files in its own
    machine's run store cache, which no other machine has (a maintainer validating a pull
    request's checkout), and they are CI's to write after the merge.

    Run files the folder does not hold are fetched from the run store (``store``, by
    default the configured one) and verified against the manifest. ``record_local``
    (default: ``score``) lets files in the folder differ from the manifest, which
    scoring then rewrites; otherwise that is an error (see
    :func:`leaderboard.submission.folder.collect_inputs`).

    Data pulled at another revision than the registry pins is scored with a warning, and
    recorded as what it is; with ``pinned_data`` (CI, whose scores the board shows) it
    raises :class:`DataRevisionError` before any task is checked.

    A message that says to score the folder again names it as ``shown`` (default
    ``root``, the path its command was given; CI's check, which reads a work copy, names
    ``submissions/<id>``), and with ``name_data_dir`` the data folder read here
    (``--data-dir DATA_DIR``: scored on another, the scores are computed on other data);
    CI's check names none, its data folder being the runner's, not the reader's.

    Without ``score``, the id of a submission not merged yet may not look like another's
    (:func:`leaderboard.submission.ids.lookalike_problem`): one of ``taken_ids`` (id:
    whose, the reference models' from `validate`) or of the folders beside it; nor its
    model's name (:func:`leaderboard.submission.ids.name_lookalike_problem`) one of
    ``taken_names`` (name: whose) or of the submissions beside it."""
    report = Report()
    shown = shown or root
    shown_data = data_dir if name_data_dir else None
    submission = discover(root, report, store=store,
                          record_local=score if record_local is None else record_local,
                          shown=shown, shown_data=shown_data)
    outcome = SubmissionOutcome(submission, report)
    placed: Placement | None = None
    if not score:
        # The user's folder as it is (`validate` reads it so): merged, and where CI's
        # explanation files for it belong, as one rule tells both.
        placed = placement(SubmissionFiles(submission.id, root, submission.inputs.source,
                                           store if store is not None
                                           else configured_store(root)))
        outcome.merged = placed.merged
        check_scores = check_scores or (not placed.merged
                                        and (root / RESULTS_NAME).is_file())
        if not placed.merged and (problem := lookalike_problem(
                submission.id, {**(taken_ids or {}), **submissions_beside(root)})):
            report.add(f"{submission.id}/{METADATA_NAME}", None, problem)
        if not placed.merged and submission.metadata is not None:
            report_name_lookalike(root, submission.id, submission.metadata.model.name,
                                  {**(taken_names or {}), **names_beside(root)}, report)
        if not placed.merged:
            report_copied_runs(submission.id, submission.inputs, merged_run_digests(root),
                               report)
    # Of a submission not merged yet, results.json names the explanation files as CI
    # computes them, which no pull request carries: explained, and compared (below).
    explained = placed is not None and not placed.merged and check_scores
    display_root = root.parent
    # discover() reported each missing role of a task: such a task cannot be checked.
    jobs = [TaskJob(task, submission.files[task.id], submission.names.get(task.id),
                    display_root) for task in submission.tasks()
            if all(role in submission.files[task.id] for role in task.roles)]
    outcome.data_revisions = data_revisions([job.task for job in jobs], data_dir, report,
                                            pinned=pinned_data)
    options = CheckOptions(data_dir, score=score or check_scores, explain=explain or explained,
                           compress=explain and compress, per_query=score)
    def arrived(result: TaskResult) -> None:
        if on_explained is not None and result.files is not None and result.report.ok:
            on_explained(result.files)

    for i, result in enumerate(checked_tasks(jobs, options, arrived), 1):
        progress(f"[{i}/{len(jobs)}] {submission.id}: {result.task_id}")
        if result.data_error is not None:
            report.add(f"{submission.id}/runs/{result.task_id}", None, result.data_error)
            outcome.unchecked.append(result.task_id)
            continue
        report.extend(result.report)
        # Scores count only while every task so far is valid: nothing is written otherwise.
        if result.sheet is not None and report.ok:
            outcome.scores[result.task_id] = result.sheet
            if result.per_query_json is not None:
                outcome.per_query_json[result.task_id] = result.per_query_json
            if result.files is not None:
                outcome.explanations.append(result.files)
    if placed is not None:
        # What `score` removes from explain/, or cannot put back, as pr-check refuses it.
        report_held_explanations(held_explanations(root, apart=placed.apart), submission.id,
                                 report, shown, shown_data)
        # `score` rewrites results.json anyway; `validate` says when it is out of date.
        # The explanation files are checked as files only where they are a merged
        # submission's, CI's, which only the publish run writes into its folder or store;
        # those of one not merged yet are computed (check_recorded_scores).
        # Unless the folder's files were not read: their count is the problem (reported).
        for problem in [] if submission.over_limit else results_staleness(
                root, store, shown_data, explain_files=placed.merged):
            if problem.startswith(f"{EXPLAIN_DIR}/"):
                report.add(f"{submission.id}/{EXPLAIN_DIR}", None,
                           f"{problem}; {REWRITTEN_AFTER_MERGE}")
                continue
            report.add(f"{submission.id}/results.json", None,
                       f"{problem}: the scores are stale; run "
                       f"{score_command(shown, shown_data)}")
        line = rewritten_line(root / RESULTS_NAME)
        if line is not None:
            report.add(f"{submission.id}/{RESULTS_NAME}", line,
                       "not as the scorer writes it from this line on (reformatted or "
                       "edited by hand), while `ci pr-check` compares it byte for byte; run "
                       f"{score_command(shown, shown_data)} to write it again")
        if check_scores and report.ok:
            check_recorded_scores(outcome, shown, shown_data, merged=placed.merged,
                                  explained=explained)
    return outcome


def submissions_beside(root: Path) -> dict[str, str]:
    """The submissions in the folder that holds ``root`` (folders named by an id), each
    with whose it is, as :func:`leaderboard.submission.ids.lookalike_problem` names it."""
    try:
        with os.scandir(root.parent) as entries:
            names = [e.name for e in entries if e.is_dir(follow_symlinks=False)
                     and e.name != root.name and id_problem(e.name) is None]
    except OSError:
        return {}
    return dict.fromkeys(names, f"a submission beside it in {root.parent}")


def _metadata_beside(root: Path) -> Iterator[tuple[str, str]]:
    """The id and metadata.yaml text of each submission :func:`submissions_beside` names
    whose metadata.yaml is a plain UTF-8 file, by id."""
    for sub_id in sorted(submissions_beside(root)):
        path = root.parent / sub_id / METADATA_NAME
        try:
            if path.is_symlink() or not path.is_file():
                continue
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        yield sub_id, text


def merged_run_digests(root: Path) -> dict[str, dict[str, str]]:
    """Submission id -> {run path: SHA-256} of each merged submission, as its manifest.txt
    lists its run files (:func:`leaderboard.submission.manifest.run_digests`): what a new
    submission ``root``'s runs are compared with, as `ci pr-check` compares a pull
    request's with its base branch's. In a git checkout, the submissions the default
    branch holds (:func:`leaderboard.submission.explain_writers.merged_files`), the branch
    a pull request goes to and placement reads: never the folders beside ``root``, where
    a submitter's other submissions not merged yet (a twin of this one) may sit. Outside
    one, the folders beside it (:func:`submissions_beside`): all a folder tells."""
    manifests = merged_files(root, MANIFEST_NAME)
    if manifests is None:
        manifests = {}
        for sub_id in submissions_beside(root):
            path = root.parent / sub_id / MANIFEST_NAME
            try:
                if path.is_symlink() or not path.is_file():
                    continue
                with path.open("rb") as stream:  # one over the limit: refused, not read
                    manifests[sub_id] = stream.read(MAX_MANIFEST_BYTES + 1)
            except OSError:
                continue
    return run_digests(manifests)


def names_beside(root: Path) -> dict[str, str]:
    """The model names of the submissions in the folder that holds ``root`` (each
    :func:`submissions_beside` names, whose metadata.yaml gives one), each with whose it
    is, as :func:`leaderboard.submission.ids.name_lookalike_problem` names it."""
    names: dict[str, str] = {}
    for sub_id, text in _metadata_beside(root):
        if (name := model_name_of(text)) is not None:
            names.setdefault(name, f"the name of the submission {sub_id} beside it in "
                                   f"{root.parent}")
    return names


def models_beside(root: Path) -> dict[str, SubmittedModel]:
    """The models of the submissions in the folder that holds ``root`` (each
    :func:`submissions_beside` names, whose metadata.yaml gives a valid one), by id."""
    return {sub_id: model for sub_id, text in _metadata_beside(root)
            if (model := model_of(text)) is not None}


def report_name_lookalike(root: Path, sub_id: str, name: str, taken: Mapping[str, str],
                          report: Report) -> None:
    """Report, at its line of ``root``'s metadata.yaml, a model name that may not be a new
    one for looking like one of ``taken`` (name: whose)
    (:func:`leaderboard.submission.ids.name_lookalike_problem`)."""
    if problem := name_lookalike_problem(name, taken):
        report.add(f"{sub_id}/{METADATA_NAME}", key_line(root / METADATA_NAME,
                                                         ("model", "name")), problem)


def report_held_explanations(held: HeldExplanations, sub_id: str, report: Report,
                             shown: Path, shown_data: Path | None = None, *,
                             removed: bool = False) -> None:
    """Report what the folder holds under explain/ that CI did not write there for it
    (:func:`leaderboard.submission.explain_writers.held_explanations`), which a pull
    request may not carry, as `ci pr-check` refuses it: the foreign files and each
    altered one as errors; or, once a submitter's scoring has ``removed`` the foreign
    ones, a warning saying so (and nothing of the altered, reported before it wrote)."""
    if held.foreign:
        listed = ", ".join(held.foreign[:5]) + (f" and {len(held.foreign) - 5} more"
                                                if len(held.foreign) > 5 else "")
        what = (f"{plural(len(held.foreign), 'file')} under {EXPLAIN_DIR}/ that CI did not "
                f"write for {sub_id}, {held.why} ({listed}): {CI_FILES}")
        report.add(f"{sub_id}/{EXPLAIN_DIR}", None,
                   f"removed {what}" if removed
                   else f"{what}; {score_command(shown, shown_data)} removes them",
                   "warning" if removed else "error")
    if removed:
        return
    for path, problem in held.altered:
        report.add(f"{sub_id}/{path}", None,
                   f"{problem}: {CI_FILES}; put back the file CI wrote (as the base branch "
                   f"has it), or delete {EXPLAIN_DIR}/ if the submission is not merged yet")


def data_revisions(tasks: list[Task], data_dir: Path, report: Report, *,
                   pinned: bool = False) -> dict[str, DataRevision]:
    """The revision of each task's data in ``data_dir``; a warning in ``report`` for each
    data folder pulled at another revision than the registry pins (scores computed on it
    are not the board's), or with ``pinned`` a :class:`DataRevisionError` naming them.

    A task whose reader reads a file its folder's manifest does not list has its revision
    recorded as not verified (:meth:`DataRevision.reading`), with a warning naming the
    file: the files are listed as the reader declares them, not hashed."""
    by_folder: dict[str, DataRevision] = {}
    others: list[tuple[DataRevision, str]] = []
    for task in tasks:
        if task.source.local_dir not in by_folder:
            revision = by_folder[task.source.local_dir] = data_revision(task.source, data_dir)
            if revision.other:
                others.append((revision, f"`leaderboard data pull {task.benchmark}"
                                         f"{data_dir_option(data_dir)}` fetches the pinned "
                                         "one"))
    if others and pinned:
        raise DataRevisionError(
            "the data is not the revision the registry pins, so nothing was scored: "
            + "; ".join(f"{r.folder}: {r.mismatch()}; {pull}" for r, pull in others))
    for revision, pull in others:
        report.add(str(revision.folder), None,
                   f"{revision.mismatch()}: the scores are computed on that data, and "
                   f"results.json records it; {pull}", "warning")
    revisions: dict[str, DataRevision] = {}
    unlisted: dict[str, dict[Path, None]] = {}  # folder -> files of any of its tasks
    for task in tasks:
        revision = by_folder[task.source.local_dir]
        if revision.pulled is not None:
            try:
                revision = revision.reading(data_files(task, data_dir).read)
            except DataFormatError:
                pass  # the task's data cannot be read: checking it says so
            unlisted.setdefault(task.source.local_dir, {}).update(
                dict.fromkeys(revision.unlisted))
        revisions[task.id] = revision
    for local_dir, paths in unlisted.items():
        if paths:
            folder = by_folder[local_dir].folder
            report.add(str(folder), None,
                       f"{unlisted_text(folder, list(paths), full=True)}: results.json "
                       "records the data as not verified; move such files out of the "
                       "folder (`leaderboard data status --verify` lists them)", "warning")
    return revisions


def report_unverified_data(outcome: SubmissionOutcome, shown: Path) -> None:
    """Warn, once for each data folder, that the results.json just written records the
    data of its tasks as not verified by a pull (:attr:`DataRevision.verified`), which
    `ci pr-check` refuses in a pull request
    (:func:`leaderboard.submission.results.unverified_problems`): CI scores on the data it
    pulls. ``shown``: the submission folder as the user named it."""
    folders: dict[Path, list[str]] = {}
    for task_id in outcome.scores:
        revision = outcome.data_revisions[task_id]
        if not revision.verified:
            folders.setdefault(revision.folder, []).append(task_id)
    for folder, tasks in folders.items():
        benchmark = benchmark_of(tasks[0])
        note = recorded_note(outcome.data_revisions[tasks[0]].recorded())
        outcome.report.add(
            str(folder), None,
            f"it holds files that no `leaderboard data pull` verified, so {RESULTS_NAME} "
            f"records the data of {plural(len(tasks), 'task')} as \"{note}\", and `ci "
            f"pr-check` refuses such a {RESULTS_NAME} in a pull request, as CI, which scores "
            "on the data it pulls, does: pull it into a folder of your own (`leaderboard "
            f"data pull {benchmark} --data-dir {OWN_DATA_DIR}`) and run "
            f"{score_command(shown, OWN_DATA_DIR)}, or leave {RESULTS_NAME} out of the pull "
            "request (CI writes it after merge)", "warning")


def check_recorded_scores(outcome: SubmissionOutcome, shown: Path, shown_data: Path | None,
                          *, merged: bool, explained: bool = False) -> None:
    """Report how ``results.json`` differs from the scores just computed from the runs
    (the folder named ``shown``, and the data folder ``shown_data``, in the step that
    rewrites it: :func:`leaderboard.submission.layout.score_command`). Scores are errors;
    what another version of the scorer writes otherwise (its version, the data revisions)
    is an error too for a submission not ``merged`` yet, whose pull request carries its
    results.json and `ci pr-check` compares it byte for byte, and a warning for a merged
    one, whose results.json a pull request leaves as it is and publishing rescores.

    As `ci pr-check` holds it: a not ``merged`` one that records data no pull verified is
    an error (:func:`leaderboard.submission.results.unverified_problems`), and on data no
    pull verified here the scores are compared with what CI records on pulled data
    (:func:`leaderboard.submission.results.as_pulled`).

    ``explained`` (``outcome.explanations`` holds every scored task's explanation files):
    the explanation manifest results.json names is compared with theirs, as `ci pr-check`
    compares it; otherwise it is left to :func:`results_staleness`, which reads it."""
    submission = outcome.submission
    where = f"{submission.id}/{RESULTS_NAME}"
    path = submission.root / RESULTS_NAME
    if not os.path.lexists(path):
        outcome.report.add(where, None, f"no results.json: no scores to check "
                                        f"({score_command(shown, shown_data)} writes it)",
                           "warning")
        return
    if not path.is_file() or path.is_symlink():
        return  # a link or a FIFO is never read: discovering the folder refused it
    if submission.metadata is None or not outcome.scores:
        return  # nothing was scored; the errors say why
    outcome.checked_scores = True
    try:
        recorded = read_results(path)
    except ResultsFileError as exc:
        outcome.report.add(where, None, str(exc))
        return
    computed = results_for(outcome)
    if explained:
        computed = computed.model_copy(update={"explain_manifest": ExplainManifestFile.of(
            explanation_manifest(submission.id, outcome.explanations,
                                 computed.inputs_sha256 or {}))})
    else:  # checked as files (results_staleness), not as scores
        recorded = recorded.model_copy(update={"explain_manifest": None})
    if any(not outcome.data_revisions[task_id].verified for task_id in outcome.scores):
        # On data no pull verified: held to what CI, which scores on pulled data, records.
        computed = as_pulled(computed)
    scores, others = compare_scores(recorded, computed)
    # What `ci pr-check` refuses in a pull request, which carries a new one's results.json.
    refused = [] if merged else unverified_problems(recorded.produced_by, shown)
    rescore = f"run {score_command(shown, shown_data)}"
    for difference in scores:
        outcome.report.add(where, None, f"differs from the runs and metadata.yaml: "
                                        f"{difference}")
    if scores:
        outcome.report.add(where, None, f"results.json is not what these runs and "
                                        f"metadata.yaml give; {rescore}")
    for problem in refused:
        outcome.report.add(where, None, problem)
    if others and not scores and not refused:
        what = (f"the scores match the runs, but {', '.join(others)} "
                f"{'differs' if len(others) == 1 else 'differ'} from what this version of "
                "the scorer writes")
        if merged:
            outcome.report.add(where, None, f"{what}; {rescore} to refresh them", "warning")
        else:
            outcome.report.add(where, None, f"{what}, while `ci pr-check` compares the "
                                            "results.json a pull request carries byte for "
                                            f"byte; {rescore} to write it again")


def scorer_name() -> str:
    """The scorer as results.json's produced_by names it: this version's."""
    return f"followboard {__version__}"


def results_for(outcome: SubmissionOutcome) -> ResultsFile:
    meta = outcome.submission.metadata
    assert meta is not None
    system = SystemResult(
        system_id=outcome.submission.id, model=meta.model, provenance="verified",
        source=Source(kind="scored", citation=f"scored by FollowBoard {__version__} from the "
                                              "submitted runs",
                      path=f"submissions/{outcome.submission.id}"),
        tasks=outcome.scores,
    )
    revisions = {task_id: outcome.data_revisions[task_id].recorded()
                 for task_id in outcome.scores}
    produced = {"scorer": scorer_name(), **{f"{DATA_KEY}{k}": v
                                            for k, v in sorted(revisions.items())}}
    inputs = input_digests(outcome.submission.metadata_digest, outcome.submission.inputs)
    return ResultsFile(kind="submission", produced_by=produced, inputs_sha256=inputs,
                       systems=[system])


def results_staleness(root: Path, store: RunStore | None = None,
                      data_dir: Path | None = None, *, explain_files: bool = True) -> list[str]:
    """Why ``root/results.json`` no longer matches the submission's files (empty: it does,
    or there is no results.json). An unreadable results file is stale too, and so are
    explanation files that results.json does not name, or whose manifest cannot be had
    from the run store (``store``, by default the configured one) or was computed from
    other inputs (problems starting ``explain/``): scoring again rewrites both. So are
    scores on another data revision than the registry pins now
    (:func:`leaderboard.submission.results.off_pin_problems`, whose pull fetches into
    ``data_dir``, the folder the caller reads, where it has one): after the pin moves,
    publishing rescores every merged submission. The run files are those of the
    manifest and those in the folder as they are now (more than a submission may hold:
    their count is the one problem, and none is read); of the explanation files only
    their manifest is read, through the store, and not at all without ``explain_files``
    (a submission not merged yet, whose files are CI's to write after the merge: the
    manifest results.json names is computed instead, :func:`check_recorded_scores`)."""
    path = root / RESULTS_NAME
    if not path.is_file() or path.is_symlink():
        return []
    try:
        recorded = read_results(path, per_query=False)
    except ResultsFileError as exc:
        return [f"results.json cannot be read ({exc})"]
    found = Report()
    inputs = collect_inputs(root, found, record_local=True)
    if inputs.over_limit:  # no file read to compare: the count is why it is stale
        return [issue.message for issue in found.errors]
    problems = stale_inputs(recorded.inputs_sha256 or {},
                            input_digests(inputs.metadata_digest, inputs.merged))
    # Scores on another data revision than the pin (it moved since): not the board's data.
    problems += off_pin_problems(recorded.produced_by, data_dir)
    if problems or not explain_files:
        return problems
    files = SubmissionFiles(root.name, root, inputs.merged.source,
                            store if store is not None else configured_store(root))
    problem = explain_problem(files, recorded)
    return [problem] if problem else []


def scoring_trial(root: Path) -> Trial | None:
    """What a scoring of the merged submission ``root`` is tried with now (its inputs, the
    pinned revision of each task its results.json records, the scorer's version), which
    decides whether it scores (:mod:`leaderboard.submission.kept`); None where its
    results.json or inputs cannot be read."""
    try:
        recorded = read_results(root / RESULTS_NAME, per_query=False)
    except (ResultsFileError, OSError):
        return None
    found = Report()
    inputs = collect_inputs(root, found, record_local=True)
    if found.errors:
        return None
    tasks = [key[len(DATA_KEY):] for key in recorded.produced_by if key.startswith(DATA_KEY)]
    try:
        pinned = {task: get_task(task).source.pinned for task in tasks}
    except UnknownTaskError:
        return None
    return Trial(input_digests(inputs.metadata_digest, inputs.merged), pinned, scorer_name())


def score_submission(root: Path, data_dir: Path, progress: Progress = quiet,
                     store: RunStore | None = None, *, after_merge: bool) -> SubmissionOutcome:
    """Validate, score and write ``manifest.txt``, the explorer's explanation files,
    ``per-query.json.gz`` and ``results.json``; nothing is written unless all is valid.

    The layout says where each goes (:mod:`leaderboard.submission.layout`): the
    explanation files are CI's, so only ``after_merge`` (publishing) writes them into the
    folder (:class:`leaderboard.submission.explain_writers.ExplanationFolder`); a
    submitter's scoring keeps them in the run store's cache
    (:class:`leaderboard.submission.explain_writers.KeptExplanations`) and leaves a folder
    a pull request may carry as it is. results.json is the same byte for byte either way.

    The files change together, as one :func:`leaderboard.submission.transaction.change_folder`
    (within the caller's, when ``root`` is the copy of a change under way): a scoring
    stopped at any instant leaves the old files or the new ones. A folder that is no
    submission is said so before any change begins (the change would copy it whole)."""
    report = Report()
    if reported_not_a_submission(root, report):
        return SubmissionOutcome(Submission(root, None, {}), report)
    try:
        # What score removes from explain/ may be a link or a FIFO (validate says so).
        with change_folder(root, removable=(EXPLAIN_DIR,)) as change:
            # The folder is scored in the change's copy, but its run store is the user's
            # folder's, and messages name that folder as given.
            outcome = _score_into(change.folder, data_dir, progress,
                                  store if store is not None else configured_store(change.live),
                                  live=change.live, shown=change.shown,
                                  after_merge=after_merge)
            if outcome.results_path is not None:
                if after_merge:  # publishing's record of a kept submission: no longer
                    (change.folder / KEPT_NAME).unlink(missing_ok=True)
                change.commit()
    except ChangeError as exc:
        report = Report()
        report.add(exc.where, None, exc.message)
        return SubmissionOutcome(Submission(root, None), report)
    return relocated(outcome, change, root)


def relocated(outcome: SubmissionOutcome, change: FolderChange, root: Path) -> SubmissionOutcome:
    """``outcome`` of scoring ``change``'s copy, its paths in the folder ``root``."""
    submission = outcome.submission
    submission.root = root
    submission.files = {task: {role: change.outside(path, root) for role, path in roles.items()}
                        for task, roles in submission.files.items()}
    for name in ("results_path", "explain_path"):
        path = getattr(outcome, name)
        if path is not None:
            setattr(outcome, name, change.outside(path, root))
    return outcome


def _score_into(root: Path, data_dir: Path, progress: Progress, store: RunStore, *,
                live: Path, shown: Path, after_merge: bool) -> SubmissionOutcome:
    """Score the copy ``root`` of the submission folder ``live`` (a change of it)."""
    # The explanation files go where the layout says, written as each task is scored.
    writer: ExplanationFolder | KeptExplanations
    held = HeldExplanations()
    keep_apart = not in_folder(entry(EXPLAIN_DIR), after_merge=after_merge)
    if keep_apart:
        writer = KeptExplanations(cache_dir(), root.name)
    else:
        writer = ExplanationFolder(root)  # the whole folder, written anew
    outcome: SubmissionOutcome | None = None
    try:
        # Publishing (after the merge) scores only the pinned data: its results are the board's.
        outcome = check_submission(root, data_dir, score=True, explain=True, compress=True,
                                   on_explained=writer.add, progress=progress, store=store,
                                   pinned_data=after_merge, shown=shown)
        if keep_apart:
            # The folder a pull request carries holds of explain/ only what CI wrote there
            # for this submission, as CI wrote it (the base branch's), or nothing. Where
            # they belong is the user's folder's to tell (git is asked of it, where it
            # is), not the copy's, which git ignores.
            submission = outcome.submission
            held = held_explanations(root, apart=placement(SubmissionFiles(
                submission.id, live, submission.inputs.source, store)).apart)
        # What no scoring can put back is an error; what it removes, said once it has.
        report_held_explanations(replace(held, foreign=()), outcome.submission.id,
                                 outcome.report, shown)
        if outcome.report.ok and outcome.submission.metadata is not None and outcome.scores:
            results = results_for(outcome)
            inputs = results.inputs_sha256 or {}
            # The manifest first: results.json, written last, records its digests and names
            # the explanation manifest, so it never names files that are not there yet.
            write_manifest(root, outcome.submission.inputs)
            if isinstance(writer, ExplanationFolder):
                outcome.explain_path = writer.finish(outcome.explanations, inputs)
                explained = (outcome.explain_path / MANIFEST).read_bytes()
            else:
                explained = writer.finish(outcome.explanations, inputs)
            remove_foreign(root, held)
            outcome.results_path = write_submission_results(root, results, explained,
                                                            outcome.per_query_json)
            report_held_explanations(held, outcome.submission.id, outcome.report, shown,
                                     removed=True)
            if not after_merge:  # a submitter's, which a pull request may carry
                report_unverified_data(outcome, shown)
    except StoreError as exc:  # the run store's cache could not keep a file
        if outcome is None:  # while the tasks were checked
            outcome = SubmissionOutcome(Submission(root, None), Report())
        outcome.report.add(exc.display, None, exc.message)
        outcome.results_path = None
    finally:
        if isinstance(writer, ExplanationFolder):
            writer.discard()
    return outcome
