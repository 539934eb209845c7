"""Explanation files (leaderboard.explain_files): written by `leaderboard score` from the runs
it has just parsed, equal to the engine's per-query figures, content-addressed texts only
where the licence allows, replaced all at once, and kept out of pull requests.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from fixtures.mteb_collection import run_lines, write_collection
from leaderboard import explain_files
from leaderboard.ci.git import TreeEntry
from leaderboard.ci.policy import PrScope, check_derived, check_tree
from leaderboard.cli import main
from leaderboard.explain import explain_task, explanation_record
from leaderboard.explain_files import (
    EXPLAIN_DIR,
    cards_file,
    explain_dir,
    explain_problem,
    queries_file,
    read_manifest,
    store_url,
    unpacked,
)
from leaderboard.pipeline import (
    check_submission,
    check_task_files,
    results_for,
    results_staleness,
    score_inputs,
    score_submission,
)
from leaderboard.registry import get_task
from leaderboard.report import Report
from leaderboard.results import canonical_json, read_results

REPO = Path(__file__).resolve().parents[1]
BM25 = REPO / "submissions" / "bm25s" / "runs"
TOLERANCE = 1e-12


def _metadata(sub_id: str) -> str:
    return (f"id: {sub_id}\nmodel:\n  name: Explained {sub_id}\n  type: other\n"
            "contact: FollowBoard tests\nproduced_by: tests/test_explain_files.py\n")


def _submission(root: Path, sub_id: str, runs: dict[str, Path]) -> Path:
    """A submission folder whose runs are copies of ``runs`` (runs/<task>/<file name>)."""
    folder = root / "submissions" / sub_id
    folder.mkdir(parents=True)
    (folder / "metadata.yaml").write_text(_metadata(sub_id), encoding="utf-8")
    for rel, src in runs.items():
        dst = folder / "runs" / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    return folder


def _doc(folder: Path, rel: str) -> dict:
    return unpacked((explain_dir(folder) / rel).read_bytes(), rel)


@pytest.fixture(scope="module")
def real(tmp_path_factory, data_dir: Path) -> dict:
    """FollowTable WTR, PI-Indic T1 Hindi and T4 Hindi from BM25's committed runs, scored."""
    root = tmp_path_factory.mktemp("explained")
    runs = {f"followtable/wtr/{r}.trec.gz": BM25 / "followtable" / "wtr" / f"{r}.trec.gz"
            for r in ("original", "altered")}
    runs["pi-indic-val150/t1/hin/run.trec.gz"] = BM25 / "pi-indic-val150/t1/hin/run.trec.gz"
    runs["pi-indic-val150/t2/hin-tam/run.trec.gz"] = BM25 / "pi-indic-val150/t2/hin-tam/run.trec.gz"
    runs["pi-indic-val150/t4/hin/predictions.tsv"] = BM25 / "pi-indic-val150/t4/hin/predictions.tsv"
    folder = _submission(root, "explained", runs)
    outcome = score_submission(folder, data_dir)
    assert outcome.results_path is not None, outcome.report.lines()
    return {"folder": folder, "outcome": outcome, "data_dir": data_dir}


