"""Explanation files (leaderboard.submission.explain_files): written by `leaderboard score` from the runs
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
from fixtures.submission import pulled
from leaderboard.submission import explain_files, explain_writers, transaction
from leaderboard.app.ci.git import TreeEntry
from leaderboard.app.ci.policy import PrScope, check_derived, check_tree
from leaderboard.app.cli import main
from leaderboard.core.explain import explain_task, explanation_record
from leaderboard.submission.explain_files import (
    MANIFEST,
    browser_base,
    cards_file,
    explain_dir,
    explain_problem,
    parse_manifest,
    queries_file,
    unpacked,
)
from leaderboard.core.evaluate import check_task_files, score_inputs
from leaderboard.submission.pipeline import (
    check_submission,
    results_for,
    results_staleness,
    score_submission,
)
from leaderboard.benchmarks.registry import get_task
from leaderboard.core.report import Report
from leaderboard.submission.results import (ResultsFileError, attach_per_query, committed_form,
                                            per_query_content, read_results,
                                            task_per_query_json)
from leaderboard.submission.files import submission_files
from leaderboard.store.locations import FolderStore, HttpsStore, HubStore, parse_source
from leaderboard.submission.layout import EXPLAIN_DIR, REWRITTEN_AFTER_MERGE

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


def _manifest(folder: Path) -> dict:
    return parse_manifest((explain_dir(folder) / MANIFEST).read_bytes(), MANIFEST)


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
    outcome = score_submission(folder, data_dir, after_merge=True)
    assert outcome.results_path is not None, outcome.report.lines()
    return {"folder": folder, "outcome": outcome, "data_dir": data_dir}


def test_score_writes_the_files_and_keeps_results_json_byte_identical(real) -> None:
    folder: Path = real["folder"]
    assert real["outcome"].explain_path == explain_dir(folder) == folder / EXPLAIN_DIR
    # results.json is what scoring without explanations writes (as git keeps it, the
    # per-query scores named), byte for byte, but for the one field that names the
    # explanation manifest by its size and SHA-256.
    plain = check_submission(folder, real["data_dir"], score=True, explain=False)
    assert not plain.explanations
    results = results_for(plain)
    expected = committed_form(results, per_query_content(results))
    written = (folder / "results.json").read_text(encoding="utf-8")
    doc = json.loads(written)
    named = doc.pop("explain_manifest")
    assert json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False) + "\n" == expected
    assert "explain_manifest" not in expected
    manifest_bytes = (explain_dir(folder) / MANIFEST).read_bytes()
    assert named == {"path": "explain/manifest.json", "bytes": len(manifest_bytes),
                     "sha256": hashlib.sha256(manifest_bytes).hexdigest()}
    assert written == committed_form(results, per_query_content(results), manifest_bytes)
    manifest = _manifest(folder)
    assert set(manifest["tasks"]) == {"followtable/wtr", "pi-indic-val150/t1/hin",
                                      "pi-indic-val150/t2/hin-tam", "pi-indic-val150/t4/hin"}
    listed = set(manifest["files"])
    on_disk = {p.relative_to(explain_dir(folder)).as_posix()
               for p in explain_dir(folder).rglob("*") if p.is_file()} - {"manifest.json"}
    assert listed == on_disk
    for rel, entry in manifest["files"].items():
        data = (explain_dir(folder) / rel).read_bytes()
        assert data[:2] == b"\x1f\x8b"
        # Named by the JSON each inflates to, so another zlib's bytes are the same file.
        content = gzip.decompress(data)
        assert entry == {"sha256": hashlib.sha256(content).hexdigest(), "bytes": len(content)}
    files = submission_files(folder, FolderStore(folder.parent.parent))
    assert explain_problem(files, read_results(folder / "results.json")) is None
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
    assert _manifest(folder)["tasks"][task.id]["cards"] == [
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
    score_submission(folder, real["data_dir"], after_merge=True)
    after = {p.relative_to(folder).as_posix(): p.read_bytes()
             for p in explain_dir(folder).rglob("*") if p.is_file()}
    assert after == before
    assert not list(folder.parent.glob(f".{folder.name}.explain-*"))


def test_rescoring_keeps_a_file_of_the_same_json_compressed_otherwise(real) -> None:
    """The same JSON gzipped by another machine (ISA-L picks its kernels by CPU) or
    library has other bytes: rescoring a committed submission wrote every one of its ~300
    explanation files anew, the same content in new bytes, a commit of binary churn per
    publish run. A file that inflates to the JSON scoring computes is kept as it is (its
    inode, its bytes); one that inflates to anything else, or not at all, is written."""
    folder: Path = real["folder"]
    files = sorted(explain_dir(folder).rglob("*.json.gz"))
    other, wrong, short = files[0], files[len(files) // 2], files[-1]
    right = {p: p.read_bytes() for p in (other, wrong, short)}
    recompressed = gzip.compress(gzip.decompress(right[other]), compresslevel=1, mtime=0)
    assert recompressed != right[other]
    other.write_bytes(recompressed)
    wrong.write_bytes(gzip.compress(gzip.decompress(right[wrong]) + b" ", mtime=0))
    short.write_bytes(right[short][:len(right[short]) // 2])
    inodes = {p: p.stat().st_ino for p in files}
    assert score_submission(folder, real["data_dir"], after_merge=True).results_path
    assert other.read_bytes() == recompressed and other.stat().st_ino == inodes[other]
    for rewritten in (wrong, short):
        assert rewritten.read_bytes() == right[rewritten]
        assert rewritten.stat().st_ino != inodes[rewritten]
    assert all(p.stat().st_ino == inodes[p] for p in files if p not in (wrong, short))
    other.write_bytes(right[other])  # the module's later tests read the scorer's bytes


def test_rescoring_links_unchanged_files_and_writes_a_damaged_one(real, monkeypatch) -> None:
    """Rescoring the same runs links every explanation file whose bytes are already right
    into the new folder: nothing is written, and the folder's transaction sees the same
    file (its inode) without comparing bytes. A file that differs, here by one damaged
    byte, is written anew."""
    folder: Path = real["folder"]
    files = sorted(explain_dir(folder).rglob("*.json.gz"))
    damaged = files[len(files) // 2]
    right = damaged.read_bytes()
    damaged.write_bytes(right[:-1] + bytes([right[-1] ^ 1]))
    inodes = {p: p.stat().st_ino for p in files}
    compared: list[str] = []
    same_bytes = transaction._same_bytes

    def counted(a: Path, b: Path) -> bool:
        compared.append(a.relative_to(folder).as_posix())
        return same_bytes(a, b)

    monkeypatch.setattr(transaction, "_same_bytes", counted)
    outcome = score_submission(folder, real["data_dir"], after_merge=True)
    assert outcome.results_path is not None
    assert damaged.read_bytes() == right and damaged.stat().st_ino != inodes[damaged]
    assert all(p.stat().st_ino == inodes[p] for p in files if p != damaged)
    # Compared: the damaged file, and those written whole again (results, per-query
    # scores, manifests), never an unchanged explanation file.
    damaged_rel = damaged.relative_to(folder).as_posix()
    assert damaged_rel in compared
    assert not [rel for rel in compared if rel.endswith(".json.gz") and rel != damaged_rel
                and rel.startswith(f"{EXPLAIN_DIR}/")], compared


def test_a_failed_write_leaves_the_previous_files(real, monkeypatch) -> None:
    folder: Path = real["folder"]
    before = _manifest(folder)
    outcome = real["outcome"]

    def broken(*args, **kwargs):  # noqa: ANN002, ANN003
        raise OSError("disk full")

    monkeypatch.setattr(explain_files, "manifest_of", broken)
    written = explain_writers.ExplanationFolder(folder)
    for task in outcome.explanations:
        written.add(task)
    with pytest.raises(OSError, match="disk full"):
        written.finish(outcome.explanations, {})
    assert _manifest(folder) == before
    assert not list(folder.parent.glob(f".{folder.name}.explain-*"))


def test_an_invalid_submission_writes_nothing(tmp_path: Path, data_dir: Path) -> None:
    folder = _submission(tmp_path, "broken", {
        "followtable/wtr/original.trec.gz": BM25 / "followtable/wtr/original.trec.gz"})
    (folder / "runs" / "followtable" / "wtr" / "altered.trec").write_text("q1 Q0 d1 x 1 t\n")
    outcome = score_submission(folder, data_dir, after_merge=True)
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
    outcome = score_submission(folder, data, after_merge=True)
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
    results_path = folder / "results.json"
    saved, saved_results = manifest.read_bytes(), results_path.read_bytes()
    try:
        # A manifest that is not the one results.json names: refused by its digest.
        doc = json.loads(saved)
        doc["inputs_digest"] = "0" * 64
        forged = (json.dumps(doc, sort_keys=True, indent=1) + "\n").encode()
        manifest.write_bytes(forged)
        capsys.readouterr()
        assert main(args) == 1
        out = capsys.readouterr().out
        assert ("explained/explain: explain/manifest.json: the copy in the submission's "
                "folder") in out and "does not match: its sha256 is" in out
        # Merged (CI's manifest in its folder): `score` would keep new files in the run
        # store's cache, not here; the publish run writes them anew.
        assert f"; {REWRITTEN_AFTER_MERGE}" in out and "leaderboard score" not in out, out
        # Named in results.json too, it is the explanation of other inputs.
        named = json.loads(saved_results)
        named["explain_manifest"].update(bytes=len(forged),
                                         sha256=hashlib.sha256(forged).hexdigest())
        results_path.write_text(json.dumps(named, sort_keys=True, indent=1) + "\n")
        assert main(args) == 1
        assert ("explained/explain: explain/ was computed from other files than results.json; "
                f"{REWRITTEN_AFTER_MERGE}") in capsys.readouterr().out
        results_path.write_bytes(saved_results)
        manifest.unlink()
        (problem,) = results_staleness(folder)
        assert problem.startswith("explain/manifest.json: the file is missing (not in the "
                                  "submission's folder"), problem
        # A results.json that names no explanation files (scored before the explorer).
        named.pop("explain_manifest")
        results_path.write_text(json.dumps(named, sort_keys=True, indent=1) + "\n")
        assert results_staleness(folder) == [
            "explain/ is missing (results.json names no explanation files: scored before the "
            "query explorer)"]
    finally:
        manifest.write_bytes(saved)
        results_path.write_bytes(saved_results)
    assert results_staleness(folder) == []


def test_validate_of_a_submission_not_merged_holds_its_explanations_as_pr_check_does(
        tmp_path: Path, data_dir: Path, monkeypatch, capsys) -> None:
    """A maintainer validates a pull request's submission on their own machine: its
    author's `score` kept the explanation files in the run store cache of the author's
    machine (KeptExplanations), where results.json names their manifest, and this machine
    has none of them. They are CI's to write after merge, and `ci pr-check` computes the
    manifest results.json names rather than reading it: validate does the same, so the
    folder is valid here as in CI (nothing is said of files no pull request carries), and
    a results.json naming another manifest is refused here as in CI."""
    task = "pi-indic-val150/t1/hin"
    pulled_dir = pulled(tmp_path / "data", [task], data_dir)
    folder = _submission(tmp_path, "reviewed",
                         {f"{task}/run.trec.gz": BM25 / task / "run.trec.gz"})
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "author-cache"))
    assert score_submission(folder, pulled_dir, after_merge=False).results_path is not None
    assert not explain_dir(folder).exists()
    args = ["validate", str(folder), "--data-dir", str(pulled_dir), "--quiet"]
    assert main(args) == 0, capsys.readouterr().out  # the author's machine
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "reviewer-cache"))
    capsys.readouterr()
    assert main(args) == 0, capsys.readouterr().out
    assert "explain" not in capsys.readouterr().out
    # A results.json naming other explanation files than these runs give.
    results_path = folder / "results.json"
    doc = json.loads(results_path.read_text(encoding="utf-8"))
    doc["explain_manifest"]["sha256"] = "0" * 64
    results_path.write_text(json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False)
                            + "\n", encoding="utf-8")
    assert main(args) == 1
    out = capsys.readouterr().out
    assert ("reviewed/results.json: the scores match the runs, but explain_manifest differs "
            "from what this version of the scorer writes, while `ci pr-check` compares") \
        in out, out
    # Named by none (scored before the explorer): pr-check refuses it too.
    doc.pop("explain_manifest")
    results_path.write_text(json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False)
                            + "\n", encoding="utf-8")
    assert main(args) == 1
    assert "but explain_manifest differs" in capsys.readouterr().out


def test_explanation_files_of_another_format_are_stale(real, capsys) -> None:
    """Text parts or cards in a format this version's explorer refuses (a scorer before
    followboard-texts/2 wrote docs parts without their ``cut`` list) are stale: validate
    says so and publishing writes them anew, as it does explanations of other inputs."""
    folder: Path = real["folder"]
    manifest = explain_dir(folder) / "manifest.json"
    results_path = folder / "results.json"
    saved, saved_results = manifest.read_bytes(), results_path.read_bytes()
    assert json.loads(saved)["formats"] == {"explain": "followboard-explain/1",
                                            "texts": "followboard-texts/2"}

    def name(doc: dict) -> None:
        forged = (json.dumps(doc, sort_keys=True, indent=1) + "\n").encode()
        manifest.write_bytes(forged)
        named = json.loads(saved_results)
        named["explain_manifest"].update(bytes=len(forged),
                                         sha256=hashlib.sha256(forged).hexdigest())
        results_path.write_text(json.dumps(named, sort_keys=True, indent=1) + "\n")

    try:
        doc = json.loads(saved)
        doc["formats"]["texts"] = "followboard-texts/1"
        name(doc)
        assert results_staleness(folder) == [
            "explain/ holds files in followboard-texts/1, which this version of FollowBoard "
            "no longer writes and its query explorer refuses (it writes "
            "followboard-texts/2)"]
        assert main(["validate", str(folder), "--data-dir", str(real["data_dir"]),
                     "--quiet"]) == 1
        assert f"followboard-texts/2); {REWRITTEN_AFTER_MERGE}" in capsys.readouterr().out
        # A manifest naming no formats was written before manifests named them.
        del doc["formats"]
        name(doc)
        assert results_staleness(folder) == [
            "explain/ was written by a version of FollowBoard before its manifest named the "
            "formats of its files (this one writes followboard-explain/1, "
            "followboard-texts/2)"]
    finally:
        manifest.write_bytes(saved)
        results_path.write_bytes(saved_results)
    assert results_staleness(folder) == []


def test_a_submissions_stored_files_of_a_newer_version_say_to_update() -> None:
    """A per-query file, an explanation manifest or explanation files of a newer format than
    this checkout reads (a newer FollowBoard scored the submission; the run store keeps
    what any version wrote) were refused as 'format: Input should be
    'followboard-per-query/1'', as 'not an explanation manifest' and as files 'this
    version of FollowBoard no longer writes': each says which file holds which version,
    the one this version reads, and to update FollowBoard. Made from the committed files."""
    folder = Path(__file__).resolve().parents[1] / "submissions" / "bm25s"
    results = read_results(folder / "results.json", per_query=False)
    content = gzip.decompress((folder / "per-query.json.gz").read_bytes())
    assert attach_per_query(results, content, "p.json.gz").systems[0].tasks  # as it is: read
    with pytest.raises(ResultsFileError) as raised:
        attach_per_query(results, content.replace(b'"followboard-per-query/1"',
                                                  b'"followboard-per-query/2"'), "p.json.gz")
    assert str(raised.value) == (
        "p.json.gz: format followboard-per-query/2 is newer than this version of FollowBoard "
        "reads (format followboard-per-query/1); update FollowBoard to read it")
    manifest = (folder / EXPLAIN_DIR / MANIFEST).read_bytes()
    assert parse_manifest(manifest, "m.json")["tasks"]
    with pytest.raises(explain_files.ExplainFilesError) as raised:
        parse_manifest(manifest.replace(b'"followboard-explain-manifest/2"',
                                        b'"followboard-explain-manifest/3"'), "m.json")
    assert str(raised.value) == (
        "m.json: format followboard-explain-manifest/3 is newer than this version of "
        "FollowBoard reads (format followboard-explain-manifest/2); update FollowBoard to "
        "read it")
    formats = json.loads(manifest)["formats"]
    assert explain_files.formats_problem(formats) is None
    assert explain_files.formats_problem({**formats, "texts": "followboard-texts/3"}) == (
        "explain/ holds files in followboard-texts/3, newer than this version of FollowBoard "
        "reads (followboard-texts/2); update FollowBoard to read them")


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
    from leaderboard.app.ci import policy

    report = Report()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(policy, "MAX_FILES", 2)
        check_tree("m", entries + merged, report)
    assert report.ok
    # A PR that adds, changes or deletes them is refused.
    report = Report()
    check_derived("m", [f"{prefix}/runs/followtable/wtr/altered.trec",
                        f"{prefix}/explain/x0.json.gz"], report, merged=True)
    assert [i.message for i in report.errors] == [
        "1 file under explain/ changed (submissions/m/explain/x0.json.gz): the explorer's "
        "files are written by CI after the merge; leave them out of the pull request"]
    report = Report()
    check_derived("m", [f"{prefix}/metadata.yaml"], report, merged=False)
    assert report.ok
    assert isinstance(PrScope(), PrScope)


def test_the_browser_fetches_from_where_the_run_store_keeps_the_files(tmp_path: Path) -> None:
    """One setting: a folder store's files are copied into the site (None); a dataset's
    are fetched at the commit the manifest names; an HTTPS store's by its template."""
    folder = tmp_path / "submissions" / "a-b"
    folder.mkdir(parents=True)
    commit = "0123456789abcdef0123456789abcdef01234567"
    (folder / "manifest.txt").write_text(
        "format: followboard-manifest/1\n"
        f"source: hf://datasets/org/runs@{commit}/submissions/a-b\n")
    def base(store):  # noqa: ANN001, ANN202
        return browser_base(submission_files(folder, store))

    assert base(FolderStore(tmp_path)) is None
    assert base(FolderStore(tmp_path / "elsewhere")) is None
    source = parse_source(f"hf://datasets/org/runs@{commit}/submissions/a-b")
    assert base(HubStore("org/runs", source.endpoint)) == (
        f"{source.endpoint}/datasets/org/runs/resolve/{commit}/submissions/a-b/explain/")
    assert base(HttpsStore("https://mirror.example/runs/{+path}")) == \
        "https://mirror.example/runs/submissions/a-b/explain/"
    assert base(HttpsStore("https://zenodo.example/files/{path}?download=1")) == \
        "https://zenodo.example/files/submissions%2Fa-b%2Fexplain%2F{rel}?download=1"
    assert base(HttpsStore("https://mirror.example/{+path}?x=1")) == \
        "https://mirror.example/submissions/a-b/explain/{+rel}?x=1"
    # Files in the submission's own folder (scored here, not pushed yet) are copied.
    (folder / EXPLAIN_DIR).mkdir()
    (folder / EXPLAIN_DIR / MANIFEST).write_text("{}")
    assert base(HubStore("org/runs", source.endpoint)) is None
    # A dataset store without a source names no place: nothing was pushed.
    (folder / EXPLAIN_DIR / MANIFEST).unlink()
    (folder / "manifest.txt").write_text("format: followboard-manifest/1\n")
    assert base(HubStore("org/runs", source.endpoint)) is None


