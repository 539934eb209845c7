"""A figure as its source printed it, on every table: a reported row's printed digits and
sign (:func:`shown_figure`), and a source's own printed average that is not the mean of
its printed figures for a column's tasks, which the caption says every column is (marked
:data:`PRINTED_MARK` in the cell, both figures in the note under the table).
"""

from __future__ import annotations

import math

from leaderboard.benchmarks.views import Column
from leaderboard.core.display import figure_text, score_text
from leaderboard.publish.standings import Row, ViewTable
from leaderboard.publish.standings.lines import record_of


# Marks a source's own printed average that is not the mean of its printed figures for
# the column's tasks, which the caption says every column is (the note under the table
# gives both).
PRINTED_MARK = "‡"  # not the training mark (†), whose note it switched on

# Printed figures are rounded to one decimal (x100): the mean of rounded figures and a
# rounded mean may differ by up to one unit of the last printed digit.
_PRINTED_ROUNDING = 0.001


def printed_average_gap(table: ViewTable, row: Row, index: int) -> float | None:
    """The mean of the row's own figures for a column's tasks when the cell shows the
    source's printed average and that differs from the mean beyond rounding; else None."""
    basis = table.bases.get(row.key, [None] * len(table.view.columns))[index]
    if basis != "published":
        return None
    column = table.view.columns[index]
    figures = []
    for task_id, metric in column.parts:
        value = _figure(row, column, task_id, metric)
        if value is None and column.average != "available":
            return None  # the caption's mean needs every task: nothing to set beside it
        if value is not None:
            figures.append(value)
    if not figures:
        return None
    # A column of the mean of the tasks a row reports (PI-Indic's full set) compares the
    # printed figure with that mean: a row of 11 languages printing 71.0 over cells
    # averaging 57 was shown unmarked under a caption promising their mean.
    mean = math.fsum(figures) / len(figures)
    shown = table.values[row.key][index]
    return mean if shown is not None and abs(shown - mean) > _PRINTED_ROUNDING + 1e-9 else None


def printed_average_note(table: ViewTable, index: int, row: Row, mean: float) -> str:
    """The sentence about a row whose printed average in column ``index`` is not its
    cells' mean ``mean`` (:func:`printed_average_gap`), under the table and in the home
    page's legend: it names the model, the table and the column."""
    column = table.view.columns[index]
    shown = shown_figure(table, row, index, table.values[row.key][index])
    where = row.system.source.table or "its source"
    return (f"{PRINTED_MARK} {record_of(row).name}, {table.view.title}, {column.label}: the "
            f"average as printed ({where}) is {shown}, but the mean of its "
            f"{_figures_text(row, column)} is {score_text(mean, column.signed, digits=2)}; "
            "the cell shows the printed figure.")


def printed_average_detail(row: Row, column: Column, mean: float) -> str:
    """What a marked cell's details say of its figure: the source's own average, and the
    mean beside it of the figures the note under the table counts."""
    return (f"the source's own published average, not the mean of its "
            f"{_figures_text(row, column)} ({score_text(mean, column.signed, digits=2)})")


def _figures_text(row: Row, column: Column) -> str:
    """"N per-<unit> figures": the row's own figures of the column's tasks, which a column
    averaging the tasks a row reports (PI-Indic's full set) may hold fewer of than it has
    tasks."""
    reported = sum(1 for t, m in column.parts if _figure(row, column, t, m) is not None)
    return f"{reported} per-{column.unit} figures"


def shown_figure(table: ViewTable, row: Row | None, index: int, value: float | None) -> str:
    """``row``'s figure in column ``index`` of ``table`` as every surface shows it: as its
    source prints it where it is a printed figure, else by the rounding rule
    (:func:`leaderboard.core.display.figure_text`)."""
    return figure_text(value, table.view.columns[index].signed,
                       table.printed_figure(row, index))


def _figure(row: Row, column: Column, task_id: str, metric: str) -> float | None:
    """A row's own figure of one of a column's tasks (None: it reports none)."""
    scores = row.system.tasks.get(task_id)
    if scores is None:
        return None
    return scores.groups.get(column.group, {}).get(metric) if column.group \
        else scores.metrics.get(metric)
