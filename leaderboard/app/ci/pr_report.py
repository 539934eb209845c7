"""The CI report: what the PR check found, as JSON handed to the comment job.

The PR check runs with a read-only token on a stranger's code and writes ``report.json``
into an artifact; the privileged comment job downloads it. Everything in it is therefore
untrusted input on the way back in: :func:`read_ci_report` validates it strictly
(unknown keys, non-integer PR numbers, malformed SHAs, oversized lists are all rejected),
and the comment is re-rendered from the validated data by trusted code, never copied.
The comment job runs the default branch's code on a report the pull request's own code
wrote, so it reads the previous schema version too, in the current fields.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import (AfterValidator, AllowInfNan, BaseModel, ConfigDict, Field, StrictInt,
                      StringConstraints, model_validator)

from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import atomic_write_text, read_json_model
from leaderboard.core.measures import parse as parse_metric
from leaderboard.publish.standings.verdicts import test_statistics
from leaderboard.submission.pull_request import Status
from leaderboard.submission.results import canonical_json

REPORT_KIND = "followboard-pr-check"
# Problems stored per submission; the log and annotations show the first ones, the
# count says how many there were in all.
MAX_STORED_PROBLEMS = 200
MAX_REPORT_BYTES = 8 * 1024 * 1024
MAX_SUBMISSIONS = 20
MAX_TASKS = 5000  # per submission

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


class _Standing(Strict):
    """What every version of a task's standing holds (:class:`TaskStanding`)."""

    task: ShortText
    primary_metric: MetricName
    primary: Finite | None = None
    headline_metric: MetricName
    headline: Finite | None = None
    higher_is_better: bool = True
    tier: Literal["leader", "tied with leader", "below leader"] | None = None
    # What the test resamples ("topics") and how many; the minimum detectable effect
    # (verdicts.MDE_NOTE: a normal approximation of a test of the mean).
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


class TaskStanding(_Standing):
    """A submission's score on one task and where it stands against the task's leader.

    Scores are fractions; ``tier`` is None when the task could not be tested (no per-query
    scores for its primary metric, e.g. PI-Indic T4's AUROC). The test's statistics have
    the names and meanings of the site's downloads
    (:data:`leaderboard.publish.standings.verdicts.STATISTIC_FIELDS`): ``test`` (None: not
    tested, as the leader's own row is not); p-values raised to ``p_floor``, the smallest
    the test resolves (a value at it means "at most"), ``p_adjusted`` Holm's of those and
    "at most" itself where ``p_adjusted_bound`` says so (None: a report of version 2 or
    earlier did not say); ``diff_vs_best_verified``,
    mean(submission - leader), with its 95% interval (``diff_ci_*``: the bootstrap's,
    DeLong's; None for Wilcoxon's test); for Wilcoxon's test (p-MRR), whose statistic is
    not the mean, the Hodges-Lehmann shift with its own interval (``hl_*``); the effect
    size, the mean difference over the spread of the units' differences.
    """

    test: ShortText | None = None
    p_value: Finite | None = None
    p_adjusted: Finite | None = None
    p_adjusted_bound: bool | None = None
    p_floor: Finite | None = None
    diff_vs_best_verified: Finite | None = None
    diff_ci_low: Finite | None = None
    diff_ci_high: Finite | None = None
    hl_shift: Finite | None = None
    hl_ci_low: Finite | None = None
    hl_ci_high: Finite | None = None
    effect_size: Finite | None = None


class TaskStandingV1(_Standing):
    """A standing as a report of schema version 1 wrote it: ``effect`` the mean difference,
    and ``estimate`` with [``ci_low``, ``ci_high``] the test's own statistic and interval,
    which meant the mean's for some tests and the Hodges-Lehmann shift's for Wilcoxon's;
    p-values raw. Read only to be :meth:`upgraded`."""

    test: ShortText | None = None
    p_value: Finite | None = None
    p_adjusted: Finite | None = None
    p_floor: Finite | None = None
    effect: Finite | None = None
    estimate: Finite | None = None
    ci_low: Finite | None = None
    ci_high: Finite | None = None
    effect_size: Finite | None = None

    def upgraded(self) -> TaskStanding:
        """The same standing in the current fields, by the one rule that names them."""
        context = self.model_dump(include=set(_Standing.model_fields))
        return TaskStanding(**context, diff_vs_best_verified=self.effect,
                            **test_statistics(self.test, p_value=self.p_value,
                                              p_adjusted=self.p_adjusted,
                                              p_adjusted_bound=_bound_of_old(self.p_value,
                                                                             self.p_floor),
                                              p_floor=self.p_floor, estimate=self.estimate,
                                              ci_low=self.ci_low, ci_high=self.ci_high,
                                              effect_size=self.effect_size))


