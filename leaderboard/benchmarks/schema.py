"""The shape of a task declaration: what every benchmark module fills in.

Kept apart from the benchmark modules (and from :mod:`leaderboard.registry`, which
re-exports these names) so that the declarations can import it without a cycle.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["original", "altered", "run", "predictions"]


class DataSource(BaseModel):
    """Where a task's files come from upstream, pinned so scores are reproducible."""

    model_config = ConfigDict(frozen=True)

    host: Literal["huggingface", "github"]
    repo: str
    revision: str
    # Sub-folder of the local data directory that holds this source's files.
    local_dir: str
    # Files (relative to the upstream repository root) that make up the source.
    files: tuple[str, ...] = ()
    licence: str = "unknown"


class Task(BaseModel):
    """One scored task: a leaderboard cell is (system, task, metric)."""

    model_config = ConfigDict(frozen=True)

    id: str
    # The id of the declaration in :mod:`leaderboard.benchmarks` that builds this task
    # (checked when the registry is assembled, so a typo cannot slip through).
    benchmark: str
    title: str
    source: DataSource
    # Which run files a submission provides for this task.
    roles: tuple[Role, ...]
    # How query ids of the two roles pair up:
    #   "suffix": FollowIR/mFollowIR, "<id>-og" (original) and "<id>-changed" (altered);
    #   "topic": FollowTable, altered "<q>_<i>" pairs with the topic-only query "<q>";
    #   "none": a single run (PI-Indic retrieval) or predictions (PI-Indic T4).
    pairing: Literal["suffix", "topic", "none"]
    # "pool": rerank the fixed candidate pool shipped with the task;
    # "corpus": rank the whole corpus. Either way at most max_docs_per_query per query.
    candidates: Literal["pool", "corpus", "pairs"]
    max_docs_per_query: int = 1000
    # Metrics computed on every run role (e.g. nDCG@10 becomes original/nDCG@10).
    standard_metrics: tuple[str, ...] = ()
    # Metrics computed from the pair of runs (p-MRR, IRS) or from predictions (T4).
    pair_metrics: tuple[str, ...] = ()
    primary_metric: str
    # The standard metric a leaderboard shows next to the primary one.
    headline_metric: str
    # Leaderboard views this task belongs to, e.g. {"language": "fas"}.
    views: dict[str, str] = Field(default_factory=dict)
    # Per-query grouping inside the task (FollowTable constraint types).
    group_by: str | None = None
    # Loader parameters (dataset folder, language codes, ...). ``layout``, when present,
    # names the reader (:data:`leaderboard.benchmarks.declaration.READERS`) and wins over
    # the benchmark's default one.
    params: dict[str, str] = Field(default_factory=dict)

    def metric_keys(self) -> list[str]:
        """Every metric key a score sheet of this task carries, in display order."""
        keys = list(self.pair_metrics)
        for role in self.roles:
            if role in ("original", "altered"):
                keys += [f"{role}/{m}" for m in self.standard_metrics]
            elif role == "run":
                keys += list(self.standard_metrics)
        return keys


# Metrics where a smaller value is better (calibration error, FollowTable's negation
# failure rate); everything else is
# "higher is better", which is what leaders, tiers and sorting assume by default.
LOWER_IS_BETTER = frozenset({"ECE", "NFR"})


def higher_is_better(metric: str) -> bool:
    return metric.rsplit("/", 1)[-1] not in LOWER_IS_BETTER
