"""The FollowIR / mFollowIR layout and scores, held to the real mteb package.

The fixtures (tests/fixtures/mteb_collection.py) are written as local Hugging Face datasets:
config folders of parquet (or JSON lines) files plus a dataset card naming each config's
splits, as on the Hub. Every config has a split beside the one mteb reads (a "dev" beside
"test"; beside mFollowIR's "corpus" of corpus-fas a "test"), whose rows contradict it, and
Core17's corpus has one split, not named "test": which split is read is held to mteb too. Each mteb task is pointed at such a folder by its
``metadata.dataset["path"]`` (``datasets.load_dataset`` reads a local folder the way it
reads a Hub repository, offline), so mteb's own loaders read exactly the files the
project's reader reads:

* FollowIR: mteb's generic ``RetrievalDatasetLoader`` (configs corpus, queries,
  instruction, qrels, top_ranked) and the Robust04/News21/Core17 tasks' ``qrel_diff``
  split;
* mFollowIR: ``m_follow_ir.load_data`` (configs ``corpus-fas`` ... ``qrel_diff-fas``), in
  the multilingual and the cross-lingual repository.

Scores: a search model that returns fixed runs goes through ``task.evaluate`` (mteb's
RetrievalEvaluator and ``evaluate_p_mrr_change``). mteb rounds its averaged standard
metrics to 5 decimals, so the per-query values it computed on the way (pytrec_eval's, as
passed through mteb's ``calculate_retrieval_scores``) are what the project is held to at
1e-9; p-MRR is not rounded and is compared as mteb reports it. The runs tie heavily (four
score values over 25 candidates), and every collection has a query with no changed
documents, and queries the qrels config has no row of (a topic's two, and one of each of
two others'), which the queries, instruction and top_ranked configs list: mteb evaluates
none of them, nor p-MRR on a topic one of whose queries it left out.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

import pandas as pd

from fixtures.mteb_collection import (
    CONFIG_NAMES,
    Collection,
    add_split,
    config_name,
    drop_judgments,
    run_lines,
    write_card,
    write_collection,
)
from leaderboard.app.cli import main
from leaderboard.core.data import load_task_data
from leaderboard.benchmarks.registry import get_task

TOLERANCE = 1e-9
LANGUAGES = ("fas", "rus", "zho")
# Project metric -> pytrec_eval measure mteb reports it under.
MEASURES = {"AP@1000": "map_cut_1000", "nDCG@5": "ndcg_cut_5", "nDCG@10": "ndcg_cut_10",
            "nDCG@20": "ndcg_cut_20"}


@dataclass
class Setup:
    """One mteb task over one fixture folder, and the project tasks it covers."""

    mteb_name: str
    folder: str                            # under the data directory
    subsets: dict[str, str]                # mteb hf_subset -> project task id
    fmt: str = "parquet"


SETUPS = {
    "Robust04InstructionRetrieval": Setup("Robust04InstructionRetrieval", "followir/robust04",
                                          {"default": "followir/robust04"}),
    "News21InstructionRetrieval": Setup("News21InstructionRetrieval", "followir/news21",
                                        {"default": "followir/news21"}, fmt="jsonl"),
    "Core17InstructionRetrieval": Setup("Core17InstructionRetrieval", "followir/core17",
                                        {"default": "followir/core17"}),
    "mFollowIR": Setup("mFollowIR", "mfollowir/multilingual",
                       {lang: f"mfollowir/{lang}" for lang in LANGUAGES}),
    "mFollowIRCrossLingual": Setup("mFollowIRCrossLingual", "mfollowir/cross-lingual",
                                   {f"eng-{lang}": f"mfollowir-cl/{lang}"
                                    for lang in LANGUAGES}),
}


def _language(task_id: str) -> str | None:
    return get_task(task_id).params.get("language")


def _other_split(c: Collection, name: str) -> pd.DataFrame:
    """Rows of config ``name`` for a split mteb does not read: documents, a query and its
    pool it never sees, and judgments, an instruction and changed documents that contradict
    those of the split it reads."""
    q, doc = c.base_ids[0], c.corpus_ids[0]
    extra = ["999-og", "999-changed"]
    return {
        "corpus": pd.DataFrame({"_id": ["zz-other-1", "zz-other-2"], "title": ["", ""],
                                "text": ["other split", "other split"]}),
        "queries": pd.DataFrame({"_id": extra, "text": ["other query"] * 2}),
        "instruction": pd.DataFrame({"query-id": [f"{q}-og", *extra],
                                     "instruction": ["another split's instruction"] * 3}),
        "default": pd.DataFrame({"query-id": [f"{q}-og", "999-og"], "corpus-id": [doc, doc],
                                 "score": [2, 1]}),
        "top_ranked": pd.DataFrame({"query-id": extra, "corpus-ids": [[doc], [doc]]}),
        "qrel_diff": pd.DataFrame({"query-id": [q], "corpus-ids": [[doc]]}),
    }[name]


def _add_other_splits(c: Collection, fmt: str) -> None:
    """Give every config a split beside the one mteb reads: "dev" beside FollowIR's
    "test" (mteb reads "test") and beside mFollowIR's qrels' "test"; "test" beside each
    other mFollowIR config's own ("corpus" of corpus-fas, which is the one mteb reads)."""
    for name in CONFIG_NAMES:
        other = "dev" if c.language is None or name == "default" else "test"
        add_split(c, name, other, _other_split(c, name), fmt)  # type: ignore[arg-type]


