"""Why a run follows an instruction or not: the per-query list and the query card.

The engine (:mod:`leaderboard.core.scoring`) gives each query one figure per metric. This
module opens those figures up, query by query, from the same ranked runs:

* the **query list** of a task: every scored query (a FollowIR/mFollowIR query or a
  FollowTable pair under its altered instruction, a PI-Indic persona or instruction, a
  T4 pair) with the engine's per-query figures and its constraint type;
* the **query card** of one query: its texts under both instructions, every document
  whose judgment the instruction changed (p-MRR's changed documents, FollowTable's T-)
  and every instruction-compliant table (FollowTable's T+), each with its rank in the
  original and in the altered run and its term in the query's p-MRR and IRS, and the
  top of both runs with their judgments.

Ranks are the engine's (score descending, docid descending on ties). A changed
document a run leaves out has no rank there; p-MRR places it right after the run's last
document and IRS at N + 1 (N = corpus size), and the card gives both the missing rank
and the rank the metric used.

The per-query figures a card shows are the engine's own (the score sheet's); its
per-document terms are computed here for the whole task at once from the ranks the
metrics module looks up, and add up to those figures: a query's p-MRR is the mean of
its changed documents' terms, its IRS the sum of its documents' gains over the IRS
normaliser. :func:`reference_card` computes a card from plain lists of run lines, one
document at a time, and the tests hold :func:`explain_task` to it and to the engine.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from leaderboard.core.data.base import TaskData
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.graphemes import cut_between_clusters
from leaderboard.core.metrics.instruction import (
    JudgedDocs,
    irs_parts,
    irs_weights,
    judged_docs,
    pair_ranks,
)
from leaderboard.core.metrics.ranking import RankedRun
from leaderboard.core.predictions import Predictions
from leaderboard.core.runs.columns import ParsedRun
from leaderboard.core.scoring import ScoreSheet
from leaderboard.core.tasks import Task

#: How many documents of each run a card lists from the top.
TOP_K = 10


class UnknownQueryError(FollowBoardError, KeyError):
    """A query id the task does not score; the message names close ids."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class DocMove:
    """One judged document of a pair: where each run puts it and what it adds.

    ``rank_*`` is None where the run does not rank the document. ``p_mrr_rank_*`` are
    the ranks p-MRR uses (a missing document right after the run's last one); IRS uses
    N + 1 for a missing document. ``p_mrr`` is the document's term in the query's p-MRR
    (None for a T+ table, which p-MRR does not use; 0 when a run lacks the query);
    ``irs_gain`` its signed gain in IRS's S: w(altered) - w(original) for T+, the
    negative of that for T-, with w(r) = 1 / log2(r + 1).
    """

    doc: str
    rank_original: int | None
    rank_altered: int | None
    p_mrr_rank_original: int
    p_mrr_rank_altered: int
    p_mrr: float | None
    irs_gain: float | None


@dataclass(frozen=True)
class RankedDoc:
    """A document at the top of a run, with its judgments (None: not judged)."""

    rank: int
    doc: str
    judged_query: int | None        # relevance to the original query (or the only query)
    judged_instruction: int | None  # relevance under the altered instruction
    # "changed": one of p-MRR's changed documents (T-); "positive": T+; None: neither.
    pair_role: str | None = None


@dataclass
class QueryCard:
    """Everything a card shows for one query (see the module docstring)."""

    task: str
    query: str                       # the altered query (a pair's id), or the query
    original_query: str | None       # the query the altered one is compared with
    group: str | None                # FollowTable constraint type
    texts: dict[str, str]            # role -> the query's text under that role
    metrics: dict[str, float]        # the engine's per-query figures
    changed: list[DocMove] = field(default_factory=list)    # p-MRR's changed docs (T-)
    positive: list[DocMove] = field(default_factory=list)   # T+ (IRS)
    # IRS's pieces: S, S(ideal), S(worst) and the normaliser S is divided by.
    irs_parts: dict[str, float] = field(default_factory=dict)
    top: dict[str, list[RankedDoc]] = field(default_factory=dict)
    # Documents ranked for the query in each run (0: the run lacks the query).
    run_lengths: dict[str, int] = field(default_factory=dict)
    # T4 (a persona's card): each of its pairs' id, gold label and submitted probability,
    # the most probable first.
    pairs: list[dict[str, object]] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class QueryRow:
    """One line of the query list: a query with the engine's per-query figures."""

    query: str
    original_query: str | None
    group: str | None
    metrics: dict[str, float]


