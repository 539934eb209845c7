"""Each task of a submission checked, scored and explained: one after the other, or on
worker processes, one per core.

A task's check is independent of every other task's (its own runs, its own data), and
almost all of it holds the GIL (pyarrow and zlib release it, but the validation,
ranking, explanation cards and JSON around them are Python): threads sharing the tasks
ran no faster than one thread (benchmarks/README.md, issue 37). So a large submission's
tasks go to forked worker processes, largest files first, and their results come back
in the submission's task order, the same results as checking them one after the other
(:func:`checked_serially`, the plain version tests/test_task_checks.py holds the workers
to). Small submissions, and platforms without ``fork``, are checked serially: a worker
costs a fork and a pickled result, which a one-task submission does not repay.

The workers are forked (:func:`leaderboard.core.processes.forked_pool`), when the first
task is submitted; no other thread of the command runs then (the scoring's writers write
on this process's own thread).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path

import pyarrow as pa

from leaderboard.core.data.base import DataFormatError, MissingDataError
from leaderboard.core.evaluate import check_task_files, score_inputs
from leaderboard.core.processes import (WorkerError, chosen_workers, first_completed,
                                        forked_pool)
from leaderboard.core.report import Report
from leaderboard.core.scoring import ScoreSheet
from leaderboard.core.tasks import Task
from leaderboard.submission.explain_files import TaskFiles, explain_inputs
from leaderboard.submission.results import task_per_query_json

# Below this many bytes of run files (as stored, gzipped or not) a submission is checked
# in this process: forking and pickling cost more than a second core saves on a few tasks.
PARALLEL_MIN_BYTES = 8 << 20


@dataclass(frozen=True)
class TaskJob:
    """What checking one task needs: its files by role, the names messages give them."""

    task: Task
    files: dict[str, Path]
    names: dict[str, str] | None
    display_root: Path | None

    @property
    def size(self) -> int:
        """Bytes of the task's files as stored (the order largest-first starts them in)."""
        return sum(path.stat().st_size for path in self.files.values())


@dataclass
class TaskResult:
    """One task checked: its findings, and when asked and valid, its scores and
    explanation files. ``data_error``: the task's data could not be loaded (the message
    of :class:`MissingDataError` or :class:`DataFormatError`), so nothing was checked."""

    task_id: str
    report: Report = field(default_factory=Report)
    sheet: ScoreSheet | None = None
    # The sheet's part of the per-query file, written where the task was scored
    # (:func:`leaderboard.submission.results.task_per_query_json`).
    per_query_json: str | None = None
    files: TaskFiles | None = None
    data_error: str | None = None
    # CPU seconds of the task's phases ("check": load, read, parse, validate; "score";
    # "explain"; "compress"), on whichever process ran it: benchmarks/score_suite.py
    # reports where a submission's time goes from these.
    cpu_s: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckOptions:
    data_dir: Path
    score: bool  # score each task whose files are valid
    explain: bool  # and build its explanation files
    # and gzip them on the worker, when they will be written (a pr-check only hashes
    # them); checked in this process, the writer gzips each file as it writes it
    compress: bool
    # parse a task's runs on threads of their own while its data loads; off on the worker
    # processes, which keep every core busy already
    task_threads: bool = True
    # and write each scored task's part of per-query.json.gz, when the scores will be
    # written or compared as files (`score`, `ci pr-check`; not `validate --check-scores`)
    per_query: bool = True


def check_task(job: TaskJob, options: CheckOptions) -> TaskResult:
    """Validate one task's files and, when asked and they are valid, score and explain it
    (:mod:`leaderboard.core.evaluate`, :mod:`leaderboard.submission.explain_files`)."""
    result = TaskResult(job.task.id)
    clock = _PhaseClock(result.cpu_s)
    try:
        report, inputs = check_task_files(job.task, options.data_dir, job.files,
                                          job.display_root, names=job.names,
                                          threads=options.task_threads)
    except (MissingDataError, DataFormatError) as exc:
        result.data_error = str(exc)
        return result
    clock.lap("check")
    result.report = report
    if options.score and inputs is not None and report.ok:
        result.sheet = score_inputs(inputs)
        if options.per_query:
            result.per_query_json = task_per_query_json(result.sheet)
        clock.lap("score")
        if options.explain:
            result.files = explain_inputs(job.task, inputs.data, options.data_dir,
                                          result.sheet, inputs.ranked, inputs.predictions)
            clock.lap("explain")
            if options.compress:
                for file in result.files.files.values():
                    file.gzipped()  # kept on the file: the writer only writes bytes
                clock.lap("compress")
    return result


class _PhaseClock:
    """Process CPU time between laps, into ``spent`` by phase name."""

    def __init__(self, spent: dict[str, float]) -> None:
        self.spent = spent
        self.start = time.process_time()

    def lap(self, phase: str) -> None:
        now = time.process_time()
        self.spent[phase] = now - self.start
        self.start = now


# Called with each task's result in this process as soon as it is computed, before the
# results are put in task order (:func:`checked_tasks`).
OnResult = Callable[["TaskResult"], None]


def _ignore(_: TaskResult) -> None:
    pass


