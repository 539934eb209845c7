"""Leaderboard rows: every verified submission and reported system under a results root.

Inputs are the repository's results, validated by :func:`leaderboard.submission.results.read_results`:

* ``submissions/<id>/results.json``: one verified system with per-query scores (read
  back from its per-query file, wherever the run store keeps it), beside its
  ``metadata.yaml`` and the run files its ``manifest.txt`` lists;
* ``results/reported/*.json``: reported rows (papers, MTEB's results repository), with
  their source and no per-query scores.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from leaderboard.benchmarks import reported_only_prefixes
from leaderboard.benchmarks.registry import all_tasks
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.report import Report
from leaderboard.publish.models import ModelRecord, canonical_system
from leaderboard.submission.folder import run_files
from leaderboard.submission.ids import id_problem, page_name
from leaderboard.submission.layout import METADATA_NAME, RESULTS_NAME
from leaderboard.submission.metadata import Efficiency, load_metadata
from leaderboard.submission.results import (
    ExplainManifestFile,
    ResultsFile,
    ResultsFileError,
    SystemResult,
    off_pin_tasks,
    read_results,
)


class StandingsDataError(FollowBoardError, ValueError):
    """A results or metadata file the standings cannot use; the message names the file."""


@dataclass
class SubmissionInfo:
    """What is known about a verified submission beyond its scores."""

    id: str                       # folder name
    slug: str                     # its page's name (leaderboard.submission.ids.page_name)
    folder: Path
    results_path: Path
    produced_by_scorer: dict[str, str]
    contact: str | None = None
    produced_by: str | None = None
    date: str | None = None
    hardware: str | None = None
    # What running the model cost, as metadata.yaml records it (measured or declared).
    efficiency: Efficiency | None = None
    # The model's parameters as the submission states them (its results.json, from its
    # metadata.yaml), before the model registry's record replaces its model facts
    # (:func:`leaderboard.publish.models.canonical_system`).
    parameters: int | None = None
    metadata_problems: list[str] = field(default_factory=list)
    # Paths relative to the folder: metadata.yaml and every run/prediction file (those its
    # manifest lists and those in its runs/ folder).
    files: list[str] = field(default_factory=list)
    # The query explorer's files, by the manifest results.json names (None: none).
    explain_manifest: ExplainManifestFile | None = None
    # Task -> the data revision results.json records, of each task scored on another
    # revision than the registry pins now (its pin moved since; empty: none).
    off_pin: dict[str, str] = field(default_factory=dict)


@dataclass
class Row:
    key: str                      # unique across the leaderboard
    system: SystemResult
    origin: Path                  # results file the row comes from
    submission: SubmissionInfo | None = None
    # sha256 of the results file: keys the significance cache without rehashing scores
    digest: str = ""
    # The row's model record (:func:`leaderboard.publish.models.resolve_model`), resolved once
    # when first needed (:func:`leaderboard.publish.standings.lines.record_of`).
    record: ModelRecord | None = None

    @property
    def name(self) -> str:
        return self.system.model.name

    @property
    def verified(self) -> bool:
        return self.system.provenance == "verified"


def _file_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise StandingsDataError(f"{path}: cannot read: {exc.strerror}") from None


def read_submission(results_path: Path) -> tuple[ResultsFile, SystemResult]:
    """A submission's results file and its one verified system."""
    try:
        results = read_results(results_path)
    except ResultsFileError as exc:
        raise StandingsDataError(str(exc)) from None
    if results.kind != "submission" or len(results.systems) != 1:
        raise StandingsDataError(f"{results_path}: a submission's results file must have kind "
                                 f"'submission' and exactly one system (has kind "
                                 f"{results.kind!r}, {len(results.systems)} systems)")
    system = results.systems[0]
    if system.provenance != "verified":
        raise StandingsDataError(f"{results_path}: systems under submissions/ must have "
                                 f"provenance 'verified', not {system.provenance!r}")
    return results, system


