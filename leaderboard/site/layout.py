"""What the site shows: pages, sections (sets of tabs) and views (tables), from the registry.

A *view* is one leaderboard table: rows are systems, columns are metric values, each
column the mean of one metric over one or more tasks (an "average" view averages the
same metric over several collections, languages or datasets). One column per view is
*tiered*: the significance tiers (leader / tied with leader / below leader) come from
its per-query scores. Views have stable ids (``followir/robust04``) from which their
anchors and download file names derive, so permalinks survive new tasks being added.

Nothing here reads results; :mod:`leaderboard.site.board` fills the views with rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import Literal

from leaderboard.registry import (
    FOLLOWTABLE_CONSTRAINTS,
    FOLLOWTABLE_DATASETS,
    MFOLLOWIR_LANGUAGES,
    PI_INDIC_LANGUAGES,
    Task,
    all_tasks,
    higher_is_better,
)
from leaderboard.reported.protocols import SWAPPED_ORIGINAL

# Reported PI-Indic rows come from the authors' full (unreleased) data. Their task ids
# mirror the val150 ones with this prefix and are never mixed into val150 rankings.
PI_FULL_PREFIX = "pi-indic-full/"
PI_VAL_PREFIX = "pi-indic-val150/"
# Figures the FollowTable paper prints only as an average over its four datasets (Table 5,
# rerankers) or on a 50-pair negation sample (Table 6, NFR): reported-only task ids.
FT_PAPER_AVERAGE = "followtable-paper/average"
FT_PAPER_NFR = "followtable-paper/negation-trap-sample"
# Task ids outside the registry that the site still shows, in reported-only places.
REPORTED_ONLY_PREFIXES = (PI_FULL_PREFIX, "followtable-paper/")

AveragePolicy = Literal["all", "available"]


@dataclass(frozen=True)
class Column:
    """One numeric column: the mean of ``metric`` over ``tasks``.

    ``group`` selects a per-group mean (FollowTable constraint type) instead of the
    task-level one. With ``average="all"`` a row needs every task to get a value, so
    averages compare like with like; ``"available"`` averages what a row has (used only
    for reported full-set PI-Indic rows, as the paper averages over supported languages).
    """

    id: str
    label: str
    metric: str
    tasks: tuple[str, ...]
    group: str | None = None
    higher_is_better: bool = True
    signed: bool = False            # p-MRR and IRS range over [-1, 1]: show the sign
    help: str = ""
    average: AveragePolicy = "all"
    # Key in TaskScores.per_query that the significance test uses for this column, when it
    # differs from ``metric`` (PI-Indic T4: per-pair correctness behind Accuracy).
    per_query_key: str | None = None
    # When the averaged metric differs per task (FollowIR's "Score": MAP@1000 on Robust04
    # and Core17, nDCG@5 on News21), the metric of each task, parallel to ``tasks``.
    task_metrics: tuple[str, ...] = ()
    # Tasks holding a row's own published average of ``tasks`` (the PI-Indic paper prints
    # cross-lingual averages without the per-pair cells): when a row has one, it is shown
    # as published instead of being recomputed.
    prefer: tuple[str, ...] = ()
    # The tasks ask the same queries (PI-Indic: the same 150 validated pairs, translated
    # into every language and language pair). The significance test then takes each query
    # once, averaged over the tasks, rather than pooling the tasks' copies of it: the copies
    # are one item measured several times, and pooling them as independent queries would
    # multiply the test's sample size (by 132 for the cross-lingual averages) and call
    # negligible differences significant.
    shared_queries: bool = False

    @cached_property
    def parts(self) -> tuple[tuple[str, str], ...]:
        """(task id, metric key) pairs whose values this column averages."""
        metrics = self.task_metrics or (self.metric,) * len(self.tasks)
        return tuple(zip(self.tasks, metrics))


@dataclass(frozen=True)
class View:
    id: str
    label: str                      # tab label
    title: str                      # full title, for headings and downloads
    columns: tuple[Column, ...]
    sort_column: int = 0            # default order (descending by this column)
    tiered_column: int | None = 0   # None: no per-query basis, no tiers
    note: str = ""                  # shown under the table (e.g. why there are no tiers)
    # A view of per-language or per-dataset breakdown feeds the bar chart.
    breakdown: bool = True

    @property
    def anchor(self) -> str:
        return anchor_of(self.id)

    @property
    def tasks(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for col in self.columns:
            for t in col.tasks:
                seen[t] = None
        return tuple(seen)


@dataclass(frozen=True)
class Chart:
    """Charts of a section: a scatter (x = standard metric, y = instruction metric) over
    each view, and bars of one system's tiered metric across the breakdown views."""

    x_column: str                   # column id in each view
    y_column: str
    x_label: str
    y_label: str


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    intro: str
    views: tuple[View, ...]
    chart: Chart | None = None
    # Reported-only sections (PI-Indic full set) hold no verified rows.
    reported_only: bool = False


