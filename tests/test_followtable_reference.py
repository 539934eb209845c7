"""`leaderboard eval` on the real FollowTable data against independent references.

The committed bm25s baseline's runs of every dataset (real BM25 rankings of 1,000
tables per query, made by the reference model) are scored by `leaderboard eval`; the
engine's scores must match, to 1e-9, pytrec_eval for nDCG@10 and the deliberately plain
per-document implementations of p-MRR and IRS below, written from FollowIR eq. 1 (with
MTEB's conventions) and FollowTable eq. 1-4. Nothing here imports the engine's metric
code. (The runs were made here with bm25s before, which took the suite a minute.)
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import json
import math
import random
from pathlib import Path

import pytest
import pytrec_eval

from leaderboard.app.cli import main

DATASETS = ["WTR", "TArX", "IndusTR", "WQT"]
BM25S_RUNS = Path(__file__).resolve().parents[1] / "submissions" / "bm25s" / "runs"

# Every test here scores all four datasets' runs, WQT's 1.4M lines among them.
pytestmark = pytest.mark.slow


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as fh:
        rows = csv.reader(fh, delimiter="\t")
        next(rows)
        for q, d, r in rows:
            out.setdefault(q, {})[d] = int(r)
    return out


def read_run_plain(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    return run


def plain_ranking(docs: dict[str, float]) -> list[str]:
    """trec_eval order: score descending, then docid descending."""
    return [d for d, _ in sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)]


def plain_p_mrr(orig: dict[str, float], new: dict[str, float], changed: list[str]) -> float:
    orig_rank = {d: i + 1 for i, d in enumerate(plain_ranking(orig))}
    new_rank = {d: i + 1 for i, d in enumerate(plain_ranking(new))}
    scores = []
    for doc in changed:
        r_og = orig_rank.get(doc, len(orig) + 1)   # absent: after every ranked doc
        r_new = new_rank.get(doc, len(new) + 1)
        if r_og >= r_new:
            scores.append((1 / r_og) / (1 / r_new) - 1)
        else:
            scores.append(1 - (1 / r_new) / (1 / r_og))
    return sum(scores) / len(scores)


def w(rank: float) -> float:
    return 1 / math.log2(rank + 1)


def plain_irs(orig: dict[str, float], new: dict[str, float], t_pos: list[str],
              t_neg: list[str], n: int) -> float:
    if not t_pos and not t_neg:
        return 0.0
    orig_rank = {d: i + 1 for i, d in enumerate(plain_ranking(orig))}
    new_rank = {d: i + 1 for i, d in enumerate(plain_ranking(new))}

    def g(ranks: dict[str, int], docs: list[str]) -> float:
        return sum(w(ranks.get(d, n + 1)) for d in docs)

    def s(ranks: dict[str, int]) -> float:
        return (g(ranks, t_pos) - g(orig_rank, t_pos)) - (g(ranks, t_neg) - g(orig_rank, t_neg))

    ideal = {d: i + 1 for i, d in enumerate(t_pos)}
    ideal.update({d: n - len(t_neg) + 1 + i for i, d in enumerate(t_neg)})
    worst = {d: i + 1 for i, d in enumerate(t_neg)}
    worst.update({d: n - len(t_pos) + 1 + i for i, d in enumerate(t_pos)})
    score, s_ideal, s_worst = s(new_rank), s(ideal), s(worst)
    if score >= 0:
        value = score / s_ideal if s_ideal > 0 else 1.0
    else:
        value = score / abs(s_worst) if s_worst < 0 else -1.0
    return max(-1.0, min(1.0, value))


@pytest.fixture(scope="module", params=DATASETS)
def bm25_case(request, data_dir: Path, tmp_path_factory) -> dict:
    ds = request.param
    root = data_dir / "followtable" / ds
    corpus = [str(o["_id"]) for o in read_jsonl(root / "corpus.jsonl")]
    queries = {str(o["_id"]): o["text"] for o in read_jsonl(root / "queries.jsonl")}
    committed = BM25S_RUNS / "followtable" / ds.lower()
    tmp = tmp_path_factory.mktemp(ds)
    # The original run as plain text, the altered one gzipped: both kinds are read.
    original = tmp / "original.trec"
    original.write_bytes(gzip.decompress((committed / "original.trec.gz").read_bytes()))
    altered = tmp / "altered.trec.gz"
    altered.write_bytes((committed / "altered.trec.gz").read_bytes())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["eval", f"followtable/{ds.lower()}", "--original", str(original),
                   "--altered", str(altered), "--data-dir", str(data_dir), "--json"])
    assert rc == 0
    # Both runs as the plain references read them, once for every test of the dataset
    # (WQT's two took 1.5 s to read).
    altered_plain = tmp / "altered.plain.trec"
    altered_plain.write_bytes(gzip.decompress(altered.read_bytes()))
    plain = {"original": read_run_plain(original), "altered": read_run_plain(altered_plain)}
    return {"ds": ds, "root": root, "n": len(corpus), "original": original,
            "altered": altered, "result": json.loads(out.getvalue()), "queries": queries,
            "plain": plain}


def test_ndcg_matches_pytrec_eval(bm25_case: dict) -> None:
    root, result = bm25_case["root"], bm25_case["result"]

    for role, qrels_file in (("original", "for_only_query_test.tsv"), ("altered", "test.tsv")):
        run = bm25_case["plain"][role]
        qrels = read_qrels(root / "qrels" / qrels_file)
        qrels = {q: v for q, v in qrels.items() if q in run or role == "altered"}
        if role == "original":
            qrels = {q: qrels[q] for q in {k.rsplit("_", 1)[0] for k in bm25_case["queries"]}}
        ref = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
        per_query = result["per_query"][f"{role}/nDCG@10"]
        assert set(per_query) == set(qrels)
        for q in qrels:
            assert per_query[q] == pytest.approx(ref.get(q, {}).get("ndcg_cut_10", 0.0), abs=1e-9)
        mean = sum(ref.get(q, {}).get("ndcg_cut_10", 0.0) for q in qrels) / len(qrels)
        assert result["metrics"][f"{role}/nDCG@10"] == pytest.approx(mean, abs=1e-9)


def test_p_mrr_and_irs_match_plain_formulas(bm25_case: dict) -> None:
    root, result = bm25_case["root"], bm25_case["result"]
    orig_run, alt_run = bm25_case["plain"]["original"], bm25_case["plain"]["altered"]
    query_positive = read_qrels(root / "qrels" / "for_only_query_test.tsv")
    instruction_positive = read_qrels(root / "qrels" / "test.tsv")
    pmrr, irs = {}, {}
    for q in bm25_case["queries"]:
        topic = q.rsplit("_", 1)[0]
        t_pos = sorted(d for d, r in instruction_positive.get(q, {}).items() if r > 0)
        t_neg = sorted(d for d, r in query_positive.get(topic, {}).items()
                       if r > 0 and d not in set(t_pos))
        if t_neg:
            pmrr[q] = plain_p_mrr(orig_run.get(topic, {}), alt_run.get(q, {}), t_neg)
        irs[q] = plain_irs(orig_run.get(topic, {}), alt_run.get(q, {}), t_pos, t_neg,
                           bm25_case["n"])
    for name, ref in (("p-MRR", pmrr), ("IRS", irs)):
        got = result["per_query"][name]
        assert set(got) == set(ref), name
        worst = max(abs(got[q] - ref[q]) for q in ref)
        assert worst <= 1e-9, f"{name} differs by {worst}"
        assert result["metrics"][name] == pytest.approx(sum(ref.values()) / len(ref), abs=1e-9)
    # BM25 should not be a perfect instruction follower: sanity of the reference itself.
    assert -1.0 <= result["metrics"]["IRS"] < 1.0


def test_groups_cover_constraint_types(bm25_case: dict) -> None:
    groups = bm25_case["result"]["groups"]
    assert set(groups) == {"C1", "C2", "S1", "S2", "S3"}
    per_query = bm25_case["result"]["per_query"]["IRS"]
    types = {}
    for obj in read_jsonl(bm25_case["root"] / "queries.jsonl"):
        code = obj["metadata"]["instruction_type"]
        types[obj["_id"]] = {"1.1": "C1", "1.2": "C2", "2.1": "S1", "2.2": "S2"}.get(code[:3], "S3")
    for label, values in groups.items():
        members = [q for q, t in types.items() if t == label]
        assert values["IRS"] == pytest.approx(sum(per_query[q] for q in members) / len(members),
                                              abs=1e-12)


@pytest.mark.parametrize("bm25_case", ["WTR"], indirect=True)  # one dataset is enough
def test_shuffled_lines_and_scrambled_ranks_change_nothing(bm25_case: dict, data_dir: Path,
                                                           tmp_path: Path) -> None:
    rng = random.Random(7)
    paths = {}
    for role, path in (("original", bm25_case["original"]), ("altered", bm25_case["altered"])):
        import gzip

        raw = path.read_bytes()
        text = gzip.decompress(raw).decode() if raw[:2] == b"\x1f\x8b" else raw.decode()
        lines = text.splitlines()
        rng.shuffle(lines)
        scrambled = []
        for line in lines:
            q, q0, d, _, s, tag = line.split()
            scrambled.append(f"{q}\t{q0}\t{d}\t{rng.randint(1, 5000)}\t{s}\t{tag}\r\n")
        paths[role] = tmp_path / f"{role}.trec"
        paths[role].write_text("".join(scrambled), newline="")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main(["eval", "followtable/wtr", "--original", str(paths["original"]),
                   "--altered", str(paths["altered"]), "--data-dir", str(data_dir), "--json"])
    assert rc == 0
    assert json.loads(out.getvalue()) == bm25_case["result"]
