"""Time the significance tiers of every leaderboard view at leaderboard scale.

Not a test: it prints figures. Synthetic per-query scores for ``--systems`` systems (300 by
default) are generated at the real query counts of every task view, then every view's
tiers are computed for its primary and its headline standard metric, as the site build
does. Score generation is not timed. A naive baseline (ranx's per-permutation
``fisher_randomization_test``, and a plain-Python loop) is timed on a few comparisons per
family and extrapolated; the output says so.

    .venv/bin/python benchmarks/stats_suite.py            # everything, 300 systems
    .venv/bin/python benchmarks/stats_suite.py --systems 50 --no-baseline
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leaderboard.stats import significance as sig  # noqa: E402
from leaderboard.stats import tier_view  # noqa: E402

PI_LANGS = ("asm", "ben", "guj", "hin", "kan", "mal", "mar", "ory", "pan", "tam", "tel", "urd")
FOLLOWTABLE = {"wqt": 1386, "wtr": 267, "tarx": 408, "industr": 928}
CONSTRAINTS = ("C1", "C2", "S1", "S2", "S3")


@dataclass(frozen=True)
class View:
    family: str
    name: str
    n_queries: int
    metrics: tuple[str, str]  # (primary, headline), as in leaderboard/registry.py
    parent: str | None = None  # FollowTable constraint views slice their dataset's queries
    group: int = 0


def all_views() -> list[View]:
    views = [
        View("FollowIR", "followir/robust04", 52, ("p-MRR", "original/AP@1000")),
        View("FollowIR", "followir/news21", 32, ("p-MRR", "original/nDCG@5")),
        View("FollowIR", "followir/core17", 20, ("p-MRR", "original/AP@1000")),
    ]
    for setting in ("mfollowir", "mfollowir-cl"):
        for lang, n in (("fas", 40), ("rus", 40), ("zho", 43)):
            views.append(View("mFollowIR", f"{setting}/{lang}", n,
                              ("p-MRR", "original/nDCG@20")))
    for key, n in FOLLOWTABLE.items():
        views.append(View("FollowTable", f"followtable/{key}", n, ("IRS", "altered/nDCG@10")))
        sizes = [len(g) for g in np.array_split(np.arange(n), len(CONSTRAINTS))]
        for g, c in enumerate(CONSTRAINTS):
            views.append(View("FollowTable", f"followtable/{key}/{c}", sizes[g],
                              ("IRS", "altered/nDCG@10"), parent=f"followtable/{key}", group=g))
    pairs = [(s, t) for s in PI_LANGS for t in PI_LANGS if s != t]
    for task, langs in (("t1", PI_LANGS), ("t2", [f"{s}-{t}" for s, t in pairs]),
                        ("t3", list(PI_LANGS) + [f"{s}-{t}" for s, t in pairs])):
        for lang in langs:
            views.append(View("PI-Indic", f"pi-indic-val150/{task}/{lang}", 150,
                              ("RR@10", "R@1")))
    for lang in PI_LANGS:
        views.append(View("PI-Indic", f"pi-indic-val150/t4/{lang}", 150, ("AUROC", "Accuracy")))
    return views


def synth(metric: str, n: int, systems: int, rng: np.random.Generator) -> np.ndarray:
    """(queries x systems) scores with the value set of the metric.

    System skill spreads the means (a few systems end up tied with the leader, most
    below); query difficulty is shared by all systems, as in real runs.
    """
    base = metric.rsplit("/", 1)[-1]
    skill = np.sort(rng.normal(0.0, 0.06, systems))[::-1]
    difficulty = rng.normal(0.0, 0.2, n)[:, None]
    noise = rng.normal(0.0, 0.2, (n, systems))
    if base == "p-MRR":  # change score in [-1, 1], exactly 0 when nothing moved
        x = np.clip(0.05 + skill + 0.5 * noise, -1, 1)
        x[rng.random((n, systems)) < 0.3] = 0.0
        return x
    if base == "IRS":
        return np.clip(0.1 + skill + difficulty + noise, -1, 1)
    if base in ("R@1", "Accuracy"):  # one relevant document / one label: 0 or 1
        return (rng.random((n, systems)) < np.clip(0.5 + skill + difficulty, 0.02, 0.98)) * 1.0
    if base == "RR@10":  # first relevant rank r, score 1/r when r <= 10
        p = np.clip(0.35 + skill + difficulty, 0.02, 0.98)
        rank = rng.geometric(p, (n, systems))
        return np.where(rank <= 10, 1.0 / rank, 0.0)
    # nDCG@k, AP@1000 and AUROC (T4's AUROC has no per-query form; continuous stand-in)
    return np.clip(0.45 + skill + difficulty + noise, 0, 1)


def as_mappings(x: np.ndarray, queries: list[str], ids: list[str]) -> dict[str, dict[str, float]]:
    """The engine's data contract: system id -> query id -> score."""
    return {s: dict(zip(queries, col, strict=True)) for s, col in zip(ids, x.T.tolist(),
                                                                     strict=True)}


