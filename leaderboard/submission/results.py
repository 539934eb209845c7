"""The results schema: what the scorer writes and the site, stats and CI read.

A results file holds one or more leaderboard rows ("systems"). A verified submission's
file (``submissions/<id>/results.json``) has one system with per-query scores; a
reported file (``results/reported/<source>.json``) has many systems, each with its own
provenance and no per-query scores. Scores are fractions; display scaling is the site's job.

A submission's per-query scores (and the query ids behind its group means) are most of
its results, 3-4 MB of JSON for a full submission, so git does not keep them: the scorer
writes them to ``per-query.json.gz`` beside results.json, which names that file by the
size and SHA-256 of its content (``per_query_file``), and the run store keeps it like
the runs (:mod:`leaderboard.store`). :func:`read_results` puts them back: every reader
gets the same :class:`ResultsFile`, per-query scores included, whichever store holds them.
The query explorer's files (:mod:`leaderboard.submission.explain_files`) are kept the same way:
results.json names their manifest by size and SHA-256 (``explain_manifest``).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
from collections.abc import Mapping
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Annotated, Callable, Literal

from pydantic import (
    AllowInfNan,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from leaderboard.benchmarks.registry import UnknownTaskError, get_task
from leaderboard.core.config import data_dir_option
from leaderboard.core.data.revision import (off_pin, recorded_note, recorded_revision,
                                           recorded_verified)
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.report import plural
from leaderboard.core.fileio import atomic_write_bytes, atomic_write_text, read_json_model
from leaderboard.core.refusals import newer_model_version, validation_problem
from leaderboard.store.files import StoredRef, StoreError
from leaderboard.submission.files import submission_files
from leaderboard.submission.layout import (
    MAX_EXPLAIN_MANIFEST_BYTES,
    MAX_PER_QUERY_BYTES,
    MAX_RESULTS_BYTES,
    PER_QUERY_NAME,
    RESULTS_NAME,
    score_command,
)

if TYPE_CHECKING:
    from leaderboard.core.scoring import ScoreSheet
    from leaderboard.store.locations import RunStore

#: The versions of the results schema this version reads, oldest first. A file records the
#: oldest one whose readers read all of it (:class:`ResultsFile`), so that a file which
#: needs nothing newer stays readable by every earlier FollowBoard: 2 added a paper row's
#: printed figures (``TaskScores.printed``), which a version-1 reader refuses as an
#: unknown key; a file without them is version 1. A key a reader may not skip, or a
#: changed meaning, is a new version, and the oldest a file needs is what it records.
SCHEMA_VERSIONS = (1, 2)
# The key of ``produced_by`` that records the data revision a task was scored on.
DATA_KEY = "data:"

# A score must be a finite number. Checked inside pydantic's validator, not by a Python
# callback per mapping: results files hold ~10^5 per-query scores each.
Score = Annotated[float, AllowInfNan(False)]

# A figure as a paper prints it, written as the fraction it stands for with the printed
# digits and sign: "-0.0234" for a printed -2.34 on the x100 scale, "0.82" for a printed
# 0.82, "-0.000" for a printed -0.0 (x100). A float forgets them (0.82 and 0.820 are one
# double, -0.0 reads back as 0.0 in JavaScript), and the site shows them
# (:func:`leaderboard.core.display.figure_text`).
PrintedFigure = Annotated[str, StringConstraints(pattern=r"^-?[0-9]+(\.[0-9]+)?$")]

ModelType = Literal["sparse", "bi-encoder", "cross-encoder", "llm-reranker", "late-interaction",
                    "other"]


class Source(BaseModel):
    """Where a row's figures come from."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["scored", "paper", "mteb-results", "pi-indic-results"]
    citation: str = ""          # e.g. "Weller et al. 2025, FollowIR, Table 2"
    table: str | None = None     # e.g. "Table 2"
    url: str | None = None
    path: str | None = None      # file path in an upstream repository
    revision: str | None = None  # commit of that repository
    mteb_version: str | None = None
    note: str | None = None


class ModelInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    type: ModelType = "other"
    parameters: int | None = None           # number of parameters, when known
    instruction_trained: bool | None = None  # None = unknown (reported rows)
    links: list[str] = Field(default_factory=list)
    licence: str | None = None
    revision: str | None = None


class TaskScores(BaseModel):
    """Scores of one system on one task.

    ``per_query`` maps metric key -> query id -> score, and is empty for reported rows.
    Built from a :class:`leaderboard.core.scoring.ScoreSheet` (or any object with these
    attributes) by reading its attributes, so a sheet the engine computed is checked here,
    when it becomes part of a results file.
    """

    model_config = ConfigDict(extra="forbid", from_attributes=True)

    metrics: dict[str, Score]
    groups: dict[str, dict[str, Score]] = Field(default_factory=dict)
    per_query: dict[str, dict[str, Score]] = Field(default_factory=dict)
    # Group label -> the query ids behind that group's means (FollowTable: the constraint
    # type's altered pairs and their topics), so group views can be significance-tested.
    group_members: dict[str, list[str]] = Field(default_factory=dict)
    n_queries: int | None = None
    # A paper's reported row: metric key -> the figure as the paper prints it
    # (:data:`PrintedFigure`), the very number ``metrics`` holds. None, and so left out of
    # the file, for every other row: a computed figure has no printed digits.
    printed: dict[str, PrintedFigure] | None = None

    @model_validator(mode="after")
    def _printed_is_the_figure(self) -> TaskScores:
        for key, text in (self.printed or {}).items():
            value = self.metrics.get(key)
            number = float(text)
            if value is None or number != value or \
                    math.copysign(1.0, number) != math.copysign(1.0, value):
                raise ValueError(f"printed figure {key!r} {text!r} is not the value metrics "
                                 f"holds for it ({value!r})")
        return self


class SystemResult(BaseModel):
    """One leaderboard row."""

    model_config = ConfigDict(extra="forbid")

    system_id: str
    model: ModelInfo
    provenance: Literal["verified", "reported"]
    source: Source
    tasks: dict[str, TaskScores]

    @model_validator(mode="after")
    def _printed_only_from_a_paper(self) -> SystemResult:
        if self.source.kind != "paper" and any(t.printed for t in self.tasks.values()):
            raise ValueError(f"system {self.system_id!r}: printed figures belong to a paper's "
                             f"reported rows, not to a row of source {self.source.kind!r}")
        return self


PER_QUERY_FORMAT = "followboard-per-query/1"


class StoredFile(BaseModel):
    """A file results.json names by content: the size and SHA-256 of what it inflates to,
    so the name does not depend on which gzip implementation wrote it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Literal["per-query.json.gz"]
    bytes: int = Field(ge=1, le=MAX_PER_QUERY_BYTES)
    sha256: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]

    def ref(self) -> StoredRef:
        return StoredRef(self.path, self.bytes, self.sha256, gzip=True)


EXPLAIN_MANIFEST_PATH = "explain/manifest.json"


class ExplainManifestFile(BaseModel):
    """The query explorer's manifest (:mod:`leaderboard.submission.explain_files`), named by the size
    and SHA-256 of its bytes (plain JSON). It names every explanation file by the size and
    SHA-256 of what the file inflates to, so these few bytes in results.json pin every
    one of them, wherever the run store keeps them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Literal["explain/manifest.json"]
    bytes: int = Field(ge=1, le=MAX_EXPLAIN_MANIFEST_BYTES)
    sha256: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]

    @classmethod
    def of(cls, data: bytes) -> ExplainManifestFile:
        return cls(path=EXPLAIN_MANIFEST_PATH, bytes=len(data),
                   sha256=hashlib.sha256(data).hexdigest())

    def ref(self) -> StoredRef:
        return StoredRef(self.path, self.bytes, self.sha256)


class ResultsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # The oldest version of :data:`SCHEMA_VERSIONS` whose readers read this file whole,
    # which a writer works out (it never gives one). A file's is read as it says: the
    # paper files committed between printed figures and this version (271a497..) say 1.
    schema_version: Literal[1, 2] = SCHEMA_VERSIONS[0]
    kind: Literal["submission", "reported"]
    # Scorer version and data revisions, so a results file says what produced it.
    produced_by: dict[str, str] = Field(default_factory=dict)
    # A submission's inputs when it was scored: path inside the submission folder
    # (metadata.yaml, runs/...) -> SHA-256 of the file, so a run changed after scoring is
    # detected (`validate`) and rescored (`ci score-pending`) instead of showing old scores.
    # Reported rows have no inputs here: None keeps the key out of their files.
    inputs_sha256: dict[str, str] | None = None
    # Where the per-query scores are when this file does not hold them (a submission's
    # results.json in git); None in memory once :func:`read_results` has put them back.
    per_query_file: StoredFile | None = None
    # A scored submission's explanation files (the query explorer's), by their manifest;
    # None for reported rows and for a submission scored before the explorer existed.
    explain_manifest: ExplainManifestFile | None = None
    systems: list[SystemResult]

    @model_validator(mode="after")
    def _version_needed(self) -> ResultsFile:
        if "schema_version" not in self.model_fields_set:
            printed = any(t.printed for s in self.systems for t in s.tasks.values())
            self.schema_version = 2 if printed else 1
        return self


class PerQueryScores(BaseModel):
    model_config = ConfigDict(extra="forbid")

    per_query: dict[str, dict[str, Score]] = Field(default_factory=dict)
    group_members: dict[str, list[str]] = Field(default_factory=dict)


class PerQueryFile(BaseModel):
    """``per-query.json.gz``: a submission's per-query scores, task by task."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["followboard-per-query/1"]
    system_id: str
    tasks: dict[str, PerQueryScores]


# The fields of each task that go to the per-query file rather than results.json.
_PER_QUERY_FIELDS = {"per_query", "group_members"}


def canonical_json(data: object) -> str:
    """Deterministic JSON: sorted keys, no NaN, newline-terminated.

    Byte-identical output for identical inputs is what lets CI detect a changed score.
    """
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def results_text(results: ResultsFile) -> str:
    """A results file's bytes as the scorer writes them (what CI compares byte for byte)."""
    return canonical_json(results.model_dump(mode="json", exclude_none=True))


def write_results(path: Path, results: ResultsFile) -> None:
    """A results file holding everything (reported rows, reports, synthetic trees)."""
    atomic_write_text(path, results_text(results))


# Score differences listed by compare_scores before the rest is counted.
MAX_LISTED_DIFFERENCES = 10


def compare_scores(recorded: ResultsFile, recomputed: ResultsFile) -> tuple[list[str], list[str]]:
    """How a results file differs from the one the scorer computes now, as (differences
    from the submission's files, other differences): a model that is not metadata.yaml's,
    a task, metric, group value or per-query score that is not what the runs give; then
    the fields that depend on the scorer's version (its version, data revisions, a row's
    source) that differ. Both empty when the files are identical."""
    scores: list[str] = []
    old_systems = {s.system_id: s for s in recorded.systems}
    for system in recomputed.systems:
        old = old_systems.pop(system.system_id, None)
        if old is None:
            scores.append(f"system {system.system_id!r} is missing")
            continue
        # The board shows results.json's model: it must be metadata.yaml's (compared
        # field by field: metadata.yaml's is a subclass, which pydantic never finds equal).
        fields = [k for k in ModelInfo.model_fields
                  if getattr(old.model, k) != getattr(system.model, k)]
        if fields:
            scores.append(f"model {', '.join(fields)}: not what metadata.yaml says")
        for task_id in sorted(set(system.tasks) | set(old.tasks)):
            new_task, old_task = system.tasks.get(task_id), old.tasks.get(task_id)
            if new_task is None or old_task is None:
                scores.append(f"{task_id}: " + ("not scored from these runs"
                                                if new_task is None else "missing"))
                continue
            scores += _value_differences(task_id, old_task.metrics, new_task.metrics)
            for label in sorted(set(new_task.groups) | set(old_task.groups)):
                scores += _value_differences(f"{task_id} [{label}]",
                                             old_task.groups.get(label, {}),
                                             new_task.groups.get(label, {}))
            for key in sorted(set(new_task.per_query) | set(old_task.per_query)):
                old_q, new_q = old_task.per_query.get(key, {}), new_task.per_query.get(key, {})
                differing = sum(old_q.get(q) != new_q.get(q) for q in set(old_q) | set(new_q))
                if differing:
                    scores.append(f"{task_id} {key}: {plural(differing, 'per-query score')} "
                                  + ("differs" if differing == 1 else "differ"))
            if (old_task.group_members, old_task.n_queries) != (new_task.group_members,
                                                                 new_task.n_queries):
                scores.append(f"{task_id}: query counts or group members differ")
    scores += [f"system {system_id!r} is not scored from these runs" for system_id in old_systems]
    if len(scores) > MAX_LISTED_DIFFERENCES:
        more = len(scores) - MAX_LISTED_DIFFERENCES
        scores = scores[:MAX_LISTED_DIFFERENCES] + [f"and {more} more"]
    old_dump = recorded.model_dump(mode="json", exclude_none=True)
    new_dump = recomputed.model_dump(mode="json", exclude_none=True)
    others = [key for key in sorted(set(old_dump) | set(new_dump))
              if key != "systems" and old_dump.get(key) != new_dump.get(key)]
    old_rest = [{k: v for k, v in s.items() if k != "tasks"} for s in old_dump["systems"]]
    new_rest = [{k: v for k, v in s.items() if k != "tasks"} for s in new_dump["systems"]]
    if old_rest != new_rest:
        others.append("systems (source)")
    return scores, others


