"""The site's pages and home columns of MFOLLOWIR (:mod:`leaderboard.benchmarks.mfollowir`).

Loaded by name when the site is built (:func:`leaderboard.benchmarks.declaration.site_views`):
a one-task `leaderboard eval` reads the declaration and never needs the view classes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from leaderboard.benchmarks.declaration import Benchmark
from leaderboard.benchmarks.mfollowir import (
    MFOLLOWIR,
    MFOLLOWIR_CL,
    MFOLLOWIR_LANGUAGES,
    MFOLLOWIR_PAPER_AVERAGE,
    MFOLLOWIR_TOPIC,
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


def _column(task_ids: tuple[str, ...], metric: str, label: str, **options: Any) -> Column:
    """An mFollowIR column: its tests take one value per topic (a unit sampled
    independently, :mod:`leaderboard.benchmarks.units`)."""
    return column(task_ids, metric, label, sampling=MFOLLOWIR_TOPIC, **options)


def _mfollowir_section(declared: Benchmark, setting: str) -> Section:
    benchmark = declared.id
    tasks = {t.params["language"]: t for t in declared.tasks}
    ids = tuple(t.id for t in tasks.values())
    paper = (MFOLLOWIR_PAPER_AVERAGE[benchmark],)
    avg_cols = [replace(_column(ids, "p-MRR", "p-MRR", unit="language"),
                        prefer=paper),
                replace(_column(ids, "original/nDCG@20", "nDCG@20", unit="language",
                                help="nDCG@20 with the original instruction"), prefer=paper)]
    # The model x language grid, as the paper's Tables 3 and 4 lay it out.
    for metric, label in (("p-MRR", "p-MRR"), ("original/nDCG@20", "nDCG@20")):
        avg_cols += [_column((task.id,), metric, f"{MFOLLOWIR_LANGUAGES[lang]} {label}",
                             col_id=f"{lang}:{metric}", heat=True)
                     for lang, task in tasks.items()]
    per: list[View] = []
    for lang, task in tasks.items():
        name = MFOLLOWIR_LANGUAGES[lang]
        per.append(View(
            id=task.id, label=name, title=task.title,
            columns=(_column((task.id,), "p-MRR", "p-MRR"),
                     _column((task.id,), "original/nDCG@20", "nDCG@20",
                           help="nDCG@20 with the original instruction")),
        ))
    average = View(id=f"{benchmark}/average", label="Average",
                   title=f"mFollowIR {setting} average", columns=tuple(avg_cols),
                   breakdown=False,
                   note="The averages are the mean of the three languages' figures, as the "
                        "paper's Tables 3 and 4 print them; a system needs all three. Its "
                        "test weighs each query by 1 / (3 x its language's queries), so it "
                        "compares exactly that mean, and takes each NeuCLIR topic, in every "
                        "language that has it, as one unit. The language columns are the "
                        "model x language grid.")
    intro = ("English queries and instructions, documents in Persian, Russian or Chinese."
             if setting == "cross-lingual" else
             "Queries, instructions and documents all in Persian, Russian or Chinese.")
    return Section(id=benchmark, title=f"mFollowIR {setting}", intro=intro,
                   views=(average, *per),
                   chart=Chart(x_column="original/nDCG@20", y_column="p-MRR",
                               x_label="nDCG@20", y_label="p-MRR"))



def pages() -> tuple[Page, ...]:
    return (Page(path="mfollowir.md", title="mFollowIR",
                 sections=(_mfollowir_section(MFOLLOWIR_CL, "cross-lingual"),
                           _mfollowir_section(MFOLLOWIR, "multilingual")),
                 intro="Weller et al., mFollowIR: multilingual instruction following on TREC "
                       "NeuCLIR. Primary metric p-MRR; standard metric nDCG@20."),)


def home() -> tuple[tuple[HomeColumn, str], ...]:
    return ((HomeColumn("mfollowir-cl", "mFollowIR cross-lingual p-MRR", "mfollowir-cl/average",
                        "p-MRR"), "mfollowir.md"),
            (HomeColumn("mfollowir", "mFollowIR multilingual p-MRR", "mfollowir/average",
                        "p-MRR"), "mfollowir.md"))


