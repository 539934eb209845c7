"""Where a freshly scored submission stands against each task's current leader.

The comparison uses the results committed on the PR's base branch, read from git:
verified rows (``submissions/*/results.json``, with the per-query scores of the
per-query file each names, from git or from the run store) are ranked and
tested together with the new submission on each task's primary metric by
:func:`leaderboard.publish.standings.rank_systems`, the rules of the site's tables; reported rows
(``results/reported/*.json``, no per-query scores) are shown for context only, as the
leaderboard itself does. The standing leader keeps the lead against a submission within the
reproducibility threshold of it (a rerun on other hardware ties, it does not lead).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from leaderboard.app.ci.git import read_blobs, tree_entries
from leaderboard.app.ci.pr_report import TaskStanding
from leaderboard.core.fileio import load_json
from leaderboard.core.refusals import validation_problem
from leaderboard.core.processes import (WorkerError, chosen_workers, first_completed,
                                        forked_pool)
from leaderboard.core.report import Report, plural
from leaderboard.core.tasks import Task
from leaderboard.publish.standings import Column, order_systems, rank_systems, task_column
from leaderboard.publish.standings.verdicts import tier_statistics
from leaderboard.publish.stats.significance.api import EXECUTOR
from leaderboard.publish.stats.tiers import pick_leader
from leaderboard.store.files import StoredRef, StoreError, check_file_bytes
from leaderboard.store.locations import RunStore, configured_store
from leaderboard.submission.files import SubmissionFiles
from leaderboard.submission.layout import (MANIFEST_NAME, METADATA_NAME, RESULTS_NAME,
                                           SUBMISSIONS_DIR)
from leaderboard.submission.manifest import parse_manifest, run_digests
from leaderboard.submission.metadata import SubmittedModel, model_of
from leaderboard.submission.results import (ResultsFile, ResultsFileError, SystemResult,
                                            off_pin_revisions, off_pin_tasks, resolve_per_query)

REPORTED_DIR = "results/reported"


@dataclass
class CommittedResults:
    """Leaderboard rows as committed at one commit."""

    verified: dict[str, SystemResult] = field(default_factory=dict)
    reported: list[SystemResult] = field(default_factory=list)
    # Files that could not be used, with why; a broken committed file is a maintainer's
    # problem, so it is noted in the report instead of failing the submitter's PR.
    problems: list[str] = field(default_factory=list)
    # System id -> {task: recorded data revision} of verified rows scored on another
    # revision than the registry pins (the pin moved since): compared with no PR's scores
    # on those tasks, which are on the pinned data.
    off_pin: dict[str, dict[str, str]] = field(default_factory=dict)
    # Submission id -> its model, from its metadata.yaml (as validate reads the
    # submissions beside one, :func:`leaderboard.submission.metadata.model_of`), of the
    # merged submissions with no results.json yet (merged since the publish run last
    # scored): no scores to compare, but a name and facts a new submission is held to.
    unscored: dict[str, SubmittedModel] = field(default_factory=dict)
    # Submission id -> {run path: SHA-256} of each merged submission, as its manifest.txt
    # lists its run files (one unreadable is left out): whose runs a new one may copy.
    run_digests: dict[str, dict[str, str]] = field(default_factory=dict)


class _NotJson(ValueError):
    pass


def _parse(path: str, data: bytes, out: CommittedResults) -> ResultsFile | None:
    try:
        return ResultsFile.model_validate(load_json(data, path, _NotJson))
    except _NotJson as exc:
        out.problems.append(f"{exc}; skipped in the comparison")
    except ValidationError as exc:
        problem = validation_problem(exc.errors()[0], ResultsFile)
        out.problems.append(f"{path}: {problem}; skipped in the comparison")
    return None


def _per_query_getter(repo: Path, sub_id: str, blobs: dict[str, str], store: RunStore
                      ) -> Callable[[StoredRef], bytes]:
    """How a committed submission's per-query file is had: the blob at the commit when git
    holds it (the folder store), else from the run store at its manifest's source."""
    folder = f"{SUBMISSIONS_DIR}/{sub_id}"

    def obtain(ref: StoredRef) -> bytes:
        blob = blobs.get(f"{folder}/{ref.path}")
        if blob is not None:
            (data,) = read_blobs(repo, [blob])
            problem, content = check_file_bytes(data, ref)
            if problem or content is None:
                raise StoreError(f"{sub_id}/{ref.path}",
                                 f"the committed copy does not match: {problem}")
            return content
        source = None
        manifest_blob = blobs.get(f"{folder}/{MANIFEST_NAME}")
        if manifest_blob is not None:
            (text,) = read_blobs(repo, [manifest_blob])
            report = Report()
            manifest = parse_manifest(text, f"{sub_id}/{MANIFEST_NAME}", report)
            if manifest is None:
                raise StoreError(f"{sub_id}/{MANIFEST_NAME}", "; ".join(report.lines()[:3]))
            source = manifest.source
        return SubmissionFiles(sub_id, None, source, store).read(ref)

    return obtain


