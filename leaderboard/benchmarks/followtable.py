"""FollowTable: instruction-following table retrieval over four corpora, from the
authors' GitHub repository."""

from __future__ import annotations

from leaderboard.benchmarks.declaration import Benchmark, EvaluationSources, GuideRow, site_views
from leaderboard.benchmarks.units import SamplingUnit
from leaderboard.core.data.layout_files import FOLLOWTABLE_FILES
from leaderboard.core.tasks import DataSource, Task, corpus_depth_text

FOLLOWTABLE_COMMIT = "1c47fe27776d"
FOLLOWTABLE_DATASETS = {"wqt": "WQT", "wtr": "WTR", "tarx": "TArX", "industr": "IndusTR"}
FOLLOWTABLE_CONSTRAINTS = ("C1", "C2", "S1", "S2", "S3")

# Figures the FollowTable paper prints as an average over its four datasets (Table 4's
# "Average" columns; Table 5, rerankers, prints nothing else) or on a 50-pair negation
# sample (Table 6, NFR): reported-only task ids.
FT_PAPER_PREFIX = "followtable-paper/"
FT_PAPER_AVERAGE = FT_PAPER_PREFIX + "average"
FT_PAPER_NFR = FT_PAPER_PREFIX + "negation-trap-sample"

# A topic was written once and then given its instructions: its pairs share the
# topic-only run and the topic's relevant tables. The four datasets are separate corpora
# whose topic ids each start from 0, so a topic belongs to one dataset.
FOLLOWTABLE_TOPIC = SamplingUnit(
    "topic", "topics", "a topic with all its query-instruction pairs, which share its "
    "topic-only run and relevant tables", rule="followtable topic")


def _followtable_source(folder: str) -> DataSource:
    return DataSource(host="github", repo="deu05232/FollowTable", revision=FOLLOWTABLE_COMMIT,
                      local_dir=f"followtable/{folder}",
                      files=tuple(f"data/{folder}/{f}" for f in FOLLOWTABLE_FILES))


def _tasks() -> list[Task]:
    return [Task(
        id=f"followtable/{key}", benchmark="followtable", title=f"FollowTable {folder}",
        source=_followtable_source(folder), layout="followtable", roles=("original", "altered"),
        pairing="topic",
        candidates="corpus", standard_metrics=("nDCG@10",), pair_metrics=("p-MRR", "IRS"),
        primary_metric="IRS", headline_metric="altered/nDCG@10",
        query_language="eng", doc_language="eng",
        views={"dataset": key}, group_by="constraint", params={"folder": folder},
    ) for key, folder in FOLLOWTABLE_DATASETS.items()]


def _upstream_text_links(task: Task) -> dict[str, str]:
    """FollowTable states no licence, so the site never copies its tables or queries: a
    card links each table to its file at the pinned commit, and the browser loads the
    texts from there (the files `data pull` packs: ``data/<DS>/tables/<id>.txt``)."""
    repo, commit, folder = task.source.repo, task.source.revision, task.params["folder"]
    raw = f"https://raw.githubusercontent.com/{repo}/{commit}/data/{folder}"
    return {"doc_page": f"https://github.com/{repo}/blob/{commit}/data/{folder}/tables/{{doc}}.txt",
            "doc_text": f"{raw}/tables/{{doc}}.txt",
            "queries_text": f"{raw}/queries.jsonl",
            "topics_text": f"{raw}/only_queries.jsonl"}


# The four table collections (FollowTable Table 1 and Sec. 4.1); its instructions are its
# own, written for it by an LLM and checked, so no other data set shares them.
FOLLOWTABLE_SOURCES_USED = EvaluationSources(
    collections=("wikitablequestions", "wtr-wikitables", "tablearxiv", "industr-manuals"),
    instructions=("followtable-instructions",),
    what={"wikitablequestions": "WQT: WikiTableQuestions' Wikipedia tables and questions "
                                "(Sun et al. 2019; FollowTable Table 1)",
          "wtr-wikitables": "WTR: Wikipedia tables of the WTR table-retrieval set (Chen et al. "
                            "2021; FollowTable Table 1)",
          "tablearxiv": "TableArXiv: physics tables from arXiv papers (Gao and Callan 2017; "
                        "FollowTable Table 1)",
          "industr-manuals": "IndusTR: tables of 5,000 industrial standard manuals "
                             "(FollowTable Sec. 4.1)",
          "followtable-instructions": "FollowTable's own constraint instructions "
                                      "(FollowTable Sec. 4.2)"})


FOLLOWTABLE = Benchmark(
    id="followtable", title="FollowTable", build_tasks=_tasks,
    github_plan="table-folder", pages=site_views("leaderboard.benchmarks.followtable_views", "pages"),
    home=site_views("leaderboard.benchmarks.followtable_views", "home"),
    reported_only_prefixes=(FT_PAPER_PREFIX,),
    paper_transcriptions={"followtable_tables4_5_6.yaml": "followtable-paper.json"},
    own_sources={"followtable": ("followtable-paper/",)},
    upstream_text_links=_upstream_text_links,
    sampling_unit=lambda task: FOLLOWTABLE_TOPIC,
    evaluation_sources=FOLLOWTABLE_SOURCES_USED,
    guide=(GuideRow(
        title="FollowTable", pull="followtable", task_prefixes=("followtable/",),
        queries="<code>queries.jsonl</code>: query + instruction pairs "
                "<code>&lt;q&gt;_&lt;i&gt;</code> (<code>altered</code> run); topic-only "
                "queries <code>&lt;q&gt;</code> in <code>only_queries.jsonl</code> "
                "(<code>original</code> run)",
        corpus="<code>corpus.jsonl</code> (the dataset's tables)",
        depth=f"rank the whole corpus: each query lists {corpus_depth_text()} tables"),),
)