def _bound_of_old(p_value: float | None, p_floor: float | None) -> bool | None:
    """Whether a report of version 2 or earlier, which did not say, had an adjusted p-value
    that is an upper bound, as far as its row tells: one whose raw p-value is at its floor
    (the raw p-values Holm's step-down took before it were at the floor too, so it rests
    on them); else None, not known (a smaller raw p-value of another row may be under
    it)."""
    if p_value is None or p_floor is None:
        return None
    return True if p_value <= p_floor else None


class SubmissionCheck(Strict):
    id: Annotated[str, StringConstraints(max_length=200)]
    model_name: ShortText | None = None
    updates_existing: bool = False
    valid: bool
    n_errors: int = Field(ge=0)
    n_warnings: int = Field(ge=0)
    problems: list[Problem] = Field(default_factory=list, max_length=MAX_STORED_PROBLEMS)
    tasks: list[TaskStanding] = Field(default_factory=list, max_length=MAX_TASKS)
    # Whether the PR carries results.json, and whether it matched the scorer's output.
    results_json: Literal["absent", "matches", "differs"] = "absent"


class SubmissionCheckV1(SubmissionCheck):
    """A submission's check in a report of schema version 1 (:class:`TaskStandingV1`)."""

    tasks: list[TaskStandingV1] = Field(default_factory=list,  # type: ignore[assignment]
                                        max_length=MAX_TASKS)

    def upgraded(self) -> SubmissionCheck:
        return SubmissionCheck(**self.model_dump(exclude={"tasks"}),
                               tasks=[t.upgraded() for t in self.tasks])


class _SubmissionsV1(Strict):
    submissions: list[SubmissionCheckV1] = Field(default_factory=list,
                                                 max_length=MAX_SUBMISSIONS)


class TaskStandingV2(TaskStanding):
    """A standing as a report of schema version 2 wrote it: the current fields, less
    ``p_adjusted_bound``, which it did not have (so it is refused there)."""

    @model_validator(mode="before")
    @classmethod
    def _no_bound(cls, data: object) -> object:
        if isinstance(data, dict) and "p_adjusted_bound" in data:
            raise ValueError("p_adjusted_bound: not a field of a version 2 report")
        return data


class SubmissionCheckV2(SubmissionCheck):
    """A submission's check in a report of schema version 2 (:class:`TaskStandingV2`)."""

    tasks: list[TaskStandingV2] = Field(default_factory=list,  # type: ignore[assignment]
                                        max_length=MAX_TASKS)


class _SubmissionsV2(Strict):
    submissions: list[SubmissionCheckV2] = Field(default_factory=list,
                                                 max_length=MAX_SUBMISSIONS)


# 2: a standing's effect, estimate, ci_low and ci_high (whose meaning depended on the test)
# became the downloads' diff_vs_best_verified, diff_ci_* and hl_*, and p-values are raised
# to p_floor, as there; 3: p_adjusted is Holm's of the p-values raised to their floors, and
# p_adjusted_bound says where it is an upper bound.
SCHEMA_VERSION = 3


class CiReport(Strict):
    schema_version: Literal[3] = SCHEMA_VERSION
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
    submissions: list[SubmissionCheck] = Field(default_factory=list,
                                               max_length=MAX_SUBMISSIONS)
    # Problems of the committed results the comparison had to skip (not the PR's fault).
    comparison_notes: list[ShortText] = Field(default_factory=list, max_length=50)

    @model_validator(mode="before")
    @classmethod
    def _upgrade_older(cls, data: object) -> object:
        """A report of schema version 1 or 2, validated as strictly in its own fields, read
        in the current ones: the comment job runs the default branch's code on the report a
        pull request's own check wrote, which may be a version or two behind. Version 2's
        fields are the current ones less ``p_adjusted_bound``, read from each row
        (:func:`_bound_of_old`)."""
        if not isinstance(data, dict) or data.get("schema_version") not in (1, 2):
            return data
        if data["schema_version"] == 2:
            old2 = _SubmissionsV2.model_validate(
                {"submissions": data["submissions"]} if "submissions" in data else {})
            return {**data, "schema_version": SCHEMA_VERSION, "submissions": [
                {**s.model_dump(exclude={"tasks"}), "tasks": [
                    {**t.model_dump(), "p_adjusted_bound": _bound_of_old(t.p_value, t.p_floor)}
                    for t in s.tasks]} for s in old2.submissions]}
        old = _SubmissionsV1.model_validate(
            {"submissions": data["submissions"]} if "submissions" in data else {})
        return {**data, "schema_version": SCHEMA_VERSION,
                "submissions": [s.upgraded() for s in old.submissions]}


class CiReportError(FollowBoardError, ValueError):
    """A report file that is not a valid CI report; the message names the file."""


def write_ci_report(path: Path, report: CiReport) -> None:
    atomic_write_text(path, canonical_json(report.model_dump(mode="json")))


def read_ci_report(path: Path) -> CiReport:
    """Read and strictly validate a report (it may come from an untrusted artifact)."""
    return read_json_model(path, CiReport, CiReportError, what="a FollowBoard CI report",
                           max_bytes=MAX_REPORT_BYTES)
