"""The site's pages and home columns of PI_INDIC (:mod:`leaderboard.benchmarks.pi_indic`).

Loaded by name when the site is built (:func:`leaderboard.benchmarks.declaration.site_views`):
a one-task `leaderboard eval` reads the declaration and never needs the view classes.
"""

from __future__ import annotations

from dataclasses import replace

from leaderboard.benchmarks.pi_indic import (
    PI_FULL_PREFIX,
    PI_INDIC,
    PI_PAIR,
    PI_PERSONA,
    PI_T4_SCORED_METRICS,
)
from leaderboard.benchmarks.views import (
    AveragePolicy,
    Chart,
    Column,
    HomeColumn,
    Page,
    Section,
    View,
    column,
)
from leaderboard.core.data.layout_files import PI_INDIC_LANGUAGES
from leaderboard.core.measures import measure_of
from leaderboard.core.tasks import Task

PI_RETRIEVAL_METRICS = ("R@1", "R@5", "R@10", "RR@10")
# T4's columns: every measure a T4 score sheet holds that is better one way, in its order.
# The shares whose direction is "neither" (of pairs predicted compatible, of compatible
# pairs) describe the predictions and the data, not skill, so no column ranks by them.
PI_T4_METRICS = tuple(m for m in PI_T4_SCORED_METRICS if measure_of(m).direction != "neither")
# The paper prints T4 once, over its pooled test set: the val150 average follows the
# convention of its other per-language averages instead, and says so.
T4_CONVENTION = (", as the other PI-Indic averages (the paper reports T4 once, on its "
                 "pooled test set)")
PI_KINDS = {  # section id -> (registry pi_task, setting, title)
    "t1": ("t1", "monolingual", "T1 monolingual persona → instruction"),
    "t2": ("t2", "cross-lingual", "T2 cross-lingual persona → instruction"),
    "t3": ("t3", "monolingual", "T3 monolingual instruction → persona"),
    "t3x": ("t3", "cross-lingual", "T3 cross-lingual instruction → persona"),
    "t4": ("t4", None, "T4 persona–instruction compatibility"),
}


def _pi_tasks(kind: str) -> dict[str, list[Task]]:
    """Registry tasks of one PI-Indic section, grouped by query language."""
    pi_task, setting, _ = PI_KINDS[kind]
    out: dict[str, list[Task]] = {lang: [] for lang in PI_INDIC_LANGUAGES}
    for t in PI_INDIC.tasks:
        if t.views.get("pi_task") != pi_task:
            continue
        if setting is not None and t.views.get("setting") != setting:
            continue
        out[t.views["language"]].append(t)
    return out


def _pi_columns(kind: str, task_ids: tuple[str, ...], average: AveragePolicy, unit: str
                ) -> tuple[tuple[Column, ...], int, int | None]:
    """Columns, default sort column and tiered column of a PI-Indic view."""
    if kind == "t4":
        cols = tuple(replace(column(task_ids, m, "Bal. acc." if m == "Balanced accuracy"
                                    else m, average=average, sampling=PI_PERSONA, unit=unit),
                             convention_source=T4_CONVENTION)
                     for m in PI_T4_METRICS)
        # Sorted and tiered on AUROC, the task's primary metric (the paper names its
        # classification leader by it): Accuracy is decided by the class balance.
        return cols, 0, 0
    cols = tuple(column(task_ids, m, m, average=average, sampling=PI_PAIR, unit=unit)
                 for m in PI_RETRIEVAL_METRICS)
    return cols, 3, 3