def test_score_writes_the_files_and_keeps_results_json_byte_identical(real) -> None:
    folder: Path = real["folder"]
    assert real["outcome"].explain_path == explain_dir(folder) == folder / EXPLAIN_DIR
    # results.json is what scoring without explanations writes, byte for byte.
    plain = check_submission(folder, real["data_dir"], score=True, explain=False)
    assert not plain.explanations
    expected = canonical_json(results_for(plain).model_dump(mode="json", exclude_none=True))
    assert (folder / "results.json").read_text(encoding="utf-8") == expected
    manifest = read_manifest(folder)
    assert set(manifest["tasks"]) == {"followtable/wtr", "pi-indic-val150/t1/hin",
                                      "pi-indic-val150/t2/hin-tam", "pi-indic-val150/t4/hin"}
    listed = set(manifest["files"])
    on_disk = {p.relative_to(explain_dir(folder)).as_posix()
               for p in explain_dir(folder).rglob("*") if p.is_file()} - {"manifest.json"}
    assert listed == on_disk
    for rel, entry in manifest["files"].items():
        data = (explain_dir(folder) / rel).read_bytes()
        assert entry == {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
        assert data[:2] == b"\x1f\x8b"
    assert explain_problem(folder, read_results(folder / "results.json").inputs_sha256) is None
    assert results_staleness(folder) == []


def test_query_lists_hold_the_engines_per_query_figures(real) -> None:
    folder: Path = real["folder"]
    results = read_results(folder / "results.json").systems[0].tasks
    for task_id, scores in results.items():
        listing = _doc(folder, queries_file(task_id))
        assert listing["task"] == task_id and listing["kind"] == "queries"
        assert len(listing["queries"]) == scores.n_queries
        for query, original, group, values in listing["queries"]:
            for metric, value in zip(listing["metrics"], values):
                own = original if metric.startswith("original/") and original else query
                stored = scores.per_query[metric].get(own)
                assert (value is None) == (stored is None)
                if value is not None:
                    assert abs(value - stored) <= TOLERANCE, (task_id, query, metric)


def test_cards_are_the_explanation_records_cards(real, data_dir: Path) -> None:
    folder: Path = real["folder"]
    task = get_task("followtable/wtr")
    files = {r: folder / "runs" / "followtable" / "wtr" / f"{r}.trec.gz"
             for r in ("original", "altered")}
    _, inputs = check_task_files(task, data_dir, files)
    sheet = score_inputs(inputs)
    record = explanation_record(explain_task(task, inputs.data, sheet, inputs.runs))
    listing = _doc(folder, queries_file(task.id))
    assert listing["corpus_size"] == inputs.data.corpus_size
    # The cards, in slices of the list's order: together, the record's cards.
    starts = listing["card_files"]
    assert starts[0] == 0 and starts == sorted(starts) and len(starts) > 1
    joined: dict = {}
    for part, start in enumerate(starts):
        doc = _doc(folder, cards_file(task.id, part))
        assert doc["fields"] == record["fields"] and doc["part"] == part
        end = starts[part + 1] if part + 1 < len(starts) else len(listing["queries"])
        assert set(doc["cards"]) == {q[0] for q in listing["queries"][start:end]}
        assert len(json.dumps(doc["cards"])) < 2 * explain_files.CARDS_PER_FILE
        joined.update(doc["cards"])
    assert joined == json.loads(json.dumps(record["cards"]))
    assert read_manifest(folder)["tasks"][task.id]["cards"] == [
        cards_file(task.id, k) for k in range(len(starts))]


def test_followtable_links_upstream_and_pi_indic_shares_its_texts(real) -> None:
    folder: Path = real["folder"]
    wtr = _doc(folder, queries_file("followtable/wtr"))
    assert wtr["texts"] is None  # no licence: no copy
    assert wtr["upstream"]["doc_page"].startswith("https://github.com/deu05232/FollowTable/blob/")
    t1 = _doc(folder, queries_file("pi-indic-val150/t1/hin"))["texts"]
    t2 = _doc(folder, queries_file("pi-indic-val150/t2/hin-tam"))["texts"]
    assert t1["licence"] == "Apache-2.0"
    # T1 and T2 from Hindi ask the same Hindi personas: one file serves both.
    assert t1["refs"]["queries:run"] == t2["refs"]["queries:run"]
    assert t1["refs"]["docs"] != t2["refs"]["docs"]  # Hindi vs Tamil instructions
    part = _doc(folder, f"texts/{t1['refs']['queries:run']}.json.gz")
    assert part["kind"] == "queries" and len(part["texts"]) == 150
    text = json.dumps(part, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False)
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == t1["refs"]["queries:run"]
    t4 = _doc(folder, queries_file("pi-indic-val150/t4/hin"))["texts"]["refs"]
    pairs = _doc(folder, f"texts/{t4['pairs']}.json.gz")["texts"]
    persona, instruction = next(iter(pairs.values()))
    assert persona.startswith("p") and instruction.startswith("i")
    assert persona in _doc(folder, f"texts/{t4['queries:persona']}.json.gz")["texts"]


def test_rescoring_gives_identical_files(real, tmp_path: Path) -> None:
    folder: Path = real["folder"]
    before = {p.relative_to(folder).as_posix(): p.read_bytes()
              for p in explain_dir(folder).rglob("*") if p.is_file()}
    score_submission(folder, real["data_dir"])
    after = {p.relative_to(folder).as_posix(): p.read_bytes()
             for p in explain_dir(folder).rglob("*") if p.is_file()}
    assert after == before
    assert not list(folder.parent.glob(f".{folder.name}.explain-*"))


def test_a_failed_write_leaves_the_previous_files(real, monkeypatch) -> None:
    folder: Path = real["folder"]
    before = read_manifest(folder)
    outcome = real["outcome"]

    def broken(*args, **kwargs):  # noqa: ANN002, ANN003
        raise OSError("disk full")

    monkeypatch.setattr(explain_files, "manifest_of", broken)
    with pytest.raises(OSError, match="disk full"):
        explain_files.write_explanations(folder, outcome.explanations, {})
    assert read_manifest(folder) == before
    assert not list(folder.parent.glob(f".{folder.name}.explain-*"))


def test_an_invalid_submission_writes_nothing(tmp_path: Path, data_dir: Path) -> None:
    folder = _submission(tmp_path, "broken", {
        "followtable/wtr/original.trec.gz": BM25 / "followtable/wtr/original.trec.gz"})
    (folder / "runs" / "followtable" / "wtr" / "altered.trec").write_text("q1 Q0 d1 x 1 t\n")
    outcome = score_submission(folder, data_dir)
    assert not outcome.report.ok
    assert not explain_dir(folder).exists() and not (folder / "results.json").exists()


def test_followir_fixture_texts_are_shown(tmp_path: Path) -> None:
    local = get_task("followir/core17").source.local_dir
    data = tmp_path / "data"
    collection = write_collection(data / local, n_queries=3, pool_size=12, seed=4)
    runs_dir = tmp_path / "runs"
    runs_dir.mkdir()
    for role in ("original", "altered"):
        (runs_dir / f"{role}.trec").write_text("".join(run_lines(collection, role, seed=5)))
    folder = _submission(tmp_path, "fixture", {f"followir/core17/{r}.trec": runs_dir / f"{r}.trec"
                                              for r in ("original", "altered")})
    outcome = score_submission(folder, data)
    assert outcome.results_path is not None, outcome.report.lines()
    listing = _doc(folder, queries_file("followir/core17"))
    refs = listing["texts"]["refs"]
    assert listing["texts"]["licence"] == "MIT" and listing["upstream"] is None
    altered = _doc(folder, f"texts/{refs['queries:altered']}.json.gz")["texts"]
    q = collection.base_ids[0]
    assert altered[f"{q}-changed"] == f"query {q} altered instruction of {q}"
    docs = _doc(folder, f"texts/{refs['docs']}.json.gz")["texts"]
    assert docs[collection.pools[q][0]] == f"title {collection.pools[q][0]} text of " \
                                           f"{collection.pools[q][0]}"


def test_validate_accepts_the_files_and_reports_missing_or_stale_ones(real, capsys) -> None:
    folder: Path = real["folder"]
    args = ["validate", str(folder), "--data-dir", str(real["data_dir"]), "--quiet"]
    assert main(args) == 0
    manifest = explain_dir(folder) / "manifest.json"
    saved = manifest.read_text(encoding="utf-8")
    try:
        doc = json.loads(saved)
        doc["inputs_digest"] = "0" * 64
        manifest.write_text(json.dumps(doc), encoding="utf-8")
        capsys.readouterr()
        assert main(args) == 1
        assert ("explained/explain: explain/ was computed from other files than results.json; "
                "run `leaderboard score submissions/explained`") in capsys.readouterr().out
        manifest.unlink()
        assert results_staleness(folder) == ["explain/ is missing (the query explorer's files)"]
    finally:
        manifest.write_text(saved, encoding="utf-8")
    assert results_staleness(folder) == []


def test_a_pull_request_cannot_carry_explanation_files() -> None:
    prefix = "submissions/m"
    def entry(path: str, size: int = 10) -> TreeEntry:
        return TreeEntry(mode="100644", kind="blob", sha="0" * 40, size=size, path=path)

    entries = [entry(f"{prefix}/metadata.yaml"),
               entry(f"{prefix}/runs/followtable/wtr/altered.trec")]
    merged = [entry(f"{prefix}/explain/x{i}.json.gz", 50) for i in range(3)]
    report = Report()
    # Files CI merged earlier are neither stray files nor part of what the PR adds.
    assert check_tree("m", entries + merged, report) and report.ok
    from leaderboard.ci import policy

    report = Report()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(policy, "MAX_FILES", 2)
        check_tree("m", entries + merged, report)
    assert report.ok
    # A PR that adds, changes or deletes them is refused.
    report = Report()
    check_derived("m", [f"{prefix}/runs/followtable/wtr/altered.trec",
                        f"{prefix}/explain/x0.json.gz"], report)
    assert [i.message for i in report.errors][0].startswith(
        "1 file(s) under explain/ changed (submissions/m/explain/x0.json.gz)")
    report = Report()
    check_derived("m", [f"{prefix}/metadata.yaml"], report)
    assert report.ok
    assert isinstance(PrScope(), PrScope)


def test_store_url_names_each_submissions_folder() -> None:
    assert store_url("bm25s", {}) is None
    env = {"LEADERBOARD_EXPLAIN_URL": "https://hf.co/datasets/o/r/resolve/main/{submission}/explain"}
    assert store_url("a b", env) == "https://hf.co/datasets/o/r/resolve/main/a%20b/explain/"


def test_unreadable_files_name_themselves(tmp_path: Path) -> None:
    with pytest.raises(explain_files.ExplainFilesError, match="x.json.gz: not a readable"):
        unpacked(gzip.compress(b"{not json"), "x.json.gz")
    (tmp_path / EXPLAIN_DIR).mkdir()
    (tmp_path / EXPLAIN_DIR / "manifest.json").write_text('{"format": "other"}')
    with pytest.raises(explain_files.ExplainFilesError, match="not an explanation manifest"):
        read_manifest(tmp_path)
