"""The query explorer's record of a scored task, built from the arrays scoring used.

:func:`leaderboard.core.explain.explain_task` opens a task up query by query: a
:class:`~leaderboard.core.explain.QueryCard` per query, a
:class:`~leaderboard.core.explain.RankedDoc` per document at the top of each run, a
:class:`~leaderboard.core.explain.DocMove` per judged document; and
:func:`~leaderboard.core.explain.explanation_record` turns those into the compact record
the explorer's files hold. That is the plain version, and what `leaderboard explain`
shows. Scoring a submission writes the record of every task (50,000 cards for a
submission of every task), where building those objects and serialising them card by
card was most of the cost of scoring. :func:`task_record` gives the same record (each
card's JSON text equal to the plain version's, which the tests hold it to) straight
from what scoring already computed (:class:`leaderboard.core.scoring.RankedTask`):

* the top of each run is a slice of the ranked arrays (a :class:`RankedRun` holds each
  query's rows in rank order, so a query's top k are its first k rows: no sort, not
  even a partial one), gathered for every query of the task at once;
* a pair's judged documents, their ranks in both runs, their p-MRR terms and IRS gains
  and IRS's parts come from the scorer's arrays
  (:class:`leaderboard.core.metrics.instruction.PairRanks`), looked up once for scoring
  and explaining, and are turned into text once per task;
* each card is written as JSON text directly (the encoder's own string escaping,
  ``float.__repr__`` for numbers, keys in sorted order), never as nested lists that a
  JSON encoder then walks;
* the query list takes the score sheet's per-query figures a metric at a time.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring

import numpy as np

from leaderboard.core.data.base import TaskData
from leaderboard.core.explain import (
    EXPLAIN_FORMAT,
    IRS_FIELDS,
    MOVE_FIELDS,
    TOP_FIELDS,
    TOP_K,
    persona_pairs,
)
from leaderboard.core.metrics.instruction import PairRanks, irs_weights
from leaderboard.core.metrics.ranking import JudgedRows, RankedRun
from leaderboard.core.predictions import Predictions
from leaderboard.core.scoring import RankedTask, ScoreSheet
from leaderboard.core.tasks import Task

#: The JSON of every explanation file: compact, keys sorted, non-ASCII characters as
#: themselves, no NaN (the manifest names each file by the SHA-256 of this text).
FILE_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"),
                             sort_keys=True)


@dataclass
class ExplainRecord:
    """A task's explanation record as its files hold it: the fields of
    :func:`leaderboard.core.explain.explanation_record` but the cards (``head``), and
    each card's JSON text (:data:`FILE_JSON`), by query in the list's order."""

    head: dict
    cards: dict[str, str]

    @classmethod
    def of(cls, record: dict) -> ExplainRecord:
        """The plain record (:func:`~leaderboard.core.explain.explanation_record`), its
        cards serialised one by one."""
        return cls({k: v for k, v in record.items() if k != "cards"},
                   {q: FILE_JSON.encode(card) for q, card in record["cards"].items()})


def task_record(task: Task, data: TaskData, sheet: ScoreSheet, ranked: RankedTask | None,
                predictions: Predictions | None = None) -> ExplainRecord:
    """``ExplainRecord.of(explanation_record(explain_task(task, data, sheet, runs,
    predictions)))`` for the runs ``ranked`` was ranked from (or ``predictions``, T4),
    from the arrays."""
    if task.candidates == "pairs":
        (metrics, queries), cards = _pairs_cards(task, data, sheet, predictions)
    elif ranked is None:
        raise ValueError(f"{task.id} is explained from its runs")
    elif ranked.pairs is not None:
        (metrics, queries), cards = _paired_cards(task, data, sheet, ranked.pairs,
                                                  ranked.judged)
    else:
        (metrics, queries), cards = _single_cards(data, sheet, ranked.runs["run"],
                                                  ranked.judged["run"])
    return ExplainRecord({
        "format": EXPLAIN_FORMAT, "task": task.id, "primary": task.primary_metric,
        "metrics": metrics, "queries": queries,
        "fields": {"move": list(MOVE_FIELDS), "top": list(TOP_FIELDS),
                   "irs": list(IRS_FIELDS)},
    }, cards)


def _query_list(sheet: ScoreSheet, query_ids: Sequence[str],
                originals: Sequence[str] | None = None,
                groups: Sequence[str | None] | None = None) -> tuple[list[str], list[list]]:
    """The metrics any query has a figure for (sorted) and the list's rows ``[query,
    original query, group, figures]``; an original-run metric is the original query's."""
    columns: dict[str, list] = {}
    for key, values in sheet.per_query.items():
        owners = originals if originals is not None and key.startswith("original/") \
            else query_ids
        if any(own in values for own in owners):
            columns[key] = [values.get(own) for own in owners]
    metrics = sorted(columns)
    figures = [list(row) for row in zip(*(columns[k] for k in metrics))] if metrics \
        else [[] for _ in query_ids]
    n = len(query_ids)
    originals = originals if originals is not None else [None] * n
    groups = groups if groups is not None else [None] * n
    return metrics, [[q, o, g, f] for q, o, g, f in zip(query_ids, originals, groups,
                                                           figures)]