def _only_split_not_test(c: Collection, name: str, split: str) -> None:
    """Rename FollowIR config ``name``'s one split to ``split``: mteb reads a config's
    only split whatever its name (jhu-clsp's FollowIR uploads name it after the config)."""
    folder = c.local_dir / config_name(name, None)
    for path in folder.glob("test-*"):
        path.rename(folder / path.name.replace("test-", f"{split}-", 1))
    write_card(c.local_dir)


def _tied_scores(collection: Collection, rng: random.Random) -> dict[str, dict[str, float]]:
    """Scores over each query's whole pool from four values: most documents tie."""
    return {q: {d: float(rng.choice((0, 1, 2, 3))) for d in collection.pools[q]}
            for q in collection.base_ids}


def _as_dict(lines: list[str]) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in lines:
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    return run


class FixedRuns:
    """An mteb search model that answers with fixed runs (one per hf_subset)."""

    mteb_model_meta = None

    def __init__(self, runs: dict[str, dict[str, dict[str, float]]]) -> None:
        self.runs = runs

    def index(self, corpus: Any, **kwargs: Any) -> None:
        pass

    def search(self, queries: Any, *, hf_subset: str, **kwargs: Any
               ) -> dict[str, dict[str, float]]:
        run = self.runs[hf_subset]
        # Documents in docid ascending order: the opposite of the tie order trec_eval and
        # mteb >= 2.26.24 use, so ranks taken in insertion order would differ.
        return {qid: dict(sorted(run[qid].items())) for qid in queries["id"]}


@dataclass
class World:
    data_dir: Path
    collections: dict[str, Collection]                    # project task id -> fixture
    runs: dict[str, dict[str, list[str]]]                 # task id -> role -> TREC lines
    loaded: dict[str, dict[str, Any]]                     # task id -> what mteb loaded
    tasks: dict[str, Any]                                 # mteb name -> loaded mteb task


# mteb and datasets are imported where used: importing mteb takes 4 s, which every xdist
# worker paid while collecting.

def _mteb_task(setup: Setup, data_dir: Path) -> Any:
    import mteb

    task = mteb.get_task(setup.mteb_name)
    # The pinned Hub repository, replaced by the local folder with the same layout. The
    # metadata is a class attribute: change a copy, for this instance only.
    task.metadata = task.metadata.model_copy(deep=True)
    task.metadata.dataset["path"] = str(data_dir / setup.folder)
    task.load_data()
    return task


def _followir_loaded(task: Any, folder: Path) -> dict[str, Any]:
    import datasets

    split = task.dataset["default"]["test"]
    queries = split["queries"]
    # The FollowIR tasks read qrel_diff in task_specific_scores, exactly like this.
    diff = datasets.load_dataset(str(folder), "qrel_diff", split="qrel_diff")
    return {
        "corpus": sorted(split["corpus"]["id"]),
        "queries": {row["id"]: f"{row['text']} {row['instruction']}".strip()
                    for row in queries},
        "qrels": split["relevant_docs"],
        "top_ranked": split["top_ranked"],
        "qrel_diff": {row["query-id"]: list(row["corpus-ids"]) for row in diff},
    }


