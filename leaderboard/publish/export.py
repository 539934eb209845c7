"""`leaderboard export`: the leaderboard as a dataset laid out for the Hugging Face Hub.

::

    README.md                          dataset card; its ``configs:`` name each table
    standings/results.parquet          every view's records in long form (= the site's
                                       downloads/results.parquet)
    standings/views.parquet            what each of its columns combines, and how
    reported/rows.parquet              every reported figure with its source
    submissions/submissions.parquet    every verified submission's metadata
    submissions/scores.parquet         its task and group figures
    efficiency/efficiency.parquet      what each submission's model cost, per task, with
                                       the hardware
    models/models.parquet              the model records: identity and training data
    per-query/<benchmark>.parquet      every verified per-query score, one file per benchmark
    group-members/group_members.parquet  the queries behind each group figure of scores
    schemas/<table>.schema.json        a JSON Schema for each table's records
    release.json                       the release manifest (:mod:`.release`)

Per-query scores are one file per benchmark, each submission one row group, written as
they are read (:mod:`.export_queries`, the group members too): 1,000 submissions make
five files of a few hundred MB at most, far inside the Hub's recommendations (files
under 20 GB, under 10k entries per folder, under 100k files, under 100 files per commit),
and memory holds one submission at a time.

The folder is written beside the destination and moved into place when complete: a
killed export leaves the previous export as it was. A push replaces the dataset's copy
likewise, in one commit: this release's files in, and out of the folders above every file
an earlier release left there that this one has not
(:func:`leaderboard.publish.export_check.stale_files`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from leaderboard.benchmarks import declared
from leaderboard.core.checksums import sha256_file
from leaderboard.core.errors import FollowBoardError
from leaderboard.publish.export_queries import (
    GROUP_MEMBERS_SCHEMA,
    PER_QUERY_SCHEMA,
    task_off_pin_revision,
    write_group_members,
    write_per_query,
)
from leaderboard.publish.open_data import records_table, write_parquet
from leaderboard.publish.output_folder import (
    check_replaceable,
    replaced_folder,
)
from leaderboard.publish.release import (
    RELEASE_FILE,
    modified_text,
    modified_warning,
    release_manifest,
)
from leaderboard.publish.site.board import Board, load_board
from leaderboard.publish.site.downloads import (
    STANDINGS_TYPES,
    column_records,
    standings_records,
)
from leaderboard.publish.site.repository import RepositoryRef, repository_ref
from leaderboard.publish.standings.downloads import MARK_FIELD_TEXT, OFF_PIN
from leaderboard.publish.standings.lines import record_of
from leaderboard.publish.training import task_benchmark, training_overlap, training_text

# The layout of the dataset's tables (their columns and what each holds), named in the
# card, in each JSON Schema's $id and in release.json: the number moves when a column
# changes its name or meaning, or is added (2: the standings' estimate, ci_low and
# ci_high, which held the mean difference's interval for some views and the
# Hodges-Lehmann shift's for others, became diff_ci_* and hl_*, beside test; 3:
# off_pin_revision in standings, scores and per_query; 4: the standings' rank is null for
# a line whose figure in its view's sort column was scored off the pin, which format 3
# numbered in the order with the rest; 5: the standings' p_adjusted is Holm's of the
# p-values raised to p_floor, and p_adjusted_bound says where it is an upper bound; 6: the
# views table, what each standings column combines and how, and the group_members table,
# the queries behind each group's figures, so every figure can be recomputed; 7: the
# standings' one_class, training_overlap and printed_average_differs, what the site's
# marks *, † and ‡ after a figure say).
EXPORT_FORMAT = "followboard-dataset/7"
# Written into an export, so a rerun only ever replaces a folder that an export made.
EXPORT_MARKER = ".followboard-export"
EXPORTED_BY = "`leaderboard export`"
CARD_FILE = "README.md"


class ExportError(FollowBoardError, ValueError):
    """The export could not be written; the message says why."""


@dataclass(frozen=True)
class Table:
    """One table of the dataset: its config name, its files' folder and what it is."""

    config: str
    folder: str
    title: str
    fields: dict[str, str]     # column -> what it holds (the JSON Schema's descriptions)
    # Its columns of numbers and flags, typed whatever the records hold (open_data.py).
    types: Mapping[str, pa.DataType] = field(default_factory=dict)
    # Its columns of lists and objects, kept as JSON text (open_data.py): their schema
    # says so (contentMediaType), as does their description.
    json: frozenset[str] = frozenset()


