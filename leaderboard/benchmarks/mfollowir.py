"""mFollowIR (Weller et al.): TREC NeuCLIR in Persian, Russian and Chinese, in two
settings declared as two benchmarks: multilingual (queries in the documents' language)
and cross-lingual (English queries). mteb's copies on the Hugging Face Hub."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from leaderboard.benchmarks.declaration import Benchmark
from leaderboard.benchmarks.followir import mteb_missing_files
from leaderboard.core.tasks import DataSource, Task

if TYPE_CHECKING:  # each function imports the views it builds when it runs: the module
    # (dataclasses that take 5 ms to create) is then loaded only when pages are built
    from leaderboard.benchmarks.views import HomeColumn, Page, Section

MFOLLOWIR_SOURCE = DataSource(host="huggingface", repo="jhu-clsp/mFollowIR-parquet-mteb",
                              revision="09eecbe4", local_dir="mfollowir/multilingual",
                              licence="ODC-By")
MFOLLOWIR_CL_SOURCE = DataSource(host="huggingface",
                                 repo="jhu-clsp/mFollowIR-cross-lingual-parquet-mteb",
                                 revision="6b015666", local_dir="mfollowir/cross-lingual",
                                 licence="ODC-By")
MFOLLOWIR_LANGUAGES = {"fas": "Persian", "rus": "Russian", "zho": "Chinese"}
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
        views={"language": lang, "setting": setting},
        params={"layout": "mteb", "language": lang},
    ) for lang, name in MFOLLOWIR_LANGUAGES.items()]


# --------------------------------------------------------------------------- views

def _mfollowir_section(declared: Benchmark, setting: str) -> Section:
    from leaderboard.benchmarks.views import Chart, Section, View, column

    benchmark = declared.id
    tasks = {t.params["language"]: t for t in declared.tasks}
    ids = tuple(t.id for t in tasks.values())
    paper = (MFOLLOWIR_PAPER_AVERAGE[benchmark],)
    avg_cols = [replace(column(ids, "p-MRR", "p-MRR", unit="language"),
                        prefer=paper),
                replace(column(ids, "original/nDCG@20", "nDCG@20", unit="language",
                               help="nDCG@20 with the original instruction"), prefer=paper)]
    # The model x language grid, as the paper's Tables 3 and 4 lay it out.
    for metric, label in (("p-MRR", "p-MRR"), ("original/nDCG@20", "nDCG@20")):
        avg_cols += [column((task.id,), metric, f"{MFOLLOWIR_LANGUAGES[lang]} {label}",
                            col_id=f"{lang}:{metric}", heat=True)
                     for lang, task in tasks.items()]
    per: list[View] = []
    for lang, task in tasks.items():
        name = MFOLLOWIR_LANGUAGES[lang]
        per.append(View(
            id=task.id, label=name, title=task.title,
            columns=(column((task.id,), "p-MRR", "p-MRR"),
                     column((task.id,), "original/nDCG@20", "nDCG@20",
                          help="nDCG@20 with the original instruction")),
        ))
    average = View(id=f"{benchmark}/average", label="Average",
                   title=f"mFollowIR {setting} average", columns=tuple(avg_cols),
                   breakdown=False,
                   note="The averages are the mean of the three languages' figures, as the "
                        "paper's Tables 3 and 4 print them; a system needs all three. Its "
                        "test weighs each query by 1 / (3 x its language's queries), so it "
                        "compares exactly that mean. The language columns are the model x "
                        "language grid.")
    intro = ("English queries and instructions, documents in Persian, Russian or Chinese."
             if setting == "cross-lingual" else
             "Queries, instructions and documents all in Persian, Russian or Chinese.")
    return Section(id=benchmark, title=f"mFollowIR {setting}", intro=intro,
                   views=(average, *per),
                   chart=Chart(x_column="original/nDCG@20", y_column="p-MRR",
                               x_label="nDCG@20", y_label="p-MRR"))



def _pages() -> tuple[Page, ...]:
    from leaderboard.benchmarks.views import Page

    return (Page(path="mfollowir.md", title="mFollowIR",
                 sections=(_mfollowir_section(MFOLLOWIR_CL, "cross-lingual"),
                           _mfollowir_section(MFOLLOWIR, "multilingual")),
                 intro="Weller et al., mFollowIR: multilingual instruction following on TREC "
                       "NeuCLIR. Primary metric p-MRR; standard metric nDCG@20."),)


def _home() -> tuple[tuple[HomeColumn, str], ...]:
    from leaderboard.benchmarks.views import HomeColumn

    return ((HomeColumn("mfollowir-cl", "mFollowIR cross-lingual p-MRR", "mfollowir-cl/average",
                        "p-MRR"), "mfollowir.md"),
            (HomeColumn("mfollowir", "mFollowIR multilingual p-MRR", "mfollowir/average",
                        "p-MRR"), "mfollowir.md"))


_OWN_PAPER = {"mfollowir": "mfollowir-paper/", "mfollowir-cl": "mfollowir-paper/"}

# The multilingual declaration carries the page and home columns of both settings.
MFOLLOWIR = Benchmark(
    id="mfollowir", title="mFollowIR (multilingual)",
    build_tasks=lambda: _tasks("mfollowir", MFOLLOWIR_SOURCE, "multilingual"),
    reader="mteb", missing_files=mteb_missing_files, pages=_pages,
    home=_home,
    reported_only_prefixes=(MFOLLOWIR_PAPER_PREFIX,),
    paper_transcriptions={"mfollowir_tables3_4.yaml": "mfollowir-paper.json"},
    own_paper=_OWN_PAPER,
)
MFOLLOWIR_CL = Benchmark(
    id="mfollowir-cl", title="mFollowIR (cross-lingual)",
    build_tasks=lambda: _tasks("mfollowir-cl", MFOLLOWIR_CL_SOURCE, "cross-lingual"),
    reader="mteb", missing_files=mteb_missing_files,
)