@dataclass(frozen=True)
class Page:
    path: str                       # docs-relative, e.g. "followir.md"
    title: str
    intro: str
    sections: tuple[Section, ...]
    nav: tuple[str, ...] = field(default=())  # nav path ("PI-Indic", "T1") ; default title

    @property
    def views(self) -> list[View]:
        return [v for s in self.sections for v in s.views]


def anchor_of(view_id: str) -> str:
    """Anchor and file stem of a view: its id with every run of other characters as '-'."""
    return re.sub(r"[^a-z0-9]+", "-", view_id.lower()).strip("-")


# --------------------------------------------------------------------------- helpers

def _col(task_ids: tuple[str, ...], metric: str, label: str, *, col_id: str | None = None,
         group: str | None = None, help: str = "", average: AveragePolicy = "all",
         per_query_key: str | None = None, shared_queries: bool = False) -> Column:
    base = metric.rsplit("/", 1)[-1]
    return Column(
        id=col_id or metric, label=label, metric=metric, tasks=task_ids, group=group,
        higher_is_better=higher_is_better(metric), signed=base in ("p-MRR", "IRS"), help=help,
        average=average, per_query_key=per_query_key, shared_queries=shared_queries,
    )


def _standard_label(metric: str) -> str:
    """Display name of a standard metric key; AP@1000 is the FollowIR paper's MAP."""
    base = metric.rsplit("/", 1)[-1]
    return "MAP@1000" if base == "AP@1000" else base


P_MRR_HELP = ("pairwise MRR: how far the documents whose relevance the altered instruction "
              "changed move in the right direction (-100 to +100; 0 = ignores the instruction)")
IRS_HELP = ("Instruction Responsiveness Score: weighted gain of instruction-compliant tables "
            "minus gain of violating ones, relative to the topic-only ranking (-100 to +100)")


# --------------------------------------------------------------------------- FollowIR

SWAPPED_QRELS_NOTE = (
    "Standard metrics come in two protocols that are never mixed in one column. Verified "
    "rows and mteb 2.x files score the original-instruction run against the original "
    "qrels (Score, MAP@1000, nDCG@5, nDCG@10). mteb 1.x loaded the two qrels the wrong way "
    "round (mteb 1.12.75, AbsTaskInstructionRetrieval.py lines 112-113): what its files and "
    "the FollowIR paper's Table 2 label \"original\" is the original-instruction run scored "
    "against the changed qrels, shown in the columns marked \"vs changed qrels\" (median "
    "Core17 MAP@1000 0.153 over 158 mteb 1.x rows against 0.345 over 33 mteb 2.x rows). "
    "p-MRR compares the two runs and is unaffected.")


def _swapped(metric: str) -> str:
    """The key of a standard metric that a source labels ``original`` but computed against
    the changed qrels (:mod:`leaderboard.reported.protocols`)."""
    return f"{SWAPPED_ORIGINAL}/{metric.rsplit('/', 1)[-1]}"


