"""Two scored systems compared view by view (`leaderboard compare`).

The comparison walks the site's views (:func:`leaderboard.benchmarks.all_views`), averages
included, so every figure is one the leaderboard shows: a column's value by its declared
convention (:mod:`.statistic`), tested on the same values of the same independently
sampled units (a topic with all its pairs, a translated pair, a persona) with the same
paired test (:func:`leaderboard.publish.stats.tiers.compare_pair`: Fisher randomization, Wilcoxon
for p-MRR, DeLong for AUROC), each with the interval of its own statistic.
Columns compared in a view are those spanning all of the view's tasks (a per-dataset
breakdown column of an average view is its own dataset view). The Holm family is one view,
as on the site: the p-values of one view's columns are corrected together, never those of
the whole comparison at once. The family differs from the site's tiers, which correct each
row's test against the best verified row over the rows of one column: the same raw p-value
can pass one correction and not the other, and both texts say which family they mean.

A verdict never contradicts its own interval: "A better" or "B better" needs an adjusted
p-value below alpha, a 95% interval on the same side of 0 and a difference larger than the
reproducibility threshold; "no significant difference" needs an adjusted p-value at or
above alpha *and* an interval containing 0. A difference within the reproducibility
threshold is "tied (within the reproducibility threshold)" whatever the test says. When the
test and the interval disagree (the interval is not adjusted for the family) the verdict is
"inconclusive".
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from leaderboard.benchmarks import all_views
from leaderboard.benchmarks.registry import get_task
from leaderboard.benchmarks.views import Column, View
from leaderboard.core.data.revision import recorded_revision
from leaderboard.core.display import MISSING, p_text, score_text
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.measures import is_signed
from leaderboard.core.report import plural
from leaderboard.publish.stats.significance.api import REPRODUCIBILITY_THRESHOLD, holm_at_floors
from leaderboard.publish.stats.tiers import ALPHA, compare_pair
from leaderboard.submission.layout import RESULTS_NAME, score_command
from leaderboard.submission.results import SystemResult, off_pin_revisions, off_pin_tasks

from .rows import StandingsDataError, read_submission
from .statistic import column_value, shown_figure, unit_scores
from .tables import off_pin_in
from .verdicts import SHIFT_TEST, excludes_zero, test_statistics

Verdict = Literal["A better", "B better", "no significant difference", "inconclusive",
                  "tied (within the reproducibility threshold)"]
SCALE = "fractions (the site and the text table show x100)"
# The layout of `compare --json` (its fields and what each holds): it moves when a field
# changes its name or meaning (2: estimate, ci_low and ci_high, whose meaning depended on
# the test, became diff_ci_* and hl_* as in the downloads, and effect became diff; 3: each
# row's off_pin_revision; 4: p_adjusted is Holm's of the p-values raised to their floors,
# and p_adjusted_bound says where it is an upper bound).
COMPARE_FORMAT = "followboard-compare/4"


class ColumnComparison(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    view: str
    column: str          # column id in the view
    label: str
    metric: str          # the per-query key tested
    tiered: bool         # the view's tiered column (the site's leader and tiers)
    test: str
    unit: str            # what the test resamples, e.g. "topics"
    n_units: int
    mean_a: float
    mean_b: float
    diff: float          # mean(a - b) over the view's units
    # The statistics by the names and meanings of the site's downloads and the CI report
    # (verdicts.STATISTIC_FIELDS): each holds one statistic whatever the test. p-values are
    # raised to p_floor, the smallest the test resolves; p_adjusted is Holm within the view
    # of those, an upper bound ("at most") where p_adjusted_bound says so.
    p_value: float
    p_adjusted: float
    p_adjusted_bound: bool
    p_floor: float
    diff_ci_low: float | None   # diff's 95% interval (bootstrap, DeLong's); None for
    diff_ci_high: float | None  # Wilcoxon's test, or too few units
    hl_shift: float | None      # Wilcoxon only: the Hodges-Lehmann shift of a - b
    hl_ci_low: float | None     # and its 95% interval (None: too few units)
    hl_ci_high: float | None
    effect_size: float | None   # diff / sd of the units' differences
    family_size: int
    verdict: Verdict
    # The data revision both were scored on where that is not the one the registry pins
    # (as the downloads' off_pin_revision names it): the pair is on the same data, older
    # than the board's. None: both on the pinned revision.
    off_pin_revision: str | None = None


class SubmissionComparison(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["followboard-compare/4"] = COMPARE_FORMAT
    system_a: str
    system_b: str
    alpha: float
    scale: str
    threshold: float    # differences within it are ties
    rows: list[ColumnComparison]
    skipped: list[str]  # views or columns not compared, with why


def verdict(p_adjusted: float, ci_low: float | None, ci_high: float | None, effect: float,
            higher_is_better: bool, alpha: float,
            threshold: float = REPRODUCIBILITY_THRESHOLD) -> Verdict:
    """The verdict of one comparison (module docstring); the interval is the test's own,
    ``effect`` the mean difference a - b."""
    outside = excludes_zero(ci_low, ci_high)
    if p_adjusted >= alpha and not outside:
        return "no significant difference"
    if abs(effect) <= threshold:
        return "tied (within the reproducibility threshold)"
    same_side = (ci_low is not None and ci_low > 0) == (effect > 0)
    if p_adjusted < alpha and outside and same_side:
        a_wins = (effect > 0) == higher_is_better
        return "A better" if a_wins else "B better"
    return "inconclusive"


class NoSuchSubmission(FollowBoardError, LookupError):
    """A submission argument that names no file, folder nor submission: invalid input,
    exit 1, as `validate` and `score` say of a folder that is not there."""


def resolve_submission(arg: str | Path, submissions_root: Path) -> Path:
    """A results file or submission folder given as a path, or a submission id looked up
    under ``submissions_root``."""
    path = Path(arg)
    if path.exists():
        return path
    if "/" in str(arg):
        raise NoSuchSubmission(f"{arg}: no such file or folder")
    candidate = submissions_root / str(arg)
    if candidate.exists():
        return candidate
    raise NoSuchSubmission(
        f"{arg}: no such file or folder, and no submission {str(arg)!r} in "
        f"{submissions_root.resolve()}/ (give the submission's folder or results file, or "
        "--submissions-dir DIR for the folder that holds its folder)")


def load_system(path: Path) -> tuple[SystemResult, dict[str, str]]:
    """A submission folder or a results.json with exactly one verified system, and its
    tasks scored on another data revision than the registry pins (task -> the recorded
    revision, :func:`~leaderboard.submission.results.off_pin_tasks`)."""
    results_path = path / RESULTS_NAME if path.is_dir() else path
    if not results_path.is_file():
        raise StandingsDataError(f"{results_path}: no results file; run "
                                 f"{score_command(path)} first")
    results, system = read_submission(results_path)
    return system, off_pin_tasks(results.produced_by)


def _scored_on(off_pin: Mapping[str, str], task_id: str) -> str | None:
    """The repository@revision a side (its tasks scored off the pin, :func:`load_system`)
    was scored on for ``task_id``: the pinned one unless recorded off it; None for data of
    an unknown revision, which is the same as no other side's."""
    if task_id in off_pin:
        return recorded_revision(off_pin[task_id])
    return get_task(task_id).source.pinned


