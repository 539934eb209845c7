"""`leaderboard data pull`, offline: a local HTTP server plays GitHub and the Hugging Face Hub.

The server (tests/fixtures/fake_upstream.py, which the run store's tests use too) serves
small fixture repositories built in tmp_path through the same endpoints the puller uses
upstream (commit/revision resolution, tree listings, raw/resolve downloads, LFS
redirects, paginated listings), and can corrupt a file, drop a connection in the middle
of a file, or truncate a tree listing on request. It binds to 127.0.0.1 only.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import socket
from pathlib import Path
from typing import Callable, Iterator

import pandas as pd
import pytest
from huggingface_hub import constants as hf_constants

from leaderboard.app.cli import main
from leaderboard.core.data import data_files, load_task_data
from leaderboard.app.datapull.common import (
    ChecksumError,
    PART_PREFIX,
    PART_SUFFIX,
    PullError,
    SourceUnreachableError,
)
from leaderboard.app.datapull.github import HttpClient, write_packed_corpus
from leaderboard.app.datapull.pull import DataPuller, pull_sources, select_sources
from leaderboard.core.checksums import file_checksum, git_blob_sha1
from leaderboard.core.config import Endpoints
from leaderboard.core.data.revision import (MANIFEST_NAME, DataRevisionError, data_revision,
                                           off_pin, recorded_note, recorded_verified)
from leaderboard.core.report import Report
from leaderboard.core.tasks import Task
from leaderboard.submission.pipeline import data_revisions
from fixtures.fake_upstream import FakeRepo, FakeUpstream, isolate_from_the_network, serve
from fixtures.kill import folder_files, needs_fork, run_child
from fixtures.mteb_collection import Collection, add_split, write_collection
from leaderboard.benchmarks.followir import FOLLOWIR_SOURCES
from leaderboard.benchmarks.followtable import FOLLOWTABLE_COMMIT
from leaderboard.benchmarks.mfollowir import MFOLLOWIR_SOURCE
from leaderboard.benchmarks.pi_indic import PI_INDIC_COMMIT, PI_INDIC_SOURCE
from leaderboard.benchmarks.registry import get_task
from leaderboard.core.data.layout_files import PI_INDIC_LANGUAGES

FT_REPO = "deu05232/FollowTable"
FT_COMMIT = FOLLOWTABLE_COMMIT + "0" * (40 - len(FOLLOWTABLE_COMMIT))
PI_COMMIT = PI_INDIC_COMMIT + "1" * (40 - len(PI_INDIC_COMMIT))
R04 = FOLLOWIR_SOURCES["robust04"]
R04_COMMIT = R04.revision + "2" * (40 - len(R04.revision))
SHARED_DATA = Path(os.environ.get("LEADERBOARD_DATA",
                                  str(Path(__file__).resolve().parents[2] / "shared" / "data")))


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeUpstream]:
    isolate_from_the_network(monkeypatch)
    up = FakeUpstream()
    build_followtable_repo(up, tmp_path / "upstream-gh-followtable")
    build_pi_indic_repo(up, tmp_path / "upstream-gh-pi-indic")
    build_robust04_repo(up, tmp_path / "upstream-hf-robust04")
    up.collections = build_mfollowir_repo(up, tmp_path / "upstream-hf-mfollowir")
    with serve(up, monkeypatch):
        yield up


# --- fixture repositories -------------------------------------------------------------------

TABLES = {
    "10": "| city | café |\n| --- | --- |\n| Zürich | 3 |",
    "2": "# Running shoes\n\n| model | drop |\n| --- | --- |\n| A | 8 mm |",
    "7": "<table><tr><td>\"quoted\"</td></tr></table>\n",
}


def _write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


def _jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def build_followtable_repo(up: FakeUpstream, root: Path) -> None:
    ds = root / "data" / "WTR"
    for table_id, text in TABLES.items():
        _write(ds / "tables" / f"{table_id}.txt", text)
    _write(ds / "queries.jsonl", _jsonl([
        {"_id": "0_0", "text": "only reviews [SEP] running shoes",
         "metadata": {"origin_query": "running shoes", "instruction": "only reviews",
                      "instruction_type": "1.1"}},
        {"_id": "0_1", "text": "per city [SEP] running shoes",
         "metadata": {"origin_query": "running shoes", "instruction": "per city",
                      "instruction_type": "2.3.1"}},
    ]))
    _write(ds / "only_queries.jsonl", _jsonl([{"_id": "0", "text": "running shoes"}]))
    _write(ds / "qrels" / "test.tsv", "query-id\tcorpus-id\tscore\n0_0\t7\t1\n0_1\t10\t1\n")
    _write(ds / "qrels" / "for_only_query_test.tsv",
           "query-id\tcorpus-id\tscore\n0\t7\t1\n0\t10\t1\n0\t2\t1\n")
    _write(ds / "query_instruction.json", json.dumps([{"query": "running shoes", "outs": []}]))
    # Things the pull must leave alone: the repo's README and another dataset.
    _write(root / "README.md", "# FollowTable\n")
    _write(root / "data" / "TArX" / "tables" / "1.txt", "| other |\n")
    up.github[FT_REPO] = FakeRepo(root, FT_COMMIT)


def pi_csv(lang_name: str) -> str:
    import io

    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["id", "ENG_indian_context", "indian_context", "expert_1", "expert_2"])
    for k in (1, 2, 3):
        eng = {"id": k, "indian_context_persona": f"persona {k}",
               "indian_context_instruction": f"instruction {k}"}
        local = {"id": k, "indian_context_persona": f"{lang_name} persona {k}",
                 "indian_context_instruction": f"{lang_name} instruction {k}"}
        writer.writerow([k, json.dumps(eng), json.dumps(local, ensure_ascii=False),
                         "Completely Agree", "Partially Agree"])
    return buf.getvalue()


def build_pi_indic_repo(up: FakeUpstream, root: Path) -> None:
    for path in PI_INDIC_SOURCE.files:
        name = path.rsplit(" - ", 1)[1].removesuffix(".csv")
        _write(root / path, pi_csv(name))
    _write(root / "results" / "t1" / "big.json", "{}")
    up.github[PI_INDIC_SOURCE.repo] = FakeRepo(root, PI_COMMIT)


ROBUST04_CONFIGS = {
    "corpus": pd.DataFrame({"_id": ["d1", "d2", "d3"], "title": ["", "t2", ""],
                            "text": ["first doc", "second doc", "third doc"]}),
    "queries": pd.DataFrame({"_id": ["301-og", "301-changed"],
                             "text": ["oil spills", "oil spills"]}),
    "instruction": pd.DataFrame({"query-id": ["301-og", "301-changed"],
                                 "instruction": ["any spill", "only tankers"]}),
    "qrels": pd.DataFrame({"query-id": ["301-og", "301-og", "301-changed"],
                             "corpus-id": ["d1", "d2", "d1"], "score": [1, 1, 1]}),
    "top_ranked": pd.DataFrame({"query-id": ["301-og", "301-changed"],
                                "corpus-ids": [["d1", "d2", "d3"], ["d1", "d2", "d3"]]}),
    "qrel_diff": pd.DataFrame({"query-id": ["301"], "corpus-ids": [["d2"]]}),
}


def build_robust04_repo(up: FakeUpstream, root: Path) -> None:
    """mteb/Robust04InstructionRetrieval's layout: qrels config "qrels", every split "test"
    except qrel_diff's, which is "qrel_diff" (mteb's Robust04 task asks for that split)."""
    card = ["---", "configs:"]
    for config, frame in ROBUST04_CONFIGS.items():
        split = "qrel_diff" if config == "qrel_diff" else "test"
        target = root / config / f"{split}-00000-of-00001.parquet"
        target.parent.mkdir(parents=True, exist_ok=True)
        frame.to_parquet(target, index=False)
        card += [f"- config_name: {config}", "  data_files:", f"  - split: {split}",
                 f"    path: {config}/{split}-*"]
    card += ["---", "", "# Robust04 InstructionRetrieval", ""]
    _write(root / "README.md", "\n".join(card))
    _write(root / ".gitattributes", "*.parquet filter=lfs\n")
    up.hf[R04.repo] = FakeRepo(root, R04_COMMIT)


MFIR = MFOLLOWIR_SOURCE
MFIR_COMMIT = MFIR.revision + "3" * (40 - len(MFIR.revision))
MFIR_LANGS = ("fas", "rus", "zho")


def build_mfollowir_repo(up: FakeUpstream, root: Path) -> dict[str, Collection]:
    """jhu-clsp/mFollowIR-parquet-mteb's layout: the language is a suffix of every config
    (corpus-fas, default-fas, ...), written by the shared fixture with its dataset card."""
    collections = {lang: write_collection(root, n_queries=2, pool_size=6, language=lang,
                                          seed=i) for i, lang in enumerate(MFIR_LANGS)}
    _write(root / ".gitattributes", "*.parquet filter=lfs\n")
    up.hf[MFIR.repo] = FakeRepo(root, MFIR_COMMIT)
    return collections


# --- helpers --------------------------------------------------------------------------------

def puller(up: FakeUpstream, data_dir: Path, *, retries: int = 1, force: bool = False,
           environ: dict[str, str] | None = None) -> DataPuller:
    return DataPuller(data_dir, endpoints=up.endpoints(),
                      http=HttpClient(timeout=5, retries=retries, backoff=0),
                      jobs=4, force=force, progress=False, environ=environ or {})


def pull_one(up: FakeUpstream, data_dir: Path, name: str, **kw: object):
    [item] = select_sources([name])
    return puller(up, data_dir, **kw).pull(item)  # type: ignore[arg-type]


def leftovers(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(PART_SUFFIX)]


# --- pulls that work ------------------------------------------------------------------------

def test_followtable_pull_packs_the_corpus_and_the_reader_loads_it(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    data = tmp_path / "data-ft"
    result = pull_one(upstream, data, "followtable/wtr")
    root = data / "followtable" / "WTR"
    assert result.downloaded == 6 and result.skipped == 0  # 5 files + packed corpus

    lines = [json.loads(line) for line in (root / "corpus.jsonl").read_text("utf-8").splitlines()]
    assert [d["_id"] for d in lines] == ["10", "2", "7"]  # string order, as the mirror
    assert {d["_id"]: d["text"] for d in lines} == TABLES
    assert "Zürich" in (root / "corpus.jsonl").read_text("utf-8")  # UTF-8 kept, not escaped
    assert (root / "query_instruction.json").is_file()
    assert not (root / "tables").exists() and not (root / "README.md").exists()
    assert not (data / "followtable" / "TArX").exists()
    assert leftovers(data) == []

    manifest = json.loads((root / MANIFEST_NAME).read_text())
    assert manifest["repo"] == FT_REPO and manifest["commit"] == FT_COMMIT
    assert manifest["revision"] == FOLLOWTABLE_COMMIT
    qrels = (upstream.github[FT_REPO].root / "data/WTR/qrels/test.tsv").read_bytes()
    assert manifest["files"]["qrels/test.tsv"]["digest"] == git_blob_sha1(qrels)
    assert manifest["files"]["corpus.jsonl"]["algorithm"] == "sha256"
    assert manifest["files"]["corpus.jsonl"]["digest"] == hashlib.sha256(
        (root / "corpus.jsonl").read_bytes()).hexdigest()

    task_data = load_task_data(get_task("followtable/wtr"), data)
    assert list(task_data.doc_ids) == ["10", "2", "7"]
    assert task_data.pairs == {"0_0": "0", "0_1": "0"}
    assert task_data.changed["0_0"] == ["10", "2"]
    assert task_data.groups == {"0_0": "C1", "0_1": "S3"}


def test_pi_indic_pull_through_the_cli_and_the_reader_loads_it(
        upstream: FakeUpstream, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data-pi"
    assert main(["data", "pull", "pi-indic", "--data-dir", str(data), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "pi-indic: 12 downloaded" in out
    for name in PI_INDIC_LANGUAGES.values():
        assert (data / "pi-indic" / "annotator_validation" / "language-wise-validation"
                / f"Nirdesha_Multilingual_Validation - {name}.csv").is_file()
    assert not (data / "pi-indic" / "results").exists()
    task_data = load_task_data(get_task("pi-indic-val150/t2/hin-tam"), data)
    assert task_data.roles["run"].query_ids == ["p1", "p2", "p3"]
    assert task_data.roles["run"].query_text["p2"] == "Hindi persona 2"

    assert main(["data", "status", "pi-indic", "--data-dir", str(data), "--verify"]) == 0
    status = capsys.readouterr().out
    assert "present" in status and "300/300 tasks ready" in status
    assert f"pulled {PI_INDIC_SOURCE.repo}@{PI_INDIC_COMMIT}" in status


def test_followir_pull_from_the_hub_and_the_reader_loads_it(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    data = tmp_path / "data-fir"
    upstream.hf_page_size = 4  # the listing spans several pages
    result = pull_one(upstream, data, "followir/robust04")
    assert result.downloaded == 7  # six configs + the dataset card
    root = data / "followir" / "robust04"
    for config in ROBUST04_CONFIGS:
        split = "qrel_diff" if config == "qrel_diff" else "test"
        assert (root / config / f"{split}-00000-of-00001.parquet").is_file()
    assert not (root / ".gitattributes").exists()
    assert sum("/tree/" in r for r in upstream.requests) > 1
    # LFS files come through the CDN redirect and are checked by SHA-256.
    assert any(r.startswith("/cdn/") for r in upstream.requests)
    manifest = json.loads((root / MANIFEST_NAME).read_text())
    assert manifest["files"]["corpus/test-00000-of-00001.parquet"]["algorithm"] == "sha256"
    assert manifest["files"]["README.md"]["algorithm"] == "git-sha1"

    task_data = load_task_data(get_task("followir/robust04"), data)
    assert list(task_data.doc_ids) == ["d1", "d2", "d3"]
    assert task_data.pairs == {"301-changed": "301-og"}
    assert task_data.changed == {"301-changed": ["d2"]}
    assert list(task_data.pools["301-og"]) == ["d1", "d2", "d3"]


def test_mfollowir_pull_reads_the_language_suffixed_configs(
        upstream: FakeUpstream, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`data pull mfollowir` asks for corpus-fas, default-fas, ... (not fas-corpus)."""
    data = tmp_path / "data-mfir"
    assert main(["data", "pull", "mfollowir", "--data-dir", str(data), "--quiet"]) == 0, \
        capsys.readouterr().err
    assert capsys.readouterr().err == ""  # --quiet: no progress bars, huggingface_hub's either
    root = data / "mfollowir" / "multilingual"
    for lang in MFIR_LANGS:
        for config in ("corpus", "queries", "instruction", "default", "top_ranked",
                       "qrel_diff"):
            assert any((root / f"{config}-{lang}").glob("*.parquet")), f"{config}-{lang}"
    for lang, c in upstream.collections.items():
        task_data = load_task_data(get_task(f"mfollowir/{lang}"), data)
        assert task_data.roles["original"].query_ids == [f"{q}-og" for q in c.base_ids]
        assert task_data.changed == {f"{q}-changed": c.changed[q] for q in c.base_ids}
        assert task_data.roles["altered"].qrels == {
            f"{q}-changed": c.qrels[f"{q}-changed"] for q in c.base_ids}
        assert sorted(task_data.pools[f"{c.base_ids[0]}-og"]) == sorted(c.pools[c.base_ids[0]])
    assert main(["data", "status", "mfollowir", "--data-dir", str(data)]) == 0
    assert "3/3 tasks ready" in capsys.readouterr().out


