"""The export's tables of per-query records (:mod:`leaderboard.publish.export`), written as
they are read, one row group per submission, so that memory holds one submission at a
time: every verified per-query score (``per_query``, one file per benchmark) and the
queries behind each group's figures (``group_members``: FollowTable's constraint types),
which a reader joins to them to recompute a group's figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from leaderboard.core.measures import query_name
from leaderboard.publish.site.board import Board
from leaderboard.publish.standings.downloads import OFF_PIN
from leaderboard.publish.standings.rows import Row
from leaderboard.publish.training import task_benchmark
from leaderboard.submission.results import revision_text


def task_off_pin_revision(off_pin: Mapping[str, str], task_id: str) -> str | None:
    """A task's :data:`OFF_PIN` in the scores and per-query tables, from the submission's
    tasks scored off the pin (:attr:`~leaderboard.publish.standings.SubmissionInfo.off_pin`,
    which the views' tests and downloads read too)."""
    return revision_text(off_pin[task_id]) if task_id in off_pin else None


PER_QUERY_SCHEMA = pa.schema([("submission_id", pa.string()), ("task", pa.string()),
                              ("metric", pa.string()), ("query_id", pa.string()),
                              ("score", pa.float64()), ("score_name", pa.string()),
                              (OFF_PIN, pa.string())])
# One record per (submission, task, group, query): the per-query file's group_members,
# the queries each of the task's group figures is the mean over.
GROUP_MEMBERS_SCHEMA = pa.schema([("submission_id", pa.string()), ("task", pa.string()),
                                  ("group", pa.string()), ("query_id", pa.string())])


def _submission_id(row: Row) -> str:
    assert row.submission is not None
    return row.submission.id


def write_per_query(board: Board, folder: Path) -> list[Path]:
    """One Parquet per benchmark, one row group per submission, streamed."""
    writers: dict[str, pq.ParquetWriter] = {}
    paths: list[Path] = []
    try:
        for row in sorted(board.submissions, key=_submission_id):
            by_bench: dict[str, dict[str, list]] = {}
            for task_id, task in sorted(row.system.tasks.items()):
                bench = task_benchmark(task_id) or "other"
                cols = by_bench.setdefault(bench, {n: [] for n in PER_QUERY_SCHEMA.names})
                off_pin = task_off_pin_revision(row.submission.off_pin, task_id)  # type: ignore[union-attr]
                for metric, scores in sorted(task.per_query.items()):
                    score_name = query_name(metric)
                    for qid, score in sorted(scores.items()):
                        cols[OFF_PIN].append(off_pin)
                        cols["submission_id"].append(_submission_id(row))
                        cols["task"].append(task_id)
                        cols["metric"].append(metric)
                        cols["query_id"].append(qid)
                        cols["score"].append(score)
                        cols["score_name"].append(score_name)
            for bench, cols in by_bench.items():
                if not cols["score"]:
                    continue
                if bench not in writers:
                    path = folder / f"{bench}.parquet"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    writers[bench] = pq.ParquetWriter(path, PER_QUERY_SCHEMA,
                                                      compression="zstd", use_dictionary=True)
                    paths.append(path)
                writers[bench].write_table(pa.Table.from_pydict(cols, schema=PER_QUERY_SCHEMA))
    finally:
        for writer in writers.values():
            writer.close()
    return sorted(paths)


def write_group_members(board: Board, path: Path) -> bool:
    """The group_members table at ``path``, one row group per submission that has groups,
    streamed; False (and no file) when no submission has any."""
    writer: pq.ParquetWriter | None = None
    try:
        for row in sorted(board.submissions, key=_submission_id):
            cols: dict[str, list[str]] = {n: [] for n in GROUP_MEMBERS_SCHEMA.names}
            for task_id, task in sorted(row.system.tasks.items()):
                for group, members in sorted(task.group_members.items()):
                    for qid in sorted(members):
                        cols["submission_id"].append(_submission_id(row))
                        cols["task"].append(task_id)
                        cols["group"].append(group)
                        cols["query_id"].append(qid)
            if not cols["query_id"]:
                continue
            if writer is None:
                path.parent.mkdir(parents=True, exist_ok=True)
                writer = pq.ParquetWriter(path, GROUP_MEMBERS_SCHEMA, compression="zstd",
                                          use_dictionary=True)
            writer.write_table(pa.Table.from_pydict(cols, schema=GROUP_MEMBERS_SCHEMA))
    finally:
        if writer is not None:
            writer.close()
    return writer is not None
