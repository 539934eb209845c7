"""The ranking metrics (leaderboard.core.metrics.ranking) against trec_eval's own code, through
pytrec_eval, on random runs with ties, unjudged and negatively judged documents, judged
documents left out of the run, and judged queries the run does not answer."""

from __future__ import annotations

import math
import random

import pytest
import pytrec_eval

from leaderboard.core.metrics.ranking import RankedRun, evaluate
from leaderboard.core.runs.columns import ParsedRun

# Ours -> trec_eval's measure (pytrec_eval key). RR@k has no trec_eval measure: it is held
# to its definition below.
TREC_EVAL = {"nDCG@10": "ndcg_cut_10", "nDCG@3": "ndcg_cut_3", "AP": "map",
             "AP@5": "map_cut_5", "RR": "recip_rank", "R@5": "recall_5", "R@100": "recall_100",
             "P@5": "P_5", "P@10": "P_10"}


def random_case(seed: int) -> tuple[dict, dict]:
    rng = random.Random(seed)
    docs = [f"d{i:03d}" for i in range(60)]
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(12):
        qid = f"q{q}"
        judged = rng.sample(docs, rng.randint(0, 15))
        qrels[qid] = {d: rng.choice((-1, 0, 0, 1, 1, 2, 3)) for d in judged}
        if q % 5 == 4:
            continue  # a judged query the run does not answer
        ranked = rng.sample(docs, rng.randint(1, 40))
        # Coarse scores: many ties, broken by docid descending as trec_eval does.
        run[qid] = {d: float(rng.randint(0, 6)) for d in ranked}
    return qrels, run


def as_ranked(run: dict[str, dict[str, float]]) -> RankedRun:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    random.Random(1).shuffle(rows)  # file order must not matter
    return RankedRun.from_parsed(ParsedRun.from_rows(rows))


def rr_at(run: dict[str, float], judged: dict[str, int], k: int) -> float:
    ordered = sorted(run.items(), key=lambda x: (x[1], x[0]), reverse=True)[:k]
    for i, (d, _) in enumerate(ordered, 1):
        if judged.get(d, 0) >= 1:
            return 1 / i
    return 0.0


@pytest.mark.parametrize("seed", range(8))
def test_every_metric_kind_equals_trec_eval(seed: int) -> None:
    qrels, run = random_case(seed)
    ours = evaluate(as_ranked(run), qrels, list(qrels), [*TREC_EVAL, "RR@3"])
    measures = {m.rsplit("_", 1)[0] + ("." + m.rsplit("_", 1)[1] if m[-1].isdigit() else "")
                if m not in ("map", "recip_rank") else m for m in TREC_EVAL.values()}
    # trec_eval leaves out queries with no relevant judgment; those score 0 here.
    reference = pytrec_eval.RelevanceEvaluator(
        {q: j for q, j in qrels.items() if any(r >= 1 for r in j.values())}, measures
    ).evaluate(run)
    for q in qrels:
        for ours_name, key in TREC_EVAL.items():
            expected = reference.get(q, {}).get(key, 0.0)
            assert math.isclose(ours[ours_name][q], expected, abs_tol=1e-12), (q, ours_name)
        assert ours["RR@3"][q] == pytest.approx(rr_at(run.get(q, {}), qrels[q], 3), abs=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_p_mrr_and_irs_together_equal_each_alone(seed: int) -> None:
    """FollowTable's scoring looks T+ and T- up once for both pair metrics (rank_task's
    PairRanks.of with both); the figures must be bit for bit those of p_mrr and irs called
    alone. Random pairs include a query missing from one run, pairs with no T+ or no T-,
    and judged documents no run ranks."""
    from leaderboard.core.metrics.instruction import PairRanks, irs, p_mrr

    rng = random.Random(seed)
    docs = [f"t{i}" for i in range(80)]
    original, altered, pairs, positive, changed = {}, {}, {}, {}, {}
    for topic in range(10):
        if topic != 3:  # topic 3 is missing from the original run
            original[str(topic)] = {d: float(rng.randint(0, 9)) for d in rng.sample(docs, 50)}
        for i in range(3):
            qid = f"{topic}_{i}"
            pairs[qid] = str(topic)
            if (topic, i) != (5, 1):  # one pair the altered run does not answer
                altered[qid] = {d: float(rng.randint(0, 9)) for d in rng.sample(docs, 50)}
            positive[qid] = rng.sample(docs, rng.choice((0, 2, 4)))
            changed[qid] = sorted(set(rng.sample(docs, rng.choice((0, 1, 5)))) - set(positive[qid]))
    queries = sorted(pairs)
    runs = as_ranked(original), as_ranked(altered)
    both = PairRanks.of(*runs, pairs, queries, changed, positive, 80)
    together = (both.p_mrr(), both.irs())
    alone = (p_mrr(*runs, pairs, changed, queries), irs(*runs, pairs, positive, changed, 80, queries))
    assert together == alone
    assert len(together[1]) == len(queries) and 0 < len(together[0]) < len(queries)
