"""What a baseline run writes into ``<out>/<id>/``: metadata.yaml (model, hardware,
software, measured cost) and the run files, installed as one change of the folder.

A run writes into a staging folder first; :func:`install_submission` moves what it wrote
into the submission folder with metadata.yaml, in one transaction
(:func:`leaderboard.submission.transaction.change_folder`), so a run that stops half-way
leaves the folder as it was.
"""


import importlib.metadata
import os
import platform
from pathlib import Path
from typing import Callable, Iterable, Sequence

import yaml
from pydantic import ValidationError

import reference_models
from leaderboard.core.fileio import atomic_write_bytes, atomic_write_text
from leaderboard.core.processes import usable_cpus
from leaderboard.core.refusals import validation_problem
from leaderboard.core.report import Report, plural
from leaderboard.submission.layout import (
    MANIFEST_NAME,
    METADATA_NAME,
    PREDICTION_SUFFIXES,
    RUN_SUFFIXES,
    RUNS_DIR,
    Writer,
    written_by,
)
from leaderboard.submission.manifest import load_manifest
from leaderboard.submission.metadata import Metadata, parse_metadata_yaml
from leaderboard.submission.transaction import change_folder
from reference_models.efficiency import known
from reference_models.errors import ReferenceRunError
from reference_models.spec import ModelSpec

# ----------------------------------------------------------------------------- metadata


