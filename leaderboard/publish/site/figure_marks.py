"""The marks a figure carries after its digits, decided in one place for every table
that shows it (a benchmark's, the home page's): a one-class classifier's figure of a
measure it wins without skill (``*``), a model whose declared training data shares a
source with the benchmark (``†``), a paper's printed average that is not the mean of its
own figures (``‡``); what a cell's details say of each, the note that explains it under a
table or in the home page's legend, and the figure's style (its tier's, italic for a
reported figure)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from leaderboard.benchmarks.views import Column
from leaderboard.core.measures import MEASURES, Measure, one_class_tell
from leaderboard.publish.site.printed_figures import (PRINTED_MARK, printed_average_detail,
                                                      printed_average_gap, printed_average_note)
from leaderboard.publish.standings import (TIER_BELOW, TIER_LEADER, TIER_REPORTED, TIER_TIED,
                                           Row, TierInfo, ViewTable)
from leaderboard.publish.standings.downloads import ONE_CLASS, PRINTED_AVERAGE, TRAINING_OVERLAP
from leaderboard.publish.training import TRAINING_MARK, Overlap


@dataclass(frozen=True)
class Mark:
    """A mark a figure carries after its digits on every table that shows it (its
    benchmark's, the home page's): the symbol, what the cell's details say of it, and the
    sentence that explains it (under a benchmark table, in the home page's legend)."""

    symbol: str
    detail: str
    note: str


TIER_CSS = {TIER_LEADER: "fb-leader", TIER_TIED: "fb-tied", TIER_BELOW: "",
            TIER_REPORTED: "fb-reported"}


# Marks a figure a classifier that answers one class for every pair wins without skill
# (the catalogue's one_class_wins: T4's ECE); the note under the table says why.
ONE_CLASS_MARK = "*"


def one_class_merit(measure: Measure) -> str:
    """Why a one-class classifier's figure of the measure is no merit, in words."""
    good = "low" if measure.direction == "lower" else "high"
    return f"{measure.one_class_wins}, so its {good} {measure.name} is no merit"


def one_class_reason() -> str:
    """What the mark means: a marked cell's details, and after the mark, the note under a
    table with one."""
    return ("answers one class for every pair (no pair, or every pair, predicted "
            "compatible): " + "; ".join(one_class_merit(m) for m in MEASURES.values()
                                        if m.one_class_wins)
            + "; see its AUROC and balanced accuracy.")


def one_class_note() -> str:
    return f"{ONE_CLASS_MARK} {one_class_reason()}"


def one_class(row: Row, column: Column) -> bool:
    """Whether the row's figure in the column is of a measure a one-class classifier wins
    without skill (``measures.one_class_tell``) and comes from a classifier that predicts
    one class for every pair the column covers: none of them compatible in any of its
    tasks, or all of them. (A classifier that answers "incompatible" in ten languages and
    names 30 pairs compatible in two does not answer one class for the average's pairs.)"""
    rates = []
    for task_id, key in column.parts:
        tell = one_class_tell(key)
        scores = row.system.tasks.get(task_id)
        rate = scores.metrics.get(tell) if scores and tell else None
        if rate is None:
            return False
        rates.append(rate)
    return bool(rates) and (all(r == 0.0 for r in rates)
                            or all(r == 1.0 for r in rates))


TRAINING_NOTE = (f"{TRAINING_MARK} the model's declared training data shares a source "
                 "collection or the source of its instructions with the figure's benchmark "
                 "(a cell's details say which, and who says so); the figure is shown and "
                 "ranked as any other. Models whose training data is not disclosed carry no "
                 "mark; a verified model's submission page says what it declares.")


@dataclass(frozen=True)
class Marked:
    """What decides each mark of a figure: whether a one-class classifier gave it, what
    the model's training data shares with the benchmark, and the mean of a printed
    average's own figures where it is not that mean. The page's marks
    (:func:`figure_marks`) and the downloads' fields (:func:`mark_fields`) are both
    made of it, so the two cannot say different things."""

    one_class: bool
    overlap: Overlap | None
    printed_mean: float | None


def marked(table: ViewTable, row: Row, index: int, overlap: Overlap | None) -> Marked:
    """What marks ``row``'s figure in column ``index`` of ``table``. ``overlap``: what
    the model's declared training data shares with the view's benchmark (``view_overlap``
    of its record, which a caller computes once per model)."""
    return Marked(one_class(row, table.view.columns[index]), overlap,
                  printed_average_gap(table, row, index))


def figure_marks(table: ViewTable, row: Row, index: int,
                 overlap: Overlap | None) -> list[Mark]:
    """The marks of ``row``'s figure in column ``index`` of ``table``, in the order they
    follow it: one place for every table that shows the figure (:func:`marked`)."""
    column = table.view.columns[index]
    found = marked(table, row, index, overlap)
    marks = []
    if found.one_class:
        marks.append(Mark(ONE_CLASS_MARK, one_class_reason(), one_class_note()))
    if found.overlap is not None:
        marks.append(Mark(TRAINING_MARK, found.overlap.describe(), TRAINING_NOTE))
    if found.printed_mean is not None:
        mean = found.printed_mean
        marks.append(Mark(PRINTED_MARK, printed_average_detail(row, column, mean),
                          printed_average_note(table, index, row, mean)))
    return marks


def mark_fields(table: ViewTable, row: Row, index: int,
                overlap: Overlap | None) -> dict[str, object]:
    """What the marks of ``row``'s figure in column ``index`` say, as the downloads'
    fields of the cell (:data:`~leaderboard.publish.standings.downloads.MARK_FIELDS`):
    the same :func:`marked` as the page's marks."""
    found = marked(table, row, index, overlap)
    return {ONE_CLASS: found.one_class,
            TRAINING_OVERLAP: found.overlap.document() if found.overlap else None,
            PRINTED_AVERAGE: found.printed_mean}


# The order of the notes that explain the marks, as the marks follow a figure.
_MARK_ORDER = (ONE_CLASS_MARK, TRAINING_MARK, PRINTED_MARK)


def mark_notes(marks: Iterable[Mark]) -> list[str]:
    """The notes that explain ``marks`` (those the cells of a table show, or of the home
    page's tables), each once, in the order marks follow a figure: what is said under a
    benchmark table and in the home page's legend."""
    seen = sorted({(m.symbol, m.note) for m in marks},
                  key=lambda m: (_MARK_ORDER.index(m[0]), m[1]))
    return [note for _, note in seen]


def figure_css(tier: TierInfo | None, row: Row) -> str:
    """A figure's style on every table: its tier's (bold leader, underlined tie), italic
    for a reported figure whether or not its column is tested."""
    return "fb-reported" if not row.verified else TIER_CSS.get(tier.tier, "") if tier else ""
