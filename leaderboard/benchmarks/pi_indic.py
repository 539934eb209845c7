"""PI-Indic-Align val150: the 150 human-validated persona-instruction pairs in 12 Indian
languages (retrieval tasks T1-T3, compatibility classification T4), from the authors'
GitHub repository; and the authors' figures on their full, unreleased data, shown as
reported-only rows."""

from __future__ import annotations

from itertools import permutations

from leaderboard.benchmarks.declaration import Benchmark, EvaluationSources, GuideRow, site_views
from leaderboard.benchmarks.units import SamplingUnit
from leaderboard.core.data.layout_files import (
    PI_INDIC_LANGUAGES,
    PI_INDIC_LOCAL_DIR,
    pi_indic_file,
)
from leaderboard.core.tasks import DataSource, Task, corpus_depth_text

PI_INDIC_COMMIT = "a7d6877f5ddf"
# What a T4 score sheet holds: the paper's four metrics, balanced accuracy (a constant
# answer scores 0.5, where Accuracy rewards the majority class), the share of pairs a
# system predicts compatible (0 or 1: it answers one class only) and of compatible pairs
# (the no-skill AUPRC and majority-class Accuracy of the task).
PI_T4_SCORED_METRICS = ("AUROC", "AUPRC", "Accuracy", "Balanced accuracy", "ECE",
                        "Predicted positive rate", "Positive rate")

PI_INDIC_SOURCE = DataSource(
    host="github", repo="aryashah2k/PI-Indic-Align", revision=PI_INDIC_COMMIT,
    local_dir=PI_INDIC_LOCAL_DIR, licence="Apache-2.0",
    files=tuple(pi_indic_file(lang) for lang in PI_INDIC_LANGUAGES),
)

# Reported PI-Indic rows come from the authors' full (unreleased) data. Their task ids
# mirror the val150 ones with this prefix and are never mixed into val150 rankings.
PI_FULL_PREFIX = "pi-indic-full/"
PI_VAL_PREFIX = "pi-indic-val150/"

# Every language (and language pair) translates the same 150 validated pairs, with the
# same ids: a pair is one unit whatever the number of languages a table averages, and
# whichever side asks (T1/T2's persona "p12" and T3's instruction "i12" are pair 12). T4's
# per-query scores are per persona (its compatible instruction and ten incompatible
# ones), the unit DeLong's clustered variance takes.
PI_PAIR = SamplingUnit(
    "pair", "pairs", "a validated persona-instruction pair, in every language of the table",
    rule="pi-indic pair", across_tasks=True)
PI_PERSONA = SamplingUnit(
    "persona", "personas", "a persona: its compatible instruction and ten incompatible "
    "ones, in every language of the table", across_tasks=True)


def sampling_unit(task: Task) -> SamplingUnit:
    return PI_PERSONA if task.views.get("pi_task") == "t4" else PI_PAIR


def _tasks() -> list[Task]:
    tasks: list[Task] = []
    retrieval = ("R@1", "R@5", "R@10", "RR@10")
    langs = list(PI_INDIC_LANGUAGES)
    for lang in langs:
        tasks.append(_pi_task("t1", lang, lang, "persona", retrieval))
    for src, tgt in permutations(langs, 2):
        tasks.append(_pi_task("t2", src, tgt, "persona", retrieval))
    for lang in langs:
        tasks.append(_pi_task("t3", lang, lang, "instruction", retrieval))
    for src, tgt in permutations(langs, 2):
        tasks.append(_pi_task("t3", src, tgt, "instruction", retrieval))
    for lang in langs:
        tasks.append(Task(
            id=f"pi-indic-val150/t4/{lang}", benchmark="pi-indic-val150",
            title=f"PI-Indic val150 T4 compatibility {PI_INDIC_LANGUAGES[lang]}",
            source=PI_INDIC_SOURCE, layout="pi-indic", roles=("predictions",), pairing="none",
            candidates="pairs",
            pair_metrics=PI_T4_SCORED_METRICS, primary_metric="AUROC",
            headline_metric="Accuracy",
            query_language=lang, doc_language=lang,
            views={"pi_task": "t4", "language": lang},
        ))
    return tasks