def _top_rows(run: RankedRun, codes: np.ndarray, k: int = TOP_K
              ) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the first ``k`` documents of each query code's ranking (none for -1),
    all queries' one after the other, and how many each has: one gather from the ranked
    arrays, no sort."""
    if not run.seg_len.shape[0] or not codes.shape[0]:
        return np.zeros(0, dtype=np.int64), np.zeros(codes.shape[0], dtype=np.int64)
    safe = np.maximum(codes, 0)
    counts = np.where(codes >= 0, np.minimum(run.seg_len[safe], k), 0)
    ends = np.cumsum(counts)
    starts = np.where(codes >= 0, run.seg_start[safe], 0)
    rows = np.repeat(starts - (ends - counts), counts) + np.arange(int(ends[-1]))
    return rows, counts


Slot = "Sequence[dict] | JudgedRows"


def _top_json(run: RankedRun, codes: np.ndarray, *slots: Slot) -> list[str]:
    """Each query's top documents (query index i has run code ``codes[i]``) as JSON
    text, ``[[doc, judged_query, judged_instruction, pair_role], ...]``: each slot's
    value is query i's ``slot[i].get(doc)``, or, for a slot given as the run's own
    judged rows (:class:`JudgedRows`, scoring's lookup of the judgments the run is
    scored on), the judgment of the entry's row, with no lookup at all; null where the
    slot has none or is not given. Each distinct document is escaped once and every
    entry is one f-string."""
    rows, counts = _top_rows(run, codes)
    entry_doc = run.d_codes[rows]
    distinct, which = np.unique(entry_doc, return_inverse=True)
    names = run.d_names[distinct].astype(object)
    entry_esc = np.array(list(map(encode_basestring, names.tolist())) or [""],
                         dtype=object)[which].tolist()
    lookups: dict[str, list] = {}
    written: dict[tuple[type, object], str] = {}  # judgments and roles: a few values

    def texts(slot: Slot) -> list[str]:
        if isinstance(slot, JudgedRows):
            judgment_at = np.full(run.q_codes.shape[0], -1, dtype=np.int64)
            ranked = np.flatnonzero(slot.rows >= 0)
            judgment_at[slot.rows[ranked]] = ranked
            found = judgment_at[rows]
            out = ["null"] * rows.shape[0]
            grades = slot.grades
            for entry, k in zip(np.flatnonzero(found >= 0).tolist(),
                                found[found >= 0].tolist()):
                out[entry] = _value_text(grades[k], written)
            return out
        if not lookups:
            lookups["query"] = np.repeat(np.arange(codes.shape[0]), counts).tolist()
            lookups["name"] = names[which].tolist()
        found = [slot[i].get(d) for i, d in zip(lookups["query"], lookups["name"])]
        return ["null" if v is None else _value_text(v, written) for v in found]

    if len(slots) == 1:
        entries = [f"[{e},{j},null,null]" for e, j in zip(entry_esc, texts(slots[0]))]
    else:
        entries = [f"[{e},{j},{u},{r}]" for e, j, u, r in zip(
            entry_esc, *(texts(slot) for slot in slots))]
    ends = np.cumsum(counts).tolist()
    return ["[" + ",".join(entries[e - c:e]) + "]" for e, c in zip(ends, counts.tolist())]


# --------------------------------------------------------------------------- JSON text
# Scalars as FILE_JSON writes them: its own string escaping, int.__repr__ and
# float.__repr__ (no NaN or infinity: the arrays are checked once, as a whole).

def _value(value: object) -> str:
    """One judgment or pair role as FILE_JSON writes it."""
    if value is None:
        return "null"
    if type(value) is int:
        return int.__repr__(value)
    if type(value) is str:
        return encode_basestring(value)
    return FILE_JSON.encode(value)  # anything else exactly as the encoder writes it


def _float_texts(values: np.ndarray) -> list[str]:
    """``float.__repr__`` of each value, each distinct value written once.

    A FollowTable task's 55,000 p-MRR terms and IRS gains hold 3,100 and 4,400
    distinct values; writing each took 50 of the task's 150 ms of explanation cards.
    Values are told apart by their bits, so 0.0 and -0.0 keep their own texts."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    if values.shape[0] < 64:
        return list(map(float.__repr__, values.tolist()))
    bits, which = np.unique(values.view(np.int64), return_inverse=True)
    texts = np.array(list(map(float.__repr__, bits.view(np.float64).tolist())), dtype=object)
    return texts[which].tolist()