def _value_differences(where: str, recorded: dict[str, float],
                       recomputed: dict[str, float]) -> list[str]:
    out = []
    for key in sorted(set(recorded) | set(recomputed)):
        old, new = recorded.get(key), recomputed.get(key)
        if old != new:
            out.append(f"{where} {key}: results.json has {_number(old)}, the runs give "
                       f"{_number(new)}")
    return out


def _number(value: float | None) -> str:
    return "nothing" if value is None else f"{value:.6g}"


_PER_QUERY_JSON = {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": False,
                   "allow_nan": False}


def per_query_content(results: ResultsFile, members: Mapping[str, str] | None = None
                      ) -> bytes:
    """The per-query file's content: compact canonical JSON (sorted keys), UTF-8, of a
    :class:`PerQueryFile`.

    Put together from the task scores as they are: each was checked when it became part
    of ``results`` (:class:`TaskScores`), and making a PerQueryFile of them checked every
    figure again and dumped it back, 0.14-0.19 s of a whole submission's figures (186,000
    in benchmarks/score_suite.py's), after its tasks were done. ``members``: each task's
    part as :func:`task_per_query_json` wrote it from the scores ``results`` holds (the
    worker processes write them while the other tasks are scored); used when there is
    one for every task, they save writing the figures after the last task (70-105 ms).
    tests/test_explain_files.py holds both ways to the model's dump and to the committed
    files."""
    system = _one_system(results)
    head = {"format": PER_QUERY_FORMAT, "system_id": system.system_id}
    if members is not None and members.keys() == system.tasks.keys():
        tasks = ",".join(f"{json.dumps(task, ensure_ascii=False)}:{members[task]}"
                         for task in sorted(members))
        text = json.dumps(head, **_PER_QUERY_JSON)[:-1] + ',"tasks":{' + tasks + "}}"
    else:
        text = json.dumps({**head, "tasks": {
            t: {"per_query": s.per_query, "group_members": s.group_members}
            for t, s in system.tasks.items()}}, **_PER_QUERY_JSON)
    return (text + "\n").encode("utf-8")


def task_per_query_json(scores: TaskScores | ScoreSheet) -> str | None:
    """One task's part of the per-query file, ``{"group_members": ..., "per_query": ...}``
    as :func:`per_query_content` writes it, from its scores before they are checked
    (:class:`TaskScores` keeps a float as it is); None when a figure is not a float (the
    check would convert it) or not finite (the check refuses it)."""
    if not all(type(value) is float for values in scores.per_query.values()
               for value in values.values()):
        return None
    try:
        return json.dumps({"group_members": scores.group_members,
                           "per_query": scores.per_query}, **_PER_QUERY_JSON)
    except (TypeError, ValueError):
        return None


