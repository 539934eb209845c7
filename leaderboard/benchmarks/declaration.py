"""One benchmark's declaration: everything the engine needs to know about it in one place.

A :class:`Benchmark` says which tasks it has (built by its own function, in the order
``leaderboard tasks`` lists them), which reader loads their data (and so which files
they need: the reader declares them), how ``data pull`` fetches its upstream files, which
site pages and home columns show it, and which reported-only task ids (figures a paper prints on data this
leaderboard does not score) belong to it. The registry, the data loader, ``data pull``,
the site layout and the paper importer read these declarations; none of them names a
benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from importlib import import_module
from typing import TYPE_CHECKING, Callable, Literal

from leaderboard.benchmarks.units import PER_QUERY, SamplingUnit
from leaderboard.core.tasks import Task

if TYPE_CHECKING:  # built by the declarations' functions, only when pages are
    from leaderboard.benchmarks.views import HomeColumn, Page

# How `data pull` plans a GitHub source: download the files the source lists, or list a
# dataset folder and pack its per-table files into one corpus when the corpus is absent.
GitHubPlan = Literal["listed-files", "table-folder"]


@dataclass(frozen=True)
class GuideRow:
    """A row of the How-to-submit page's table of tasks: a benchmark (or a part of it) with
    the `data pull` names that fetch it, the tasks it covers (ids starting with one of
    ``task_prefixes``; the page lists their pinned sources), where a run's queries and
    documents come from, and what a run must rank. Text written in this repository, with
    HTML markup (``<code>``), shown as written."""

    title: str
    pull: str
    task_prefixes: tuple[str, ...]
    queries: str
    corpus: str
    depth: str


@dataclass(frozen=True)
class EvaluationSources:
    """Where a benchmark's test data comes from, as tags a model's declared training data
    is compared with (``training_data`` of ``leaderboard/publish/reported/data/models.yaml``):
    the collections its documents and queries are drawn from, and where its instructions
    come from. A model whose declared training data names one of them gets a mark on this
    benchmark's cells (:mod:`leaderboard.publish.training`); each tag is explained in
    ``what``, with the benchmark paper's statement of it."""

    collections: tuple[str, ...] = ()
    instructions: tuple[str, ...] = ()
    what: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Benchmark:
    id: str
    title: str
    # Its tasks; each names the layout of its upstream files, and so its reader
    # (leaderboard.core.data.READERS).
    build_tasks: Callable[[], list[Task]]
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
    # View-id prefix -> system-id prefixes of this benchmark's own reported sources, in the
    # order a model's line takes its figures from them: after a verified submission, before
    # any other source (leaderboard.publish.standings.lines).
    own_sources: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Where the explorer's cards link a task's documents and queries when the benchmark's
    # licence does not let the site copy its texts (leaderboard.core.explain.shows_text): URL
    # templates at the pinned upstream commit ("doc_page", "doc_text" with "{doc}";
    # "queries_text", "topics_text"), or None.
    upstream_text_links: Callable[[Task], dict[str, str] | None] = lambda task: None
    # What a task's significance tests resample: the unit sampled independently (a
    # topic with all its pairs, a translated pair, a persona; leaderboard.benchmarks.units).
    sampling_unit: Callable[[Task], SamplingUnit] = lambda task: PER_QUERY
    # Its rows of the How-to-submit page's table of tasks.
    guide: tuple[GuideRow, ...] = ()
    # Where its test documents, queries and instructions come from: the rule that marks a
    # model whose declared training data shares them.
    evaluation_sources: EvaluationSources = EvaluationSources()

    @cached_property
    def tasks(self) -> tuple[Task, ...]:
        tasks = tuple(self.build_tasks())
        for t in tasks:
            if t.benchmark != self.id:
                raise ValueError(f"benchmark {self.id!r} builds task {t.id!r} "
                                 f"that names benchmark {t.benchmark!r}")
        return tasks


def site_views(module: str, name: str) -> Callable[[], tuple]:
    """``name()`` of the module that declares a benchmark's site pages and home columns
    (``<benchmark>_views``), imported by name when called, as a task's reader is: the
    view classes are the site's, and a one-task `leaderboard eval`, which reads every
    declaration, never builds a page."""
    return lambda: getattr(import_module(module), name)()
