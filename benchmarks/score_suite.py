"""Time validating and scoring a whole submission at the real shapes of all four benchmarks.

Not a test: it prints figures. A synthetic submission covers every task of the registry:

* FollowTable (WTR, TArX, IndusTR, WQT): the real data, 1000 tables per query;
* FollowIR (Robust04 52 queries, News21 32, Core17 20) and mFollowIR (fas 40, rus 40,
  zho 43; multilingual and cross-lingual): synthetic collections in the Hugging Face
  layout with 1000-document pools (the real ones are on the Hub only), whole pools ranked;
* PI-Indic val150 T1-T3 (288 tasks): the real data, the 150-item corpus ranked per query;
  T4 (12 tasks): 300 predictions each.

Runs are "relevant first, then random" so scores are non-trivial. Building is not timed.
Scoring runs in fresh Python processes (``leaderboard.submission.pipeline.score_submission``,
the work behind ``leaderboard score``, explanation files included) so each one's peak
memory (ru_maxrss) is its own: first with the task-data cache
(leaderboard/core/data/cache.py) empty, in a folder of this run ("cold": every task's
data parsed from its files, T4's hard negatives mined), then with it filled ("warm", as
any later `leaderboard score` on the machine); each process also scores the submission a
second time, its imports done (its new worker processes read each task's data from the
task-data cache again: a pass over several workers keeps no data in memory between
passes, since the workers are forked anew and this process loaded none). Each reports
wall and CPU time (user + system, all threads), CPU time per benchmark and the
explorer's share: the CPU time of building the explanation files, writing them and
compressing them (on the writer's threads).
``--against DIR`` runs the same processes from another checkout (its own copy of this
script; older copies report less), interleaved with this one's.

Then the engine's p-MRR and IRS are timed against a straightforward per-document Python
version (dict lookups per document, as the plain references in
tests/test_followtable_reference.py) on the same parsed runs, and the results compared.
Each side takes the task's judged documents as the data loader provides them (plain:
{query: [doc ids]}; engine: the same encoded once per loaded task, ``TaskData.judged``).

``--peers`` times pytrec_eval (trec_eval's C code) computing nDCG and MAP over the same
run files, benchmark by benchmark, in a fresh process: reading and parsing the gzipped
files into its dicts and evaluating them (the judgments handed over ready, untimed).

``--pr-check`` times `leaderboard ci pr-check` of the whole submission end to end, the wait
a submitter sees: in a throwaway git repository whose base commit holds the results
committed in this repository, the pull request adding the synthetic submission, the
task-data cache off as in the workflow (.github/workflows/pr-validate.yml).

    .venv/bin/python benchmarks/score_suite.py                  # build in a temp dir, score
    .venv/bin/python benchmarks/score_suite.py --work /tmp/suite --keep   # reuse later
    .venv/bin/python benchmarks/score_suite.py --work /tmp/suite --reuse --peers --pr-check \\
        --against /work/base
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
import threading
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from benchmarks.cli_startup import cli_module  # noqa: E402
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
            pairs = list(t4_pairs(task, data_dir).pair_id)
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

def _explorer_clock() -> dict[str, float]:
    """CPU seconds this process spends on the explanation files, accumulating as scoring
    runs: writing them (as the tasks are done, and their manifest at the end) and
    compressing any the tasks' checks left uncompressed. Building and compressing them on
    the tasks' side is in each task's result
    (:class:`leaderboard.submission.task_checks.TaskResult`)."""
    from leaderboard.submission import explain_files, explain_writers

    spent = {"write": 0.0, "compress": 0.0}
    lock = threading.Lock()

    def clocked(function, key: str):  # noqa: ANN001, ANN202
        def timed(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            start = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                with lock:
                    spent[key] += time.thread_time() - start
        return timed

    # Methods: replaced on their classes, which the pipeline's scoring instantiates.
    for writer in (explain_writers.ExplanationFolder, explain_writers.KeptExplanations):
        writer.add = clocked(writer.add, "write")
        writer.finish = clocked(writer.finish, "write")
    explain_files.ExplainFile.gzipped = clocked(explain_files.ExplainFile.gzipped, "compress")
    return spent


def _task_results() -> tuple[list, list[int]]:
    """The pipeline's task results as they come (each with its phases' CPU seconds), and
    the number of worker processes of each pass."""
    from leaderboard.submission import pipeline, task_checks

    results: list = []
    workers: list[int] = []
    checked = pipeline.checked_tasks

    def recording(jobs, options, *on_result):  # noqa: ANN001, ANN002, ANN202
        workers.append(task_checks.worker_count(jobs))
        for result in checked(jobs, options, *on_result):
            results.append(result)
            yield result

    pipeline.checked_tasks = recording
    return results, workers


def _cpu_now() -> float:
    """CPU seconds of this process and of its children that have ended (the workers,
    once their pool is shut down)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _pass_figures(results: list, explorer: dict[str, float]) -> dict:
    """CPU by benchmark (the tasks' own, on whichever process ran them) and the
    explorer's CPU (building and compressing on the tasks' side, writing and any
    compressing here)."""
    tasks = all_tasks()
    by_benchmark: dict[str, float] = defaultdict(float)
    build = compress = 0.0
    for result in results:
        by_benchmark[tasks[result.task_id].benchmark] += sum(result.cpu_s.values())
        build += result.cpu_s.get("explain", 0.0)
        compress += result.cpu_s.get("compress", 0.0)
    return {"per_benchmark_cpu_s": dict(by_benchmark),
            "explorer_cpu_s": {"build": build, "write": explorer["write"],
                               "compress": compress + explorer["compress"]},
            "tasks_cpu_s": sum(by_benchmark.values())}