def cpu_model() -> str:
    """The CPU's model name as the kernel reports it (platform's guess elsewhere)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def hardware_description(device: str, gpus: int = 1) -> str:
    """The CPU (model, the cores the run may use) and, on a GPU run, the GPU model and how many ran it
    (``gpus``: one per rank under torchrun)."""
    hardware = f"{cpu_model()} ({plural(usable_cpus(), 'CPU core')})"
    if device.startswith("cuda"):
        import torch

        hardware += f", {gpus}x {torch.cuda.get_device_name(torch.device(device))}"
    return hardware


def software_description() -> str:
    versions = [f"Python {platform.python_version()}"]
    for dist in ("torch", "transformers", "tokenizers", "huggingface-hub", "bm25s",
                 "PyStemmer", "numpy"):
        try:
            versions.append(f"{dist} {importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    versions.append(f"reference_models {reference_models.__version__}")
    return ", ".join(versions)


def environment_description(device: str, dtype: str | None, gpus: int = 1) -> str:
    """Hardware and software a run was produced with, in one line."""
    where = f"device {device}" + (f", {dtype}" if dtype else "")
    return f"{hardware_description(device, gpus)}; {where}; {software_description()}"


def build_metadata(spec: ModelSpec, submission_id: str, *, parameters: int | None,
                   revision: str | None, contact: str, produced_by: str,
                   hardware: str | None = None, owner: str | None = None,
                   efficiency: dict | None = None) -> dict:
    """metadata.yaml content, exactly the keys of the engine's submission schema. A value
    not known (whether the model was trained to follow instructions, its parameters) is
    left out: an absent key is "not stated", which the site shows as unknown."""
    metadata: dict = {"id": submission_id}
    if owner:
        metadata["owner"] = owner
    # What is not known is left out, as efficiency blocks leave it: metadata.yaml records
    # no nulls (BM25 has no parameters to count).
    model = known({"name": spec.name, "type": spec.type, "parameters": parameters,
                   "instruction_trained": spec.instruction_trained, "links": list(spec.links),
                   "licence": spec.licence, "revision": revision})
    metadata.update({
        "model": model,
        "contact": contact,
        "produced_by": produced_by,
    })
    if hardware:
        metadata["hardware"] = hardware
    if efficiency:
        metadata["efficiency"] = efficiency
    return metadata


def metadata_problems(spec: ModelSpec, submission_id: str, *, contact: str,
                      owner: str | None) -> list[str]:
    """Why the metadata.yaml a run of ``spec`` would write is one that validation (and CI)
    refuses ("model.name: ..."), empty when it is not: what the run will know only later
    (the weights' revision, the parameters, how it was produced) is left out of the
    check. Asked before the model runs, so that a name, link or contact that cannot be
    committed stops it at once rather than after every text is encoded."""
    draft = build_metadata(spec, submission_id, parameters=None, revision=None,
                           contact=contact, produced_by="leaderboard baselines run",
                           owner=owner)
    try:
        Metadata.model_validate(draft)
    except ValidationError as exc:
        return [validation_problem(error, Metadata) for error in exc.errors()]
    return []


def existing_metadata(folder: Path) -> dict:
    """The folder's metadata.yaml as read ({} when there is none). One that cannot be read
    is refused, naming the file and line, not replaced: it names the model, produced_by
    lines and cost figures of the runs the folder keeps."""
    path = folder / METADATA_NAME
    if not path.is_file():
        return {}
    try:
        data = parse_metadata_yaml(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ReferenceRunError(f"{path}: not UTF-8 text; fix it, or remove the folder") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ReferenceRunError(f"{where}: invalid YAML ({problem}); fix it, or remove the "
                                "folder") from None
    except RecursionError:
        raise ReferenceRunError(f"{path}: invalid YAML (nested too deeply); fix it, or "
                                "remove the folder") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ReferenceRunError(f"{path}:1: metadata.yaml must be a mapping of keys to values; "
                                "fix it, or remove the folder")
    return data


def metadata_lines(metadata: dict, key: str, separator: str = "\n") -> list[str]:
    text = metadata.get(key)
    return [part.strip() for part in str(text).split(separator) if part.strip()] if text else []


def run_file(folder: Path, task_id: str, role: str) -> Path:
    return folder / RUNS_DIR / task_id / f"{role}.trec.gz"


def kept_tasks(folder: Path, task_ids: Iterable[str]) -> list[str]:
    """The tasks other than ``task_ids`` whose runs the submission in ``folder`` holds,
    in the folder or listed in its manifest (their files in the run store): what a run of
    ``task_ids`` keeps, whose model, produced_by lines and cost figures stay its own."""
    held = set()
    runs = folder / RUNS_DIR
    if runs.is_dir():
        held = {p.parent.relative_to(runs).as_posix() for p in runs.rglob("*") if p.is_file()}
    listed = load_manifest(folder, Report(), MANIFEST_NAME)  # a bad one: scoring says so
    if listed is not None:
        held |= {rel.rsplit("/", 1)[0].removeprefix(RUNS_DIR + "/") for rel in listed.entries}
    return sorted(held - set(task_ids))


def check_same_model(folder: Path, name: str, revision: str, task_ids: Iterable[str]) -> None:
    """Refuse to add runs to a folder whose other runs came from another model (another
    name or weights): the submission would mix two models under one name."""
    existing = existing_metadata(folder)
    model = existing.get("model") if isinstance(existing.get("model"), dict) else {}
    if not model or not kept_tasks(folder, task_ids):
        return
    theirs = (model.get("name"), str(model.get("revision")))
    if theirs != (name, revision):
        raise ReferenceRunError(f"{folder} holds runs of {theirs[0]} (revision {theirs[1]}), "
                                f"not of {name} (revision {revision}); choose another "
                                "submission id, or remove that folder")


def install_submission(staging: Path, folder: Path, written: Sequence[Path], metadata: dict,
                       then: Callable[[Path], object] | None = None,
                       first: Callable[[Path], object] | None = None) -> list[Path]:
    """Move the files ``written`` (relative to ``staging``) into ``folder``, then write
    metadata.yaml: the one step where a finished run becomes the submission folder, one
    change of it (:func:`leaderboard.submission.transaction.change_folder`) with what
    ``then`` does to the new folder before it is switched in (scoring it).

    The scorer's files go first (results.json and the per-query scores no longer describe
    the folder; scoring writes them again), and with each run file any other file for the
    same task and role (``original.trec`` beside a new ``original.trec.gz``). Files of
    tasks this run did not cover stay. ``first`` checks the folder as it is once this
    command holds it (another run may have changed it since this one started: a check made
    before encoding let two models' runs into one submission), raising to leave it as it
    is. Returns the installed paths."""
    with change_folder(folder, create=True) as change:
        copy = change.folder
        if first is not None:
            first(copy)
        for scored in written_by(Writer.SCORER):
            (copy / scored.name).unlink(missing_ok=True)
        for relative in written:
            target = copy / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            role = target.name.split(".", 1)[0]
            for sibling in target.parent.iterdir():
                if sibling != target and sibling.name in {
                        role + s for s in RUN_SUFFIXES + PREDICTION_SUFFIXES}:
                    sibling.unlink()
            try:
                os.replace(staging / relative, target)
            except OSError:  # another file system: copy, still atomically
                atomic_write_bytes(target, (staging / relative).read_bytes())
        _write_metadata(copy / METADATA_NAME, metadata)
        if then is not None:
            then(copy)
        change.commit()
    return [folder / relative for relative in written]



def _write_metadata(path: Path, metadata: dict) -> None:
    text = yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True, width=100)
    atomic_write_text(path, text)

