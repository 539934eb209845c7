"""The shape of a task declaration: what every benchmark module fills in.

Kept apart from the benchmark modules (and from :mod:`leaderboard.benchmarks.registry`, which
assembles the declared tasks) so that the declarations can import it without a cycle.

Plain frozen dataclasses, not pydantic models: declarations are written in this
repository, not read from users, and the registry is imported by every command, a
one-task `leaderboard eval` included, where pydantic's import and schema building were
a seventh of the run (benchmarks/cli_startup.py). ``__post_init__`` still refuses a
value outside a field's allowed set, as pydantic's ``Literal`` check did.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from leaderboard.core.languages import LANGUAGES

Role = Literal["original", "altered", "run", "predictions"]
Host = Literal["huggingface", "github"]
Pairing = Literal["suffix", "topic", "none"]
Candidates = Literal["pool", "corpus", "pairs"]
# The upstream layout a task's files follow, which names its reader
# (:data:`leaderboard.core.data.READERS`, which refuses any other): mteb's Hub parquet
# configs (FollowIR, mFollowIR), FollowTable's BEIR export, PI-Indic-Align's CSVs.
Layout = Literal["mteb", "followtable", "pi-indic"]
#: How many documents a run may list for one query, unless a task declares otherwise.
MAX_DOCS_PER_QUERY = 1000


def corpus_depth_text(max_docs: int = MAX_DOCS_PER_QUERY) -> str:
    """How many documents a corpus task's run lists for each query, in the words every
    text says it (the check-run help, the How-to-submit page, the validator's message):
    "min(1000, corpus size)"."""
    return f"min({max_docs}, corpus size)"


def _check_choice(owner: str, name: str, value: object, allowed: object) -> None:
    choices = get_args(allowed)
    if value not in choices:
        raise ValueError(f"{owner}: {name} must be one of {', '.join(map(repr, choices))}, "
                         f"not {value!r}")


def _check_strings(owner: str, name: str, values: object) -> tuple[str, ...]:
    """``values`` as a tuple of strings (a list is accepted, as pydantic accepted one)."""
    if isinstance(values, str) or not isinstance(values, (tuple, list)):
        raise ValueError(f"{owner}: {name} must be a tuple of strings, not {values!r}")
    if not all(isinstance(v, str) for v in values):
        raise ValueError(f"{owner}: every entry of {name} must be a string: {values!r}")
    return tuple(values)


def _check_mapping(owner: str, name: str, values: object) -> dict[str, str]:
    if not isinstance(values, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in values.items()):
        raise ValueError(f"{owner}: {name} must map strings to strings, not {values!r}")
    return dict(values)


@dataclass(frozen=True, kw_only=True)
class DataSource:
    """Where a task's files come from upstream, pinned so scores are reproducible."""

    host: Host
    repo: str
    revision: str
    # Sub-folder of the local data directory that holds this source's files.
    local_dir: str
    # Files (relative to the upstream repository root) that make up the source.
    files: tuple[str, ...] = ()
    licence: str = "unknown"

    def __post_init__(self) -> None:
        owner = f"data source {self.repo!r}"
        _check_choice(owner, "host", self.host, Host)
        for name in ("repo", "revision", "local_dir", "licence"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"{owner}: {name} must be a string")
        object.__setattr__(self, "files", _check_strings(owner, "files", self.files))

    @property
    def pinned(self) -> str:
        """``repository@revision``: the revision the registry pins, as results.json records
        the data a task was scored on (:meth:`.data.revision.DataRevision.recorded`) and as
        every message names it."""
        return f"{self.repo}@{self.revision}"


@dataclass(frozen=True, kw_only=True)
class Task:
    """One scored task: a leaderboard cell is (system, task, metric)."""

    id: str
    # The id of the declaration in :mod:`leaderboard.benchmarks` that builds this task
    # (checked when the registry is assembled, so a typo cannot slip through).
    benchmark: str
    title: str
    source: DataSource
    # How its upstream files are laid out, and so which reader loads them.
    layout: Layout
    # Which run files a submission provides for this task.
    roles: tuple[Role, ...]
    # How query ids of the two roles pair up:
    #   "suffix": FollowIR/mFollowIR, "<id>-og" (original) and "<id>-changed" (altered);
    #   "topic": FollowTable, altered "<q>_<i>" pairs with the topic-only query "<q>";
    #   "none": a single run (PI-Indic retrieval) or predictions (PI-Indic T4).
    pairing: Pairing
    # "pool": rerank the fixed candidate pool shipped with the task;
    # "corpus": rank the whole corpus. Either way at most max_docs_per_query per query.
    candidates: Candidates
    max_docs_per_query: int = MAX_DOCS_PER_QUERY
    # Metrics computed on every run role (e.g. nDCG@10 becomes original/nDCG@10).
    standard_metrics: tuple[str, ...] = ()
    # Metrics computed from the pair of runs (p-MRR, IRS) or from predictions (T4).
    pair_metrics: tuple[str, ...] = ()
    primary_metric: str
    # The standard metric a leaderboard shows next to the primary one.
    headline_metric: str
    # The languages of its texts, as ISO 639-3 codes of :data:`LANGUAGES`: its queries
    # (with their instructions) and its documents (T4: the personas and the instructions
    # paired with them). Readers, reference models and the query explorer read them here.
    query_language: str
    doc_language: str
    # Leaderboard views this task belongs to, e.g. {"language": "fas"}.
    views: dict[str, str] = field(default_factory=dict)
    # Per-query grouping inside the task (FollowTable constraint types).
    group_by: str | None = None
    # Loader parameters (FollowTable's dataset folder, mFollowIR's config suffix, which
    # side of a PI-Indic pair is the query, ...).
    params: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        owner = f"task {self.id!r}"
        for name in ("id", "benchmark", "title", "layout", "primary_metric", "headline_metric"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"{owner}: {name} must be a string")
        if not isinstance(self.source, DataSource):
            raise ValueError(f"{owner}: source must be a DataSource")
        roles = _check_strings(owner, "roles", self.roles)
        for role in roles:
            _check_choice(owner, "role", role, Role)
        _check_choice(owner, "pairing", self.pairing, Pairing)
        _check_choice(owner, "candidates", self.candidates, Candidates)
        for name in ("query_language", "doc_language"):
            if getattr(self, name) not in LANGUAGES:
                raise ValueError(f"{owner}: {name} must be an ISO 639-3 code of "
                                 f"leaderboard/core/languages.py, not {getattr(self, name)!r}")
        if isinstance(self.max_docs_per_query, bool) or not isinstance(self.max_docs_per_query, int):
            raise ValueError(f"{owner}: max_docs_per_query must be an integer")
        if self.group_by is not None and not isinstance(self.group_by, str):
            raise ValueError(f"{owner}: group_by must be a string or None")
        set_field = object.__setattr__  # frozen: normalise in place, once
        set_field(self, "roles", roles)
        set_field(self, "standard_metrics",
                  _check_strings(owner, "standard_metrics", self.standard_metrics))
        set_field(self, "pair_metrics", _check_strings(owner, "pair_metrics", self.pair_metrics))
        set_field(self, "views", _check_mapping(owner, "views", self.views))
        set_field(self, "params", _check_mapping(owner, "params", self.params))

    def metric_keys(self) -> list[str]:
        """Every metric key a score sheet of this task carries, in display order."""
        keys = list(self.pair_metrics)
        for role in self.roles:
            if role in ("original", "altered"):
                keys += [f"{role}/{m}" for m in self.standard_metrics]
            elif role == "run":
                keys += list(self.standard_metrics)
        return keys

