"""Time validating and scoring a whole submission at the real shapes of all four benchmarks.

Not a test: it prints figures. A synthetic submission covers every task of the registry:

* FollowTable (WTR, TArX, IndusTR, WQT): the real data, 1000 tables per query;
* FollowIR (Robust04 52 queries, News21 32, Core17 20) and mFollowIR (fas 40, rus 40,
  zho 43; multilingual and cross-lingual): synthetic collections in the Hugging Face
  layout with 1000-document pools (the real ones are on the Hub only), whole pools ranked;
* PI-Indic val150 T1-T3 (288 tasks): the real data, the 150-item corpus ranked per query;
  T4 (12 tasks): 300 predictions each.

Runs are "relevant first, then random" so scores are non-trivial. Building is not timed.
Scoring runs in a fresh Python process (``leaderboard.submission.pipeline.score_submission``, the
work behind ``leaderboard score``) so its peak memory (ru_maxrss) is its own. Then the
engine's p-MRR and IRS are timed against a straightforward per-document Python version
(dict lookups per document, as the plain references in
tests/test_followtable_reference.py) on the same parsed runs, and the results compared.
Each side takes the task's judged documents as the data loader provides them (plain:
{query: [doc ids]}; engine: the same encoded once per loaded task, ``TaskData.judged``).

    .venv/bin/python benchmarks/score_suite.py                  # build in a temp dir, score
    .venv/bin/python benchmarks/score_suite.py --work /tmp/suite --keep   # reuse later
    .venv/bin/python benchmarks/score_suite.py --work /tmp/suite --profile out.prof
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from benchmarks.machine import cpu_description  # noqa: E402
from fixtures.mteb_collection import write_collection  # noqa: E402
from leaderboard.benchmarks.registry import all_tasks  # noqa: E402

SUBMISSION_ID = "synthetic-suite"
# Query counts of the Hugging Face collections (FollowIR Table 1, mFollowIR Table 1).
FOLLOWIR_QUERIES = {"robust04": 52, "news21": 32, "core17": 20}
MFOLLOWIR_QUERIES = {"fas": 40, "rus": 40, "zho": 43}
POOL_SIZE = 1000
MANIFEST = "manifest.json"


def default_shared_data() -> Path:
    return Path(os.environ.get("LEADERBOARD_DATA", REPO.parent / "shared" / "data")).resolve()


# --- building the data directory and the submission (not timed) ---

def build_data_dir(data: Path, shared: Path) -> None:
    """Real FollowTable and PI-Indic (symlinked, never copied), synthetic FollowIR/mFollowIR."""
    data.mkdir(parents=True, exist_ok=True)
    for name in ("followtable", "pi-indic"):
        link = data / name
        if not link.exists():
            link.symlink_to(shared / name, target_is_directory=True)
    for seed, (key, n) in enumerate(FOLLOWIR_QUERIES.items()):
        write_collection(data / "followir" / key, n_queries=n, pool_size=POOL_SIZE,
                         corpus_size=n * 900, n_relevant=40, n_changed=12, seed=seed,
                         text=False)
    for setting in ("multilingual", "cross-lingual"):
        for seed, (lang, n) in enumerate(MFOLLOWIR_QUERIES.items(), 10):
            write_collection(data / "mfollowir" / setting, n_queries=n, pool_size=POOL_SIZE,
                             corpus_size=n * 900, n_relevant=30, n_changed=10, language=lang,
                             seed=seed, text=False)


def run_text(query_ids: list[str], qrels: dict[str, dict[str, int]],
             candidates: dict[str, np.ndarray] | np.ndarray, k: int,
             rng: np.random.Generator, tag: str) -> tuple[str, int]:
    """A run: per query its relevant docs first (when candidates), then random candidates."""
    blocks, n_lines = [], 0
    for q in query_ids:
        pool = candidates[q] if isinstance(candidates, dict) else candidates
        take = min(k, pool.shape[0])
        chosen = pool[rng.choice(pool.shape[0], size=take, replace=False)].tolist()
        relevant = [d for d, r in qrels.get(q, {}).items() if r > 0]
        if relevant:
            rel = set(relevant)
            chosen = (relevant + [d for d in chosen if d not in rel])[:take]
        scores = np.sort(rng.random(take))[::-1] * 100
        blocks.append("".join(f"{q} Q0 {d} {i} {s:.5f} {tag}\n"
                              for i, (d, s) in enumerate(zip(chosen, scores.tolist()), 1)))
        n_lines += take
    return "".join(blocks), n_lines


def build_submission(work: Path, data_dir: Path, compress: bool) -> dict:
    from leaderboard.core.data import load_task_data
    from leaderboard.core.data.pi_indic import t4_pairs
    from leaderboard.core.predictions import write_predictions

    root = work / "submissions" / SUBMISSION_ID
    if root.exists():
        shutil.rmtree(root)
    (root / "runs").mkdir(parents=True)
    (root / "metadata.yaml").write_text(
        f"id: {SUBMISSION_ID}\nmodel:\n  name: Synthetic oracle plus noise\n  type: other\n"
        "contact: benchmarks@example.org\nproduced_by: benchmarks/score_suite.py\n",
        encoding="utf-8")
    rng = np.random.default_rng(0)
    lines_by_benchmark: dict[str, int] = defaultdict(int)
    bytes_total = 0
    suffix = ".trec.gz" if compress else ".trec"
    for task in all_tasks().values():
        data = load_task_data(task, data_dir)
        folder = root / "runs" / task.id
        folder.mkdir(parents=True, exist_ok=True)
        if task.candidates == "pairs":
            pairs = t4_pairs(task, data_dir)["pair_id"].tolist()
            probs = rng.random(len(pairs))
            write_predictions(folder / "predictions.tsv", dict(zip(pairs, probs.tolist())))
            lines_by_benchmark[task.benchmark + " T4 predictions"] += len(pairs)
            continue
        for role in task.roles:
            role_data = data.roles[role]
            candidates = data.pools if data.pools is not None else data.doc_ids
            text, n = run_text(role_data.query_ids, role_data.qrels, candidates,
                               task.max_docs_per_query, rng, "synthetic")
            raw = text.encode("utf-8")
            bytes_total += len(raw)
            (folder / f"{role}{suffix}").write_bytes(
                gzip.compress(raw, compresslevel=1, mtime=0) if compress else raw)
            lines_by_benchmark[task.benchmark] += n
    manifest = {"run_lines": dict(lines_by_benchmark), "run_bytes": bytes_total,
                "compressed": compress, "tasks": len(all_tasks())}
    (work / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest


# --- scoring (timed, in its own process) ---

def score_in_process(work: Path, data_dir: Path, profile: Path | None) -> dict:
    """Validate and score the submission; wall times per benchmark and peak memory."""
    from leaderboard.submission.pipeline import score_submission

    root = work / "submissions" / SUBMISSION_ID
    marks: list[tuple[float, str]] = []

    def progress(message: str) -> None:
        marks.append((time.perf_counter(), message.rsplit(": ", 1)[-1]))

    (root / "results.json").unlink(missing_ok=True)
    t0 = time.perf_counter()
    c0 = time.process_time()
    if profile is not None:
        import cProfile

        profiler = cProfile.Profile()
        outcome = profiler.runcall(score_submission, root, data_dir, progress)
        profiler.dump_stats(str(profile))
    else:
        outcome = score_submission(root, data_dir, progress, after_merge=True)
    total = time.perf_counter() - t0
    cpu = time.process_time() - c0
    assert outcome.report.ok, outcome.report.lines()[:20]
    assert outcome.results_path is not None
    per_benchmark: dict[str, float] = defaultdict(float)
    marks.append((t0 + total, "end"))
    tasks = all_tasks()
    for (start, task_id), (end, _) in zip(marks, marks[1:]):
        per_benchmark[tasks[task_id].benchmark] += end - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    # Second pass in the same process: imports done and every task's data cached by
    # load_task_data, so this isolates validation + scoring + writing results.json.
    t1 = time.perf_counter()
    c1 = time.process_time()
    again = score_submission(root, data_dir, after_merge=True)
    second, second_cpu = time.perf_counter() - t1, time.process_time() - c1
    assert again.report.ok
    return {"wall_s": total, "cpu_s": cpu, "second_wall_s": second, "second_cpu_s": second_cpu,
            "per_benchmark_s": dict(per_benchmark), "peak_rss_mb": usage.ru_maxrss / 1024,
            "results_bytes": outcome.results_path.stat().st_size}


# --- engine vs straightforward p-MRR / IRS ---

def plain_ranks(run: dict[str, dict[str, float]]) -> dict[str, dict[str, int]]:
    """trec_eval order per query (score desc, docid desc), as rank dicts."""
    return {q: {d: i for i, (d, _) in enumerate(
        sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True), 1)}
        for q, docs in run.items()}


def as_dicts(qid: np.ndarray, docid: np.ndarray, score: np.ndarray) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for q, d, s in zip(qid.tolist(), docid.tolist(), score.tolist()):
        out.setdefault(q, {})[d] = s
    return out


def plain_p_mrr(orig: dict[str, dict[str, int]], new: dict[str, dict[str, int]],
                pairs: dict[str, str], changed: dict[str, list[str]],
                query_ids: list[str]) -> dict[str, float]:
    out = {}
    for q in query_ids:
        docs = changed.get(q)
        if not docs:
            continue
        o, n = orig.get(pairs[q], {}), new.get(q, {})
        if not o or not n:
            out[q] = 0.0
            continue
        total = 0.0
        for d in docs:
            r_og, r_new = o.get(d, len(o) + 1), n.get(d, len(n) + 1)
            total += (r_new / r_og - 1) if r_og >= r_new else (1 - r_og / r_new)
        out[q] = total / len(docs)
    return out


def plain_irs(orig: dict[str, dict[str, int]], new: dict[str, dict[str, int]],
              pairs: dict[str, str], positive: dict[str, list[str]],
              negative: dict[str, list[str]], n_docs: int, query_ids: list[str]
              ) -> dict[str, float]:
    def w(r: float) -> float:
        return 1 / math.log2(r + 1)

    out = {}
    for q in query_ids:
        t_pos, t_neg = positive.get(q, []), negative.get(q, [])
        o, n = orig.get(pairs[q], {}), new.get(q, {})
        if (not t_pos and not t_neg) or not o or not n:
            out[q] = 0.0
            continue
        gp_o = sum(w(o.get(d, n_docs + 1)) for d in t_pos)
        gn_o = sum(w(o.get(d, n_docs + 1)) for d in t_neg)
        gp_n = sum(w(n.get(d, n_docs + 1)) for d in t_pos)
        gn_n = sum(w(n.get(d, n_docs + 1)) for d in t_neg)
        score = (gp_n - gp_o) - (gn_n - gn_o)
        p_ideal = sum(w(r) for r in range(1, len(t_pos) + 1))
        n_ideal = sum(w(r) for r in range(n_docs - len(t_neg) + 1, n_docs + 1))
        n_worst = sum(w(r) for r in range(1, len(t_neg) + 1))
        p_worst = sum(w(r) for r in range(n_docs - len(t_pos) + 1, n_docs + 1))
        s_ideal = (p_ideal - gp_o) - (n_ideal - gn_o)
        s_worst = (p_worst - gp_o) - (n_worst - gn_o)
        if score >= 0:
            value = score / s_ideal if s_ideal > 0 else 1.0
        else:
            value = score / abs(s_worst) if s_worst < 0 else -1.0
        out[q] = max(-1.0, min(1.0, value))
    return out


def best_of(fn, repeat: int, setup=None) -> tuple[float, object]:  # noqa: ANN001
    """Best CPU time of ``fn(setup())`` over ``repeat`` runs; setup is not timed.

    CPU time (both sides are single-threaded Python/numpy) rather than wall time, so
    that other processes sharing the cores do not decide the ratio.
    """
    best, result = math.inf, None
    for _ in range(repeat):
        arg = setup() if setup is not None else None
        t = time.process_time()
        result = fn(arg)
        best = min(best, time.process_time() - t)
    return best, result


def compare_pair_metrics(work: Path, data_dir: Path, task_ids: list[str], repeat: int,
                         shuffle: bool = False) -> list[dict]:
    """Engine vs plain p-MRR / IRS on the same validated runs.

    'metric': the engine given RankedRuns built fresh for each repeat (so building their
    lookup index is timed), the plain code given ready rank dicts. 'total': both start
    from the parsed runs -- the engine orders them (the order is recomputed, not taken
    from validation) and ranks them, the plain code builds dicts and sorts each query.
    ``shuffle`` scrambles the line order first, so the engine cannot skip its sort.
    """
    from leaderboard.core.data import load_task_data
    from leaderboard.core.metrics.instruction import irs, judged_docs, p_mrr
    from leaderboard.core.metrics.ranking import RankedRun
    from leaderboard.core.runs.columns import ParsedRun
    from leaderboard.core.runs.validation import load_and_validate

    rows = []
    tasks = all_tasks()
    rng = np.random.default_rng(1)
    for task_id in task_ids:
        task = tasks[task_id]
        data = load_task_data(task, data_dir)
        folder = work / "submissions" / SUBMISSION_ID / "runs" / task_id
        parsed: dict[str, ParsedRun] = {}
        for role in ("original", "altered"):
            path = next(folder.glob(f"{role}.*"))
            report, run = load_and_validate(path, data, role)
            assert run is not None, report.lines()[:5]
            if shuffle:
                p = rng.permutation(len(run))
                run = ParsedRun(run.q_codes[p], run.q_names, run.d_codes[p], run.d_names,
                                run.score[p], run.line[p], run.rank[p])
            parsed[role] = run
        altered_ids = data.roles["altered"].query_ids
        n_lines = len(parsed["original"]) + len(parsed["altered"])

        def forget_order() -> None:  # make the engine order the rows again
            for run in parsed.values():
                run._grouped = run._order = None

        def fresh_ranked() -> dict[str, RankedRun]:
            forget_order()
            return {r: RankedRun.from_parsed(parsed[r]) for r in parsed}

        def plain_ranked(_: object) -> dict[str, dict[str, dict[str, int]]]:
            return {r: plain_ranks(as_dicts(parsed[r].qid, parsed[r].docid, parsed[r].score))
                    for r in parsed}

        rank_dicts = plain_ranked(None)
        # Both sides take the judged documents as the data loader gives them: the plain
        # code as {query: [doc ids]}, the engine also encoded once per loaded task
        # (judged_docs, what scoring uses), as trec_eval reads its qrels once.
        changed, positive = judged_docs(data, "changed"), judged_docs(data, "instruction_positive")
        metrics = {"p-MRR": (
            lambda rk: p_mrr(rk["original"], rk["altered"], data.pairs, changed, altered_ids),
            lambda rd: plain_p_mrr(rd["original"], rd["altered"], data.pairs, data.changed,
                                   altered_ids))}
        if "IRS" in task.pair_metrics:
            metrics["IRS"] = (
                lambda rk: irs(rk["original"], rk["altered"], data.pairs, positive, changed,
                               data.corpus_size, altered_ids),
                lambda rd: plain_irs(rd["original"], rd["altered"], data.pairs,
                                     data.instruction_positive, data.changed, data.corpus_size,
                                     altered_ids))
        for name, (engine_fn, plain_fn) in metrics.items():
            t_engine, engine_out = best_of(engine_fn, repeat, fresh_ranked)
            t_plain, plain_out = best_of(plain_fn, repeat, lambda: rank_dicts)
            t_engine_total, _ = best_of(lambda _: engine_fn(fresh_ranked()), repeat,
                                        forget_order)
            t_plain_total, _ = best_of(lambda _: plain_fn(plain_ranked(None)), repeat)
            assert set(engine_out) == set(plain_out), name  # type: ignore[arg-type]
            diff = max(abs(engine_out[q] - plain_out[q]) for q in plain_out)  # type: ignore[index]
            rows.append({
                "task": task_id, "metric": name, "run_lines": n_lines,
                "engine_metric_s": t_engine, "plain_metric_s": t_plain,
                "engine_total_s": t_engine_total, "plain_total_s": t_plain_total,
                "max_abs_diff": diff,
            })
    return rows


def _pair_report(work: Path, data_dir: Path, args: argparse.Namespace) -> int:
    print("\np-MRR / IRS: engine vs straightforward per-document Python "
          f"(best CPU time of {args.repeat})")
    print("  plain / engine time = ratio; 'metric': given ranked runs (engine: fresh "
          "RankedRuns, index build timed);\n  'total': from the parsed runs, ordering "
          "and ranking included for both")
    pair_tasks = ["followtable/wqt", "followtable/industr", "followir/robust04",
                  "mfollowir/zho"]
    rows = compare_pair_metrics(work, data_dir, pair_tasks, args.repeat)
    rows += [dict(r, task=r["task"] + " (shuffled)") for r in compare_pair_metrics(
        work, data_dir, pair_tasks[:1], args.repeat, shuffle=True)]
    for r in rows:
        print(f"  {r['task']:31} {r['metric']:6} {r['run_lines']:>9,} lines  "
              f"metric {r['plain_metric_s'] * 1e3:8.1f} / {r['engine_metric_s'] * 1e3:7.1f} ms "
              f"= {r['plain_metric_s'] / r['engine_metric_s']:6.1f}x   "
              f"total {r['plain_total_s'] * 1e3:8.1f} / {r['engine_total_s'] * 1e3:7.1f} ms "
              f"= {r['plain_total_s'] / r['engine_total_s']:5.1f}x   "
              f"max |diff| {r['max_abs_diff']:.1e}")
    return 0


# --- driver ---

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, help="work folder (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--reuse", action="store_true",
                        help="reuse the data and submission already in --work")
    parser.add_argument("--shared-data", type=Path, default=default_shared_data(),
                        help="the real benchmark data (default: $LEADERBOARD_DATA or ../shared/data)")
    parser.add_argument("--plain-runs", action="store_true", help="write runs uncompressed")
    parser.add_argument("--repeat", type=int, default=3, help="repeats for the p-MRR/IRS timing")
    parser.add_argument("--profile", type=Path, help="write a cProfile of the scoring pass here")
    parser.add_argument("--skip-pair-metrics", action="store_true")
    parser.add_argument("--skip-scoring", action="store_true",
                        help="only the p-MRR/IRS comparison (needs a built --work folder)")
    parser.add_argument("--score-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.score_only:  # the child process: score and print one JSON object
        assert args.work is not None
        print(json.dumps(score_in_process(args.work, args.work / "data", args.profile)))
        return 0

    work = args.work or Path(tempfile.mkdtemp(prefix="score-suite-"))
    data_dir = work / "data"
    try:
        if args.reuse and (work / MANIFEST).is_file():
            manifest = json.loads((work / MANIFEST).read_text())
            print(f"reusing {work}")
        else:
            t = time.perf_counter()
            build_data_dir(data_dir, args.shared_data)
            manifest = build_submission(work, data_dir, compress=not args.plain_runs)
            print(f"built data and submission in {work} ({time.perf_counter() - t:.0f} s, "
                  "not timed below)")
        n_lines = sum(v for k, v in manifest["run_lines"].items() if "predictions" not in k)
        print(f"machine: {cpu_description()}, "
              f"Python {platform.python_version()}, numpy {np.__version__}")
        print(f"submission: {manifest['tasks']} tasks, {n_lines:,} run lines "
              f"({manifest['run_bytes'] / 2**20:.0f} MiB uncompressed, "
              f"{'gzip' if manifest['compressed'] else 'plain'})")
        for name, n in sorted(manifest["run_lines"].items()):
            print(f"  {name:28} {n:>12,}")

        if args.skip_scoring:
            return _pair_report(work, data_dir, args)
        cmd = [sys.executable, __file__, "--score-only", "--work", str(work)]
        if args.profile:
            cmd += ["--profile", str(args.profile.resolve())]
        child = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if child.returncode != 0:
            print(child.stdout, child.stderr, sep="\n", file=sys.stderr)
            return 1
        score = json.loads(child.stdout.strip().splitlines()[-1])
        print("\nvalidate + score (leaderboard.submission.pipeline.score_submission, fresh process)")
        print(f"  first pass, fresh process      wall {score['wall_s']:6.2f} s "
              f"{n_lines / score['wall_s']:11,.0f} lines/s   CPU {score['cpu_s']:6.2f} s "
              f"{n_lines / score['cpu_s']:11,.0f} lines/CPU-s")
        print(f"  second pass, data cached       wall {score['second_wall_s']:6.2f} s "
              f"{n_lines / score['second_wall_s']:11,.0f} lines/s   CPU "
              f"{score['second_cpu_s']:6.2f} s {n_lines / score['second_cpu_s']:11,.0f} "
              "lines/CPU-s")
        print(f"  (wall above CPU means other processes shared the cores: load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
        print(f"  peak memory (ru_maxrss, after the first pass)  {score['peak_rss_mb']:.0f} MB")
        print("  first pass by benchmark (wall; data loading included):")
        for bench, secs in sorted(score["per_benchmark_s"].items()):
            lines = manifest["run_lines"].get(bench, 0)
            rate = f"{lines / secs:12,.0f} lines/s" if lines else ""
            print(f"    {bench:26} {secs:8.2f} s {rate}")
        wall_ok = n_lines / score["wall_s"] >= 1e6
        cpu_ok = n_lines / score["cpu_s"] >= 1e6
        print(f"  target >= 1,000,000 lines/s end to end: wall {'met' if wall_ok else 'MISSED'}, "
              f"per CPU-second {'met' if cpu_ok else 'MISSED'}; target < 1.5 GB peak: "
              f"{'met' if score['peak_rss_mb'] < 1536 else 'MISSED'}")

        if not args.skip_pair_metrics:
            _pair_report(work, data_dir, args)
    finally:
        if args.work is None and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        elif args.keep or args.work is not None:
            print(f"\nwork folder kept: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