def blas_info() -> str:
    try:
        from threadpoolctl import threadpool_info
        return "; ".join(f"{i['internal_api']} {i.get('version')} {i.get('architecture')} "
                         f"x{i['num_threads']}" for i in threadpool_info())
    except Exception as exc:  # informational only
        return f"unknown ({exc})"


def run_suite(args: argparse.Namespace) -> tuple[dict, dict[str, dict[str, float]]]:
    views = all_views()
    ids = [f"sys{j:03d}" for j in range(args.systems)]
    rng = np.random.default_rng(args.data_seed)
    totals: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    samples: dict[str, dict[str, float]] = {}  # a view of each family for the baseline
    parent_data: dict[str, dict[str, np.ndarray]] = {}
    gen_time = 0.0
    wall0 = time.perf_counter()
    for view in views:
        t0 = time.perf_counter()
        if view.parent is None:
            data = {m: synth(m, view.n_queries, args.systems, rng) for m in view.metrics}
            if view.family == "FollowTable":
                parent_data[view.name] = data
            queries = [f"q{i:04d}" for i in range(view.n_queries)]
        else:
            full = parent_data[view.parent]
            n_full = next(iter(full.values())).shape[0]
            rows = np.array_split(np.arange(n_full), len(CONSTRAINTS))[view.group]
            data = {m: x[rows] for m, x in full.items()}
            queries = [f"q{i:04d}" for i in rows]
        scores = {m: as_mappings(x, queries, ids) for m, x in data.items()}
        gen_time += time.perf_counter() - t0
        for metric in view.metrics:
            c1, t1 = time.process_time(), time.perf_counter()
            tiers = tier_view(scores[metric], metric, seed=args.seed,
                              n_resamples=args.resamples, n_bootstrap=args.bootstrap)
            dt = time.perf_counter() - t1
            totals["cpu"] += time.process_time() - c1
            kind = ("wilcoxon" if tiers.test == "wilcoxon" else
                    "exact" if view.n_queries <= sig.EXACT_MAX_QUERIES else "monte-carlo")
            totals[view.family] += dt
            totals[f"test:{kind}"] += dt
            counts[f"{view.family}:comparisons"] += len(tiers.comparisons) - 1
            counts[f"test:{kind}"] += len(tiers.comparisons) - 1
            counts[f"{view.family}|{kind}"] += len(tiers.comparisons) - 1
            counts[f"{view.family}|{kind}|query-comparisons"] += (
                view.n_queries * (len(tiers.comparisons) - 1))
            if kind != "wilcoxon":  # multiply-adds of the sign products: 2 * rows * n * m
                rows = 2 ** (view.n_queries - 1) if kind == "exact" else args.resamples
                totals["gemm flop"] += 2.0 * rows * view.n_queries * (len(tiers.comparisons) - 1)
            counts["tier computations"] += 1
            key = f"{view.family}:{kind}"
            if key not in samples:
                samples[key] = {"n": view.n_queries, "metric": metric, "scores": scores[metric],
                                "leader": tiers.leader}
        counts["views"] += 1
    wall = time.perf_counter() - wall0
    result = {"wall": wall, "generation": gen_time, "stats": wall - gen_time,
              "totals": dict(totals), "counts": dict(counts)}
    return result, samples


