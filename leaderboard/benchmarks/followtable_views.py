"""The site's pages and home columns of FOLLOWTABLE (:mod:`leaderboard.benchmarks.followtable`).

Loaded by name when the site is built (:func:`leaderboard.benchmarks.declaration.site_views`):
a one-task `leaderboard eval` reads the declaration and never needs the view classes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from leaderboard.benchmarks.followtable import (
    FOLLOWTABLE,
    FOLLOWTABLE_CONSTRAINTS,
    FOLLOWTABLE_DATASETS,
    FOLLOWTABLE_TOPIC,
    FT_PAPER_AVERAGE,
    FT_PAPER_NFR,
)
from leaderboard.benchmarks.views import (
    Chart,
    Column,
    HomeColumn,
    Page,
    Section,
    View,
    column,
)

FOLLOWTABLE_CONSTRAINT_NAMES = {
    "C1": "C1 semantic boundary", "C2": "C2 exclusive topic", "S1": "S1 attribute-centric",
    "S2": "S2 entity-centric", "S3": "S3 granularity-centric",
}


def _column(task_ids: tuple[str, ...], metric: str, label: str, **options: Any) -> Column:
    """A FollowTable column: its tests take one value per topic (a unit sampled
    independently, :mod:`leaderboard.benchmarks.units`)."""
    return column(task_ids, metric, label, sampling=FOLLOWTABLE_TOPIC, **options)


def _followtable_columns(task_ids: tuple[str, ...], group: str | None = None) -> tuple[Column, ...]:
    return (
        _column(task_ids, "original/nDCG@10", "nDCG@10 (query)", group=group, unit="dataset",
                help="nDCG@10 of the topic-only query against the query's relevant tables"),
        _column(task_ids, "altered/nDCG@10", "nDCG@10 (+instruction)", group=group,
                unit="dataset",
                help="nDCG@10 of query + instruction against the instruction-compliant tables"),
        # The paper's p-MRR is not the board's (PMRR_NOTE): never ranked against it.
        _column(task_ids, "p-MRR", "p-MRR", group=group, unit="dataset",
                reported_comparable=False),
        _column(task_ids, "IRS", "IRS", group=group, unit="dataset"),
    )


AVERAGE_NOTE = ("Each average is the mean of the four datasets' figures, as the paper's "
                "Tables 4 and 5 print it (each dataset weighs one quarter, whatever its "
                "number of pairs), for verified and reported rows alike; a system needs all "
                "four. The significance test weighs each query-instruction pair by "
                "1 / (4 x its dataset's pairs), so it compares exactly that mean, and takes "
                "each topic, its pairs' weighted scores summed, as one unit.")


# The paper's p-MRR (Table 4) and the board's share a column of every table with reported
# rows, and they are not one convention: the measurements are on the Metrics page (p-MRR).
PMRR_NOTE = ("p-MRR of reported and verified rows is not comparable. The FollowTable "
             "paper does not state how deep its runs rank the corpus for p-MRR, nor where a "
             "judged table a run leaves out ranks, and the board's convention (runs of 1,000 "
             "tables, such a table ranked right after the run's last, as MTEB does) does not "
             "reproduce its figures: the verified BM25 (bm25s) scores +35.4 on WTR where the "
             "paper's BM25 prints +3.8, though their nDCG@10 with the instruction (13.8, 12.2) "
             "and IRS (+3.6, +2.5) are close, and no cut-off (10, 20, 50, 100 or 1,000 "
             "tables) reproduces the paper's four BM25 figures (Metrics page, p-MRR); a "
             "1,000-deep p-MRR also swings with the BM25 settings (WTR: -1.0 to +67.4). "
             "Do not rank a reported p-MRR against a verified one; IRS moves far less with "
             "the ranking depth and the BM25 settings.")


def _followtable_sections() -> tuple[Section, Section, Section, Section]:
    tasks = {t.id.split("/")[1]: t for t in FOLLOWTABLE.tasks}
    ids = tuple(t.id for t in tasks.values())
    chart = Chart(x_column="altered/nDCG@10", y_column="IRS",
                  x_label="nDCG@10 (+instruction)", y_label="IRS")
    per = [View(id=t.id, label=FOLLOWTABLE_DATASETS[k], title=t.title,
                columns=_followtable_columns((t.id,)), tiered_column=3, sort_column=3,
                note=PMRR_NOTE)
           for k, t in tasks.items()]
    average = View(id="followtable/average", label="Average", title="FollowTable average",
                   columns=tuple(replace(c, prefer=(FT_PAPER_AVERAGE,))
                                 for c in _followtable_columns(ids)),
                   tiered_column=3, sort_column=3, breakdown=False,
                   note=AVERAGE_NOTE + " Reported rows show the paper's printed average "
                        "(Table 4 for retrievers, Table 5 for re-rankers, which print "
                        "nothing else). " + PMRR_NOTE)
    datasets = Section(
        id="followtable", title="FollowTable datasets", views=(average, *per), chart=chart,
        intro="Table retrieval over four corpora. The original run answers the topic-only "
              "query; the altered run answers query + instruction.")
    # The model x constraint grid: IRS and p-MRR of every constraint type, each the mean of
    # the four datasets' figures for that type (the same values as the constraint views).
    grid_cols = tuple(
        _column(ids, metric, f"{c} {metric}", col_id=f"{c}:{metric}", group=c, unit="dataset",
                heat=True, reported_comparable=metric != "p-MRR", help=f"{metric} on {FOLLOWTABLE_CONSTRAINT_NAMES[c]} instructions, "
                                "the mean of the four datasets' figures")
        for metric in ("IRS", "p-MRR") for c in FOLLOWTABLE_CONSTRAINTS)
    grid = Section(
        id="followtable-grid", title="FollowTable model × constraint type",
        views=(View(id="followtable/grid", label="Grid",
                    title="FollowTable IRS and p-MRR by constraint type",
                    columns=grid_cols, sort_column=0, tiered_column=None, breakdown=False,
                    note="Each cell is the mean of the four datasets' figures for the "
                         "constraint type, the value of that type's own table below (where "
                         "its tests are). The paper gives these only as a chart (Figure 5), "
                         "so the grid holds verified rows only."),),
        intro="Which constraint types are hard: IRS and p-MRR of every model on each type, "
              "coloured from the lowest (red) through 0 to the highest (blue) of each column.")
    constraint_views = []
    for c in FOLLOWTABLE_CONSTRAINTS:
        cols = _followtable_columns(ids, group=c) + tuple(
            _column((t.id,), "IRS", f"{FOLLOWTABLE_DATASETS[k]} IRS", col_id=f"{k}:IRS", group=c)
            for k, t in tasks.items())
        constraint_views.append(View(
            id=f"followtable/constraint/{c}", label=c,
            title=f"FollowTable {FOLLOWTABLE_CONSTRAINT_NAMES[c]}", columns=cols,
            sort_column=3, tiered_column=3,
            note="Each average is the mean of the four datasets' figures over the "
                 "instructions of this constraint type; the test weighs each pair by "
                 "1 / (4 x its dataset's pairs of this type) and takes each topic, its "
                 "pairs of this type summed, as one unit."))
    constraints = Section(
        id="followtable-constraints", title="FollowTable by constraint type",
        views=tuple(constraint_views), chart=chart,
        intro="C1 semantic boundary, C2 exclusive topic (content scope); S1 attribute-centric, "
              "S2 entity-centric, S3 granularity-centric (schema-grounded structure).")
    nfr = View(
        id="followtable/nfr", label="NFR", title="FollowTable negation failure rate (reported)",
        columns=(column((FT_PAPER_NFR,), "NFR", "NFR"),),
        sort_column=0, tiered_column=None, breakdown=False,
        note="FollowTable paper, Table 6: measured on 50 sampled query-instruction pairs; "
             "not computed here, so not comparable with verified rows.")
    negation = Section(
        id="followtable-negation", title="Negation traps (reported)", views=(nfr,),
        reported_only=True,
        intro="How often a model promotes tables that contain an entity the instruction "
              "explicitly excludes (the paper's 'positive attention bias').")
    return datasets, grid, constraints, negation



def pages() -> tuple[Page, ...]:
    ft_datasets, ft_grid, ft_constraints, ft_negation = _followtable_sections()
    return (Page(path="followtable.md", title="FollowTable",
                 sections=(ft_datasets, ft_grid, ft_constraints, ft_negation),
                 intro="FollowTable: instruction-following table retrieval. Primary metric "
                       "IRS."),)


def home() -> tuple[tuple[HomeColumn, str], ...]:
    return ((HomeColumn("followtable", "FollowTable IRS", "followtable/average", "IRS"),
             "followtable.md"),)


