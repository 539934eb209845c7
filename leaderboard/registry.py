"""The benchmark registry: every task the leaderboard scores, declared as data.

Each task says where its data comes from (upstream id and pinned revision), how the
original and altered query ids pair up, which documents a run may rank, which metrics
it reports (and which one is primary), and which leaderboard views it belongs to.
The rest of the engine reads these declarations instead of special-casing benchmarks.
"""

from __future__ import annotations

from functools import cache
from itertools import permutations
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["original", "altered", "run", "predictions"]


class DataSource(BaseModel):
    """Where a task's files come from upstream, pinned so scores are reproducible."""

    model_config = ConfigDict(frozen=True)

    host: Literal["huggingface", "github"]
    repo: str
    revision: str
    # Sub-folder of the local data directory that holds this source's files.
    local_dir: str
    # Files (relative to the upstream repository root) that make up the source.
    files: tuple[str, ...] = ()
    licence: str = "unknown"


class Task(BaseModel):
    """One scored task: a leaderboard cell is (system, task, metric)."""

    model_config = ConfigDict(frozen=True)

    id: str
    benchmark: Literal["followir", "mfollowir", "mfollowir-cl", "followtable", "pi-indic-val150"]
    title: str
    source: DataSource
    # Which run files a submission provides for this task.
    roles: tuple[Role, ...]
    # How query ids of the two roles pair up:
    #   "suffix": FollowIR/mFollowIR, "<id>-og" (original) and "<id>-changed" (altered);
    #   "topic": FollowTable, altered "<q>_<i>" pairs with the topic-only query "<q>";
    #   "none": a single run (PI-Indic retrieval) or predictions (PI-Indic T4).
    pairing: Literal["suffix", "topic", "none"]
    # "pool": rerank the fixed candidate pool shipped with the task;
    # "corpus": rank the whole corpus. Either way at most max_docs_per_query per query.
    candidates: Literal["pool", "corpus", "pairs"]
    max_docs_per_query: int = 1000
    # Metrics computed on every run role (e.g. nDCG@10 becomes original/nDCG@10).
    standard_metrics: tuple[str, ...] = ()
    # Metrics computed from the pair of runs (p-MRR, IRS) or from predictions (T4).
    pair_metrics: tuple[str, ...] = ()
    primary_metric: str
    # The standard metric a leaderboard shows next to the primary one.
    headline_metric: str
    # Leaderboard views this task belongs to, e.g. {"language": "fas"}.
    views: dict[str, str] = Field(default_factory=dict)
    # Per-query grouping inside the task (FollowTable constraint types).
    group_by: str | None = None
    # Loader parameters (dataset folder, language codes, ...).
    params: dict[str, str] = Field(default_factory=dict)

    def metric_keys(self) -> list[str]:
        """Every metric key a score sheet of this task carries, in display order."""
        keys = list(self.pair_metrics)
        for role in self.roles:
            if role in ("original", "altered"):
                keys += [f"{role}/{m}" for m in self.standard_metrics]
            elif role == "run":
                keys += list(self.standard_metrics)
        return keys


# Licences as the dataset cards state them (FollowIR: mit; mFollowIR: odc-by), which is
# also what mteb's task metadata declares for these five datasets.
FOLLOWIR_SOURCES = {
    "robust04": DataSource(host="huggingface", repo="mteb/Robust04InstructionRetrieval",
                           revision="0495a5cb69aa", local_dir="followir/robust04", licence="MIT"),
    "news21": DataSource(host="huggingface", repo="mteb/News21InstructionRetrieval",
                         revision="c6fffeb9", local_dir="followir/news21", licence="MIT"),
    "core17": DataSource(host="huggingface", repo="mteb/Core17InstructionRetrieval",
                         revision="67d8733d", local_dir="followir/core17", licence="MIT"),
}
MFOLLOWIR_SOURCE = DataSource(host="huggingface", repo="jhu-clsp/mFollowIR-parquet-mteb",
                              revision="09eecbe4", local_dir="mfollowir/multilingual",
                              licence="ODC-By")
MFOLLOWIR_CL_SOURCE = DataSource(host="huggingface",
                                 repo="jhu-clsp/mFollowIR-cross-lingual-parquet-mteb",
                                 revision="6b015666", local_dir="mfollowir/cross-lingual",
                                 licence="ODC-By")
FOLLOWTABLE_FILES = ("corpus.jsonl", "queries.jsonl", "only_queries.jsonl",
                     "qrels/test.tsv", "qrels/for_only_query_test.tsv")
FOLLOWTABLE_COMMIT = "1c47fe27776d"
PI_INDIC_COMMIT = "a7d6877f5ddf"

FOLLOWTABLE_DATASETS = {"wqt": "WQT", "wtr": "WTR", "tarx": "TArX", "industr": "IndusTR"}
FOLLOWTABLE_CONSTRAINTS = ("C1", "C2", "S1", "S2", "S3")
MFOLLOWIR_LANGUAGES = {"fas": "Persian", "rus": "Russian", "zho": "Chinese"}