@dataclass
class TaskExplanation:
    """The query list of a task and the cards of its queries, from one scored run set."""

    task: Task
    sheet: ScoreSheet
    rows: list[QueryRow]
    cards: dict[str, QueryCard]

    def card(self, query_id: str) -> QueryCard:
        try:
            return self.cards[query_id]
        except KeyError:
            raise UnknownQueryError(unknown_query_message(self.task, query_id,
                                                          list(self.cards))) from None


def _id_order(query_id: str) -> tuple:
    """Natural order of query ids: 53_2 before 53_10."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p)
                 for p in re.split(r"(\d+)", query_id) if p)


def unknown_query_message(task: Task, query_id: str, known: Sequence[str]) -> str:
    """Why a query id is unknown, with the ids meant: the queries of a topic when the id
    is the topic's (FollowTable's "53" asks for "53_0", "53_1", ...), else the closest
    spellings."""
    children = sorted((k for k in known if k.startswith(query_id + "_")), key=_id_order)
    if children:
        shown = ", ".join(children[:10]) + (f" and {len(children) - 10} more"
                                            if len(children) > 10 else "")
        return (f"{task.id} has no query {query_id!r}; did you mean {shown} (the queries "
                f"of topic {query_id}, one per instruction)?")
    close = difflib.get_close_matches(query_id, known, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else \
        f"; it has {len(known)} (e.g. {', '.join(known[:3])})" if known else "; it has none"
    return f"{task.id} has no query {query_id!r}{hint}"


# --------------------------------------------------------------------------- building

def explain_task(task: Task, data: TaskData, sheet: ScoreSheet,
                 runs: Mapping[str, ParsedRun] | None = None,
                 predictions: Predictions | None = None) -> TaskExplanation:
    """The query list and every card of a scored task.

    ``sheet`` is what :func:`leaderboard.core.scoring.score_task` (or the T4 scorer) gave for
    ``runs`` (or ``predictions``, T4's).
    """
    if task.candidates == "pairs":
        return _explain_pairs(task, data, sheet, predictions)
    if runs is None:
        raise ValueError(f"{task.id} is explained from its runs")
    ranked = {role: RankedRun.from_parsed(run) for role, run in runs.items()}
    if "original" in ranked and "altered" in ranked:
        return _explain_paired(task, data, sheet, ranked["original"], ranked["altered"])
    return _explain_single(task, data, sheet, ranked["run"])


def _metrics_of(sheet: ScoreSheet, query: str, original: str | None = None
                ) -> dict[str, float]:
    """The sheet's per-query figures of a query; original-run figures are the original
    query's (a FollowTable pair's topic, a FollowIR ``-og`` query)."""
    out: dict[str, float] = {}
    for key, values in sheet.per_query.items():
        own = original if key.startswith("original/") and original is not None else query
        if own in values:
            out[key] = values[own]
    return out


def _top(run: RankedRun, code: int, qrels_query: Mapping[str, int],
         qrels_instruction: Mapping[str, int] | None,
         pair_roles: Mapping[str, str] | None = None, k: int = TOP_K) -> list[RankedDoc]:
    if code < 0:
        return []
    start, length = int(run.seg_start[code]), int(run.seg_len[code])
    docs = run.d_names[run.d_codes[start:start + min(k, length)]].tolist()
    roles = pair_roles or {}
    return [RankedDoc(rank=i + 1, doc=d, judged_query=qrels_query.get(d),
                      judged_instruction=None if qrels_instruction is None
                      else qrels_instruction.get(d), pair_role=roles.get(d))
            for i, d in enumerate(docs)]


def _explain_paired(task: Task, data: TaskData, sheet: ScoreSheet, original: RankedRun,
                    altered: RankedRun) -> TaskExplanation:
    query_ids = data.roles["altered"].query_ids
    t_neg = judged_docs(data, "changed")
    with_irs = "IRS" in task.pair_metrics
    t_pos = judged_docs(data, "instruction_positive") if with_irs else None
    judged = (t_pos, t_neg) if t_pos is not None else (t_neg,)
    orig_code, alt_code, r_og, r_new = pair_ranks(original, altered, data.pairs, query_ids,
                                                  *judged)
    len_og = original.lengths_of_codes(orig_code)
    len_new = altered.lengths_of_codes(alt_code)
    split = t_pos.pair_idx.shape[0] if t_pos is not None else 0
    pair_idx = np.concatenate([j.pair_idx for j in judged])
    doc_names = np.concatenate([j.names[j.doc_idx] for j in judged])

    # p-MRR's ranks: a document a run leaves out ranks right after the run's last one.
    p_og = np.where(r_og > 0, r_og, len_og[pair_idx] + 1.0)
    p_new = np.where(r_new > 0, r_new, len_new[pair_idx] + 1.0)
    answered = (len_og[pair_idx] > 0) & (len_new[pair_idx] > 0)
    p_term = np.where(p_og >= p_new, p_new / p_og - 1.0, 1.0 - p_og / p_new)
    p_term = np.where(answered, p_term, 0.0)
    # IRS's gains: a missing table ranks N + 1; T- counts against S.
    absent = float(data.corpus_size + 1)
    gain = (irs_weights(np.where(r_new > 0, r_new, absent))
            - irs_weights(np.where(r_og > 0, r_og, absent)))
    gain[split:] *= -1.0
    gain = np.where(answered, gain, 0.0)

    parts = _irs_parts(t_pos, t_neg, data.corpus_size, r_og, r_new) \
        if t_pos is not None else None
    starts = np.searchsorted(pair_idx[:split], np.arange(len(query_ids) + 1)) \
        if split else None
    neg_starts = np.searchsorted(pair_idx[split:], np.arange(len(query_ids) + 1)) + split

    original_role, altered_role = data.roles["original"], data.roles["altered"]
    rows: list[QueryRow] = []
    cards: dict[str, QueryCard] = {}
    for i, query in enumerate(query_ids):
        topic = data.pairs[query]
        group = data.groups.get(query)
        metrics = _metrics_of(sheet, query, topic)
        rows.append(QueryRow(query, topic, group, metrics))

        def moves(lo: int, hi: int, with_p_mrr: bool) -> list[DocMove]:
            return [DocMove(doc=str(doc_names[j]),
                            rank_original=int(r_og[j]) or None,
                            rank_altered=int(r_new[j]) or None,
                            p_mrr_rank_original=int(p_og[j]),
                            p_mrr_rank_altered=int(p_new[j]),
                            p_mrr=float(p_term[j]) if with_p_mrr else None,
                            irs_gain=float(gain[j]) if with_irs else None)
                    for j in range(lo, hi)]

        changed = moves(int(neg_starts[i]), int(neg_starts[i + 1]), True)
        positive = moves(int(starts[i]), int(starts[i + 1]), False) \
            if starts is not None else []
        pair_roles = {m.doc: "positive" for m in positive} | {m.doc: "changed"
                                                             for m in changed}
        qrels_query, qrels_instruction = (original_role.qrels.get(topic, {}),
                                          altered_role.qrels.get(query, {}))
        card = QueryCard(
            task=task.id, query=query, original_query=topic, group=group,
            texts={"original": original_role.query_text.get(topic, ""),
                   "altered": altered_role.query_text.get(query, "")},
            metrics=metrics, changed=changed, positive=positive,
            irs_parts=parts[i] if parts is not None else {},
            top={"original": _top(original, int(orig_code[i]), qrels_query,
                                  qrels_instruction, pair_roles),
                 "altered": _top(altered, int(alt_code[i]), qrels_query, qrels_instruction,
                                 pair_roles)},
            run_lengths={"original": int(len_og[i]), "altered": int(len_new[i])},
        )
        cards[query] = card
    return TaskExplanation(task, sheet, rows, cards)


def _irs_parts(t_pos: JudgedDocs, t_neg: JudgedDocs, corpus_size: int, r_og: np.ndarray,
               r_new: np.ndarray) -> list[dict[str, float]]:
    """Per pair: S, S(ideal), S(worst) and the normaliser IRS divides S by (0 where IRS is
    fixed without dividing: S >= 0 with an ideal baseline kept, or S < 0 with no worse
    ranking)."""
    s, s_ideal, s_worst = irs_parts(t_pos, t_neg, corpus_size, r_og, r_new)
    out = []
    for a, b, c in zip(s.tolist(), s_ideal.tolist(), s_worst.tolist()):
        scale = (b if b > 0 else 0.0) if a >= 0 else (abs(c) if c < 0 else 0.0)
        out.append({"S": a, "S_ideal": b, "S_worst": c, "scale": scale})
    return out


def _explain_single(task: Task, data: TaskData, sheet: ScoreSheet, run: RankedRun
                    ) -> TaskExplanation:
    role = data.roles["run"]
    codes = run.query_codes(role.query_ids)
    lengths = run.lengths_of_codes(codes)
    # Every query's relevant documents ranked in one lookup for the whole task (a lookup
    # per query was most of the time scoring spent explaining PI-Indic's 288 tasks).
    relevant_of = [[d for d, g in role.qrels.get(q, {}).items() if g > 0]
                   for q in role.query_ids]
    counts = np.asarray([len(r) for r in relevant_of], dtype=np.int64)
    all_ranks = run.ranks_at(np.repeat(codes, counts),
                             np.asarray([d for r in relevant_of for d in r], dtype=object)
                             ).tolist() if counts.sum() else []
    ends = np.cumsum(counts).tolist()
    rows: list[QueryRow] = []
    cards: dict[str, QueryCard] = {}
    for i, query in enumerate(role.query_ids):
        metrics = _metrics_of(sheet, query)
        rows.append(QueryRow(query, None, None, metrics))
        qrels = role.qrels.get(query, {})
        relevant = relevant_of[i]
        ranks = all_ranks[ends[i] - len(relevant):ends[i]]
        cards[query] = QueryCard(
            task=task.id, query=query, original_query=None, group=None,
            texts={"run": role.query_text.get(query, "")}, metrics=metrics,
            changed=[DocMove(doc=d, rank_original=None, rank_altered=int(r) or None,
                             p_mrr_rank_original=0, p_mrr_rank_altered=0, p_mrr=None,
                             irs_gain=None)
                     for d, r in zip(relevant, ranks)],
            top={"run": _top(run, int(codes[i]), qrels, None)},
            run_lengths={"run": int(lengths[i])})
    return TaskExplanation(task, sheet, rows, cards)


def persona_pairs(task: Task, data: TaskData, sheet: ScoreSheet,
                  predictions: Predictions | None) -> dict[str, list[dict[str, object]]]:
    """T4: each persona (the unit its per-query scores and tests take: Accuracy, balanced
    accuracy and its part of AUROC), in the score sheet's order, with its pairs, the most
    probable first: the pair id, its gold label and the submitted probability. What both
    the plain explanation and the explorer's files list
    (:mod:`leaderboard.core.explain_arrays`)."""
    if not isinstance(predictions, Predictions):
        raise ValueError(f"{task.id} is explained from its predictions")
    role = data.roles["predictions"]
    probability = predictions.by_pair()
    by_persona: dict[str, list[str]] = {}
    for pair_id in role.query_ids:
        by_persona.setdefault(data.groups[pair_id], []).append(pair_id)
    units = next(iter(sheet.per_query.values()), {})
    return {persona: sorted(({"pair": pid, "label": int(role.qrels[pid]["label"]),
                              "probability": probability[pid]}
                             for pid in by_persona[persona]),
                            key=lambda p: (-p["probability"], p["pair"]))
            for persona in (list(units) or list(by_persona))}


def _explain_pairs(task: Task, data: TaskData, sheet: ScoreSheet, predictions: Predictions | None
                   ) -> TaskExplanation:
    """T4: a row per persona, whose card lists its pairs (:func:`persona_pairs`)."""
    rows: list[QueryRow] = []
    cards: dict[str, QueryCard] = {}
    for persona, pairs in persona_pairs(task, data, sheet, predictions).items():
        metrics = _metrics_of(sheet, persona)
        rows.append(QueryRow(persona, None, None, metrics))
        cards[persona] = QueryCard(task=task.id, query=persona, original_query=None,
                                   group=None, texts={}, metrics=metrics, pairs=pairs)
    return TaskExplanation(task, sheet, rows, cards)


# --------------------------------------------------------------------------- reference

RunLines = Sequence[tuple[str, str, float]]


def _plain_ranking(lines: RunLines, query: str) -> list[str]:
    """A query's documents in trec_eval order: score descending, docid descending."""
    rows = [(score, doc) for q, doc, score in lines if q == query]
    rows.sort(reverse=True)
    return [doc for _, doc in rows]