_INT, _FLOAT, _BOOL = pa.int64(), pa.float64(), pa.bool_()
_MODEL_TYPES = {"parameters": _INT, "instruction_trained": _BOOL}


# A column that several tables hold says the same thing in each.
_MODEL_TYPE = ("the model's type: sparse, bi-encoder, cross-encoder, llm-reranker, "
               "late-interaction or other")
_PARAMETERS = "the model's number of parameters (null: unknown)"
_INSTRUCTION_TRAINED = "whether the model was trained on instructions (null: unknown)"
_GROUP = "a group of the task's queries (null: the whole task)"
_FIGURE = "the figure, a fraction (the site shows x100)"
_OFF_PIN = ("the data revision (repository@commit) the figure was scored on, where that is "
            "not the one the registry pins now (the pin moved since, and the figure was not "
            "rescored): on other data than the other figures, and tested against no row "
            "(null: on the pinned revision{})")

TABLES = (
    Table("standings", "standings", "Every leaderboard table (each view and the home table) "
          "in long form: one record per (view, model line, column), the site's "
          "downloads/results.parquet", {
              "view": "the view's id (home: the home table)",
              "column": "the column's id within the view (the views table says what it "
                        "combines and how)",
              "rank": "the line's place in the view's default order among its ranked "
                      "lines, on its sort column, reported rows included, the best "
                      "verified line first of the tested lines (those it passes are within "
                      "the reproducibility threshold of it, tied with it) (null: on home, "
                      "on the no-skill reference line, for a line with no figure in the "
                      "sort column, and for one whose figure there was scored on another "
                      "data revision than the pin, its off_pin_revision: not ranked with "
                      "figures on other data, it comes after the ranked lines; format 3 "
                      "ranked it with the rest)",
              "rank_interval": "JSON text, [best, worst]: the line's simultaneous 95% rank "
                               "interval among the tested (verified) rows on the view's "
                               "tested column; home: the cell's, in the table it comes from "
                               "(null: not tested)",
              "position": "home only: the line's place in the home table's order, verified "
                          "models first, then the most benchmarks covered (not a ranking)",
              "model_id": "the model record (models table); no-skill-reference on the "
                          "no-skill reference line",
              "model": "the model's name as the board shows it (the reference line: what "
                       "it is)",
              "provenance": "verified (scored here from submitted runs), reported (a "
                            "published figure) or reference (the view's no-skill "
                            "reference line)",
              "model_type": _MODEL_TYPE + " (null on the reference line)",
              "parameters": _PARAMETERS, "instruction_trained": _INSTRUCTION_TRAINED,
              "benchmarks": "home only: how many of the home table's columns the model has "
                            "a figure in",
              "system_id": "the row the line's figures come from (null: on home, where "
                           "each cell's row is in from, and on the reference line)",
              "source": "where the line's row comes from, as the site's downloads say it "
                        "(null on home)",
              "other_sources": "the model's other rows in the view, their system_ids "
                               "joined by '; ' (null: none); others holds their figures",
              "value": "the cell's figure, a fraction (the site shows x100)",
              "basis": "how value was obtained: task (one task's figure), mean of tasks or "
                       "mean of reported tasks (the column's convention, which the views "
                       "table states), or published: a reported row's own average "
                       "of the column's tasks as its source prints it, which need not be "
                       "that mean (null: no figure)",
              OFF_PIN: _OFF_PIN.format(", a reported figure, or no figure"),
              "from": "home only: the row (system_id) the cell's figure comes from",
              "tier": "the line's tier on this column when it is tested: best verified, "
                      "tied with best verified, below best verified, or reported: not "
                      "tested (home: the cell's, in the table it comes from)",
              "p_value": "raw p-value of the test against the best verified row, raised to "
                         "p_floor",
              "p_adjusted": "Holm-adjusted p-value within the view, of the p-values "
                            "raised to p_floor",
              "p_adjusted_bound": "true where p_adjusted rests on a p-value at p_floor: "
                                  "it then means at most p_adjusted (null: not tested)",
              "p_floor": "the smallest p-value the test resolves: a p_value or p_adjusted "
                         "equal to it means at most that",
              "test": "the test against the best verified row: randomization (Fisher's, "
                      "on the mean difference), wilcoxon (signed-rank, p-MRR) or delong "
                      "(AUROC) (null: not tested)",
              "diff_vs_best_verified": "mean difference (this row - the best verified row) "
                                       "over the test's units",
              "diff_ci_low": "low end of the 95% interval of diff_vs_best_verified: the "
                             "bootstrap's (randomization), DeLong's (delong); null for "
                             "wilcoxon, whose interval is hl_shift's",
              "diff_ci_high": "high end of that interval (null for wilcoxon)",
              "hl_shift": "wilcoxon only: the Hodges-Lehmann shift of this row - the best "
                          "verified row (the median of the Walsh averages of the units' "
                          "non-zero differences, as the test drops zeros), the "
                          "statistic the signed-rank test tests; not the mean difference "
                          "(null for other tests)",
              "hl_ci_low": "wilcoxon only: low end of hl_shift's 95% interval (the shifts "
                           "the signed-rank test does not reject)",
              "hl_ci_high": "wilcoxon only: high end of hl_shift's 95% interval",
              "effect_size": "the difference over the standard deviation of the units' "
                             "differences",
              "others": "JSON text, a list of {system_id, value, basis, off_pin_revision, "
                        "source}: the "
                        "model's other rows' figures for the same cell", **MARK_FIELD_TEXT},
          types=STANDINGS_TYPES, json=frozenset({"rank_interval", "others", "training_overlap"})),
    Table("views", "standings", "What every standings column is: one record per (view, "
          "column), the home table's too: the tasks and the metric of each whose figures "
          "it combines, its group of queries and how it combines them", {
              "view": "the view's id, as in standings (home: the home table)",
              "column": "the column's id within the view, as in standings",
              "label": "the column's header on the site",
              "metric": "the metric the column shows: the one it takes of every task, or, "
                        "where it takes another of each (FollowIR's Score), the column's "
                        "own name for them (task_metrics names each)",
              "tasks": "JSON text, a list: the task ids whose figures the column combines",
              "task_metrics": "JSON text, a list parallel to tasks: the metric the column "
                              "takes of each task, as scores and per_query name it "
                              "(FollowIR's Score: MAP@1000 on Robust04 and Core17, nDCG@5 "
                              "on News21)",
              "group": "the group of each task's queries the column takes, FollowTable's "
                       "constraint type: the scores' figure of that group, the mean over "
                       "the queries group_members lists (null: the whole task)",
              "higher_is_better": "whether a higher figure is better",
              "average": "all: a row has a figure only with a figure of every task; "
                         "available: the mean of the tasks a row has (PI-Indic's full set)",
              "convention": "how the column combines its tasks' figures: task (one task's "
                            "figure), mean of tasks (the plain mean of the tasks' figures, "
                            "each task weighing the same whatever its number of queries) or "
                            "mean of reported tasks (the plain mean of those a row has)",
              "means": "the convention in the site's words (where one task's figure is "
                       "not the mean over its queries, what it is)",
              "reference": "the column's no-skill value, the figure of the view's no-skill "
                           "reference line (null: none; home has no such line)",
              "published_tasks": "JSON text, a list: the tasks under which a reported row "
                                 "gives its source's own average of the column's tasks "
                                 "(its figure of metric there, the first of them it has), "
                                 "shown as printed instead of recomputed (basis published)",
              "tested": "whether the view's tests are on this column (home: in the view it "
                        "comes from): a tested verified figure is the same mean summed query "
                        "by query, each per-query score weighted 1 / (tasks x its task's "
                        "queries), which can differ from the mean of the task figures in "
                        "its last bits",
              "from_view": "home only: the view whose figure each cell of the column is, "
                           "that view's record of the row the cell's from names (null: not "
                           "home)",
              "from_column": "home only: that view's column (null: not home)"},
          types={"higher_is_better": _BOOL, "reference": _FLOAT, "tested": _BOOL},
          json=frozenset({"tasks", "task_metrics", "published_tasks"})),
    Table("reported", "reported", "Every reported figure (papers, MTEB's results, the "
          "PI-Indic authors' files) with its source: one record per (row, task, group, "
          "metric)", {
              "system_id": "the reported row", "model": "the name its source prints",
              "model_id": "the model record it resolves to (models table)",
              "model_type": _MODEL_TYPE + ", as the row gives it",
              "parameters": _PARAMETERS, "instruction_trained": _INSTRUCTION_TRAINED,
              "source_kind": "paper, mteb-results or pi-indic-results",
              "citation": "the source",
              "table": "the paper's table the figure is printed in (null: not a paper's "
                       "table)",
              "url": "the source's address: the paper, or the repository of its results "
                     "files",
              "path": "the source's files in that repository (null: a paper)",
              "revision": "the commit of that repository the files at path come from, its "
                          "first 12 hex digits (null: a paper's, or unknown, as note "
                          "says); not the model's revision",
              "mteb_version": "the mteb version that wrote the source's files (mteb-results "
                              "only)",
              "note": "what the source's figures are and how they were read (its "
                      "conventions and caveats)",
              "results_file": "the reported results file, in the leaderboard's repository, "
                              "the row is read from",
              "task": "task id", "group": _GROUP,
              "metric": "ir_measures-style metric name", "value": _FIGURE},
          types={**_MODEL_TYPES, "value": _FLOAT}),
    Table("submissions", "submissions", "Every verified submission's metadata: one record "
          "per submission", {
              "submission_id": "the folder's name", "system_id": "its row's id",
              "model": "the model's name as metadata.yaml gives it",
              "model_id": "the model record it resolves to (models table)",
              "model_type": _MODEL_TYPE, "parameters": _PARAMETERS,
              "instruction_trained": _INSTRUCTION_TRAINED,
              "licence": "the model's licence as metadata.yaml gives it (null: not given)",
              "revision": "the model's revision as metadata.yaml gives it (its weights' or "
                          "package's version; null: not given); not a commit of the "
                          "leaderboard's repository",
              "links": "JSON text, a list: the model's web links",
              "contact": "who to contact about the submission",
              "produced_by": "how the runs were produced (metadata.yaml's produced_by)",
              "date": "when the runs were made, YYYY-MM-DD (null: not given)",
              "hardware": "the hardware metadata.yaml names for the runs (null: not given)",
              "training_data": "what the model's paper or card says it was trained on, "
                               "or 'not disclosed'",
              "efficiency": "JSON text: the efficiency: block of metadata.yaml (null: none); "
                            "the efficiency table holds it one record per task",
              "tasks": "how many tasks the submission has figures on",
              "results_sha256": "SHA-256 of its results.json",
              "scorer": "JSON text, an object: results.json's produced_by, the scorer's "
                        "version (scorer) and each task's data source and its commit "
                        "(data:<task id>)"},
          types={**_MODEL_TYPES, "tasks": _INT},
          json=frozenset({"links", "efficiency", "scorer"})),
    Table("scores", "submissions", "Every verified submission's task and group figures", {
        "submission_id": "the submission", "task": "task id", "benchmark": "benchmark id",
        "group": _GROUP, "metric": "metric name", "value": _FIGURE,
        "n_queries": "queries behind the figure: those the per_query table scores on "
                     "this metric (FollowTable's original/nDCG@10: the topics; PI-Indic T4: "
                     "personas), or, for a figure of no per-query scores, the task's (T4's "
                     "AUPRC and ECE: the personas whose pairs it is over); null on a "
                     "group's",
        OFF_PIN: _OFF_PIN.format("")},
        types={"value": _FLOAT, "n_queries": _INT}),
    Table("efficiency", "efficiency", "What running each verified model cost, per task or "
          "task family, on the hardware named in the same record: compare figures only "
          "between records of the same hardware", {
              "submission_id": "the submission", "task": "a task id, or <family>/* for a "
              "family of tasks recorded together",
              "source": "measured (by `leaderboard baselines run`/`measure`) or declared",
              "encode_seconds": "model time: encoding texts, scoring pairs, BM25 indexing",
              "search_seconds": "scoring and ranking the corpus",
              "texts": "texts the model encoded (documents, queries; query-document pairs "
                       "for rerankers), not counting those a cache answered",
              "tokens": "their tokens after truncation (null: not counted)",
              "texts_per_second": "texts over encode_seconds (null: not given)",
              "tokens_per_second": "tokens over encode_seconds (null: not given)",
              "peak_cpu_memory_bytes": "peak resident memory of the process, in bytes "
                                       "(null: not given)",
              "peak_gpu_memory_bytes": "peak GPU memory allocated, in bytes (null: no GPU, "
                                       "or not given)",
              "load_average": "1-minute load average of the machine when the task ended "
                              "(null: not given)",
              "sample": "what was measured when not the whole task (null: the whole task)",
              "cpu": "the machine's CPU", "cpu_cores": "its CPU cores (null: not given)",
              "gpu": "its GPU (null: none)", "gpu_count": "how many GPUs (0: none)",
              "precision": "the numbers the model computed in (float32, bf16, ...)",
              "embedding_cache": "whether an embedding cache could answer some texts, "
                                 "whose time is then not counted (null: not said)",
              "measured_by": "the command that measured the figures, with its environment "
                             "(null: not said)",
              "date": "when the figures were measured, YYYY-MM-DD (null: not given)"},
          types={**{name: _FLOAT for name in ("encode_seconds", "search_seconds",
                                              "texts_per_second", "tokens_per_second",
                                              "load_average")},
                 **{name: _INT for name in ("texts", "tokens", "peak_cpu_memory_bytes",
                                            "peak_gpu_memory_bytes", "cpu_cores",
                                            "gpu_count")},
                 "embedding_cache": _BOOL}),
    Table("models", "models", "The model records every row resolves to, with the training "
          "data their papers or cards declare and the benchmarks it shares a source with", {
              "model_id": "the record's id", "name": "the model's name as the board shows it",
              "type": _MODEL_TYPE, "parameters": _PARAMETERS,
              "instruction_trained": _INSTRUCTION_TRAINED,
              "links": "JSON text, a list: the model's web links (card, paper, code)",
              "note": "the record's note (null: none)",
              "curated": "true: a record of the model registry (models.yaml); false: "
                         "built from one row's own facts",
              "training_statement": "what the model was trained on (null: not disclosed)",
              "training_collections": "JSON text, a list: the collections its training "
                                      "documents and queries come from, in the benchmark "
                                      "declarations' words (null: not disclosed)",
              "training_instructions": "JSON text, a list: where its training instructions "
                                       "come from, in the same words (null: not disclosed)",
              "training_source": "who says so (null: not disclosed)",
              "training_url": "where they say so (null: not given)",
              "shares_sources_with": "JSON text, a list: benchmark ids whose declared "
                                     "sources the training data names (a mark on their "
                                     "cells)"},
          types={**_MODEL_TYPES, "curated": _BOOL},
          json=frozenset({"links", "training_collections", "training_instructions",
                          "shares_sources_with"})),
    Table("per_query", "per-query", "Every verified per-query score: one record per "
          "(submission, task, metric, query); one file per benchmark", {
              "submission_id": "the submission", "task": "task id", "metric": "metric name",
              "query_id": "the query, by the id its task's runs use: FollowTable, the "
                          "query-instruction pair, {topic}_{instruction}, except for "
                          "original/nDCG@10, the topic-only query's figure, scored per "
                          "topic ({topic}); PI-Indic, p<id> a persona (T1, T2), i<id> an "
                          "instruction (T3), p<id> in T4 a persona with all its pairs, "
                          "<id> the row id of the authors' validation files",
              "score": "the query's figure named score_name, a fraction",
              "score_name": "what score is: the metric's figure on the query, or, where the "
                            "metric's name would mislead, the per-query figure whose mean "
                            "over the queries is the task's metric, by its own name (AUROC "
                            "part: the persona's DeLong component, which can fall below 0 or "
                            "pass 1)",
              OFF_PIN: _OFF_PIN.format("")}),
    Table("group_members", "group-members", "The queries behind each group figure of the "
          "scores table (FollowTable's constraint types): one record per (submission, "
          "task, group, query), as each submission's per-query file lists them", {
              "submission_id": "the submission", "task": "task id",
              "group": "a group of the task's queries: FollowTable, the constraint type of "
                       "the instruction (C1, C2, S1, S2, S3)",
              "query_id": "a query the group's figures average: its query-instruction "
                          "pairs ({topic}_{instruction}) and the distinct topics they come "
                          "from ({topic}, original/nDCG@10's); the group's figure of a "
                          "metric (scores) is the mean of that metric's per_query scores "
                          "over the group's queries that have one"}),
)


