"""The results schema: what the scorer writes and the site, stats and CI read.

A results file holds one or more leaderboard rows ("systems"). A verified submission's
file (``submissions/<id>/results.json``) has one system with per-query scores; a
reported file (``results/reported/<source>.json``) has many systems, each with its own
provenance and no per-query scores. Scores are fractions; display scaling is the site's job.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Annotated, Literal

from leaderboard.fileio import atomic_write_text, read_json_model
from pydantic import AllowInfNan, BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1

# A score must be a finite number. Checked inside pydantic's validator, not by a Python
# callback per mapping: results files hold ~10^5 per-query scores each.
Score = Annotated[float, AllowInfNan(False)]

ModelType = Literal["sparse", "bi-encoder", "cross-encoder", "llm-reranker", "late-interaction",
                    "other"]


class Source(BaseModel):
    """Where a row's figures come from."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["scored", "paper", "mteb-results", "pi-indic-results"]
    citation: str = ""          # e.g. "Weller et al. 2025, FollowIR, Table 2"
    table: str | None = None     # e.g. "Table 2"
    url: str | None = None
    path: str | None = None      # file path in an upstream repository
    revision: str | None = None  # commit of that repository
    mteb_version: str | None = None
    note: str | None = None


class ModelInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    type: ModelType = "other"
    parameters: int | None = None           # number of parameters, when known
    instruction_trained: bool | None = None  # None = unknown (reported rows)
    links: list[str] = Field(default_factory=list)
    licence: str | None = None
    revision: str | None = None


class TaskScores(BaseModel):
    """Scores of one system on one task.

    ``per_query`` maps metric key -> query id -> score, and is empty for reported rows.
    Built from a :class:`leaderboard.scoring.ScoreSheet` (or any object with these
    attributes) by reading its attributes, so a sheet the engine computed is checked here,
    when it becomes part of a results file.
    """

    model_config = ConfigDict(extra="forbid", from_attributes=True)

    metrics: dict[str, Score]
    groups: dict[str, dict[str, Score]] = Field(default_factory=dict)
    per_query: dict[str, dict[str, Score]] = Field(default_factory=dict)
    # Group label -> the query ids behind that group's means (FollowTable: the constraint
    # type's altered pairs and their topics), so group views can be significance-tested.
    group_members: dict[str, list[str]] = Field(default_factory=dict)
    n_queries: int | None = None


class SystemResult(BaseModel):
    """One leaderboard row."""

    model_config = ConfigDict(extra="forbid")

    system_id: str
    model: ModelInfo
    provenance: Literal["verified", "reported"]
    source: Source
    tasks: dict[str, TaskScores]


class ResultsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = SCHEMA_VERSION
    kind: Literal["submission", "reported"]
    # Scorer version and data revisions, so a results file says what produced it.
    produced_by: dict[str, str] = Field(default_factory=dict)
    # A submission's inputs when it was scored: path inside the submission folder
    # (metadata.yaml, runs/...) -> SHA-256 of the file, so a run changed after scoring is
    # detected (`validate`) and rescored (`ci score-pending`) instead of showing old scores.
    # Reported rows have no inputs here: None keeps the key out of their files.
    inputs_sha256: dict[str, str] | None = None
    systems: list[SystemResult]


def canonical_json(data: object) -> str:
    """Deterministic JSON: sorted keys, no NaN, newline-terminated.

    Byte-identical output for identical inputs is what lets CI detect a changed score.
    """
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def results_text(results: ResultsFile) -> str:
    """A results file's bytes as the scorer writes them (what CI compares byte for byte)."""
    return canonical_json(results.model_dump(mode="json", exclude_none=True))


def write_results(path: Path, results: ResultsFile) -> None:
    atomic_write_text(path, results_text(results))


# Score differences listed by compare_scores before the rest is counted.
MAX_LISTED_DIFFERENCES = 10