def reference_card(original: RunLines, altered: RunLines, topic: str, query: str,
                   changed: Sequence[str], positive: Sequence[str], corpus_size: int
                   ) -> dict[str, object]:
    """A pair's p-MRR and IRS rebuilt document by document from plain run lines
    ``(qid, docid, score)``: the definition the vectorised card is tested against.

    Returns each document's ranks and terms and the query's p-MRR and IRS from them.
    """
    og_list, new_list = _plain_ranking(original, topic), _plain_ranking(altered, query)
    og_rank = {d: i + 1 for i, d in enumerate(og_list)}
    new_rank = {d: i + 1 for i, d in enumerate(new_list)}
    answered = bool(og_list) and bool(new_list)

    def w(rank: int) -> float:
        return 1.0 / math.log2(rank + 1)

    terms, gains = {}, {}
    for doc in changed:
        r_og = og_rank.get(doc, len(og_list) + 1)
        r_new = new_rank.get(doc, len(new_list) + 1)
        term = r_new / r_og - 1.0 if r_og >= r_new else 1.0 - r_og / r_new
        terms[doc] = term if answered else 0.0
    absent = corpus_size + 1
    for doc, sign in [(d, 1.0) for d in positive] + [(d, -1.0) for d in changed]:
        gain = sign * (w(new_rank.get(doc, absent)) - w(og_rank.get(doc, absent)))
        gains[(doc, sign)] = gain if answered else 0.0
    p_mrr = sum(terms.values()) / len(terms) if terms else None

    # IRS: S against the ideal (T+ on top, T- at the bottom) and the worst ranking.
    s = sum(gains.values())
    g_pos_og = sum(w(og_rank.get(d, absent)) for d in positive)
    g_neg_og = sum(w(og_rank.get(d, absent)) for d in changed)
    n_pos, n_neg = len(positive), len(changed)
    pos_ideal = sum(w(r) for r in range(1, n_pos + 1))
    neg_ideal = sum(w(r) for r in range(corpus_size - n_neg + 1, corpus_size + 1))
    neg_worst = sum(w(r) for r in range(1, n_neg + 1))
    pos_worst = sum(w(r) for r in range(corpus_size - n_pos + 1, corpus_size + 1))
    s_ideal = (pos_ideal - g_pos_og) - (neg_ideal - g_neg_og)
    s_worst = (pos_worst - g_pos_og) - (neg_worst - g_neg_og)
    if not answered or (n_pos == 0 and n_neg == 0):
        irs_value = 0.0
    elif s >= 0:
        irs_value = min(s / s_ideal, 1.0) if s_ideal > 0 else 1.0
    else:
        irs_value = max(s / abs(s_worst), -1.0) if s_worst < 0 else -1.0
    return {"rank_original": og_rank, "rank_altered": new_rank, "p_mrr_terms": terms,
            "irs_gains": gains, "p_mrr": p_mrr, "irs": irs_value, "S": s,
            "S_ideal": s_ideal, "S_worst": s_worst,
            "top_original": og_list[:TOP_K], "top_altered": new_list[:TOP_K]}