def committed_form(results: ResultsFile, content: bytes,
                   explain_manifest: bytes | None = None) -> str:
    """results.json as git keeps it: every score but the per-query ones, which it names by
    the size and SHA-256 of ``content`` (:func:`per_query_content`), and, given the bytes
    of the explanation manifest, that manifest by its size and SHA-256 (otherwise
    whatever ``results`` names already). Without explanation files it is, byte for byte,
    what scoring wrote before the explorer existed."""
    update: dict[str, object] = {"per_query_file": StoredFile(
        path=PER_QUERY_NAME, bytes=len(content), sha256=hashlib.sha256(content).hexdigest())}
    if explain_manifest is not None:
        update["explain_manifest"] = ExplainManifestFile.of(explain_manifest)
    return committed_text(results.model_copy(update=update))


def committed_text(results: ResultsFile) -> str:
    """results.json's text as the scorer writes ``results``: every score but the per-query
    ones, and the files it names as it names them."""
    exclude = {"systems": {"__all__": {"tasks": {"__all__": _PER_QUERY_FIELDS}}}}
    return canonical_json(results.model_dump(mode="json", exclude_none=True, exclude=exclude))


def rewritten_line(path: Path) -> int | None:
    """The first line at which the submission's results.json at ``path`` differs from
    the scorer's writing of what it holds, which `ci pr-check` compares it with byte for
    byte (reformatted by hand: indentation, key order, a line added); None when it is as
    the scorer writes it, or cannot be read (:func:`read_results` says why), or is no
    regular file. Lines ending
    in CRLF count as ending in LF: git's checkout on Windows (core.autocrlf) writes them
    so, and its commit turns them back."""
    if not path.is_file() or path.is_symlink():
        return None  # a link or a FIFO is not read (discovering the folder refused it)
    try:
        recorded = read_results(path, per_query=False)
        text = path.read_bytes().decode("utf-8").replace("\r\n", "\n")
    except (ResultsFileError, OSError, UnicodeDecodeError):
        return None
    written = committed_text(recorded)
    if text == written:
        return None
    lines, expected = text.splitlines(keepends=True), written.splitlines(keepends=True)
    return next((i for i, (a, b) in enumerate(zip(lines, expected), 1) if a != b),
                min(len(lines), len(expected)) + 1)


def write_submission_results(folder: Path, results: ResultsFile,
                             explain_manifest: bytes | None = None,
                             members: Mapping[str, str] | None = None) -> Path:
    """``per-query.json.gz``, then ``results.json`` naming it (and the explanation manifest
    whose bytes are ``explain_manifest``: see :func:`committed_form`), each atomically.
    ``members``: see :func:`per_query_content`."""
    content = per_query_content(results, members)
    return write_committed(folder, committed_form(results, content, explain_manifest),
                           content)


def write_committed(folder: Path, committed: str, content: bytes) -> Path:
    """``per-query.json.gz`` of ``content``, then ``results.json`` of ``committed`` (their
    :func:`committed_form`), each atomically; for a caller that made them already."""
    atomic_write_bytes(folder / PER_QUERY_NAME, gzip.compress(content, compresslevel=6,
                                                              mtime=0))
    path = folder / RESULTS_NAME
    atomic_write_text(path, committed)
    return path


class ResultsFileError(FollowBoardError, ValueError):
    pass


def _one_system(results: ResultsFile) -> SystemResult:
    if results.kind != "submission" or len(results.systems) != 1:
        raise ResultsFileError("only a submission's results (one system) have a per-query file")
    return results.systems[0]