def _value_text(value: object, written: dict[tuple[type, object], str]) -> str:
    """:func:`_value` of ``value``, kept in ``written`` by type and value (1 and 1.0
    are equal keys, and are written differently). Floats are written each time: 0.0 and
    -0.0 are equal keys too."""
    if type(value) is float:
        return _value(value)
    key = (type(value), value)
    try:
        return written[key]
    except KeyError:
        text = written[key] = _value(value)
        return text
    except TypeError:  # unhashable: written each time
        return _value(value)


def _finite(*arrays: np.ndarray) -> None:
    for values in arrays:
        if not np.isfinite(values).all():
            raise ValueError("Out of range float values are not JSON compliant")


def _single_cards(data: TaskData, sheet: ScoreSheet, run: RankedRun, judged: JudgedRows
                  ) -> tuple[tuple[list[str], list[list]], dict[str, str]]:
    role = data.roles["run"]
    query_ids = role.query_ids
    codes = run.query_codes(query_ids)
    lengths = run.lengths_of_codes(codes).tolist()
    # The relevant documents (grade > 0) of each query, in its judgments' order, and
    # their ranks: scoring's lookup of the judged documents (0: not ranked).
    relevant = np.flatnonzero(np.asarray(judged.grades, dtype=np.float64) > 0)
    rows = judged.rows[relevant]
    found = rows >= 0
    ranks = np.zeros(rows.shape[0], dtype=np.int64)
    ranks[found] = run.rank_of_rows(rows[found])
    ends = np.cumsum(np.bincount(judged.query_idx[relevant],
                                 minlength=len(judged.query_ids))).tolist()
    docs = [judged.docs[k] for k in relevant.tolist()]
    rank_list = ranks.tolist()
    where = {q: i for i, q in enumerate(judged.query_ids)}
    tops = _top_json(run, codes, judged)
    cards: dict[str, str] = {}
    for query, length, top in zip(query_ids, lengths, tops):
        i = where[query]
        start, end = (ends[i - 1] if i else 0), ends[i]
        # Keys in sorted order: c, n, top.
        changed = ",".join([f'[{encode_basestring(d)},null,{r or "null"},0,0,null,null]'
                            for d, r in zip(docs[start:end], rank_list[start:end])])
        cards[query] = ((f'{{"c":[{changed}],' if end > start else "{")
                        + f'"n":{{"run":{length}}},"top":{{"run":{top}}}}}')
    return _query_list(sheet, query_ids), cards