# --------------------------------------------------------------------------- files

#: The format name and version every explanation file carries.
EXPLAIN_FORMAT = "followboard-explain/1"
#: How much of a document's text a card shows at most, in code points (the rest is one
#: click away upstream): a longer text is cut at the last boundary between two characters
#: as its reader sees them (grapheme clusters: a conjunct, a letter and its vowel sign
#: and accents stay whole) at or before this length.
SNIPPET_CHARS = 280
#: Licences of benchmark data that let the site show its texts. Data without a stated
#: licence (FollowTable) is never copied: cards show its ids, linked to the file at the
#: pinned upstream commit, and the browser loads the text from there.
TEXT_LICENCES = frozenset({"MIT", "ODC-By", "Apache-2.0", "CC-BY-4.0", "CC-BY-SA-4.0",
                           "CC0-1.0"})


def shows_text(task: Task) -> bool:
    """Whether the benchmark's licence lets FollowBoard copy its texts onto the site."""
    return task.source.licence in TEXT_LICENCES


def _compact_move(move: DocMove) -> list:
    return [move.doc, move.rank_original, move.rank_altered, move.p_mrr_rank_original,
            move.p_mrr_rank_altered, move.p_mrr, move.irs_gain]


def _compact_top(docs: list[RankedDoc]) -> list:
    return [[d.doc, d.judged_query, d.judged_instruction, d.pair_role] for d in docs]