def test_a_hub_pull_takes_the_split_mteb_reads_at_the_repositorys_paths(
        upstream: FakeUpstream, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A config with a "dev" split beside "test" had both pulled into its folder, and the
    reader read both, while mteb reads "test" alone; and a config stored outside a folder
    of its name (data/qrels-*) landed in qrels/, where the card read locally does not
    find it. The files of the split mteb reads are pulled, each at its path upstream."""
    root = upstream.hf[R04.repo].root
    pd.DataFrame({"_id": ["d9"], "title": [""], "text": ["dev"]}).to_parquet(
        root / "corpus" / "dev-00000-of-00001.parquet", index=False)
    (root / "data").mkdir()
    (root / "qrels" / "test-00000-of-00001.parquet").rename(
        root / "data" / "qrels-test-00000-of-00001.parquet")
    card = (root / "README.md").read_text()
    (root / "README.md").write_text(
        card.replace("    path: corpus/test-*\n", "    path: corpus/test-*\n  - split: dev\n"
                                                  "    path: corpus/dev-*\n")
            .replace("path: qrels/test-*", "path: data/qrels-test-*"))
    data = tmp_path / "data-splits"
    pull_one(upstream, data, "followir/robust04")
    local = data / "followir" / "robust04"
    manifest = json.loads((local / MANIFEST_NAME).read_text("utf-8"))
    assert sorted(manifest["files"]) == sorted(
        ["README.md", "data/qrels-test-00000-of-00001.parquet"]
        + [f"{c}/{'qrel_diff' if c == 'qrel_diff' else 'test'}-00000-of-00001.parquet"
           for c in ROBUST04_CONFIGS if c != "qrels"])
    assert not (local / "corpus" / "dev-00000-of-00001.parquet").exists()
    task_data = load_task_data(get_task("followir/robust04"), data)
    assert list(task_data.doc_ids) == ["d1", "d2", "d3"]
    assert task_data.roles["original"].qrels == {"301-og": {"d1": 1, "d2": 1}}
    assert main(["data", "status", "followir/robust04", "--data-dir", str(data),
                 "--verify"]) == 0, capsys.readouterr().out


def test_an_mfollowir_pull_takes_each_configs_own_split(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    """mteb reads corpus-fas's split "corpus" and default-fas's "test", whatever else
    the config has: a "test" split of corpus-fas, a "dev" one of default-fas, are not
    pulled (nor read)."""
    c = upstream.collections["fas"]
    add_split(c, "corpus", "test", pd.DataFrame({"_id": ["zz"], "title": [""], "text": [""]}))
    add_split(c, "default", "dev", pd.DataFrame({"query-id": [f"{c.base_ids[0]}-og"],
                                                 "corpus-id": ["zz"], "score": [1]}))
    data = tmp_path / "data-mfir-splits"
    pull_one(upstream, data, "mfollowir/fas")
    local = data / "mfollowir" / "multilingual"
    assert [p.name for p in (local / "corpus-fas").iterdir()] == [
        "corpus-00000-of-00001.parquet"]
    assert [p.name for p in (local / "default-fas").iterdir()] == [
        "test-00000-of-00001.parquet"]
    task_data = load_task_data(get_task("mfollowir/fas"), data)
    assert "zz" not in task_data.doc_ids
    assert task_data.roles["original"].qrels == {
        f"{q}-og": c.qrels[f"{q}-og"] for q in c.base_ids}


def test_hub_files_are_verified_staged_and_renamed_into_place(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    """huggingface_hub downloads into a staging folder; only verified files are kept."""
    data = tmp_path / "data-hub-bad"
    corpus = "corpus/test-00000-of-00001.parquet"
    upstream.corrupt.add(corpus)
    with pytest.raises(ChecksumError, match=r"corpus/test-00000-of-00001\.parquet.*"
                                            r"checksum mismatch"):
        pull_one(upstream, data, "followir/robust04")
    root = data / "followir" / "robust04"
    # Files that verified may stay (as for GitHub); the bad one never lands, and neither
    # the staging folder nor huggingface_hub's .cache is left behind.
    assert not (root / corpus).exists()
    assert not (root / MANIFEST_NAME).exists()
    assert [p.name for p in root.iterdir() if p.name.startswith(".")] == []

    upstream.corrupt.clear()
    upstream.drop[corpus] = 1  # the first transfer is cut in the middle
    pull_one(upstream, data, "followir/robust04")
    assert upstream.drop[corpus] == 0  # the cut happened, and the retry recovered
    assert (root / corpus).read_bytes() == (upstream.hf[R04.repo].root / corpus).read_bytes()
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".")) == [MANIFEST_NAME]

    # A re-run verifies against the manifest without a request; a lost file is the only
    # one fetched again.
    upstream.requests.clear()
    assert pull_one(upstream, data, "followir/robust04").offline_check
    assert upstream.requests == []
    (root / corpus).unlink()
    result = pull_one(upstream, data, "followir/robust04")
    assert (result.downloaded, result.skipped) == (1, 6)
    assert [r for r in upstream.downloads() if r.startswith("/cdn/")] == [
        f"/cdn/{R04.repo}/{R04_COMMIT}/{corpus}"]


def test_hub_offline_switch_is_a_clear_error(
        upstream: FakeUpstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(SourceUnreachableError, match="HF_HUB_OFFLINE is set"):
        pull_one(upstream, tmp_path / "data-hub-offline", "followir/robust04")


def test_truncated_tree_listing_is_walked_folder_by_folder(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    upstream.truncate_recursive = True
    data = tmp_path / "data-trunc"
    pull_one(upstream, data, "followtable/wtr")
    corpus = (data / "followtable" / "WTR" / "corpus.jsonl").read_text("utf-8")
    assert len(corpus.splitlines()) == 3


# --- failures leave nothing behind ---------------------------------------------------------------

def test_checksum_mismatch_is_refused_and_nothing_is_kept(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    data = tmp_path / "data-bad"
    upstream.corrupt.add("data/WTR/qrels/test.tsv")
    with pytest.raises(ChecksumError, match=r"data/WTR/qrels/test\.tsv.*checksum mismatch"):
        pull_one(upstream, data, "followtable/wtr")
    root = data / "followtable" / "WTR"
    assert not (root / "qrels" / "test.tsv").exists()
    assert not (root / MANIFEST_NAME).exists()
    assert leftovers(data) == []


def test_a_body_longer_than_the_listed_file_is_cut_off(upstream: FakeUpstream,
                                                       tmp_path: Path) -> None:
    """A server sending no Content-Length and bytes without end had them all written to
    the temporary file (400 MB for a 42-byte file) before the checksum refused it."""
    data = tmp_path / "data-long"
    upstream.overlong.add("data/WTR/qrels/test.tsv")
    with pytest.raises(ChecksumError, match=r"data/WTR/qrels/test\.tsv .*sent more than the "
                                            r"[\d,]+ bytes upstream lists"):
        pull_one(upstream, data, "followtable/wtr")
    assert not (data / "followtable" / "WTR" / "qrels" / "test.tsv").exists()
    assert leftovers(data) == []


def test_a_second_pull_into_the_same_folder_waits_its_turn(upstream: FakeUpstream,
                                                           tmp_path: Path) -> None:
    """Two pulls into one folder: the second swept the first one's partial files and
    staging folder from under it, and the first failed with a disk error. A pull holds
    the folder; another says so and writes nothing."""
    import fcntl
    import os

    data = tmp_path / "data-two"
    [item] = select_sources(["followtable/wtr"])
    root = data / item.source.local_dir
    root.mkdir(parents=True)
    partial = root / f"{PART_PREFIX}a{PART_SUFFIX}"
    partial.write_bytes(b"the first pull's download")
    held = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(PullError, match="another `leaderboard data pull` is writing"):
            pull_one(upstream, data, "followtable/wtr")
        assert partial.exists()  # the holder's file is left alone
    finally:
        os.close(held)
    pull_one(upstream, data, "followtable/wtr")
    assert not partial.exists() and (root / MANIFEST_NAME).is_file()


def test_a_corrupt_table_leaves_no_corpus(upstream: FakeUpstream, tmp_path: Path) -> None:
    data = tmp_path / "data-bad-table"
    upstream.corrupt.add("data/WTR/tables/2.txt")
    with pytest.raises(ChecksumError, match=r"tables/2\.txt"):
        pull_one(upstream, data, "followtable/wtr")
    assert not (data / "followtable" / "WTR" / "corpus.jsonl").exists()
    assert leftovers(data) == []


def test_interrupted_download_leaves_no_partial_file_and_a_retry_recovers(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    data = tmp_path / "data-cut"
    key = "data/WTR/queries.jsonl"
    upstream.drop[key] = 10  # every attempt is cut
    with pytest.raises(PullError, match="transfer failed 2 times"):
        pull_one(upstream, data, "followtable/wtr", retries=1)
    root = data / "followtable" / "WTR"
    assert not (root / "queries.jsonl").exists()
    assert not (root / MANIFEST_NAME).exists()
    assert leftovers(data) == []

    upstream.drop[key] = 1  # one cut, then the retry gets the whole file
    pull_one(upstream, data, "followtable/wtr", retries=1)
    assert (root / "queries.jsonl").read_bytes() == (
        upstream.github[FT_REPO].root / key).read_bytes()
    assert upstream.drop[key] == 0


def test_a_killed_pulls_temp_files_are_swept(upstream: FakeUpstream, tmp_path: Path) -> None:
    data = tmp_path / "data-killed"
    stale = data / "followtable" / "WTR" / "qrels" / f".pull-test.tsv.abc{PART_SUFFIX}"
    _write(stale, "half a fi")
    pull_one(upstream, data, "followtable/wtr")
    assert not stale.exists()


# --- re-runs --------------------------------------------------------------------------------------

def test_rerun_skips_verified_files_and_refetches_only_what_changed(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    data = tmp_path / "data-rerun"
    pull_one(upstream, data, "followtable/wtr")
    first = len(upstream.downloads())
    assert first == 8  # 5 files + 3 tables

    # Same revision, every file verified against the manifest: no request at all.
    upstream.requests.clear()
    result = pull_one(upstream, data, "followtable/wtr")
    assert result.offline_check and result.skipped == 6
    assert upstream.requests == []

    # One file lost, one corrupted locally: only those two are fetched again.
    root = data / "followtable" / "WTR"
    (root / "only_queries.jsonl").unlink()
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n", encoding="utf-8")
    upstream.requests.clear()
    result = pull_one(upstream, data, "followtable/wtr")
    assert (result.downloaded, result.skipped) == (2, 4)
    assert sorted(upstream.downloads()) == sorted(
        [f"/gh-raw/{FT_REPO}/{FT_COMMIT}/data/WTR/only_queries.jsonl",
         f"/gh-raw/{FT_REPO}/{FT_COMMIT}/data/WTR/qrels/test.tsv"])

    # A copy made by hand (no manifest) is verified against upstream, not downloaded.
    (root / MANIFEST_NAME).unlink()
    upstream.requests.clear()
    result = pull_one(upstream, data, "followtable/wtr")
    assert result.downloaded == 1 and result.skipped == 5  # the corpus is re-packed
    assert len(upstream.downloads()) == 3  # its 3 tables

    # --force downloads everything again.
    upstream.requests.clear()
    result = pull_one(upstream, data, "followtable/wtr", force=True)
    assert result.downloaded == 6 and len(upstream.downloads()) == 8


def _an_earlier_pull_with_a_file_of_its_own(upstream: FakeUpstream, data: Path,
                                            **manifest: str) -> tuple[Path, Path, Path]:
    """Robust04 pulled into ``data``, then made to look like an earlier pull (its manifest's
    ``manifest`` fields changed: another revision or repository) that also wrote a corpus
    shard this one lacks, beside a file no pull wrote: (the folder, that shard, that file)."""
    pull_one(upstream, data, "followir/robust04")
    root = data / "followir" / "robust04"
    stale = root / "corpus" / "train-00000-of-00001.parquet"
    pd.DataFrame({"_id": ["d9"], "title": [""], "text": ["old"]}).to_parquet(stale, index=False)
    own = root / "notes.txt"
    own.write_text("mine\n", encoding="utf-8")
    recorded = json.loads((root / MANIFEST_NAME).read_text("utf-8"))
    recorded.update(manifest)
    recorded["files"]["corpus/train-00000-of-00001.parquet"] = {
        "upstream": "corpus/train-00000-of-00001.parquet", "upstream_id": "old",
        **file_checksum(stale, "sha256").to_json()}
    (root / MANIFEST_NAME).write_text(json.dumps(recorded), encoding="utf-8")
    return root, stale, own


def test_a_pull_of_a_new_revision_removes_the_files_only_the_old_one_had(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    """A pull at a new revision left the files of the old one that the new one no longer
    has (a config's parquet file renamed or split upstream): the reader reads every
    parquet file of a config folder, so the corpus mixed two revisions while the manifest,
    and results.json, named the new one alone. The files the old manifest listed and the
    new revision lacks are removed; a file no pull wrote is left alone."""
    data = tmp_path / "data-moved"
    root, stale, own = _an_earlier_pull_with_a_file_of_its_own(upstream, data, revision="0ld")

    pull_one(upstream, data, "followir/robust04")
    assert not stale.exists() and own.is_file()
    manifest = json.loads((root / MANIFEST_NAME).read_text("utf-8"))
    assert "corpus/train-00000-of-00001.parquet" not in manifest["files"]
    assert list(load_task_data(get_task("followir/robust04"), data).doc_ids) == [
        "d1", "d2", "d3"]


def test_a_pull_from_a_newly_pinned_repository_removes_what_the_old_one_wrote(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    """A source pinned to another repository (FollowIR's qrels are "qrels" in the mteb/*
    re-uploads, "default" in jhu-clsp/*'s) kept the files the pull of the old one wrote,
    since only a manifest of the same repository was looked at: the reader mixed them
    into the new revision's data (and the pull now refuses such a folder). What any
    earlier pull wrote and this one lacks is removed; what no pull wrote stays."""
    data = tmp_path / "data-repo-moved"
    root, old, own = _an_earlier_pull_with_a_file_of_its_own(
        upstream, data, repo="someone/Robust04-before")

    pull_one(upstream, data, "followir/robust04")
    assert not old.exists() and own.is_file()
    assert json.loads((root / MANIFEST_NAME).read_text("utf-8"))["repo"] == R04.repo
    assert list(load_task_data(get_task("followir/robust04"), data).doc_ids) == [
        "d1", "d2", "d3"]


def read_files(task: Task, data: Path) -> dict[str, bytes]:
    """What the reader of ``task`` reads from ``data``, by its path there, with its bytes."""
    return {path.relative_to(data).as_posix(): path.read_bytes()
            for path in data_files(task, data).read}


def _pulled_at_an_older_revision(upstream: FakeUpstream, data: Path) -> Path:
    """robust04 as a pull of an older revision left it: another corpus file at the same
    path, and a file the new revision no longer has; returns the folder."""
    pull_one(upstream, data, "followir/robust04")
    root = data / "followir" / "robust04"
    manifest = json.loads((root / MANIFEST_NAME).read_text("utf-8"))
    manifest["revision"] = "0ld"
    for rel, text in (("corpus/test-00000-of-00001.parquet", "old doc"),
                      ("corpus/train-00000-of-00001.parquet", "old train doc")):
        pd.DataFrame({"_id": ["d1"], "title": [""], "text": [text]}).to_parquet(
            root / rel, index=False)
        manifest["files"][rel] = {"upstream": rel, "upstream_id": "old",
                                  **file_checksum(root / rel, "sha256").to_json()}
    (root / MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")
    return root


@needs_fork
def test_a_pull_of_a_new_revision_killed_midway_leaves_no_revision_claimed_for_its_files(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    """Killed after the first file of the new revision was renamed into place, a pull
    left the earlier pull's manifest, which `score` (which lists files, never hashes
    them) and `data status` took at its word: results.json recorded the old revision
    for a corpus that was partly, or wholly, the new one's. Before it changes a file of
    another revision's pull, a pull marks the manifest as a pull under way, whose files
    are of no one revision, until its own manifest replaces it; the next pull finishes
    the job (the old revision's extra file removed)."""
    task = get_task("followir/robust04")
    clean = tmp_path / "clean"
    _pulled_at_an_older_revision(upstream, clean)
    pull_one(upstream, clean, "followir/robust04")
    done, done_read = folder_files(clean), read_files(task, clean)
    pinned = f"{R04.repo}@{R04.revision}"
    stopped = (f"unknown (a `leaderboard data pull` of {pinned} into it was stopped before "
               "it finished)")
    data = tmp_path / "killed"
    counted = ("replace",)  # the renames: the manifest's, each file's landing
    _pulled_at_an_older_revision(upstream, data)
    reference = run_child(lambda: pull_one(upstream, data, "followir/robust04"), counted)
    assert reference.code == 0 and folder_files(data) == done, reference.output
    for k in range(1, reference.operations + 1):
        shutil.rmtree(data)
        _pulled_at_an_older_revision(upstream, data)
        before = read_files(task, data)
        run = run_child(lambda: pull_one(upstream, data, "followir/robust04"), counted,
                        fail_at=k)
        assert run.code is None, f"operation {k}: not killed\n{run.output}"
        now = read_files(task, data)
        recorded = data_revision(task.source, data).reading(
            data_files(task, data).read).recorded()
        if now != before:  # the reader reads the new revision's files, or some of them
            assert recorded == stopped or (recorded == pinned and now == done_read), (
                k, recorded)
        if recorded == stopped:
            assert main(["data", "status", "followir/robust04", "--data-dir",
                         str(data)]) == 1
        pull_one(upstream, data, "followir/robust04")
        assert folder_files(data) == done, k
        assert data_revision(task.source, data).reading(
            data_files(task, data).read).recorded() == pinned


def sweep_killed_pulls(upstream: FakeUpstream, data: Path, task: Task,
                       start: Callable[[Path], None],
                       capsys: pytest.CaptureFixture[str]) -> None:
    """Pull ``task`` into ``data`` killed at 20 of its file operations, from the first to
    the last, each from the folder ``start`` leaves: `data status`, which takes a manifest
    at its word, and `data status --verify`, which re-hashes every file, pass only where
    the reader reads the whole pull, and the next pull finishes it, no temporary file left."""
    counted = ("open", "write", "fsync", "replace", "rename", "unlink", "mkdir", "rmdir")
    start(data)
    reference = run_child(lambda: pull_one(upstream, data, task.id), counted)
    assert reference.code == 0, reference.output
    done, done_read = folder_files(data), read_files(task, data)
    status = ["data", "status", task.id, "--data-dir", str(data)]
    seen = {"whole": 0, "not": 0}
    n_ops = reference.operations
    for k in sorted({1 + round(i * (n_ops - 1) / 19) for i in range(20)}):
        start(data)
        run = run_child(lambda: pull_one(upstream, data, task.id), counted, fail_at=k)
        assert run.code is None, f"operation {k}: not killed\n{run.output}"
        now = read_files(task, data) if not data_files(task, data).missing else None
        for verify in ([], ["--verify"]):
            if main(status + verify) == 0:
                assert now == done_read, (k, verify, capsys.readouterr().out)
                seen["whole"] += 1
            else:
                seen["not"] += 1
        capsys.readouterr()
        pull_one(upstream, data, task.id)
        assert folder_files(data) == done and leftovers(data) == [], k
    assert seen["whole"] and seen["not"], seen


@needs_fork
@pytest.mark.parametrize("before", ["nothing", "an older revision"])
def test_a_pull_killed_at_20_instants_is_never_taken_for_a_whole_one(
        before: str, upstream: FakeUpstream, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`data pull` killed at 20 of its file operations, from the first to the last,
    mid-download included (a body written to its temporary file, a file renamed into
    place, the manifest): `data status`, which
    takes a manifest at its word, and `data status --verify`, which re-hashes every file,
    pass only where the reader reads the whole new revision; the next pull finishes it
    and leaves no temporary file."""
    task = get_task("followir/robust04")

    def start(data: Path) -> None:
        shutil.rmtree(data, ignore_errors=True)
        if before == "an older revision":
            _pulled_at_an_older_revision(upstream, data)

    sweep_killed_pulls(upstream, tmp_path / "data", task, start, capsys)


def test_github_lfs_pointer_is_replaced_by_the_real_file(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    repo = upstream.github[PI_INDIC_SOURCE.repo]
    rel = PI_INDIC_SOURCE.files[3]  # Hindi
    real = (repo.root / rel).read_bytes()
    pointer = (f"version https://git-lfs.github.com/spec/v1\n"
               f"oid sha256:{hashlib.sha256(real).hexdigest()}\nsize {len(real)}\n")
    (repo.root / rel).write_text(pointer, encoding="ascii")
    upstream.github_lfs[(PI_INDIC_SOURCE.repo, rel)] = real
    data = tmp_path / "data-lfs"
    pull_one(upstream, data, "pi-indic")
    assert (data / "pi-indic" / rel).read_bytes() == real
    # On a re-run the local file no longer hashes to the pointer's blob id; the manifest's
    # record of that id (and of the real file's SHA-256) is what lets it be kept.
    (data / "pi-indic" / "annotator_validation" / "language-wise-validation"
     / "Nirdesha_Multilingual_Validation - Tamil.csv").unlink()
    upstream.requests.clear()
    result = pull_one(upstream, data, "pi-indic")
    assert result.downloaded == 1 and result.skipped == 11


# --- offline and tokens ---------------------------------------------------------------------------

def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_upstream_gives_one_clear_message(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    dead = f"http://127.0.0.1:{_closed_port()}"
    for var in ("LEADERBOARD_GITHUB_API", "LEADERBOARD_GITHUB_RAW", "LEADERBOARD_HF_ENDPOINT"):
        monkeypatch.setenv(var, dead)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret_token_value")
    data = tmp_path / "data-offline"
    code = main(["data", "pull", "followtable", "pi-indic", "--data-dir", str(data),
                 "--retries", "0"])
    captured = capsys.readouterr()
    assert code == 1
    err = captured.err
    assert "Traceback" not in err and "ghp_secret_token_value" not in err + captured.out
    assert err.count("error:") == 1  # one message for the one host
    assert f"cannot reach GitHub at {dead}" in err
    assert "by hand" in err and "mirror" in err
    for folder in ("WQT", "WTR", "TArX", "IndusTR"):
        assert str(data / "followtable" / folder) in err
    assert str(data / "pi-indic") in err
    # "nothing was downloaded", and nothing is left: the pull left empty followtable/WQT
    # and pi-indic folders (and the data folder it had made) behind.
    assert not data.exists(), sorted(data.rglob("*"))


def test_a_failed_pull_removes_only_the_folders_it_made(tmp_path: Path) -> None:
    """A pull that fetched nothing removes the folders it made, and no other: the data
    folder and a source's folder that were there before stay, with what they hold."""
    dead = f"http://127.0.0.1:{_closed_port()}"
    endpoints = Endpoints(github_api=dead, github_raw=dead, github_media=dead, hf_endpoint=dead)
    data = tmp_path / "data-kept"
    (data / "followtable").mkdir(parents=True)
    p = DataPuller(data, endpoints=endpoints, http=HttpClient(timeout=2, retries=0),
                   progress=False, environ={})
    [wtr] = select_sources(["followtable/wtr"])
    with pytest.raises(SourceUnreachableError):
        p.pull(wtr)
    assert [q.relative_to(data).as_posix() for q in data.rglob("*")] == ["followtable"]
    (data / "followtable" / "WTR").mkdir()
    (data / "followtable" / "WTR" / "notes.txt").write_text("mine")
    with pytest.raises(SourceUnreachableError):
        p.pull(wtr)
    assert (data / "followtable" / "WTR" / "notes.txt").read_text() == "mine"


def test_unreachable_is_reported_per_host(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{_closed_port()}"
    endpoints = Endpoints(github_api=dead, github_raw=dead, github_media=dead, hf_endpoint=dead)
    p = DataPuller(tmp_path / "d", endpoints=endpoints, http=HttpClient(timeout=2, retries=0),
                   progress=False, environ={})
    with pytest.raises(SourceUnreachableError, match="the Hugging Face Hub"):
        p.pull(select_sources(["followir/core17"])[0])
    outcome = pull_sources(select_sources(["followir", "mfollowir"]), tmp_path / "d",
                           puller=p, log=lambda _m: None)
    assert len(outcome.errors) == 1 and "followir/news21" in outcome.errors[0]


def test_tokens_go_to_their_own_host_only_and_are_never_printed(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    env = {"GITHUB_TOKEN": "gh-token-123", "HF_TOKEN": "hf-token-456"}
    data = tmp_path / "data-token"
    [ft] = select_sources(["followtable/wtr"])
    [r04] = select_sources(["followir/robust04"])
    puller(upstream, data, environ=env).pull(ft)
    puller(upstream, data, environ=env).pull(r04)
    sent = {path: auth for path, auth in upstream.auth_headers}
    assert all(auth == "Bearer gh-token-123" for path, auth in sent.items()
               if path.startswith(("/gh-api/", "/gh-raw/")))
    assert all(auth == "Bearer hf-token-456" for path, auth in sent.items()
               if path.startswith("/hf/"))
    # The CDN a Hub redirect points to never sees the token.
    assert [auth for path, auth in sent.items() if path.startswith("/cdn/")] == [None] * 6


def test_missing_upstream_config_is_named_before_anything_is_downloaded(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    repo = upstream.hf[R04.repo]
    card = (repo.root / "README.md").read_text()
    (repo.root / "README.md").write_text(card.replace("config_name: qrel_diff",
                                                      "config_name: changes"))
    data = tmp_path / "data-noconfig"
    with pytest.raises(PullError, match="has no config qrel_diff"):
        pull_one(upstream, data, "followir/robust04")
    assert not any(p.suffix == ".parquet" for p in data.rglob("*"))


@pytest.mark.parametrize("card", ["none", "no configs"])
def test_a_repository_without_configs_in_its_card_is_refused(
        upstream: FakeUpstream, tmp_path: Path, card: str) -> None:
    """Without a card declaring configs, each top-level folder was pulled as a config and
    read, where datasets, and so mteb, sees one config "default" of every file (no mteb
    task loads such a repository): refused, saying so, before anything is downloaded."""
    import datasets

    repo = upstream.hf[R04.repo]
    if card == "none":
        (repo.root / "README.md").unlink()
    else:
        (repo.root / "README.md").write_text("---\nlicense: mit\n---\n# Robust04\n")
    assert datasets.get_dataset_config_names(str(repo.root)) == ["default"]
    data = tmp_path / "data-no-configs"
    said = "it has no dataset card" if card == "none" else "its dataset card (README.md) declares no"
    with pytest.raises(PullError, match=rf"{R04.repo}@{R04.revision}: {re.escape(said)}.*"
                                        r"one config 'default'"):
        pull_one(upstream, data, "followir/robust04")
    assert not any(p.suffix == ".parquet" for p in data.rglob("*"))


@pytest.mark.parametrize("config", ["../../ESCAPED", "{tmp}/ABSOLUTE", "a/../../b"])
def test_a_config_name_that_is_a_path_writes_nothing_outside_the_folder(
        upstream: FakeUpstream, tmp_path: Path, config: str) -> None:
    """A dataset card's config name became a folder: "../../ESCAPED" or an absolute path
    put the pulled file outside the data folder, and the manifest recorded it there. A
    file is kept at its path in the repository, never under its config's name."""
    config = config.format(tmp=tmp_path)
    repo = upstream.hf[R04.repo]
    card = (repo.root / "README.md").read_text()
    (repo.root / "README.md").write_text(card.replace(
        "configs:\n", f"configs:\n- config_name: {config}\n  data_files:\n  - split: test\n"
                      "    path: corpus/test-*\n", 1))
    data = tmp_path / "deep" / "data"
    pull_one(upstream, data, "followir/robust04")
    written = [p for p in tmp_path.rglob("*.parquet")
               if not p.relative_to(tmp_path).parts[0].startswith(("upstream-", "deep"))]
    assert written == [], written
    assert all(p.is_relative_to(data / R04.local_dir)
               for p in (tmp_path / "deep").rglob("*.parquet"))


def test_status_lists_present_and_missing_sources(
        upstream: FakeUpstream, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data-status"
    pull_one(upstream, data, "followtable/wtr")
    code = main(["data", "status", "followtable", "--data-dir", str(data), "--tasks"])
    out = capsys.readouterr().out
    assert code == 1
    assert "present  followtable/WTR" in out
    assert "missing  followtable/WQT" in out and "missing: followtable/WQT/corpus.jsonl" in out
    assert "leaderboard data pull followtable" in out
    assert main(["data", "status", "followtable/wtr", "--data-dir", str(data)]) == 0
    capsys.readouterr()
    (data / "followtable" / "WTR" / "queries.jsonl").write_text("{}\n")
    assert main(["data", "status", "followtable/wtr", "--data-dir", str(data), "--verify"]) == 1
    assert "changed:" in capsys.readouterr().out


def test_status_says_no_manifest_only_where_it_matters(
        upstream: FakeUpstream, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every line said "not pulled by `leaderboard data pull` (no manifest)", also for data
    present and complete (copied in by hand)."""
    data = tmp_path / "data-by-hand"
    pull_one(upstream, data, "followtable/wtr")
    (data / "followtable" / "WTR" / MANIFEST_NAME).unlink()  # as if copied in by hand
    assert main(["data", "status", "followtable/wtr", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "present  followtable/WTR" in out and "1/1 tasks ready\n" in out
    assert "no manifest" not in out.split("\n", 1)[1]  # (the first line names the folder)
    assert main(["data", "status", "followtable/wtr", "--data-dir", str(data), "--verify"]) == 0
    assert ("1/1 tasks ready; not pulled by `leaderboard data pull` (no manifest; nothing to "
            "verify against)") in capsys.readouterr().out
    (data / "followtable" / "WTR" / "queries.jsonl").unlink()
    assert main(["data", "status", "followtable/wtr", "--data-dir", str(data)]) == 1
    out = capsys.readouterr().out
    assert "0/1 tasks ready; not pulled by `leaderboard data pull` (no manifest)" in out


def test_status_fails_on_data_pulled_at_another_revision(
        upstream: FakeUpstream, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder whose manifest names another revision than the registry pins (pulled
    before the pin moved) said so and exited 0, as if the data were ready: scores computed
    on it are not the board's. It fails, saying how to pull the pinned one."""
    data = tmp_path / "data-other-revision"
    pull_one(upstream, data, "followtable/wtr")
    path = data / "followtable" / "WTR" / MANIFEST_NAME
    manifest = json.loads(path.read_text("utf-8"))
    path.write_text(json.dumps({**manifest, "revision": "0123abcd4567",
                                "commit": "0123abcd4567" + "0" * 28}), encoding="utf-8")
    for verify in ([], ["--verify"]):
        assert main(["data", "status", "followtable/wtr", "--data-dir", str(data),
                     *verify]) == 1
        out = capsys.readouterr().out
        assert (f"pulled {FT_REPO}@0123abcd4567, but the registry pins "
                f"{FT_REPO}@{FOLLOWTABLE_COMMIT}") in out
        assert f"leaderboard data pull followtable --data-dir {data}" in out


def named_data_dirs(text: str) -> list[str]:
    """The data folder each `leaderboard ...` command ``text`` suggests names, as a shell
    reads it (none: ''); a command named bare ("not pulled by `leaderboard data pull`")
    is no suggestion."""
    import shlex

    folders = []
    for command in re.findall(r"`leaderboard ([^`]*)`", text):
        argv = shlex.split(command)
        if argv in (["data", "pull"], ["data", "status"]):
            continue
        folders.append(argv[argv.index("--data-dir") + 1] if "--data-dir" in argv else "")
    return folders


def test_every_command_a_message_suggests_names_a_data_folder_with_a_space_as_one(
        upstream: FakeUpstream, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A data folder named with a space ("my data") was named unquoted in the pull or the
    check a message suggests (`eval`'s missing data, `data status`, the warning of data
    pulled at another revision, a pull that cannot reach its host): copied, the command
    pulls into "my" with "data" for a benchmark. Each names the folder as one word."""
    from leaderboard.app.datapull.pull import unreachable_message

    data = tmp_path / "my data"
    pull_one(upstream, data, "followtable/wtr")
    said: dict[str, str] = {}
    run = tmp_path / "run.trec"
    run.write_text("1 Q0 d1 1 1.0 t\n")
    assert main(["eval", "followtable/wqt", "--original", str(run), "--altered", str(run),
                 "--data-dir", str(data)]) == 1
    said["eval of a task whose data is missing"] = capsys.readouterr().err
    assert main(["data", "status", "followtable", "--data-dir", str(data)]) == 1
    said["data status of a benchmark missing a task"] = capsys.readouterr().out
    path = data / "followtable" / "WTR" / MANIFEST_NAME
    manifest = json.loads(path.read_text("utf-8"))
    path.write_text(json.dumps({**manifest, "revision": "0123abcd4567"}), encoding="utf-8")
    report = Report()
    data_revisions([get_task("followtable/wtr")], data, report)
    said["data pulled at another revision"] = "\n".join(report.lines())
    said["a pull that cannot reach its host"] = unreachable_message(
        SourceUnreachableError("github", "http://127.0.0.1:9", "refused"),
        [get_task("followtable/wtr").source],
        data)
    for case, text in said.items():
        assert named_data_dirs(text) == [str(data)], (case, text)


def test_verify_names_a_file_the_reader_reads_that_the_pull_did_not_write(
        upstream: FakeUpstream, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A parquet file added to a pulled config folder by hand (or left by a copy) is read
    with the pulled ones, while `data status --verify` re-hashed only the files the
    manifest lists and said the folder was the pulled revision. What each reader declares
    it reads (core.data.data_files) is checked against the manifest: such a file is named,
    and a re-run of the pull refuses the folder instead of calling it up to date, keeping
    the file; a file no reader reads is nobody's business."""
    data = tmp_path / "data-hand-added"
    pull_one(upstream, data, "followir/robust04")
    root = data / "followir" / "robust04"
    # A second shard of the corpus's "test" split, as the card's pattern corpus/test-*
    # finds it (a file it does not match, as extra.parquet, is not read).
    added = root / "corpus" / "test-00001-of-00001.parquet"
    for path in (added, root / "corpus" / "extra.parquet"):
        pd.DataFrame({"_id": ["d9"], "title": [""], "text": ["mine"]}).to_parquet(
            path, index=False)
    (root / "corpus" / "notes.txt").write_text("not data\n", encoding="utf-8")
    (root / "default").mkdir()  # no config of the card: not read
    (root / "default" / "test.jsonl").write_text("{}\n", encoding="utf-8")
    task = get_task("followir/robust04")
    assert added in data_files(task, data).read  # what the reader reads...
    assert "d9" in load_task_data(task, data).doc_ids  # ...it reads
    # ...and what `score` would record for scores computed with it.
    report = Report()
    assert data_revisions([task], data, report)[task.id].recorded() == (
        f"{R04.repo}@{R04.revision} (files not verified: corpus/test-00001-of-00001.parquet "
        f"is read with the pulled files and not listed in {MANIFEST_NAME})")
    assert [i.severity for i in report.issues] == ["warning"]

    assert main(["data", "status", "followir/robust04", "--data-dir", str(data)]) == 0
    capsys.readouterr()
    assert main(["data", "status", "followir/robust04", "--data-dir", str(data),
                 "--verify"]) == 1
    out = capsys.readouterr().out
    assert [line.strip() for line in out.splitlines() if "not pulled:" in line] == [
        f"not pulled: {added}: read with the pulled files, but {MANIFEST_NAME} does not "
        f"list it (not a file of {R04.repo}@{R04.revision}); move it out of the folder"]
    assert "Move each file marked 'not pulled' out of its folder" in out

    upstream.requests.clear()
    with pytest.raises(PullError, match=rf"(?s)holds files the readers would read .*"
                                        rf"{added}: read with the pulled files"):
        pull_one(upstream, data, "followir/robust04")
    assert upstream.requests == [] and added.is_file()
    added.unlink()
    assert pull_one(upstream, data, "followir/robust04").offline_check
    assert main(["data", "status", "followir/robust04", "--data-dir", str(data),
                 "--verify"]) == 0


def test_a_manifest_of_a_newer_format_is_not_taken_for_no_manifest(
        upstream: FakeUpstream, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder pulled by a newer version (a manifest of format 2) was read as one with no
    manifest: status said `not pulled by leaderboard data pull (no manifest)`, and score,
    CI's included, recorded the data as the pinned revision, whatever revision it held.
    Its revision is unknown here, and said so: status fails, CI stops."""
    data = tmp_path / "data-newer"
    pull_one(upstream, data, "followtable/wtr")
    path = data / "followtable" / "WTR" / MANIFEST_NAME
    manifest = json.loads(path.read_text("utf-8"))
    path.write_text(json.dumps({**manifest, "format": 2}), encoding="utf-8")
    reason = (f"its {MANIFEST_NAME} is of format 2, which a newer version of the leaderboard "
              "writes; this one reads format 1")
    for verify in ([], ["--verify"]):
        assert main(["data", "status", "followtable/wtr", "--data-dir", str(data),
                     *verify]) == 1
        out = capsys.readouterr().out
        assert (f"1/1 tasks ready; {reason}, so which revision it holds is unknown; the "
                f"registry pins {FT_REPO}@{FOLLOWTABLE_COMMIT}: pull it again") in out
        assert "no manifest" not in out
    task = get_task("followtable/wtr")
    assert data_revision(task.source, data).recorded() == f"unknown ({reason})"
    with pytest.raises(DataRevisionError, match="format 2, which a newer version"):
        data_revisions([task], data, Report(), pinned=True)
    path.write_text("{", encoding="utf-8")
    assert main(["data", "status", "followtable/wtr", "--data-dir", str(data)]) == 1
    assert f"its {MANIFEST_NAME} is not JSON, so which revision" in capsys.readouterr().out


@pytest.mark.parametrize("files", [["corpus.jsonl"], None, {"corpus.jsonl": "abc"}])
def test_a_manifest_whose_file_list_is_damaged_is_unreadable_not_a_traceback(
        upstream: FakeUpstream, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        files: object) -> None:
    """A manifest of the right format whose "files" is not an object of entries (edited by
    hand, or damaged) stopped `data status --verify` and `data pull` with an internal
    error (AttributeError: 'list' object has no attribute 'items'). It vouches for no
    file: its revision is unknown, status says so and fails, and a pull fetches again."""
    data = tmp_path / "data-damaged"
    pull_one(upstream, data, "followtable/wtr")
    path = data / "followtable" / "WTR" / MANIFEST_NAME
    manifest = json.loads(path.read_text("utf-8"))
    path.write_text(json.dumps({**manifest, "files": files}), encoding="utf-8")
    reason = f"its {MANIFEST_NAME} lists no files (its \"files\" is not an object of entries)"
    for verify in ([], ["--verify"]):
        assert main(["data", "status", "followtable/wtr", "--data-dir", str(data),
                     *verify]) == 1
        out = capsys.readouterr().out
        assert f"1/1 tasks ready; {reason}, so which revision it holds is unknown" in out
    assert data_revision(get_task("followtable/wtr").source, data).recorded() == (
        f"unknown ({reason})")
    result = pull_one(upstream, data, "followtable/wtr")
    assert not result.offline_check
    assert main(["data", "status", "followtable/wtr", "--data-dir", str(data),
                 "--verify"]) == 0


@pytest.mark.parametrize(("recorded", "moved"), [
    (f"{R04.repo}@{R04.revision}", False),
    (f"{R04.repo}@{R04.revision} (the pinned revision; files not verified: no "
     f"{MANIFEST_NAME} from `leaderboard data pull`)", False),
    (f"{R04.repo}@{R04.revision} (files not verified: corpus/x.parquet is read with the "
     f"pulled files and not listed in {MANIFEST_NAME})", False),
    (f"{R04.repo}@0123abcd4567", True),
    (f"{R04.repo}@0123abcd4567 (files not verified: x is read ...)", True),
    (f"someone/else@{R04.revision}", True),
    (f"unknown (its {MANIFEST_NAME} is not JSON)", True),
])
def test_scores_recorded_on_another_revision_than_the_pin_are_off_it(recorded: str,
                                                                     moved: bool) -> None:
    """Each form results.json records a task's data in (DataRevision.recorded) is read
    back as the revision it names: the pinned one, noted unverified or not, is the pin;
    another, or none, is not (the board's data moved since, or nothing tells)."""
    assert off_pin(recorded, R04) is moved


@pytest.mark.parametrize(("recorded", "note"), [
    (f"{R04.repo}@{R04.revision}", ""),
    (f"{R04.repo}@{R04.revision} (the pinned revision; files not verified: no "
     f"{MANIFEST_NAME} from `leaderboard data pull`)",
     f"the pinned revision; files not verified: no {MANIFEST_NAME} from `leaderboard data "
     "pull`"),
    (f"{R04.repo}@0123abcd4567 (files not verified: x is read ...)",
     "files not verified: x is read ..."),
    (f"unknown (its {MANIFEST_NAME} is not JSON)", f"unknown (its {MANIFEST_NAME} is not JSON)"),
])
def test_what_is_recorded_of_data_no_pull_verified_is_told_apart(recorded: str,
                                                                  note: str) -> None:
    """What results.json records of a task's data is verified (what CI, which scores on
    pulled data, records) only as a revision alone; the note beside it otherwise is what
    `ci pr-check` quotes when it refuses the file."""
    assert recorded_verified(recorded) is (note == "")
    assert recorded_note(recorded) == note


def test_unknown_benchmark_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["data", "pull", "trec-covid"])
    assert exc.value.code == 2
    assert "unknown benchmark or task 'trec-covid'" in capsys.readouterr().err


# --- packing matches the project's data mirror ----------------------------------------------------

def test_packing_reproduces_the_mirrors_corpus_bytes(tmp_path: Path) -> None:
    mirror = SHARED_DATA / "followtable" / "WTR" / "corpus.jsonl"
    if not mirror.is_file():
        pytest.skip(f"data mirror not found at {mirror}")
    tables = {}
    with mirror.open(encoding="utf-8") as fh:
        for line in fh:
            obj = json.loads(line)
            tables[obj["_id"]] = obj["text"]
    checksum = write_packed_corpus(tmp_path / "corpus.jsonl", dict(reversed(tables.items())))
    assert (tmp_path / "corpus.jsonl").read_bytes() == mirror.read_bytes()
    assert checksum.digest == hashlib.sha256(mirror.read_bytes()).hexdigest()


def test_an_unwritable_data_directory_is_a_clear_error(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data directory should be\n")
    with pytest.raises(PullError, match=r"cannot write under .*not-a-folder"):
        pull_one(upstream, blocker, "followtable/wtr")


def test_a_data_directory_that_is_a_file_is_named_as_such(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """$LEADERBOARD_DATA naming a file: status and eval called every file missing and told
    the user to `data pull --data-dir <the file>`, which then failed to write under it."""
    blocker = tmp_path / "data.tar"
    blocker.write_text("not a folder\n")
    monkeypatch.setenv("LEADERBOARD_DATA", str(blocker))
    run = tmp_path / "run.trec"
    run.write_text("0 Q0 7 1 1.0 x\n")
    for argv in (["data", "status", "followtable/wtr"], ["data", "pull", "followtable/wtr"],
                 ["eval", "followtable/wtr", "--original", str(run), "--altered", str(run)]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert f"error: {blocker} ($LEADERBOARD_DATA) is not a folder: point --data-dir" in err
        assert "--data-dir " + str(blocker) not in err  # no advice to pull into it
    assert main(["data", "status", "--data-dir", str(blocker)]) == 1
    assert f"{blocker} (--data-dir) is not a folder" in capsys.readouterr().err
    assert main(["data", "status", "--data-dir", str(tmp_path / "new")]) == 1  # not there yet
    assert "missing  followtable/WTR" in capsys.readouterr().out


def test_hub_endpoint_falls_back_to_huggingface_hubs_own_variable() -> None:
    assert Endpoints.from_env({"HF_ENDPOINT": "http://mirror/"}).hf_endpoint == "http://mirror"
    assert Endpoints.from_env({"HF_ENDPOINT": "http://mirror",
                               "LEADERBOARD_HF_ENDPOINT": "http://ours"}).hf_endpoint == \
        "http://ours"
    assert Endpoints.from_env({}).hf_endpoint == "https://huggingface.co"


def test_a_dataset_missing_from_the_hub_is_named_not_a_disk_error(
        upstream: FakeUpstream, tmp_path: Path) -> None:
    """huggingface_hub's HTTP errors are OSErrors; they must not read as a local disk fault."""
    del upstream.hf[R04.repo]
    with pytest.raises(PullError, match=r"mteb/Robust04InstructionRetrieval@0495a5cb69aa: "
                                        r"not found on the Hub \(HTTP 404\)") as info:
        pull_one(upstream, tmp_path / "data-404", "followir/robust04")
    assert "cannot write" not in str(info.value)


def test_status_tasks_takes_patterns_as_every_other_tasks_option(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`data status --tasks` was a flag ("list every task") where every other command's
    `--tasks PATTERN...` selects tasks, so `data status --tasks 'followtable/*'` took the
    pattern for a benchmark and stopped: "unknown benchmark or task 'followtable/*'".
    Without a pattern it lists every task, as before; with patterns (task ids or fnmatch
    patterns, matched as runs add and baselines run match theirs) only those tasks, under
    the sources that hold them; a pattern that matches none is a usage error naming it."""
    data = str(tmp_path / "empty")

    def task_lines(*argv: str) -> list[str]:
        assert main(["data", "status", *argv, "--data-dir", data]) == 1  # nothing pulled
        out = capsys.readouterr().out
        return [line.split()[-1] for line in out.splitlines() if line.startswith(" " * 11)
                and line.split()[0] in ("ready", "missing")]

    every = task_lines("--tasks")
    assert len(every) > 300 and "followtable/wtr" in every
    assert task_lines("--tasks", "followtable/w*") == ["followtable/wqt", "followtable/wtr"]
    assert main(["data", "status", "--tasks", "followtable/w*", "--data-dir", data]) == 1
    out = capsys.readouterr().out
    assert "followtable/WTR" in out and "followtable/TArX" not in out, out
    assert task_lines("followtable", "--tasks", "followtable/wtr") == ["followtable/wtr"]
    assert task_lines("--tasks", "pi-indic-val150/t1/hin", "followtable/wtr") == [
        "followtable/wtr", "pi-indic-val150/t1/hin"]  # registry order
    for argv, said in ((["--tasks", "nope/*"], "--tasks 'nope/*' matches no task"),
                       (["followir", "--tasks", "followtable/*"],
                        "--tasks 'followtable/*' matches no task of followir"),
                       (["--tasks", "followtable"], "--tasks 'followtable' matches no task; to list a "
                                                   "benchmark's tasks, name it before --tasks")):
        with pytest.raises(SystemExit) as info:
            main(["data", "status", *argv, "--data-dir", data])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert f"leaderboard data status: error: {said}" in err, err


@pytest.mark.parametrize(("options", "said"), [
    (["--jobs", "0"], "--jobs must be at least 1, not 0"),
    (["--retries", "-1"], "--retries must be at least 0, not -1"),
    (["--timeout", "0"], "--timeout must be more than 0, not 0.0"),
    (["--jobs", "-2", "--timeout", "-1"],
     "--jobs must be at least 1, not -2; --timeout must be more than 0, not -1.0")])
def test_pull_names_the_limit_it_was_given_out_of(
        options: list[str], said: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`data pull --jobs 0` said "--jobs must be >= 1, --retries >= 0 and --timeout > 0",
    all three limits, and left the user to find which value broke one. It names the
    option (each one) given out of its limit, and the value given; nothing is pulled."""
    with pytest.raises(SystemExit) as info:
        main(["data", "pull", "followtable/wtr", "--data-dir", str(tmp_path / "d"), *options])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == f"leaderboard data pull: error: {said}", err
    assert not (tmp_path / "d").exists()


@needs_fork
def test_a_github_pull_killed_at_20_instants_is_never_taken_for_a_whole_one(
        upstream: FakeUpstream, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`data pull` of a GitHub source (FollowTable's WTR: its files fetched whole, its
    tables packed into one corpus file) killed at 20 of its file operations, from the
    first to the last: `data status` and `data status --verify` pass only where the reader
    reads the whole pull, and the next pull finishes it, leaving no temporary file. (The
    sweeps above pull a Hub source, whose files are staged and renamed.)"""
    task = get_task("followtable/wtr")
    sweep_killed_pulls(upstream, tmp_path / "data", task,
                       lambda data: shutil.rmtree(data, ignore_errors=True), capsys)