def _followir_section() -> Section:
    tasks = {t.params["collection"]: t for t in all_tasks().values() if t.benchmark == "followir"}
    names = {"robust04": "Robust04", "news21": "News21", "core17": "Core17"}
    ids = tuple(t.id for t in tasks.values())
    headline = tuple(t.headline_metric for t in tasks.values())
    avg_cols = [
        _col(ids, "p-MRR", "p-MRR", col_id="p-MRR", help=P_MRR_HELP),
        Column(id="score", label="Score", metric="headline", tasks=ids, task_metrics=headline,
               help="mean of each collection's standard metric (MAP@1000 for Robust04 and "
                    "Core17, nDCG@5 for News21), as in the FollowIR paper: the "
                    "original-instruction run scored against the original qrels"),
        Column(id="score-vs-changed-qrels", label="Score (vs changed qrels)",
               metric="headline-vs-changed-qrels", tasks=ids,
               task_metrics=tuple(_swapped(m) for m in headline),
               help="the same mean as the source labels it 'original' (mteb 1.x "
                    "individual.original, FollowIR paper Table 2), but computed against the "
                    "changed qrels: not comparable with Score"),
    ]
    per: list[View] = []
    for key, task in tasks.items():
        std = task.headline_metric
        label = _standard_label(std)
        avg_cols += [_col((task.id,), std, f"{names[key]} {label}", col_id=f"{key}:{std}"),
                     _col((task.id,), "p-MRR", f"{names[key]} p-MRR", col_id=f"{key}:p-MRR")]
        per.append(View(
            id=task.id, label=names[key], title=task.title,
            columns=(_col((task.id,), "p-MRR", "p-MRR", help=P_MRR_HELP),
                     _col((task.id,), std, label,
                          help=f"{label}: the original-instruction run against the original "
                               "qrels"),
                     _col((task.id,), "original/nDCG@10", "nDCG@10",
                          help="nDCG@10: the original-instruction run against the original "
                               "qrels"),
                     _col((task.id,), _swapped(std), f"{label} (vs changed qrels)",
                          help=f"{label} that the source labels 'original' (mteb 1.x, "
                               "FollowIR paper) but computed against the changed qrels"),
                     _col((task.id,), _swapped("nDCG@10"), "nDCG@10 (vs changed qrels)",
                          help="nDCG@10 that mteb 1.x labels 'original' but computed "
                               "against the changed qrels")),
            note=SWAPPED_QRELS_NOTE,
        ))
    average = View(id="followir/average", label="Average", title="FollowIR average",
                   columns=tuple(avg_cols), breakdown=False,
                   note="Average over the three collections; a system needs all three. "
                        "Significance is tested on the union of the collections' queries. "
                        + SWAPPED_QRELS_NOTE)
    return Section(
        id="followir", title="FollowIR", views=(average, *per),
        intro="Three TREC collections (Robust04, News21, Core17) rerank a fixed 1,000-document "
              "pool with the original and an altered instruction. The standard metric is "
              "computed with the original instruction. " + SWAPPED_QRELS_NOTE,
        chart=Chart(x_column="score", y_column="p-MRR", x_label="Score (MAP@1000 / nDCG@5)",
                    y_label="p-MRR"),
    )


# --------------------------------------------------------------------------- mFollowIR

def _mfollowir_section(benchmark: str, setting: str) -> Section:
    tasks = {t.params["language"]: t for t in all_tasks().values() if t.benchmark == benchmark}
    ids = tuple(t.id for t in tasks.values())
    avg_cols = [_col(ids, "p-MRR", "p-MRR", help=P_MRR_HELP),
                _col(ids, "original/nDCG@20", "nDCG@20",
                     help="nDCG@20 with the original instruction")]
    per: list[View] = []
    for lang, task in tasks.items():
        name = MFOLLOWIR_LANGUAGES[lang]
        avg_cols.append(_col((task.id,), "p-MRR", f"{name} p-MRR", col_id=f"{lang}:p-MRR"))
        per.append(View(
            id=task.id, label=name, title=task.title,
            columns=(_col((task.id,), "p-MRR", "p-MRR", help=P_MRR_HELP),
                     _col((task.id,), "original/nDCG@20", "nDCG@20",
                          help="nDCG@20 with the original instruction")),
        ))
    average = View(id=f"{benchmark}/average", label="Average",
                   title=f"mFollowIR {setting} average", columns=tuple(avg_cols),
                   breakdown=False,
                   note="Average over Persian, Russian and Chinese; a system needs all three.")
    intro = ("English queries and instructions, documents in Persian, Russian or Chinese."
             if setting == "cross-lingual" else
             "Queries, instructions and documents all in Persian, Russian or Chinese.")
    return Section(id=benchmark, title=f"mFollowIR {setting}", intro=intro,
                   views=(average, *per),
                   chart=Chart(x_column="original/nDCG@20", y_column="p-MRR",
                               x_label="nDCG@20", y_label="p-MRR"))


