"""Markdown for people: the sticky PR comment and the job summary of a CI report.

Everything that came from the pull request (model name, file names, validator messages
that quote run lines) is escaped before it reaches Markdown, so a submission cannot
inject HTML, images, links, @-mentions or table breaks into the project's comment. The
comment stays under GitHub's 65,536-character limit by listing fewer problems, then fewer
table rows (with the problems that then fit), and saying so (:func:`fit`).
"""

from __future__ import annotations

import html
import re
from itertools import groupby

from leaderboard.app.ci.pr_report import (
    CiReport,
    Problem,
    SubmissionCheck,
    TaskStanding,
)
from leaderboard.benchmarks import benchmark_of, declared
from leaderboard.benchmarks.registry import all_tasks
from leaderboard.core.display import effect_size_text, p_text, score_text
from leaderboard.core.measures import is_signed
from leaderboard.core.report import plural
from leaderboard.submission.layout import SUBMISSIONS_DIR
from leaderboard.submission.metadata import NOT_SHOWN_AS_TEXT
from leaderboard.publish.standings.verdicts import (INTERVAL_MARK, TIER_LEADER, TIER_TEXT,
                                                    interval_disagrees)
from leaderboard.publish.stats.tiers import ALPHA
from leaderboard.publish.stats.significance.api import REPRODUCIBILITY_THRESHOLD
from leaderboard.submission.pull_request import STATUS_LINE

COMMENT_MARKER = "<!-- followboard-report -->"
# GitHub refuses comment bodies over 65,536 characters; keep a margin for the marker and
# anything GitHub adds.
COMMENT_LIMIT = 65_000
SUMMARY_LIMIT = 1_000_000  # a step summary may be up to 1 MiB
MAX_TEXT = 300  # characters of one untrusted string (a message, a name) shown

TEST_NAMES = {"randomization": "paired randomization test",
              "wilcoxon": "Wilcoxon signed-rank test",
              "delong": "DeLong's test, personas as clusters"}

