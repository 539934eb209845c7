"""Validate and score whole submissions: the work behind `validate`, `score` and CI.

Validation never writes anything. Scoring validates first and writes
``submissions/<id>/results.json`` atomically, only when every file is valid, so a failed
run never leaves a half-updated results file behind.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from leaderboard import __version__
from leaderboard.core.data import load_task_data
from leaderboard.core.data.base import DataFormatError, MissingDataError, TaskData
from leaderboard.core.tasks import Task
from leaderboard.core.report import Report
from leaderboard.core.runs.columns import ParsedRun
from leaderboard.core.runs.reading import RunBytes, read_run_file
from leaderboard.core.runs.validation import load_and_validate, parse_run_file, validate_read_run
from leaderboard.core.scoring import RankedTask, ScoreSheet, rank_task, score_ranked

if TYPE_CHECKING:
    from concurrent.futures import Future

    from leaderboard.submission.explain_files import TaskFiles

    # Imported where a submission folder or a results file is read: a one-task
    # `leaderboard eval` reads neither, and those modules (yaml, pydantic and its models)
    # were a quarter of its start-up (benchmarks/cli_startup.py).
    from leaderboard.submission.results import ResultsFile
    from leaderboard.store.locations import RunStore
    from leaderboard.submission.folder import Submission

Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


def stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class TaskInput:
    """A task's validated inputs: parsed runs, or T4 predictions."""

    task: Task
    data: TaskData
    runs: dict[str, ParsedRun] = field(default_factory=dict)
    predictions: object | None = None  # pandas.DataFrame for T4
    # The runs ranked and the judged documents looked up, once scoring has done it
    # (score_inputs): the explanation files are computed from the same arrays.
    ranked: RankedTask | None = None


def _shown(path: Path, display_root: Path | None, role: str | None = None,
           names: Mapping[str, str] | None = None) -> str:
    if names is not None and role in names:
        return names[role]
    if display_root is not None and path.is_relative_to(display_root):
        return path.relative_to(display_root).as_posix()
    return str(path)


def validate_file(task: Task, data: TaskData, role: str, path: Path, display: str
                  ) -> tuple[Report, ParsedRun | object | None]:
    """Validate one file of a task: a run, or T4 predictions. Returns what it parsed."""
    if role == "predictions":
        from leaderboard.core.predictions import validate_predictions

        return validate_predictions(task, data, path, display)
    return load_and_validate(path, data, role, display, max_docs=task.max_docs_per_query)


Checked = tuple[Report, "ParsedRun | object | None"]


def validate_task_files(task: Task, data: TaskData, files: dict[str, Path],
                        display_root: Path | None = None,
                        checked: Mapping[str, Checked] | None = None,
                        names: Mapping[str, str] | None = None
                        ) -> tuple[Report, TaskInput | None]:
    """Validate one task's files (one per role); the parsed inputs when all are valid.

    ``checked`` holds what :func:`validate_file` found for files already validated
    (:func:`check_task_files` validates runs on its worker threads); the others are
    validated here. The report lists the files in the task's role order either way.
    ``names`` gives, by role, the name messages use for a file (a file fetched from the
    run store sits in its cache); otherwise it is the path below ``display_root``.
    """
    report = Report()
    inputs = TaskInput(task, data)
    for role in task.roles:
        path = files[role]
        if checked is not None and role in checked:
            sub_report, parsed = checked[role]
        else:
            sub_report, parsed = validate_file(task, data, role, path,
                                               _shown(path, display_root, role, names))
        report.extend(sub_report)
        if parsed is None:
            continue
        if role == "predictions":
            inputs.predictions = parsed
        else:
            inputs.runs[role] = parsed  # type: ignore[assignment]
    return report, (inputs if report.ok else None)


def check_task_files(task: Task, data_dir: Path, files: dict[str, Path],
                     display_root: Path | None = None,
                     prefetched: Mapping[str, Future[RunBytes]] | None = None,
                     while_checking: Callable[[TaskData], object] | None = None,
                     names: Mapping[str, str] | None = None
                     ) -> tuple[Report, TaskInput | None]:
    """Load a task's data and validate its files (one per role).

    Each run file is read, parsed and then checked against the task on a worker thread
    of its own, while this thread loads the task's judgments and corpus ids: parsing is
    mostly pyarrow, gzip and numpy, which release the GIL, and the smaller file is
    checked while the larger one is still being parsed, so a one-task `leaderboard eval`
    waits for the slowest file instead of the sum of all the steps
    (benchmarks/cli_startup.py). ``prefetched`` holds files whose reading a caller started
    earlier (:func:`leaderboard.core.runs.start_reading`), by role; ``while_checking`` is work
    for this thread once the data is loaded, while the runs are still being parsed
    (`leaderboard eval` prepares the scoring: :func:`leaderboard.core.scoring.prepare_task`).
    The files of one task are read at once, so peak memory is that of the task's runs
    together, each within the reader's limits. Raises what
    :func:`leaderboard.core.data.load_task_data` raises.
    """
    run_roles = [role for role in task.roles if role != "predictions"]
    if not run_roles:
        return validate_task_files(task, load_task_data(task, data_dir), files, display_root,
                                   names=names)
    from concurrent.futures import Future, ThreadPoolExecutor

    pending = prefetched or {}
    loaded: Future[TaskData] = Future()

    def check(role: str) -> Checked:
        if role in pending:
            read = parse_run_file(pending[role].result())
        else:
            read = parse_run_file(read_run_file(files[role], _shown(files[role], display_root,
                                                                    role, names)))
        # When the loading failed this raises too; the calling thread raises it first.
        return validate_read_run(read, loaded.result(), role, task.max_docs_per_query)

    with ThreadPoolExecutor(max_workers=len(run_roles), thread_name_prefix="read-run") as pool:
        checking = {role: pool.submit(check, role) for role in run_roles}
        try:
            data = load_task_data(task, data_dir)
        except BaseException as exc:
            loaded.set_exception(exc)
            for future in checking.values():
                future.cancel()
            raise
        loaded.set_result(data)
        if while_checking is not None:
            while_checking(data)
        checked = {role: future.result() for role, future in checking.items()}
    return validate_task_files(task, data, files, display_root, checked, names)


