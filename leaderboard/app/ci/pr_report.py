"""The CI report: what the PR check found, as JSON handed to the comment job.

The PR check runs with a read-only token on a stranger's code and writes ``report.json``
into an artifact; the privileged comment job downloads it. Everything in it is therefore
untrusted input on the way back in: :func:`read_ci_report` validates it strictly
(unknown keys, non-integer PR numbers, malformed SHAs, oversized lists are all rejected),
and the comment is re-rendered from the validated data by trusted code, never copied.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import (AfterValidator, AllowInfNan, BaseModel, ConfigDict, Field, StrictInt,
                      StringConstraints)

from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import atomic_write_text, read_json_model
from leaderboard.core.measures import parse as parse_metric
from leaderboard.submission.pull_request import Status
from leaderboard.submission.results import canonical_json

REPORT_KIND = "followboard-pr-check"
# Problems stored per submission; the log and annotations show the first ones, the
# count says how many there were in all.
MAX_STORED_PROBLEMS = 200
MAX_REPORT_BYTES = 8 * 1024 * 1024

Sha = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")]
ShortText = Annotated[str, StringConstraints(max_length=2000)]


def _known_metric(key: str) -> str:
    parse_metric(key)  # UnknownMeasureError is a ValueError: a validation error, named
    return key


# A report may come from an untrusted artifact: what the comment formats is held to what
# the check writes (a metric the catalogue knows, finite numbers), so that a forged one is
# refused as a report instead of stopping the comment job with an internal error.
MetricName = Annotated[str, StringConstraints(max_length=200), AfterValidator(_known_metric)]
Finite = Annotated[float, AllowInfNan(False)]
# "error": the check itself failed (a bug, or CI trouble), not necessarily the submission.


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Problem(Strict):
    """One finding, with the path from the repository root (``submissions/<id>/...``)."""

    path: ShortText
    line: int | None = Field(default=None, ge=1)
    message: ShortText
    severity: Literal["error", "warning"] = "error"


class TaskStanding(Strict):
    """A submission's score on one task and where it stands against the task's leader.

    Scores are fractions; ``tier`` is None when the task could not be tested (no per-query
    scores for its primary metric, e.g. PI-Indic T4's AUROC).
    """

    task: ShortText
    primary_metric: MetricName
    primary: Finite | None = None
    headline_metric: MetricName
    headline: Finite | None = None
    higher_is_better: bool = True
    tier: Literal["leader", "tied with leader", "below leader"] | None = None
    test: ShortText | None = None
    p_value: Finite | None = None
    p_adjusted: Finite | None = None
    # The smallest p-value the test resolves: a smaller one is printed as "< p_floor".
    p_floor: Finite | None = None
    # mean(submission - leader); the test's own estimate of it (the Hodges-Lehmann shift for
    # Wilcoxon) with its 95% interval; the effect over the spread of the units' differences.
    effect: Finite | None = None
    estimate: Finite | None = None
    ci_low: Finite | None = None
    ci_high: Finite | None = None
    effect_size: Finite | None = None
    # What the test resamples ("topics") and how many; the smallest difference the task's
    # test detects with 80% power.
    unit: ShortText | None = None
    n_units: int | None = None
    mde: Finite | None = None
    # The submission's simultaneous 95% rank interval among the n_ranked tested systems.
    rank_best: int | None = Field(default=None, ge=1)
    rank_worst: int | None = Field(default=None, ge=1)
    n_ranked: int | None = Field(default=None, ge=1)
    # Other verified systems in the comparison (0: the submission is the first).
    n_competitors: int = Field(default=0, ge=0)
    # The leader among committed verified results, before this submission.
    previous_leader: ShortText | None = None
    previous_leader_score: Finite | None = None
    # The best figure among reported (paper) rows, for context; never tested.
    best_reported: ShortText | None = None
    best_reported_score: Finite | None = None
    note: ShortText | None = None


class SubmissionCheck(Strict):
    id: Annotated[str, StringConstraints(max_length=200)]
    model_name: ShortText | None = None
    updates_existing: bool = False
    valid: bool
    n_errors: int = Field(ge=0)
    n_warnings: int = Field(ge=0)
    problems: list[Problem] = Field(default_factory=list, max_length=MAX_STORED_PROBLEMS)
    tasks: list[TaskStanding] = Field(default_factory=list, max_length=5000)
    # Whether the PR carries results.json, and whether it matched the scorer's output.
    results_json: Literal["absent", "matches", "differs"] = "absent"


class CiReport(Strict):
    schema_version: Literal[1] = 1
    kind: Literal["followboard-pr-check"] = REPORT_KIND
    status: Status
    # StrictInt: "12", 12.0 and true are refused, not coerced.
    pr_number: StrictInt | None = Field(default=None, ge=1, le=10**9)
    base_sha: Sha
    head_sha: Sha
    merge_base: Sha | None = None  # None when the check failed before finding it
    scorer: ShortText
    # What went wrong when status is "error" (the exception's type and message).
    internal_error: ShortText | None = None
    refusals: list[ShortText] = Field(default_factory=list, max_length=50)
    refused_paths: list[ShortText] = Field(default_factory=list, max_length=MAX_STORED_PROBLEMS)
    submissions: list[SubmissionCheck] = Field(default_factory=list, max_length=20)
    # Problems of the committed results the comparison had to skip (not the PR's fault).
    comparison_notes: list[ShortText] = Field(default_factory=list, max_length=50)


class CiReportError(FollowBoardError, ValueError):
    """A report file that is not a valid CI report; the message names the file."""


def write_ci_report(path: Path, report: CiReport) -> None:
    atomic_write_text(path, canonical_json(report.model_dump(mode="json")))


def read_ci_report(path: Path) -> CiReport:
    """Read and strictly validate a report (it may come from an untrusted artifact)."""
    return read_json_model(path, CiReport, CiReportError, what="a FollowBoard CI report",
                           max_bytes=MAX_REPORT_BYTES)