def _paired_cards(task: Task, data: TaskData, sheet: ScoreSheet, ranks: PairRanks,
                  judged_rows: dict[str, JudgedRows]
                  ) -> tuple[tuple[list[str], list[list]], dict[str, str]]:
    query_ids = data.roles["altered"].query_ids
    if tuple(query_ids) != ranks.query_ids:
        raise ValueError(f"{task.id}: the pair ranks are of other queries")
    with_irs = "IRS" in task.pair_metrics
    judged = (ranks.changed,) if ranks.positive is None else (ranks.positive, ranks.changed)
    split = ranks.split
    len_og, len_new = ranks.lengths
    pair_idx = np.concatenate([j.pair_idx for j in judged])
    r_og, r_new = ranks.r_og, ranks.r_new

    # As leaderboard.core.explain._explain_paired computes them, for all pairs at once.
    p_og = np.where(r_og > 0, r_og, len_og[pair_idx] + 1.0)
    p_new = np.where(r_new > 0, r_new, len_new[pair_idx] + 1.0)
    answered = (len_og[pair_idx] > 0) & (len_new[pair_idx] > 0)
    p_term = np.where(answered, np.where(p_og >= p_new, p_new / p_og - 1.0,
                                         1.0 - p_og / p_new), 0.0)
    absent = float(data.corpus_size + 1)
    gain = (irs_weights(np.where(r_new > 0, r_new, absent))
            - irs_weights(np.where(r_og > 0, r_og, absent)))
    gain[split:] *= -1.0
    gain = np.where(answered, gain, 0.0)
    _finite(p_term, gain)

    # Each (pair, document) entry as a move's JSON: [doc, rank_original, rank_altered,
    # p_mrr_rank_original, p_mrr_rank_altered, p_mrr, irs_gain].
    names = np.concatenate([j.names[j.doc_idx] for j in judged]).tolist()
    gains = _float_texts(gain) if with_irs else ["null"] * len(names)
    terms = ["null"] * split + _float_texts(p_term[split:])
    # A rank of 0 (not ranked) is written null.
    moves = [f'[{d},{a or "null"},{b or "null"},{c},{e},{t},{g}]'
             for d, a, b, c, e, t, g in zip(
                 map(encode_basestring, names), r_og.astype(np.int64).tolist(),
                 r_new.astype(np.int64).tolist(), p_og.astype(np.int64).tolist(),
                 p_new.astype(np.int64).tolist(), terms, gains)]
    n = len(query_ids)
    neg_bounds = (np.searchsorted(pair_idx[split:], np.arange(n + 1)) + split).tolist()
    pos_bounds = np.searchsorted(pair_idx[:split], np.arange(n + 1)).tolist()
    parts: list[str] | None = None
    if ranks.positive is not None:
        s, s_ideal, s_worst = ranks.irs_parts
        scale = np.where(s >= 0, np.where(s_ideal > 0, s_ideal, 0.0),
                         np.where(s_worst < 0, np.abs(s_worst), 0.0))
        _finite(s, s_ideal, s_worst, scale)
        parts = ["[" + ",".join(map(float.__repr__, row)) + "]" for row in zip(
            s.tolist(), s_ideal.tolist(), s_worst.tolist(), scale.tolist())]

    original_role, altered_role = data.roles["original"], data.roles["altered"]
    topics = [data.pairs[q] for q in query_ids]
    # The top of both runs: each document with its judgment under the original query
    # and under the altered one, and its role in the pair (a changed document's role
    # given after, so over, a T+ one's).
    by_query = [original_role.qrels.get(topic, {}) for topic in topics]
    by_instruction = [altered_role.qrels.get(q, {}) for q in query_ids]
    roles: list[dict[str, str]] = [{} for _ in query_ids]
    for i, name in zip(pair_idx[:split].tolist(), names[:split]):
        roles[i][name] = "positive"
    for i, name in zip(pair_idx[split:].tolist(), names[split:]):
        roles[i][name] = "changed"
    # Each run's own judgments are read off scoring's lookup of them (by row); the other
    # role's, per document.
    tops = {"original": _top_json(ranks.original, ranks.orig_code,
                                  judged_rows["original"], by_instruction, roles),
            "altered": _top_json(ranks.altered, ranks.alt_code, by_query,
                                 judged_rows["altered"], roles)}
    cards: dict[str, str] = {}
    for i, (query, n_og, n_new, top_og, top_new) in enumerate(zip(
            query_ids, len_og.tolist(), len_new.tolist(), tops["original"], tops["altered"])):
        lo, hi = neg_bounds[i], neg_bounds[i + 1]
        pos_lo, pos_hi = pos_bounds[i], pos_bounds[i + 1]
        # Keys in sorted order: c, n, p, s, top (and within n and top: altered, original).
        text = "{"
        if hi > lo:
            text += '"c":[' + ",".join(moves[lo:hi]) + "],"
        text += f'"n":{{"altered":{n_new},"original":{n_og}}},'
        if pos_hi > pos_lo:
            text += '"p":[' + ",".join(moves[pos_lo:pos_hi]) + "],"
        if parts is not None:
            text += f'"s":{parts[i]},'
        text += f'"top":{{"altered":{top_new},"original":{top_og}}}}}'
        cards[query] = text
    groups = [data.groups.get(q) for q in query_ids]
    return _query_list(sheet, query_ids, topics, groups), cards


def _pairs_cards(task: Task, data: TaskData, sheet: ScoreSheet,
                 predictions: Predictions | None
                 ) -> tuple[tuple[list[str], list[list]], dict[str, str]]:
    """T4: a row per persona, whose card lists its pairs
    (:func:`leaderboard.core.explain.persona_pairs`)."""
    by_persona = persona_pairs(task, data, sheet, predictions)
    cards = {persona: FILE_JSON.encode({"n": {}, "pairs": pairs} if pairs else {"n": {}})
             for persona, pairs in by_persona.items()}
    return _query_list(sheet, list(by_persona)), cards