def _pi_task(kind: str, query_lang: str, doc_lang: str, query_side: str,
             metrics: tuple[str, ...]) -> Task:
    pair = query_lang if query_lang == doc_lang else f"{query_lang}-{doc_lang}"
    direction = "persona to instruction" if query_side == "persona" else "instruction to persona"
    setting = "monolingual" if query_lang == doc_lang else "cross-lingual"
    names = PI_INDIC_LANGUAGES
    langs_title = (names[query_lang] if query_lang == doc_lang
                   else f"{names[query_lang]} to {names[doc_lang]}")
    return Task(
        id=f"pi-indic-val150/{kind}/{pair}", benchmark="pi-indic-val150",
        title=f"PI-Indic val150 {kind.upper()} {setting} {direction}, {langs_title}",
        source=PI_INDIC_SOURCE, layout="pi-indic", roles=("run",), pairing="none",
        candidates="corpus",
        standard_metrics=metrics, primary_metric="RR@10",
        headline_metric="R@1", query_language=query_lang, doc_language=doc_lang,
        views={"pi_task": kind, "language": query_lang, "setting": setting},
        params={"query_side": query_side},
    )


# Personas and instructions synthesised for the benchmark with GPT-4o-mini, translated with
# NLLB-200 and validated by annotators (PI-Indic-Align Sec. 3.1).
PI_INDIC_SOURCES_USED = EvaluationSources(
    collections=("pi-indic-align",), instructions=("pi-indic-align",),
    what={"pi-indic-align": "PI-Indic-Align's persona-instruction pairs in 12 Indian "
                            "languages (PI-Indic-Align Sec. 3.1)"})


PI_INDIC = Benchmark(
    id="pi-indic-val150", title="PI-Indic-Align (val150)", build_tasks=_tasks,
    pull_aliases=("pi-indic",), pages=site_views("leaderboard.benchmarks.pi_indic_views", "pages"),
    home=site_views("leaderboard.benchmarks.pi_indic_views", "home"),
    reported_only_prefixes=(PI_FULL_PREFIX,),
    paper_transcriptions={"pi_indic_tables3_7.yaml": "pi-indic-paper.json"},
    # The full-set tables take a model's figures from the authors' result files first: they
    # give every language and metric, of which the paper's tables print a subset, and
    # averages over the four languages three of its models cover.
    own_sources={"pi-indic-full": ("pi-indic-results/", "pi-indic-paper/")},
    sampling_unit=sampling_unit,
    evaluation_sources=PI_INDIC_SOURCES_USED,
    guide=(
        GuideRow(
            title="PI-Indic val150 T1–T3", pull="pi-indic",
            task_prefixes=tuple(f"{PI_VAL_PREFIX}{t}/" for t in ("t1", "t2", "t3")),
            queries="personas (T1, T2: <code>p&lt;id&gt;</code>) or instructions (T3: "
                    "<code>i&lt;id&gt;</code>) of the 150 validated rows of each language's "
                    "CSV, one <code>run</code> file",
            corpus="the other side of the same 150 rows, in the target language: "
                   "instructions <code>i&lt;id&gt;</code> (T1, T2) or personas "
                   "<code>p&lt;id&gt;</code> (T3), <code>&lt;id&gt;</code> the CSV's "
                   "<code>id</code>; a query's one relevant document is the one with its "
                   "<code>&lt;id&gt;</code>, so a system ranks from the texts alone, never "
                   "the ids (T4's ids are opaque for that reason)",
            depth=f"each query lists {corpus_depth_text()} documents: the whole 150-item "
                  "candidate set"),
        GuideRow(
            title="PI-Indic val150 T4", pull="pi-indic", task_prefixes=(f"{PI_VAL_PREFIX}t4/",),
            queries="a fixed set of persona–instruction pairs, ids "
                    "<code>t4-&lt;12 hex&gt;</code> (e.g. <code>t4-4636e21f6df4</code>)",
            corpus="none: a probability per pair in <code>predictions.tsv</code>",
            depth="one line per test pair of the fixed set (the calibration pairs, which "
                  "a method may fit on, are not predicted)"),
    ),
)
