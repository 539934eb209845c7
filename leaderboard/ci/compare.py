"""Where a freshly scored submission stands against each task's current leader.

The comparison uses the results committed on the PR's base branch, read from git:
verified rows (``submissions/*/results.json``, with per-query scores) are tested with
:func:`leaderboard.stats.tier_view` together with the new submission on each task's
primary metric; reported rows (``results/reported/*.json``, no per-query scores) are
shown for context only, as the leaderboard itself does.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from leaderboard.ci.git import read_blobs, tree_entries
from leaderboard.ci.report import TaskStanding
from leaderboard.registry import Task, higher_is_better
from leaderboard.results import ResultsFile, SystemResult

VERIFIED_GLOB_DEPTH = 3  # submissions/<id>/results.json
REPORTED_DIR = "results/reported"


@dataclass
class CommittedResults:
    """Leaderboard rows as committed at one commit."""

    verified: dict[str, SystemResult] = field(default_factory=dict)
    reported: list[SystemResult] = field(default_factory=list)
    # Files that could not be used, with why; a broken committed file is a maintainer's
    # problem, so it is noted in the report instead of failing the submitter's PR.
    problems: list[str] = field(default_factory=list)


def _parse(path: str, data: bytes, out: CommittedResults) -> ResultsFile | None:
    try:
        return ResultsFile.model_validate(json.loads(data.decode("utf-8")))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        out.problems.append(f"{path}: not valid JSON ({exc}); skipped in the comparison")
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        out.problems.append(f"{path}: {where}: {first['msg']}; skipped in the comparison")
    return None


def load_committed(repo: Path, commit: str) -> CommittedResults:
    """Verified and reported rows of ``commit``, read from git objects."""
    out = CommittedResults()
    verified = [e for e in tree_entries(repo, commit, "submissions")
                if e.path.endswith("/results.json")
                and e.path.count("/") == VERIFIED_GLOB_DEPTH - 1 and not e.is_symlink]
    reported = [e for e in tree_entries(repo, commit, REPORTED_DIR)
                if e.path.endswith(".json") and not e.is_symlink]
    for entry, data in zip(verified, read_blobs(repo, [e.sha for e in verified])):
        parsed = _parse(entry.path, data, out)
        if parsed is None:
            continue
        for system in parsed.systems:
            if system.provenance == "verified":
                out.verified[system.system_id] = system
    for entry, data in zip(reported, read_blobs(repo, [e.sha for e in reported])):
        parsed = _parse(entry.path, data, out)
        if parsed is not None:
            out.reported += [s for s in parsed.systems if s.provenance == "reported"]
    return out


def _best(candidates: list[tuple[str, float]], higher: bool) -> tuple[str, float] | None:
    """Best (name, value); ties go to the smallest name, as the tiers' leader choice does."""
    finite = [(n, v) for n, v in candidates if math.isfinite(v)]
    if not finite:
        return None
    return min(finite, key=lambda nv: (-nv[1] if higher else nv[1], nv[0]))


def standing(task: Task, system: SystemResult, committed: CommittedResults,
             seed: int = 0) -> TaskStanding:
    """The submission's scores on ``task`` and its tier against the task's leader."""
    from leaderboard.stats import tier_view

    scores = system.tasks[task.id]
    metric = task.primary_metric
    higher = higher_is_better(metric)
    row: dict = dict(task=task.id, primary_metric=metric, primary=scores.metrics.get(metric),
                     headline_metric=task.headline_metric,
                     headline=scores.metrics.get(task.headline_metric),
                     higher_is_better=higher)

    competitors = {sid: s for sid, s in committed.verified.items()
                   if sid != system.system_id and task.id in s.tasks
                   and metric in s.tasks[task.id].per_query}
    previous = _best([(sid, s.tasks[task.id].metrics[metric]) for sid, s in competitors.items()
                      if metric in s.tasks[task.id].metrics], higher)
    if previous is not None:
        row["previous_leader"] = competitors[previous[0]].model.name
        row["previous_leader_score"] = previous[1]
    reported = _best([(s.model.name, s.tasks[task.id].metrics[metric])
                      for s in committed.reported
                      if task.id in s.tasks and metric in s.tasks[task.id].metrics], higher)
    if reported is not None:
        row["best_reported"], row["best_reported_score"] = reported
    row["n_competitors"] = len(competitors)

    own = scores.per_query.get(metric)
    if not own:
        row["note"] = f"no per-query {metric} scores, so no significance test"
        return TaskStanding(**row)
    view = {sid: s.tasks[task.id].per_query[metric] for sid, s in competitors.items()}
    view[system.system_id] = own
    tiers = tier_view(view, metric, higher_is_better=higher, seed=seed)
    mine = tiers.by_system()[system.system_id]
    row.update(tier=mine.tier, test=tiers.test, n_queries=tiers.n_queries,
               p_value=mine.p_value, p_adjusted=mine.p_adjusted, effect=mine.effect,
               ci_low=mine.ci_low, ci_high=mine.ci_high)
    if not competitors:
        row["note"] = "first verified submission on this task"
    return TaskStanding(**row)