def _mfollowir_loaded(task: Any, subset: str) -> dict[str, Any]:
    import datasets
    from mteb.abstasks.retrieval import _filter_queries_without_positives
    from mteb.tasks.instruction_reranking.multilingual import m_follow_ir

    # m_follow_ir.load_data keeps the v1 attributes until evaluate() converts them, and
    # evaluation (_evaluate_subset) keeps the queries with a judgment, as this does.
    qrels = task.relevant_docs[subset]["test"]
    listed = datasets.Dataset.from_dict({"id": list(task.queries[subset]["test"])})
    _, kept = _filter_queries_without_positives(qrels, listed)
    return {
        "corpus": sorted(task.corpus[subset]["test"]),
        "queries": {qid: f"{task.queries[subset]['test'][qid]} "
                         f"{task.instructions[subset]['test'][qid]}".strip()
                    for qid in kept["id"]},
        "qrels": qrels,
        "top_ranked": task.top_ranked[subset]["test"],
        "qrel_diff": {q: list(d) for q, d in
                      m_follow_ir.load_qrel_diff(task.metadata, subset).items()},
    }


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    import datasets

    data_dir = tmp_path_factory.mktemp("mteb-data")
    rng = random.Random(17)
    collections: dict[str, Collection] = {}
    runs: dict[str, dict[str, list[str]]] = {}
    for i, setup in enumerate(SETUPS.values()):
        for j, task_id in enumerate(setup.subsets.values()):
            c = write_collection(data_dir / setup.folder, n_queries=6, pool_size=25,
                                 corpus_size=60, n_relevant=7, n_changed=3, unchanged=1,
                                 language=_language(task_id), seed=10 * i + j,
                                 fmt=setup.fmt)  # type: ignore[arg-type]
            # Unjudged: topic 1's two queries, topic 2's original, topic 3's altered.
            b = c.base_ids
            drop_judgments(c, [f"{b[1]}-og", f"{b[1]}-changed", f"{b[2]}-og",
                               f"{b[3]}-changed"])
            collections[task_id] = c
            _add_other_splits(c, setup.fmt)
            runs[task_id] = {role: run_lines(c, role, _tied_scores(c, rng))  # type: ignore[arg-type]
                             for role in ("original", "altered")}
    # Core17's corpus, once its "dev" split is gone: one split, named "corpus".
    for path in (data_dir / "followir/core17/corpus").glob("dev-*"):
        path.unlink()
    _only_split_not_test(collections["followir/core17"], "corpus", "corpus")
    with pytest.MonkeyPatch.context() as mp:
        # Arrow files datasets builds from the fixtures stay in the test's folder.
        mp.setattr(datasets.config, "HF_DATASETS_CACHE", data_dir / ".hf-cache")
        loaded: dict[str, dict[str, Any]] = {}
        tasks: dict[str, Any] = {}
        for setup in SETUPS.values():
            task = _mteb_task(setup, data_dir)
            tasks[setup.mteb_name] = task
            for subset, task_id in setup.subsets.items():
                loaded[task_id] = (_followir_loaded(task, data_dir / setup.folder)
                                   if subset == "default" else _mfollowir_loaded(task, subset))
        yield World(data_dir, collections, runs, loaded, tasks)


TASK_IDS = [t for s in SETUPS.values() for t in s.subsets.values()]


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_mteb_reads_the_fixture_as_the_project_does(world: World, task_id: str) -> None:
    got = world.loaded[task_id]
    ours = load_task_data(get_task(task_id), world.data_dir)
    c = world.collections[task_id]
    judged = sorted(c.qrels)
    assert len(judged) == 2 * len(c.base_ids) - 4  # as drop_judgments left them
    # Every config has a split mteb does not read (Core17's corpus, one not named "test").
    assert not {"zz-other-1", "zz-other-2"} & set(got["corpus"])
    assert got["corpus"] == ours.doc_ids.tolist()
    query_ids = ours.roles["original"].query_ids + ours.roles["altered"].query_ids
    assert sorted(got["queries"]) == sorted(query_ids) == judged
    text = {**ours.roles["original"].query_text, **ours.roles["altered"].query_text}
    assert got["queries"] == text  # query and instruction, joined as mteb's models see them
    qrels = {**ours.roles["original"].qrels, **ours.roles["altered"].qrels}
    assert {q: dict(d) for q, d in got["qrels"].items()} == qrels
    assert ours.pools is not None
    assert {q: sorted(got["top_ranked"][q]) for q in query_ids} == {
        q: ours.pools[q].tolist() for q in query_ids}
    # qrel_diff is keyed by the base id; an empty list is a query with no changed docs,
    # as is one whose original mteb does not search.
    assert {f"{q}-changed": sorted(d) if f"{q}-og" in judged else []
            for q, d in got["qrel_diff"].items() if f"{q}-changed" in judged} == {
        q: ours.changed[q] for q in ours.roles["altered"].query_ids}
    assert any(not docs for docs in got["qrel_diff"].values())


