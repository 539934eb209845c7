"""Published paper tables -> reported leaderboard rows.

Each paper's tables are transcribed by hand into ``leaderboard/publish/reported/data/*.yaml``, cell
by cell as printed (``"13.4 -6.7 +5.0"``), together with a column map that says which task
and metric each printed column is and on which scale the paper prints it (x100 or as a
fraction). This module validates those files and turns them into :class:`ResultsFile`
objects: one row per (table, model), every row citing its paper and table, no per-query
scores.

Why cells are strings: a YAML float forgets trailing zeros ("0.260" would become 0.26), and
the printed precision is what tells a reader (and the average check) how much the paper
rounded. Cells are parsed as decimals and shifted by the scale, so no digits are invented,
and each row keeps them as printed (``TaskScores.printed``): the site shows a paper's figure
with its printed digits and sign, where its own figures have one decimal (x100) and never
read -0.0: a printed -2.34 as -2.34, a printed fraction 0.82 as 82, a printed -0.0 as -0.0.

The papers' "Average" columns are kept in the transcription and checked against the cells
by :func:`check_averages`. An average that names a ``task`` is stored there, as printed:
the site shows a paper's own average where it prints one (a published figure is shown as
published), and computes the same convention, the mean of the task figures, where it does
not. Those tasks, and the ones holding figures a table prints nothing but an average of
(FollowTable Table 5, PI-Indic Tables 4 and 6) or measured on an unnamed sample
(FollowTable Table 6), are paper-only task ids (see :data:`PAPER_ONLY_TASK_PREFIXES`) that
no scored task uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from leaderboard.benchmarks import BENCHMARKS, reported_only_prefixes
from leaderboard.benchmarks.protocols import relabel
from leaderboard.benchmarks.registry import all_tasks
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import read_yaml_file
from leaderboard.core.refusals import validation_problem
from leaderboard.publish.models import canonical_model_info
from leaderboard.submission.results import (
    ModelInfo,
    ModelType,
    ResultsFile,
    Source,
    SystemResult,
    TaskScores,
)

DATA_DIR = Path(__file__).resolve().parent / "data"

# Transcription file -> name of the results file it becomes, as each benchmark declares.
PAPER_SOURCES: dict[str, str] = {
    yaml_name: json_name
    for b in BENCHMARKS for yaml_name, json_name in b.paper_transcriptions.items()}

# Task ids that are not in the registry and never will be: figures a paper reports on data or
# aggregates this leaderboard does not score. They must not be confusable with scored tasks.
# Each benchmark declares its own (leaderboard.benchmarks); the site shows the same ids.
PAPER_ONLY_TASK_PREFIXES = reported_only_prefixes()


class TranscriptionError(FollowBoardError, ValueError):
    """A transcription YAML file is malformed; the message names the file and the key."""


class ColumnSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    task: str
    metric: str
    # 100: the paper prints the score x100; 1: the paper prints the fraction itself.
    scale: Literal[1, 100]
    # "swapped": the paper's figure was computed with mteb 1.x, which scored each run
    # against the other run's qrels; ``metric`` stays the paper's own label and the figure
    # is stored under the key that says which qrels it was computed against
    # (:mod:`.protocols`).
    qrels: Literal["as-labelled", "swapped"] = "as-labelled"

    @property
    def stored_metric(self) -> str:
        if self.qrels == "as-labelled" or "/" not in self.metric:
            return self.metric
        role, base = self.metric.rsplit("/", 1)
        return relabel(role, base, qrels_swapped=True)


class AverageSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    of: list[str] = Field(min_length=1)
    # A paper-only task id the printed average is stored under (None: checked, not stored),
    # with its metric key: by default the one metric of the columns it averages; given
    # when they differ (FollowIR's "Score": MAP@1000 on two collections, nDCG@5 on one).
    task: str | None = None
    metric: str | None = None


class RowDefaults(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: ModelType | None = None
    instruction_trained: bool | None = None


class RowSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str
    group: str | None = None
    type: ModelType | None = None
    parameters: int | None = Field(default=None, gt=0)
    instruction_trained: bool | None = None
    # The printed columns of this row when it has fewer cells than the table (PI-Indic models
    # that cover 4 of the 12 languages); default: all of the table's columns.
    columns: list[str] | None = None
    cells: str
    average: str | None = None
    # Average columns whose printed value does not match the cells; a known erratum of the
    # paper, written down so the check can tell it from a transcription slip.
    average_mismatch: dict[str, str] = Field(default_factory=dict)
    # Other printed facts of the row (e.g. relative runtime) that have no metric key.
    extra: dict[str, str] = Field(default_factory=dict)
    note: str | None = None


class TableSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table: str
    # A block of a table that repeats the models for another metric ("Recall@5").
    section: str | None = None
    caption: str | None = None
    note: str | None = None
    defaults: RowDefaults = Field(default_factory=RowDefaults)
    columns: list[ColumnSpec] = Field(min_length=1)
    averages: list[AverageSpec] = Field(default_factory=list)
    rows: list[RowSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> TableSpec:
        names = [c.name for c in self.columns]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate column names in {names}")
        for avg in self.averages:
            unknown = [n for n in avg.of if n not in names]
            if unknown:
                raise ValueError(f"average {avg.name!r} refers to unknown columns {unknown}")
        for avg in self.averages:
            if avg.task is None:
                continue
            parts = [c for c in self.columns if c.name in avg.of]
            if len({c.scale for c in parts}) != 1:
                raise ValueError(f"average {avg.name!r}: its columns are printed on "
                                 "different scales")
        avg_names = {a.name for a in self.averages}
        for i, row in enumerate(self.rows):
            where = f"rows.{i} ({row.model})"
            row_columns = row.columns if row.columns is not None else names
            unknown = [n for n in row_columns if n not in names]
            if unknown:
                raise ValueError(f"{where}: columns {unknown} are not table columns")
            cells = parse_cells(row.cells, f"{where}.cells")
            if len(cells) != len(row_columns):
                raise ValueError(f"{where}.cells: {len(cells)} cells for "
                                 f"{len(row_columns)} columns")
            if row.average is not None:
                printed = parse_cells(row.average, f"{where}.average")
                if len(printed) != len(self.averages):
                    raise ValueError(f"{where}.average: {len(printed)} values for "
                                     f"{len(self.averages)} average columns")
            elif self.averages:
                raise ValueError(f"{where}: the table has average columns but the row has none")
            bad = [k for k in row.average_mismatch if k not in avg_names]
            if bad:
                raise ValueError(f"{where}.average_mismatch: unknown average columns {bad}")
        return self


class PaperTranscription(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str = Field(pattern=r"^[a-z0-9-]+$")
    citation: str
    url: str | None = None
    paper_text: str
    note: str | None = None
    defaults: RowDefaults = Field(default_factory=RowDefaults)
    tables: list[TableSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _known_tasks(self) -> PaperTranscription:
        registry = all_tasks()
        for ti, table in enumerate(self.tables):
            for ci, col in enumerate(table.columns):
                where = f"tables.{ti}.columns.{ci}"
                if col.task in registry:
                    keys = registry[col.task].metric_keys()
                    if col.metric not in keys:
                        raise ValueError(f"{where}: metric {col.metric!r} is not one of task "
                                         f"{col.task!r}'s metric keys {keys}")
                elif not col.task.startswith(PAPER_ONLY_TASK_PREFIXES):
                    raise ValueError(
                        f"{where}: task {col.task!r} is neither a registry task nor a "
                        f"paper-only id (prefixes {', '.join(PAPER_ONLY_TASK_PREFIXES)})")
            for ai, avg in enumerate(table.averages):
                if avg.task is None:
                    continue
                parts = [c for c in table.columns if c.name in avg.of]
                if avg.metric is None and len({c.stored_metric for c in parts}) != 1:
                    raise ValueError(f"tables.{ti}.averages.{ai}: average {avg.name!r} "
                                     "averages several metrics; name the key it is stored "
                                     "under with 'metric'")
                if not avg.task.startswith(PAPER_ONLY_TASK_PREFIXES):
                    raise ValueError(
                        f"tables.{ti}.averages.{ai}: an average is stored under a paper-only "
                        f"task id (prefixes {', '.join(PAPER_ONLY_TASK_PREFIXES)}), not "
                        f"{avg.task!r}")
        return self


_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")


def parse_cells(text: str, where: str) -> list[Decimal]:
    """Split a printed row into decimals, keeping their printed precision."""
    values: list[Decimal] = []
    for token in text.split():
        if not _NUMBER.match(token):
            raise ValueError(f"{where}: {token!r} is not a number as printed in a table")
        try:
            values.append(Decimal(token))
        except InvalidOperation:  # pragma: no cover - the regex already rules this out
            raise ValueError(f"{where}: {token!r} is not a number") from None
    return values


def printed_fraction(printed: Decimal, scale: int) -> Decimal:
    """A printed cell as the fraction it stands for, its printed digits and sign kept:
    -2.34 (x100) is -0.0234, -0.0 (x100) is -0.000."""
    return printed.scaleb(-2) if scale == 100 else printed


def _store(scores: dict[str, tuple[float, str]], key: str, printed: Decimal,
           scale: int) -> None:
    """A printed figure under its metric key: its value, and its text as printed (the
    results file's ``printed``, which the site shows)."""
    fraction = printed_fraction(printed, scale)
    scores[key] = (float(fraction), format(fraction, "f"))


def _decimals(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    assert isinstance(exponent, int)
    return max(0, -exponent)


def half_unit(value: Decimal) -> Decimal:
    """Half a unit of the last printed digit: the most rounding can have moved the value."""
    return Decimal(5).scaleb(-_decimals(value) - 1)


def load_transcription(path: Path) -> PaperTranscription:
    """Read and validate one YAML transcription; errors name the file and the key."""
    raw = read_yaml_file(path, TranscriptionError)
    try:
        return PaperTranscription.model_validate(raw)
    except ValidationError as exc:
        problems = [validation_problem(err, PaperTranscription) for err in exc.errors()[:5]]
        more = f" (+{exc.error_count() - 5} more)" if exc.error_count() > 5 else ""
        raise TranscriptionError(f"{path}: " + "; ".join(problems) + more) from None


@dataclass(frozen=True)
class AverageCheck:
    """One printed Average cell compared with the mean of its row's printed cells."""

    table: str
    section: str | None
    model: str
    average: str
    printed: Decimal
    mean_of_cells: Decimal
    tolerance: Decimal
    flagged: bool  # listed in the row's average_mismatch (a known erratum)

    @property
    def matches(self) -> bool:
        return abs(self.printed - self.mean_of_cells) <= self.tolerance

    def describe(self) -> str:
        where = self.table + (f" [{self.section}]" if self.section else "")
        return (f"{where}, {self.model}, {self.average}: printed {self.printed}, "
                f"cells average {self.mean_of_cells:.4f} (tolerance {self.tolerance})")


def check_averages(doc: PaperTranscription) -> list[AverageCheck]:
    """Compare every printed Average with the mean of the printed cells it averages.

    Tolerance: half a unit of the average's last printed digit (its own rounding) plus half a
    unit of the cells' last printed digit (the mean of rounded cells is off the mean of the
    exact cells by at most that much). A row that prints only some columns (a model that does
    not cover every language) is averaged over the columns it prints, as the papers say.
    """
    checks: list[AverageCheck] = []
    for table in doc.tables:
        names = [c.name for c in table.columns]
        for row in table.rows:
            if row.average is None:
                continue
            row_columns = row.columns if row.columns is not None else names
            cells = dict(zip(row_columns, parse_cells(row.cells, row.model)))
            printed = parse_cells(row.average, row.model)
            for avg, value in zip(table.averages, printed):
                parts = [cells[n] for n in avg.of if n in cells]
                if not parts:
                    continue
                mean = sum(parts, Decimal(0)) / Decimal(len(parts))
                tolerance = half_unit(value) + max(half_unit(p) for p in parts)
                checks.append(AverageCheck(
                    table=table.table, section=table.section, model=row.model,
                    average=avg.name, printed=value, mean_of_cells=mean, tolerance=tolerance,
                    flagged=avg.name in row.average_mismatch))
    return checks


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.")


def _join_notes(*notes: str | None) -> str | None:
    kept = [" ".join(n.split()) for n in notes if n and n.strip()]
    return " ".join(kept) if kept else None


def build_paper_results(doc: PaperTranscription, yaml_name: str) -> ResultsFile:
    """One SystemResult per (table, model); sections of one table merge into one row."""
    rows: dict[tuple[str, str], SystemResult] = {}
    where = f"{yaml_name}"
    for ti, table in enumerate(doc.tables):
        columns = {c.name: c for c in table.columns}
        names = [c.name for c in table.columns]
        for ri, row in enumerate(table.rows):
            key = (table.table, row.model)
            row_where = f"{where}: tables.{ti}.rows.{ri} ({row.model})"
            row_columns = row.columns if row.columns is not None else names
            figures: dict[str, dict[str, tuple[float, str]]] = {}
            for name, printed in zip(row_columns, parse_cells(row.cells, row_where)):
                col = columns[name]
                _store(figures.setdefault(col.task, {}), col.stored_metric, printed,
                       col.scale)
            printed_averages = (parse_cells(row.average, row_where)
                                if row.average is not None else [])
            for avg, printed in zip(table.averages, printed_averages):
                if avg.task is None:
                    continue
                first = columns[avg.of[0]]
                _store(figures.setdefault(avg.task, {}), avg.metric or first.stored_metric,
                       printed, first.scale)
            tasks = {t: TaskScores(metrics={k: v for k, (v, _) in f.items()},
                                   printed={k: text for k, (_, text) in f.items()})
                     for t, f in figures.items()}
            model_type = row.type or table.defaults.type or doc.defaults.type or "other"
            trained = next((v for v in (row.instruction_trained,
                                        table.defaults.instruction_trained,
                                        doc.defaults.instruction_trained) if v is not None), None)
            # The registry's facts win over the table's (one model, one identity); the
            # printed name stays, it is what the paper calls the model.
            model = canonical_model_info(ModelInfo(name=row.model, type=model_type,
                                                   parameters=row.parameters,
                                                   instruction_trained=trained))
            extra = "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in row.extra.items())
            errata = "; ".join(f"{k.replace('_', ' ')}: {v}"
                               for k, v in row.average_mismatch.items())
            note = _join_notes(
                doc.note, table.note,
                f"Paper group: {row.group}." if row.group else None,
                f"Also printed: {extra}." if extra else None,
                f"Printed average that differs from its cells, shown as printed: {errata}."
                if errata and any(a.task for a in table.averages) else None, row.note)
            existing = rows.get(key)
            if existing is None:
                source = Source(kind="paper", citation=f"{' '.join(doc.citation.split()).rstrip('.')}, "
                                f"{table.table}", table=table.table, url=doc.url, note=note)
                rows[key] = SystemResult(
                    system_id=f"{doc.source}/{slug(table.table)}/{slug(row.model)}",
                    model=model, provenance="reported", source=source,
                    tasks=tasks)
                continue
            if existing.model != model:
                raise TranscriptionError(f"{row_where}: model facts differ from the same "
                                         f"model's earlier row in {table.table}")
            for task_id, part in tasks.items():
                scores = existing.tasks.setdefault(task_id, TaskScores(metrics={}, printed={}))
                clash = sorted(set(scores.metrics) & set(part.metrics))
                if clash:
                    raise TranscriptionError(f"{row_where}: {task_id} {clash} given twice")
                scores.metrics.update(part.metrics)
                scores.printed = {**(scores.printed or {}), **(part.printed or {})}
    systems = list(rows.values())
    ids = [s.system_id for s in systems]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise TranscriptionError(f"{where}: model names collide into system ids {dupes}")
    return ResultsFile(kind="reported",
                       produced_by={"generator": "leaderboard.publish.reported.papers",
                                    "transcription": f"leaderboard/publish/reported/data/{yaml_name}"},
                       systems=systems)


def load_paper_results(yaml_name: str, data_dir: Path = DATA_DIR) -> ResultsFile:
    return build_paper_results(load_transcription(data_dir / yaml_name), yaml_name)