def attach_per_query(results: ResultsFile, content: bytes, display: str) -> ResultsFile:
    """``results`` with the per-query scores of ``content`` (already verified against
    ``results.per_query_file``) put back into each task, as the scorer computed them."""
    try:
        stored = PerQueryFile.model_validate_json(content)
    except ValidationError as exc:
        problem = newer_model_version(exc.errors(), PerQueryFile) \
            or validation_problem(exc.errors()[0], PerQueryFile)
        raise ResultsFileError(f"{display}: {problem}") from None
    system = _one_system(results)
    if stored.system_id != system.system_id or set(stored.tasks) != set(system.tasks):
        raise ResultsFileError(f"{display}: holds the per-query scores of system "
                               f"{stored.system_id!r} on {plural(len(stored.tasks), 'task')}, not of "
                               f"{system.system_id!r} on the {len(system.tasks)} of results.json")
    tasks = {}
    for task_id, scores in system.tasks.items():
        if scores.per_query or scores.group_members:
            raise ResultsFileError(f"{display}: results.json holds per-query scores of "
                                   f"{task_id} too; one place or the other")
        extra = stored.tasks[task_id]
        tasks[task_id] = scores.model_copy(update={"per_query": extra.per_query,
                                                   "group_members": extra.group_members})
    return results.model_copy(update={
        "per_query_file": None, "systems": [system.model_copy(update={"tasks": tasks})]})


def resolve_per_query(results: ResultsFile, obtain: Callable[[StoredRef], bytes],
                      display: str) -> ResultsFile:
    """``results`` whole: its per-query file obtained (verified) by ``obtain`` and put back."""
    if results.per_query_file is None:
        return results
    try:
        content = obtain(results.per_query_file.ref())
    except StoreError as exc:
        raise ResultsFileError(f"{display}: per-query scores: {exc}") from None
    return attach_per_query(results, content, display)


def read_results(path: Path, store: RunStore | None = None, *,
                 per_query: bool = True) -> ResultsFile:
    """Read and validate a results file; errors name the file and the offending key. One
    over :data:`~leaderboard.submission.layout.MAX_RESULTS_BYTES` is refused unread.

    A submission's per-query scores are fetched (through the run store ``store``, by
    default the configured one) and verified against the size and SHA-256 results.json
    names; ``per_query=False`` reads results.json alone (its ``per_query_file`` set)."""
    results = read_json_model(path, ResultsFile, ResultsFileError, max_bytes=MAX_RESULTS_BYTES)
    if not per_query or results.per_query_file is None:
        return results
    try:
        files = submission_files(path.parent, store)
    except StoreError as exc:
        raise ResultsFileError(f"{path}: per-query scores: {exc}") from None
    return resolve_per_query(results, files.read, str(path))


def off_pin_tasks(produced_by: Mapping[str, str]) -> dict[str, str]:
    """Task id -> the data revision ``produced_by`` (a results file's) records for it, of
    each task scored on another revision of its data than the registry pins now (after a
    revision bump: :func:`leaderboard.core.data.revision.off_pin`). A task the registry
    no longer declares is left out (the results file's readers say so)."""
    out: dict[str, str] = {}
    for key, recorded in produced_by.items():
        if not key.startswith(DATA_KEY):
            continue
        try:
            task = get_task(key[len(DATA_KEY):])
        except UnknownTaskError:
            continue
        if off_pin(recorded, task.source):
            out[task.id] = recorded
    return out


def revision_text(recorded: str) -> str:
    """The revision ``recorded`` names, as a reader is told it ('data of an unknown
    revision' when none)."""
    return recorded_revision(recorded) or "data of an unknown revision"


def off_pin_revisions(moved: Mapping[str, str]) -> str:
    """The data revisions ``moved`` (task -> recorded revision, :func:`off_pin_tasks`)
    names, each as :func:`revision_text` tells it, in order, joined by ", " (empty: none)."""
    return ", ".join(sorted({revision_text(r) for r in moved.values()}))