# The one file of each table but the per-query one (a file per benchmark), in its folder.
TABLE_FILES = {"standings": "results", "views": "views", "reported": "rows",
               "submissions": "submissions", "scores": "scores", "efficiency": "efficiency",
               "models": "models", "group_members": "group_members"}
PER_QUERY = "per_query"
GROUP_MEMBERS = "group_members"
SCHEMAS_DIR = "schemas"


def table_path(table: Table) -> str:
    """Where the export writes a table's one file (not the per-query table's)."""
    return f"{table.folder}/{TABLE_FILES[table.config]}.parquet"


def schema_path(table: Table) -> str:
    return f"{SCHEMAS_DIR}/{table.config}.schema.json"


def per_query_path(benchmark: str) -> str:
    return f"{_table(PER_QUERY).folder}/{benchmark}.parquet"


def _table(config: str) -> Table:
    return next(t for t in TABLES if t.config == config)


def card_tables(exported: Iterable[str]) -> list[tuple[Table, list[str]]]:
    """The tables an export of these files (paths in the folder) holds, in the card's
    order, each with its data files: what :func:`dataset_card` lists."""
    present = set(exported)
    tables = []
    for table in TABLES:
        if table.config == PER_QUERY:
            prefix = f"{table.folder}/"
            files = sorted(p for p in present if p.startswith(prefix) and p.endswith(".parquet"))
        else:
            files = [table_path(table)] if table_path(table) in present else []
        if files:
            tables.append((table, files))
    return tables


