"""`leaderboard baselines measure`: what a submitted model costs, measured again on a
stated sample of each task's texts, without touching its runs.

A full re-encoding can take hours on a CPU (the multilingual e5 took 3 h 23 min on WQT),
so a submission whose runs were written before the efficiency meter existed gets its
``efficiency:`` block from a measurement of the same ranker code on a seeded sample:
at most ``documents`` documents of each task's corpus (a reranking task: the pools of
the sampled queries) and ``queries`` queries of each role, with no embedding cache. The
answers are computed and dropped; only metadata.yaml's ``efficiency:`` block changes,
every other line of the file as it was. A task at most that large is measured whole.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import yaml
from pydantic import ValidationError

from leaderboard.core.data import load_task_data
from leaderboard.core.fileio import atomic_write_text
from leaderboard.core.refusals import validation_problem
from leaderboard.core.report import Report
from leaderboard.submission.folder import collect_inputs
from leaderboard.submission.layout import METADATA_NAME, RUNS_DIR
from leaderboard.submission.metadata import Metadata, load_metadata
from leaderboard.submission.transaction import change_folder
from reference_models.baseline_run import (
    RunOptions,
    answer_task,
    make_ranker,
    select_tasks,
)
from reference_models.distributed import Shard
from reference_models.efficiency import (
    EfficiencyMeter,
    efficiency_block,
    efficiency_conflict,
    entry_keys,
    hardware_record,
    merged_block,
)
from reference_models.errors import ReferenceRunError
from reference_models.folder_writer import cpu_model
from reference_models.rankers import (
    PREDICTIONS_ROLE,
    Corpus,
    load_corpus,
    with_instruction_format,
)
from reference_models.spec import ModelSpec, get_model_spec


@dataclasses.dataclass(frozen=True)
class Sample:
    documents: int = 200
    queries: int = 50
    seed: int = 0


def _pick(n: int, at_most: int, rng: np.random.Generator) -> np.ndarray:
    """Sorted positions of a uniform sample of ``at_most`` of ``n`` (all when n fits)."""
    if n <= at_most:
        return np.arange(n)
    return np.sort(rng.choice(n, size=at_most, replace=False))


def sampled(task, data, corpus: Corpus, sample: Sample) -> tuple[object, Corpus, str | None]:
    """The task's data and corpus cut to the sample, and the sample's description (None:
    the whole task). PI-Indic T4 pairs every persona with every instruction of its corpus,
    so it is measured whole."""
    if PREDICTIONS_ROLE in task.roles:
        return data, corpus, None
    rng = np.random.default_rng(sample.seed)
    roles = {}
    parts = []
    for name, role in data.roles.items():
        keep = [role.query_ids[i] for i in _pick(len(role.query_ids), sample.queries, rng)]
        roles[name] = dataclasses.replace(role, query_ids=keep)
        if len(keep) < len(role.query_ids):
            parts.append(f"{len(keep)} of {len(role.query_ids)} {name} queries")
    if data.pools is not None:
        # A reranking task ranks each query's pool: keep the sampled queries' pools whole.
        wanted = sorted({d for r in roles.values() for q in r.query_ids
                         for d in data.pools[q].tolist()})
        positions = np.asarray([corpus.position[d] for d in wanted], dtype=np.int64)
        what = f"their pools' {len(positions)} of {len(corpus.ids)} documents"
    else:
        positions = _pick(len(corpus.ids), sample.documents, rng)
        what = f"{len(positions)} of {len(corpus.ids)} documents"
    if len(positions) < len(corpus.ids):
        parts.insert(0, what)
    data = dataclasses.replace(data, roles=roles)
    if not parts:
        return data, corpus, None
    cut = Corpus(corpus.ids[positions], [corpus.texts[i] for i in positions.tolist()])
    return data, cut, (f"a uniform sample (seed {sample.seed}): " + ", ".join(parts)
                       + "; search over the sampled documents only")


def measure_reference_model(model: str | ModelSpec, task_patterns: Sequence[str],
                            data_dir: Path, sample: Sample, command: str,
                            log=print,  # noqa: ANN001 - a print-like callable
                            check: Callable[[dict], object] | None = None) -> dict:
    """The ``efficiency:`` block of ``model`` on the selected tasks, measured on a sample.
    ``check`` is handed the block as it will be, its entries empty, once the model is
    loaded and before anything is measured (it raises to stop there)."""
    spec = model if isinstance(model, ModelSpec) else get_model_spec(model)
    tasks = select_tasks(task_patterns)
    meter = EfficiencyMeter()
    options = RunOptions(device="cpu", use_cache=False, progress=False)
    ranker, device, dtype, *_ = make_ranker(spec, options, Shard(), meter)
    hardware = hardware_record(cpu_model(), device, dtype or "not applicable")
    today = time.strftime("%Y-%m-%d", time.gmtime())
    if check is not None:
        draft = efficiency_block(meter, hardware, measured_by=command, embedding_cache=False,
                                 date=today)
        check({**draft, "tasks": {k: {} for k in entry_keys([t.id for t in tasks])}})
    for number, task in enumerate(tasks, 1):
        data = with_instruction_format(load_task_data(task, Path(data_dir)),
                                       options.instruction_format)
        corpus = load_corpus(task, Path(data_dir))
        data, corpus, description = sampled(task, data, corpus, sample)
        with meter.task(task.id, sample=description or "the whole task") as cost:
            answer_task(task, data, corpus, ranker, Path(data_dir), None, [], spec.id)
        log(f"[{number}/{len(tasks)}] {task.id}: encode {cost.encode_seconds:.1f} s, "
            f"search {cost.search_seconds:.2f} s, {cost.texts} texts, load {cost.load_average}")
    return efficiency_block(meter, hardware, measured_by=command, embedding_cache=False,
                            date=today)


def _block_lines(lines: list[str], key: str) -> tuple[int, int] | None:
    """The lines [start, end) of a top-level ``key`` of a YAML mapping's text."""
    start = next((i for i, line in enumerate(lines) if line.startswith(f"{key}:")), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].strip() and not lines[i][0].isspace()), len(lines))
    return start, end


