"""Time the significance tiers of every tiered leaderboard view, as the site computes them.

Not a test: it prints figures (issue 3: "the time to compute every view's tiers for 300
systems on all tasks (synthetic per-query scores at real query counts); target under 10 s
on 2 cores, and the ratio against running ranx.compare-style pairwise loops").

The workload is the site's own. For every view of :func:`leaderboard.benchmarks.all_views`
that has tiers, two columns are tiered: the view's tiered column (its primary metric) and
its headline standard-metric column (the registry's ``headline_metric`` of the view's
tasks), once when they are the same column. Each column's per-query scores become its
test's units by :func:`leaderboard.publish.standings.stratified_units`, as the site does:
one value per independently sampled unit (:mod:`leaderboard.benchmarks.units`), each query
weighted by 1 / (tasks x its task's queries). FollowTable's average tests the 673 topics of
its four datasets (each with all its pairs, 2,989 in all), each dataset one quarter;
PI-Indic's languages ask the same 150 pairs, so its averages test each pair once, over the
12 languages or 132 language pairs, and T4 each of its 75 test personas; mFollowIR's
synthetic topic ids are shared by its three languages, as NeuCLIR's are. The tiered column
of every view also gets its rank intervals (a bootstrap of the max-|t| statistic over all
pairs of systems), as on the site. Scores are synthetic but have each metric's value set
and the real query counts: read from the benchmark data where it is on this machine
(FollowTable pairs and topics, PI-Indic), else the counts documented in
:data:`DOCUMENTED_COUNTS` (FollowIR and mFollowIR live on the Hugging Face Hub only). Every
system has every task, the worst case.

The statistics are run the way :func:`leaderboard.publish.standings.tier_column` runs them:
``tier_view(scores, column.metric, higher_is_better=..., seed=0)`` (``ranks=False`` for the
headline columns, which the site does not rank)
on ``{system: {query id: score}}`` mappings, so the time includes turning mappings into
arrays, the tests, Holm and the bootstrap intervals. Building the mappings is not timed.

A ranx-style baseline (``ranx.statistical_tests.fisher_randomization_test``, one pair at a
time with the same number of permutations, scipy's Wilcoxon per pair for p-MRR and the
plain DeLong test of :mod:`leaderboard.publish.stats.significance.reference` per pair for AUROC) is
timed on a few comparisons per benchmark and test and extrapolated; the output says so.

    .venv/bin/python benchmarks/stats_suite.py              # everything, 300 systems
    .venv/bin/python benchmarks/stats_suite.py --systems 50 --no-baseline
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import platform
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.machine import cpu_description  # noqa: E402
from leaderboard.benchmarks.registry import all_tasks  # noqa: E402
from leaderboard.benchmarks import all_views  # noqa: E402
from leaderboard.publish.standings import stratified_units  # noqa: E402
from leaderboard.publish.stats.significance import api as sig  # noqa: E402
from leaderboard.publish.stats import tiers as tiers_module  # noqa: E402
from leaderboard.publish.stats.tiers import (  # noqa: E402
    ranking_work, tier_view, tier_views, tiering_work)

if TYPE_CHECKING:
    from leaderboard.publish.standings import Column, View

# Query counts of the benchmarks whose data is not on this machine (FollowIR and mFollowIR
# are published on the Hugging Face Hub only), and fallbacks for the others: per task,
# "pair" = the unit of pair metrics and the altered role, "original" = the original role.
DOCUMENTED_COUNTS: dict[str, dict[str, int]] = {
    "followir/robust04": {"pair": 52, "original": 52},
    "followir/news21": {"pair": 32, "original": 32},
    "followir/core17": {"pair": 20, "original": 20},
    "mfollowir/fas": {"pair": 40, "original": 40},
    "mfollowir/rus": {"pair": 40, "original": 40},
    "mfollowir/zho": {"pair": 43, "original": 43},
    "mfollowir-cl/fas": {"pair": 40, "original": 40},
    "mfollowir-cl/rus": {"pair": 40, "original": 40},
    "mfollowir-cl/zho": {"pair": 43, "original": 43},
    "followtable/wqt": {"pair": 1386, "original": 300},
    "followtable/wtr": {"pair": 267, "original": 60},
    "followtable/tarx": {"pair": 408, "original": 97},
    "followtable/industr": {"pair": 928, "original": 216},
}
# FollowTable pairs (and their distinct topics) per constraint type, counted from the data
# (upstream commit 1c47fe27776d); used only when the data is not on the machine.
DOCUMENTED_GROUPS: dict[str, dict[str, tuple[int, int]]] = {
    "followtable/wqt": {"C1": (268, 268), "C2": (243, 243), "S1": (297, 292),
                        "S2": (281, 281), "S3": (297, 297)},
    "followtable/wtr": {"C1": (50, 50), "C2": (46, 46), "S1": (59, 59), "S2": (54, 54),
                        "S3": (58, 58)},
    "followtable/tarx": {"C1": (69, 69), "C2": (79, 79), "S1": (90, 90), "S2": (83, 83),
                         "S3": (87, 87)},
    "followtable/industr": {"C1": (206, 206), "C2": (194, 194), "S1": (211, 211),
                            "S2": (109, 109), "S3": (208, 208)},
}
PI_RETRIEVAL_QUERIES = 150  # the 150 validated pairs of PI-Indic-Align val150
PI_T4_PERSONAS = 75         # T4: the test split's personas, the unit of its per-persona scores

FAMILIES = {"followir": "FollowIR", "mfollowir": "mFollowIR", "mfollowir-cl": "mFollowIR",
            "followtable": "FollowTable", "pi-indic": "PI-Indic"}


# --------------------------------------------------------------------------- workload

def unit_of(key: str) -> str:
    """Which query set a per-query key is over: pair metrics and the altered role are per
    instruction pair; the original role is per original query (per topic in FollowTable)."""
    return "original" if key.startswith("original/") else "pair"


class QuerySets:
    """The query ids of every task (per unit) and of every FollowTable constraint group,
    from the data where it is on this machine, else synthetic ids in documented numbers."""

    def __init__(self, data_dir: Path | None) -> None:
        self.ids: dict[tuple[str, str], list[str]] = {}
        self.groups: dict[tuple[str, str, str], list[str]] = {}
        self.notes: list[str] = []
        for task_id, units in DOCUMENTED_COUNTS.items():
            for unit, n in units.items():
                self.ids[task_id, unit] = [f"q{i}" for i in range(n)]
        for task_id, groups in DOCUMENTED_GROUPS.items():
            start = 0
            for label, (pairs, topics) in groups.items():
                self.groups[task_id, label, "pair"] = [f"q{i}" for i in range(start,
                                                                             start + pairs)]
                self.groups[task_id, label, "original"] = [f"q{i}" for i in range(topics)]
                start += pairs
        pi_ids = {"run": [f"p{i}" for i in range(1, PI_RETRIEVAL_QUERIES + 1)],
                  "predictions": [f"p{i}" for i in range(1, PI_T4_PERSONAS + 1)]}
        source = "documented counts"
        if data_dir is not None:
            try:
                pi_ids = self._read(data_dir, pi_ids)
                source = f"the data in {data_dir}"
            except Exception as exc:  # data missing or unreadable: documented counts
                self.notes.append(f"data not readable ({type(exc).__name__}: {exc})")
        self.notes.append(f"FollowTable and PI-Indic query ids and constraint groups from "
                          f"{source}; FollowIR/mFollowIR: documented counts (their data is "
                          f"on the Hugging Face Hub only)")
        for task in all_tasks().values():
            if task.benchmark == "pi-indic-val150":
                self.ids[task.id, "pair"] = pi_ids[task.roles[0]]

    def _read(self, data_dir: Path, pi_ids: dict[str, list[str]]) -> dict[str, list[str]]:
        from leaderboard.core.data import load_task_data
        for task_id in DOCUMENTED_GROUPS:
            data = load_task_data(all_tasks()[task_id], data_dir)
            self.ids[task_id, "pair"] = list(data.roles["altered"].query_ids)
            self.ids[task_id, "original"] = list(data.roles["original"].query_ids)
            for label in DOCUMENTED_GROUPS[task_id]:
                pairs = [q for q in data.roles["altered"].query_ids
                         if data.groups.get(q) == label]
                self.groups[task_id, label, "pair"] = pairs
                self.groups[task_id, label, "original"] = sorted({data.pairs[q]
                                                                  for q in pairs})
        out = dict(pi_ids)
        # every PI-Indic language (pair) has the same validated pairs: read one of each kind
        for probe in ("pi-indic-val150/t1/hin", "pi-indic-val150/t4/hin"):
            data = load_task_data(all_tasks()[probe], data_dir)
            for role, rd in data.roles.items():
                # T4's per-query scores are per persona (a pair's persona in data.groups)
                out[role] = (sorted(set(data.groups.values())) if role == "predictions"
                             else list(rd.query_ids))
        return out

    def of(self, task_id: str, key: str, group: str | None) -> list[str]:
        unit = unit_of(key)
        return self.ids[task_id, unit] if group is None else self.groups[task_id, group, unit]


@dataclass(frozen=True)
class Work:
    """One tier computation: a view's column, its pooled universe and its scores' kind."""

    view: str
    family: str
    column: Column
    role: str                          # "primary (tiered)" or "headline"
    parts: tuple[tuple[str, str], ...]  # (task id, per-query key)
    n_queries: int

    @property
    def metric(self) -> str:
        return self.column.metric

    @property
    def ranked(self) -> bool:
        """The site computes rank intervals for a view's tiered column only."""
        return self.role == "primary (tiered)"