# Characters with a meaning inside a Markdown line ('$' starts math on GitHub); '-' and
# '+' only matter at the start of a line, handled separately.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#|~^$])")
# What GitHub's autolinker turns into a link without any Markdown syntax: a scheme and
# '://' (https://, http://, ftp://, any scheme) or 'www.'. A zero-width space after the
# ':' or the 'www' breaks the pattern without changing what a reader sees.
_AUTOLINK = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*:)(//)|\b(www)(\.)")


# GitHub links "GH-123" to issue 123 in any text.
_ISSUE_REF = re.compile(r"(?i)\b(gh)-(\d)")
# ... and "#123" or "owner/repo#123", found in the rendered text: the backslash that keeps
# '#' from starting a heading is gone by then.
_ISSUE_NUMBER = re.compile(r"#(?=\d)")


def _one_line(text: str, limit: int) -> str:
    # What metadata.yaml refuses in a name (controls, text-direction marks) never reaches
    # a comment from a report's text either.
    text = " ".join(NOT_SHOWN_AS_TEXT.sub(" ", str(text)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def md(text: str, limit: int = MAX_TEXT) -> str:
    """Untrusted text as inert Markdown: one line, HTML escaped, syntax characters quoted."""
    text = _one_line(text, limit)
    text = html.escape(text, quote=False)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    if text[:1] in ("-", "+"):
        text = "\\" + text
    text = _AUTOLINK.sub(lambda m: (m.group(1) or m.group(3)) + "\u200b"
                         + (m.group(2) or m.group(4)), text)
    text = _ISSUE_REF.sub("\\1\u200b-\\2", text)
    text = _ISSUE_NUMBER.sub("#\u200b", text)
    # A zero-width space after '@' keeps GitHub from notifying whoever the text names
    # (and breaks e-mail autolinks).
    return text.replace("@", "@\u200b")


def code(text: str, limit: int = MAX_TEXT) -> str:
    """Untrusted text in a code span (inert by construction), pipes quoted for tables."""
    text = _one_line(text, limit)
    if "`" in text or not text:
        return md(text, limit)
    return "`" + text.replace("|", "\\|") + "`"


def _task_label(task_id: str) -> tuple[str, str]:
    """(benchmark title, row label) of a task id; unknown ids are shown escaped."""
    task = all_tasks().get(task_id)
    if task is None:
        return "Other", code(task_id)
    return benchmark_of(task.benchmark).title, code(task_id)


def _uniform(values: list[str]) -> str | None:
    return values[0] if values and all(v == values[0] for v in values) else None


def _interval(low: float | None, high: float | None) -> str:
    return (f" [{score_text(low, True)}, {score_text(high, True)}]"
            if low is not None and high is not None else "")


def _delta(row: TaskStanding) -> str:
    """The mean difference with its interval, or for Wilcoxon's test the mean, then the
    Hodges-Lehmann shift with its interval, as the site prints them; the effect size."""
    if row.tier in (None, "leader") or row.diff_vs_best_verified is None:
        return "–"
    text = score_text(row.diff_vs_best_verified, True)
    if row.hl_shift is not None:
        low, high = row.hl_ci_low, row.hl_ci_high
        text += f"; shift {score_text(row.hl_shift, True)}{_interval(low, high)}"
    else:
        low, high = row.diff_ci_low, row.diff_ci_high
        text += _interval(low, high)
    if interval_disagrees(row.tier, row.p_adjusted, low, high,
                          effect=row.diff_vs_best_verified):
        text += INTERVAL_MARK
    size = f"; d = {effect_size_text(row.effect_size)}" if row.effect_size is not None else ""
    return text + size


def _rank(row: TaskStanding) -> str:
    if row.rank_best is None or row.rank_worst is None:
        return "–"
    span = (str(row.rank_best) if row.rank_best == row.rank_worst
            else f"{row.rank_best}–{row.rank_worst}")
    return f"{span} of {row.n_ranked}" if row.n_ranked else span


def _units(row: TaskStanding) -> str:
    if row.n_units is None:
        return "–"
    text = f"{row.n_units:,} {md(row.unit, 40)}" if row.unit else f"{row.n_units:,}"
    return text + (f"; MDE {score_text(row.mde)}" if row.mde is not None else "")


def _previous(row: TaskStanding) -> str:
    if row.previous_leader is None:
        return "none yet"
    return (f"{md(row.previous_leader, 80)} "
            f"({score_text(row.previous_leader_score, is_signed(row.primary_metric))})")


def _reported(row: TaskStanding) -> str:
    if row.best_reported is None:
        return "–"
    return (f"{md(row.best_reported, 80)} "
            f"({score_text(row.best_reported_score, is_signed(row.primary_metric))})")


def task_tables(rows: list[TaskStanding], max_rows: int | None = None) -> list[str]:
    """One table per benchmark: scores ×100, tier against the best verified row, p-value,
    context."""
    out: list[str] = []
    labelled = [(_task_label(r.task), r) for r in rows]
    order = [b.title for b in declared()]
    labelled.sort(key=lambda lr: (order.index(lr[0][0]) if lr[0][0] in order else len(order)))
    for bench, group in groupby(labelled, key=lambda lr: lr[0][0]):
        items = list(group)
        primaries = [r.primary_metric for _, r in items]
        headlines = [r.headline_metric for _, r in items]
        p_head = _uniform(primaries)
        h_head = _uniform(headlines)
        out += [f"#### {bench}", "",
                f"| Task | {code(p_head) if p_head else 'Primary'} | "
                f"{code(h_head) if h_head else 'Headline'} | Tier | p (Holm) | "
                "Δ vs best verified [95% CI] | Rank [95%] | Tested on | "
                "Best verified before this PR | "
                "Best reported |",
                "|:--|--:|--:|:--|--:|--:|--:|:--|:--|:--|"]
        shown = items if max_rows is None else items[:max_rows]
        for (_, label), r in shown:
            # Signed measures (p-MRR, IRS) with their sign, as every other surface shows them.
            primary = score_text(r.primary, is_signed(r.primary_metric))
            primary = primary if p_head else f"{code(r.primary_metric)} {primary}"
            headline = score_text(r.headline, is_signed(r.headline_metric))
            headline = headline if h_head else f"{code(r.headline_metric)} {headline}"
            # The site's words: the comparison is the site's, against the best verified row.
            tier = TIER_TEXT[r.tier] if r.tier else "not tested"
            tier = f"🥇 {tier}" if r.tier == TIER_LEADER else tier
            if r.note:
                tier += f" ({md(r.note, 120)})"
            out.append(f"| {label} | {primary} | {headline} | {tier} | "
                       f"{p_text(r.p_adjusted, r.p_floor, level=ALPHA, bound=r.p_adjusted_bound)}"
                       f" | {_delta(r)} | {_rank(r)} | "
                       f"{_units(r)} | {_previous(r)} | {_reported(r)} |")
        if len(shown) < len(items):
            out.append(f"\n… and {plural(len(items) - len(shown), 'more task')}: the job summary "
                       "and the report artifact list them all.")
        out.append("")
    return out


def tier_note(rows: list[TaskStanding]) -> str:
    tests = sorted({TEST_NAMES.get(r.test or "", md(r.test or "")) for r in rows if r.test})
    how = f" ({', '.join(tests)}, Holm-corrected within the task)" if tests else ""
    return ("Scores ×100. **Tier** compares the primary metric of each task with the task's "
            f"best verified system{how}, one value per independently sampled unit (a topic "
            "with all its pairs, a translated pair, a persona: *Tested on*): tied with best "
            f"verified when the adjusted p ≥ {ALPHA} (a raw p at or below what its test "
            "resolves is taken at that floor, and an adjusted p that rests on one shows as "
            "≤ its value) or the difference is within the "
            f"reproducibility threshold ({REPRODUCIBILITY_THRESHOLD:g}, "
            f"{score_text(REPRODUCIBILITY_THRESHOLD)} ×100: what a rerun on other hardware "
            "moves), so a tie never makes a new leader, or its test's own statistic is not "
            "below the leader (a Wilcoxon shift in its favour). Δ is the mean difference with its "
            "95% interval (the bootstrap's; DeLong's for AUROC), except that for Wilcoxon's "
            "test, whose statistic is not the mean, the Hodges-Lehmann shift with its own "
            "interval follows the mean; each interval is its comparison's own, not "
            "Holm-adjusted, and one that disagrees with the tier is marked §; d is the effect size; **Rank** is the simultaneous "
            "95% interval of the submission's rank among the tested systems; MDE the "
            "smallest true mean difference a paired test of the mean at the task's Holm "
            "level detects with 80% power (a normal approximation: a guide to what the "
            "task's test detects; Wilcoxon's tests the signed ranks, not the mean). "
            "Reported (paper) "
            "figures are context only.")


def _problem_line(p: Problem) -> str:
    where = f"{p.path}:{p.line}" if p.line else p.path
    kind = "" if p.severity == "error" else "warning: "
    return f"- {code(where, 200)}: {kind}{md(p.message)}"


def problem_list(sub: SubmissionCheck, max_items: int | None = None) -> list[str]:
    if not sub.problems:
        return []
    errors = [p for p in sub.problems if p.severity == "error"]
    warnings = [p for p in sub.problems if p.severity == "warning"]
    ordered = errors + warnings
    shown = ordered if max_items is None else ordered[:max_items]
    out = [f"#### Problems ({plural(sub.n_errors, 'error')}, "
           f"{plural(sub.n_warnings, 'warning')})", ""]
    out += [_problem_line(p) for p in shown]
    # The report's problems account for every finding (pr_check._problems counts those
    # past its caps in a line of their own): what is left to say is what this cut.
    hidden = len(ordered) - len(shown)
    if hidden > 0:
        out.append(f"- … and {hidden} more: the job summary and log list them, and "
                   f"{code('leaderboard validate ' + SUBMISSIONS_DIR + '/' + sub.id, 260)} "
                   "checks the folder locally.")
    out.append("")
    return out


def _submission_section(report: CiReport, sub: SubmissionCheck, max_problems: int | None,
                        max_rows: int | None) -> list[str]:
    name = f" ({md(sub.model_name, 120)})" if sub.model_name else ""
    out = [f"**Submission** {code(sub.id, 100)}{name}", ""]
    if sub.updates_existing:
        out += ["> [!NOTE]", "> This pull request changes an existing submission: a maintainer "
                "should confirm that its author may update it.", ""]
    if sub.results_json == "differs":
        out += ["`results.json` in the pull request differs from what the scorer computes; "
                "delete it (CI writes it after merge) or regenerate it with "
                "`leaderboard score`.", ""]
    if sub.tasks:
        out += task_tables(sub.tasks, max_rows)
        out += [tier_note(sub.tasks), ""]
    out += problem_list(sub, max_problems)
    return out


def render(report: CiReport, *, marker: bool, max_problems: int | None = None,
           max_rows: int | None = None) -> str:
    lines: list[str] = [COMMENT_MARKER, ""] if marker else []
    lines += [f"### FollowBoard check: {STATUS_LINE[report.status]}", "",
              f"Head `{report.head_sha[:12]}`, checked by {md(report.scorer, 80)} against the "
              f"results at `{report.base_sha[:12]}`.", ""]
    if report.status == "none":
        lines += ["At this head the pull request adds, changes or deletes no file under "
                  "`submissions/`, so there is no submission to check. Whatever this comment "
                  "said before was about an earlier head.", ""]
    if report.internal_error:
        lines += ["The check could not finish, so nothing is known yet about this submission. "
                  "This is a problem in FollowBoard or in CI, not necessarily in your files; a "
                  "maintainer will look at it (push again to retry).", "",
                  f"- {md(report.internal_error, 1000)}", ""]
    if report.refusals:
        lines += ["This pull request cannot be checked as a submission:", ""]
        lines += [f"- {md(reason, 1000)}" for reason in report.refusals]
        lines += ["", "See the README's *Submitting* section for what a submission PR "
                  "contains.", ""]
    for sub in report.submissions:
        lines += _submission_section(report, sub, max_problems, max_rows)
    if report.comparison_notes:
        lines += ["<details><summary>Notes on the committed results</summary>", ""]
        lines += [f"- {md(n)}" for n in report.comparison_notes]
        lines += ["", "</details>", ""]
    return "\n".join(lines).rstrip() + "\n"


def fit(report: CiReport, limit: int, *, marker: bool) -> str:
    """The fullest rendering under ``limit`` characters: as many score rows as fit with no
    problem listed, then as many problems as fit beside them. Problems go first, and come
    back as far as they fit once rows must go: only a valid submission has a table, so what
    it competes with are warnings, which the comment still counts and points to (the job
    summary and log list them), while the table is the result the pull request is for."""
    for max_rows in (None, 300, 100, 30, 10, 0):
        for max_problems in (None, 50, 20, 5, 0):
            text = render(report, marker=marker, max_problems=max_problems, max_rows=max_rows)
            if len(text) <= limit:
                return text
    note = "\n\n… (truncated: the full report is in the job summary and the artifact)\n"
    return text[: limit - len(note)] + note


def comment_body(report: CiReport) -> str:
    """The sticky PR comment, starting with the hidden marker the comment job looks for."""
    return fit(report, COMMENT_LIMIT, marker=True)


def job_summary(report: CiReport) -> str:
    return fit(report, SUMMARY_LIMIT, marker=False)