# --------------------------------------------------------------------------- FollowTable

FOLLOWTABLE_CONSTRAINT_NAMES = {
    "C1": "C1 semantic boundary", "C2": "C2 exclusive topic", "S1": "S1 attribute-centric",
    "S2": "S2 entity-centric", "S3": "S3 granularity-centric",
}


def _followtable_columns(task_ids: tuple[str, ...], group: str | None = None) -> tuple[Column, ...]:
    return (
        _col(task_ids, "original/nDCG@10", "nDCG@10 (query)", group=group,
             help="nDCG@10 of the topic-only query against the query's relevant tables"),
        _col(task_ids, "altered/nDCG@10", "nDCG@10 (+instruction)", group=group,
             help="nDCG@10 of query + instruction against the instruction-compliant tables"),
        _col(task_ids, "p-MRR", "p-MRR", group=group, help=P_MRR_HELP),
        _col(task_ids, "IRS", "IRS", group=group, help=IRS_HELP),
    )


def _followtable_sections() -> tuple[Section, Section, Section]:
    tasks = {t.id.split("/")[1]: t for t in all_tasks().values() if t.benchmark == "followtable"}
    ids = tuple(t.id for t in tasks.values())
    chart = Chart(x_column="altered/nDCG@10", y_column="IRS",
                  x_label="nDCG@10 (+instruction)", y_label="IRS")
    per = [View(id=t.id, label=FOLLOWTABLE_DATASETS[k], title=t.title,
                columns=_followtable_columns((t.id,)), tiered_column=3, sort_column=3)
           for k, t in tasks.items()]
    average = View(id="followtable/average", label="Average", title="FollowTable average",
                   columns=tuple(replace(c, prefer=(FT_PAPER_AVERAGE,))
                                 for c in _followtable_columns(ids)),
                   tiered_column=3, sort_column=3, breakdown=False,
                   note="Average over WQT, WTR, TArX and IndusTR; a system needs all four. "
                        "Rerankers from the paper's Table 5 appear with the paper's own "
                        "four-dataset averages.")
    datasets = Section(
        id="followtable", title="FollowTable datasets", views=(average, *per), chart=chart,
        intro="Table retrieval over four corpora. The original run answers the topic-only "
              "query; the altered run answers query + instruction.")
    constraint_views = []
    for c in FOLLOWTABLE_CONSTRAINTS:
        cols = _followtable_columns(ids, group=c) + tuple(
            _col((t.id,), "IRS", f"{FOLLOWTABLE_DATASETS[k]} IRS", col_id=f"{k}:IRS", group=c)
            for k, t in tasks.items())
        constraint_views.append(View(
            id=f"followtable/constraint/{c}", label=c,
            title=f"FollowTable {FOLLOWTABLE_CONSTRAINT_NAMES[c]}", columns=cols,
            sort_column=3, tiered_column=3,
            note="Means over the instructions of this constraint type, averaged over the "
                 "four datasets; significance is tested on this type's pairs in all four."))
    constraints = Section(
        id="followtable-constraints", title="FollowTable by constraint type",
        views=tuple(constraint_views), chart=chart,
        intro="C1 semantic boundary, C2 exclusive topic (content scope); S1 attribute-centric, "
              "S2 entity-centric, S3 granularity-centric (schema-grounded structure).")
    nfr = View(
        id="followtable/nfr", label="NFR", title="FollowTable negation failure rate (reported)",
        columns=(_col((FT_PAPER_NFR,), "NFR", "NFR",
                      help="share of trap tables (violating the instruction through an "
                           "explicitly negated entity) ranked higher once the instruction is "
                           "added; lower is better"),),
        sort_column=0, tiered_column=None, breakdown=False,
        note="FollowTable paper, Table 6: measured on 50 sampled query-instruction pairs; "
             "not computed here, so not comparable with verified rows.")
    negation = Section(
        id="followtable-negation", title="Negation traps (reported)", views=(nfr,),
        reported_only=True,
        intro="How often a model promotes tables that contain an entity the instruction "
              "explicitly excludes (the paper's 'positive attention bias').")
    return datasets, constraints, negation