def _off_pin_pair(view: View, column: Column, sides: dict[str, Mapping[str, str]]
                  ) -> tuple[str | None, str]:
    """Whether ``view``'s ``column`` is compared when a side (system id -> its tasks scored
    off the pin) was scored on another revision of the column's data than the registry
    pins: (the off-pin revisions both were scored on, None when both are on the pin; why
    it is not compared, "" when it is). Two sides scored on the same revision of every
    task are a pair on the same data, compared and labelled with it; a side on other data
    than the other is no pair (the site tests an off-pin row against none either)."""
    moved = {sid: m for sid, off in sides.items() if (m := off_pin_in(off, column))}
    if not moved:
        return None, ""
    offs = list(sides.values())
    if len(moved) == len(sides) and all(
            (on := _scored_on(offs[0], t)) is not None
            and all(_scored_on(off, t) == on for off in offs[1:]) for t in column.tasks):
        return off_pin_revisions(next(iter(moved.values()))), ""
    pinned = ", ".join(sorted({get_task(t).source.pinned for m in moved.values() for t in m}))
    said = "; ".join(f"{sid} scored on {off_pin_revisions(m)}" for sid, m in moved.items())
    return None, f"{view.id} ({said}, not the pinned {pinned}: other data)"


def compare_systems(a: SystemResult, b: SystemResult, view_pattern: str = "*", *,
                    seed: int = 0, alpha: float = ALPHA,
                    off_pin: tuple[Mapping[str, str], Mapping[str, str]] = ({}, {})
                    ) -> SubmissionComparison:
    """``a`` and ``b`` compared on every view matching ``view_pattern`` that both cover;
    ``off_pin``: each one's tasks scored on another data revision than the registry pins
    (:func:`load_system`): a view one of them was scored on other data than the other is
    not compared (a figure on the pinned data and one on other data are no pair; the site
    tests such a row against none either), while one both were scored on the same earlier
    revision is, its rows naming that revision (:func:`_off_pin_pair`)."""
    sides = {a.system_id: off_pin[0], b.system_id: off_pin[1]}

    rows: list[ColumnComparison] = []
    skipped: list[str] = []
    for view in all_views().values():
        if not fnmatch.fnmatch(view.id, view_pattern):
            continue
        if all(c.heat for c in view.columns):
            continue  # a grid repeats other views' columns (their tests are there)
        view_tasks = set(view.tasks)
        pending = []
        for index, column in enumerate(view.columns):
            if set(column.tasks) != view_tasks:
                continue
            if column_value(a, column).value is None or column_value(b, column).value is None:
                continue  # one side lacks a task of the view
            revision, reason = _off_pin_pair(view, column, sides)
            if reason:
                skipped.append(reason)  # the view's columns span the same tasks: once
                break
            qa, qb = unit_scores(a, column), unit_scores(b, column)
            if not qa or not qb:
                skipped.append(f"{view.id} {column.label} (no per-query scores)")
                continue
            metric = column.metric
            result = compare_pair(qa, qb, metric, seed, a_name=a.system_id,
                                  b_name=b.system_id, test=column.test)
            pending.append((index, column, metric, revision, result))
        adjusted, bounds = holm_at_floors([r.p_value for *_, r in pending],
                                          [r.p_floor for *_, r in pending])
        for (index, column, metric, revision, r), p_adj, bound in zip(pending, adjusted,
                                                                       bounds):
            # Each side's figure as the view's table shows it (the mean over the units
            # differs from it in the last bits); the site tests a tiered column's rows on
            # the pinned data only.
            tested = index == view.tiered_column and revision is None
            mean_a, mean_b = (shown_figure(s, column, tested) for s in (a, b))
            assert mean_a is not None and mean_b is not None  # both have the column
            rows.append(ColumnComparison(
                view=view.id, column=column.id, label=column.label, metric=metric,
                tiered=index == view.tiered_column, unit=column.sampling.plural,
                n_units=r.n_units, mean_a=mean_a, mean_b=mean_b, diff=r.effect,
                # As the site's downloads give them, p-values raised to the floor below
                # which the test does not resolve one (5.6e-40 from a normal approximation
                # meant "≤ 1e-5"), and Holm's of those, a bound where it rests on one
                **test_statistics(r.test, p_value=r.p_value, p_adjusted=p_adj,
                                  p_adjusted_bound=bound, p_floor=r.p_floor, estimate=r.estimate, ci_low=r.ci_low,
                                  ci_high=r.ci_high, effect_size=r.effect_size),
                family_size=len(pending),
                verdict=verdict(p_adj, r.ci_low, r.ci_high, r.effect,
                                column.higher_is_better, alpha),
                off_pin_revision=revision))
    return SubmissionComparison(system_a=a.system_id, system_b=b.system_id, alpha=alpha,
                                scale=SCALE, threshold=REPRODUCIBILITY_THRESHOLD, rows=rows,
                                skipped=skipped)