@dataclass
class ExportResult:
    out_dir: Path
    files: dict[str, int]          # path -> bytes
    seconds: float
    release: dict
    warnings: list[str]            # what the results hold and the export leaves out, and why


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.name


def reported_records(board: Board, root: Path) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for row in board.rows:
        if row.verified:
            continue
        src = row.system.source
        model = row.system.model
        base = {"system_id": row.system.system_id, "model": model.name,
                "model_id": record_of(row).id, "model_type": model.type,
                "parameters": model.parameters,
                "instruction_trained": model.instruction_trained,
                "source_kind": src.kind, "citation": src.citation, "table": src.table,
                "url": src.url, "path": src.path, "revision": src.revision,
                "mteb_version": src.mteb_version, "note": src.note,
                "results_file": _relative(row.origin, root)}
        for task_id, scores in sorted(row.system.tasks.items()):
            for metric, value in sorted(scores.metrics.items()):
                out.append({**base, "task": task_id, "group": None, "metric": metric,
                            "value": value})
            for group, metrics in sorted(scores.groups.items()):
                for metric, value in sorted(metrics.items()):
                    out.append({**base, "task": task_id, "group": group, "metric": metric,
                                "value": value})
    return out


def submission_records(board: Board) -> tuple[list[dict], list[dict], list[dict]]:
    """(submissions, their task and group figures, their efficiency entries)."""
    subs: list[dict] = []
    scores: list[dict] = []
    costs: list[dict] = []
    for row in board.submissions:
        info = row.submission
        assert info is not None
        model = row.system.model
        record = record_of(row)
        eff = info.efficiency
        subs.append({
            "submission_id": info.id, "system_id": row.system.system_id,
            "model": model.name, "model_id": record.id, "model_type": model.type,
            "parameters": model.parameters, "instruction_trained": model.instruction_trained,
            "licence": model.licence, "revision": model.revision, "links": list(model.links),
            "contact": info.contact, "produced_by": info.produced_by, "date": info.date,
            "hardware": info.hardware, "training_data": training_text(record),
            "efficiency": eff.model_dump(mode="json") if eff is not None else None,
            "tasks": len(row.system.tasks), "results_sha256": sha256_file(info.results_path),
            "scorer": dict(sorted(info.produced_by_scorer.items()))})
        for task_id, task in sorted(row.system.tasks.items()):
            bench = task_benchmark(task_id)
            off_pin = task_off_pin_revision(info.off_pin, task_id)
            for metric, value in sorted(task.metrics.items()):
                # The queries behind this metric's figure: FollowTable's original/nDCG@10
                # is of the topics alone, fewer than the task's query-instruction pairs.
                per_query = task.per_query.get(metric)
                scores.append({"submission_id": info.id, "task": task_id, "benchmark": bench,
                               "group": None, "metric": metric, "value": value,
                               "n_queries": len(per_query) if per_query else task.n_queries,
                               OFF_PIN: off_pin})
            for group, metrics in sorted(task.groups.items()):
                for metric, value in sorted(metrics.items()):
                    scores.append({"submission_id": info.id, "task": task_id,
                                   "benchmark": bench, "group": group, "metric": metric,
                                   "value": value, "n_queries": None, OFF_PIN: off_pin})
        if eff is not None:
            hw = eff.hardware
            for task_id, cost in eff.tasks.items():
                costs.append({"submission_id": info.id, "task": task_id,
                              "source": eff.source, **cost.model_dump(mode="json"),
                              "cpu": hw.cpu, "cpu_cores": hw.cpu_cores, "gpu": hw.gpu,
                              "gpu_count": hw.gpu_count, "precision": hw.precision,
                              "embedding_cache": eff.embedding_cache,
                              "measured_by": eff.measured_by, "date": eff.date})
    return subs, scores, costs


