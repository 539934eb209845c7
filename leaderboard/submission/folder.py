"""Submissions: ``submissions/<id>/metadata.yaml`` plus run files per task and role.

Layout::

    submissions/<id>/metadata.yaml
    submissions/<id>/manifest.txt                           every run file by SHA-256 and size
    submissions/<id>/runs/<task id>/<role>.trec[.gz]        e.g. runs/followtable/wtr/altered.trec.gz
    submissions/<id>/runs/<task id>/predictions.tsv[.gz]    PI-Indic T4
    submissions/<id>/results.json                           written by `leaderboard score`
    submissions/<id>/per-query.json.gz                      its per-query scores, likewise
    submissions/<id>/explain/                               the explorer's files, likewise
                                                            (leaderboard.submission.explain_files)

The run files may be in the folder, or only listed in ``manifest.txt`` and kept in the
run store (:mod:`leaderboard.store`), whence they are fetched and verified. A submission
may cover any subset of tasks, but each task it covers must have a file for every role
the task needs.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import yaml
from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, ValidationError,
                      field_validator)

from leaderboard.submission.explain_files import EXPLAIN_DIR
from leaderboard.core.fileio import size_text, validation_problem
from leaderboard.benchmarks.registry import Task, all_tasks
from leaderboard.core.report import Report
from leaderboard.submission.results import PER_QUERY_NAME, ModelInfo
from leaderboard.store.files import StoredRef, StoreError
from leaderboard.submission.files import SubmissionFiles
from leaderboard.store.locations import RunStore, configured_store
from leaderboard.submission.manifest import (MANIFEST_NAME, MAX_FILE_BYTES, MAX_FILES,
                                        MAX_SUBMISSION_BYTES, RUNS_DIR, FileEntry, Manifest,
                                        digest_file, load_manifest)

# Used with fullmatch only: with match, '$' also matches before a final newline.
SUBMISSION_ID_RE = re.compile(r"[a-z0-9][a-z0-9._-]{1,62}")
# A GitHub login: 1-39 letters, digits or single hyphens, not starting or ending with one.
GITHUB_LOGIN_RE = re.compile(r"[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}")
# What a submission folder holds at its top level; anything else is a stray file.
# results.json, per-query.json.gz and explain/ are the scorer's.
ROOT_ENTRIES = ("metadata.yaml", MANIFEST_NAME, "runs", "results.json", PER_QUERY_NAME,
                EXPLAIN_DIR)
METADATA_FILE = "metadata.yaml"
RUN_SUFFIXES = (".trec", ".trec.gz", ".txt", ".txt.gz", ".run", ".run.gz")
PREDICTION_SUFFIXES = (".tsv", ".tsv.gz")
MAX_METADATA_BYTES = 64 * 1024


def _web_link(link: str) -> str:
    if not re.match(r"^https?://", link):
        raise ValueError(f"link {link!r} must start with http:// or https://")
    return link


class SubmittedModel(ModelInfo):
    """:class:`ModelInfo` as a submitter writes it: every link must be a web link.

    Checked per list item, so an error's location is ``model.links.<i>`` and the message
    points at that item's line of metadata.yaml rather than at ``model:``.
    """

    links: list[Annotated[str, AfterValidator(_web_link)]] = Field(default_factory=list)


class Metadata(BaseModel):
    """What a submitter tells us about the model and how its runs were produced."""

    model_config = ConfigDict(extra="forbid")

    id: str
    # The GitHub login allowed to change this submission after it is merged (besides the
    # maintainers); without one, only maintainers may change it.
    owner: str | None = None
    model: SubmittedModel
    contact: str = Field(min_length=1)
    produced_by: str = Field(min_length=1, description="how the runs were produced")
    date: str | None = None
    hardware: str | None = None

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not SUBMISSION_ID_RE.fullmatch(value):
            raise ValueError("must be 2-63 characters: lower-case letters, digits, '.', '_' "
                             "or '-', starting with a letter or digit")
        return value

    @field_validator("owner")
    @classmethod
    def _owner_shape(cls, value: str | None) -> str | None:
        if value is not None and not GITHUB_LOGIN_RE.fullmatch(value):
            raise ValueError("must be a GitHub login (letters, digits and single hyphens, "
                             "at most 39 characters), without '@'")
        return value


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (PyYAML keeps the last)."""

    def construct_mapping(self, node, deep=False):  # noqa: ANN001, ANN201 - PyYAML's API
        seen: dict[object, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.setdefault(key, key_node.start_mark.line + 1)
            except TypeError:  # an unhashable key: SafeLoader reports it itself
                continue
            if first != key_node.start_mark.line + 1:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first given on line {first})",
                    key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


