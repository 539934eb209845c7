"""No-skill references: what a system without any skill scores in a column.

A leader below its column's no-skill reference is no better than chance, and the site
draws the reference as a row of its own so that a reader sees it. The references are
facts of the measure, declared in its catalogue entry (:mod:`leaderboard.core.measures`,
``Measure.no_skill``, which every column carries as :attr:`Column.no_skill`):

* p-MRR and IRS: 0, no change (the altered run equal to the original one moves no
  document). It is not a floor: both measure how documents move, so an altered run that
  demotes every document (the original ranking reversed or shuffled) ignores the
  instruction and still scores far above 0 on p-MRR, and above 0 on IRS for some tasks,
  while its own nDCG falls to about 0 (tests/test_board_truth.py measures it). Pages say
  so, and a reader weighs p-MRR and IRS against the altered run's nDCG. IRS is also
  relative to the submitted topic-only run, so a worse one raises it (that run reversed
  lifts a baseline's IRS above every verified row's on TArX, tests/test_board_truth.py):
  pages say to read IRS beside the topic-only nDCG@10;
* T4: a constant probability equal to the share of compatible pairs, the calibrated
  answer of the majority class: AUROC and balanced accuracy 0.5, AUPRC the positive
  rate, Accuracy the majority share, ECE 0 (:func:`no_skill_value`, by the kind each
  measure declares). The positive rate of each task
  comes from the verified rows' score sheets (``Positive rate``: a property of the task's
  pair set, the same in every row), and a column's reference follows its convention, the
  mean over its tasks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from leaderboard.core.measures import NoSkill

from .lines import ModelLine, ranked
from .rows import Row

if TYPE_CHECKING:
    from leaderboard.benchmarks.views import Column, View

POSITIVE_RATE = "Positive rate"

#: The reference row's name, by the kinds of reference a view holds.
REFERENCE_NAMES = {
    "zero": "No change: the altered run ranks as the original one",
    "chance": "No skill: a constant probability (the share of compatible pairs)",
}


def no_skill_value(kind: NoSkill, positive_rate: float) -> float:
    """What a system without skill scores on a measure of this no-skill ``kind``
    (:data:`leaderboard.core.measures.NoSkill`), on a T4 pair set with this share of
    positives: for T4, a constant probability equal to the positive rate (the calibrated
    "majority class" answer; its thresholded prediction is the majority class when the
    rate is below 0.5). tests/test_board_truth.py holds these to
    :func:`leaderboard.core.metrics.classification.classification_metrics` of that
    constant predictor."""
    if kind in ("zero", "constant calibrated"):  # no change; the constant is its own bin
        return 0.0
    if kind == "chance":
        return 0.5
    if kind == "positive rate":
        return positive_rate
    if kind == "majority":
        return max(positive_rate, 1.0 - positive_rate)
    raise ValueError(f"no value declared for the no-skill kind {kind!r}")


def positive_rates(rows: Iterable[Row], tasks: Iterable[str]) -> dict[str, float]:
    """The share of compatible pairs of each of ``tasks`` that has one (T4), from the first
    verified row that scored it."""
    rows = [r for r in rows if r.verified]
    out: dict[str, float] = {}
    for task_id in tasks:
        for row in rows:
            scores = row.system.tasks.get(task_id)
            rate = scores.metrics.get(POSITIVE_RATE) if scores is not None else None
            if rate is not None:
                out[task_id] = rate
                break
    return out


def reference_value(column: Column, rates: dict[str, float]) -> float | None:
    """The column's no-skill value, or None when it has none (or the positive rate of one
    of its tasks is not known)."""
    kind = column.no_skill
    if kind is None:
        return None
    if kind == "zero":
        return 0.0
    figures = []
    for task_id in column.tasks:
        rate = rates.get(task_id)
        if rate is None:
            return None
        figures.append(no_skill_value(kind, rate))
    return math.fsum(figures) / len(figures)


def view_references(view: View, rows: Iterable[Row]) -> list[float | None]:
    """The no-skill value of each column of the view (None where there is none)."""
    needs = {t for c in view.columns if c.no_skill not in (None, "zero") for t in c.tasks}
    rates = positive_rates(rows, sorted(needs)) if needs else {}
    return [reference_value(c, rates) for c in view.columns]


#: The reference row's key, in place of a model id, on the pages and in the downloads.
REFERENCE_KEY = "no-skill-reference"


def reference_name(view: View) -> str:
    """The reference row's name, as the page and the downloads show it."""
    kinds = {c.no_skill for c in view.columns if c.no_skill}
    return REFERENCE_NAMES["zero" if "zero" in kinds else "chance"] + " (reference)"


def reference_at(view: View, lines: Sequence[ModelLine], references: Sequence[float | None]
                 ) -> int:
    """Where the reference row stands among a view's model lines in the default order:
    among the ranked lines, where its value of the sort column falls, so that a ranked
    line below it is below no skill, and before the lines without a rank (at the end
    when that column has no reference)."""
    value = references[view.sort_column] if references else None
    if value is None:
        return len(lines)
    col = view.columns[view.sort_column]
    return next((i for i, line in enumerate(lines)
                 if not ranked(line, view)
                 or ((v := line.cells[view.sort_column].value) is not None
                     and (v < value if col.higher_is_better else v > value))), len(lines))