def model_records(board: Board) -> list[dict[str, object]]:
    records = {}
    for row in board.rows:
        rec = record_of(row)
        records.setdefault(rec.id, rec)
    out = []
    for rec in sorted(records.values(), key=lambda r: r.id):
        data = rec.training_data
        shared = [b.id for b in declared() if training_overlap(rec, b) is not None]
        out.append({"model_id": rec.id, "name": rec.name, "type": rec.type,
                    "parameters": rec.parameters, "instruction_trained": rec.instruction_trained,
                    "links": list(rec.links), "note": rec.note, "curated": not rec.derived,
                    "training_statement": data.statement.strip() if data else None,
                    "training_collections": list(data.collections) if data else None,
                    "training_instructions": list(data.instructions) if data else None,
                    "training_source": data.source if data else None,
                    "training_url": data.url if data else None,
                    "shares_sources_with": shared})
    return out


_JSON_TYPES = {pa.bool_(): "boolean", pa.int64(): "integer", pa.float64(): "number",
               pa.string(): "string"}


def json_schema(table: Table, schema: pa.Schema, nullable: Iterable[str]) -> dict:
    """A JSON Schema (2020-12) of one table's records, from its Parquet schema: each
    column's type, null where any record lacks it, and what it holds."""
    may_be_null = set(nullable)
    properties = {}
    for column in schema:
        kind = _JSON_TYPES.get(column.type, "string")
        prop: dict = {"type": [kind, "null"] if column.name in may_be_null else kind}
        if column.name in table.fields:
            prop["description"] = table.fields[column.name]
        if column.name in table.json:
            prop["contentMediaType"] = "application/json"
        properties[column.name] = prop
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"{EXPORT_FORMAT}/{table.config}.schema.json",
            "title": f"FollowBoard {table.config} record", "description": table.title,
            "type": "object", "properties": properties,
            "required": [f.name for f in schema], "additionalProperties": False}


