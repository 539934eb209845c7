"""FollowIR / mFollowIR in the Hugging Face (MTEB) layout, on small fixtures.

The real collections are on the Hugging Face Hub only, so each test writes a tiny one with
the same configs (tests/fixtures/mteb_collection.py), points ``--data-dir`` at it and
checks loading, validation and scoring: p-MRR against MTEB's formula computed by hand and
by a plain re-implementation of MTEB's code path, AP@1000 / nDCG@k against pytrec_eval,
and a clear MissingDataError (exit 1, no traceback) when configs are absent. The real mteb
package reads the same fixtures and scores them in tests/test_mteb_agreement.py.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
import pytrec_eval

from fixtures.mteb_collection import (
    CONFIG_NAMES,
    Collection,
    config_name,
    drop_judgments,
    run_lines,
    write_collection,
)
from leaderboard.app.cli import main
from leaderboard.core.data import iter_corpus, load_task_data
from leaderboard.core.data.base import MissingDataError
from leaderboard.core.explain import ALL_TEXTS_UP_TO, shown_documents, text_record
from leaderboard.benchmarks.registry import get_task
from leaderboard.core.report import Report
from leaderboard.core.runs.parsing import parse_run
from leaderboard.core.scoring import score_task

REPO = Path(__file__).resolve().parent.parent


def eval_json(capsys, task: str, data_dir: Path, original: Path, altered: Path) -> dict:
    capsys.readouterr()
    rc = main(["eval", task, "--original", str(original), "--altered", str(altered),
               "--data-dir", str(data_dir), "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, out + err
    return json.loads(out)


def engine_scores(task_id: str, data_dir: Path, original: Path, altered: Path) -> dict:
    """The engine's scores of two runs that leave pool documents out. The validator refuses
    such runs (the depth rule), but how p-MRR ranks an absent document is still the
    metric's to define and MTEB's to check against, so these are scored without it."""
    task = get_task(task_id)
    runs = {}
    for role, path in (("original", original), ("altered", altered)):
        report = Report()
        run = parse_run(path.read_bytes(), str(path), report)
        assert run is not None, report.lines()
        runs[role] = run
    return dataclasses.asdict(score_task(task, load_task_data(task, data_dir), runs))


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(lines), encoding="utf-8")
    return path


# --- MTEB's p-MRR, written out plainly (mteb's evaluate_change / get_rank_from_dict) ---

def mteb_rank(run: dict[str, float], doc: str) -> int:
    """1-based rank by (score, docid) descending, as mteb >= 2.26.24 and trec_eval order;
    a document not in the run ranks len(run) + 1."""
    ordered = sorted(run.items(), key=lambda x: (x[1], x[0]), reverse=True)
    for i, (d, _) in enumerate(ordered):
        if d == doc:
            return i + 1
    return len(ordered) + 1


def mteb_rank_score(og: int, new: int) -> float:
    if og >= new:
        return (1 / og) / (1 / new) - 1
    return 1 - (1 / new) / (1 / og)


def mteb_p_mrr(original: dict[str, dict[str, float]], altered: dict[str, dict[str, float]],
               changed: dict[str, list[str]]) -> tuple[float, dict[str, float]]:
    per_query = {}
    for q, docs in changed.items():
        og_run, new_run = original[f"{q}-og"], altered[f"{q}-changed"]
        values = [mteb_rank_score(mteb_rank(og_run, d), mteb_rank(new_run, d)) for d in docs]
        per_query[q] = sum(values) / len(values)
    return sum(per_query.values()) / len(per_query), per_query


def as_dict(lines: list[str]) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in lines:
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    return run


# --- loading ---

@pytest.mark.parametrize("task_id,local,language,fmt,pool_key", [
    ("followir/robust04", "followir/robust04", None, "parquet", "suffixed"),
    ("followir/news21", "followir/news21", None, "jsonl", "base"),
    ("followir/core17", "followir/core17", None, "parquet", "base"),
    ("mfollowir/fas", "mfollowir/multilingual", "fas", "parquet", "suffixed"),
    ("mfollowir-cl/zho", "mfollowir/cross-lingual", "zho", "jsonl", "suffixed"),
])
def test_loads_the_layout(task_id: str, local: str, language: str | None, fmt: str,
                          pool_key: str, tmp_path: Path) -> None:
    c = write_collection(tmp_path / local, n_queries=3, pool_size=12, language=language,
                         fmt=fmt, pool_key=pool_key)  # type: ignore[arg-type]
    data = load_task_data(get_task(task_id), tmp_path)
    assert data.roles["original"].query_ids == [f"{q}-og" for q in c.base_ids]
    assert data.roles["altered"].query_ids == [f"{q}-changed" for q in c.base_ids]
    assert data.pairs == {f"{q}-changed": f"{q}-og" for q in c.base_ids}
    assert data.changed == {f"{q}-changed": c.changed[q] for q in c.base_ids}
    assert data.pools is not None
    for q in c.base_ids:
        for suffix in ("-og", "-changed"):
            assert sorted(data.pools[f"{q}{suffix}"].tolist()) == sorted(c.pools[q])
            assert data.roles["original" if suffix == "-og" else "altered"].qrels[
                f"{q}{suffix}"] == c.qrels[f"{q}{suffix}"]
    assert data.corpus_size == len(c.corpus_ids)
    assert "instruction of" in data.roles["altered"].query_text[f"{c.base_ids[0]}-changed"]
    # The query and its instruction apart, as `baselines run --instruction-format` joins them.
    q = c.base_ids[0]
    assert data.roles["original"].query_parts[f"{q}-og"] == (f"query {q}", f"original instruction of {q}")
    assert data.roles["altered"].query_parts[f"{q}-changed"] == (f"query {q}",
                                                                 f"altered instruction of {q}")


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_reading_the_layout_never_imports_pandas(fmt: str, tmp_path: Path) -> None:
    """`ci pr-check` reads every FollowIR and mFollowIR task's data from its files (no
    task-data cache): importing pandas for it cost each of its worker processes 0.5 s.
    The reader reads parquet with pyarrow alone (a fresh interpreter: an import made by an
    earlier test in this process would hide one here)."""
    write_collection(tmp_path / "mfollowir/multilingual", n_queries=2, pool_size=8,
                     language="fas", fmt=fmt)  # type: ignore[arg-type]
    code = ("import sys\n"
            "from pathlib import Path\n"
            "from leaderboard.core.data import load_task_data\n"
            "from leaderboard.core.data.mteb_layout import iter_corpus\n"
            "from leaderboard.benchmarks.registry import get_task\n"
            "task = get_task('mfollowir/fas')\n"
            f"data = load_task_data(task, Path({str(tmp_path)!r}))\n"
            f"corpus = dict(iter_corpus(task, Path({str(tmp_path)!r})))\n"
            "print(len(data.roles['altered'].query_ids), len(corpus) > 0, 'pandas' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO), LEADERBOARD_DATA_CACHE="off"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "True", "False"]


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_the_corpus_of_some_documents_is_the_whole_corpus_filtered(fmt: str,
                                                                   tmp_path: Path) -> None:
    """The explorer asks for the texts of the documents it shows alone: the same (id,
    text) pairs, in the same order, as the whole corpus filtered; a missing title or text
    is empty, as in the whole corpus."""
    write_collection(tmp_path / "followir/robust04", n_queries=2, pool_size=8,
                     fmt=fmt)  # type: ignore[arg-type]
    if fmt == "jsonl":  # one row without a title, one whose text is null
        (corpus,) = (tmp_path / "followir/robust04" / config_name("corpus", None)).glob("*.jsonl")
        rows = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines()]
        del rows[0]["title"]
        rows[1]["text"] = None
        corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    task = get_task("followir/robust04")
    whole = list(iter_corpus(task, tmp_path))
    only = {d for d, _ in whole[::3]} | {"not-a-document"}
    assert list(iter_corpus(task, tmp_path, only)) == [(d, t) for d, t in whole if d in only]
    assert whole[2] == (whole[2][0], f"title {whole[2][0]} text of {whole[2][0]}")
    if fmt == "jsonl":
        assert whole[0][1] == f"text of {whole[0][0]}" and whole[1][1] == f"title {whole[1][0]}"


def test_the_explorers_texts_read_only_the_documents_shown(tmp_path: Path) -> None:
    """A corpus over ALL_TEXTS_UP_TO shows its judged documents alone, and the explorer's
    text record reads only theirs: FollowIR's corpora hold up to 47,000 documents, of
    which the cards show the judged 1,300-2,200."""
    write_collection(tmp_path / "followir/robust04", n_queries=3, pool_size=12,
                     corpus_size=ALL_TEXTS_UP_TO + 100)
    task = get_task("followir/robust04")
    data = load_task_data(task, tmp_path)
    shown = shown_documents(data)
    assert shown is not None and 0 < len(shown) < 100
    whole = text_record(task, data, iter_corpus(task, tmp_path))
    assert whole is not None and set(whole["docs"]) == shown
    assert text_record(task, data, iter_corpus(task, tmp_path, shown)) == whole
    small = write_collection(tmp_path / "followir/core17", n_queries=3, pool_size=12)
    assert shown_documents(load_task_data(get_task("followir/core17"), tmp_path)) is None
    assert len(small.corpus_ids) < ALL_TEXTS_UP_TO


def test_a_json_lines_row_that_is_not_an_object_is_refused_naming_its_line(
        tmp_path: Path) -> None:
    """A config's JSON lines file holds one row, an object, per line: anything else is a
    DataFormatError naming the file and line (it was a frame of garbage, or a traceback)."""
    from leaderboard.core.data import mteb_layout
    from leaderboard.core.data.base import DataFormatError

    write_collection(tmp_path / "followir/robust04", n_queries=2, pool_size=8, fmt="jsonl")
    (queries,) = (tmp_path / "followir/robust04" / config_name("queries", None)).glob("*.jsonl")
    lines = queries.read_text(encoding="utf-8").splitlines()
    queries.write_text("\n".join([lines[0], "", '["101-og", "a query"]', *lines[1:]]) + "\n",
                       encoding="utf-8")
    with pytest.raises(DataFormatError, match=rf"{re.escape(queries.name)}:3: not a JSON object"):
        mteb_layout.load(get_task("followir/robust04"), tmp_path)


def test_a_json_lines_row_that_is_not_utf8_is_refused_naming_its_line(tmp_path: Path,
                                                                     capsys) -> None:
    """A config's JSON lines file with a byte that is not UTF-8 on a line is refused naming
    the file and line, by the reader and through `leaderboard eval`: it was an internal
    error (UnicodeDecodeError) naming neither."""
    from leaderboard.core.data import mteb_layout
    from leaderboard.core.data.base import DataFormatError

    write_collection(tmp_path / "followir/robust04", n_queries=2, pool_size=8, fmt="jsonl")
    (queries,) = (tmp_path / "followir/robust04" / config_name("queries", None)).glob("*.jsonl")
    lines = queries.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"text": "', b'"text": "caf\xe9 ', 1)
    queries.write_bytes(b"".join(lines))
    with pytest.raises(DataFormatError, match=rf"^{re.escape(str(queries))}:2: not UTF-8 text"):
        mteb_layout.load(get_task("followir/robust04"), tmp_path)
    run = write_lines(tmp_path / "run.trec", ["101-og Q0 d1 1 1.0 x\n"])
    capsys.readouterr()
    rc = main(["eval", "followir/robust04", "--original", str(run), "--altered", str(run),
               "--data-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert rc == 1 and "internal error" not in out + err
    assert f"{queries}:2: not UTF-8 text" in out + err


UNREADABLE = Path("/proc/self/mem")  # a regular file to stat whose first read is EIO


@pytest.mark.skipif(not UNREADABLE.exists(), reason="needs Linux's /proc/self/mem")
@pytest.mark.parametrize("fmt, file, message", [
    ("jsonl", "queries", "cannot read: Input/output error"),
    ("parquet", "queries", "cannot read parquet: "),
    ("parquet", "README.md", "cannot read the dataset card: Input/output error"),
])
def test_a_file_that_cannot_be_read_is_named(fmt: str, file: str, message: str,
                                             tmp_path: Path) -> None:
    """A config's file or the dataset card that is there but cannot be read (an I/O
    error, permission denied) is refused naming it, never an OSError naming none."""
    from leaderboard.core.data import mteb_layout
    from leaderboard.core.data.base import DataFormatError

    collection = write_collection(tmp_path / "followir/robust04", n_queries=2, pool_size=8,
                                  fmt=fmt)
    path = collection.written.get(file, collection.local_dir / file)
    path.unlink()
    path.symlink_to(UNREADABLE)
    with pytest.raises(DataFormatError, match=rf"^{re.escape(str(path))}: {message}"):
        mteb_layout.load(get_task("followir/robust04"), tmp_path)


@pytest.mark.parametrize("config", ["top_ranked", "qrel_diff"])
def test_a_list_of_documents_kept_as_text_that_is_not_json_is_refused_naming_it(
        config: str, tmp_path: Path) -> None:
    """A top_ranked or qrel_diff cell may hold its list JSON-encoded, as some exports
    write it; one whose text is not JSON ('doc1 doc2') is refused naming the config and
    query: it was an internal error (JSONDecodeError) naming neither."""
    from leaderboard.core.data import mteb_layout
    from leaderboard.core.data.base import DataFormatError

    collection = write_collection(tmp_path / "followir/robust04", n_queries=2, pool_size=8,
                                  fmt="jsonl")
    path = collection.written[config]
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[0]["corpus-ids"] = "doc1 doc2"
    write_lines(path, [json.dumps(row) + "\n" for row in rows])
    with pytest.raises(DataFormatError, match=(
            rf"^{re.escape(str(path.parent))}: query {re.escape(repr(rows[0]['query-id']))} "
            r"has no list of document ids \(a text that is not JSON: 'doc1 doc2'\)")):
        mteb_layout.load(get_task("followir/robust04"), tmp_path)


@pytest.mark.parametrize("config", ["top_ranked", "qrel_diff"])
def test_a_query_on_two_rows_with_other_lists_is_refused_naming_it(config: str,
                                                                   tmp_path: Path) -> None:
    """A top_ranked or qrel_diff config holds one row per query, as mteb reads it
    (``dict(zip(...))``: a query on two rows is its last row's list). The reader joined
    the two rows' lists, silently: another pool, another set of changed documents, and so
    another p-MRR than mteb's. Two rows of one query with other lists are refused naming
    the config and query; the same row twice is one."""
    from leaderboard.core.data import mteb_layout
    from leaderboard.core.data.base import DataFormatError

    task = get_task("followir/robust04")
    loaded = []
    for folder, other in (("same", False), ("other", True)):
        collection = write_collection(tmp_path / folder / "followir/robust04", n_queries=2,
                                      pool_size=8, fmt="jsonl")
        path = collection.written[config]
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        again = {**rows[0], "corpus-ids": rows[0]["corpus-ids"][:1] if other
                 else rows[0]["corpus-ids"]}
        write_lines(path, [json.dumps(row) + "\n" for row in [*rows, again]])
        if not other:
            loaded.append(mteb_layout.load(task, tmp_path / folder))
    write_collection(tmp_path / "once" / "followir/robust04", n_queries=2, pool_size=8,
                     fmt="jsonl")
    once = mteb_layout.load(task, tmp_path / "once")
    assert loaded[0].changed == once.changed
    assert {q: p.tolist() for q, p in loaded[0].pools.items()} == {
        q: p.tolist() for q, p in once.pools.items()}
    with pytest.raises(DataFormatError, match=(
            rf"^{re.escape(str(path.parent))}: query {re.escape(repr(rows[0]['query-id']))} "
            r"is on two rows with other lists of document ids")):
        mteb_layout.load(task, tmp_path / "other")


# --- scoring ---

def test_p_mrr_by_hand(tmp_path: Path, capsys) -> None:
    """Two queries whose p-MRR is worked out by hand from FollowIR eq. 1 / MTEB's code."""
    c = write_collection(tmp_path / "followir/robust04", n_queries=2, pool_size=10,
                         n_relevant=4, n_changed=2, seed=11)
    a, b = c.base_ids
    pa, pb = c.pools[a], c.pools[b]
    # The changed documents of each query are the first two of its pool (sorted).
    assert c.changed[a] == sorted(pa[:2]) and c.changed[b] == sorted(pb[:2])
    a1, a2 = pa[0], pa[1]
    b1, b2 = pb[0], pb[1]

    def scored(order: list[str]) -> dict[str, float]:
        return {d: float(100 - i) for i, d in enumerate(order)}

    others_a = pa[2:]
    others_b = pb[2:]
    original = {
        a: scored([a1, a2] + others_a),              # a1 rank 1, a2 rank 2
        b: scored([b2] + others_b[:7]),              # b2 rank 1; b1 absent: rank 8 + 1 = 9
    }
    altered = {
        a: scored(others_a[:3] + [a1] + others_a[3:]),  # a1 rank 4; a2 absent: 9 docs -> 10
        b: scored([b2] + others_b[:1] + [b1] + others_b[1:]),  # b2 rank 1, b1 rank 3
    }
    orig_path = write_lines(tmp_path / "original.trec", run_lines(c, "original", original))
    alt_path = write_lines(tmp_path / "altered.trec", run_lines(c, "altered", altered))
    # Documents left out of the pool: `eval` refuses the runs, the metric still defines them.
    assert main(["eval", "followir/robust04", "--original", str(orig_path), "--altered",
                 str(alt_path), "--data-dir", str(tmp_path)]) == 1
    assert "must rank every document of each query's pool" in capsys.readouterr().err
    result = engine_scores("followir/robust04", tmp_path, orig_path, alt_path)

    # a1: R_og=1 < R_new=4 -> 1 - 1/4; a2: R_og=2 < R_new=10 -> 1 - 2/10.
    expected_a = ((1 - 1 / 4) + (1 - 2 / 10)) / 2
    # b1: R_og=9 >= R_new=3 -> 3/9 - 1; b2: R_og=1 = R_new=1 -> 0.
    expected_b = ((3 / 9 - 1) + 0.0) / 2
    assert result["per_query"]["p-MRR"] == pytest.approx(
        {f"{a}-changed": expected_a, f"{b}-changed": expected_b}, abs=1e-12)
    assert result["metrics"]["p-MRR"] == pytest.approx((expected_a + expected_b) / 2, abs=1e-12)
    reference, _ = mteb_p_mrr(as_dict(run_lines(c, "original", original)),
                              as_dict(run_lines(c, "altered", altered)), c.changed)
    assert result["metrics"]["p-MRR"] == pytest.approx(reference, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scores_match_mteb_and_pytrec_eval(seed: int, tmp_path: Path, capsys) -> None:
    """Random reranking runs (some documents dropped) on a bigger fixture."""
    c = write_collection(tmp_path / "followir/robust04", n_queries=8, pool_size=60,
                         n_relevant=12, n_changed=5, seed=seed)
    rng = random.Random(seed)

    def random_run() -> dict[str, dict[str, float]]:
        # Distinct scores (tied runs are tests/test_mteb_agreement.py's job), and about a
        # tenth of each pool left out, changed documents included sometimes.
        values = rng.sample(range(1, 10**6), 60 * len(c.base_ids))
        it = iter(values)
        return {q: {d: next(it) / 1000 for d in c.pools[q] if rng.random() > 0.1}
                for q in c.base_ids}

    original, altered = random_run(), random_run()
    orig_lines, alt_lines = run_lines(c, "original", original), run_lines(c, "altered", altered)
    rng.shuffle(orig_lines)  # file order must not matter
    orig_path = write_lines(tmp_path / "original.trec", orig_lines)
    alt_path = write_lines(tmp_path / "altered.trec", alt_lines)
    result = engine_scores("followir/robust04", tmp_path, orig_path, alt_path)

    expected, per_query = mteb_p_mrr(as_dict(orig_lines), as_dict(alt_lines), c.changed)
    assert result["metrics"]["p-MRR"] == pytest.approx(expected, abs=1e-12)
    assert result["per_query"]["p-MRR"] == pytest.approx(
        {f"{q}-changed": v for q, v in per_query.items()}, abs=1e-12)

    for role, lines, suffix in (("original", orig_lines, "-og"), ("altered", alt_lines, "-changed")):
        qrels = {f"{q}{suffix}": c.qrels[f"{q}{suffix}"] for q in c.base_ids}
        ref = pytrec_eval.RelevanceEvaluator(qrels, {"map_cut.1000", "ndcg_cut.10"}).evaluate(
            as_dict(lines))
        for metric, key in (("AP@1000", "map_cut_1000"), ("nDCG@10", "ndcg_cut_10")):
            got = result["per_query"][f"{role}/{metric}"]
            assert got == pytest.approx({q: ref[q][key] for q in qrels}, abs=1e-12), metric


def test_news21_ndcg5_with_ties_matches_pytrec_eval(tmp_path: Path, capsys) -> None:
    """News21's headline nDCG@5, with tied scores: both sides break ties by docid descending."""
    c = write_collection(tmp_path / "followir/news21", n_queries=5, pool_size=40, n_relevant=10,
                         n_changed=4, seed=5, fmt="jsonl", pool_key="base")
    rng = random.Random(5)
    runs = {role: {q: {d: float(rng.randint(0, 6)) for d in c.pools[q]} for q in c.base_ids}
            for role in ("original", "altered")}
    lines = {role: run_lines(c, role, runs[role]) for role in runs}  # type: ignore[arg-type]
    paths = {role: write_lines(tmp_path / f"{role}.trec", lines[role]) for role in lines}
    capsys.readouterr()
    result = eval_json(capsys, "followir/news21", tmp_path, paths["original"], paths["altered"])
    for role, suffix in (("original", "-og"), ("altered", "-changed")):
        qrels = {f"{q}{suffix}": c.qrels[f"{q}{suffix}"] for q in c.base_ids}
        ref = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5"}).evaluate(as_dict(lines[role]))
        assert result["per_query"][f"{role}/nDCG@5"] == pytest.approx(
            {q: ref[q]["ndcg_cut_5"] for q in qrels}, abs=1e-12)


def test_mfollowir_language_suffix(tmp_path: Path, capsys) -> None:
    """mFollowIR's configs end in the language (corpus-fas, default-fas, ...)."""
    root = tmp_path / "mfollowir/multilingual"
    fas = write_collection(root, n_queries=3, pool_size=20, language="fas", seed=1)
    rus = write_collection(root, n_queries=4, pool_size=20, language="rus", seed=2)
    assert (root / "corpus-fas").is_dir() and (root / "default-rus").is_dir()
    for task_id, c in (("mfollowir/fas", fas), ("mfollowir/rus", rus)):
        orig = write_lines(tmp_path / f"{c.language}-original.trec", run_lines(c, "original"))
        alt = write_lines(tmp_path / f"{c.language}-altered.trec",
                          run_lines(c, "altered", seed=9))
        result = eval_json(capsys, task_id, tmp_path, orig, alt)
        assert set(result["per_query"]["p-MRR"]) == {f"{q}-changed" for q in c.base_ids}
        assert set(result["metrics"]) == {"p-MRR", "original/nDCG@20", "altered/nDCG@20"}
        # Relevant documents first in both runs: a perfect original ranking.
        assert result["metrics"]["original/nDCG@20"] == pytest.approx(1.0)
    # zho was never written: its task reports exactly what is missing.
    with pytest.raises(MissingDataError) as info:
        load_task_data(get_task("mfollowir/zho"), tmp_path)
    assert all(config_name(name, "zho") in str(info.value) for name in CONFIG_NAMES)


# --- missing data ---

def test_missing_configs_via_cli(tmp_path: Path, capsys) -> None:
    write_collection(tmp_path / "followir/core17", n_queries=2, pool_size=10,
                     skip=("default", "top_ranked", "qrel_diff"))
    run = write_lines(tmp_path / "run.trec", ["1-og Q0 d 1 1.0 t\n"])
    capsys.readouterr()
    rc = main(["eval", "followir/core17", "--original", str(run), "--altered", str(run),
               "--data-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert rc == 1
    assert "Traceback" not in out + err
    assert "data for task 'followir/core17' is missing" in err
    missing_lines = [ln.strip() for ln in err.splitlines() if ln.strip().startswith("- ")]
    assert missing_lines == [f"- {tmp_path / 'followir/core17/qrels'}",
                             f"- {tmp_path / 'followir/core17/top_ranked'}",
                             f"- {tmp_path / 'followir/core17/qrel_diff'}"]
    assert f"leaderboard data pull followir --data-dir {tmp_path}" in err


def test_empty_data_dir_via_check_run(tmp_path: Path, capsys) -> None:
    run = write_lines(tmp_path / "altered.trec", ["1-changed Q0 d 1 1.0 t\n"])
    capsys.readouterr()
    rc = main(["check-run", "mfollowir-cl/rus", str(run), "--data-dir", str(tmp_path / "none")])
    out, err = capsys.readouterr()
    assert rc == 1 and "Traceback" not in out + err
    for name in CONFIG_NAMES:
        assert f"mfollowir/cross-lingual/{config_name(name, 'rus')}" in err
    assert "leaderboard data pull mfollowir-cl" in err


def test_config_folder_without_data_counts_as_missing(tmp_path: Path) -> None:
    c: Collection = write_collection(tmp_path / "followir/robust04", n_queries=2, pool_size=8)
    c.written["qrel_diff"].unlink()  # the folder stays, empty
    with pytest.raises(MissingDataError) as info:
        load_task_data(get_task("followir/robust04"), tmp_path)
    assert info.value.missing == [tmp_path / "followir/robust04/qrel_diff"]


@pytest.mark.parametrize("score", [None, "1.0", "relevant", 1.5, float("nan")])
def test_a_judgment_that_is_not_an_integer_grade_is_refused_naming_it(
        score: object, tmp_path: Path) -> None:
    """A qrels row whose score is missing or not a whole number is a DataFormatError naming
    the config, the query and the document (it was a TypeError or ValueError, which the
    command line reports as an internal error); 2.0, as a float column stores a grade, is
    the grade 2."""
    from leaderboard.core.data import mteb_layout
    from leaderboard.core.data.base import DataFormatError

    write_collection(tmp_path / "followir/robust04", n_queries=2, pool_size=8, fmt="jsonl")
    (qrels,) = (tmp_path / "followir/robust04" / config_name("default", None)).glob("*.jsonl")
    rows = [json.loads(line) for line in qrels.read_text(encoding="utf-8").splitlines()]
    rows[1]["score"] = 2.0
    rows[0]["score"] = score
    qrels.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    task = get_task("followir/robust04")
    with pytest.raises(DataFormatError) as info:
        mteb_layout.load(task, tmp_path)
    message = str(info.value)
    assert config_name("default", None) in message
    assert rows[0]["query-id"] in message and rows[0]["corpus-id"] in message
    rows[0]["score"] = 1
    qrels.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    data = mteb_layout.load(task, tmp_path)
    assert data.roles["original"].qrels[rows[1]["query-id"]][rows[1]["corpus-id"]] == 2
    assert all(type(g) is int for judged in data.roles["original"].qrels.values()
               for g in judged.values())



def test_a_query_listed_twice_is_one_query(tmp_path: Path) -> None:
    """A queries config that repeats a row (two files holding it, or a repeated line) lists
    the query once: it was in the role twice, and `eval` counted it twice."""
    write_collection(tmp_path / "followir/robust04", n_queries=3, pool_size=8, fmt="jsonl")
    (queries,) = (tmp_path / "followir/robust04" / config_name("queries", None)).glob("*.jsonl")
    lines = queries.read_text(encoding="utf-8").splitlines()
    queries.write_text("\n".join(lines + lines[:3]) + "\n", encoding="utf-8")
    data = load_task_data(get_task("followir/robust04"), tmp_path)
    assert data.roles["original"].query_ids == ["100-og", "101-og", "102-og"]
    assert data.roles["altered"].query_ids == ["100-changed", "101-changed", "102-changed"]


def test_a_query_without_a_judgment_is_not_a_query_of_the_task(tmp_path: Path) -> None:
    """mteb evaluates only the queries its qrels judge (tests/test_mteb_agreement.py holds
    the scores to its own): one the queries config lists without a judgment is in no role
    and no mean, and a topic whose original has none has no p-MRR."""
    c = write_collection(tmp_path / "followir/robust04", n_queries=3, pool_size=8)
    drop_judgments(c, ["100-og", "100-changed", "101-og"])
    data = load_task_data(get_task("followir/robust04"), tmp_path)
    assert data.roles["original"].query_ids == ["102-og"]
    assert data.roles["altered"].query_ids == ["101-changed", "102-changed"]
    assert data.changed == {"101-changed": [], "102-changed": c.changed["102"]}
    assert c.changed["101"]


def test_a_run_listing_a_query_without_judgments_is_told_why_it_is_no_query(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run of every query upstream lists got "unknown query '101-og' (not an original
    query of followir/robust04)" for a query the queries config has and the qrels do not
    judge, which reads as a typo: it says the query has no judgments, and why that makes
    it no query of the task. The task-data cache keeps those ids."""
    from leaderboard.core.data.cache import from_json, to_json

    c = write_collection(tmp_path / "followir/robust04", n_queries=3, pool_size=8)
    drop_judgments(c, ["100-og", "100-changed", "101-og"])
    data = load_task_data(get_task("followir/robust04"), tmp_path)
    assert data.roles["original"].unjudged == ["100-og", "101-og"]
    assert data.roles["altered"].unjudged == ["100-changed"]
    assert from_json(json.loads(json.dumps(to_json(data)))).roles == data.roles
    lines = run_lines(c, "original")
    doc = lines[0].split()[2]
    run = write_lines(tmp_path / "original.trec",
                      [*lines, f"101-og Q0 {doc} 1 1.0 t\n", f"109-og Q0 {doc} 1 1.0 t\n"])
    assert main(["check-run", "followir/robust04", str(run), "--role", "original",
                 "--data-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert (f"{run}:{len(lines) + 1}: unknown query '101-og': the queries list it, but it has "
            "no judgments, so mteb and this board do not score it; leave it out of the run"
            in out), out
    assert f"{run}:{len(lines) + 2}: unknown query '109-og' (not an original query of " \
           "followir/robust04)" in out, out


def test_each_thing_the_reader_sets_aside_or_reads_once_is_noted(tmp_path: Path) -> None:
    """A query listed without a judgment (kept out, as mteb keeps it out), a qrels row
    repeating an earlier row's judgment, grade and all (read once, as mteb reads it) and
    a document listed twice in a topic's qrel_diff list (counted once in p-MRR, where
    mteb's calculate_pmrr counts both listings) are each a note of the task's data, the
    config's folder named under the data directory; and a collection without them has
    none."""
    from leaderboard.core.data import mteb_layout
    from leaderboard.core.data.notes import DataNote, note_text

    task = get_task("followir/robust04")
    write_collection(tmp_path / "plain" / "followir/robust04", n_queries=3, pool_size=8,
                     fmt="jsonl")
    assert mteb_layout.load(task, tmp_path / "plain").notes == ()

    root = tmp_path / "noted"
    c = write_collection(root / "followir/robust04", n_queries=3, pool_size=8, fmt="jsonl")
    drop_judgments(c, ["100-og"])
    qrels = c.written["default"]
    rows = qrels.read_text(encoding="utf-8").splitlines(keepends=True)
    write_lines(qrels, [*rows, rows[-1]])
    repeated_query = json.loads(rows[-1])["query-id"]
    diff = c.written["qrel_diff"]
    diff_rows = [json.loads(line) for line in diff.read_text(encoding="utf-8").splitlines()]
    topic = next(row for row in diff_rows if row["query-id"] == "101")
    topic["corpus-ids"] = [*topic["corpus-ids"], topic["corpus-ids"][0]]
    write_lines(diff, [json.dumps(row) + "\n" for row in diff_rows])

    data = mteb_layout.load(task, root)
    assert data.changed["101-changed"] == c.changed["101"]  # the document once
    assert data.notes == (
        DataNote("unjudged-query", f"followir/robust04/{config_name('queries', None)}",
                 ("100-og",)),
        DataNote("repeated-judgment-row", f"followir/robust04/{config_name('default', None)}",
                 (repeated_query,)),
        DataNote("repeated-changed-document",
                 f"followir/robust04/{config_name('qrel_diff', None)}", ("101",)))
    assert [note_text(note) for note in data.notes] == [
        "followir/robust04/queries: 1 query is listed without a judgment (query 100-og), "
        "no query of the task, as mteb reads it: a run lists none",
        f"followir/robust04/qrels: 1 row repeats an earlier row's query, document and grade "
        f"(query {repeated_query}), each read as one judgment, as mteb reads them",
        "followir/robust04/qrel_diff: 1 document is listed again in a topic's changed "
        "documents (topic 101), each counted once in p-MRR, where mteb's calculate_pmrr "
        "counts every listing"]
    # The task-data cache keeps them: a miss writes the entry, a hit reads them back.
    from leaderboard.core.data.cache import load_through_cache

    for _ in range(2):
        assert load_through_cache(task, root, mteb_layout.__name__).notes == data.notes


@pytest.mark.parametrize("role", ["original", "altered"])
def test_qrels_that_judge_no_query_of_a_role_are_refused(role: str, tmp_path: Path) -> None:
    """qrels keyed some other way than the queries (or judging one instruction's queries
    alone) leave a role without a query: refused, naming the config and the ids."""
    from leaderboard.core.data.base import DataFormatError

    c = write_collection(tmp_path / "followir/robust04", n_queries=2, pool_size=8)
    suffix = "-og" if role == "original" else "-changed"
    drop_judgments(c, [f"{q}{suffix}" for q in c.base_ids])
    with pytest.raises(DataFormatError) as info:
        load_task_data(get_task("followir/robust04"), tmp_path)
    message = str(info.value)
    assert str(tmp_path / "followir/robust04" / config_name("default", None)) in message
    assert f"no {role} ({suffix}) query" in message


@pytest.mark.parametrize("keys", ["suffixed", "other topics"])
def test_a_qrel_diff_that_names_none_of_the_queries_is_refused(keys: str,
                                                                tmp_path: Path) -> None:
    """qrel_diff is keyed by the topic ("305"), as mteb reads it. Keyed some other way
    ("305-changed", or topics the queries config lacks) it changed no query's documents,
    and every run's p-MRR, averaged over nothing, read 0: the reader refuses it, naming
    the config and the ids it holds."""
    from leaderboard.core.data import mteb_layout
    from leaderboard.core.data.base import DataFormatError

    write_collection(tmp_path / "followir/robust04", n_queries=2, pool_size=8, fmt="jsonl")
    (diff,) = (tmp_path / "followir/robust04" / config_name("qrel_diff", None)).glob("*.jsonl")
    rows = [json.loads(line) for line in diff.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row["query-id"] = (row["query-id"] + "-changed" if keys == "suffixed"
                           else "9" + row["query-id"])
    diff.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    with pytest.raises(DataFormatError) as info:
        mteb_layout.load(get_task("followir/robust04"), tmp_path)
    message = str(info.value)
    assert config_name("qrel_diff", None) in message and rows[0]["query-id"] in message


# --- the dataset card: which split is read ---

def test_a_config_without_the_split_mteb_reads_is_refused_naming_the_card(
        tmp_path: Path, capsys) -> None:
    """mteb reads corpus-fas's split "corpus" and nothing else; a card whose corpus-fas
    has only "test" (and FollowIR's corpus "dev" and "train", no "test") has no data mteb
    would read: an error naming the card, the config and its splits, not a traceback or
    a config read from the wrong split."""
    from leaderboard.core.data import mteb_layout
    from leaderboard.core.data.base import DataFormatError

    root = tmp_path / "mfollowir/multilingual"
    write_collection(root, n_queries=2, pool_size=8, language="fas")
    card = root / "README.md"
    card.write_text(card.read_text(encoding="utf-8").replace(
        "split: corpus\n    path: corpus-fas/corpus-*", "split: test\n    path: corpus-fas/corpus-*"),
        encoding="utf-8")
    with pytest.raises(DataFormatError, match=rf"{re.escape(str(card))}: config 'corpus-fas' "
                                              r"has the splits 'test', and mteb reads 'corpus'"):
        mteb_layout.data_files(get_task("mfollowir/fas"), tmp_path)
    run = write_lines(tmp_path / "run.trec", ["100-og Q0 doc01 1 1.0 t\n"])
    assert main(["eval", "mfollowir/fas", "--original", str(run), "--altered", str(run),
                 "--data-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert str(card) in err and "Traceback" not in err

    followir = tmp_path / "followir/robust04"
    write_collection(followir, n_queries=2, pool_size=8)
    card = followir / "README.md"
    card.write_text(card.read_text(encoding="utf-8").replace(
        "  - split: test\n    path: corpus/test-*",
        "  - split: dev\n    path: corpus/test-*\n  - split: train\n    path: corpus/test-*"),
        encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"config 'corpus' has the splits 'dev', 'train', "
                                              r"and mteb reads 'test', or the config's only"):
        mteb_layout.data_files(get_task("followir/robust04"), tmp_path)


def test_a_card_that_is_not_yaml_is_named_with_its_line(tmp_path: Path) -> None:
    from leaderboard.core.data import mteb_layout
    from leaderboard.core.data.base import DataFormatError

    write_collection(tmp_path / "followir/robust04", n_queries=2, pool_size=8)
    card = tmp_path / "followir/robust04/README.md"
    lines = card.read_text(encoding="utf-8").splitlines()
    lines[3] = "  data_files: [unclosed"
    card.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=rf"{re.escape(str(card))}:\d+: the dataset "
                                              "card's metadata is not valid YAML"):
        mteb_layout.data_files(get_task("followir/robust04"), tmp_path)


# Paths of a repository and card patterns on which a glob and fnmatch part ways: fnmatch's
# "*" crosses "/", and its "**/" needs a folder; datasets leaves out hidden parts and
# "__" folders a pattern does not name.
GLOB_PATHS = ("corpus/test-00000-of-00001.parquet", "corpus/test-00001-of-00002.parquet",
              "corpus/old/test-1.parquet", "corpus/dev-0.parquet", "corpus/.h.parquet",
              "x.parquet", "data/a.parquet", "data/b/c.parquet", "data/b/d/e.parquet",
              "data/test-x/y.parquet", "data/__x/y.parquet", ".hidden/h.parquet",
              "__pycache__/p.parquet", "qrels/test.jsonl", "corpus-fas/corpus-00000.parquet",
              "a]b/c.parquet")
GLOB_PATTERNS = ("corpus/*", "corpus/test-*", "*/test-*", "**/test-*", "corpus/**/test-*",
                 "corpus/*/test-*", "**/*.parquet", "**", "*", "*.parquet", "data/**",
                 "data/**/*.parquet", "data/*/*", "data/test-*", "data/**/e.parquet",
                 "corpus/test-0000[0-9]-of-*.parquet", "corpus/test-0000[!1]-*",
                 "corpus/test-?????-of-*", "corpus/[!t]*", "corpus/[]t]*", "[a]]b/*",
                 "qrels/test.jsonl", "corpus-*/corpus-*", ".hidden/*", ".*/*", "corpus/.*",
                 "__*/*", "data/__x/*")


def test_card_patterns_match_the_files_datasets_matches(tmp_path: Path) -> None:
    """A card's data_files patterns were matched with fnmatch, whose "*" crosses "/" (a
    config's corpus/* took a shard of corpus/old/ too) and whose "**/*.parquet" misses a
    file at the top: matched as datasets resolves them (resolve_pattern: fsspec's glob,
    hidden and "__" parts left out unless named), each pattern against the real function."""
    from datasets.data_files import resolve_pattern

    from leaderboard.core.data.hf_card import matching

    for path in GLOB_PATHS:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("{}\n", encoding="utf-8")
    for pattern in GLOB_PATTERNS:
        try:
            theirs = sorted(Path(p).relative_to(tmp_path).as_posix()
                            for p in resolve_pattern(pattern, str(tmp_path)))
        except FileNotFoundError:  # datasets' "nothing matches"
            theirs = []
        assert matching(GLOB_PATHS, [pattern]) == theirs, pattern


def test_a_card_pattern_datasets_refuses_is_refused_naming_the_card(tmp_path: Path) -> None:
    """fsspec refuses "**" inside a part of a pattern ("corpus/test**"): so does the card's
    reader, naming the card and the config, rather than reading some files by it."""
    from leaderboard.core.data import mteb_layout
    from leaderboard.core.data.base import DataFormatError

    write_collection(tmp_path / "followir/robust04", n_queries=2, pool_size=8)
    card = tmp_path / "followir/robust04/README.md"
    card.write_text(card.read_text(encoding="utf-8").replace("path: corpus/test-*",
                                                             "path: corpus/test**"),
                    encoding="utf-8")
    with pytest.raises(DataFormatError, match=rf"{re.escape(str(card))}: config 'corpus': the "
                                              r"pattern 'corpus/test\*\*' has '\*\*' inside"):
        mteb_layout.data_files(get_task("followir/robust04"), tmp_path)
