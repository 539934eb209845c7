"""mFollowIR (Weller et al.): TREC NeuCLIR in Persian, Russian and Chinese, in two
settings declared as two benchmarks: multilingual (queries in the documents' language)
and cross-lingual (English queries). mteb's copies on the Hugging Face Hub."""

from __future__ import annotations

from leaderboard.benchmarks.declaration import Benchmark, EvaluationSources, GuideRow, site_views
from leaderboard.benchmarks.followir import POOL_DEPTH, TREC_NARRATIVES
from leaderboard.benchmarks.units import SamplingUnit
from leaderboard.core.languages import language_names
from leaderboard.core.tasks import DataSource, Task

MFOLLOWIR_SOURCE = DataSource(host="huggingface", repo="jhu-clsp/mFollowIR-parquet-mteb",
                              revision="09eecbe4", local_dir="mfollowir/multilingual",
                              licence="ODC-By")
MFOLLOWIR_CL_SOURCE = DataSource(host="huggingface",
                                 repo="jhu-clsp/mFollowIR-cross-lingual-parquet-mteb",
                                 revision="6b015666", local_dir="mfollowir/cross-lingual",
                                 licence="ODC-By")
MFOLLOWIR_LANGUAGES = language_names(("fas", "rus", "zho"))
# The paper's own "Average" columns (Tables 3 and 4): the mean of the three languages'
# figures as printed, kept under reported-only task ids and shown as published.
MFOLLOWIR_PAPER_PREFIX = "mfollowir-paper/"
MFOLLOWIR_PAPER_AVERAGE = {"mfollowir-cl": MFOLLOWIR_PAPER_PREFIX + "cross-lingual-average",
                           "mfollowir": MFOLLOWIR_PAPER_PREFIX + "multilingual-average"}


def _tasks(bench: str, source: DataSource, setting: str) -> list[Task]:
    return [Task(
        id=f"{bench}/{lang}", benchmark=bench,
        title=f"mFollowIR {setting} {name}", source=source,
        roles=("original", "altered"), pairing="suffix", candidates="pool",
        standard_metrics=("nDCG@20",), pair_metrics=("p-MRR",), primary_metric="p-MRR",
        headline_metric="original/nDCG@20",
        # Multilingual: queries and instructions in the documents' language (XX-XX);
        # cross-lingual: in English (En-XX).
        query_language=lang if setting == "multilingual" else "eng", doc_language=lang,
        views={"language": lang, "setting": setting},
        layout="mteb", params={"language": lang},
    ) for lang, name in MFOLLOWIR_LANGUAGES.items()]


# A NeuCLIR topic keeps its id in every language it was judged in (the same English
# topic, translated), and the cross-lingual and multilingual settings ask the same topics:
# one topic is one unit across the languages of a table. A table holds one setting, so
# the two settings never meet in one test.
MFOLLOWIR_TOPIC = SamplingUnit(
    "topic", "topics", "a NeuCLIR topic with both its instructions, in every language of "
    "the table that has it", rule="mteb topic", across_tasks=True)

_OWN_PAPER = {"mfollowir": ("mfollowir-paper/",), "mfollowir-cl": ("mfollowir-paper/",)}

# Both settings: NeuCLIR 2022's documents, queries and narratives (mFollowIR Sec. 3).
MFOLLOWIR_SOURCES_USED = EvaluationSources(
    collections=("neuclir-2022",),
    instructions=(TREC_NARRATIVES[0],),
    what={"neuclir-2022": "TREC NeuCLIR 2022: Persian, Russian and Chinese news documents and "
                          "their topics (mFollowIR Sec. 3)",
          TREC_NARRATIVES[0]: TREC_NARRATIVES[1] + "; mFollowIR alters NeuCLIR 2022's"})


# The multilingual declaration carries the page and home columns of both settings.
MFOLLOWIR = Benchmark(
    id="mfollowir", title="mFollowIR (multilingual)",
    build_tasks=lambda: _tasks("mfollowir", MFOLLOWIR_SOURCE, "multilingual"),
    pages=site_views("leaderboard.benchmarks.mfollowir_views", "pages"),
    home=site_views("leaderboard.benchmarks.mfollowir_views", "home"),
    reported_only_prefixes=(MFOLLOWIR_PAPER_PREFIX,),
    paper_transcriptions={"mfollowir_tables3_4.yaml": "mfollowir-paper.json"},
    own_sources=_OWN_PAPER,
    sampling_unit=lambda task: MFOLLOWIR_TOPIC,
    evaluation_sources=MFOLLOWIR_SOURCES_USED,
    guide=(GuideRow(
        title="mFollowIR", pull="mfollowir mfollowir-cl",
        task_prefixes=("mfollowir/", "mfollowir-cl/"),
        queries="<code>queries-&lt;lang&gt;</code> + <code>instruction-&lt;lang&gt;</code>, "
                "only those the judgments (<code>default-&lt;lang&gt;</code>) judge, as "
                "FollowIR's; ids as FollowIR (English queries in the cross-lingual "
                "repository)",
        corpus="<code>corpus-&lt;lang&gt;</code> (fas, rus, zho)", depth=POOL_DEPTH),),
)
MFOLLOWIR_CL = Benchmark(
    id="mfollowir-cl", title="mFollowIR (cross-lingual)",
    build_tasks=lambda: _tasks("mfollowir-cl", MFOLLOWIR_CL_SOURCE, "cross-lingual"),
    sampling_unit=lambda task: MFOLLOWIR_TOPIC,
    evaluation_sources=MFOLLOWIR_SOURCES_USED,
)