# PI-Indic-Align languages: ISO 639-3 code -> file name used upstream.
PI_INDIC_LANGUAGES = {
    "asm": "Assamese", "ben": "Bengali", "guj": "Gujarati", "hin": "Hindi",
    "kan": "Kannada", "mal": "Malayalam", "mar": "Marathi", "ory": "Odia",
    "pan": "Punjabi", "tam": "Tamil", "tel": "Telugu", "urd": "Urdu",
}
PI_INDIC_SOURCE = DataSource(
    host="github", repo="aryashah2k/PI-Indic-Align", revision=PI_INDIC_COMMIT,
    local_dir="pi-indic", licence="Apache-2.0",
    files=tuple(
        "annotator_validation/language-wise-validation/"
        f"Nirdesha_Multilingual_Validation - {name}.csv"
        for name in PI_INDIC_LANGUAGES.values()
    ),
)


def _followtable_source(folder: str) -> DataSource:
    return DataSource(host="github", repo="deu05232/FollowTable", revision=FOLLOWTABLE_COMMIT,
                      local_dir=f"followtable/{folder}",
                      files=tuple(f"data/{folder}/{f}" for f in FOLLOWTABLE_FILES))


def _build_tasks() -> list[Task]:
    tasks: list[Task] = []
    for key, title in (("robust04", "Robust04"), ("news21", "News21"), ("core17", "Core17")):
        headline = "nDCG@5" if key == "news21" else "AP@1000"
        tasks.append(Task(
            id=f"followir/{key}", benchmark="followir", title=f"FollowIR {title}",
            source=FOLLOWIR_SOURCES[key], roles=("original", "altered"), pairing="suffix",
            candidates="pool", standard_metrics=(headline, "nDCG@10"),
            pair_metrics=("p-MRR",), primary_metric="p-MRR",
            headline_metric=f"original/{headline}", views={"collection": key, "language": "eng"},
            params={"layout": "mteb", "collection": key},
        ))
    for bench, source, setting in (("mfollowir", MFOLLOWIR_SOURCE, "multilingual"),
                                   ("mfollowir-cl", MFOLLOWIR_CL_SOURCE, "cross-lingual")):
        for lang, name in MFOLLOWIR_LANGUAGES.items():
            tasks.append(Task(
                id=f"{bench}/{lang}", benchmark=bench,  # type: ignore[arg-type]
                title=f"mFollowIR {setting} {name}", source=source,
                roles=("original", "altered"), pairing="suffix", candidates="pool",
                standard_metrics=("nDCG@20",), pair_metrics=("p-MRR",), primary_metric="p-MRR",
                headline_metric="original/nDCG@20",
                views={"language": lang, "setting": setting},
                params={"layout": "mteb", "language": lang},
            ))
    for key, folder in FOLLOWTABLE_DATASETS.items():
        tasks.append(Task(
            id=f"followtable/{key}", benchmark="followtable", title=f"FollowTable {folder}",
            source=_followtable_source(folder), roles=("original", "altered"), pairing="topic",
            candidates="corpus", standard_metrics=("nDCG@10",), pair_metrics=("p-MRR", "IRS"),
            primary_metric="IRS", headline_metric="altered/nDCG@10",
            views={"dataset": key}, group_by="constraint", params={"folder": folder},
        ))
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
            source=PI_INDIC_SOURCE, roles=("predictions",), pairing="none", candidates="pairs",
            pair_metrics=("AUROC", "AUPRC", "Accuracy", "ECE"), primary_metric="AUROC",
            headline_metric="Accuracy",
            views={"pi_task": "t4", "language": lang},
            params={"query_lang": lang, "doc_lang": lang},
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
        source=PI_INDIC_SOURCE, roles=("run",), pairing="none", candidates="corpus",
        max_docs_per_query=1000, standard_metrics=metrics, primary_metric="RR@10",
        headline_metric="R@1",
        views={"pi_task": kind, "language": query_lang, "setting": setting},
        params={"query_lang": query_lang, "doc_lang": doc_lang, "query_side": query_side},
    )


# Metrics where a smaller value is better (calibration error, FollowTable's negation
# failure rate); everything else is
# "higher is better", which is what leaders, tiers and sorting assume by default.
LOWER_IS_BETTER = frozenset({"ECE", "NFR"})


def higher_is_better(metric: str) -> bool:
    return metric.rsplit("/", 1)[-1] not in LOWER_IS_BETTER


@cache
def all_tasks() -> dict[str, Task]:
    """Every registered task by id, in registry order."""
    return {t.id: t for t in _build_tasks()}


class UnknownTaskError(KeyError):
    def __str__(self) -> str:  # KeyError quotes its argument; we want a sentence.
        return str(self.args[0])


def get_task(task_id: str) -> Task:
    tasks = all_tasks()
    if task_id in tasks:
        return tasks[task_id]
    prefix_matches = sorted(t for t in tasks if t.startswith(task_id.rstrip("/") + "/"))
    hint = (f" Did you mean one of: {', '.join(prefix_matches[:8])}"
            + (" ..." if len(prefix_matches) > 8 else "") + "?") if prefix_matches else ""
    raise UnknownTaskError(
        f"unknown task {task_id!r}.{hint} Run `leaderboard tasks` to list every task.")


def tasks_of(benchmark: str) -> list[Task]:
    return [t for t in all_tasks().values() if t.benchmark == benchmark]