def _pi_section(kind: str) -> Section:
    by_lang = _pi_tasks(kind)
    _, setting, title = PI_KINDS[kind]
    all_ids = tuple(t.id for ts in by_lang.values() for t in ts)
    xling = setting == "cross-lingual"
    cols, sort_col, tier_col = _pi_columns(kind, all_ids, "all",
                                           "language pair" if xling else "language")
    primary = cols[tier_col if tier_col is not None else sort_col]
    # The model x language grid: the primary metric per query language, as a heatmap.
    per_lang_cols = tuple(
        replace(column(tuple(t.id for t in ts), primary.metric, f"{PI_INDIC_LANGUAGES[lang]}",
                       col_id=f"{lang}:{primary.metric}", sampling=primary.sampling,
                       unit="target language", heat=True),
                convention_source=primary.convention_source)
        for lang, ts in by_lang.items())
    note = ("Average over all 132 ordered language pairs" if xling
            else "Average over the 12 languages") + (
        "; a system needs every one. The language columns are the model x language grid "
        f"of {primary.label}, each query language "
        + ("averaged over its 11 target languages" if xling else "on its own")
        + (". Every test takes each persona once (its eleven pairs, in every language)."
           if kind == "t4" else
           ". Every test takes each persona-instruction pair once, whatever the number of "
           "languages it is averaged over."))
    average = View(id=f"pi-indic/{kind}/average", label="Average", title=f"PI-Indic val150 {title}",
                   columns=cols + per_lang_cols, sort_column=sort_col, tiered_column=tier_col,
                   breakdown=False, note=note)
    views = [average]
    for lang, ts in by_lang.items():
        ids = tuple(t.id for t in ts)
        lcols, lsort, ltier = _pi_columns(kind, ids, "all", "target language")
        views.append(View(
            id=f"pi-indic/{kind}/{lang}", label=PI_INDIC_LANGUAGES[lang],
            title=f"PI-Indic val150 {title}, {PI_INDIC_LANGUAGES[lang]}"
                  + (" queries (mean over the 11 target languages)" if xling else ""),
            columns=lcols, sort_column=lsort, tiered_column=ltier))
    intro = {
        "t1": "Retrieve the instruction that fits a persona, both in the same language.",
        "t2": "Retrieve the instruction for a persona written in another language; each tab "
              "is a query language, averaged over the 11 document languages.",
        "t3": "The reverse direction: retrieve the persona an instruction was written for.",
        "t3x": "Reverse retrieval across languages; each tab is a query language, averaged "
               "over the 11 document languages.",
        "t4": "Classify persona–instruction pairs as compatible or not from predicted "
              "probabilities: each persona's own instruction against its 10 lexically "
              "closest other instructions, scored on the test half of the personas (a "
              "method may fit on the other, the calibration half; the labels of both are "
              "in the public data). One pair in eleven is "
              "compatible, so answering 'incompatible' every time scores 90.9% Accuracy: "
              "the table is sorted and tiered on AUROC, the task's primary metric, with "
              "DeLong's test taking each persona as one unit (its eleven pairs in every "
              "language), and the no-skill reference row shows what a constant answer "
              "scores in every column. How the pairs are built and how this differs from "
              "the paper: see the Metrics page.",
    }[kind]
    chart = (Chart(x_column="Balanced accuracy", y_column="AUROC", x_label="Balanced accuracy",
                   y_label="AUROC")
             if kind == "t4" else
             Chart(x_column="R@1", y_column="RR@10", x_label="R@1", y_label="RR@10"))
    return Section(id=f"pi-indic-{kind}", title=f"PI-Indic {title}", intro=intro,
                   views=tuple(views), chart=chart)


# Reported full-set rows: the authors' result files give one task per language or
# language pair; the paper's tables sometimes give only their own average of a task kind
# (these task names, after PI_FULL_PREFIX) or the T4 figures over all languages ("all").
PI_FULL_KINDS = {  # section kind -> (title, task-id stem, own-average tasks)
    "t1": ("T1 monolingual", "t1", ("t1/avg",)),
    "t2": ("T2 cross-lingual", "t2", ("t2/avg",)),
    "t3": ("T3 monolingual", "t3", ("t3/avg",)),
    "t3x": ("T3 cross-lingual", "t3", ("t3/xling-avg",)),
    "t4": ("T4 test", "t4", ("t4/all",)),
    "t4-dev": ("T4 dev", "t4-dev", ("t4-dev/all",)),
}
PI_FULL_T4_METRICS = (("AUROC", "AUROC"), ("AUPRC", "AUPRC"), ("Accuracy", "Accuracy"),
                      ("ECE", "ECE"), ("calibrated/Accuracy", "Accuracy (calibrated)"),
                      ("calibrated/ECE", "ECE (calibrated)"))


