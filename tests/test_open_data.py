"""Results as open data: the site's results.parquet, training-data marks and what a model
cost on the built pages (issue 36).

One small synthetic results tree (two submissions, a hostile one, the synthetic paper's
rows and a reported FollowIR-7B row) is built once for the module.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from fixtures.chromium import serve
from leaderboard.benchmarks import benchmark_of
from leaderboard.publish.models import default_registry
from leaderboard.publish.site.build import build_site
from leaderboard.publish.site.synthetic import write_tree
from leaderboard.publish.standings.long_form import long_records, split_key
from leaderboard.publish.training import (NOT_DISCLOSED, TRAINING_MARK, training_overlap,
                                          training_text)
from leaderboard.submission.results import (ModelInfo, ResultsFile, Source, SystemResult,
                                            TaskScores, write_results)

TASKS = ["followir/robust04", "followir/news21", "followir/core17", "followtable/wtr",
         "pi-indic-val150/t1/hin", "pi-indic-val150/t4/hin"]


def _reported_followir_7b(root: Path) -> None:
    """FollowIR-7B, whose declared training data uses TREC narratives, on FollowIR and on
    FollowTable (which shares nothing with it)."""
    tasks = {t: TaskScores(metrics={"p-MRR": 0.1 + i / 100}) for i, t in
             enumerate(["followir/robust04", "followir/news21", "followir/core17",
                        "followtable/wtr"])}
    system = SystemResult(
        system_id="paper/followir-7b", provenance="reported",
        model=ModelInfo(name="FollowIR-7B", type="llm-reranker", parameters=7_000_000_000,
                        instruction_trained=True,
                        links=["https://huggingface.co/jhu-clsp/FollowIR-7B"]),
        source=Source(kind="paper", citation="Someone et al. 2025, Table 9"), tasks=tasks)
    write_results(root / "results" / "reported" / "followir-7b.json",
                  ResultsFile(kind="reported", systems=[system]))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("open-data")
    root = base / "root"
    write_tree(root, 2, n_queries=6, task_ids=TASKS)
    _reported_followir_7b(root)
    build_site(root, base / "out", cache_dir=base / "cache")
    return {"root": root, "out": base / "out"}


# --------------------------------------------------------------------------- long form

def test_split_key_takes_the_longest_column_id() -> None:
    ids = ["p-MRR", "fas:p-MRR", "fas"]
    assert split_key("p-MRR", ids) == ("p-MRR", None)
    assert split_key("fas:p-MRR from", ids) == ("fas:p-MRR", "from")
    assert split_key("fas tier", ids) == ("fas", "tier")
    assert split_key("rank", ids) == (None, None)


def test_long_records_keep_every_field_of_a_record() -> None:
    record = {"rank": 1, "model": "M", "system_id": "s", "a": 0.5, "b": None,
              "a from": None, "b from": "t", "a tier": "best verified", "a p_value": 0.01,
              "others": {"a": [{"system_id": "u", "value": 0.4, "source": "x"}]}}
    long = long_records("v", ["a", "b"], [record])
    assert long == [
        {"view": "v", "rank": 1, "model": "M", "system_id": "s", "column": "a",
         "value": 0.5, "from": None, "tier": "best verified", "p_value": 0.01,
         "others": [{"system_id": "u", "value": 0.4, "source": "x"}]},
        {"view": "v", "rank": 1, "model": "M", "system_id": "s", "column": "b",
         "value": None, "from": "t"}]


# --------------------------------------------------------------------------- results.parquet

def _same(parquet_value: object, json_value: object) -> bool:
    if json_value is None:
        return parquet_value is None or (isinstance(parquet_value, float)
                                         and math.isnan(parquet_value))
    if isinstance(json_value, (list, dict)):
        return json.loads(parquet_value) == json_value  # type: ignore[arg-type]
    if isinstance(json_value, bool):
        return bool(parquet_value) is json_value
    if isinstance(json_value, (int, float)):
        return float(parquet_value) == float(json_value)  # type: ignore[arg-type]
    return parquet_value == json_value


def test_results_parquet_read_by_url_reproduces_every_json_download_cell(site: dict) -> None:
    """pandas reads downloads/results.parquet from the served site, and every cell of every
    view's JSON download is in it, with the line's fields and the cell's tests."""
    out: Path = site["out"]
    server, url = serve(out)
    try:
        frame = pd.read_parquet(url + "downloads/results.parquet")
    finally:
        server.shutdown()
    for column in ("view", "system_id", "model", "provenance", "column", "value", "tier",
                   "p_value", "p_adjusted", "ci_low", "ci_high", "source"):
        assert column in frame.columns, column
    table = {(r["view"], r["model_id"], r["column"]): r
             for r in frame.to_dict(orient="records")}
    assert len(table) == len(frame)   # one record per (view, line, column)
    checked = 0
    views = 0
    for path in sorted((out / "downloads").glob("*.json")):
        doc = json.loads(path.read_text("utf-8"))   # every view's, and home.json
        views += 1
        view_id = doc["view"]["id"]
        columns = [c["id"] for c in doc["view"]["columns"]]
        for row in doc["rows"]:
            for cid in columns:
                rec = table.pop((view_id, row["model_id"], cid))
                for key, value in row.items():
                    if key == "others":
                        want = value.get(cid)
                        assert _same(rec["others"], want) if want else _same(rec["others"], None)
                        continue
                    owner, field = split_key(key, columns)
                    if owner is None:
                        assert _same(rec[key], value), (view_id, key)
                    elif owner == cid:
                        assert _same(rec["value" if field is None else field], value), \
                            (view_id, cid, key)
                    checked += 1
    assert not table, f"records the JSON downloads do not have: {list(table)[:3]}"
    assert views > 10 and checked > 1000