# --------------------------------------------------------------------------- PI-Indic

PI_RETRIEVAL_METRICS = ("R@1", "R@5", "R@10", "RR@10")
PI_T4_METRICS = ("AUROC", "AUPRC", "Accuracy", "ECE")
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
    for t in all_tasks().values():
        if t.benchmark != "pi-indic-val150" or t.views.get("pi_task") != pi_task:
            continue
        if setting is not None and t.views.get("setting") != setting:
            continue
        out[t.views["language"]].append(t)
    return out


def _pi_columns(kind: str, task_ids: tuple[str, ...], average: AveragePolicy
                ) -> tuple[tuple[Column, ...], int, int | None]:
    """Columns, default sort column and tiered column of a PI-Indic view."""
    if kind == "t4":
        cols = tuple(_col(task_ids, m, m, average=average,
                          per_query_key="correct" if m == "Accuracy" else None,
                          help="lower is better" if m == "ECE" else "", shared_queries=True)
                     for m in PI_T4_METRICS)
        # AUROC leads (registry primary), but only Accuracy decomposes per pair, so the
        # significance tiers are computed on Accuracy.
        return cols, 0, 2
    cols = tuple(_col(task_ids, m, m, average=average, shared_queries=True)
                 for m in PI_RETRIEVAL_METRICS)
    return cols, 3, 3


def _pi_section(kind: str) -> Section:
    by_lang = _pi_tasks(kind)
    _, setting, title = PI_KINDS[kind]
    all_ids = tuple(t.id for ts in by_lang.values() for t in ts)
    cols, sort_col, tier_col = _pi_columns(kind, all_ids, "all")
    primary = cols[tier_col if tier_col is not None else sort_col]
    per_lang_cols = tuple(
        _col(tuple(t.id for t in ts), primary.metric, f"{PI_INDIC_LANGUAGES[lang]}",
             col_id=f"{lang}:{primary.metric}", per_query_key=primary.per_query_key,
             shared_queries=True)
        for lang, ts in by_lang.items())
    xling = setting == "cross-lingual"
    note = ("Average over all 132 ordered language pairs" if xling
            else "Average over the 12 languages") + "; a system needs every one."
    average = View(id=f"pi-indic/{kind}/average", label="Average", title=f"PI-Indic val150 {title}",
                   columns=cols + per_lang_cols, sort_column=sort_col, tiered_column=tier_col,
                   breakdown=False, note=note)
    views = [average]
    for lang, ts in by_lang.items():
        ids = tuple(t.id for t in ts)
        lcols, lsort, ltier = _pi_columns(kind, ids, "all")
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
              "probabilities. Sorted by AUROC; tiers use per-pair correctness (Accuracy), the "
              "only one of these metrics that decomposes over pairs. ECE: lower is better.",
    }[kind]
    chart = (Chart(x_column="Accuracy", y_column="AUROC", x_label="Accuracy", y_label="AUROC")
             if kind == "t4" else
             Chart(x_column="R@1", y_column="RR@10", x_label="R@1", y_label="RR@10"))
    return Section(id=f"pi-indic-{kind}", title=f"PI-Indic {title}", intro=intro,
                   views=tuple(views), chart=chart)


