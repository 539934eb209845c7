"""How a reference model answers a task: its corpus, the rankers (BM25, bi-encoder,
reranker over a first stage) and PI-Indic T4's calibrated compatibility probabilities.

Each ranker ranks every query of a role over the task's corpus (or its candidate pool) and
returns :class:`reference_models.trec.RankedList` values; nothing here writes files.
"""


import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
from threadpoolctl import threadpool_limits

from leaderboard.core.data import iter_corpus
from leaderboard.core.data.pi_indic import T4Pairs, t4_pairs
from leaderboard.core.metrics.classification import (
    ECE_BINS,
    HistogramBinning,
    fit_platt,
    platt_probability,
)
from reference_models.bm25 import Bm25Index, tokenizer_for
from reference_models.cache import VectorCache, item_key
from reference_models.compute import ChunkProgress, compute_cached
from reference_models.distributed import ProcessGroup, Shard
from reference_models.efficiency import EfficiencyMeter
from reference_models.spec import ModelSpec
from reference_models.text import InstructionFormat, linearise_table
from reference_models.trec import RankedList, rank_documents

# Roles a retrieval model answers; "predictions" (PI-Indic T4) are compatibility
# probabilities calibrated from the model's similarity (t4_predictions).
RETRIEVAL_ROLES = ("original", "altered", "run")
PREDICTIONS_ROLE = "predictions"
# Query-side blocks of the dense score matrix: bounds memory at block x corpus floats.
QUERY_BLOCK = 256


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
    def __init__(self, spec: ModelSpec, progress: bool = True,
                 meter: EfficiencyMeter | None = None) -> None:
        assert spec.bm25 is not None
        self.spec = spec
        self.progress = progress
        self.meter = meter or EfficiencyMeter()
        # Each task's index is built anew from its texts: no cache answers any of them.
        self.cache = None
        self._index_key: tuple | None = None
        self._index: Bm25Index | None = None
        self.last_token_count: int | None = None

    def index(self, task, corpus: Corpus) -> Bm25Index:
        # Both roles of a task share one index; the next task builds its own.
        doc_lang = task.doc_language
        key = (task.id, len(corpus.ids), doc_lang)
        if self._index_key != key:
            def build() -> Bm25Index:
                index = Bm25Index(self.spec.bm25, corpus.texts, doc_lang,  # type: ignore[arg-type]
                                  progress=self.progress)
                self.last_token_count = index.tokens
                return index

            # Indexing is BM25's "encoding" of the documents.
            self._index = self.meter.encode(self, corpus.texts, build)
            self._index_key = key
        assert self._index is not None
        return self._index

    def rank(self, task, data, corpus: Corpus, role: str, k: int) -> list[RankedList]:
        index = self.index(task, corpus)
        query_lang = task.query_language
        tokenize = tokenizer_for(self.spec.bm25, query_lang)  # type: ignore[arg-type]
        role_data = data.roles[role]
        out = []
        with self.meter.searching():
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
                 chunk_size: int, log: Callable[[str], None] | None = None,
                 meter: EfficiencyMeter | None = None) -> None:
        self.runner = runner
        self.cache = cache
        self.shard = shard
        self.group = group
        self.chunk_size = chunk_size
        self.log = log  # a line per chunk, with an estimate of the time left
        self.meter = meter or EfficiencyMeter()
        self._doc_vectors: tuple[tuple[str, int], np.ndarray | None] | None = None

    def _encode(self, texts: list[str], max_length: int, desc: str) -> np.ndarray | None:
        keys = [item_key(t, max_length) for t in texts]
        return compute_cached(
            texts, keys, [len(t) for t in texts],
            lambda chunk: self.meter.encode(
                self.runner, chunk, lambda: self.runner.encode(chunk, max_length, desc=desc)),
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
        # One BLAS thread: with more, numpy's BLAS cuts a block among its threads, whose
        # edge kernels sum in another order, and a score's last digits would depend on
        # how many threads the machine allows (the vectors themselves do not).
        with self.meter.searching(), threadpool_limits(limits=1, user_api="blas"):
            for start in range(0, len(qids), QUERY_BLOCK):
                block = query_vectors[start:start + QUERY_BLOCK] @ doc_vectors.T
                for row, qid in enumerate(qids[start:start + QUERY_BLOCK]):
                    positions = candidate_positions(data, corpus, qid)
                    if positions is None:
                        out.append(rank_documents(qid, corpus.ids, block[row], k))
                    else:
                        out.append(rank_documents(qid, corpus.ids[positions],
                                                  block[row][positions], k))
        return out


class RerankRanker:
    """Pointwise reranker over the task's pool, or over a first stage's top ``depth``."""

    def __init__(self, runner, first_stage, cache: VectorCache | None, shard: Shard,
                 group: ProcessGroup, chunk_size: int,
                 log: Callable[[str], None] | None = None,
                 meter: EfficiencyMeter | None = None) -> None:
        self.runner = runner
        self.first_stage = first_stage
        self.cache = cache
        self.shard = shard
        self.group = group
        self.chunk_size = chunk_size
        self.log = log
        self.meter = meter or EfficiencyMeter()

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
                                lambda chunk: self.meter.encode(
                                    self.runner, chunk,
                                    lambda: self.runner.score(chunk, desc=f"rerank ({role})")),
                                self.cache, self.shard, self.group, self.chunk_size,
                                ChunkProgress(f"rerank ({role})", self.log) if self.log
                                else None)
        if scores is None:
            return None
        flat = scores[:, 0] if scores.size else np.empty(0, dtype=np.float32)
        out = []
        with self.meter.searching():
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


def pair_similarities(ranker, task, corpus: Corpus, pairs: T4Pairs) -> np.ndarray:
    """The model's similarity of each (persona, instruction) row of ``pairs``: BM25 score of
    the persona as a query against the instruction, or the dot product of the persona's
    query vector and the instruction's document vector (exactly the T1 scores). None on
    data-parallel ranks other than 0."""
    positions = np.asarray([corpus.position[d] for d in pairs.instruction_id], dtype=np.int64)
    personas = list(pairs.persona_text)
    if isinstance(ranker, Bm25Ranker):
        index = ranker.index(task, corpus)
        query_lang = task.query_language
        tokenize = tokenizer_for(ranker.spec.bm25, query_lang)  # type: ignore[arg-type]
        out = np.empty(len(pairs), dtype=np.float64)
        by_text: dict[str, np.ndarray] = {}
        with ranker.meter.searching():
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
        with ranker.meter.searching():
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
    cal = np.asarray(is_calibration, dtype=bool)
    coefficients = fit_platt(similarity[cal], labels[cal])
    raw = platt_probability(similarity, coefficients)
    binning = HistogramBinning.fit(raw[cal], labels[cal], n_bins=ECE_BINS)
    probabilities = np.clip(binning.apply(raw), 0.0, 1.0)
    return probabilities, {"platt": coefficients,
                           "empty_bins": int(np.isnan(binning.value).sum())}


def t4_predictions(ranker, task, data_dir: Path, corpus: Corpus) -> dict[str, float] | None:
    """pair id -> calibrated compatibility probability for the task's scored (test) pairs."""
    pairs = t4_pairs(task, data_dir, with_text=True, split="all")
    similarity = pair_similarities(ranker, task, corpus, pairs)
    if similarity is None:
        return None
    labels = np.array(pairs.label, dtype=np.int8)
    calibration = np.array(pairs.split) == "calibration"
    probabilities, _ = calibrated_probabilities(similarity, labels, calibration)
    test = ~calibration
    return dict(zip(np.array(pairs.pair_id)[test].tolist(), probabilities[test].tolist()))

