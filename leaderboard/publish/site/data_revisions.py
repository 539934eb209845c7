"""How the site tells a reader that a verified figure was scored on another revision of
the data than the one the registry pins now (after a revision bump, before publishing
rescores it, or when the new revision cannot: ci score-pending's kept).

Which figures those are is decided in one place,
:func:`leaderboard.publish.standings.tables.off_pin_of` (from what each results.json
records, :func:`leaderboard.submission.results.off_pin_tasks`), which also keeps them out
of the tables' tests; this module only words it, the same way on every page: a table's
"vs best verified" cell and a submission page's tier cell ("not tested: data @<commit>"),
a home cell's mark, and a submission page's note. Plain text: escaping is the caller's.
"""

from __future__ import annotations

from collections.abc import Mapping

from leaderboard.benchmarks.registry import get_task
from leaderboard.core.report import plural
from leaderboard.submission.results import off_pin_revisions, revision_text

NOT_TESTED = "not tested against the best verified"


def off_pin_short(moved: Mapping[str, str]) -> str:
    """'data @<commit>': the revisions a figure scored off the pin was scored on
    (``moved``: task -> recorded revision, :func:`~.tables.off_pin_of`)."""
    was = sorted({revision_text(r) for r in moved.values()})
    return "data @" + ", ".join(w.rpartition("@")[2] or w for w in was)


def off_pin_title(moved: Mapping[str, str]) -> str:
    """What a figure scored off the pin is, in one clause, for a cell's details."""
    return (f"scored on {off_pin_revisions(moved)}, another revision of the data than the "
            f"board's: {NOT_TESTED}")


def off_pin_unranked(moved: Mapping[str, str]) -> str:
    """Why a row whose figure in its table's sort column was scored off the pin has no
    rank there, for its # cell's details."""
    return (f"not ranked: scored on {off_pin_revisions(moved)}, another revision of the "
            "data than the ranked rows', so it is shown after them, ordered among the "
            "unranked rows by its own figure")


def off_pin_page_note(off_pin: Mapping[str, str]) -> str:
    """A submission page's note: which of its tasks (``off_pin``: task -> recorded
    revision, :attr:`~leaderboard.publish.standings.SubmissionInfo.off_pin`) were scored
    on another revision than the registry pins, and what that means for its figures
    ("" when none)."""
    if not off_pin:
        return ""
    groups: dict[tuple[str, str], int] = {}
    for task, recorded in off_pin.items():
        key = (revision_text(recorded), get_task(task).source.pinned)
        groups[key] = groups.get(key, 0) + 1
    parts = "; ".join(f"{plural(n, 'task')} on {was}, where the registry now pins {now}"
                      for (was, now), n in sorted(groups.items()))
    return (f"Scored on another revision of the data than the board's: {parts}. Those "
            "figures are shown as scored, on other data than the other rows', and are "
            f"{NOT_TESTED} (their tables' cells read \u201cnot tested: data @\u2026\u201d), "
            "and a table whose order they decide gives the submission no rank, until it "
            "is scored again on the pinned revision.")