def score_in_process(work: Path, data_dir: Path, profile: Path | None) -> dict:
    """Validate and score the submission twice; wall and CPU times (worker processes
    included), CPU by benchmark, the explorer's CPU time, peak memory."""
    from leaderboard.submission.pipeline import score_submission

    root = work / "submissions" / SUBMISSION_ID
    explorer = _explorer_clock()
    results, workers = _task_results()

    (root / "results.json").unlink(missing_ok=True)
    t0 = time.perf_counter()
    c0 = _cpu_now()
    if profile is not None:
        import cProfile

        profiler = cProfile.Profile()
        outcome = profiler.runcall(score_submission, root, data_dir, after_merge=True)
        profiler.dump_stats(str(profile))
    else:
        outcome = score_submission(root, data_dir, after_merge=True)
    total = time.perf_counter() - t0
    cpu = _cpu_now() - c0
    first = _pass_figures(results, explorer)
    assert outcome.report.ok, outcome.report.lines()[:20]
    assert outcome.results_path is not None
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    # Second pass in the same process: imports done, and the task data this process
    # loaded kept (the workers' was theirs), so this isolates checking, scoring and
    # writing when workers are used only if this process loaded the data itself.
    for key in explorer:
        explorer[key] = 0.0
    results.clear()
    t1 = time.perf_counter()
    c1 = _cpu_now()
    again = score_submission(root, data_dir, after_merge=True)
    second, second_cpu = time.perf_counter() - t1, _cpu_now() - c1
    assert again.report.ok
    then = _pass_figures(results, explorer)
    return {"wall_s": total, "cpu_s": cpu, "second_wall_s": second, "second_cpu_s": second_cpu,
            "workers": workers[0] if workers else 0,
            "tasks_cpu_s": first["tasks_cpu_s"],
            "per_benchmark_cpu_s": first["per_benchmark_cpu_s"],
            "second_per_benchmark_cpu_s": then["per_benchmark_cpu_s"],
            "explorer_cpu_s": first["explorer_cpu_s"],
            "second_explorer_cpu_s": then["explorer_cpu_s"],
            "peak_rss_mb": usage.ru_maxrss / 1024,
            "worker_peak_rss_mb": children.ru_maxrss / 1024,
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


# --- scoring in fresh processes, cold and warm ---

def _child_env(checkout: Path, **extra: str) -> dict[str, str]:
    """This environment for a child running ``checkout``'s code; ``extra`` names each
    cache setting both as the code reads it now (LEADERBOARD_CACHE_DIR holds task-data/,
    LEADERBOARD_DATA_CACHE=off) and as the code at filing did (FOLLOWBOARD_DATA_CACHE)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(checkout), **extra)
    return env


def score_child(checkout: Path, work: Path, cache: Path, profile: Path | None = None
                ) -> dict:
    """One fresh process of ``checkout``'s copy of this script scoring the submission
    (:func:`score_in_process`), with the task-data cache in ``cache``."""
    cmd = [sys.executable, str(checkout / "benchmarks" / "score_suite.py"), "--score-only",
           "--work", str(work)]
    if profile is not None:
        cmd += ["--profile", str(profile.resolve())]
    child = subprocess.run(cmd, capture_output=True, text=True, check=False,
                           env=_child_env(checkout, LEADERBOARD_CACHE_DIR=str(cache),
                                          FOLLOWBOARD_DATA_CACHE=str(cache / "task-data")))
    if child.returncode != 0:
        raise RuntimeError(f"{checkout}: scoring failed\n{child.stdout}\n{child.stderr}")
    return json.loads(child.stdout.strip().splitlines()[-1])


def scoring_rounds(work: Path, checkouts: list[tuple[str, Path]], warm_runs: int,
                   profile: Path | None) -> list[tuple[str, str, dict]]:
    """(checkout, "cold"/"warm", figures) for each checkout, the checkouts interleaved:
    a cold process (its own empty task-data cache), then ``warm_runs`` warm ones."""
    out = []
    caches = {name: work / f"task-data-cache-{i}" for i, (name, _) in enumerate(checkouts)}
    for state in ["cold"] + ["warm"] * warm_runs:
        for name, checkout in checkouts:
            if state == "cold":
                shutil.rmtree(caches[name], ignore_errors=True)
            out.append((name, state, score_child(checkout, work, caches[name],
                                                 profile if name == "this checkout" else None)))
    return out


def print_scoring(rounds: list[tuple[str, str, dict]], n_lines: int,
                  run_lines: dict[str, int]) -> None:
    print("\nvalidate + score + explanation files (leaderboard.submission.pipeline."
          "score_submission), fresh processes; CPU = user + system, all threads, worker "
          "processes included")
    for name, state, score in rounds:
        print(f"  [{name}] {state} task-data cache")
        for label, wall, cpu, explorer in (
                ("first pass, fresh process", score["wall_s"], score["cpu_s"],
                 score.get("explorer_cpu_s")),
                ("second pass, same process", score["second_wall_s"], score["second_cpu_s"],
                 score.get("second_explorer_cpu_s"))):
            line = (f"    {label:28} wall {wall:6.2f} s {n_lines / wall:11,.0f} lines/s   "
                    f"CPU {cpu:6.2f} s {n_lines / cpu:11,.0f} lines/CPU-s")
            if explorer is not None:
                spent = sum(explorer.values())
                line += (f"   explorer {spent:5.2f} CPU-s = {100 * spent / cpu:4.1f}% (build "
                         f"{explorer['build']:.2f}, write {explorer['write']:.2f}, compress "
                         f"{explorer['compress']:.2f})")
            print(line)
        cpu_of = score.get("per_benchmark_cpu_s", {})
        workers = score.get("workers")
        print(f"    peak memory {score['peak_rss_mb']:.0f} MB"
              + (f" (this process) + {workers} x {score['worker_peak_rss_mb']:.0f} MB at most "
                 f"(worker processes)" if workers else "")
              + "; first pass by benchmark, the tasks' own CPU (loading, checking, scoring, "
                "explaining; not the writing):")
        if "tasks_cpu_s" in score:
            print(f"      {'all tasks':22} {score['tasks_cpu_s']:7.2f} CPU-s; the rest of the "
                  f"first pass (finding the files, writing, the folder's transaction, "
                  f"starting the workers) {score['cpu_s'] - score['tasks_cpu_s']:.2f} CPU-s")
        for bench, cpu in sorted(cpu_of.items()):
            lines = run_lines.get(bench, 0)
            print(f"      {bench:22} {cpu:7.2f} CPU-s"
                  + (f" {lines / cpu:12,.0f} lines/CPU-s" if lines else ""))
    print(f"  (wall above CPU / 2 means other processes shared the cores: load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs now)")
    best = min((s for n, st, s in rounds if n == "this checkout" and st == "warm"),
               key=lambda s: s["cpu_s"], default=None)
    # The explorer's share of a cold first pass too: that pass builds every task's texts,
    # as each `ci pr-check` does (its workers read no task-data cache).
    cold = next((s for n, st, s in rounds if n == "this checkout" and st == "cold"), None)
    cold_share = ""
    if cold is not None and cold.get("explorer_cpu_s"):
        cold_share = (f" (cold first pass: "
                      f"{100 * sum(cold['explorer_cpu_s'].values()) / cold['cpu_s']:.1f}%)")
    if best is not None:
        explorer = sum(best.get("explorer_cpu_s", {}).values())
        print(f"  targets (warm, best run): >= 2,000,000 lines/s fresh: wall "
              f"{n_lines / best['wall_s']:,.0f}, CPU / 2 {2 * n_lines / best['cpu_s']:,.0f}; "
              f">= 3,000,000 lines/s cached: wall {n_lines / best['second_wall_s']:,.0f}, "
              f"CPU / 2 {2 * n_lines / best['second_cpu_s']:,.0f}; explorer <= 20% of the "
              f"pass: {100 * explorer / best['cpu_s']:.1f}%{cold_share}; peak < 1.5 GB: "
              f"{_peak_mb(best):.0f} MB" + (" (this process and its workers together)"
                                            if best.get("workers") else ""))


def _peak_mb(score: dict) -> float:
    """Peak memory of a scoring process, its workers' added at their largest (a bound on
    what they held at once)."""
    return score["peak_rss_mb"] + score.get("workers", 0) * score.get("worker_peak_rss_mb", 0)


# --- pytrec_eval over the same files ---

def peers_in_process(work: Path, data_dir: Path) -> dict[str, dict[str, float]]:
    """pytrec_eval's nDCG and MAP of every run file, by benchmark: CPU and wall seconds
    of reading, parsing and evaluating (the judgments handed over ready, untimed)."""
    import pytrec_eval

    from leaderboard.core.data import load_task_data

    folder = work / "submissions" / SUBMISSION_ID / "runs"
    out: dict[str, dict[str, float]] = defaultdict(lambda: {"cpu_s": 0.0, "wall_s": 0.0,
                                                            "lines": 0})
    for task in all_tasks().values():
        if task.candidates == "pairs":
            continue
        data = load_task_data(task, data_dir)
        for role in task.roles:
            qrels = {q: dict(docs) for q, docs in data.roles[role].qrels.items()}
            path = next((folder / task.id).glob(f"{role}.*"))
            wall, cpu = time.perf_counter(), time.process_time()
            run: dict[str, dict[str, float]] = {}
            opener = gzip.open if path.suffix == ".gz" else open
            with opener(path, "rt", encoding="utf-8") as fh:
                lines = 0
                for line in fh:
                    q, _, d, _, score, _ = line.split()
                    run.setdefault(q, {})[d] = float(score)
                    lines += 1
            pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "map"}).evaluate(run)
            entry = out[task.benchmark]
            entry["cpu_s"] += time.process_time() - cpu
            entry["wall_s"] += time.perf_counter() - wall
            entry["lines"] += lines
    return dict(out)


def print_peers(work: Path, rounds: list[tuple[str, str, dict]]) -> None:
    child = subprocess.run([sys.executable, __file__, "--peers-only", "--work", str(work)],
                           capture_output=True, text=True, check=False,
                           env=_child_env(REPO))
    if child.returncode != 0:
        print(f"\npytrec_eval: failed\n{child.stdout}\n{child.stderr}")
        return
    peers = json.loads(child.stdout.strip().splitlines()[-1])
    ours = [s for n, st, s in rounds if n == "this checkout" and "per_benchmark_cpu_s" in s]
    best = min(ours, key=lambda s: s["cpu_s"]) if ours else {}
    first = best.get("per_benchmark_cpu_s", {})
    second = best.get("second_per_benchmark_cpu_s", {})
    print("\npytrec_eval (nDCG and MAP) over the same run files, fresh process, its imports "
          "and judgments untimed; FollowBoard: this checkout's fastest process (validation, "
          "every metric, p-MRR/IRS and explanation files included), its first pass (imports "
          "and data loading included) and its second (imports done). CPU seconds:")
    for bench, peer in sorted(peers.items()):
        line = (f"  {bench:16} {peer['lines']:>10,.0f} lines  pytrec_eval {peer['cpu_s']:6.2f} "
                f"({peer['wall_s']:6.2f} s wall)")
        if bench in first:
            line += (f"   FollowBoard {first[bench]:6.2f} first, {second.get(bench, 0):6.2f} "
                     f"second: pytrec_eval / FollowBoard {peer['cpu_s'] / first[bench]:4.2f}x, "
                     f"{peer['cpu_s'] / max(second.get(bench, 0), 1e-9):4.2f}x")
        print(line)
    total = sum(p["cpu_s"] for p in peers.values())
    print(f"  {'all':16} pytrec_eval {total:6.2f} CPU-s" + (
        f"   FollowBoard {best['cpu_s']:6.2f} first, {best['second_cpu_s']:6.2f} second "
        "(the whole pass)" if best else ""))


# --- `leaderboard ci pr-check` end to end ---

def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def pr_repository(work: Path) -> tuple[Path, str, str]:
    """A git repository (built once per work folder): the base commit holds this
    repository's committed results (reported rows, and each scored submission's
    metadata, results.json and per-query scores: what pr-check compares with); the head
    commit adds the synthetic submission's metadata and runs. (repo, base, head)"""
    repo = work / "pr-repo"
    if (repo / ".git").is_dir():
        return repo, _git(repo, "rev-parse", "HEAD~1"), _git(repo, "rev-parse", "HEAD")
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "benchmarks@followboard.invalid")
    _git(repo, "config", "user.name", "FollowBoard benchmarks")
    shutil.copytree(REPO / "results", repo / "results")
    for folder in sorted((REPO / "submissions").iterdir()):
        for name in ("metadata.yaml", "results.json", "per-query.json.gz"):
            if (folder / name).is_file():
                (repo / "submissions" / folder.name).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(folder / name, repo / "submissions" / folder.name / name)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    source = work / "submissions" / SUBMISSION_ID
    target = repo / "submissions" / SUBMISSION_ID
    target.mkdir(parents=True)
    shutil.copyfile(source / "metadata.yaml", target / "metadata.yaml")
    shutil.copytree(source / "runs", target / "runs")
    _git(repo, "checkout", "-q", "-b", "pr")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", f"add {SUBMISSION_ID}")
    return repo, _git(repo, "rev-parse", "HEAD~1"), _git(repo, "rev-parse", "HEAD")