def nothing_compared(a: SystemResult, b: SystemResult, view_pattern: str,
                     cmp: SubmissionComparison) -> str:
    """Why a comparison has no row, in one line (`leaderboard compare` exits 1 with it)."""
    common = len(set(a.tasks) & set(b.tasks))
    where = "" if view_pattern == "*" else f" matching {view_pattern!r}"
    # A grid both cover is a view they share, whose figures are tested in their own views
    grids = [f"{view.id} (a grid of figures tested in their own views)"
             for view in all_views().values()
             if fnmatch.fnmatch(view.id, view_pattern) and all(c.heat for c in view.columns)
             and all(column_value(s, c).value is not None
                     for c in view.columns for s in (a, b))]
    if grids or cmp.skipped:
        reasons = grids + cmp.skipped
        on = "" if view_pattern == "*" else f" on views matching {view_pattern!r}"
        return (f"nothing to compare between {a.system_id} and {b.system_id}{on}: not "
                f"compared: {', '.join(reasons[:5])}{' ...' if len(reasons) > 5 else ''}")
    return (f"{a.system_id} and {b.system_id} share no view{where}: {a.system_id} covers "
            f"{plural(len(a.tasks), 'task')}, {b.system_id} {plural(len(b.tasks), 'task')}, "
            f"{common:,} in common; nothing to compare")