def headline_column(view: View) -> Column | None:
    """The column of ``view`` holding its tasks' headline standard metric, pooled over the
    same tasks (and group) as the tiered column (e.g. FollowIR's "Score": MAP@1000/nDCG@5
    per task)."""
    assert view.tiered_column is not None
    tiered = view.columns[view.tiered_column]
    registry = all_tasks()
    want = tuple((t, registry[t].headline_metric) for t in tiered.tasks)
    for col in view.columns:
        if col.group == tiered.group and col.tasks == tiered.tasks and col.parts == want:
            return col
    return None


def workload(queries: QuerySets) -> tuple[list[Work], int, list[str]]:
    """Every (view, column) the suite tiers, the number of views and the untiered views."""
    works: list[Work] = []
    skipped: list[str] = []
    views = all_views()
    for view in views.values():
        if view.tiered_column is None:
            skipped.append(view.id)
            continue
        tiered = view.columns[view.tiered_column]
        columns = [("primary (tiered)", tiered)]
        head = headline_column(view)
        if head is not None and head is not tiered:
            columns.append(("headline", head))
        family = FAMILIES[view.id.split("/")[0]]
        for role, col in columns:
            parts = tuple(col.parts)
            n = len({col.sampling.key(t, q) for t, k in parts
                     for q in queries.of(t, k, col.group)})
            works.append(Work(view.id, family, col, role, parts, n))
    return works, len(views), skipped


