"""The site's pages and home columns of FOLLOWIR (:mod:`leaderboard.benchmarks.followir`).

Loaded by name when the site is built (:func:`leaderboard.benchmarks.declaration.site_views`):
a one-task `leaderboard eval` reads the declaration and never needs the view classes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from leaderboard.benchmarks.followir import FOLLOWIR, FOLLOWIR_PAPER_AVERAGE, FOLLOWIR_TOPIC
from leaderboard.benchmarks.protocols import SWAPPED_ORIGINAL
from leaderboard.core.measures import label as measure_label
from leaderboard.benchmarks.views import (
    Chart,
    Column,
    HomeColumn,
    Page,
    Section,
    View,
    column,
)

SWAPPED_QRELS_NOTE = (
    "Standard metrics come in two protocols that are never mixed in one column. Verified "
    "rows and mteb 2.x files score the original-instruction run against the original "
    "qrels (Score, MAP@1000, nDCG@5, nDCG@10). mteb 1.x loaded the two qrels the wrong way "
    "round (mteb 1.12.75, AbsTaskInstructionRetrieval.py lines 112-113): what its files and "
    "the FollowIR paper's Table 2 label \"original\" is the original-instruction run scored "
    "against the changed qrels, shown in the columns marked \"vs changed qrels\" (median "
    "Core17 MAP@1000 0.153 over 158 mteb 1.x rows against 0.345 over 33 mteb 2.x rows). "
    "p-MRR compares the two runs and is unaffected.")


def _column(task_ids: tuple[str, ...], metric: str, label: str, **options: Any) -> Column:
    """A FollowIR column: its tests take one value per topic (a unit sampled
    independently, :mod:`leaderboard.benchmarks.units`)."""
    return column(task_ids, metric, label, sampling=FOLLOWIR_TOPIC, **options)


def _swapped(metric: str) -> str:
    """The key of a standard metric that a source labels ``original`` but computed against
    the changed qrels (:mod:`leaderboard.benchmarks.protocols`)."""
    return f"{SWAPPED_ORIGINAL}/{metric.rsplit('/', 1)[-1]}"


def _followir_section() -> Section:
    tasks = {t.params["collection"]: t for t in FOLLOWIR.tasks}
    names = {"robust04": "Robust04", "news21": "News21", "core17": "Core17"}
    ids = tuple(t.id for t in tasks.values())
    headline = tuple(t.headline_metric for t in tasks.values())
    paper = (FOLLOWIR_PAPER_AVERAGE,)
    avg_cols = [
        replace(_column(ids, "p-MRR", "p-MRR", col_id="p-MRR", unit="collection"),
                prefer=paper),
        Column(id="score", label="Score", metric="headline", tasks=ids, task_metrics=headline,
               unit="collection", sampling=FOLLOWIR_TOPIC,
               help="mean of each collection's standard metric (MAP@1000 for Robust04 and "
                    "Core17, nDCG@5 for News21), as in the FollowIR paper: the "
                    "original-instruction run scored against the original qrels"),
        Column(id="score-vs-changed-qrels", label="Score (vs changed qrels)",
               metric="headline-vs-changed-qrels", tasks=ids, unit="collection",
               sampling=FOLLOWIR_TOPIC,
               task_metrics=tuple(_swapped(m) for m in headline), prefer=paper,
               help="the same mean as the source labels it 'original' (mteb 1.x "
                    "individual.original, FollowIR paper Table 2), but computed against the "
                    "changed qrels: not comparable with Score"),
    ]
    per: list[View] = []
    for key, task in tasks.items():
        std = task.headline_metric
        label = measure_label(std)
        avg_cols += [_column((task.id,), std, f"{names[key]} {label}", col_id=f"{key}:{std}"),
                     _column((task.id,), "p-MRR", f"{names[key]} p-MRR", col_id=f"{key}:p-MRR")]
        per.append(View(
            id=task.id, label=names[key], title=task.title,
            columns=(_column((task.id,), "p-MRR", "p-MRR"),
                     _column((task.id,), std, label,
                           help=f"{label}: the original-instruction run against the original "
                                "qrels"),
                     _column((task.id,), "original/nDCG@10", "nDCG@10",
                           help="nDCG@10: the original-instruction run against the original "
                                "qrels"),
                     _column((task.id,), _swapped(std), f"{label} (vs changed qrels)",
                           help=f"{label} that the source labels 'original' (mteb 1.x, "
                                "FollowIR paper) but computed against the changed qrels"),
                     _column((task.id,), _swapped("nDCG@10"), "nDCG@10 (vs changed qrels)",
                           help="nDCG@10 that mteb 1.x labels 'original' but computed "
                                "against the changed qrels")),
            note=SWAPPED_QRELS_NOTE,
        ))
    average = View(id="followir/average", label="Average", title="FollowIR average",
                   columns=tuple(avg_cols), breakdown=False,
                   note="Each average is the mean of the three collections' figures, as the "
                        "FollowIR paper's Table 2 prints it (each collection weighs one "
                        "third, whatever its number of queries); a system needs all three. "
                        "Its test weighs each query by 1 / (3 x its collection's queries), "
                        "so it compares exactly that mean. " + SWAPPED_QRELS_NOTE)
    return Section(
        id="followir", title="FollowIR", views=(average, *per),
        intro="Three TREC collections (Robust04, News21, Core17) rerank a fixed 1,000-document "
              "pool with the original and an altered instruction. The standard metric is "
              "computed with the original instruction. " + SWAPPED_QRELS_NOTE,
        chart=Chart(x_column="score", y_column="p-MRR", x_label="Score (MAP@1000 / nDCG@5)",
                    y_label="p-MRR"),
    )



def pages() -> tuple[Page, ...]:
    return (Page(path="followir.md", title="FollowIR", sections=(_followir_section(),),
                 intro="Weller et al., FollowIR: instruction following in reranking TREC "
                       "collections. Primary metric p-MRR."),)


def home() -> tuple[tuple[HomeColumn, str], ...]:
    return ((HomeColumn("followir", "FollowIR p-MRR", "followir/average", "p-MRR"),
             "followir.md"),)