def score_inputs(inputs: TaskInput) -> ScoreSheet:
    if inputs.task.candidates == "pairs":
        from leaderboard.core.predictions import score_predictions

        return score_predictions(inputs.task, inputs.data, inputs.predictions)  # type: ignore[arg-type]
    inputs.ranked = rank_task(inputs.task, inputs.data, inputs.runs)
    return score_ranked(inputs.task, inputs.data, inputs.ranked)


@dataclass
class SubmissionOutcome:
    submission: Submission
    report: Report
    scores: dict[str, ScoreSheet] = field(default_factory=dict)
    results_path: Path | None = None
    # The explorer's files of each scored task (when asked for), and where they went.
    explanations: list[TaskFiles] = field(default_factory=list)
    explain_path: Path | None = None


def check_submission(root: Path, data_dir: Path, *, score: bool, explain: bool = False,
                     progress: Progress = _quiet, check_scores: bool = False,
                     store: RunStore | None = None, record_local: bool | None = None
                     ) -> SubmissionOutcome:
    """Validate every file of a submission and, when asked and all is valid, score it;
    ``explain`` also explains each scored task from the runs just parsed
    (:mod:`leaderboard.submission.explain_files`), so they are never parsed twice.

    Without ``score`` (`validate`), a results.json that no longer matches the files is
    reported; with ``check_scores`` too, the submission is scored and its results.json
    compared with what the scorer computes (as `ci pr-check` compares a PR's), so a
    hand-edited score is found even when the recorded SHA-256 of the runs was kept.

    Run files the folder does not hold are fetched from the run store (``store``, by
    default the configured one) and verified against the manifest. ``record_local``
    (default: ``score``) lets files in the folder differ from the manifest, which
    scoring then rewrites; otherwise that is an error (see
    :func:`leaderboard.submission.folder.collect_inputs`)."""
    report = Report()
    from leaderboard.submission.folder import discover

    submission = discover(root, report, store=store,
                          record_local=score if record_local is None else record_local)
    outcome = SubmissionOutcome(submission, report)
    tasks = submission.tasks()
    display_root = root.parent
    for i, task in enumerate(tasks, 1):
        if any(role not in submission.files[task.id] for role in task.roles):
            continue  # discover() reported each missing role; the task cannot be checked
        progress(f"[{i}/{len(tasks)}] {submission.id}: {task.id}")
        try:
            task_report, inputs = check_task_files(task, data_dir, submission.files[task.id],
                                                   display_root,
                                                   names=submission.names.get(task.id))
        except (MissingDataError, DataFormatError) as exc:
            report.add(f"{submission.id}/runs/{task.id}", None, str(exc))
            continue
        report.extend(task_report)
        if (score or check_scores) and inputs is not None and report.ok:
            outcome.scores[task.id] = sheet = score_inputs(inputs)
            if explain:
                # Imported here, as results and submissions are: `leaderboard eval` goes
                # through this module and never writes explanation files.
                from leaderboard.submission.explain_files import explain_inputs

                outcome.explanations.append(explain_inputs(
                    task, inputs.data, data_dir, sheet, inputs.ranked, inputs.predictions))
    if not score:
        # `score` rewrites results.json anyway; `validate` says when it is out of date.
        from leaderboard.submission.explain_files import EXPLAIN_DIR

        for problem in results_staleness(root, store):
            if problem.startswith(f"{EXPLAIN_DIR}/"):
                report.add(f"{submission.id}/{EXPLAIN_DIR}", None,
                           f"{problem}; run `leaderboard score submissions/{submission.id}`")
                continue
            report.add(f"{submission.id}/results.json", None,
                       f"{problem}: the scores are stale; run `leaderboard score "
                       f"submissions/{submission.id}`")
        if check_scores and report.ok:
            check_recorded_scores(outcome)
    return outcome