# --------------------------------------------------------------------------- scores

def synth(key: str, n: int, skill: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(queries x systems) per-query scores with the value set of the metric ``key``.

    ``skill`` spreads the systems' means (a few end up tied with the leader, most below);
    query difficulty is shared by all systems, as in real runs, so paired differences are
    smaller than the spread of the scores. Shapes follow the BM25 submission's real
    per-query scores: IRS and p-MRR continuous without ties, nDCG@10 continuous with
    exact zeros on 8-55% of FollowTable pairs, R@1 0/1, RR@10 on {0, 1, 1/2, ..., 1/10}.
    """
    base = key.rsplit("/", 1)[-1]
    m = skill.size
    difficulty = rng.normal(0.0, 0.2, n)[:, None]
    noise = rng.normal(0.0, 0.2, (n, m))
    if base == "p-MRR":  # change score in [-1, 1]; 0 when the instruction moved nothing
        x = np.clip(0.05 + skill + 0.6 * difficulty + noise, -1, 1)
        x[rng.random((n, m)) < 0.1] = 0.0
        return x
    if base == "IRS":  # weighted gain difference in [-1, 1], continuous
        return np.clip(0.05 + skill + difficulty + noise, -1, 1)
    if base == "R@1":  # one relevant item: 0 or 1
        p = np.clip(0.55 + skill + difficulty, 0.02, 0.98)
        return (rng.random((n, m)) < p).astype(np.float64)
    if base == "Accuracy":  # T4, per persona: the share of its 11 pairs classified right
        p = np.clip(0.8 + skill + difficulty, 0.02, 0.98)
        return rng.binomial(11, p, (n, m)) / 11.0
    if base in ("AUROC", "Balanced accuracy"):  # T4 per-persona components: continuous
        return 0.6 + skill + difficulty + noise
    if base == "RR@10":  # first relevant rank r, 1/r when r <= 10
        p = np.clip(0.45 + skill + difficulty, 0.02, 0.98)
        rank = rng.geometric(p, (n, m))
        return np.where(rank <= 10, 1.0 / rank, 0.0)
    # nDCG@k, AP@1000: continuous in [0, 1] with a point mass at 0 (nothing relevant found)
    x = np.clip(0.4 + skill + difficulty + noise, 0.0, 1.0)
    x[rng.random((n, m)) < np.clip(0.1 - 2 * difficulty, 0, 0.6)] = 0.0
    return x


class ScoreBank:
    """Synthetic per-query scores per (task, key), generated once and shared by the
    per-task view and the views that pool the task or a group of it, as real results
    would be."""

    def __init__(self, systems: int, queries: QuerySets, seed: int) -> None:
        self.ids = [f"sys{j:03d}" for j in range(systems)]
        self.queries = queries
        self.seed = seed
        self._skill: dict[str, np.ndarray] = {}
        self._bank: dict[tuple[str, str], dict[str, int]] = {}
        self._scores: dict[tuple[str, str], np.ndarray] = {}

    def matrix(self, task_id: str, key: str) -> tuple[dict[str, int], np.ndarray]:
        """Row of every query id and the (queries x systems) scores of one task's key."""
        if (task_id, key) not in self._bank:
            rng = np.random.default_rng([self.seed, *task_id.encode(), 0, *key.encode()])
            base = key.rsplit("/", 1)[-1]
            if base not in self._skill:
                skill_rng = np.random.default_rng([self.seed, *base.encode()])
                self._skill[base] = np.sort(skill_rng.normal(0.0, 0.05, len(self.ids)))[::-1]
            qids = self.queries.of(task_id, key, None)
            self._bank[task_id, key] = {q: i for i, q in enumerate(qids)}
            self._scores[task_id, key] = synth(key, len(qids), self._skill[base], rng)
        return self._bank[task_id, key], self._scores[task_id, key]

    def mappings(self, work: Work) -> dict[str, dict[str, float]]:
        """``{system: {unit id: value}}`` as standings.unit_scores builds it."""
        per_system: list[list[tuple[str, dict[str, float]]]] = [[] for _ in self.ids]
        for task_id, key in work.parts:
            rows, x = self.matrix(task_id, key)
            local = self.queries.of(task_id, key, work.column.group)
            block = x[[rows[q] for q in local]].T.tolist()
            for tasks, scores in zip(per_system, block, strict=True):
                tasks.append((task_id, dict(zip(local, scores))))
        return {s: stratified_units(tasks, work.column.sampling)
                for s, tasks in zip(self.ids, per_system, strict=True)}


# --------------------------------------------------------------------------- timing

class StageTimer:
    """Wall and CPU seconds of the tests and the bootstrap inside tier_view, by wrapping
    the names tier_view looks up (the statistics themselves are unchanged)."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self._saved: dict[str, Any] = {}

    def _wrap(self, name: str, label: Callable[..., str]) -> None:
        original = getattr(tiers_module, name)
        self._saved[name] = original

        def timed(*args: Any, **kwargs: Any) -> Any:
            w, c = time.perf_counter(), time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                key = label(*args, **kwargs)
                self.wall[key] += time.perf_counter() - w
                self.cpu[key] += time.process_time() - c

        setattr(tiers_module, name, timed)

    def __enter__(self) -> StageTimer:
        def test_label(test: str, diffs: np.ndarray, **_: Any) -> str:
            if test == "wilcoxon":
                return "test: Wilcoxon (p-MRR)"
            if test == "delong":
                return "test: DeLong (AUROC)"
            exact = diffs.shape[0] <= sig.EXACT_MAX_QUERIES
            return "test: randomization, exact" if exact else "test: randomization, Monte-Carlo"

        def interval_label(test: str, diffs: np.ndarray, **_: Any) -> str:
            return {"wilcoxon": "intervals: Hodges-Lehmann", "delong": "intervals: DeLong"
                    }.get(test, "intervals: bootstrap")

        self._wrap("pvalues_for", test_label)
        self._wrap("intervals_for", interval_label)
        self._wrap("rank_intervals", lambda *a, **k: "rank intervals (max-|t| bootstrap)")
        return self

    def __exit__(self, *exc: object) -> None:
        for name, original in self._saved.items():
            setattr(tiers_module, name, original)


def run_suite(works: list[Work], bank: ScoreBank, args: argparse.Namespace
              ) -> tuple[dict[str, Any], dict[str, list], dict[int, Any]]:
    by_family: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0, 0, 0])
    samples: dict[str, list] = {}  # (family, test) -> [work, scores, leader] for the baseline
    # results kept for the determinism check: the first tiering of every (benchmark,
    # metric) and the largest one
    largest = max(range(len(works)), key=lambda i: works[i].n_queries) if works else -1
    firsts = {}
    for i, work in enumerate(works):
        firsts.setdefault((work.family, work.metric), i)
    keep = set(firsts.values()) | {largest}
    kept: dict[int, Any] = {}
    wall = cpu = gen = 0.0
    comparisons = 0

    def record(i: int, work: Work, scores: dict, result: Any, dw: float, dc: float) -> None:
        nonlocal comparisons
        k = len(result.comparisons) - 1
        comparisons += k
        fam = by_family[work.family]
        fam[2] += 1
        fam[3] += k
        fam[4] += k * work.n_queries
        test = (result.test if result.test in ("wilcoxon", "delong") else
                "exact" if work.n_queries <= sig.EXACT_MAX_QUERIES else "monte-carlo")
        key = f"{work.family}:{test}"
        if key not in samples:
            samples[key] = [work, scores, result.leader, 0, 0]
        samples[key][3] += k
        samples[key][4] += k * work.n_queries
        if i in keep:
            kept[i] = result
        if args.verbose:
            wall_text = "" if math.isnan(dw) else f"{dw:7.2f} s wall "
            print(f"  {i + 1:3d}/{len(works)} {work.view:28s} {work.metric:18s} "
                  f"n={work.n_queries:6d} {wall_text}{dc:7.2f} s CPU", flush=True)

    def tier(work: Work, scores: dict) -> tuple[Any, float]:
        start = time.thread_time()
        result = tier_view(scores, work.metric, higher_is_better=work.column.higher_is_better,
                           seed=args.seed, n_resamples=args.resamples,
                           n_bootstrap=args.bootstrap, ranks=work.ranked)
        return result, time.thread_time() - start

    # Serial: one tier_view after another, with the time of each stage. Otherwise as the
    # site does it (leaderboard.publish.standings.tier_tables): every view at once through
    # tier_views, longest first by tiering_work so that no core idles while one long view
    # finishes; --batch N tiers N at a time instead, for less memory (the synthetic
    # mappings of a batch are built before it runs, untimed). tier_views runs each view on
    # one thread, so a tiering's CPU time is its thread's and a benchmark's CPU time is
    # exact either way; its wall time is its own only when views run one at a time.
    order = sorted(range(len(works)), key=lambda i: -(tiering_work(
        works[i].metric, works[i].n_queries, args.systems, n_resamples=args.resamples,
        n_bootstrap=args.bootstrap) + (ranking_work(works[i].n_queries, args.systems)
                                        if works[i].ranked else 0.0)))
    size = 1 if args.serial else (args.batch or len(works))
    batches = [order[first:first + size] for first in range(0, len(order), size)]
    with StageTimer() if args.serial else contextlib.nullcontext() as stages:
        for batch in batches:
            g0 = time.perf_counter()
            inputs = [(i, works[i], bank.mappings(works[i])) for i in batch]
            gen += time.perf_counter() - g0
            w0, c0 = time.perf_counter(), time.process_time()
            if args.serial:
                outputs = [tier(work, scores) for _, work, scores in inputs]
            else:
                outputs = tier_views([lambda w=work, sc=sc: tier(w, sc)
                                      for _, work, sc in inputs])
            dw, dc = time.perf_counter() - w0, time.process_time() - c0
            wall += dw
            cpu += dc
            for (i, work, scores), (result, thread_cpu) in zip(inputs, outputs):
                fam = by_family[work.family]
                if args.serial:  # the chunks may run on the pool's threads: process time
                    fam[0] += dw
                    fam[1] += dc
                    record(i, work, scores, result, dw, dc)
                else:
                    fam[0] = math.nan  # views of several benchmarks overlap
                    fam[1] += thread_cpu
                    record(i, work, scores, result, math.nan, thread_cpu)
            del inputs
    return ({"wall": wall, "cpu": cpu, "generation": gen, "comparisons": comparisons,
             "families": dict(by_family),
             "stage_wall": dict(stages.wall) if stages else {},
             "stage_cpu": dict(stages.cpu) if stages else {}}, samples, kept)


def check_determinism(works: list[Work], bank: ScoreBank, kept: dict[int, Any],
                      args: argparse.Namespace) -> tuple[int, list[str]]:
    """Recompute the kept tierings serially, with other chunk sizes and fresh random
    matrices; every figure must be the same float."""
    differ = []
    with sig.EXECUTOR.configured(workers=1, chunk_bytes=1 << 19):  # and fresh caches
        for i, result in sorted(kept.items()):
            work = works[i]
            again = tier_view(bank.mappings(work), work.metric,
                              higher_is_better=work.column.higher_is_better, seed=args.seed,
                              n_resamples=args.resamples, n_bootstrap=args.bootstrap,
                              ranks=work.ranked)
            if again != result:
                differ.append(f"{work.view} {work.metric}")
    return len(kept), differ


def time_baseline(samples: dict[str, list], args: argparse.Namespace) -> dict[str, tuple]:
    """Seconds per comparison of ranx-style pairwise loops, per (family, test)."""
    os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="numba-"))
    try:
        from ranx.statistical_tests import fisher_randomization_test
    except Exception as exc:  # ranx missing or numba unable to compile
        print(f"baseline: ranx unavailable ({exc}); skipped")
        return {}
    from scipy import stats

    from leaderboard.publish.stats.significance.reference import delong_pvalue
    fisher_randomization_test(np.zeros(5), np.ones(5), 10, 0.05, 0)  # JIT compile, untimed
    out: dict[str, tuple] = {}
    for key, (work, scores, leader, n_cmp, query_cmp) in sorted(samples.items()):
        test = key.split(":")[1]
        queries = sorted(scores[leader])
        lead = np.array([scores[leader][q] for q in queries])
        others = [s for s in sorted(scores) if s != leader][: args.baseline_comparisons]
        t0 = time.perf_counter()
        for s in others:
            x = np.array([scores[s].get(q, 0.0) for q in queries])
            if test == "wilcoxon":
                stats.wilcoxon(x, lead, zero_method="wilcox")
            elif test == "delong":
                delong_pvalue(x - lead)
            else:
                fisher_randomization_test(x, lead, args.resamples, 0.05, args.seed)
        per = (time.perf_counter() - t0) / len(others)
        # the loop's cost grows with n: extrapolate per query-comparison (Wilcoxon per pair)
        est = (per * n_cmp if test in ("wilcoxon", "delong")
               else per / work.n_queries * query_cmp)
        out[key] = (per, work.view, work.n_queries, len(others), n_cmp, est)
    return out


def blas_info() -> str:
    try:
        from threadpoolctl import threadpool_info
        return "; ".join(f"{i['internal_api']} {i.get('version')} {i.get('architecture')} "
                         f"x{i['num_threads']}" for i in threadpool_info())
    except Exception as exc:  # informational only
        return f"unknown ({exc})"


def load_text() -> str:
    try:
        return "load average (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load average: unavailable"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=300)
    parser.add_argument("--resamples", type=int, default=sig.DEFAULT_RESAMPLES,
                        help="least number of Monte-Carlo sign flips per randomization "
                             "test")
    parser.add_argument("--bootstrap", type=int, default=sig.DEFAULT_BOOTSTRAP)
    parser.add_argument("--seed", type=int, default=0, help="seed of the statistics "
                        "(the site uses 0)")
    parser.add_argument("--data-seed", type=int, default=1234, help="seed of the scores")
    parser.add_argument("--data-dir", default=os.environ.get("LEADERBOARD_DATA",
                                                             "/work/shared/data"),
                        help="benchmark data, for the real query counts")
    parser.add_argument("--only", default="", help="only views whose id contains this")
    parser.add_argument("--baseline-comparisons", type=int, default=3,
                        help="comparisons per benchmark and test timed for the baseline")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--no-check", action="store_true",
                        help="skip recomputing a sample serially to check identical figures")
    parser.add_argument("--target", type=float, default=10.0, help="seconds")
    parser.add_argument("--serial", action="store_true",
                        help="one view at a time, with the time of each stage")
    parser.add_argument("--batch", type=int, default=0,
                        help="views tiered at once (default 0: all, as the site does)")
    parser.add_argument("-v", "--verbose", action="store_true", help="a line per tiering")
    args = parser.parse_args(argv)

    data_dir = Path(args.data_dir) if args.data_dir and Path(args.data_dir).is_dir() else None
    queries = QuerySets(data_dir)
    works, n_views, skipped = workload(queries)
    if args.only:
        works = [w for w in works if args.only in w.view]
    bank = ScoreBank(args.systems, queries, args.data_seed)

    print(f"machine: {cpu_description()} "
          f"({sig.worker_count()} used by the stats pool), python {platform.python_version()}, "
          f"numpy {np.__version__}")
    print(f"BLAS: {blas_info()}")
    print(f"before the run: {load_text()}")
    subgroup = (1 << int(args.resamples).bit_length()) - 1
    print(f"settings: {args.systems} systems, at least {args.resamples} Monte-Carlo sign "
          f"flips ({subgroup} random ones of a subgroup for continuous scores, "
          f"{args.resamples} binomial draws for rank grids; exact enumeration when "
          f"n <= {sig.EXACT_MAX_QUERIES}), {args.bootstrap} bootstrap resamples, "
          f"seed {args.seed}")
    for note in queries.notes:
        print(f"  {note}")
    views_done = len({w.view for w in works})
    print(f"views: {n_views} on the site; {n_views - len(skipped)} have tiers; "
          f"{len(skipped)} have none and are not timed: {', '.join(skipped)}")
    print(f"timed: {views_done} views, {len(works)} view-metric pairs (tiered column + "
          f"headline standard column; PI-Indic T4: AUROC, DeLong on 75 personas, and "
          f"Accuracy per persona)")
    big = sorted(works, key=lambda w: -w.n_queries)[:4]
    print("largest test universes: " + ", ".join(f"{w.view} {w.metric} n={w.n_queries}"
                                                   for w in big))

    res, samples, kept = run_suite(works, bank, args)
    print()
    print(f"comparisons with the leader: {res['comparisons']}")
    print(f"statistics time: {res['wall']:.2f} s wall, {res['cpu']:.2f} s CPU "
          f"(target {args.target:.0f} s wall on 2 cores: "
          f"{'MET' if res['wall'] < args.target else 'NOT met'}; "
          f"CPU / 2 = {res['cpu'] / 2:.2f} s is the wall time on 2 idle cores at best)")
    print(f"after the run: {load_text()} (other processes on the machine stretch the wall "
          f"time)")
    print(f"{'benchmark':12s} {'tierings':>8s} {'comparisons':>11s} {'query-cmp':>11s} "
          f"{'wall s':>8s} {'CPU s':>8s}")
    for fam, (w, c, k, n_cmp, qc) in sorted(res["families"].items(), key=lambda x: -x[1][1]):
        wall_text = "-" if math.isnan(w) else f"{w:.2f}"
        print(f"{fam:12s} {k:8d} {n_cmp:11d} {qc:11d} {wall_text:>8s} {c:8.2f}")
    if args.serial:
        print("by stage (inside tier_view):")
        stage_wall = sum(res["stage_wall"].values())
        for stage in sorted(res["stage_wall"], key=lambda s: -res["stage_wall"][s]):
            print(f"  {stage:36s} {res['stage_wall'][stage]:8.2f} s wall "
                  f"{res['stage_cpu'][stage]:8.2f} s CPU")
        print(f"  {'rest (mappings -> arrays, means, Holm)':36s} "
              f"{res['wall'] - stage_wall:8.2f} s wall")
    else:
        at_once = f"{args.batch} at a time" if args.batch else "all at once"
        print(f"views tiered {at_once} with tier_views, longest first by tiering_work, "
              "as the site does; "
              "a benchmark's CPU time is its views' threads' (--serial: one at a time, "
              "with each benchmark's wall time and the time of each stage)")
    print(f"building the synthetic mappings (not timed): {res['generation']:.1f} s")
    try:
        import resource
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak memory (max RSS, includes the synthetic scores): {rss:.0f} MiB")
    except ImportError:
        pass

    if not args.no_check:
        checked, differ = check_determinism(works, bank, kept, args)
        print(f"determinism: {checked} tierings (the first of every benchmark and metric, and "
              f"the largest) recomputed on 1 thread with other chunk sizes and regenerated "
              f"random matrices: " + ("all figures identical" if not differ else
                                      f"DIFFERENT: {', '.join(differ)}"))
    if args.no_baseline:
        return 0
    print()
    base = time_baseline(samples, args)
    if not base:
        return 0
    print(f"ranx-style baseline: ranx.statistical_tests.fisher_randomization_test "
          f"({args.resamples} permutations per pair, numba-compiled, parallel over "
          f"permutations) for randomization tests and scipy.stats.wilcoxon per pair for "
          f"p-MRR, one pair at a time, p-values only (no bootstrap, no Holm). MEASURED on "
          f"{args.baseline_comparisons} comparisons of the first view of each benchmark and "
          f"test, EXTRAPOLATED to all comparisons (ranx's time is proportional to the number "
          f"of queries, so per query-comparison; Wilcoxon per comparison):")
    total = 0.0
    for key, (per, view, n, k, n_cmp, est) in sorted(base.items()):
        total += est
        print(f"  {key:24s} measured on {view} (n={n}): {per * 1e3:9.2f} ms/comparison; "
              f"{n_cmp:6d} comparisons -> {est:9.1f} s")
    print(f"baseline total (extrapolated): {total:.0f} s = {total / 3600:.2f} h; "
          f"ratio baseline / ours (wall): {total / res['wall']:.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