# --------------------------------------------------------------------------- training data

def test_declared_training_data_meets_a_benchmark_only_where_sources_are_shared() -> None:
    registry = default_registry()
    followir_7b = registry.by_name["followir-7b"]
    overlap = training_overlap(followir_7b, benchmark_of("followir"))
    assert overlap is not None and overlap.instructions == ("trec-narratives",)
    assert "Sec. 5" in overlap.describe() and "arxiv.org/abs/2403.15246" in overlap.describe()
    assert training_overlap(followir_7b, benchmark_of("mfollowir")) is not None
    assert training_overlap(followir_7b, benchmark_of("followtable")) is None
    promptriever = registry.by_name[" ".join("Promptriever (7B)".split()).casefold()]
    assert "MS MARCO" in training_text(promptriever)
    for benchmark in ("followir", "mfollowir", "followtable", "pi-indic-val150"):
        assert training_overlap(promptriever, benchmark_of(benchmark)) is None
    # A model that says nothing is "not disclosed", and never marked.
    gecko = registry.by_name["google/text-embedding-004"]
    assert gecko.training_data is None and training_text(gecko) == NOT_DISCLOSED


def test_every_declared_training_statement_names_its_source() -> None:
    for record in default_registry().records:
        if record.training_data is not None:
            assert record.training_data.source.strip(), record.id
            assert record.training_data.url is None or \
                record.training_data.url.startswith("https://"), record.id


def _cells_of(html: str, name: str) -> list[str]:
    """The score cells' texts of the row whose model name is ``name``."""
    from site_html import parse

    out = []
    for table in parse(html).tables:
        for row in table["rows"]:
            if name in row["cells"][1]["text"]:
                out += [c["text"] for c in row["cells"][3:]]
    return out


def test_marked_cells_and_the_note_on_the_benchmark_pages(site: dict) -> None:
    out: Path = site["out"]
    followir = _cells_of(out / "followir.html", "FollowIR-7B")
    scores = [t for t in followir if t not in ("–", "not tested")]  # not the gap column
    assert scores and all(t.endswith(TRAINING_MARK) for t in scores)
    page = (out / "followir.html").read_text("utf-8")
    assert "declared training data shares" in page or "training data shares" in page
    assert "TREC topic narratives" in page
    followtable = _cells_of(out / "followtable.html", "FollowIR-7B")
    assert followtable and not any(TRAINING_MARK in t for t in followtable)
    # Nobody else on FollowIR declares TREC narratives: no other row is marked.
    for table_name in ("Model 0000", "Paper model 0"):
        assert not any(TRAINING_MARK in t for t in _cells_of(out / "followir.html", table_name))


def test_submission_page_names_training_data_and_the_hardware_of_its_cost(site: dict) -> None:
    page = (site["out"] / "submissions" / "sub-0000.html").read_text("utf-8")
    assert "Training data</dt><dd>not disclosed" in page
    cost = page[page.index('id="cost"'):page.index('id="files"')]
    assert "Synthetic CPU, 8 CPU cores, no GPU; precision: float32" in cost
    assert "fb-cost-table" in cost and "followir/robust04" in cost
    # Cost is never a column of a leaderboard table.
    assert "Texts/s" not in (site["out"] / "followir.html").read_text("utf-8")