def time_baseline(samples: dict, args: argparse.Namespace) -> dict:
    """Per-comparison time of naive implementations, extrapolated to the suite."""
    os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="numba-"))
    out: dict = {"per_comparison": {}, "measured": 0}
    try:
        from ranx.statistical_tests import fisher_randomization_test
    except Exception as exc:  # ranx missing or numba unable to compile
        print(f"baseline: ranx unavailable ({exc}); skipped")
        return out
    from scipy import stats
    fisher_randomization_test(np.zeros(5), np.ones(5), 10, 0.05, 0)  # JIT compile, untimed
    for key, sample in sorted(samples.items()):
        family, kind = key.split(":")
        scores, leader = sample["scores"], sample["leader"]
        queries = sorted(scores[leader])
        lead = np.array([scores[leader][q] for q in queries])
        others = [s for s in sorted(scores) if s != leader][: args.baseline_comparisons]
        t0 = time.perf_counter()
        for s in others:
            x = np.array([scores[s].get(q, 0.0) for q in queries])
            if kind == "wilcoxon":
                stats.wilcoxon(x, lead, zero_method="wilcox")
            else:
                fisher_randomization_test(x, lead, args.resamples, 0.05, args.seed)
        per = (time.perf_counter() - t0) / len(others)
        out["per_comparison"][key] = (per, sample["n"], len(others))
        out["measured"] += len(others)
    return out


def gemm_gflops(n: int, m: int, cols: int = 100_000) -> float:
    """float32 throughput of the main product shape, (m x n) @ (n x cols), in GFLOP/s,
    run the way the library runs it (column chunks on its thread pool)."""
    rng = np.random.default_rng(0)
    a = rng.random((m, n), dtype=np.float32)
    b = np.where(rng.random((n, cols)) < 0.5, 1.0, -1.0).astype(np.float32)
    chunk = 2048

    def work(first: int, last: int) -> None:
        for start in range(first, last, chunk):
            a @ b[:, start:min(start + chunk, last)]

    work(0, chunk)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        sig._run_ranges(work, cols, align=chunk, min_per_part=chunk)
        best = min(best, time.perf_counter() - t0)
    return 2.0 * m * n * cols / best / 1e9