def explanation_record(explanation: TaskExplanation) -> dict:
    """The explanation as the site's explorer reads it: one JSON document per submission
    and task, with the ids and figures of every card and no text.

    Compact: a card is lists in a fixed field order (``fields`` names them). Texts are
    the same for every submission of a task, so they are kept once per task
    (:func:`text_record`) rather than copied into each submission's file.
    """
    task = explanation.task
    metrics = sorted({k for row in explanation.rows for k in row.metrics})
    queries = [[row.query, row.original_query, row.group,
                [row.metrics.get(k) for k in metrics]] for row in explanation.rows]
    cards: dict[str, dict] = {}
    for query, card in explanation.cards.items():
        entry: dict[str, object] = {"n": card.run_lengths}
        if card.changed:
            entry["c"] = [_compact_move(m) for m in card.changed]
        if card.positive:
            entry["p"] = [_compact_move(m) for m in card.positive]
        if card.irs_parts:
            entry["s"] = [card.irs_parts[k] for k in IRS_FIELDS]
        if card.top:
            entry["top"] = {role: _compact_top(docs) for role, docs in card.top.items()}
        if card.pairs:
            entry["pairs"] = card.pairs
        cards[query] = entry
    return {
        "format": EXPLAIN_FORMAT, "task": task.id, "primary": task.primary_metric,
        "metrics": metrics, "queries": queries, "cards": cards,
        "fields": {"move": list(MOVE_FIELDS), "top": list(TOP_FIELDS), "irs": list(IRS_FIELDS)},
    }


