"""One task's runs checked and scored: what `leaderboard eval`, `check-run` and
`explain` do, and what scoring a whole submission does for each of its tasks
(:mod:`leaderboard.submission.pipeline`).

Kept apart from the submission path so that a one-task `eval` imports no submission
folder, results schema, YAML or pydantic (benchmarks/cli_startup.py).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from leaderboard.core.data import load_task_data
from leaderboard.core.data.base import TaskData
from leaderboard.core.data.notes import notes_line
from leaderboard.core.predictions import Predictions, score_predictions, validate_predictions
from leaderboard.core.report import Report
from leaderboard.core.runs.columns import ParsedRun
from leaderboard.core.runs.reading import RunBytes, read_run_file
from leaderboard.core.runs.validation import load_and_validate, parse_run_file, validate_read_run
from leaderboard.core.scoring import RankedTask, ScoreSheet, rank_task, score_ranked
from leaderboard.core.tasks import Task

Progress = Callable[[str], None]


def quiet(_: str) -> None:
    return None


def stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class TaskInput:
    """A task's validated inputs: parsed runs, or T4 predictions."""

    task: Task
    data: TaskData
    runs: dict[str, ParsedRun] = field(default_factory=dict)
    predictions: Predictions | None = None  # T4
    # The runs ranked and their judged documents looked up, once scoring has done it
    # (score_inputs): the query explorer's files are computed from the same arrays.
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
        return validate_predictions(task, data, path, display)
    return load_and_validate(path, data, role, display, max_docs=task.max_docs_per_query)


Checked = tuple[Report, "ParsedRun | object | None"]


def validate_task_files(task: Task, data: TaskData, files: dict[str, Path],
                        display_root: Path | None = None,
                        checked: Mapping[str, Checked] | None = None,
                        names: Mapping[str, str] | None = None, *,
                        data_dir: Path | None = None
                        ) -> tuple[Report, TaskInput | None]:
    """Validate one task's files (one per role); the parsed inputs when all are valid.
    ``data_dir``: the folder ``data`` was read from, which the note of what the reader
    did with upstream's files names for `data status` to say where.

    ``checked`` holds what :func:`validate_file` found for files already validated
    (:func:`check_task_files` validates runs on its worker threads); the others are
    validated here. The report lists the files in the task's role order either way,
    then, when the task's data has notes (:mod:`leaderboard.core.data.notes`), one line
    of them as a note of the task (neither an error nor a warning). ``names`` gives, by
    role, the name messages use for a file (a file fetched from the run store sits in its
    cache); otherwise it is the path below ``display_root``.
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
    if data.notes:
        line = notes_line(data.notes, task.benchmark, data_dir)
        # Of one kind where the line is the same: `validate` summarises it over tasks.
        report.add(task.id, None, line, "note", kind=f"data-notes:{line}")
    return report, (inputs if report.ok else None)


def check_task_files(task: Task, data_dir: Path, files: dict[str, Path],
                     display_root: Path | None = None,
                     prefetched: Mapping[str, Future[RunBytes]] | None = None,
                     while_checking: Callable[[TaskData], object] | None = None,
                     names: Mapping[str, str] | None = None, threads: bool = True
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

    ``threads=False``: everything on the calling thread, one step after the other, for a
    caller whose cores are already busy (a worker process of
    :mod:`leaderboard.submission.task_checks`): there the threads only added hand-overs,
    about 3 of a PI-Indic task's 23 ms of CPU.
    """
    run_roles = [role for role in task.roles if role != "predictions"]
    if not run_roles or not threads:
        return validate_task_files(task, load_task_data(task, data_dir), files, display_root,
                                   names=names, data_dir=data_dir)
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
    return validate_task_files(task, data, files, display_root, checked, names,
                               data_dir=data_dir)


def score_inputs(inputs: TaskInput) -> ScoreSheet:
    if inputs.task.candidates == "pairs":
        return score_predictions(inputs.task, inputs.data, inputs.predictions)  # type: ignore[arg-type]
    inputs.ranked = rank_task(inputs.task, inputs.data, inputs.runs)
    return score_ranked(inputs.task, inputs.data, inputs.ranked)