# Reported full-set rows: the authors' result files give one task per language or
# language pair; the paper's tables sometimes give only their own average of a task kind
# (these task names, after PI_FULL_PREFIX) or the T4 figures over all languages ("all").
PI_FULL_KINDS = {  # section kind -> (title, task-id stem, own-average tasks)
    "t1": ("T1 monolingual", "t1", ()),
    "t2": ("T2 cross-lingual", "t2", ("t2/avg",)),
    "t3": ("T3 monolingual", "t3", ()),
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
        cols = tuple(_col(all_ids, m, label, average="available") for m, label in metrics)
        cols = tuple(replace(c, prefer=prefer) for c in cols)
        sort_col = 0 if stem.startswith("t4") else 3
        primary = cols[sort_col]
        cols += tuple(_col(ids, primary.metric, PI_INDIC_LANGUAGES[lang],
                           col_id=f"{lang}:{primary.metric}", average="available")
                      for lang, ids in by_lang.items())
        views.append(View(
            id=f"pi-indic-full/{kind}", label=title,
            title=f"PI-Indic full set (reported) {title}", columns=cols, sort_column=sort_col,
            tiered_column=None, breakdown=False,
            note="Reported by the PI-Indic-Align authors on their full, unreleased data: not "
                 "comparable with the val150 tables and never ranked with them. The first "
                 "columns are the row's own published average when it has one, else the mean "
                 "over the languages (or language pairs) it reports; hover a cell for the "
                 "count."))
    return Section(
        id="pi-indic-full", title="Reported on the paper's full set", views=tuple(views),
        reported_only=True,
        intro="These figures come from the PI-Indic-Align paper and the authors' published "
              "result files, computed on their full data, which is not released. They are "
              "shown for reference only: the val150 tables score the 150 public pairs.")


# --------------------------------------------------------------------------- pages

@cache
def site_pages() -> tuple[Page, ...]:
    ft_datasets, ft_constraints, ft_negation = _followtable_sections()
    return (
        Page(path="followir.md", title="FollowIR", sections=(_followir_section(),),
             intro="Weller et al., FollowIR: instruction following in reranking TREC "
                   "collections. Primary metric p-MRR."),
        Page(path="mfollowir.md", title="mFollowIR",
             sections=(_mfollowir_section("mfollowir-cl", "cross-lingual"),
                       _mfollowir_section("mfollowir", "multilingual")),
             intro="Weller et al., mFollowIR: multilingual instruction following on TREC "
                   "NeuCLIR. Primary metric p-MRR; standard metric nDCG@20."),
        Page(path="followtable.md", title="FollowTable", sections=(ft_datasets, ft_constraints, ft_negation),
             intro="FollowTable: instruction-following table retrieval. Primary metric IRS."),
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


def all_views() -> dict[str, View]:
    return {v.id: v for page in site_pages() for v in page.views}


@dataclass(frozen=True)
class HomeColumn:
    """A home-page column: the tiered column of one benchmark's average view."""

    id: str
    label: str
    view_id: str
    column_id: str


# The overview's columns: each benchmark's primary metric, averaged over its collections,
# languages or datasets. PI-Indic has two: the 150 validated pairs scored here, and the
# authors' figures on their full, unreleased data, which are never ranked with them.
HOME_COLUMNS = (
    HomeColumn("followir", "FollowIR p-MRR", "followir/average", "p-MRR"),
    HomeColumn("mfollowir-cl", "mFollowIR cross-lingual p-MRR", "mfollowir-cl/average", "p-MRR"),
    HomeColumn("mfollowir", "mFollowIR multilingual p-MRR", "mfollowir/average", "p-MRR"),
    HomeColumn("followtable", "FollowTable IRS", "followtable/average", "IRS"),
    HomeColumn("pi-indic", "PI-Indic val150 T1 RR@10", "pi-indic/t1/average", "RR@10"),
    HomeColumn("pi-indic-full", "PI-Indic full set T1 RR@10 (reported)", "pi-indic-full/t1",
               "RR@10"),
)
HOME_LINKS = {"followir": "followir.md", "mfollowir-cl": "mfollowir.md",
              "mfollowir": "mfollowir.md", "followtable": "followtable.md",
              "pi-indic": "pi-indic/t1.md", "pi-indic-full": "pi-indic/index.md"}
