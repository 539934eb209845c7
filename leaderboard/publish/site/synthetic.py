"""Synthetic results trees for the site's tests and its build benchmark.

Writes ``submissions/<id>/{metadata.yaml,results.json,runs/...}`` and
``results/reported/*.json`` shaped exactly as the scorer and the reported-row importer
write them (validated by :func:`leaderboard.submission.results.read_results` on the way back in).
Scores are random but deterministic for a seed; they exercise the site, they mean nothing.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import yaml

from leaderboard.benchmarks.pi_indic import PI_FULL_PREFIX, PI_VAL_PREFIX
from leaderboard.benchmarks.followtable import FOLLOWTABLE_CONSTRAINTS
from leaderboard.benchmarks.registry import all_tasks
from leaderboard.core.explain import DocMove, QueryCard, QueryRow, RankedDoc, TaskExplanation
from leaderboard.core.measures import measure_of
from leaderboard.core.tasks import Task
from leaderboard.submission.explain_files import (
    MANIFEST,
    task_files,
    TaskTexts,
)
from leaderboard.submission.explain_writers import write_explanations as write
from leaderboard.submission.results import (
    ExplainManifestFile,
    ModelInfo,
    ResultsFile,
    Source,
    SystemResult,
    TaskScores,
    canonical_json,
    write_results,
    write_submission_results,
)
from leaderboard.submission.layout import METADATA_NAME, PER_QUERY_NAME, RESULTS_NAME, RUNS_DIR

MODEL_TYPES = ("sparse", "bi-encoder", "cross-encoder", "llm-reranker", "late-interaction")
HOSTILE_NAME = "<script>alert(1)</script>"
HOSTILE_LINK = "javascript:alert(1)"


def _task_scores(task: Task, rng: np.random.Generator, n_queries: int, skill: float,
                 per_query: bool) -> TaskScores:
    keys = task.metric_keys()
    pq: dict[str, dict[str, float]] = {}
    metrics: dict[str, float] = {}
    qids = [f"q{i}" for i in range(n_queries)]
    t4 = task.roles == ("predictions",)
    for key in keys:
        base = key.rsplit("/", 1)[-1]
        if t4:
            # T4's scores are per persona (the unit its tests resample); the share of
            # compatible pairs is the pair set's, one in eleven.
            if base == "Positive rate":
                metrics[key] = 1 / 11
            elif measure_of(key).tells_one_class:  # 0 at times: the tables' one-class mark
                metrics[key] = float(rng.choice([0.0, rng.uniform(0.02, 0.2)]))
            elif measure_of(key).task_figure is not None:  # over all pairs: no per persona
                metrics[key] = float(np.clip(rng.normal(0.3 + 0.3 * skill, 0.05), 0, 1))
            else:
                values = np.clip(rng.normal(0.55 + 0.3 * skill, 0.15, n_queries), 0, 1)
                metrics[key] = float(values.mean())
                if per_query:
                    pq[key] = {f"p{i}": float(v) for i, v in enumerate(values)}
            continue
        measure = measure_of(key)
        lo, hi = measure.low, measure.high
        centre = (skill - 0.5) * 0.3 if measure.signed else 0.2 + 0.5 * skill
        values = np.clip(rng.normal(centre, 0.25, n_queries), lo, hi)
        metrics[key] = float(values.mean())
        if per_query:
            pq[key] = {q: float(v) for q, v in zip(qids, values)}
    groups: dict[str, dict[str, float]] = {}
    members: dict[str, list[str]] = {}
    if task.group_by:
        for i, c in enumerate(FOLLOWTABLE_CONSTRAINTS):
            if per_query:
                # Round-robin membership; group means are the members' own means, as the
                # scorer computes them.
                members[c] = qids[i::len(FOLLOWTABLE_CONSTRAINTS)]
                groups[c] = {k: float(np.mean([pq[k][q] for q in members[c]])) for k in pq}
            else:
                groups[c] = {k: float(np.clip(v + rng.normal(0, 0.05), -1, 1))
                             for k, v in metrics.items()}
    return TaskScores(metrics=metrics, groups=groups, per_query=pq, group_members=members,
                      n_queries=n_queries)


def write_submission(root: Path, sub_id: str, name: str, tasks: list[Task],
                     rng: np.random.Generator, *, n_queries: int = 12, model_type: str = "bi-encoder",
                     parameters: int | None = 110_000_000, instruction_trained: bool | None = True,
                     links: list[str] | None = None, contact: str = "someone@example.org",
                     produced_by: str = "synthetic scores for tests",
                     system_id: str | None = None, run_files: int = 1,
                     per_query_store: Path | None = None) -> Path:
    """One verified submission folder; ``run_files`` tasks get small gzipped run files.
    With ``per_query_store``, results.json is written as git keeps it with a run store and
    its per-query file goes to ``per_query_store/submissions/<id>/`` (a folder store)."""
    folder = root / "submissions" / sub_id
    folder.mkdir(parents=True, exist_ok=True)
    skill = float(rng.random())
    model = ModelInfo(name=name, type=model_type, parameters=parameters,  # type: ignore[arg-type]
                      instruction_trained=instruction_trained, links=links or [],
                      licence="apache-2.0", revision="0123abc")
    system = SystemResult(
        system_id=system_id or sub_id, model=model, provenance="verified",
        source=Source(kind="scored"),
        tasks={t.id: _task_scores(t, rng, n_queries, skill, per_query=True) for t in tasks})
    results = ResultsFile(kind="submission",
                          produced_by={"leaderboard": "0.1.0", "data": "synthetic"},
                          systems=[system])
    if per_query_store is None:
        write_results(folder / RESULTS_NAME, results)
    else:
        write_submission_results(folder, results)
        stored = per_query_store / "submissions" / sub_id / PER_QUERY_NAME
        stored.parent.mkdir(parents=True, exist_ok=True)
        (folder / PER_QUERY_NAME).replace(stored)
    # metadata.yaml passes the submission validator (http(s) links only); results.json keeps
    # every link, as a tampered or hand-edited results file could, so the site's own
    # link filtering is exercised too.
    meta_model = model.model_dump(mode="json", exclude_none=True)
    meta_model["links"] = [u for u in model.links if u.startswith(("http://", "https://"))]
    meta = {"id": sub_id, "model": meta_model,
            "contact": contact, "produced_by": produced_by, "date": "2025-06-01",
            "efficiency": synthetic_efficiency(tasks, rng)}
    (folder / METADATA_NAME).write_text(yaml.safe_dump(meta, sort_keys=False,
                                                         allow_unicode=True), encoding="utf-8")
    for task in tasks[:run_files]:
        for role in task.roles:
            if role == "predictions":
                continue
            path = folder / RUNS_DIR / task.id / f"{role}.trec.gz"
            path.parent.mkdir(parents=True, exist_ok=True)
            lines = "".join(f"q{q} Q0 d{d} {d + 1} {10 - d * 0.5} synthetic\n"
                            for q in range(3) for d in range(5))
            path.write_bytes(gzip.compress(lines.encode("utf-8"), mtime=0))
    return folder


def synthetic_efficiency(tasks: list[Task], rng: np.random.Generator) -> dict:
    """A measured ``efficiency:`` block shaped as `baselines run` writes it: one entry per
    task, a family of more than 12 tasks as one ``<family>/*`` entry."""
    families: dict[str, list[str]] = {}
    for task in tasks:
        families.setdefault(task.id.rsplit("/", 1)[0], []).append(task.id)
    entries: dict[str, dict] = {}
    for family, ids in families.items():
        for key in ([f"{family}/*"] if len(ids) > 12 else ids):
            encode = round(float(rng.uniform(1, 3000)), 3)
            texts = int(rng.integers(100, 30000))
            entries[key] = {"encode_seconds": encode,
                            "search_seconds": round(float(rng.uniform(0.1, 60)), 3),
                            "texts": texts, "tokens": texts * 120,
                            "texts_per_second": round(texts / encode, 3),
                            "tokens_per_second": round(texts * 120 / encode, 3),
                            "peak_cpu_memory_bytes": int(rng.integers(2**28, 2**34)),
                            "peak_gpu_memory_bytes": None, "load_average": 1.5}
    return {"source": "measured", "measured_by": "synthetic figures for tests",
            "date": "2025-06-01",
            "hardware": {"cpu": "Synthetic CPU", "cpu_cores": 8, "gpu": None, "gpu_count": 0,
                         "precision": "float32"},
            "embedding_cache": False, "tasks": entries}


def write_reported(root: Path, rng: np.random.Generator, n_rows: int = 4) -> Path:
    """A reported file with FollowIR and mFollowIR rows and PI-Indic full-set rows."""
    registry = all_tasks()
    followir = [t for t in registry.values() if t.benchmark in ("followir", "mfollowir-cl")]
    systems = []
    for i in range(n_rows):
        skill = float(rng.random())
        tasks = {}
        for t in followir:
            scores = _task_scores(t, rng, 5, skill, per_query=False)
            tasks[t.id] = TaskScores(metrics={k: v for k, v in scores.metrics.items()
                                              if k in ("p-MRR", t.headline_metric)})
        systems.append(SystemResult(
            system_id=f"paper/table-2/model-{i}",
            model=ModelInfo(name=f"Paper model {i}", type=MODEL_TYPES[i % len(MODEL_TYPES)],
                            parameters=None, instruction_trained=None),
            provenance="reported",
            source=Source(kind="paper", citation="Someone et al. 2025, Table 2",
                          table="Table 2", url="https://example.org/paper"),
            tasks=tasks))
    pi_tasks = {}
    for t in registry.values():
        if t.benchmark == "pi-indic-val150" and t.views.get("pi_task") == "t1":
            pi_tasks[PI_FULL_PREFIX + t.id[len(PI_VAL_PREFIX):]] = TaskScores(
                metrics={m: float(rng.random()) for m in t.standard_metrics})
    pi_tasks[PI_FULL_PREFIX + "t2/avg"] = TaskScores(
        metrics={"R@1": 0.2, "R@5": 0.3, "R@10": 0.4, "RR@10": 0.25})
    systems.append(SystemResult(
        system_id="pi-indic-paper/table-3/labse",
        model=ModelInfo(name="LaBSE (PI-Indic paper)", type="bi-encoder"),
        provenance="reported",
        source=Source(kind="paper", citation="Shah et al., PI-Indic-Align, Table 3"),
        tasks=pi_tasks))
    path = root / "results" / "reported" / "synthetic-paper.json"
    write_results(path, ResultsFile(kind="reported", systems=systems))
    return path


def write_tree(root: Path, n_submissions: int, *, seed: int = 0, n_queries: int = 12,
               task_ids: list[str] | None = None, hostile: bool = True,
               reported: bool = True, run_files: int = 1,
               per_query_store: Path | None = None) -> list[str]:
    """A results tree with ``n_submissions`` verified submissions (plus a hostile one and
    reported rows unless disabled); returns the submission ids. ``per_query_store``: see
    :func:`write_submission`."""
    rng = np.random.default_rng(seed)
    registry = all_tasks()
    tasks = [registry[t] for t in task_ids] if task_ids else list(registry.values())
    ids = []
    for i in range(n_submissions):
        sub_id = f"sub-{i:04d}"
        write_submission(root, sub_id, f"Model {i:04d}", tasks, rng, n_queries=n_queries,
                         model_type=MODEL_TYPES[i % len(MODEL_TYPES)],
                         parameters=[110_000_000, 335_000_000, 7_100_000_000, None][i % 4],
                         instruction_trained=[True, False, None][i % 3], run_files=run_files,
                         per_query_store=per_query_store)
        ids.append(sub_id)
    if hostile:
        write_submission(
            root, "hostile", HOSTILE_NAME, tasks, rng, n_queries=n_queries,
            links=[HOSTILE_LINK, "https://example.org/ok", "data:text/html,<b>x</b>"],
            contact='<img src=x onerror="alert(2)">',
            produced_by="**bold** [link](javascript:alert(3)) </div><script>alert(4)</script>",
            system_id='hostile"><img src=x onerror=alert(5)>', run_files=run_files,
            per_query_store=per_query_store)
        ids.append("hostile")
    if reported:
        write_reported(root, rng)
    return ids


def write_explanations(root: Path, submission_id: str, results: ResultsFile,
                       task_ids: list[str], rng: np.random.Generator, *, changed: int = 15,
                       positive: int = 20, corpus_size: int = 20_000) -> Path:
    """Explanation files for a synthetic submission, as scoring writes them
    (:mod:`leaderboard.submission.explain_files`), under ``root/<submission_id>/explain/``: the query
    lists carry the results file's per-query figures; the cards are random, with as many
    documents per query as a real FollowTable card (``changed`` T-, ``positive`` T+, the
    top 10 of each run), so their sizes and load times are realistic. No texts. Returns
    the explanation folder (:func:`name_explanations` names it in a results.json)."""

    registry = all_tasks()
    system = results.systems[0]
    files = []
    for task_id in task_ids:
        task, scores = registry[task_id], system.tasks[task_id]
        queries = sorted({q for values in scores.per_query.values() for q in values})
        group_of = {q: g for g, members in scores.group_members.items() for q in members}
        rows, cards = [], {}
        for q in queries:
            metrics = {k: v[q] for k, v in scores.per_query.items() if q in v}
            paired = "original" in task.roles
            rows.append(QueryRow(q, q if paired else None, group_of.get(q), metrics))
            card = QueryCard(task=task_id, query=q, original_query=q if paired else None,
                             group=group_of.get(q), texts={}, metrics=metrics)
            docs = rng.choice(corpus_size, size=changed + positive + 20, replace=False)
            if task.roles == ("predictions",):
                card.pairs = [{"pair": f"{q}-{i}", "label": int(i == 0),
                               "probability": float(rng.random())} for i in range(11)]
            elif paired:
                ranks = rng.integers(1, 1001, size=(changed + positive, 2))
                for i, (a, b) in enumerate(ranks.tolist()):
                    move = DocMove(doc=f"d{docs[i]}", rank_original=a, rank_altered=b,
                                   p_mrr_rank_original=a, p_mrr_rank_altered=b,
                                   p_mrr=(b / a - 1.0 if a >= b else 1.0 - a / b)
                                   if i < changed else None,
                                   irs_gain=float(rng.normal(0, 0.05)))
                    (card.changed if i < changed else card.positive).append(move)
                card.irs_parts = {"S": 0.1, "S_ideal": 1.5, "S_worst": -1.5, "scale": 1.5}
                card.run_lengths = {"original": 1000, "altered": 1000}
                first = changed + positive
                card.top = {role: [RankedDoc(rank=k + 1, doc=f"d{docs[first + k + 10 * j]}",
                                             judged_query=None, judged_instruction=None)
                                   for k in range(10)]
                            for j, role in enumerate(("original", "altered"))}
            else:
                card.changed = [DocMove(doc=f"d{docs[0]}", rank_original=None,
                                        rank_altered=int(rng.integers(1, 151)),
                                        p_mrr_rank_original=0, p_mrr_rank_altered=0,
                                        p_mrr=None, irs_gain=None)]
                card.run_lengths = {"run": 150}
                card.top = {"run": [RankedDoc(rank=k + 1, doc=f"d{docs[k + 1]}",
                                              judged_query=None, judged_instruction=None)
                                    for k in range(10)]}
            cards[q] = card
        explanation = TaskExplanation(task=task, sheet=None, rows=rows, cards=cards)  # type: ignore[arg-type]
        files.append(task_files(explanation, TaskTexts(), corpus_size))
    folder = root / submission_id
    folder.mkdir(parents=True, exist_ok=True)
    return write(folder, files, results.inputs_sha256 or {})


def name_explanations(results_path: Path, explain_folder: Path) -> None:
    """Make a results.json name the explanation manifest in ``explain_folder`` by its size
    and SHA-256, as scoring does (:func:`leaderboard.submission.results.committed_form`); nothing else
    in the file changes."""
    doc = json.loads(results_path.read_text(encoding="utf-8"))
    doc["explain_manifest"] = ExplainManifestFile.of(
        (explain_folder / MANIFEST).read_bytes()).model_dump(mode="json")
    results_path.write_text(canonical_json(doc), encoding="utf-8")