@pytest.mark.parametrize(("rel", "message"), [
    ("../../metadata.yaml", "is not an explanation file"),
    ("/etc/passwd.json.gz", "is not an explanation file"),
    ("a/../../b.json.gz", "is not an explanation file"),
    ("x.trec.gz", "is not an explanation file"),
    ("manifest.json", "is not an explanation file"),
])
def test_a_manifest_names_only_files_inside_the_explanation_folder(rel: str, message: str) -> None:
    doc = {"format": explain_files.MANIFEST_FORMAT, "tasks": {},
           "files": {rel: {"sha256": "0" * 64, "bytes": 10}}}
    with pytest.raises(explain_files.ExplainFilesError, match=message):
        parse_manifest(json.dumps(doc).encode(), "m.json")
    doc["files"] = {"t.queries.json.gz": {"sha256": "0" * 64, "bytes": 0}}
    with pytest.raises(explain_files.ExplainFilesError, match="needs its size"):
        parse_manifest(json.dumps(doc).encode(), "m.json")


def test_unreadable_files_name_themselves() -> None:
    with pytest.raises(explain_files.ExplainFilesError, match="x.json.gz: not a readable"):
        unpacked(gzip.compress(b"{not json"), "x.json.gz")
    with pytest.raises(explain_files.ExplainFilesError, match="not an explanation manifest"):
        parse_manifest(b'{"format": "other"}', "manifest.json")