def load_committed(repo: Path, commit: str, store: RunStore | None = None) -> CommittedResults:
    """Verified and reported rows of ``commit``, read from git objects: a submission's
    per-query scores from the per-query file its results.json names, in git or in the run
    store ``store`` (by default the repository's configured one); and the models of the
    merged submissions not yet scored, from their metadata.yaml."""
    out = CommittedResults()
    store = store if store is not None else configured_store(repo)
    committed = [e for e in tree_entries(repo, commit, SUBMISSIONS_DIR) if not e.is_symlink]
    blobs = {e.path: e.sha for e in committed}
    verified = [e for e in committed if e.path.endswith(f"/{RESULTS_NAME}")
                and e.path.count("/") == 2]  # submissions/<id>/results.json
    reported = [e for e in tree_entries(repo, commit, REPORTED_DIR)
                if e.path.endswith(".json") and not e.is_symlink]
    for entry, data in zip(verified, read_blobs(repo, [e.sha for e in verified])):
        parsed = _parse(entry.path, data, out)
        if parsed is None:
            continue
        sub_id = entry.path.split("/")[1]
        try:
            parsed = resolve_per_query(parsed, _per_query_getter(repo, sub_id, blobs, store),
                                       entry.path)
        except ResultsFileError as exc:
            out.problems.append(f"{exc}; skipped in the comparison")
            continue
        moved = off_pin_tasks(parsed.produced_by)
        if moved:
            was = off_pin_revisions(moved)
            out.problems.append(f"{entry.path}: {plural(len(moved), 'task')} scored on "
                                f"{was}, another data revision than the registry pins: not "
                                "compared with this submission on them")
        for system in parsed.systems:
            if system.provenance == "verified":
                out.verified[system.system_id] = system
                if moved:
                    out.off_pin[system.system_id] = moved
    for entry, data in zip(reported, read_blobs(repo, [e.sha for e in reported])):
        parsed = _parse(entry.path, data, out)
        if parsed is not None:
            out.reported += [s for s in parsed.systems if s.provenance == "reported"]
    scored = {e.path.split("/")[1] for e in verified}
    unscored = [e for e in committed if e.path.endswith(f"/{METADATA_NAME}")
                and e.path.count("/") == 2 and e.path.split("/")[1] not in scored]
    for entry, data in zip(unscored, read_blobs(repo, [e.sha for e in unscored])):
        model = model_of(data.decode("utf-8", "replace"))
        if model is not None:
            out.unscored[entry.path.split("/")[1]] = model
    manifests = [e for e in committed if e.path.endswith(f"/{MANIFEST_NAME}")
                 and e.path.count("/") == 2]
    out.run_digests = run_digests({
        entry.path.split("/")[1]: data
        for entry, data in zip(manifests, read_blobs(repo, [e.sha for e in manifests]))})
    return out


def _best_of(systems: dict[str, SystemResult], column: Column) -> tuple[str, float] | None:
    """The leader of ``systems`` on ``column`` by the leaderboard's rule (the best value;
    within the reproducibility threshold of it, the smallest id), with its value."""

    values, _ = order_systems(systems, column)
    valued = {sid: v for sid, v in values.items() if v is not None}
    first = pick_leader(valued, column.higher_is_better)
    return None if first is None else (first, valued[first])