def without_block(text: str, key: str) -> str:
    """metadata.yaml's text without its top-level ``key``, every other line as written."""
    lines = text.splitlines(keepends=True)
    span = _block_lines(lines, key)
    if span is not None:
        del lines[span[0]:span[1]]
    return "".join(lines)


def with_block(text: str, key: str, value: object) -> str:
    """metadata.yaml's text with its top-level ``key`` set to ``value``: the key's lines
    replaced (or appended), every other line kept as it was written."""
    lines = text.splitlines(keepends=True)
    span = _block_lines(lines, key)
    if span is not None:
        del lines[span[0]:span[1]]
        start = span[0]
    else:
        start = len(lines)
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
    block = yaml.safe_dump({key: value}, sort_keys=False, allow_unicode=True, width=100)
    lines[start:start] = [block]
    return "".join(lines)


def measured_folder_problem(folder: Path, model_name: str, task_ids: Sequence[str]) -> str | None:
    """Why ``folder`` cannot take a measurement of the model named ``model_name`` on
    ``task_ids`` (None: it can): its metadata.yaml must read as valid metadata, name that
    model, and the submission must hold runs of those tasks (in the folder or listed in
    its manifest). Any folder took any model's figures, for tasks it had no runs of, and a
    broken metadata.yaml stopped the command after the measurement with an internal error."""
    path = folder / METADATA_NAME
    if not path.is_file():
        return f"{path}: no metadata.yaml to record the measurement in"
    report = Report()
    meta = load_metadata(path, str(path), report)
    if meta is None:
        return "; ".join(report.lines())
    if meta.model.name != model_name:
        return (f"{path}: the submission's model is {meta.model.name!r}, not {model_name!r}: "
                "measure the model whose runs it holds")
    # The run files the folder holds or its manifest lists, as every reader finds them.
    held = {rel.rsplit("/", 1)[0].removeprefix(RUNS_DIR + "/")
            for rel in collect_inputs(folder, Report(), record_local=True).merged.entries}
    missing = [t for t in task_ids if not (  # a family's entry, <family>/*, or a task id
        any(h.startswith(t[:-1]) for h in held) if t.endswith("/*") else t in held)]
    if missing:
        return (f"{folder}: the submission has no runs of {', '.join(missing)}: measure the "
                "tasks it was run on")
    return None


def record_efficiency(folder: Path, block: dict, model_name: str,
                      then: Callable[[Path], object] | None = None,
                      replace: bool = False) -> Path:
    """Write ``block`` as ``efficiency:`` of the submission's metadata.yaml, with the
    earlier block's figures of other tasks when they were measured alike
    (:func:`reference_models.efficiency.merged_block`; otherwise refused, unless
    ``replace`` drops them), checking first that the result still reads as the same
    metadata: one change of the folder
    (:func:`leaderboard.submission.transaction.change_folder`), with what ``then`` does to
    the new folder before it is switched in (rescoring it, since results.json records
    metadata.yaml's digest)."""
    with change_folder(folder) as change:
        path = change.folder / METADATA_NAME
        problem = measured_folder_problem(change.folder, model_name, sorted(block["tasks"]))
        if problem:  # checked again now that this command holds the folder
            raise ReferenceRunError(problem.replace(str(change.folder), str(folder)))
        text = path.read_text(encoding="utf-8")
        before = yaml.safe_load(text)
        if not replace:
            problem = efficiency_conflict(folder / METADATA_NAME, before.get("efficiency"),
                                          block)
            if problem:
                raise ReferenceRunError(problem)
            block = merged_block(before.get("efficiency"), block)
        updated = with_block(text, "efficiency", block)
        after = yaml.safe_load(updated)
        if {k: v for k, v in after.items() if k != "efficiency"} != \
                {k: v for k, v in before.items() if k != "efficiency"}:
            raise ReferenceRunError(f"{folder / METADATA_NAME}: writing the efficiency block "
                                    "would change other keys")
        try:
            Metadata.model_validate(after)
        except ValidationError as exc:
            problem = validation_problem(exc.errors()[0], Metadata)
            raise ReferenceRunError(f"{folder / METADATA_NAME}: the efficiency block would be "
                                    f"refused ({problem})") from None
        atomic_write_text(path, updated)
        if then is not None:
            then(change.folder)
        change.commit()
    return folder / METADATA_NAME
