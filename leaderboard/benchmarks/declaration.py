"""One benchmark's declaration: everything the engine needs to know about it in one place.

A :class:`Benchmark` says which tasks it has (built by its own function, in the order
``leaderboard tasks`` lists them), which reader loads their data, how ``data pull``
fetches its upstream files and how to tell which are missing, which site pages and home
columns show it, and which reported-only task ids (figures a paper prints on data this
leaderboard does not score) belong to it. The registry, the data loader, ``data pull``,
the site layout and the paper importer read these declarations; none of them names a
benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Literal

from leaderboard.core.tasks import Task

if TYPE_CHECKING:  # built by the declarations' functions, only when pages are
    from leaderboard.benchmarks.views import HomeColumn, Page

# Readers by layout name: each module has ``load(task, data_dir) -> TaskData`` and
# ``iter_corpus(task, data_dir)``. Imported only when used: the mteb and PI-Indic readers
# pull in pandas, which a FollowTable `leaderboard eval` never needs.
READERS: dict[str, str] = {
    "mteb": "leaderboard.core.data.mteb_layout",
    "followtable": "leaderboard.core.data.followtable",
    "pi-indic": "leaderboard.core.data.pi_indic",
}

# How `data pull` plans a GitHub source: download the files the source lists, or list a
# dataset folder and pack its per-table files into one corpus when the corpus is absent.
GitHubPlan = Literal["listed-files", "table-folder"]


@dataclass(frozen=True, eq=False)
class Benchmark:
    id: str
    title: str
    build_tasks: Callable[[], list[Task]]
    # Key of READERS; a task's params["layout"] overrides it.
    reader: str
    # Files a task's reader needs that are not under the data directory (empty: present).
    missing_files: Callable[[Task, Path], list[Path]]
    # Other names `leaderboard data pull` accepts for this benchmark.
    pull_aliases: tuple[str, ...] = ()
    github_plan: GitHubPlan = "listed-files"
    # Site pages this declaration contributes, in site order (a page may show sections of
    # sibling benchmarks: mFollowIR's page holds both settings).
    pages: Callable[[], tuple[Page, ...]] = lambda: ()
    # Home-page columns with the page each links to, in home-page order (a function, as
    # ``pages``: the views are built only where the site is).
    home: Callable[[], tuple[tuple[HomeColumn, str], ...]] = lambda: ()
    # Task-id prefixes of figures reported only by a paper, never scored here.
    reported_only_prefixes: tuple[str, ...] = ()
    # The paper's tables, transcribed in leaderboard/publish/reported/data/<yaml>: yaml file name ->
    # name of the reported results file it becomes.
    paper_transcriptions: dict[str, str] = field(default_factory=dict)
    # View-id prefix -> task-id prefix of this benchmark's own paper's reported rows.
    own_paper: dict[str, str] = field(default_factory=dict)
    # Where the explorer's cards link a task's documents and queries when the benchmark's
    # licence does not let the site copy its texts (leaderboard.core.explain.shows_text): URL
    # templates at the pinned upstream commit ("doc_page", "doc_text" with "{doc}";
    # "queries_text", "topics_text"), or None.
    upstream_text_links: Callable[[Task], dict[str, str] | None] = lambda task: None

    @cached_property
    def tasks(self) -> tuple[Task, ...]:
        tasks = tuple(self.build_tasks())
        for t in tasks:
            if t.benchmark != self.id:
                raise ValueError(f"benchmark {self.id!r} builds task {t.id!r} "
                                 f"that names benchmark {t.benchmark!r}")
        return tasks


def reader_name_of(task: Task, benchmark: Benchmark) -> str:
    """The name of ``task``'s data reader module: its params["layout"]'s, else its
    benchmark's."""
    layout = task.params.get("layout", benchmark.reader)
    try:
        return READERS[layout]
    except KeyError:
        raise ValueError(f"task {task.id!r}: unknown data layout {layout!r}; "
                         f"known: {', '.join(READERS)}") from None