def compare_scores(recorded: ResultsFile, recomputed: ResultsFile) -> tuple[list[str], list[str]]:
    """How a results file differs from the one the scorer computes now, as (score
    differences, other differences): a task, metric, group value or per-query score that
    is not what the runs give; then the top-level fields (scorer version, data revisions,
    model) that differ. Both empty when the files are identical."""
    scores: list[str] = []
    old_systems = {s.system_id: s for s in recorded.systems}
    for system in recomputed.systems:
        old = old_systems.pop(system.system_id, None)
        if old is None:
            scores.append(f"system {system.system_id!r} is missing")
            continue
        for task_id in sorted(set(system.tasks) | set(old.tasks)):
            new_task, old_task = system.tasks.get(task_id), old.tasks.get(task_id)
            if new_task is None or old_task is None:
                scores.append(f"{task_id}: " + ("not scored from these runs"
                                                if new_task is None else "missing"))
                continue
            scores += _value_differences(task_id, old_task.metrics, new_task.metrics)
            for label in sorted(set(new_task.groups) | set(old_task.groups)):
                scores += _value_differences(f"{task_id} [{label}]",
                                             old_task.groups.get(label, {}),
                                             new_task.groups.get(label, {}))
            for key in sorted(set(new_task.per_query) | set(old_task.per_query)):
                old_q, new_q = old_task.per_query.get(key, {}), new_task.per_query.get(key, {})
                differing = sum(old_q.get(q) != new_q.get(q) for q in set(old_q) | set(new_q))
                if differing:
                    scores.append(f"{task_id} {key}: {differing} per-query "
                                  f"score{'s' if differing != 1 else ''} differ")
            if (old_task.group_members, old_task.n_queries) != (new_task.group_members,
                                                                 new_task.n_queries):
                scores.append(f"{task_id}: query counts or group members differ")
    scores += [f"system {system_id!r} is not scored from these runs" for system_id in old_systems]
    if len(scores) > MAX_LISTED_DIFFERENCES:
        more = len(scores) - MAX_LISTED_DIFFERENCES
        scores = scores[:MAX_LISTED_DIFFERENCES] + [f"and {more} more"]
    old_dump = recorded.model_dump(mode="json", exclude_none=True)
    new_dump = recomputed.model_dump(mode="json", exclude_none=True)
    others = [key for key in sorted(set(old_dump) | set(new_dump))
              if key != "systems" and old_dump.get(key) != new_dump.get(key)]
    old_rest = [{k: v for k, v in s.items() if k != "tasks"} for s in old_dump["systems"]]
    new_rest = [{k: v for k, v in s.items() if k != "tasks"} for s in new_dump["systems"]]
    if old_rest != new_rest:
        others.append("systems (model or source)")
    return scores, others


def _value_differences(where: str, recorded: dict[str, float],
                       recomputed: dict[str, float]) -> list[str]:
    out = []
    for key in sorted(set(recorded) | set(recomputed)):
        old, new = recorded.get(key), recomputed.get(key)
        if old != new:
            out.append(f"{where} {key}: results.json has {_number(old)}, the runs give "
                       f"{_number(new)}")
    return out


def _number(value: float | None) -> str:
    return "nothing" if value is None else f"{value:.6g}"


class ResultsFileError(ValueError):
    pass


def read_results(path: Path) -> ResultsFile:
    """Read and validate a results file; errors name the file and the offending key."""
    return read_json_model(path, ResultsFile, ResultsFileError)


def input_digests(root: Path) -> dict[str, str]:
    """SHA-256 of a submission's scored inputs: metadata.yaml and every file under runs/.

    Links are left out (a valid submission has none), so a link never makes this read
    outside the folder."""
    files = [root / "metadata.yaml"]
    runs = root / "runs"
    if runs.is_dir() and not runs.is_symlink():
        files += sorted(runs.rglob("*"))
    digests: dict[str, str] = {}
    for path in files:
        if path.is_symlink() or not path.is_file():
            continue
        digest = hashlib.sha256()
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        digests[path.relative_to(root).as_posix()] = digest.hexdigest()
    return digests


def stale_inputs(recorded: dict[str, str], current: dict[str, str]) -> list[str]:
    """How the files differ from those a results file was scored from (empty: up to date)."""
    if not recorded:
        return ["results.json does not record the SHA-256 of the files it was scored from"]
    out = [f"{p} changed since results.json was scored" for p in sorted(current)
           if p in recorded and recorded[p] != current[p]]
    out += [f"{p} was added since results.json was scored" for p in sorted(current)
            if p not in recorded]
    out += [f"{p} was removed since results.json was scored" for p in sorted(recorded)
            if p not in current]
    return out