def _load_submission(folder: Path, warnings: list[str]) -> tuple[SystemResult, SubmissionInfo] | None:
    results_path = folder / RESULTS_NAME
    if folder.name.startswith("."):
        return None  # not a submission: a change under way (leaderboard.submission.transaction)
    if id_problem(folder.name):
        warnings.append(f"{folder}: {id_problem(folder.name)}; not shown")
        return None
    if not results_path.is_file():
        warnings.append(f"{folder}: no results.json (not scored yet); not shown")
        return None
    results, system = read_submission(results_path)
    info = SubmissionInfo(id=folder.name, slug=page_name(folder.name), folder=folder,
                          results_path=results_path, produced_by_scorer=results.produced_by,
                          explain_manifest=results.explain_manifest,
                          off_pin=off_pin_tasks(results.produced_by),
                          parameters=system.model.parameters)
    _read_metadata(folder, info)
    files = [METADATA_NAME] if (folder / METADATA_NAME).is_file() else []
    info.files = files + list(run_files(folder))
    return system, info


def _read_metadata(folder: Path, info: SubmissionInfo) -> None:
    """Contact and provenance text from metadata.yaml; problems are shown, not fatal, since
    the scores themselves come from results.json."""
    report = Report()
    meta = load_metadata(folder / METADATA_NAME, f"{folder.name}/{METADATA_NAME}", report)
    info.metadata_problems = report.lines()
    if meta is not None:
        info.contact = meta.contact
        info.produced_by = meta.produced_by
        info.date = meta.date
        info.hardware = meta.hardware
        info.efficiency = meta.efficiency


def load_rows(results_root: Path) -> tuple[list[Row], list[str]]:
    """Every leaderboard row under ``results_root``, verified first, in a stable order."""
    if not results_root.exists():
        raise StandingsDataError(f"{results_root}: no such folder (--results-root)")
    if not results_root.is_dir():
        raise StandingsDataError(f"{results_root}: not a folder (--results-root)")
    if not ((results_root / "submissions").is_dir()
            or (results_root / "results" / "reported").is_dir()):
        # Run outside the repository, build and export made an empty leaderboard and said
        # nothing; an empty one has at least its submissions/ folder.
        raise StandingsDataError(
            f"{results_root.absolute()}: holds neither submissions/ nor results/reported/; "
            "run the command from the repository's root, or give --results-root")
    warnings: list[str] = []
    rows: list[Row] = []
    used: set[str] = set()

    def unique(key: str) -> str:
        candidate, n = key, 1
        while candidate in used:
            n += 1
            candidate = f"{key}~{n}"
        used.add(candidate)
        return candidate

    sub_root = results_root / "submissions"
    if sub_root.is_dir():
        for folder in sorted(p for p in sub_root.iterdir() if p.is_dir()):
            loaded = _load_submission(folder, warnings)
            if loaded is None:
                continue
            system, info = loaded
            system = canonical_system(system)  # one model, one identity on every page
            rows.append(Row(key=unique(system.system_id), system=system,
                            origin=info.results_path, submission=info,
                            digest=_file_digest(info.results_path)))
    reported_root = results_root / "results" / "reported"
    if reported_root.is_dir():
        for path in sorted(reported_root.glob("*.json")):
            try:
                results = read_results(path)
            except ResultsFileError as exc:
                raise StandingsDataError(str(exc)) from None
            digest = _file_digest(path)
            for system in results.systems:
                if system.provenance != "reported":
                    raise StandingsDataError(
                        f"{path}: system {system.system_id!r} has provenance "
                        f"{system.provenance!r}; rows under results/reported/ must be "
                        "'reported'")
                rows.append(Row(key=unique(system.system_id), system=canonical_system(system),
                                origin=path, digest=digest))
    reported_only = reported_only_prefixes()
    known = set(all_tasks())
    unknown: dict[Path, set[str]] = {}
    for row in rows:
        for t in row.system.tasks:
            if t not in known and not t.startswith(reported_only):
                unknown.setdefault(row.origin, set()).add(t)
    for origin, tasks in unknown.items():
        names = sorted(tasks)
        warnings.append(f"{origin}: tasks not in the registry are not shown: "
                        f"{', '.join(names[:5])}" + (" ..." if len(names) > 5 else ""))
    return rows, warnings