def check_recorded_scores(outcome: SubmissionOutcome) -> None:
    """Report how ``results.json`` differs from the scores just computed from the runs."""
    from leaderboard.submission.results import ResultsFileError, compare_scores, read_results

    submission = outcome.submission
    shown = f"{submission.id}/results.json"
    path = submission.root / "results.json"
    if not path.is_file() or path.is_symlink():
        outcome.report.add(shown, None, "no results.json: no scores to check (`leaderboard "
                                        "score` writes it)", "warning")
        return
    if submission.metadata is None or not outcome.scores:
        return  # nothing was scored; the errors say why
    try:
        recorded = read_results(path)
    except ResultsFileError as exc:
        outcome.report.add(shown, None, str(exc))
        return
    # The explanation files are checked as files (results_staleness), not as scores.
    recorded = recorded.model_copy(update={"explain_manifest": None})
    scores, others = compare_scores(recorded, results_for(outcome))
    rescore = f"run `leaderboard score submissions/{submission.id}`"
    for difference in scores:
        outcome.report.add(shown, None, f"score differs from the runs: {difference}")
    if scores:
        outcome.report.add(shown, None, f"the scores in results.json are not those of these "
                                        f"runs; {rescore}")
    elif others:
        outcome.report.add(shown, None, f"the scores match the runs, but {', '.join(others)} "
                                        f"differ from what this version of the scorer writes; "
                                        f"{rescore} to refresh them", "warning")


def results_for(outcome: SubmissionOutcome) -> ResultsFile:
    from leaderboard.submission.results import ResultsFile, Source, SystemResult
    from leaderboard.submission.manifest import input_digests

    meta = outcome.submission.metadata
    assert meta is not None
    system = SystemResult(
        system_id=outcome.submission.id, model=meta.model, provenance="verified",
        source=Source(kind="scored", citation=f"scored by FollowBoard {__version__} from the "
                                              "submitted runs",
                      path=f"submissions/{outcome.submission.id}"),
        tasks=outcome.scores,
    )
    revisions = {t.id: f"{t.source.repo}@{t.source.revision}"
                 for t in outcome.submission.tasks() if t.id in outcome.scores}
    produced = {"scorer": f"followboard {__version__}", **{f"data:{k}": v
                                                          for k, v in sorted(revisions.items())}}
    inputs = input_digests(outcome.submission.metadata_digest, outcome.submission.inputs)
    return ResultsFile(kind="submission", produced_by=produced, inputs_sha256=inputs,
                       systems=[system])


def results_staleness(root: Path, store: RunStore | None = None) -> list[str]:
    """Why ``root/results.json`` no longer matches the submission's files (empty: it does,
    or there is no results.json). An unreadable results file is stale too, and so are
    explanation files that results.json does not name, or whose manifest cannot be had
    from the run store (``store``, by default the configured one) or was computed from
    other inputs (problems starting ``explain/``): scoring again rewrites both. The run
    files are those of the manifest and those in the folder as they are now; of the
    explanation files only their manifest is read, through the store."""
    from leaderboard.submission.results import ResultsFileError, read_results, stale_inputs
    from leaderboard.submission.manifest import input_digests
    from leaderboard.submission.folder import collect_inputs

    path = root / "results.json"
    if not path.is_file() or path.is_symlink():
        return []
    try:
        recorded = read_results(path, per_query=False)
    except ResultsFileError as exc:
        return [f"results.json cannot be read ({exc})"]
    inputs = collect_inputs(root, Report(), record_local=True)
    problems = stale_inputs(recorded.inputs_sha256 or {},
                            input_digests(inputs.metadata_digest, inputs.merged))
    if problems:
        return problems
    from leaderboard.submission.explain_files import explain_problem
    from leaderboard.store.files import SubmissionFiles
    from leaderboard.store.locations import configured_store

    files = SubmissionFiles(root.name, root, inputs.merged.source,
                            store if store is not None else configured_store(root))
    problem = explain_problem(files, recorded)
    return [problem] if problem else []


def score_submission(root: Path, data_dir: Path, progress: Progress = _quiet,
                     store: RunStore | None = None) -> SubmissionOutcome:
    """Validate, score and write ``manifest.txt``, the explorer's explanation files
    (:func:`leaderboard.submission.explain_files.write_explanations`), ``per-query.json.gz`` and
    ``results.json``; nothing is written unless all is valid."""
    outcome = check_submission(root, data_dir, score=True, explain=True, progress=progress,
                               store=store)
    if outcome.report.ok and outcome.submission.metadata is not None and outcome.scores:
        from leaderboard.submission.explain_files import MANIFEST, write_explanations
        from leaderboard.submission.results import write_submission_results
        from leaderboard.submission.manifest import write_manifest

        results = results_for(outcome)
        # The manifest first: results.json, written last, records its digests and names
        # the explanation manifest, so it never names files that are not there yet.
        write_manifest(root, outcome.submission.inputs)
        outcome.explain_path = write_explanations(root, outcome.explanations,
                                                  results.inputs_sha256 or {})
        outcome.results_path = write_submission_results(
            root, results, (outcome.explain_path / MANIFEST).read_bytes())
    return outcome