def parse_metadata_yaml(text: str) -> object:
    """YAML as metadata.yaml is read everywhere: safe, no duplicate keys.

    Raises :class:`yaml.YAMLError`, or :class:`RecursionError` for absurd nesting (PyYAML
    composes recursively; 30,000 nested ``[`` exhaust Python's stack)."""
    return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass


def owner_of(text: str) -> str | None:
    """The ``owner`` of a metadata.yaml's text, or None when it has none or is unreadable."""
    try:
        data = parse_metadata_yaml(text)
    except (yaml.YAMLError, RecursionError):
        return None
    owner = data.get("owner") if isinstance(data, dict) else None
    return owner if isinstance(owner, str) and GITHUB_LOGIN_RE.fullmatch(owner) else None


def _yaml_line(text: str, loc: tuple) -> int | None:
    """Best-effort line of a YAML key path, for error messages that point at the key."""
    try:
        node = yaml.compose(text)
    except (yaml.YAMLError, RecursionError):
        return None
    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == part:
                    line = key.start_mark.line + 1
                    node = value
                    break
            else:
                return line
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def load_metadata(path: Path, display: str, report: Report) -> Metadata | None:
    if path.is_symlink():
        # CI refuses links before reading anything; a local check must not follow one.
        report.add(display, None, "symbolic links are not allowed in a submission; commit "
                                  "the file itself")
        return None
    if not path.is_file():
        report.add(display, None, "metadata.yaml is missing")
        return None
    raw = path.read_bytes()
    if len(raw) > MAX_METADATA_BYTES:
        report.add(display, None, f"metadata.yaml is over {MAX_METADATA_BYTES // 1024} KiB")
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        report.add(display, None, "metadata.yaml is not valid UTF-8")
        return None
    try:
        data = parse_metadata_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None)
        message = f"invalid YAML: {problem}" if problem else f"invalid YAML: {exc}"
        report.add(display, mark.line + 1 if mark else None, message.splitlines()[0])
        return None
    except RecursionError:
        report.add(display, None, "invalid YAML: nested too deeply (metadata.yaml needs two "
                                  "or three levels)")
        return None
    if not isinstance(data, dict):
        report.add(display, 1, "metadata.yaml must be a mapping of keys to values")
        return None
    try:
        return Metadata.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            report.add(display, _yaml_line(text, err["loc"]), validation_problem(err))
        return None


@dataclass
class Submission:
    root: Path
    metadata: Metadata | None
    # task id -> role -> a verified local copy of the file: in the folder, or fetched from
    # the run store into its cache
    files: dict[str, dict[str, Path]] = field(default_factory=dict)
    # task id -> role -> the name messages give the file (``<id>/runs/<task>/<file>``)
    names: dict[str, dict[str, str]] = field(default_factory=dict)
    # every input file by path, size and SHA-256 (those in the folder as they are now):
    # what `leaderboard score` writes to manifest.txt
    inputs: Manifest = field(default_factory=Manifest)
    metadata_digest: FileEntry | None = None

    @property
    def id(self) -> str:
        return self.root.name

    def tasks(self) -> list[Task]:
        registry = all_tasks()
        return [registry[t] for t in registry if t in self.files]


def _role_of(name: str, task: Task) -> str | None:
    for suffix in RUN_SUFFIXES + PREDICTION_SUFFIXES:
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            return stem if stem in task.roles else None
    return None


@dataclass
class Inputs:
    """A submission's input files before any is fetched: the manifest as it stands, the
    run files in the folder, and both merged (the folder's copy of a path wins)."""

    listed: Manifest | None
    local: dict[str, Path]
    merged: Manifest
    metadata_digest: FileEntry | None