def format_table(cmp: SubmissionComparison) -> str:
    """Plain-text table; scores x100 with one decimal, as the leaderboard shows them.

    Each column holds one statistic, and an interval stands beside the figure it bounds:
    A-B is the mean difference, with its 95% interval where the test's own statistic is
    that mean (the bootstrap's, DeLong's for AUROC); a row tested by Wilcoxon (p-MRR, †)
    gets the Hodges-Lehmann shift with its interval in a column of its own, as the site
    prints "mean; shift HL [low, high]", its mean standing alone."""
    head = (f"A = {cmp.system_a}\nB = {cmp.system_b}\nScores x100 (the site's scale).\n"
            f"{'view':34} {'column':24} {'A':>7} {'B':>7} {'A-B':>7} {'95% CI':>16} "
            f"{'† shift [95% CI]':>23} {'p':>8} {'p(Holm)':>8}  verdict")
    lines = [head, "-" * len(head.splitlines()[-1])]
    for r in cmp.rows:
        shift = r.test == SHIFT_TEST
        label = (r.label + (" *" if r.tiered else "") + (" †" if shift else "")
                 + (" ‡" if r.off_pin_revision else ""))
        mean_interval = MISSING if shift else _interval(r.diff_ci_low, r.diff_ci_high)
        shift_text = (f"{score_text(r.hl_shift, True)} {_interval(r.hl_ci_low, r.hl_ci_high)}"
                      if shift else MISSING)
        signed = is_signed(r.metric)
        lines.append(
            f"{r.view:34} {label:24} {score_text(r.mean_a, signed):>7} "
            f"{score_text(r.mean_b, signed):>7} "
            f"{score_text(r.diff, True):>7} {mean_interval:>16} {shift_text:>23} "
            f"{p_text(r.p_value, r.p_floor, level=cmp.alpha):>8} "
            f"{p_text(r.p_adjusted, r.p_floor, level=cmp.alpha, bound=r.p_adjusted_bound):>8}"
            "  "
            f"{r.verdict}")
    if not cmp.rows:
        lines.append("(no view scored by both submissions)")
    earlier: dict[str, list[str]] = {}
    for r in cmp.rows:
        if r.off_pin_revision and r.view not in earlier.setdefault(r.off_pin_revision, []):
            earlier[r.off_pin_revision].append(r.view)
    for revision, views in earlier.items():
        lines.append(f"‡ both scored on {revision}, not the data revision the registry pins "
                     f"now: {', '.join(views)} compared on that data, with each other only "
                     "(the site tests neither against its other rows)")
    if cmp.skipped:
        lines.append(f"not compared: {', '.join(cmp.skipped[:10])}"
                     f"{' ...' if len(cmp.skipped) > 10 else ''}")
    lines.append("* the view's tiered column (the site ranks and tiers on it, Holm-correcting "
                 "each row's test against the best verified row over the column's rows; here "
                 "the family is this pair's columns of the view, so the two may differ). "
                 "Each value is the column's own convention (one task's mean, or the mean of "
                 "its tasks' figures, as the benchmark's paper averages), as the site shows "
                 "it.")
    units: dict[str, list[str]] = {}
    for r in cmp.rows:
        text = f"{r.view} {r.n_units:,}"
        if text not in units.setdefault(r.unit, []):
            units[r.unit].append(text)
    if units:
        lines.append("Units tested, one value each (a unit is what was sampled "
                     "independently): " + "; ".join(f"{unit}: {', '.join(views)}"
                                                    for unit, views in units.items()) + ".")
    lines.append("Tests: Fisher randomization (Wilcoxon signed-rank for p-MRR, DeLong for "
                 "AUROC), two-sided, Holm-corrected within each view. A-B is the mean "
                 "difference; 95% CI its interval, from the test's own statistic: the "
                 "bootstrap interval of the mean for the randomization test, DeLong's "
                 "normal interval for AUROC. † Wilcoxon's statistic is not the mean: its row "
                 "gives the Hodges-Lehmann shift (the median of the Walsh averages of the "
                 "units' non-zero differences, as the test drops zeros) with its 95% interval (the shifts the signed-rank test does not reject) "
                 f"instead. alpha = {cmp.alpha}; "
                 f"differences within {cmp.threshold:g} ({score_text(cmp.threshold)} x100) "
                 "are ties (reruns of one model on other hardware move figures that much); "
                 "p-values have two significant digits, and one at or below what its test "
                 "resolves prints as ≤ that floor (Holm's takes each at its floor, and prints as ≤ where it rests on one); 'inconclusive': the Holm-corrected test "
                 "and the 95% interval, which is the pair's own and not adjusted, disagree "
                 "(the site marks such an interval §).")
    return "\n".join(lines)


def _interval(low: float | None, high: float | None) -> str:
    return f"[{score_text(low, True)}, {score_text(high, True)}]"