@pytest.mark.parametrize("submission", ["bm25s", "all-minilm-l6-v2"])
def test_the_per_query_file_is_the_models_dump_and_the_committed_bytes(submission: str) -> None:
    """per_query_content puts the file together from the checked scores without the
    PerQueryFile model; its bytes are the model's dump, and the committed file's."""
    from leaderboard.submission.results import PER_QUERY_FORMAT, PerQueryFile, PerQueryScores

    folder = REPO / "submissions" / submission
    results = read_results(folder / "results.json")
    content = per_query_content(results)
    (system,) = results.systems
    model = PerQueryFile(format=PER_QUERY_FORMAT, system_id=system.system_id, tasks={
        t: PerQueryScores(per_query=s.per_query, group_members=s.group_members)
        for t, s in system.tasks.items()})
    assert content == (json.dumps(model.model_dump(mode="json"), sort_keys=True,
                                  separators=(",", ":"), ensure_ascii=False,
                                  allow_nan=False) + "\n").encode("utf-8")
    assert content == gzip.decompress((folder / "per-query.json.gz").read_bytes())
    # Put together from each task's part, as the worker processes write them: the same
    # bytes; with a part missing, the whole file is written here instead.
    members = {t: task_per_query_json(s) for t, s in system.tasks.items()}
    assert None not in members.values()
    assert per_query_content(results, members) == content
    members.pop(sorted(members)[0])
    assert per_query_content(results, members) == content


def test_a_task_part_of_the_per_query_file_is_left_to_the_check_unless_all_floats() -> None:
    """A figure the check would convert (an int) or refuse (NaN) leaves the task's part
    unwritten, so the file is written from the checked scores."""
    from leaderboard.core.scoring import ScoreSheet

    def part(value: object) -> str | None:
        return task_per_query_json(ScoreSheet(metrics={}, per_query={"nDCG@10": {"q1": value}},
                                              group_members={"C1": ["q1"]}))

    assert part(0.5) == '{"group_members":{"C1":["q1"]},"per_query":{"nDCG@10":{"q1":0.5}}}'
    assert part(1) is None and part(float("nan")) is None and part(float("inf")) is None