def plain_python_per_comparison(n: int, perms: int, seed: int) -> float:
    """Seconds per comparison of a per-permutation pure-Python loop (no numpy)."""
    import random
    rnd = random.Random(seed)
    a = [rnd.random() for _ in range(n)]
    b = [rnd.random() for _ in range(n)]
    t0 = time.perf_counter()
    d = [x - y for x, y in zip(a, b, strict=True)]
    observed = abs(sum(d))
    hits = 0
    for _ in range(perms):
        total = 0.0
        for v in d:
            total += v if rnd.random() < 0.5 else -v
        hits += abs(total) >= observed
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=300)
    parser.add_argument("--resamples", type=int, default=sig.DEFAULT_RESAMPLES,
                        help="Monte-Carlo sign flips per randomization test")
    parser.add_argument("--bootstrap", type=int, default=sig.DEFAULT_BOOTSTRAP)
    parser.add_argument("--seed", type=int, default=0, help="seed of the statistics")
    parser.add_argument("--data-seed", type=int, default=1234, help="seed of the scores")
    parser.add_argument("--baseline-comparisons", type=int, default=5,
                        help="comparisons per family timed for the naive baseline")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--target", type=float, default=10.0, help="seconds")
    args = parser.parse_args(argv)

    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, python "
          f"{platform.python_version()}, numpy {np.__version__}")
    print(f"BLAS: {blas_info()}")
    try:
        print(f"load average before run: {os.getloadavg()[0]:.2f} (1 min)")
    except OSError:
        pass
    print(f"settings: {args.systems} systems per view, {args.resamples} Monte-Carlo flips "
          f"(exact when n <= {sig.EXACT_MAX_QUERIES}), {args.bootstrap} bootstrap resamples")
    res, samples = run_suite(args)
    c, t = res["counts"], res["totals"]
    n_cmp = sum(v for k, v in c.items() if k.endswith(":comparisons"))
    print()
    print(f"views: {c['views']}, tier computations (view x metric): "
          f"{c['tier computations']}, comparisons with the leader: {n_cmp}")
    for kind in ("exact", "monte-carlo", "wilcoxon"):
        if f"test:{kind}" in c:
            print(f"  {kind:12s} {c[f'test:{kind}']:7d} comparisons  "
                  f"{t[f'test:{kind}']:8.2f} s  "
                  f"{1e3 * t[f'test:{kind}'] / c[f'test:{kind}']:.3f} ms/comparison")
    for family in ("FollowIR", "mFollowIR", "FollowTable", "PI-Indic"):
        print(f"  {family:12s} {c[f'{family}:comparisons']:7d} comparisons  "
              f"{t[family]:8.2f} s")
    print(f"statistics time (tiers of every view, incl. dict->array, Holm, bootstrap): "
          f"{res['stats']:.2f} s wall; target {args.target:.0f} s -> "
          f"{res['stats'] / args.target:.2f}x the target")
    workers = sig._workers()
    print(f"CPU time of the statistics: {t['cpu']:.1f} s over {workers} worker thread(s), "
          f"so >= {t['cpu'] / workers:.1f} s wall on {workers} idle cores "
          f"(1-min load average after the run: {os.getloadavg()[0]:.2f}; other processes on "
          f"the machine stretch the wall time, not this figure much)")
    print(f"score generation (not counted): {res['generation']:.2f} s")
    try:
        import resource
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak memory (max RSS): {rss:.0f} MiB")
    except ImportError:
        pass
    flop = t.get("gemm flop", 0.0)
    if flop:
        rate = gemm_gflops(150, max(args.systems - 1, 1))
        print(f"floor: the randomization tests need {flop / 1e12:.2f} TFLOP of float32 sign "
              f"products; this machine sustains {rate:.0f} GFLOP/s on that shape (measured "
              f"now, best of 3), so the products alone take >= {flop / rate / 1e9:.1f} s; "
              f"{args.target:.0f} s would need {flop / args.target / 1e9:.0f} GFLOP/s")

    if args.no_baseline:
        return 0
    print()
    base = time_baseline(samples, args)
    if not base["per_comparison"]:
        return 0
    extrapolated = 0.0
    print(f"naive baseline: ranx.statistical_tests.fisher_randomization_test "
          f"({args.resamples} permutations, a per-permutation loop compiled by numba) and a "
          f"per-pair scipy.stats.wilcoxon, one comparison at a time; p-values only (no "
          f"bootstrap, no Holm). Timed on {base['measured']} comparisons "
          f"({args.baseline_comparisons} per family and test, first view of each) and "
          f"EXTRAPOLATED: ranx time scales with the number of queries, so its per-query cost "
          f"is multiplied by the family's sum of queries over comparisons; Wilcoxon per "
          f"comparison.")
    for key, (per, n, k) in sorted(base["per_comparison"].items()):
        family, kind = key.split(":")
        n_kind = c.get(f"{family}|{kind}", 0)
        if kind == "wilcoxon":
            est = per * n_kind
        else:
            est = per / n * c.get(f"{family}|{kind}|query-comparisons", 0)
        extrapolated += est
        print(f"  {key:24s} sample n={n:5d}: {per * 1e3:9.2f} ms/comparison; "
              f"{n_kind:6d} comparisons -> {est:10.1f} s")
    print(f"baseline total (extrapolated): {extrapolated:.0f} s = {extrapolated / 3600:.1f} h; "
          f"ratio baseline / ours: {extrapolated / res['stats']:.0f}x")
    py = plain_python_per_comparison(150, 2000, args.seed) * args.resamples / 2000
    print(f"plain-Python per-permutation loop, n=150: {py:.2f} s per comparison "
          f"(timed at 2000 permutations, scaled to {args.resamples}); for the "
          f"{n_cmp} comparisons that is about {py * n_cmp / 86400:.0f} days")
    return 0



if __name__ == "__main__":
    raise SystemExit(main())
