"""Time `leaderboard --help` and a one-task `leaderboard eval`, end to end, in fresh processes.

Not a test: it prints figures. Each command runs ``--repeat`` times in a fresh Python
process; the script prints the median wall time and the median CPU time (user + system,
from ``getrusage`` of the child) of each, since the development machines are shared and
wall time moves with the other tenants while CPU time moves much less.

The pairing: the same metrics (nDCG@10 of both runs, p-MRR, IRS) computed by a plain
Python script (``--plain``, below: the standard library only, dicts and sorted lists, no
validation) on the same runs and data. ``eval`` must give the same scores (checked to
1e-9); its time is reported as a ratio to the plain path. With ``--against DIR`` the same
commands also run from another checkout (say, the commit before a change), for a ratio
between the two versions of the code:

    git archive 0b7bfd5 | tar -x -C /tmp/before
    .venv/bin/python benchmarks/cli_startup.py --against /tmp/before

With ``--peers``, the libraries a user would reach for instead time the same task in
fresh processes, end to end: pytrec_eval, ir_measures and ranx computing nDCG@10 of both
runs alone, mteb's ``calculate_pmrr`` computing p-MRR alone (ir_measures and ranx come
with the ``bench`` extra; a peer not installed is named and skipped). Each reads the runs
with the plain path's reader into the dicts it takes, prints its CPU by step (import,
read, compute), and must agree with eval's figure to 1e-9. The issue 37 target: eval,
which also validates every line and computes p-MRR and IRS, ahead of each of them.

The default task is FollowTable TArX with the committed bm25s runs and the real data at
``$LEADERBOARD_DATA`` (else ../shared/data). ``eval`` keeps loaded task data in a disk
cache (leaderboard/core/data/cache.py), here a folder of this run that the untimed first round
fills, as a user's first eval of a task does; "eval, data cache off" times the first eval.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# --- the plain reference path (stdlib only; runs in its own process) ---

def _read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        rows = csv.reader(fh, delimiter="\t")
        next(rows)
        for q, d, r in rows:
            out.setdefault(q, {})[d] = int(r)
    return out


def _read_run(path: Path) -> dict[str, dict[str, float]]:
    opener = gzip.open if path.suffix == ".gz" else open
    run: dict[str, dict[str, float]] = {}
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                q, _, d, _, s, _ = line.split()
                run.setdefault(q, {})[d] = float(s)
    return run


def _ranks(docs: dict[str, float]) -> dict[str, int]:
    """trec_eval order: score descending, then docid descending."""
    ordered = sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)
    return {d: i + 1 for i, (d, _) in enumerate(ordered)}


def _ndcg10(ranks: dict[str, int], judged: dict[str, int]) -> float:
    gains = sorted((r for r in judged.values() if r > 0), reverse=True)[:10]
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    if ideal <= 0:
        return 0.0
    dcg = sum(max(judged.get(d, 0), 0) / math.log2(r + 1) for d, r in ranks.items() if r <= 10)
    return dcg / ideal


def _p_mrr(orig: dict[str, int], new: dict[str, int], changed: list[str]) -> float:
    scores = []
    for doc in changed:
        r_og = orig.get(doc, len(orig) + 1)
        r_new = new.get(doc, len(new) + 1)
        scores.append(r_new / r_og - 1 if r_og >= r_new else 1 - r_og / r_new)
    return sum(scores) / len(scores)


def _irs(orig: dict[str, int], new: dict[str, int], t_pos: list[str], t_neg: list[str],
         n: int) -> float:
    if not t_pos and not t_neg:
        return 0.0

    def g(ranks: dict[str, int], docs: list[str]) -> float:
        return sum(1 / math.log2(ranks.get(d, n + 1) + 1) for d in docs)

    def s(ranks: dict[str, int]) -> float:
        return (g(ranks, t_pos) - g(orig, t_pos)) - (g(ranks, t_neg) - g(orig, t_neg))

    ideal = {d: i + 1 for i, d in enumerate(t_pos)}
    ideal.update({d: n - len(t_neg) + 1 + i for i, d in enumerate(t_neg)})
    worst = {d: i + 1 for i, d in enumerate(t_neg)}
    worst.update({d: n - len(t_pos) + 1 + i for i, d in enumerate(t_pos)})
    score, s_ideal, s_worst = s(new), s(ideal), s(worst)
    if score >= 0:
        value = score / s_ideal if s_ideal > 0 else 1.0
    else:
        value = score / abs(s_worst) if s_worst < 0 else -1.0
    return max(-1.0, min(1.0, value))


def _followtable_inputs(root: Path, original: Path, altered: Path) -> dict:
    """What the plain path and every peer read: queries and topics, both qrels, both runs
    as dicts."""
    queries = [str(o["_id"]) for o in _read_jsonl(root / "queries.jsonl")]
    return {"queries": queries,
            "topics": sorted({q.rsplit("_", 1)[0] for q in queries}),
            "query_positive": _read_qrels(root / "qrels" / "for_only_query_test.tsv"),
            "instruction_positive": _read_qrels(root / "qrels" / "test.tsv"),
            "original": _read_run(original), "altered": _read_run(altered)}


def _pair_documents(inputs: dict, query: str) -> tuple[str, list[str], list[str]]:
    """An altered query's topic, its instruction-relevant documents (T+) and the
    topic-relevant ones the instruction drops (T-, the changed documents), each sorted."""
    topic = query.rsplit("_", 1)[0]
    t_pos = sorted(d for d, r in inputs["instruction_positive"].get(query, {}).items()
                   if r > 0)
    t_neg = sorted(d for d, r in inputs["query_positive"].get(topic, {}).items()
                   if r > 0 and d not in set(t_pos))
    return topic, t_pos, t_neg


def plain_followtable_eval(root: Path, original: Path, altered: Path) -> dict[str, float]:
    """nDCG@10 of both runs, p-MRR and IRS of one FollowTable dataset, plainly."""
    with (root / "corpus.jsonl").open(encoding="utf-8") as fh:
        n_docs = sum(1 for line in fh if line.strip())
    inputs = _followtable_inputs(root, original, altered)
    queries, topics = inputs["queries"], inputs["topics"]
    query_positive = inputs["query_positive"]
    instruction_positive = inputs["instruction_positive"]
    orig_ranks = {q: _ranks(docs) for q, docs in inputs["original"].items()}
    alt_ranks = {q: _ranks(docs) for q, docs in inputs["altered"].items()}
    pmrr, irs = [], []
    for q in queries:
        topic, t_pos, t_neg = _pair_documents(inputs, q)
        orig, new = orig_ranks.get(topic, {}), alt_ranks.get(q, {})
        if t_neg:
            pmrr.append(_p_mrr(orig, new, t_neg))
        irs.append(_irs(orig, new, t_pos, t_neg, n_docs))
    return {
        "original/nDCG@10": sum(_ndcg10(orig_ranks.get(t, {}), query_positive.get(t, {}))
                                for t in topics) / len(topics),
        "altered/nDCG@10": sum(_ndcg10(alt_ranks.get(q, {}), instruction_positive.get(q, {}))
                               for q in queries) / len(queries),
        "p-MRR": sum(pmrr) / len(pmrr),
        "IRS": sum(irs) / len(irs),
    }


# --- peers: other libraries computing some of the same figures (each in its own process) ---

# Each peer computes what it can of eval's figures, from the same run files and data, as
# its users would: the runs read into Python dicts (what each library takes), its own
# code computing. The figure it shares with eval must agree to 1e-9, so the two did the
# same work; except ranx's, which orders tied scores its own way rather than by docid
# descending (BM25's WTR original run has five documents tied across rank 10 of query
# 26: ranx's nDCG@10 of that run is 0.5400, trec_eval's 0.5390), so its difference is
# printed, not refused.
PEERS = {
    # name: (module it needs, what it computes, whether it breaks ties as trec_eval does)
    "pytrec_eval": ("pytrec_eval", "nDCG@10 of both runs", True),
    "ir_measures": ("ir_measures", "nDCG@10 of both runs", True),
    "ranx": ("ranx", "nDCG@10 of both runs", False),
    "mteb": ("mteb", "p-MRR (calculate_pmrr)", True),
}


def _mean_over(units: list[str], per_unit: dict[str, float]) -> float:
    # A unit the run does not answer scores 0, as trec_eval's -c and eval count it.
    return sum(per_unit.get(u, 0.0) for u in units) / len(units)


def _ndcg_of_both(per_query_ndcg, inputs: dict) -> dict[str, float]:  # noqa: ANN001
    """eval's two nDCG@10 figures from a peer's per-query nDCG@10 (``per_query_ndcg(qrels,
    run)`` -> {query: value})."""
    return {"original/nDCG@10": _mean_over(inputs["topics"], per_query_ndcg(
                inputs["query_positive"], inputs["original"])),
            "altered/nDCG@10": _mean_over(inputs["queries"], per_query_ndcg(
                inputs["instruction_positive"], inputs["altered"]))}


def _pytrec_eval_ndcg(qrels: dict, run: dict) -> dict[str, float]:
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
    return {q: m["ndcg_cut_10"] for q, m in evaluator.evaluate(run).items()}


def _ir_measures_ndcg(qrels: dict, run: dict) -> dict[str, float]:
    import ir_measures

    return {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.nDCG @ 10],
                                                                qrels, run)}


def _ranx_ndcg(qrels: dict, run: dict) -> dict[str, float]:
    from ranx import Qrels, Run, evaluate

    judged = Qrels({q: docs for q, docs in qrels.items() if docs})
    ranked = Run({q: docs for q, docs in run.items() if docs})
    evaluate(judged, ranked, "ndcg@10", make_comparable=True)
    return dict(ranked.scores["ndcg@10"])


def _mteb_pmrr(inputs: dict) -> dict[str, float]:
    """p-MRR by mteb's own function, each altered query paired with its topic's original
    run and scored on the documents relevant to the topic but not to the instruction
    (FollowTable's changed documents), as eval pairs them."""
    from mteb._evaluators.retrieval_metrics import calculate_pmrr

    changed = {}
    for q in inputs["queries"]:
        _, _, t_neg = _pair_documents(inputs, q)
        if t_neg:
            changed[q] = t_neg
    original_run = {f"{q}-og": inputs["original"].get(q.rsplit("_", 1)[0], {})
                    for q in changed}
    new_run = {f"{q}-changed": inputs["altered"].get(q, {}) for q in changed}
    return {"p-MRR": float(calculate_pmrr(original_run, new_run, changed))}


def peer_followtable_eval(peer: str, root: Path, original: Path, altered: Path) -> dict:
    """One peer's figures, and its CPU seconds by step: importing its library, reading
    the inputs, computing."""
    start = time.process_time()
    import_module(PEERS[peer][0])
    imported = time.process_time()
    inputs = _followtable_inputs(root, original, altered)
    read = time.process_time()
    if peer == "mteb":
        metrics = _mteb_pmrr(inputs)
    else:
        metrics = _ndcg_of_both({"pytrec_eval": _pytrec_eval_ndcg,
                                 "ir_measures": _ir_measures_ndcg,
                                 "ranx": _ranx_ndcg}[peer], inputs)
    done = time.process_time()
    return {"metrics": metrics, "cpu_s": {"import": imported - start, "read": read - imported,
                                          "compute": done - read}}


# --- timing ---

def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """(wall s, CPU s of the child, stdout) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def child_environment(**extra: str) -> dict[str, str]:
    """The environment of a timed command: this one, with bytecode caching on.

    An installed package runs from compiled bytecode (pip compiles it at install; an
    editable install writes ``__pycache__`` on first import). Some environments set
    PYTHONDONTWRITEBYTECODE, and then every run compiles every imported module of the
    project from source, which is no user's start-up; so it is unset here, and one
    untimed round (:func:`measure`) writes the caches first, for both checkouts alike.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(extra)
    return env


def measure(commands: list[tuple[str, list[str], dict[str, str], Path]], repeat: int) -> list[dict]:
    """Median wall and CPU time of each command, the commands interleaved round by round
    so that a change in the machine's load falls on all of them alike, in reverse order
    every other round: the command run first in a round, after the plain script that
    ends the round before, measured 8% slower (`eval` of WQT, whichever checkout came
    first). A first, untimed round warms the bytecode and page caches."""
    walls: list[list[float]] = [[] for _ in commands]
    cpus: list[list[float]] = [[] for _ in commands]
    outs = [""] * len(commands)
    for _, argv, env, cwd in commands:
        timed(argv, env, cwd)
    for round_ in range(repeat):
        order = range(len(commands)) if round_ % 2 == 0 else reversed(range(len(commands)))
        for i in order:
            _, argv, env, cwd = commands[i]
            wall, cpu, outs[i] = timed(argv, env, cwd)
            walls[i].append(wall)
            cpus[i].append(cpu)
    rows = []
    for i, (label, *_) in enumerate(commands):
        w, c = walls[i], cpus[i]
        rows.append({"label": label, "wall": statistics.median(w), "cpu": statistics.median(c),
                     "stdout": outs[i]})
        print(f"{label:46} wall {statistics.median(w):6.3f} s ({min(w):.3f}-{max(w):.3f})"
              f"   CPU {statistics.median(c):6.3f} s ({min(c):.3f}-{max(c):.3f})")
    return rows


def cli_module(checkout: Path) -> str:
    """The command line's module in a checkout: leaderboard.app.cli, or leaderboard.cli in
    one from before the package was re-layered (issue 33)."""
    return ("leaderboard.app.cli" if (checkout / "leaderboard" / "app" / "cli.py").is_file()
            else "leaderboard.cli")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="followtable/tarx", help="a FollowTable task")
    parser.add_argument("--runs", type=Path, default=ROOT / "submissions" / "bm25s",
                        help="submission folder holding runs/<task>/{original,altered}.trec.gz")
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--against", type=Path, default=None, metavar="DIR",
                        help="another checkout to time the same commands from")
    parser.add_argument("--peers", action="store_true",
                        help="also time pytrec_eval, ir_measures and ranx (nDCG@10 alone) and "
                             "mteb (p-MRR alone) on the same runs, each installed one")
    parser.add_argument("--plain", action="store_true",
                        help="(internal) run the plain reference path once, print JSON")
    parser.add_argument("--peer", choices=sorted(PEERS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    data_dir = args.data_dir or Path(os.environ.get("LEADERBOARD_DATA", ROOT.parent / "shared" / "data"))
    dataset = {"wtr": "WTR", "tarx": "TArX", "industr": "IndusTR", "wqt": "WQT"}[
        args.task.split("/", 1)[1]]
    original = args.runs / "runs" / args.task / "original.trec.gz"
    altered = args.runs / "runs" / args.task / "altered.trec.gz"
    if args.plain:
        print(json.dumps(plain_followtable_eval(data_dir / "followtable" / dataset,
                                                original, altered)))
        return 0
    if args.peer:
        print(json.dumps(peer_followtable_eval(args.peer, data_dir / "followtable" / dataset,
                                               original, altered)))
        return 0

    sys.path.insert(0, str(ROOT))
    from benchmarks.machine import cpu_description

    print(f"host: {cpu_description()}; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}")
    print(f"{args.task}: {original} + {altered}; data {data_dir}; median (min-max) of {args.repeat}, "
          "commands interleaved\n")
    python = sys.executable
    eval_args = ["eval", args.task, "--original", str(original.resolve()),
                 "--altered", str(altered.resolve()), "--data-dir", str(data_dir), "--json"]
    checkouts = [("this checkout", ROOT)]
    if args.against:
        checkouts.append((f"{args.against}", args.against.resolve()))
    # The task-data cache (leaderboard/core/data/cache.py) in a folder of this run: the untimed
    # first round fills it, as a user's first eval of a task does. The same command with
    # the cache off shows what a first eval costs.
    cache = Path(tempfile.mkdtemp(prefix="followboard-bench-cache-"))
    commands = []
    for name, checkout in checkouts:
        env = child_environment(PYTHONPATH=str(checkout), LEADERBOARD_CACHE_DIR=str(cache))
        cli = cli_module(checkout)
        commands.append((f"[{name}] leaderboard --help", [python, "-m", cli, "--help"], env,
                         checkout))
        commands.append((f"[{name}] leaderboard eval {args.task}",
                         [python, "-m", cli, *eval_args], env, checkout))
    for name, checkout in checkouts:
        # Both names of the switch: FOLLOWBOARD_DATA_CACHE is how older checkouts read it.
        commands.append((f"[{name}] eval, data cache off",
                         [python, "-m", cli_module(checkout), *eval_args],
                         child_environment(PYTHONPATH=str(checkout), LEADERBOARD_DATA_CACHE="off",
                                           FOLLOWBOARD_DATA_CACHE="off"), checkout))
    commands.append(("plain Python script, same metrics",
                     [python, str(Path(__file__).resolve()), "--plain", "--task", args.task,
                      "--runs", str(args.runs.resolve()), "--data-dir", str(data_dir)],
                     child_environment(), ROOT))
    commands.append(("python -c pass (interpreter start)", [python, "-c", "pass"],
                     child_environment(), ROOT))
    # Peers run last in a round's list (so first in every other round), each whose library
    # is installed (ir_measures and ranx: the bench extra).
    peers = [name for name, (module, *_) in PEERS.items() if find_spec(module) is not None]
    if args.peers:
        for name in peers:
            commands.append((f"{name}, {PEERS[name][1]}",
                             [python, str(Path(__file__).resolve()), "--peer", name,
                              "--task", args.task, "--runs", str(args.runs.resolve()),
                              "--data-dir", str(data_dir)], child_environment(), ROOT))
    try:
        measured = measure(commands, args.repeat)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    by_label = {row["label"]: row for row in measured}
    rows = {(name, what): by_label[f"[{name}] {label}"] for name, _ in checkouts
            for what, label in (("help", "leaderboard --help"),
                                ("eval", f"leaderboard eval {args.task}"),
                                ("uncached", "eval, data cache off"))}
    uncached = rows["this checkout", "uncached"]
    plain = by_label["plain Python script, same metrics"]
    bare = by_label["python -c pass (interpreter start)"]

    engine = json.loads(rows["this checkout", "eval"]["stdout"])["metrics"]
    reference = json.loads(plain["stdout"])
    worst = max(abs(engine[k] - reference[k]) for k in reference)
    print(f"\nscores: eval and the plain script differ by at most {worst:.2e} "
          f"({', '.join(f'{k} {100 * v:.2f}' for k, v in reference.items())}; x100)")
    if worst > 1e-9:
        print("error: the plain path and eval disagree", file=sys.stderr)
        return 1
    here_eval = rows["this checkout", "eval"]
    print(f"eval / plain script: wall {here_eval['wall'] / plain['wall']:.2f}x, "
          f"CPU {here_eval['cpu'] / plain['cpu']:.2f}x")
    print(f"--help: {rows['this checkout', 'help']['wall']:.3f} s wall "
          f"(interpreter start alone {bare['wall']:.3f} s)")
    if args.against:
        print("\n".join(against_lines(rows, str(args.against))))
    if args.peers:
        missing = sorted(set(PEERS) - set(peers))
        if missing:
            print(f"not installed, not timed: {', '.join(missing)} (pip install -e '.[bench]')")
        return report_peers(engine, here_eval, uncached,
                            {name: by_label[f"{name}, {PEERS[name][1]}"] for name in peers})
    return 0


def against_lines(rows: dict[tuple[str, str], dict], other: str) -> list[str]:
    """The other checkout's time over this one's, command by command: ``rows`` holds each
    checkout's medians by (checkout name, "help" | "eval" | "uncached"); "uncached" is
    eval with the data cache off, in each checkout alike."""
    lines = []
    for what, shown in (("help", "help"), ("eval", "eval"),
                        ("uncached", "eval, data cache off")):
        a, b = rows[other, what], rows["this checkout", what]
        lines.append(f"{shown}: {other} / this checkout = wall {a['wall'] / b['wall']:.2f}x, "
                     f"CPU {a['cpu'] / b['cpu']:.2f}x")
    return lines


def report_peers(engine: dict[str, float], cached: dict, uncached: dict,
                 peers: dict[str, dict]) -> int:
    """Each peer against eval, end to end (the whole process each), and its own CPU by
    step; 1 when a peer's figure disagrees with eval's."""
    status = 0
    print("\npeers, end to end: peer / eval (above 1: eval ahead), eval with the data "
          "cache warm / off")
    for name, row in peers.items():
        out = json.loads(row["stdout"])
        worst = max(abs(engine[k] - v) for k, v in out["metrics"].items())
        steps = ", ".join(f"{k} {v:.3f}" for k, v in out["cpu_s"].items())
        print(f"  {name:12} wall {row['wall'] / cached['wall']:5.2f}x / "
              f"{row['wall'] / uncached['wall']:5.2f}x, CPU {row['cpu'] / cached['cpu']:5.2f}x / "
              f"{row['cpu'] / uncached['cpu']:5.2f}x; its CPU-s: {steps}; "
              f"{', '.join(out['metrics'])} within {worst:.1e} of eval's")
        if worst > 1e-9 and PEERS[name][2]:
            print(f"error: {name} and eval disagree", file=sys.stderr)
            status = 1
        elif worst > 1e-9:
            print(f"  ({name} orders tied scores its own way, not by docid descending)")
    return status


if __name__ == "__main__":
    sys.exit(main())
