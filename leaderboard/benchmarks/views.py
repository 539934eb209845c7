"""The shapes of what the site shows: pages, sections (sets of tabs) and views (tables).

A *view* is one leaderboard table: rows are systems, columns are metric values, each
column the mean of one metric over one or more tasks (an "average" view averages the
same metric over several collections, languages or datasets). One column per view is
*tiered*: the significance tiers (leader / tied with leader / below leader) come from
its per-query scores. Views have stable ids (``followir/robust04``) from which their
anchors and download file names derive, so permalinks survive new tasks being added.

Each benchmark module declares its own pages from these shapes;
:func:`leaderboard.benchmarks.site_pages` collects them. Nothing here reads results.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from leaderboard.benchmarks.units import PER_QUERY, SamplingUnit
from leaderboard.core.measures import NoSkill, PairedTest, column_help, parse

AveragePolicy = Literal["all", "available"]
#: How a column turns its tasks' figures into one number (every column declares one):
#:  "task": one task's figure, its mean over the task's queries;
#:  "mean of tasks": the plain mean of the tasks' figures, as the benchmarks' papers print
#:      their averages (FollowIR Table 2, mFollowIR Tables 3-4, FollowTable Tables 4-5,
#:      PI-Indic's per-language means); a row needs every task;
#:  "mean of reported tasks": the plain mean of the figures a reported row has (PI-Indic's
#:      full-set tables average over the languages a model supports).
Convention = Literal["task", "mean of tasks", "mean of reported tasks"]
CONVENTION_TEXT: dict[Convention, str] = {
    "task": "the task's mean over its queries",
    "mean of tasks": "the mean of the {n} per-{unit} figures{why}",
    "mean of reported tasks": "the mean of the per-{unit} figures a row reports",
}


@dataclass(frozen=True)
class Column:
    """One numeric column: ``metric`` over ``tasks``, combined by ``convention``.

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
    signed: bool = False            # the measure can be negative (p-MRR, IRS): show the sign
    help: str = ""
    average: AveragePolicy = "all"
    # When the averaged metric differs per task (FollowIR's "Score": MAP@1000 on Robust04
    # and Core17, nDCG@5 on News21), the metric of each task, parallel to ``tasks``.
    task_metrics: tuple[str, ...] = ()
    # Tasks holding a row's own published average of ``tasks`` (a paper's "Average"
    # column, and tables that print nothing else): when a row has one, it is shown as
    # published instead of being recomputed. Papers average the way ``convention`` says.
    prefer: tuple[str, ...] = ()
    # What the column's test resamples (leaderboard.benchmarks.units): its benchmark's
    # unit, a topic with all its pairs, a translated pair, a persona. The test takes one
    # value per unit (statistic.stratified_units), never a unit's parts as independent
    # queries: that would multiply the sample size (by 132 for PI-Indic's cross-lingual
    # averages, by 4.6 for FollowTable's WQT) and call negligible differences significant.
    sampling: SamplingUnit = PER_QUERY
    # What one task is, in words ("dataset", "collection", "language"), for the caption.
    unit: str = "task"
    # The no-skill reference of this column, if it has one (leaderboard.core.measures.NoSkill).
    no_skill: NoSkill | None = None
    # Coloured as a heatmap (the model x constraint and model x language grids).
    heat: bool = False
    # Where the averaging convention comes from, appended to its description.
    convention_source: str = ", as the paper averages them"
    # False where a reported figure is not on the verified figures' scale (a source's
    # convention the board cannot reproduce: FollowTable's p-MRR, whose note says so), so
    # the two are never ranked against each other: a sort by the column numbers the
    # verified figures only, the reported ones after them (the header's data-unranked,
    # assets/leaderboard.js), and so does a view's default order by it
    # (leaderboard.publish.standings.lines.reported_apart).
    reported_comparable: bool = True

    @property
    def convention(self) -> Convention:
        """How the column combines its tasks (the declaration every built column is
        checked against): one task, or the plain mean of the tasks' figures."""
        if len(self.tasks) == 1:
            return "task"
        return "mean of reported tasks" if self.average == "available" else "mean of tasks"

    @property
    def convention_text(self) -> str:
        if self.convention == "task":
            # A measure computed over all the task's pairs at once is no mean over queries.
            pooled = parse(self.parts[0][1]).measure.task_figure
            if pooled:
                return pooled
        return CONVENTION_TEXT[self.convention].format(n=len(self.tasks), unit=self.unit,
                                                       why=self.convention_source)

    @cached_property
    def test(self) -> PairedTest:
        """The paired test two rows' figures in the column are compared by: the one its
        measures take (the catalogue's ``Measure.test``; FollowIR's Score averages MAP@1000
        and nDCG@5, both sign flips). A column over measures that take different tests
        has no one test, and is refused."""
        tests = {parse(key).measure.test for _, key in self.parts}
        if len(tests) != 1:
            raise ValueError(f"column {self.id!r} averages measures that take different "
                             f"tests ({', '.join(sorted(tests))}): it cannot be tested")
        return tests.pop()

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

def column(task_ids: tuple[str, ...], metric: str, label: str, *, col_id: str | None = None,
           group: str | None = None, help: str | None = None, average: AveragePolicy = "all",
           sampling: SamplingUnit = PER_QUERY, unit: str = "task", heat: bool = False,
           reported_comparable: bool = True) -> Column:
    """A column of ``metric`` over ``task_ids``; what the metric is (direction, sign,
    no-skill reference and, unless ``help`` says otherwise, its help) comes from the
    measure catalogue (:mod:`leaderboard.core.measures`)."""
    measure = parse(metric).measure
    return Column(
        id=col_id or metric, label=label, metric=metric, tasks=task_ids, group=group,
        higher_is_better=measure.higher_is_better, signed=measure.signed,
        help=column_help(metric) if help is None else help,
        average=average, sampling=sampling, unit=unit,
        no_skill=measure.no_skill, heat=heat, reported_comparable=reported_comparable,
    )


@dataclass(frozen=True)
class HomeColumn:
    """A home-page column: the tiered column of one benchmark's average view."""

    id: str
    label: str
    view_id: str
    column_id: str