def collect_inputs(root: Path, report: Report, *, record_local: bool) -> Inputs:
    """Read ``manifest.txt`` and digest the run files in the folder.

    A file in the folder that the manifest lists with another size or SHA-256 is an error
    (the manifest is out of date) unless ``record_local``: `leaderboard score` records
    the folder's files. Nothing is fetched here."""
    sub_display = root.name
    listed = load_manifest(root, report, f"{sub_display}/{MANIFEST_NAME}")
    local: dict[str, Path] = {}
    runs_dir = root / RUNS_DIR
    if runs_dir.is_symlink():
        report.add(f"{sub_display}/runs", None, "symbolic links are not allowed in a "
                                                "submission; commit the folder itself")
    elif runs_dir.is_dir():
        for path in sorted(p for p in runs_dir.rglob("*") if p.is_file() or p.is_symlink()):
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                report.add(f"{sub_display}/{rel}", None,
                           "symbolic links are not allowed in a submission")
                continue
            local[rel] = path
    merged = Manifest(source=listed.source if listed else None,
                      entries=dict(listed.entries) if listed else {})
    for rel, path in local.items():
        entry = digest_file(path, rel)
        known = merged.entries.get(rel)
        if known is not None and (known.size, known.sha256) != (entry.size, entry.sha256) \
                and not record_local:
            report.add(f"{sub_display}/{rel}", None,
                       f"this file ({entry.describe()}) is not the one {MANIFEST_NAME} line "
                       f"{known.line} lists ({known.describe()}); run `leaderboard score "
                       f"submissions/{sub_display}` to record it")
        merged.entries[rel] = entry
    metadata_path = root / METADATA_FILE
    digest = (digest_file(metadata_path, METADATA_FILE)
              if metadata_path.is_file() and not metadata_path.is_symlink() else None)
    return Inputs(listed, local, merged, digest)