def _project_scores(world: World, task_id: str, capsys: pytest.CaptureFixture[str]
                    ) -> dict[str, Any]:
    paths = {}
    for role, lines in world.runs[task_id].items():
        path = world.data_dir / f"{task_id.replace('/', '_')}.{role}.trec"
        path.write_text("".join(lines), encoding="utf-8")
        paths[role] = path
    capsys.readouterr()
    rc = main(["eval", task_id, "--original", str(paths["original"]),
               "--altered", str(paths["altered"]), "--data-dir", str(world.data_dir),
               "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, out + err
    return json.loads(out)


def _insertion_order_p_mrr(original: dict[str, dict[str, float]],
                           altered: dict[str, dict[str, float]],
                           changed: dict[str, list[str]]) -> float:
    """p-MRR with mteb < 2.26.24's ranks: by score only, ties in dict insertion order
    (docid ascending, as FixedRuns hands the runs over), over the topics both runs have."""
    per_query = []
    for q, docs in changed.items():
        if not docs or f"{q}-og" not in original or f"{q}-changed" not in altered:
            continue
        values = []
        for d in docs:
            ranks = []
            for run in (original[f"{q}-og"], altered[f"{q}-changed"]):
                inserted = sorted(run.items())
                order = [doc for doc, _ in sorted(inserted, key=lambda x: x[1], reverse=True)]
                ranks.append(order.index(d) + 1 if d in run else len(run) + 1)
            og, new = ranks
            values.append(new / og - 1 if og >= new else 1 - og / new)
        per_query.append(sum(values) / len(values))
    return sum(per_query) / len(per_query)


@pytest.mark.parametrize("mteb_name", list(SETUPS))
def test_scores_equal_mteb_evaluator(world: World, mteb_name: str,
                                     monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    import datasets
    import mteb._evaluators.retrieval_metrics as mteb_metrics

    setup = SETUPS[mteb_name]
    task = world.tasks[mteb_name]
    runs = {subset: {**_as_dict(world.runs[t]["original"]), **_as_dict(world.runs[t]["altered"])}
            for subset, t in setup.subsets.items()}

    # Keep the per-query scores mteb computes for its "og" and "changed" sections.
    per_query: dict[str, dict[str, dict[str, float]]] = {}
    compute = mteb_metrics.calculate_retrieval_scores

    def keep(results, qrels, k_values, *args, **kwargs):  # noqa: ANN001, ANN202
        out = compute(results, qrels, k_values, *args, **kwargs)
        per_query.update(out.all_scores)
        return out

    monkeypatch.setattr(mteb_metrics, "calculate_retrieval_scores", keep)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", world.data_dir / ".hf-cache")

    for subset, task_id in setup.subsets.items():
        # One subset at a time: the languages share query ids.
        per_query.clear()
        theirs = task.evaluate(FixedRuns(runs), "test", subsets_to_run=[subset],
                               encode_kwargs={})[subset]
        ours = _project_scores(world, task_id, capsys)
        assert ours["metrics"]["p-MRR"] == pytest.approx(theirs["p-MRR"], abs=TOLERANCE, rel=0)
        c = world.collections[task_id]
        # p-MRR's pairs: the topics with changed documents both of whose queries count.
        assert sorted(ours["per_query"]["p-MRR"]) == [
            f"{q}-changed" for q in c.base_ids
            if c.changed[q] and {f"{q}-og", f"{q}-changed"} <= c.qrels.keys()]
        # The fixture ties enough for mteb's old insertion-order ranks to give another p-MRR.
        old = _insertion_order_p_mrr(_as_dict(world.runs[task_id]["original"]),
                                     _as_dict(world.runs[task_id]["altered"]), c.changed)
        assert abs(old - theirs["p-MRR"]) > 1e-6
        metrics = get_task(task_id).standard_metrics
        for role, section in (("original", "og"), ("altered", "changed")):
            for metric in metrics:
                measure = MEASURES[metric]
                mine = ours["per_query"][f"{role}/{metric}"]
                # The queries mteb evaluated (those with a judgment), no other.
                assert sorted(mine) == sorted(q for q in per_query
                                              if q.endswith("-og") == (role == "original"))
                assert mine == pytest.approx({q: per_query[q][measure] for q in mine},
                                             abs=TOLERANCE, rel=0), (task_id, role, metric)
                mean = sum(per_query[q][measure] for q in mine) / len(mine)
                assert ours["metrics"][f"{role}/{metric}"] == pytest.approx(
                    mean, abs=TOLERANCE, rel=0)
                # What mteb reports is that mean rounded to 5 decimals.
                key = measure.replace("ndcg_cut_", "ndcg_at_").replace("map_cut_", "map_at_")
                assert theirs[section][key] == round(mean, 5)


@pytest.mark.parametrize("in_card", [True, False])
def test_the_qrels_config_read_is_the_one_mteb_reads(in_card: bool, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A FollowIR repository with a "default" config beside "qrels" (jhu-clsp's name beside
    mteb's): mteb's loader reads "default" (RetrievalDatasetLoader._load_qrels takes
    "qrels" only where the repository has no "default"), and so does the reader. A folder
    default/ that the card does not declare is no config: both read "qrels"."""
    import datasets
    from mteb.abstasks.retrieval_dataset_loaders import RetrievalDatasetLoader

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / ".hf-cache")
    c = write_collection(tmp_path / "followir/robust04", n_queries=3, pool_size=8)
    other = pd.DataFrame([(q, d, 3) for q, judged in c.qrels.items() for d in judged],
                         columns=["query-id", "corpus-id", "score"])
    (c.local_dir / "default").mkdir()
    other.to_parquet(c.local_dir / "default" / "test-00000-of-00001.parquet", index=False)
    if in_card:
        write_card(c.local_dir)
    theirs = RetrievalDatasetLoader(str(c.local_dir), revision=None)._load_qrels(None)
    ours = load_task_data(get_task("followir/robust04"), tmp_path)
    assert {**ours.roles["original"].qrels, **ours.roles["altered"].qrels} == theirs
    grades = {g for judged in theirs.values() for g in judged.values()}
    assert (grades == {3}) == in_card


def test_the_queries_config_read_is_the_one_mteb_reads(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A FollowIR repository with a config "query" beside "queries": mteb's loader reads
    "query" (RetrievalDatasetLoader._load_queries), and so does the reader."""
    import datasets
    from mteb.abstasks.retrieval_dataset_loaders import RetrievalDatasetLoader

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / ".hf-cache")
    c = write_collection(tmp_path / "followir/robust04", n_queries=3, pool_size=8)
    ids = [f"{q}{s}" for q in c.base_ids for s in ("-og", "-changed")]
    (c.local_dir / "query").mkdir()
    pd.DataFrame({"_id": ids, "text": [f"the other text of {q}" for q in ids]}).to_parquet(
        c.local_dir / "query" / "test-00000-of-00001.parquet", index=False)
    write_card(c.local_dir)
    theirs = RetrievalDatasetLoader(str(c.local_dir), revision=None)._load_queries(None)
    ours = load_task_data(get_task("followir/robust04"), tmp_path)
    texts = {q: ours.roles[role].query_parts[q][0]
             for role in ("original", "altered") for q in ours.roles[role].query_ids}
    assert texts == dict(zip(theirs["id"], theirs["text"]))
    assert set(texts.values()) == {f"the other text of {q}" for q in ids}


def test_registry_pins_what_mteb_pins() -> None:
    """Revisions and licences of the five datasets agree with mteb's task metadata."""
    import mteb

    licences = {"mit": "MIT", "odc-by": "ODC-By"}
    for setup in SETUPS.values():
        meta = mteb.get_task(setup.mteb_name).metadata
        for task_id in setup.subsets.values():
            source = get_task(task_id).source
            assert source.repo == meta.dataset["path"]
            assert meta.dataset["revision"].startswith(source.revision)
            assert source.licence == licences[meta.license]
