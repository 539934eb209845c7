"""MTEB's published results (``embeddings-benchmark/results``) -> reported leaderboard rows.

The results repository keeps one folder per model and revision,
``results/<org>__<model>/<revision>/``, holding one JSON file per MTEB task and a
``model_meta.json``. For the instruction-retrieval tasks the main score is p-MRR; the
standard metrics of the two instruction versions appear in three layouts over mteb's life:

* mteb 2.x: ``scores.test[i].og`` and ``scores.test[i].changed``;
* mteb 1.x: ``scores.test[i].individual.original`` and ``...individual.changed``;
* mteb 1.7 and older: ``test.p-MRR`` only, no standard metrics.

mteb 1.x loaded the two qrels the wrong way round (mteb 1.12.75,
``AbsTaskInstructionRetrieval.py`` lines 112-113): its ``individual.original`` figures are the
original-instruction run scored against the changed qrels. Those figures are stored under
the keys of :mod:`.protocols` (``original-run@changed-qrels/...``), never under
``original/``, so no column mixes them with mteb 2.x figures; the source's own label stays
in each row's note, and every row carries its files' ``mteb_version``.

One row per (model folder, revision folder, mteb version); several revisions of a model are
separate rows, and nothing here is ever merged with another source's row of the same model.

Each row names the commit of the results repository its files come from
(:func:`results_checkout`): a git clone's HEAD (read locally), the pinned
:data:`MTEB_RESULTS_REVISION` for the data folder's copy, else none, its note saying why;
a row whose files in a clone differ from its HEAD names none either.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leaderboard.benchmarks.protocols import (
    SWAPPED_ALTERED,
    SWAPPED_ORIGINAL,
    mteb_swaps_qrels,
    relabel,
)
from leaderboard.benchmarks.registry import all_tasks
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import read_json_file
from leaderboard.publish.models import canonical_model_info
from leaderboard.publish.site.repository import repository_ref, uncommitted
from leaderboard.submission.metadata import (MAX_PARAMETERS, model_name_problem,
                                             web_link_problem)
from leaderboard.submission.results import (
    ModelInfo,
    ModelType,
    ResultsFile,
    Source,
    SystemResult,
    TaskScores,
)

# The commit of the copy in the data folder (its README), as every reported row names a
# commit: its first 12 hex digits.
MTEB_RESULTS_REVISION = "f4cc6c8b365a"
MTEB_RESULTS_REPO = "https://github.com/embeddings-benchmark/results"
MTEB_RESULTS_NAME = "embeddings-benchmark/results"
REVISION_DIGITS = len(MTEB_RESULTS_REVISION)

NOT_A_CHECKOUT_NOTE = (
    "Read from a folder that is neither a git clone of the results repository nor the data "
    f"folder's copy (commit {MTEB_RESULTS_REVISION}): the commit its files come from is "
    "unknown.")
CHANGED_NOTE = ("Read from a clone of the results repository at commit {commit} whose files "
                "of this row differ from it (uncommitted changes): the commit they come from "
                "is unknown.")

# MTEB task name -> hf_subset -> our task id. Tasks not listed are ignored, so the importer
# can be pointed at the full results repository.
MTEB_TASKS: dict[str, dict[str, str]] = {
    "Robust04InstructionRetrieval": {"default": "followir/robust04"},
    "News21InstructionRetrieval": {"default": "followir/news21"},
    "Core17InstructionRetrieval": {"default": "followir/core17"},
    "mFollowIRInstructionRetrieval": {"fas": "mfollowir/fas", "rus": "mfollowir/rus",
                                      "zho": "mfollowir/zho"},
    "mFollowIRCrossLingualInstructionRetrieval": {"eng-fas": "mfollowir-cl/fas",
                                                  "eng-rus": "mfollowir-cl/rus",
                                                  "eng-zho": "mfollowir-cl/zho"},
}

# Our metric name -> MTEB's key for the same trec_eval measure.
MTEB_METRIC_KEYS = {"AP@1000": "map_at_1000", "nDCG@5": "ndcg_at_5", "nDCG@10": "ndcg_at_10",
                    "nDCG@20": "ndcg_at_20"}

# The layouts' names for the two instruction versions -> the instruction role they label.
ROLE_LABELS_2X = {"og": "original", "changed": "altered"}
ROLE_LABELS_1X = {"original": "original", "changed": "altered"}

MTEB_1X_NOTE = ("mteb 1.x file: mteb 1.x scored each run against the other run's qrels "
                "(mteb 1.12.75, AbsTaskInstructionRetrieval.py lines 112-113), so the "
                "figures it labels individual.original are kept as "
                f"{SWAPPED_ORIGINAL}/... and those it labels individual.changed as "
                f"{SWAPPED_ALTERED}/...; p-MRR is unaffected.")


class MtebImportError(FollowBoardError, ValueError):
    """A results file cannot be imported; the message names the file."""


@dataclass
class _TaskFile:
    path: Path
    task_name: str
    mteb_version: str
    dataset_revision: str | None
    layout: str  # "2.x", "1.x" or "legacy"
    scores: dict[str, TaskScores]  # our task id -> scores


@dataclass
class _RowGroup:
    model_dir: str
    revision_dir: str
    mteb_version: str
    files: list[_TaskFile] = field(default_factory=list)


def _number(value: Any, path: Path, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MtebImportError(f"{path}: {where}: expected a number, got {value!r}")
    # Python's JSON reader takes NaN, Infinity and 1e999 (infinite), and integers of any
    # length (which no float holds): no score is any of them.
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise MtebImportError(f"{path}: {where}: expected a finite number, got {value!r}"[:500])
    return number


def _standard_metrics(block: Any, role: str, task_id: str, path: Path, where: str,
                      qrels_swapped: bool) -> dict[str, float]:
    if not isinstance(block, dict):
        raise MtebImportError(f"{path}: {where}: expected an object of metrics")
    out: dict[str, float] = {}
    for metric in all_tasks()[task_id].standard_metrics:
        key = MTEB_METRIC_KEYS[metric]
        if key in block:
            out[relabel(role, metric, qrels_swapped)] = _number(block[key], path,
                                                                 f"{where}.{key}")
    return out


def _subset_scores(entry: dict[str, Any], task_id: str, path: Path, where: str,
                   qrels_swapped: bool) -> tuple[TaskScores, str]:
    metrics: dict[str, float] = {}
    if "p-MRR" in entry:
        metrics["p-MRR"] = _number(entry["p-MRR"], path, f"{where}.p-MRR")
    elif "main_score" in entry:  # main_score is p-MRR for these tasks
        metrics["p-MRR"] = _number(entry["main_score"], path, f"{where}.main_score")
    else:
        raise MtebImportError(f"{path}: {where}: neither p-MRR nor main_score")
    if "og" in entry or ("changed" in entry and "individual" not in entry):
        layout = "2.x"
        for label, role in ROLE_LABELS_2X.items():
            if label in entry:
                metrics.update(_standard_metrics(entry[label], role, task_id, path,
                                                 f"{where}.{label}", qrels_swapped))
    elif "individual" in entry:
        layout = "1.x"
        individual = entry["individual"]
        if not isinstance(individual, dict):
            raise MtebImportError(f"{path}: {where}.individual: expected an object")
        for label, role in ROLE_LABELS_1X.items():
            if label in individual:
                metrics.update(_standard_metrics(individual[label], role, task_id, path,
                                                 f"{where}.individual.{label}",
                                                 qrels_swapped))
    else:
        layout = "p-MRR only"
    return TaskScores(metrics=metrics), layout


def read_task_file(path: Path) -> _TaskFile | None:
    """Parse one MTEB task result file; None when the task is not one we import."""
    data = read_json_file(path, MtebImportError)
    if not isinstance(data, dict):
        raise MtebImportError(f"{path}: expected a JSON object at the top level")
    task_name = data.get("task_name") or data.get("mteb_dataset_name") or path.stem
    if not isinstance(task_name, str):
        raise MtebImportError(f"{path}: task_name: expected text, got {task_name!r}")
    if task_name not in MTEB_TASKS:
        return None
    subsets = MTEB_TASKS[task_name]
    version = data.get("mteb_version")
    if not isinstance(version, str) or not version:
        raise MtebImportError(f"{path}: no mteb_version")
    try:
        qrels_swapped = mteb_swaps_qrels(version)
    except ValueError as exc:
        raise MtebImportError(f"{path}: {exc}") from None
    revision = data.get("dataset_revision")
    scores: dict[str, TaskScores] = {}
    if "scores" in data:
        split = data["scores"].get("test") if isinstance(data["scores"], dict) else None
        if not isinstance(split, list) or not split:
            raise MtebImportError(f"{path}: scores.test: expected a non-empty list")
        layouts = set()
        for i, entry in enumerate(split):
            where = f"scores.test.{i}"
            if not isinstance(entry, dict):
                raise MtebImportError(f"{path}: {where}: expected an object")
            subset = entry.get("hf_subset", "default")
            if not isinstance(subset, str):
                raise MtebImportError(f"{path}: {where}.hf_subset: expected text, got "
                                      f"{subset!r}")
            if subset not in subsets:
                raise MtebImportError(f"{path}: {where}: unknown hf_subset {subset!r} for "
                                      f"{task_name} (known: {', '.join(subsets)})")
            task_id = subsets[subset]
            if task_id in scores:
                raise MtebImportError(f"{path}: {where}: hf_subset {subset!r} appears twice")
            scores[task_id], layout = _subset_scores(entry, task_id, path, where,
                                                     qrels_swapped)
            layouts.add(layout)
        layout = "/".join(sorted(layouts))
    elif isinstance(data.get("test"), dict):
        # mteb <= 1.7: {"test": {"p-MRR": ...}} for the single default subset.
        if len(subsets) != 1:
            raise MtebImportError(f"{path}: old-style file for multi-subset task {task_name}")
        task_id = next(iter(subsets.values()))
        scores[task_id], _ = _subset_scores(data["test"], task_id, path, "test",
                                            qrels_swapped)
        layout = "legacy"
    else:
        raise MtebImportError(f"{path}: neither 'scores' nor a 'test' object")
    return _TaskFile(path=path, task_name=task_name, mteb_version=version,
                     dataset_revision=revision if isinstance(revision, str) else None,
                     layout=layout, scores=scores)


def _model_type(meta: dict[str, Any]) -> ModelType:
    """MTEB's model metadata -> our model type.

    MTEB describes encoders: ``is_cross_encoder`` marks rerankers, newer files list
    ``model_type`` (["dense"], ...), and BM25 baselines have a bm25 loader and no embedding
    size. Anything else with an embedding size or a similarity function is an embedding
    model, i.e. a bi-encoder; with neither we do not guess ("other").
    """
    if meta.get("is_cross_encoder") is True:
        return "cross-encoder"
    declared = meta.get("model_type") or []
    if isinstance(declared, str):
        declared = [declared]
    lowered = {str(t).lower() for t in declared}
    if lowered & {"cross-encoder", "cross_encoder"}:
        return "cross-encoder"
    if lowered & {"late-interaction", "late_interaction", "colbert"}:
        return "late-interaction"
    if "sparse" in lowered:
        return "sparse"
    if "dense" in lowered:
        return "bi-encoder"
    hints = f"{meta.get('loader') or ''} {meta.get('name') or ''}".lower()
    if "bm25" in hints:
        return "sparse"
    # An embedding size or a similarity function means the model embeds texts separately.
    if meta.get("embed_dim") or meta.get("similarity_fn_name"):
        return "bi-encoder"
    return "other"


def _model_info(model_dir: str, revision_dir: str, meta_path: Path) -> tuple[ModelInfo, str | None]:
    """ModelInfo from model_meta.json (or from the folder names when there is none)."""
    fallback_name = model_dir.replace("__", "/", 1)
    if not meta_path.is_file():
        return (canonical_model_info(ModelInfo(name=fallback_name, revision=revision_dir)),
                "No model_meta.json: name and revision from the folder names, type unknown.")
    meta = read_json_file(meta_path, MtebImportError)
    if not isinstance(meta, dict):
        raise MtebImportError(f"{meta_path}: expected a JSON object")
    name = meta.get("name") if isinstance(meta.get("name"), str) else fallback_name
    # The board shows the name and links a submitter's would be held to.
    problem = model_name_problem(name)
    if problem:
        raise MtebImportError(f"{meta_path}: name: {problem}")
    revision = meta.get("revision") if isinstance(meta.get("revision"), str) else revision_dir
    params = meta.get("n_parameters")
    # A count the site can print: NaN and infinity compare false, a 400-digit integer is
    # over the bound (math.isfinite raised OverflowError on it).
    parameters = (int(params) if isinstance(params, (int, float)) and not isinstance(params, bool)
                  and 1 <= params < MAX_PARAMETERS else None)
    licence = meta.get("license") if isinstance(meta.get("license"), str) else None
    reference = meta.get("reference")
    links = [reference] if isinstance(reference, str) and reference else []
    for link in links:
        problem = web_link_problem(link)
        if problem:
            raise MtebImportError(f"{meta_path}: reference: {problem}")
    # The registry's facts win over model_meta.json's (one model, one identity).
    model = ModelInfo(name=name, type=_model_type(meta), parameters=parameters, links=links,
                      licence=licence, revision=revision)
    return canonical_model_info(model), None


def _models_root(results_dir: Path) -> Path:
    """Accept the repository root (with results/) or its results/ folder itself."""
    nested = results_dir / "results"
    return nested if nested.is_dir() else results_dir


@dataclass(frozen=True)
class ResultsCheckout:
    """Which commit of the results repository the files under a folder are."""

    commit: str | None        # its first REVISION_DIGITS hex digits; None when unknown
    changed: tuple[str, ...]  # a clone's files that differ from it (clone-relative paths)
    note: str | None          # why the commit is unknown, for every row


def results_checkout(results_dir: Path, *, pinned_copy: bool) -> ResultsCheckout:
    """The commit of the results repository the files under ``results_dir`` come from: a
    git clone's HEAD, when ``results_dir`` is a clone's root or its results/ folder (read
    with ``git rev-parse``, no network); else :data:`MTEB_RESULTS_REVISION` when
    ``pinned_copy`` (the data folder's copy, at that commit); else unknown."""
    root = _models_root(Path(results_dir)).resolve()
    if root.name == "results":
        repo = repository_ref(root.parent, url=MTEB_RESULTS_REPO)
        # A folder inside some other checkout is no clone: its HEAD is that checkout's.
        if repo.pinned and repo.toplevel == root.parent:
            return ResultsCheckout(repo.ref[:REVISION_DIGITS],
                                   tuple(uncommitted(repo, [root])), None)
    if pinned_copy:
        return ResultsCheckout(MTEB_RESULTS_REVISION, (), None)
    return ResultsCheckout(None, (), NOT_A_CHECKOUT_NOTE)


def import_mteb(results_dir: Path, *, pinned_copy: bool = False) -> ResultsFile:
    """Read every FollowIR/mFollowIR result file under an MTEB results checkout;
    ``pinned_copy``: ``results_dir`` is the data folder's copy (:func:`results_checkout`)."""
    results_dir = Path(results_dir)
    if not results_dir.is_dir():
        problem = "not a folder" if results_dir.exists() else "no such folder"
        raise MtebImportError(f"{results_dir}: {problem}")
    root = _models_root(results_dir)
    checkout = results_checkout(results_dir, pinned_copy=pinned_copy)
    groups: dict[tuple[str, str, str], _RowGroup] = {}
    task_names = set(MTEB_TASKS)
    for path in sorted(root.glob("*/*/*.json")):
        if path.stem not in task_names:
            continue
        parsed = read_task_file(path)
        if parsed is None:
            continue
        model_dir, revision_dir = path.parent.parent.name, path.parent.name
        key = (model_dir, revision_dir, parsed.mteb_version)
        groups.setdefault(key, _RowGroup(model_dir, revision_dir, parsed.mteb_version))
        groups[key].files.append(parsed)
    if not groups:
        raise MtebImportError(f"{results_dir}: no result files for "
                              f"{', '.join(sorted(task_names))} found")

    versions_per_revision: dict[tuple[str, str], int] = defaultdict(int)
    for model_dir, revision_dir, _ in groups:
        versions_per_revision[(model_dir, revision_dir)] += 1

    systems: list[SystemResult] = []
    for (model_dir, revision_dir, version), group in sorted(groups.items()):
        model, meta_note = _model_info(model_dir, revision_dir,
                                       root / model_dir / revision_dir / "model_meta.json")
        system_id = f"mteb/{model_dir}/{revision_dir}"
        if versions_per_revision[(model_dir, revision_dir)] > 1:
            # Files of one revision scored by different mteb versions stay apart.
            system_id += f"@mteb-{version}"
        tasks: dict[str, TaskScores] = {}
        for task_file in group.files:
            for task_id, scores in task_file.scores.items():
                if task_id in tasks:
                    raise MtebImportError(f"{task_file.path}: {task_id} already imported from "
                                          f"another file of the same model and revision")
                tasks[task_id] = scores
        files = sorted(group.files, key=lambda f: f.task_name)
        layouts = sorted({f.layout for f in files})
        revisions = ", ".join(
            f"{f.task_name} {f.dataset_revision[:12] if f.dataset_revision else 'unknown'}"
            for f in files)
        notes = [f"Files: {', '.join(f.path.name for f in files)} (layout {', '.join(layouts)}); "
                 f"dataset revisions: {revisions}."]
        if any(key.startswith((SWAPPED_ORIGINAL, SWAPPED_ALTERED))
               for scores in tasks.values() for key in scores.metrics):
            notes.append(MTEB_1X_NOTE)
        if "legacy" in layouts:
            notes.append("Pre-1.8 file: p-MRR only, no standard metrics.")
        if meta_note:
            notes.append(meta_note)
        path = f"results/{model_dir}/{revision_dir}"
        revision = checkout.commit
        if any(changed.startswith(path + "/") for changed in checkout.changed):
            revision = None
            notes.append(CHANGED_NOTE.format(commit=checkout.commit))
        elif checkout.note:
            notes.append(checkout.note)
        systems.append(SystemResult(
            system_id=system_id, model=model, provenance="reported",
            source=Source(kind="mteb-results",
                          citation=f"MTEB results repository ({MTEB_RESULTS_NAME})",
                          url=MTEB_RESULTS_REPO, path=path, revision=revision,
                          mteb_version=version, note=" ".join(notes)),
            tasks=tasks))
    upstream = MTEB_RESULTS_NAME + (f"@{checkout.commit}" if checkout.commit
                                    else " (commit unknown)")
    if any(s.source.revision is None for s in systems) and checkout.commit:
        upstream += " with uncommitted changes"
    return ResultsFile(kind="reported",
                       produced_by={"generator": "leaderboard.publish.reported.mteb",
                                    "upstream": upstream},
                       systems=systems)


def summarise(results: ResultsFile) -> str:
    tasks = sorted({t for s in results.systems for t in s.tasks})
    versions = sorted({s.source.mteb_version for s in results.systems if s.source.mteb_version},
                      key=lambda v: tuple(int(p) if p.isdigit() else 0 for p in v.split(".")))
    cells = sum(len(s.tasks) for s in results.systems)
    return (f"{len(results.systems)} rows, {cells} task scores over {len(tasks)} tasks "
            f"({', '.join(tasks)}); mteb versions {', '.join(versions)}")


def is_data_folder_copy(results_dir: Path, data_dir: Path | None) -> bool:
    """Whether ``results_dir`` is the data folder's ``mteb-results/``, the copy at the
    pinned commit (its README), which ``import_mteb(..., pinned_copy=True)`` names."""
    return data_dir is not None and (
        _models_root(Path(results_dir)).resolve()
        == _models_root(Path(data_dir) / "mteb-results").resolve())


def unknown_commit_warning(results: ResultsFile) -> str | None:
    """What to tell the importer when rows name no commit of the results repository."""
    unknown = [s for s in results.systems if s.source.revision is None]
    if not unknown:
        return None
    return (f"{len(unknown)} of {len(results.systems)} rows name no commit of "
            f"{MTEB_RESULTS_NAME}, so no reader can find their files there; each row's "
            f"note says why (first: {unknown[0].system_id})")
