"""The PI-Indic-Align authors' own result files -> reported leaderboard rows.

Upstream (``aryashah2k/PI-Indic-Align`` at a7d6877f5ddf) publishes one JSON per model, task
and language (pair) under ``results/<task>-<model>/``. These are scores on the authors' full
data set, not on the 150 validated pairs this leaderboard scores, so every task id lives
under ``pi-indic-full/`` and can never be confused with a ``pi-indic-val150/`` task:

* ``t1_mono_retrieval``, lang ``asm``           -> ``pi-indic-full/t1/asm``
* ``t2_xling_retrieval``, pair ``asm->mal``     -> ``pi-indic-full/t2/asm-mal``
* ``t3_reverse_retrieval``, ``asm`` / ``asm->mal`` -> ``pi-indic-full/t3/asm`` / ``.../t3/asm-mal``
* ``t4_classification`` test split -> ``pi-indic-full/t4/<lang>``, dev split ->
  ``pi-indic-full/t4-dev/<lang>``.

Retrieval files are all dev-split runs (``split_tag: "dev"``), the split the paper's Tables
3-6 report. Every T4 file says ``lang_or_pair: "all"`` although the files differ and are
named per language, so the language of a T4 task id comes from the file name; each T4 row
says so in its note. One row per upstream results folder (task x model).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from leaderboard.benchmarks.pi_indic import PI_INDIC_COMMIT
from leaderboard.core.data.layout_files import PI_INDIC_LANGUAGES
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import read_json_file
from leaderboard.publish.models import canonical_model_info
from leaderboard.submission.results import (
    ModelInfo,
    ResultsFile,
    Source,
    SystemResult,
    TaskScores,
)

PI_INDIC_REPO_URL = "https://github.com/aryashah2k/PI-Indic-Align"
RETRIEVAL_TASKS = {"t1_mono_retrieval": "t1", "t2_xling_retrieval": "t2",
                   "t3_reverse_retrieval": "t3"}
RETRIEVAL_SPLIT = "dev"
# Our metric key -> where the authors' file keeps it.
RECALL_KEYS = {"R@1": "1", "R@5": "5", "R@10": "10"}
T4_METRICS = {"AUROC": "auroc", "AUPRC": "auprc", "Accuracy": "accuracy"}
T4_SPLITS = {"test": "t4", "dev": "t4-dev"}
_T4_FILE = re.compile(r"-(?P<lang>[a-z]{3})-dev_test-\d{8}T\d{6}Z\.json$")


class PiIndicResultsError(FollowBoardError, ValueError):
    """A result file cannot be imported; the message names the file."""


def _load(path: Path) -> dict[str, Any]:
    data = read_json_file(path, PiIndicResultsError)
    if not isinstance(data, dict):
        raise PiIndicResultsError(f"{path}: expected a JSON object")
    return data


def _get(data: Any, keys: list[str], path: Path) -> float:
    value = data
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            raise PiIndicResultsError(f"{path}: missing {'.'.join(keys)}")
        value = value[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PiIndicResultsError(f"{path}: {'.'.join(keys)} is not a number: {value!r}")
    return float(value)


def _language(code: str, path: Path) -> str:
    if code not in PI_INDIC_LANGUAGES:
        raise PiIndicResultsError(f"{path}: unknown language code {code!r}")
    return code


def _retrieval_task(kind: str, lang_or_pair: str, path: Path) -> str:
    # Pairs are written "asm->mal" inside the file ("asm-_mal" in its name).
    parts = re.split(r"->|-_", lang_or_pair)
    if len(parts) == 1:
        return f"pi-indic-full/{kind}/{_language(parts[0], path)}"
    if len(parts) == 2:
        src, tgt = (_language(p, path) for p in parts)
        if src == tgt:
            raise PiIndicResultsError(f"{path}: pair {lang_or_pair!r} has one language twice")
        return f"pi-indic-full/{kind}/{src}-{tgt}"
    raise PiIndicResultsError(f"{path}: cannot read lang_or_pair {lang_or_pair!r}")


def _retrieval_scores(data: dict[str, Any], path: Path) -> dict[str, float]:
    metrics = data.get("metrics")
    out = {key: _get(metrics, ["recall", k], path) for key, k in RECALL_KEYS.items()}
    out["RR@10"] = _get(metrics, ["mrr@10"], path)
    out["nDCG@10"] = _get(metrics, ["ndcg@10"], path)
    return out


def _t4_scores(data: dict[str, Any], split: str, path: Path) -> dict[str, float]:
    metrics = data.get("metrics")
    out: dict[str, float] = {}
    for key, name in T4_METRICS.items():
        out[key] = _get(metrics, [split, "base", name], path)
        out[f"calibrated/{key}"] = _get(metrics, [split, "calibrated", name], path)
    out["ECE"] = _get(metrics, [split, "ece_base"], path)
    out["calibrated/ECE"] = _get(metrics, [split, "ece_calibrated"], path)
    return out


def _folder_row(folder: Path, relative: str) -> SystemResult:
    files = sorted(folder.glob("*.json"))
    if not files:
        raise PiIndicResultsError(f"{folder}: no result files")
    tasks: dict[str, TaskScores] = {}
    backbones: set[str] = set()
    task_names: set[str] = set()
    t4_labels: set[str] = set()
    for path in files:
        data = _load(path)
        task = data.get("task")
        backbone = data.get("backbone")
        if not isinstance(task, str) or not isinstance(backbone, str):
            raise PiIndicResultsError(f"{path}: missing 'task' or 'backbone'")
        backbones.add(backbone)
        task_names.add(task)
        if task in RETRIEVAL_TASKS:
            if data.get("split_tag") != RETRIEVAL_SPLIT:
                raise PiIndicResultsError(f"{path}: split_tag {data.get('split_tag')!r}, "
                                          f"expected {RETRIEVAL_SPLIT!r}")
            lang_or_pair = data.get("lang_or_pair")
            if not isinstance(lang_or_pair, str):
                raise PiIndicResultsError(f"{path}: missing lang_or_pair")
            found = {_retrieval_task(RETRIEVAL_TASKS[task], lang_or_pair, path):
                     _retrieval_scores(data, path)}
        elif task == "t4_classification":
            match = _T4_FILE.search(path.name)
            if not match:
                raise PiIndicResultsError(f"{path}: T4 file name without a language code")
            lang = match["lang"]
            if lang != "all":
                _language(lang, path)
            t4_labels.add(str(data.get("lang_or_pair")))
            found = {f"pi-indic-full/{kind}/{lang}": _t4_scores(data, split, path)
                     for split, kind in T4_SPLITS.items()}
        else:
            raise PiIndicResultsError(f"{path}: unknown task {task!r}")
        for task_id, metrics in found.items():
            if task_id in tasks:
                raise PiIndicResultsError(f"{path}: a second result for {task_id}")
            tasks[task_id] = TaskScores(metrics=metrics)
    if len(backbones) != 1 or len(task_names) != 1:
        raise PiIndicResultsError(f"{folder}: files disagree on backbone {sorted(backbones)} "
                                  f"or task {sorted(task_names)}")
    backbone, task = backbones.pop(), task_names.pop()
    if task == "t4_classification":
        note = ("Compatibility classification (T4): frozen embeddings with a logistic "
                "regression head. Metrics without a prefix are the uncalibrated ('base') "
                "scores, calibrated/ the scores after histogram-binning calibration. Every "
                f"file says lang_or_pair {', '.join(sorted(t4_labels))!r}, yet the files are "
                "named per language and their figures differ, so the language in each task "
                "id is the one in the file name (<model>-<lang>-dev_test-<time>.json).")
    else:
        note = (f"{task}, split {RETRIEVAL_SPLIT}: one file per language (pair), "
                "<model>-<lang_or_pair>-dev-<time>.json.")
    return SystemResult(
        system_id=f"pi-indic-results/{folder.name}",
        model=canonical_model_info(ModelInfo(name=backbone, type="bi-encoder")),
        provenance="reported",
        source=Source(kind="pi-indic-results",
                      citation="PI-Indic-Align authors' published result files "
                               "(aryashah2k/PI-Indic-Align)",
                      url=PI_INDIC_REPO_URL, path=relative, revision=PI_INDIC_COMMIT,
                      note="Scores on the authors' full data set, not the leaderboard's 150 "
                           "validated pairs. " + note),
        tasks=dict(sorted(tasks.items())))


def import_pi_indic_results(results_dir: Path) -> ResultsFile:
    """Import ``<pi-indic>/results`` (the folder of ``<task>-<model>`` folders)."""
    results_dir = Path(results_dir)
    if not results_dir.is_dir():
        problem = "not a folder" if results_dir.exists() else "no such folder"
        raise PiIndicResultsError(f"{results_dir}: {problem}")
    folders = sorted(p for p in results_dir.iterdir() if p.is_dir())
    if not folders:
        raise PiIndicResultsError(f"{results_dir}: no result folders")
    systems = [_folder_row(folder, f"results/{folder.name}") for folder in folders]
    return ResultsFile(kind="reported",
                       produced_by={"generator": "leaderboard.publish.reported.pi_indic_results",
                                    "upstream": f"aryashah2k/PI-Indic-Align@{PI_INDIC_COMMIT}"},
                       systems=systems)
