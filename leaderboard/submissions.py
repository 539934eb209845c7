"""Submissions: ``submissions/<id>/metadata.yaml`` plus run files per task and role.

Layout::

    submissions/<id>/metadata.yaml
    submissions/<id>/runs/<task id>/<role>.trec[.gz]        e.g. runs/followtable/wtr/altered.trec.gz
    submissions/<id>/runs/<task id>/predictions.tsv[.gz]    PI-Indic T4
    submissions/<id>/results.json                           written by `leaderboard score`
    submissions/<id>/explain/                               written by `leaderboard score`
                                                            (leaderboard.explain_files)

A submission may cover any subset of tasks, but each task it covers must have a file for
every role the task needs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import yaml
from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, ValidationError,
                      field_validator)

from leaderboard.explain_files import EXPLAIN_DIR
from leaderboard.registry import Task, all_tasks
from leaderboard.report import Report
from leaderboard.results import ModelInfo

# Used with fullmatch only: with match, '$' also matches before a final newline.
SUBMISSION_ID_RE = re.compile(r"[a-z0-9][a-z0-9._-]{1,62}")
# A GitHub login: 1-39 letters, digits or single hyphens, not starting or ending with one.
GITHUB_LOGIN_RE = re.compile(r"[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}")
# What a submission folder holds at its top level; anything else is a stray file.
# results.json and explain/ are the scorer's.
ROOT_ENTRIES = ("metadata.yaml", "runs", "results.json", EXPLAIN_DIR)
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
            key = ".".join(str(p) for p in err["loc"]) or "(top level)"
            report.add(display, _yaml_line(text, err["loc"]), f"{key}: {err['msg']}")
        return None


@dataclass
class Submission:
    root: Path
    metadata: Metadata | None
    # task id -> role -> file
    files: dict[str, dict[str, Path]] = field(default_factory=dict)

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


def discover(root: Path, report: Report) -> Submission:
    """Find metadata and run files; unknown tasks, roles and stray files are errors."""
    sub_display = root.name
    metadata = load_metadata(root / "metadata.yaml", f"{sub_display}/metadata.yaml", report)
    if metadata is not None and metadata.id != root.name:
        report.add(f"{sub_display}/metadata.yaml", _yaml_line(
            (root / "metadata.yaml").read_text(encoding="utf-8"), ("id",)),
            f"id: {metadata.id!r} must equal the folder name {root.name!r}")
    registry = all_tasks()
    files: dict[str, dict[str, Path]] = {}
    for entry in sorted(root.iterdir()):
        if entry.name not in ROOT_ENTRIES:
            report.add(f"{sub_display}/{entry.name}", None,
                       "unexpected file: a submission holds metadata.yaml and "
                       "runs/<task id>/<role>.trec[.gz] only")
    runs_dir = root / "runs"
    if runs_dir.is_symlink():
        report.add(f"{sub_display}/runs", None, "symbolic links are not allowed in a "
                                                "submission; commit the folder itself")
        return Submission(root, metadata, files)
    if not runs_dir.is_dir():
        report.add(sub_display, None, "no runs/ folder: nothing to score")
        return Submission(root, metadata, files)
    for path in sorted(p for p in runs_dir.rglob("*") if p.is_file() or p.is_symlink()):
        rel = path.relative_to(root).as_posix()
        display = f"{sub_display}/{rel}"
        if path.is_symlink():
            report.add(display, None, "symbolic links are not allowed in a submission")
            continue
        task_id = path.parent.relative_to(runs_dir).as_posix()
        task = registry.get(task_id)
        if task is None:
            report.add(display, None, f"unknown task {task_id!r}: the folder under runs/ must "
                                      "be a task id, e.g. runs/followtable/wtr/")
            continue
        role = _role_of(path.name, task)
        if role is None:
            allowed = ", ".join(f"{r}.trec[.gz]" if r != "predictions" else "predictions.tsv[.gz]"
                                for r in task.roles)
            report.add(display, None, f"unexpected file name; {task_id} takes: {allowed}")
            continue
        if role in files.get(task_id, {}):
            report.add(display, None, f"a second {role} file for {task_id}")
            continue
        files.setdefault(task_id, {})[role] = path
    for task_id, roles in files.items():
        for role in registry[task_id].roles:
            if role not in roles:
                report.add(f"{sub_display}/runs/{task_id}", None,
                           f"missing the {role} run ({role}.trec or {role}.trec.gz)")
    return Submission(root, metadata, files)