def dataset_card(tables: Sequence[tuple[Table, list[str]]], release: dict) -> str:
    """README.md: the card's YAML header (``configs:``, each table's files) and what each
    table is."""
    lines = ["---", "pretty_name: FollowBoard results", "license: apache-2.0",
             "language: [en, fa, ru, zh, as, bn, gu, hi, kn, ml, mr, or, pa, ta, te, ur]",
             "tags: [leaderboard, information-retrieval, instruction-following]", "configs:"]
    for table, files in tables:
        path = files[0] if len(files) == 1 else f"{table.folder}/*.parquet"
        lines += [f"- config_name: {table.config}", "  data_files:", "  - split: train",
                  f"    path: {path}"]
        if table.config == "standings":
            lines.append("  default: true")
    lines += ["---", "", "# FollowBoard results", "",
              "The public leaderboard for instruction-following retrieval (FollowIR, "
              "mFollowIR, FollowTable, PI-Indic-Align) as data: its tables, every reported "
              "figure with its source, every verified submission's metadata, task figures, "
              "per-query scores and cost (measured by `leaderboard baselines` or declared "
              "by the submitter, as each record says), and the model records with their "
              "declared training data. Scores are fractions (the site shows x100).", "",
              f"Release **{release['name']}**"
              + (f", commit `{release['commit']}`{modified_text(release)}"
                 if release.get("commit") else "")
              + "; `release.json` lists the SHA-256 of every results file behind it and of "
              "every Parquet file and JSON Schema here (not of this card, which names the "
              "release, nor of `release.json` itself). Cite it with the repository's "
              "`CITATION.cff`, and cite each benchmark's own paper.", "",
              f"The tables' layout is format `{release['export_format']}` (release.json's "
              "`export_format`, and each JSON Schema's `$id`): it changes when a column "
              "changes its name or meaning, or a column or table is added.", "",
              "| config | files | what it holds |", "| --- | --- | --- |"]
    for table, files in tables:
        lines.append(f"| `{table.config}` | {', '.join(f'`{f}`' for f in files)} | "
                     f"{table.title} |")
    lines += ["", "Each table's record is described by a JSON Schema in `schemas/`, every "
              "column with what it holds; a column of lists or objects holds JSON text "
              "(its `contentMediaType` is `application/json`). Load "
              "one with `datasets.load_dataset(\"<this repository>\", \"per_query\")` or "
              "`pandas.read_parquet`. Efficiency figures name their hardware on every "
              "record: compare only records of the same hardware. Benchmark texts are not "
              "included: queries and documents are named by their ids.", "",
              "Every standings figure can be recomputed from these tables. `views` says "
              "what each column combines: its `tasks`, the metric of each "
              "(`task_metrics`), its `group` and its `convention`. A cell's figure is the "
              "row's that `from` names, else `system_id`'s (in `submissions` or "
              "`reported`): by its `basis`, one task's figure, the mean of the tasks' "
              "figures, the mean of those the row has, or (`published`) the row's figure "
              "of the column's `metric` under the first of `published_tasks` it has. A "
              "verified task figure is the mean of its `per_query` scores of the metric "
              "(`scores` gives it, alone for a metric with none), a group's over the "
              "queries `group_members` lists; the reference line's is the column's "
              "`reference`; a home column shows its `from_view`'s `from_column`.", "",
              "A verified figure scored on another revision of its benchmark's data than "
              "the one the registry pins now (after a revision bump, until it is scored "
              "again) names that revision in `off_pin_revision` (standings, scores, "
              "per_query): it is on other data than the other figures, and was tested "
              "against no row. Null there: on the pinned revision.", ""]
    return "\n".join(lines)