MOVE_FIELDS = ("doc", "rank_original", "rank_altered", "p_mrr_rank_original",
               "p_mrr_rank_altered", "p_mrr", "irs_gain")
TOP_FIELDS = ("doc", "judged_query", "judged_instruction", "pair_role")
IRS_FIELDS = ("S", "S_ideal", "S_worst", "scale")
#: A corpus up to this size has every document's snippet in its text record; a larger one
#: (FollowIR's, mFollowIR's) only its judged documents' (the rest show their ids).
ALL_TEXTS_UP_TO = 20_000


def shown_documents(data: TaskData) -> set[str] | None:
    """The documents whose snippets a task's text record holds: None for all of them (a
    corpus of at most :data:`ALL_TEXTS_UP_TO`), else the judged ones, under any role,
    and those the altered instruction changed or made relevant."""
    if data.corpus_size <= ALL_TEXTS_UP_TO:
        return None
    judged: set[str] = set()
    for role in data.roles.values():
        for docs in role.qrels.values():
            judged.update(docs)
    for docs in (*data.changed.values(), *data.instruction_positive.values()):
        judged.update(docs)
    return judged


def text_record(task: Task, data: TaskData, corpus: Iterable[tuple[str, str]]) -> dict | None:
    """The texts a task's cards show, the same for every submission: each query's text
    under each role and the snippets of the corpus's :func:`shown_documents` (``corpus``
    may hold others: they are left out). None when the benchmark's licence does not let
    the site show them (:func:`shows_text`): its cards link to the upstream files
    instead. A snippet ends between two grapheme clusters (:data:`SNIPPET_CHARS`), so a
    cut one may be shorter than a whole one: ``cut`` names the documents whose snippet is
    not their whole text, and the page reads it there."""
    if not shows_text(task):
        return None
    shown = shown_documents(data)
    docs: dict[str, str] = {}
    cut: list[str] = []
    for d, text in corpus:
        if shown is None or d in shown:
            docs[d] = cut_between_clusters(text, SNIPPET_CHARS)
            if len(docs[d]) < len(text):
                cut.append(d)
    return {"format": TEXT_FORMAT, "task": task.id, "licence": task.source.licence,
            "source": task.source.pinned,
            "queries": {role: dict(sorted(r.query_text.items()))
                        for role, r in data.roles.items()},
            "docs": dict(sorted(docs.items())), "cut": sorted(cut)}


#: /2: a part of document snippets names those that were cut ("cut"); /1 left the page to
#: take a text of SNIPPET_CHARS characters as cut, and a whole one that long was shown so.
TEXT_FORMAT = "followboard-texts/2"
