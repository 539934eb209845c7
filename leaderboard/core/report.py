"""Validation findings: the one shape every checker reports in.

A finding prints as ``FILE:LINE: message`` (or ``FILE: message`` when no single line is at
fault), the format editors, GitHub annotations and NIST's checker all understand.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

# A note is information (what a reader did with upstream's data: leaderboard.core.data.
# notes), counted as neither an error nor a warning.
Severity = Literal["error", "warning", "note"]

# After this many errors of one file the rest are counted, not listed: a run with a
# systematic problem would otherwise print a million identical lines.
MAX_LISTED_PER_FILE = 25
# A kind of warning or note found in more files of a submission than this is one line
# (tied scores are common: 296 of a submission's 304 runs have some): what `validate`,
# `score` and `ci pr-check` list (:func:`summarise_kinds`).
SUMMARISE_WARNINGS_AFTER = 3


@dataclass(frozen=True)
class Issue:
    path: str
    line: int | None
    message: str
    severity: Severity = "error"
    # What kind of finding this is, for callers that summarise or combine findings
    # (e.g. "ties", "other-role:altered"); None for the rest.
    kind: str | None = None
    # How many findings this one stands for: more than 1 for the line that counts the
    # findings of a kind past a cap ("78,000 more unknown queries").
    count: int = 1

    def format(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        prefix = "" if self.severity == "error" else f"{self.severity}: "
        return f"{where}: {prefix}{self.message}"


@dataclass
class Report:
    """Findings of one or more files, capped per file for display."""

    issues: list[Issue] = field(default_factory=list)

    def add(self, path: str, line: int | None, message: str,
            severity: Severity = "error", kind: str | None = None, count: int = 1) -> None:
        self.issues.append(Issue(path, line, message, severity, kind, count))

    def extend(self, other: "Report") -> None:
        self.issues.extend(other.issues)

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "warning"]

    @property
    def n_errors(self) -> int:
        """How many errors were found, those past a cap included."""
        return sum(i.count for i in self.issues if i.severity == "error")

    @property
    def n_warnings(self) -> int:
        return sum(i.count for i in self.issues if i.severity == "warning")

    @property
    def ok(self) -> bool:
        return not self.errors

    def lines(self, limit: int = MAX_LISTED_PER_FILE,
              summarise_after: int | None = None) -> list[str]:
        """Errors first, then warnings, then notes, at most ``limit`` of each per file,
        plus a count.

        With ``summarise_after``, a kind of warning or note found in more files (a note:
        tasks) than that (tied scores in 296 runs of a submission) is one line: its first
        instance, and how many more files have it."""
        out: list[str] = []
        for severity in ("error", "warning", "note"):
            per_file: dict[str, list[Issue]] = {}
            shown = [i for i in self.issues if i.severity == severity]
            if severity != "error" and summarise_after is not None:
                shown, summaries = summarise_kinds(shown, summarise_after)
                out += [summary.format() for summary in summaries]
            for issue in shown:
                per_file.setdefault(issue.path, []).append(issue)
            for path, issues in per_file.items():
                out += [i.format() for i in issues[:limit]]
                if len(issues) > limit:
                    hidden = sum(i.count for i in issues[limit:])
                    out.append(f"{path}: ... and {plural(hidden, 'more ' + severity)}")
        return out


def summarise_kinds(issues: list[Issue], after: int) -> tuple[list[Issue], list[Issue]]:
    """The issues left after taking out each kind of warning or note found in more than
    ``after`` files, and one issue for each kind taken out, in the order of their text: its
    first instance, saying how many more files have it, standing for all of them (its
    count). Errors are each kept: every one is the submitter's to fix."""
    files_of: dict[tuple[str, str], set[str]] = {}
    for issue in issues:
        if issue.kind is not None and issue.severity != "error":
            files_of.setdefault((issue.severity, issue.kind), set()).add(issue.path)
    repeated = {key for key, files in files_of.items() if len(files) > after}
    summaries = []
    for severity, kind in repeated:
        found = [i for i in issues if i.severity == severity and i.kind == kind]
        # A note's "file" is the task whose data it is about.
        where = "more task" if severity == "note" else "more file"
        others = plural(len(files_of[severity, kind]) - 1, where)
        summaries.append(replace(found[0], count=sum(i.count for i in found), message=(
            f"{found[0].message} [and the same {severity} for {others}]")))
    kept = [i for i in issues if (i.severity, i.kind) not in repeated]
    return kept, sorted(summaries, key=Issue.format)


def plural(n: int, noun: str, plural_form: str | None = None) -> str:
    """``n`` and the noun, singular for 1: "1 document", "2 documents", "1,386 queries"."""
    if n == 1:
        return f"1 {noun}"
    if plural_form is None:
        plural_form = noun[:-1] + "ies" if noun.endswith("y") and noun[-2:-1] not in "aeiou" \
            else noun + "s"
    return f"{n:,} {plural_form}"