def discover(root: Path, report: Report, *, store: RunStore | None = None,
             record_local: bool = False) -> Submission:
    """Find metadata and run files (those in the folder, and those its manifest lists,
    fetched from the run store and verified); unknown tasks, roles and stray files are
    errors. ``record_local``: see :func:`collect_inputs`.

    A folder with neither ``metadata.yaml`` nor ``runs/`` nor a manifest is not a
    submission at all (a mistyped path, ``validate submissions/../..``): it gets one error,
    not one per entry.
    """
    sub_display = root.name
    if not any(os.path.lexists(root / name) for name in ("metadata.yaml", "runs",
                                                         MANIFEST_NAME)):
        report.add(sub_display or str(root), None,
                   f"not a submission folder: it holds neither metadata.yaml nor runs/ nor "
                   f"{MANIFEST_NAME} (a submission is a folder submissions/<id>/ with its "
                   f"metadata.yaml and its runs)")
        return Submission(root, None, {})
    metadata = load_metadata(root / "metadata.yaml", f"{sub_display}/metadata.yaml", report)
    if metadata is not None and metadata.id != root.name:
        report.add(f"{sub_display}/metadata.yaml", _yaml_line(
            (root / "metadata.yaml").read_text(encoding="utf-8"), ("id",)),
            f"id: {metadata.id!r} must equal the folder name {root.name!r}")
    registry = all_tasks()
    for entry in sorted(root.iterdir()):
        if entry.name not in ROOT_ENTRIES:
            report.add(f"{sub_display}/{entry.name}", None,
                       f"unexpected file: a submission holds metadata.yaml, {MANIFEST_NAME} "
                       "and runs/<task id>/<role>.trec[.gz] only")
    inputs = collect_inputs(root, report, record_local=record_local)
    submission = Submission(root, metadata, inputs=inputs.merged,
                            metadata_digest=inputs.metadata_digest)
    if not inputs.merged.entries:
        if not (root / MANIFEST_NAME).exists() and not (root / RUNS_DIR).is_dir():
            report.add(sub_display, None, f"no runs/ folder and no {MANIFEST_NAME}: nothing "
                                          "to score")
        return submission
    too_big = limit_problems(inputs.merged)
    for problem in too_big:
        report.add(sub_display, None, problem)
    placed: dict[str, tuple[str, str]] = {}   # path -> (task id, role)
    for rel, entry in sorted(inputs.merged.entries.items()):
        where, line = ((f"{sub_display}/{rel}", None) if rel in inputs.local
                       else (f"{sub_display}/{MANIFEST_NAME}", entry.line))
        named = f"{rel}: " if rel not in inputs.local else ""
        task_id, _, name = rel[len(RUNS_DIR) + 1:].rpartition("/")
        task = registry.get(task_id)
        if task is None:
            report.add(where, line, f"{named}unknown task {task_id!r}: the folder under runs/ "
                                    "must be a task id, e.g. runs/followtable/wtr/")
            continue
        role = _role_of(name, task)
        if role is None:
            allowed = ", ".join(f"{r}.trec[.gz]" if r != "predictions" else "predictions.tsv[.gz]"
                                for r in task.roles)
            report.add(where, line, f"{named}unexpected file name; {task_id} takes: {allowed}")
            continue
        if (task_id, role) in placed.values():
            report.add(where, line, f"{named}a second {role} file for {task_id}")
            continue
        placed[rel] = (task_id, role)
    remote = [StoredRef(rel, inputs.merged.entries[rel].size, inputs.merged.entries[rel].sha256)
              for rel in placed if rel not in inputs.local]
    found: dict[str, Path | StoreError] = dict(inputs.local)
    if remote and not too_big:
        files = SubmissionFiles(root.name, root, inputs.merged.source,
                                store if store is not None else configured_store(root))
        found.update(files.locate_all(remote))
    for rel, (task_id, role) in placed.items():
        path = found.get(rel)
        if isinstance(path, StoreError):
            report.add(path.display, None, path.message)
            continue
        if path is None:
            continue  # not fetched: the submission has other errors
        submission.files.setdefault(task_id, {})[role] = path
        submission.names.setdefault(task_id, {})[role] = f"{sub_display}/{rel}"
    tasks_seen = {task_id for task_id, _ in placed.values()}
    for task_id in sorted(tasks_seen):
        for role in registry[task_id].roles:
            if (task_id, role) not in placed.values():
                names = ("predictions.tsv or predictions.tsv.gz" if role == "predictions"
                         else f"{role}.trec or {role}.trec.gz")
                what = {"run": "its run", "predictions": "its predictions"}.get(
                    role, f"the {role} run")
                report.add(f"{sub_display}/runs/{task_id}", None, f"missing {what} ({names})")
    return submission


def limit_problems(manifest: Manifest) -> list[str]:
    """How a submission's files exceed the limits (the manifest's own, applied to the
    folder's files and the listed ones together)."""
    out = []
    if len(manifest.entries) > MAX_FILES:
        out.append(f"{len(manifest.entries)} run files, over the limit of {MAX_FILES}")
    if manifest.total_bytes > MAX_SUBMISSION_BYTES:
        out.append(f"the run files add up to {size_text(manifest.total_bytes)}, over the "
                   f"{size_text(MAX_SUBMISSION_BYTES)} limit of a submission")
    big = [e for e in manifest.entries.values() if e.size > MAX_FILE_BYTES]
    out += [f"{e.path} is {size_text(e.size)}, over the {size_text(MAX_FILE_BYTES)} limit "
            "per file; compress runs with gzip" for e in big]
    return out


def run_files(folder: Path) -> dict[str, FileEntry | None]:
    """Every run file of a submission by path: the manifest's entries, and the files in
    ``folder/runs`` (None where the manifest does not list them). Reads nothing else."""
    report = Report()
    listed = load_manifest(folder, report, f"{folder.name}/{MANIFEST_NAME}")
    out: dict[str, FileEntry | None] = dict(listed.entries) if listed else {}
    runs = folder / RUNS_DIR
    if runs.is_dir() and not runs.is_symlink():
        for path in runs.rglob("*"):
            if path.is_file() and not path.is_symlink():
                out.setdefault(path.relative_to(folder).as_posix(), None)
    return dict(sorted(out.items()))
