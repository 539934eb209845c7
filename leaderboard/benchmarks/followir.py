"""FollowIR (Weller et al.): three TREC collections reranked with original and altered
instructions, from mteb's copies on the Hugging Face Hub."""

from __future__ import annotations

from leaderboard.benchmarks.declaration import Benchmark, EvaluationSources, GuideRow, site_views
from leaderboard.benchmarks.units import SamplingUnit
from leaderboard.core.tasks import DataSource, Task

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


# The FollowIR paper's own "Average" columns (Table 2): the mean of the three collections'
# figures as printed, kept under a reported-only task id and shown as published.
FOLLOWIR_PAPER_PREFIX = "followir-paper/"
FOLLOWIR_PAPER_AVERAGE = FOLLOWIR_PAPER_PREFIX + "average"


def _tasks() -> list[Task]:
    tasks: list[Task] = []
    for key, title in (("robust04", "Robust04"), ("news21", "News21"), ("core17", "Core17")):
        headline = "nDCG@5" if key == "news21" else "AP@1000"
        tasks.append(Task(
            id=f"followir/{key}", benchmark="followir", title=f"FollowIR {title}",
            source=FOLLOWIR_SOURCES[key], roles=("original", "altered"), pairing="suffix",
            candidates="pool", standard_metrics=(headline, "nDCG@10"),
            pair_metrics=("p-MRR",), primary_metric="p-MRR",
            headline_metric=f"original/{headline}", query_language="eng",
            doc_language="eng", views={"collection": key, "language": "eng"},
            layout="mteb", params={"collection": key},
        ))
    return tasks


# TREC narratives are the instructions of FollowIR and mFollowIR: a model trained on TREC
# narratives (of any track) has seen their kind of instruction, written for the same assessors.
TREC_NARRATIVES = ("trec-narratives",
                   "TREC topic narratives, written for TREC's relevance assessors (FollowIR "
                   "Sec. 3: the benchmark's instructions are the narratives of its collections, "
                   "altered by two annotators)")

FOLLOWIR_SOURCES_USED = EvaluationSources(
    collections=("trec-robust04", "trec-news-wapo", "trec-core17-nyt"),
    instructions=(TREC_NARRATIVES[0],),
    what={"trec-robust04": "TREC Robust 2004: news articles of TREC Disks 4 and 5 "
                           "(FollowIR Sec. 3)",
          "trec-news-wapo": "TREC News 2021: the Washington Post v4 corpus (FollowIR Sec. 3)",
          "trec-core17-nyt": "TREC Common Core 2017: the New York Times Annotated Corpus "
                             "(FollowIR Sec. 3)",
          TREC_NARRATIVES[0]: TREC_NARRATIVES[1]})

# A topic is one TREC narrative with its original and its altered instruction. The
# paper took Robust04 topics that Common Core 2017 did not reuse, and News21's are its
# own, so no topic is in two collections: each is a unit of its collection.
FOLLOWIR_TOPIC = SamplingUnit("topic", "topics", "a topic with both its instructions",
                              rule="mteb topic")

# What a run of a reranking task ranks (FollowIR and mFollowIR), as the guide says it.
POOL_DEPTH = ("rank every document of the query's <code>top_ranked</code> pool (its 1,000 "
              "candidates) and nothing else")


FOLLOWIR = Benchmark(
    id="followir", title="FollowIR", build_tasks=_tasks,
    pages=site_views("leaderboard.benchmarks.followir_views", "pages"),
    home=site_views("leaderboard.benchmarks.followir_views", "home"),
    reported_only_prefixes=(FOLLOWIR_PAPER_PREFIX,),
    paper_transcriptions={"followir_table2.yaml": "followir-paper.json"},
    own_sources={"followir": ("followir-paper/",)},
    sampling_unit=lambda task: FOLLOWIR_TOPIC,
    evaluation_sources=FOLLOWIR_SOURCES_USED,
    guide=(GuideRow(
        title="FollowIR", pull="followir", task_prefixes=("followir/",),
        queries="<code>queries</code> + <code>instruction</code> configs, only those the "
                "judgments (<code>default</code> config, else <code>qrels</code>) judge, as "
                "mteb reads them: a query listed without a judgment is in no run; ids "
                "<code>&lt;id&gt;-og</code> (original instruction, <code>original</code> run) "
                "and <code>&lt;id&gt;-changed</code> (altered, <code>altered</code> run)",
        corpus="<code>corpus</code> config", depth=POOL_DEPTH),),
)