def time_pr_check(work: Path, checkouts: list[tuple[str, Path]], repeat: int) -> None:
    repo, base, head = pr_repository(work)
    print(f"\n`leaderboard ci pr-check` of the whole submission, end to end (fresh process, "
          f"task-data cache off as in CI), {repeat} runs per checkout, interleaved")
    times: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for _ in range(repeat):
        for name, checkout in checkouts:
            out = work / "pr-report"
            shutil.rmtree(out, ignore_errors=True)
            cmd = [sys.executable, "-m", cli_module(checkout), "ci", "pr-check", "--repo",
                   str(repo), "--base", base, "--head", head, "--pr-number", "1", "--out",
                   str(out), "--data-dir", str(work / "data"), "--quiet"]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall = time.perf_counter()
            # Run from the checkout: `python -m` puts the working folder first on the path.
            child = subprocess.run(cmd, capture_output=True, text=True, check=False,
                                   cwd=checkout,
                                   env=_child_env(checkout, LEADERBOARD_DATA_CACHE="off",
                                                  FOLLOWBOARD_DATA_CACHE="off",
                                                  LEADERBOARD_CACHE_DIR=str(work / "cache")))
            wall = time.perf_counter() - wall
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            if child.returncode != 0:
                print(f"  [{name}] pr-check exited {child.returncode}:\n"
                      f"{child.stdout[-2000:]}\n{child.stderr[-2000:]}")
                return
            times[name].append((wall, cpu))
    for name, runs in times.items():
        walls, cpus = sorted(w for w, _ in runs), sorted(c for _, c in runs)
        print(f"  [{name}] wall {walls[len(walls) // 2]:6.2f} s (min {walls[0]:.2f}), CPU "
              f"{cpus[len(cpus) // 2]:6.2f} s (min {cpus[0]:.2f}); load average "
              f"{os.getloadavg()[0]:.1f}")


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
                        help="no scoring processes: only the p-MRR/IRS comparison and "
                             "--pr-check (needs a built --work folder)")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="also score from this checkout, interleaved (e.g. the code "
                             "before a change)")
    parser.add_argument("--warm-runs", type=int, default=2,
                        help="fresh processes with the task-data cache filled (default 2)")
    parser.add_argument("--peers", action="store_true",
                        help="time pytrec_eval over the same run files, by benchmark")
    parser.add_argument("--pr-check", action="store_true",
                        help="time `leaderboard ci pr-check` of the submission end to end")
    parser.add_argument("--pr-check-repeat", type=int, default=2,
                        help="pr-check runs per checkout (default 2)")
    parser.add_argument("--score-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--peers-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.score_only:  # the child process: score and print one JSON object
        assert args.work is not None
        print(json.dumps(score_in_process(args.work, args.work / "data", args.profile)))
        return 0
    if args.peers_only:  # the child process: pytrec_eval, one JSON object
        assert args.work is not None
        print(json.dumps(peers_in_process(args.work, args.work / "data")))
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

        checkouts = [("this checkout", REPO)]
        if args.against is not None:
            checkouts.append((str(args.against), args.against.resolve()))
        if args.skip_scoring:
            if args.pr_check:
                time_pr_check(work, checkouts, args.pr_check_repeat)
            return 0 if args.skip_pair_metrics else _pair_report(work, data_dir, args)
        try:
            rounds = scoring_rounds(work, checkouts, args.warm_runs, args.profile)
        except RuntimeError as exc:
            print(exc, file=sys.stderr)
            return 1
        print_scoring(rounds, n_lines, manifest["run_lines"])
        if args.peers:
            print_peers(work, rounds)
        if args.pr_check:
            time_pr_check(work, checkouts, args.pr_check_repeat)

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