def off_pin_problems(produced_by: Mapping[str, str],
                     data_dir: PurePath | str | None = None) -> list[str]:
    """What :func:`off_pin_tasks` finds, one sentence per recorded revision and pinned
    one: 'N tasks (first, ...) were scored on A, but the registry pins B', with the pull
    that fetches B into ``data_dir`` (the folder the caller reads, where it has one)."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for task_id, recorded in off_pin_tasks(produced_by).items():
        source = get_task(task_id).source
        groups.setdefault((revision_text(recorded), source.pinned,
                           get_task(task_id).benchmark), []).append(task_id)
    out = []
    for (was, pinned, benchmark), ids in groups.items():
        listed = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
        out.append(f"{plural(len(ids), 'task')} ({listed}) "
                   f"{'was' if len(ids) == 1 else 'were'} scored on {was}, but the registry "
                   f"pins {pinned} (`leaderboard data pull {benchmark}"
                   f"{data_dir_option(data_dir)}` fetches it)")
    return out


# The data folder a message tells a submitter to pull into and score with: one of their
# own, which the message cannot name (the one they scored with holds files no pull
# verified, such as a mirror copied in by hand, which is no place to pull into).
OWN_DATA_DIR = "DIR"


def unverified_tasks(produced_by: Mapping[str, str]) -> dict[str, str]:
    """Task id -> what ``produced_by`` (a results file's) records of its data, of each task
    whose data it records as not verified by a pull, or of an unknown revision
    (:func:`leaderboard.core.data.revision.recorded_verified`)."""
    return {key[len(DATA_KEY):]: recorded for key, recorded in produced_by.items()
            if key.startswith(DATA_KEY) and not recorded_verified(recorded)}


def benchmark_of(task_id: str) -> str:
    """The benchmark of ``task_id`` (`leaderboard data pull` fetches its data by it); of
    one the registry no longer declares, the first part of its id."""
    try:
        return get_task(task_id).benchmark
    except UnknownTaskError:
        return task_id.split("/")[0]


def unverified_problems(produced_by: Mapping[str, str], folder: PurePath | str) -> list[str]:
    """Why `ci pr-check` refuses a results.json whose ``produced_by`` records data no pull
    verified (:func:`unverified_tasks`), one sentence per benchmark, and what to do: pull
    the data and score the submission ``folder`` (as the reader names it) again, or leave
    results.json out of the pull request. CI scores on the data it pulls, and records its
    revision alone: such a file is never what CI writes."""
    groups: dict[str, dict[str, str]] = {}
    for task_id, recorded in unverified_tasks(produced_by).items():
        groups.setdefault(benchmark_of(task_id), {})[task_id] = recorded
    out = []
    for benchmark, tasks in groups.items():
        ids = list(tasks)
        listed = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
        out.append(
            f"{RESULTS_NAME} records the data of {plural(len(ids), 'task')} of {benchmark} "
            f"({listed}) as \"{recorded_note(tasks[ids[0]])}\": scored on files that "
            f"`leaderboard data pull {benchmark}` did not fetch and verify, while CI scores "
            "on the data it pulls and records its revision alone, so a pull request may not "
            f"carry this {RESULTS_NAME}; pull the data into a folder of your own "
            f"(`leaderboard data pull {benchmark} --data-dir {OWN_DATA_DIR}`) and run "
            f"{score_command(folder, OWN_DATA_DIR)} again, or delete {RESULTS_NAME} from the "
            "pull request (CI writes it after merge)")
    return out


def as_pulled(results: ResultsFile) -> ResultsFile:
    """``results`` as the scorer records them on pulled data of the same revisions, as CI
    does: each task's data recorded as its revision alone, with no note that the files
    were not verified (:func:`leaderboard.core.data.revision.recorded_note`); data of an
    unknown revision is left as it is."""
    produced = {key: (recorded_revision(value) or value) if key.startswith(DATA_KEY)
                else value for key, value in results.produced_by.items()}
    return results.model_copy(update={"produced_by": produced})


def stale_inputs(recorded: dict[str, str], current: dict[str, str]) -> list[str]:
    """How the files differ from those a results file was scored from (empty: up to date)."""
    if not recorded:
        return ["results.json does not record the SHA-256 of the files it was scored from"]
    out = [f"{p} changed since results.json was scored" for p in sorted(current)
           if p in recorded and recorded[p] != current[p]]
    out += [f"{p} was added since results.json was scored" for p in sorted(current)
            if p not in recorded]
    out += [f"{p} was removed since results.json was scored" for p in sorted(recorded)
            if p not in current]
    return out