def standing(task: Task, system: SystemResult, committed: CommittedResults,
             seed: int = 0) -> TaskStanding:
    """The submission's scores on ``task`` and its tier against the task's leader, by the
    leaderboard's own standings (:mod:`leaderboard.publish.standings`): the same value, order,
    leader choice and test as the task's table on the site."""

    scores = system.tasks[task.id]
    metric = task.primary_metric
    column = task_column(task.id, metric)
    row: dict = dict(task=task.id, primary_metric=metric, primary=scores.metrics.get(metric),
                     headline_metric=task.headline_metric,
                     headline=scores.metrics.get(task.headline_metric),
                     higher_is_better=column.higher_is_better)

    others = {sid: s for sid, s in committed.verified.items()
              if sid != system.system_id and task.id in s.tasks
              and metric in s.tasks[task.id].per_query}
    # Rows scored on another revision of the task's data are on other data than the
    # submission, which is scored on the pinned one: not compared (the site tests them
    # against no row either).
    crossing = {sid: committed.off_pin[sid][task.id] for sid in others
                if task.id in committed.off_pin.get(sid, {})}
    competitors = {sid: s for sid, s in others.items() if sid not in crossing}
    previous = _best_of(competitors, column)
    if previous is not None:
        row["previous_leader"] = competitors[previous[0]].model.name
        row["previous_leader_score"] = previous[1]
    reported = {f"{i}": s for i, s in enumerate(committed.reported)
                if task.id in s.tasks and metric in s.tasks[task.id].metrics}
    best_reported = _best_of(reported, column)
    if best_reported is not None:
        row["best_reported"] = reported[best_reported[0]].model.name
        row["best_reported_score"] = best_reported[1]
    row["n_competitors"] = len(competitors)

    if not scores.per_query.get(metric):
        row["note"] = f"no per-query {metric} scores, so no significance test"
        return _with_crossing(row, crossing, others)
    standings = rank_systems({**others, system.system_id: system}, column, seed=seed,
                             precedence=[previous[0]] if previous is not None else [],
                             off_pin=crossing)
    mine = standings.tiers[system.system_id]
    test = standings.test
    row.update(tier=mine.tier, n_units=mine.n_units,
               unit=test.units if test is not None else None,
               diff_vs_best_verified=mine.effect, **tier_statistics(mine),
               rank_best=mine.rank_best, rank_worst=mine.rank_worst,
               n_ranked=len(standings.tiers), mde=test.mde if test is not None else None)
    if (previous is not None and mine.tier != "leader" and mine.mean is not None
            and test is not None and abs(mine.mean - previous[1]) <= test.threshold):
        row["note"] = (f"within the reproducibility threshold ({test.threshold:g}) of the "
                       "standing leader: a tie, not a new leader")
    if not competitors and not crossing:
        row["note"] = "first verified submission on this task"
    return _with_crossing(row, crossing, others)


def _with_crossing(row: dict, crossing: dict[str, str],
                   others: dict[str, SystemResult]) -> TaskStanding:
    """The standing ``row``, its note saying which verified rows it was not compared with
    for being scored on another data revision (``crossing``: id -> recorded revision)."""
    if crossing:
        was = off_pin_revisions(crossing)
        names = ", ".join(others[sid].model.name for sid in sorted(crossing))
        said = (f"not compared with {names}: scored on {was}, another data revision than "
                "this submission's")
        row["note"] = f"{row['note']}; {said}" if row.get("note") else said
    return TaskStanding(**row)


# Below this many tasks a submission's standings are computed in this process: a worker
# costs a fork and a pickled result. A submission of every task (313) took 4.4 s of one
# core after its scoring, while the other core idled (benchmarks/score_suite.py
# --pr-check).
PARALLEL_MIN_TASKS = 16

# The work the standings' worker processes share, set in each worker by the pool's
# initializer from its forked copy of the caller's objects (nothing is pickled).
_SHARED: tuple[list[Task], SystemResult, CommittedResults, int] | None = None


def _share(tasks: list[Task], system: SystemResult, committed: CommittedResults,
           seed: int) -> None:
    global _SHARED
    _SHARED = (tasks, system, committed, seed)


def _standings_at(indices: range) -> list[TaskStanding]:
    assert _SHARED is not None, "called outside a standings worker"
    tasks, system, committed, seed = _SHARED
    with EXECUTOR.serial_chunks():  # the workers are the parallelism
        return [standing(tasks[index], system, committed, seed=seed) for index in indices]


def task_standings(tasks: Sequence[Task], system: SystemResult, committed: CommittedResults,
                   seed: int = 0, progress: Callable[[str], None] = lambda _: None
                   ) -> list[TaskStanding]:
    """:func:`standing` of each task, in ``tasks``' order. Each task's is independent of
    the others' and seeded, so a large submission's are computed on worker processes
    (:func:`leaderboard.core.processes.chosen_workers`), with the same results as one
    after the other (tests/test_standings.py holds them to it)."""
    tasks = list(tasks)
    workers = chosen_workers(len(tasks), len(tasks) >= PARALLEL_MIN_TASKS)
    if not workers:
        out = []
        for task in tasks:
            progress(f"comparing {system.system_id} with the leader of {task.id}")
            out.append(standing(task, system, committed, seed=seed))
        return out
    progress(f"comparing {system.system_id} with the leader of each of its {len(tasks)} "
             f"tasks, on {workers} processes")
    size = max(1, len(tasks) // (8 * workers))
    try:
        with forked_pool(workers, initializer=_share,
                         initargs=(tasks, system, committed, seed)) as pool:
            pending = {pool.submit(_standings_at, range(start, min(start + size, len(tasks)))):
                       start for start in range(0, len(tasks), size)}
            found: dict[int, list[TaskStanding]] = {}
            while pending:  # first_completed: a worker that dies sending is noticed too
                for future in first_completed(pool, pending):
                    found[pending.pop(future)] = future.result()
            return [row for start in sorted(found) for row in found[start]]
    except BrokenProcessPool:
        raise WorkerError.lost(f"comparing {system.system_id} with the tasks' leaders",
                               "compare them") from None
