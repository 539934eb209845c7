"""The two FollowTable layouts upstream ships must tell the same story.

Scoring reads the BEIR export (it exists for all four datasets); the raw
query_instruction.json (all but WQT) is read independently and must give the same
instructions, constraint types, T+ and T- for every pair.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from leaderboard.data import load_task_data
from leaderboard.data.base import DataFormatError, MissingDataError
from leaderboard.data.followtable import constraint_of, read_raw_instructions
from leaderboard.registry import get_task


@pytest.mark.parametrize("key,folder", [("wtr", "WTR"), ("tarx", "TArX"), ("industr", "IndusTR")])
def test_raw_json_agrees_with_beir_export(data_dir: Path, key: str, folder: str) -> None:
    task = get_task(f"followtable/{key}")
    data = load_task_data(task, data_dir)
    root = data_dir / "followtable" / folder
    topic_ids = {}
    for line in (root / "only_queries.jsonl").read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        topic_ids[obj["text"]] = str(obj["_id"])
    raw = read_raw_instructions(root / "query_instruction.json", topic_ids)
    assert {r.query_id for r in raw} == set(data.roles["altered"].query_ids)
    for r in raw:
        assert data.groups[r.query_id] == r.constraint
        assert set(data.instruction_positive[r.query_id]) == set(r.instruction_positive)
        assert set(data.changed[r.query_id]) == set(r.query_positive - r.instruction_positive)
        assert data.roles["altered"].query_text[r.query_id].startswith(r.instruction)


def test_constraint_codes() -> None:
    assert [constraint_of(c) for c in ("1.1", "1.2", "2.1", "2.2", "2.3.1", "2.3.3")] == \
        ["C1", "C2", "S1", "S2", "S3", "S3"]
    with pytest.raises(DataFormatError):
        constraint_of("3.1")


def test_real_shapes(data_dir: Path) -> None:
    expected = {"wqt": (300, 1386, 23784), "wtr": (60, 267, 9546), "tarx": (97, 408, 11586),
                "industr": (216, 928, 13258)}
    for key, (topics, pairs, tables) in expected.items():
        data = load_task_data(get_task(f"followtable/{key}"), data_dir)
        assert len(data.roles["original"].query_ids) == topics
        assert len(data.roles["altered"].query_ids) == pairs
        assert data.corpus_size == tables
        assert all(data.changed[q] for q in data.roles["altered"].query_ids)


def test_missing_files_are_listed_with_a_hint(tmp_path: Path) -> None:
    (tmp_path / "followtable" / "WTR").mkdir(parents=True)
    (tmp_path / "followtable" / "WTR" / "corpus.jsonl").write_text('{"_id": "1", "text": "x"}\n')
    with pytest.raises(MissingDataError) as info:
        load_task_data(get_task("followtable/wtr"), tmp_path)
    message = str(info.value)
    assert "queries.jsonl" in message and "qrels/test.tsv" in message
    assert "corpus.jsonl" not in message.split("missing from")[1]
    assert "leaderboard data pull followtable" in message