def _pi_full_section() -> Section:
    """Reported figures on the authors' full data: one view per task kind, never ranked
    with val150, averaged over the languages each row reports (as the paper does)."""
    langs = list(PI_INDIC_LANGUAGES)
    views = []
    for kind, (title, stem, own) in PI_FULL_KINDS.items():
        if kind in ("t2", "t3x"):
            by_lang = {src: tuple(f"{PI_FULL_PREFIX}{stem}/{src}-{tgt}" for tgt in langs
                                  if tgt != src) for src in langs}
        else:
            by_lang = {lang: (f"{PI_FULL_PREFIX}{stem}/{lang}",) for lang in langs}
        all_ids = tuple(i for ids in by_lang.values() for i in ids)
        prefer = tuple(PI_FULL_PREFIX + t for t in own)
        metrics = (PI_FULL_T4_METRICS if stem.startswith("t4")
                   else tuple((m, m) for m in PI_RETRIEVAL_METRICS))
        xling = kind in ("t2", "t3x")
        cols = tuple(column(all_ids, m, label, average="available",
                            unit="language pair" if xling else "language")
                     for m, label in metrics)
        cols = tuple(replace(c, prefer=prefer) for c in cols)
        sort_col = 0 if stem.startswith("t4") else 3
        primary = cols[sort_col]
        # The model x language grid of the primary metric, as the paper's tables print it.
        cols += tuple(column(ids, primary.metric, PI_INDIC_LANGUAGES[lang],
                             col_id=f"{lang}:{primary.metric}", average="available",
                             unit="target language", heat=True)
                      for lang, ids in by_lang.items())
        views.append(View(
            id=f"pi-indic-full/{kind}", label=title,
            title=f"PI-Indic full set (reported) {title}", columns=cols, sort_column=sort_col,
            tiered_column=None, breakdown=False,
            note="Reported by the PI-Indic-Align authors on their full, unreleased data: not "
                 "comparable with the val150 tables and never ranked with them. The first "
                 "columns are the row's own published average when it has one, else the mean "
                 "over the languages (or language pairs) it reports; a cell's details give the "
                 "count."))
    return Section(
        id="pi-indic-full", title="Reported on the paper's full set", views=tuple(views),
        reported_only=True,
        intro="These figures come from the PI-Indic-Align paper and the authors' published "
              "result files, computed on their full data, which is not released. They are "
              "shown for reference only: the val150 tables score the 150 public pairs.")



def pages() -> tuple[Page, ...]:
    return (
        Page(path="pi-indic/index.md", title="PI-Indic overview", nav=("PI-Indic", "Overview"),
             sections=(_pi_full_section(),),
             intro="PI-Indic-Align val150: the 150 human-validated persona–instruction pairs "
                   "in 12 Indian languages."),
        Page(path="pi-indic/t1.md", title="PI-Indic T1", nav=("PI-Indic", "T1 monolingual"),
             sections=(_pi_section("t1"),), intro=""),
        Page(path="pi-indic/t2.md", title="PI-Indic T2", nav=("PI-Indic", "T2 cross-lingual"),
             sections=(_pi_section("t2"),), intro=""),
        Page(path="pi-indic/t3.md", title="PI-Indic T3", nav=("PI-Indic", "T3 monolingual"),
             sections=(_pi_section("t3"),), intro=""),
        Page(path="pi-indic/t3x.md", title="PI-Indic T3 cross-lingual",
             nav=("PI-Indic", "T3 cross-lingual"), sections=(_pi_section("t3x"),), intro=""),
        Page(path="pi-indic/t4.md", title="PI-Indic T4", nav=("PI-Indic", "T4 compatibility"),
             sections=(_pi_section("t4"),), intro=""),
    )


def home() -> tuple[tuple[HomeColumn, str], ...]:
    # The 150 validated pairs scored here, and the authors' figures on their full,
    # unreleased data, which are never ranked with them.
    return ((HomeColumn("pi-indic", "PI-Indic val150 T1 RR@10", "pi-indic/t1/average", "RR@10"),
             "pi-indic/t1.md"),
            # T4 is a task of its own kind (classification), ranked and tested on AUROC.
            (HomeColumn("pi-indic-t4", "PI-Indic val150 T4 AUROC", "pi-indic/t4/average",
                        "AUROC"), "pi-indic/t4.md"),
            (HomeColumn("pi-indic-full", "PI-Indic full set T1 RR@10 (reported)",
                        "pi-indic-full/t1", "RR@10"), "pi-indic/index.md"))


