"""Validation findings: the one shape every checker reports in.

A finding prints as ``FILE:LINE: message`` (or ``FILE: message`` when no single line is at
fault), the format editors, GitHub annotations and NIST's checker all understand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning"]

# After this many errors of one file the rest are counted, not listed: a run with a
# systematic problem would otherwise print a million identical lines.
MAX_LISTED_PER_FILE = 25


@dataclass(frozen=True)
class Issue:
    path: str
    line: int | None
    message: str
    severity: Severity = "error"

    def format(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        prefix = "" if self.severity == "error" else "warning: "
        return f"{where}: {prefix}{self.message}"


@dataclass
class Report:
    """Findings of one or more files, capped per file for display."""

    issues: list[Issue] = field(default_factory=list)

    def add(self, path: str, line: int | None, message: str,
            severity: Severity = "error") -> None:
        self.issues.append(Issue(path, line, message, severity))

    def extend(self, other: "Report") -> None:
        self.issues.extend(other.issues)

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "warning"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def lines(self, limit: int = MAX_LISTED_PER_FILE) -> list[str]:
        """Errors first then warnings, at most ``limit`` of each per file, plus a count."""
        out: list[str] = []
        for severity in ("error", "warning"):
            per_file: dict[str, list[Issue]] = {}
            for issue in self.issues:
                if issue.severity == severity:
                    per_file.setdefault(issue.path, []).append(issue)
            for path, issues in per_file.items():
                out += [i.format() for i in issues[:limit]]
                if len(issues) > limit:
                    out.append(f"{path}: ... and {len(issues) - limit} more "
                               f"{severity}{'s' if len(issues) - limit > 1 else ''}")
        return out