def export_dataset(results_root: Path, out_dir: Path, *, repo: RepositoryRef | None = None,
                   cache_dir: Path | None = None) -> ExportResult:
    """Write the dataset folder ``out_dir`` from the results under ``results_root``,
    published from ``repo`` (by default the checkout that holds them,
    :func:`~leaderboard.publish.site.repository.repository_ref`)."""
    start = time.perf_counter()
    repo = repository_ref(results_root) if repo is None else repo
    check_replaceable(out_dir, EXPORT_MARKER, EXPORTED_BY, ExportError)
    with replaced_folder(out_dir, EXPORT_MARKER, EXPORTED_BY, ExportError) as staging:
        board = load_board(results_root, cache_dir=cache_dir)
        subs, scores, costs = submission_records(board)
        contents = {
            "standings": standings_records(board), "views": column_records(board),
            "reported": reported_records(board, results_root),
            "submissions": subs, "scores": scores, "efficiency": costs,
            "models": model_records(board)}
        schemas: dict[str, tuple[Table, dict]] = {}
        for table in TABLES:
            if table.config == PER_QUERY:
                paths = write_per_query(board, staging / table.folder)
                if not paths:
                    continue
                schema = PER_QUERY_SCHEMA
                nullable: set[str] = {OFF_PIN}
            elif table.config == GROUP_MEMBERS:
                if not write_group_members(board, staging / table_path(table)):
                    continue
                schema, nullable = GROUP_MEMBERS_SCHEMA, set()
            else:
                records = contents[table.config]
                if not records:
                    continue
                arrow = records_table(records, types=table.types)
                write_parquet(arrow, staging / table_path(table))
                schema = arrow.schema
                nullable = {c for c in arrow.column_names if arrow.column(c).null_count}
            schemas[table.config] = (table, json_schema(table, schema, nullable))
        for table, schema_doc in schemas.values():
            path = staging / schema_path(table)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(schema_doc, indent=1, sort_keys=True) + "\n",
                            encoding="utf-8")
        files = {p.relative_to(staging).as_posix(): sha256_file(p)
                 for p in sorted(staging.rglob("*")) if p.is_file()}
        # The card names the release, and the release names every file but itself and the
        # card: the card is written from the manifest of the data files.
        release = release_manifest(results_root, repo, export=files,
                                   export_format=EXPORT_FORMAT)
        (staging / CARD_FILE).write_text(dataset_card(card_tables(files), release),
                                         encoding="utf-8")
        (staging / RELEASE_FILE).write_text(json.dumps(release, indent=1, sort_keys=True)
                                            + "\n", encoding="utf-8")
    sizes = {p.relative_to(out_dir).as_posix(): p.stat().st_size
             for p in sorted(out_dir.rglob("*")) if p.is_file()}
    warning = modified_warning(release)  # as `leaderboard build` says it
    return ExportResult(out_dir, sizes, time.perf_counter() - start, release,
                        board.warnings + ([warning] if warning else []))