def checked_serially(jobs: Sequence[TaskJob], options: CheckOptions,
                     on_result: OnResult = _ignore) -> Iterator[TaskResult]:
    """Each task's result, in order, in this process (the writer gzips the files)."""
    options = replace(options, compress=False)
    for job in jobs:
        result = check_task(job, options)
        on_result(result)
        yield result


def checked_in_workers(jobs: Sequence[TaskJob], options: CheckOptions, workers: int,
                       on_result: OnResult = _ignore) -> Iterator[TaskResult]:
    """Each task's result, in ``jobs``' order, computed on ``workers`` forked processes.

    The largest tasks are handed out first, small ones in bundles (:func:`bundles`); a
    result is yielded as soon as it and every task before it are done. The workers start
    at the first submission and end with the iteration (or its closing)."""
    sizes = [job.size for job in jobs]
    options = replace(options, task_threads=False)
    # The workers are the parallelism, so pyarrow's own thread pool would only add
    # threads on the same cores.
    with forked_pool(workers, initializer=pa.set_cpu_count, initargs=(1,)) as pool:
        pending: dict[Future[list[TaskResult]], list[int]] = {
            pool.submit(_check_bundle, [jobs[i] for i in bundle], options): bundle
            for bundle in bundles(sizes, workers)}
        done: dict[int, TaskResult] = {}
        next_index = 0

        def lost(bundle: list[int]) -> WorkerError:
            return WorkerError.lost(f"checking {jobs[bundle[0]].task.id} (and others)",
                                    "check the tasks")

        while next_index < len(jobs):
            try:
                finished = first_completed(pool, pending)
            except BrokenProcessPool:
                raise lost(next(iter(pending.values()))) from None
            for future in finished:
                bundle = pending.pop(future)
                try:
                    results = future.result()
                except BrokenProcessPool:
                    raise lost(bundle) from None
                for index, result in zip(bundle, results):
                    on_result(result)
                    done[index] = result
            while next_index in done:
                yield done.pop(next_index)
                next_index += 1


# Tasks are handed to the workers in bundles: each hand-over and result is a round trip
# through the pool's queues and this process's thread, 1.5 ms idle on a worker (its share
# of the 288 PI-Indic tasks, 230 KB each, cost 0.35 s a worker; benchmarks/README.md). A
# bundle holds at most this many bytes of run files and BUNDLE_TASKS tasks, and never
# more than a quarter of a worker's share of what is left, so the last bundles are
# single tasks: a task's cost is not its bytes (twelve T4 prediction files of 10 KB in
# one bundle, each mining its hard negatives with the task-data cache cold, kept one
# worker busy 3 s after the other had finished).
BUNDLE_BYTES = 1 << 20
BUNDLE_TASKS = 4


def bundles(sizes: Sequence[int], workers: int) -> list[list[int]]:
    """The tasks' indices, largest first (no worker is left with one long task at the
    end), cut into runs of consecutive tasks (:data:`BUNDLE_BYTES`)."""
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    left = sum(sizes)
    out: list[list[int]] = []
    bundle: list[int] = []
    filled = 0
    for index in order:
        if not bundle:
            target = min(BUNDLE_BYTES, left // (4 * workers))
        bundle.append(index)
        filled += sizes[index]
        left -= sizes[index]
        if filled >= target or len(bundle) == BUNDLE_TASKS:
            out.append(bundle)
            bundle, filled = [], 0
    if bundle:
        out.append(bundle)
    return out


def _check_bundle(jobs: Sequence[TaskJob], options: CheckOptions) -> list[TaskResult]:
    return [_handed_back(check_task(job, options), options) for job in jobs]


def _handed_back(result: TaskResult, options: CheckOptions) -> TaskResult:
    """What a worker sends back of a task's explanation files: their gzip bytes when they
    will be written (``compress``), else only their sizes and digests (the JSON, four to
    six times the gzip bytes, is pickled, piped and unpickled for nothing otherwise)."""
    if result.files is not None:
        result.files = replace(result.files, files={
            path: file.gzip_only() if options.compress else file.digest_only()
            for path, file in result.files.files.items()})
    return result


def worker_count(jobs: Sequence[TaskJob]) -> int:
    """How many worker processes check ``jobs``: 0 means this process, one task after the
    other. ``LEADERBOARD_WORKERS`` sets it (0 or 1: none); by default, one per usable
    CPU (at most 4: each holds one task's runs and data) for a submission of at least
    :data:`PARALLEL_MIN_BYTES` of run files, where the platform can fork safely
    (:func:`leaderboard.core.processes.chosen_workers`)."""
    return chosen_workers(len(jobs), sum(job.size for job in jobs) >= PARALLEL_MIN_BYTES)


def checked_tasks(jobs: Sequence[TaskJob], options: CheckOptions,
                  on_result: OnResult = _ignore) -> Iterator[TaskResult]:
    """Each task's result, in ``jobs``' order: on worker processes when
    :func:`worker_count` says so, else in this process. ``on_result`` is called in this
    process with each result as it comes, in the order the workers finish them: scoring
    writes a task's explanation files then, instead of once every task before it is done
    (the first of a submission's tasks, a small one, is checked after the large ones: no
    file was written before 4 s into a 10 s pass, and with bundles the last 0.7 s of
    writing came after the workers had finished).
    """
    workers = worker_count(jobs)
    if workers:
        return checked_in_workers(jobs, options, workers, on_result)
    return checked_serially(jobs, options, on_result)

