"""The explorer's texts kept in the task-data cache (leaderboard.submission.explain_files.
task_texts): a kept copy is what building them from the task's files gives
(built_texts, the plain version), byte for byte, and a damaged one is built again."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from leaderboard.benchmarks.registry import get_task
from leaderboard.core.config import ENV_CACHE_DIR
from leaderboard.core.data import cache, load_task_data
from leaderboard.submission import explain_files
from leaderboard.submission.explain_files import TaskTexts, built_texts, task_texts

TASKS = ["pi-indic-val150/t1/hin", "pi-indic-val150/t4/hin", "followtable/wtr"]


@pytest.fixture
def cache_root(tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv(ENV_CACHE_DIR, str(root))
    cache._private_folder.cache_clear()
    forget_texts(monkeypatch)
    return root


def forget_texts(monkeypatch) -> None:  # noqa: ANN001
    """A new process, as far as texts go: nothing kept in memory."""
    monkeypatch.setattr(explain_files, "_TEXTS", {})
    monkeypatch.setattr(explain_files, "_TEXT_FILES", {})
    monkeypatch.setattr(explain_files, "_PARTS_BY_CONTENT", {}, raising=False)


def assert_same_texts(a: TaskTexts, b: TaskTexts) -> None:
    assert (a.refs, a.licence, a.source, a.upstream) == (b.refs, b.licence, b.source,
                                                         b.upstream)
    assert a.parts.keys() == b.parts.keys()
    for digest, part in a.parts.items():
        other = b.parts[digest]
        assert (part.content, part.sha256, part.gzipped()) == (other.content, other.sha256,
                                                               other.gzipped())


@pytest.mark.parametrize("task_id", TASKS)
def test_kept_texts_are_the_built_ones(task_id: str, data_dir: Path, cache_root: Path,
                                       monkeypatch) -> None:
    task = get_task(task_id)
    data = load_task_data(task, data_dir)
    first = task_texts(task, data, data_dir)  # a miss: built and kept
    forget_texts(monkeypatch)
    plain = built_texts(task, data, data_dir)
    forget_texts(monkeypatch)

    def no_build(*_: object) -> TaskTexts:
        raise AssertionError("built again: the kept texts were not used")

    monkeypatch.setattr(explain_files, "built_texts", no_build)
    kept = task_texts(task, data, data_dir)
    assert_same_texts(kept, plain)
    assert_same_texts(first, plain)
    if task.benchmark == "followtable":
        assert kept.upstream and not kept.parts  # its licence: links, no texts


def test_a_damaged_part_is_built_again(data_dir: Path, cache_root: Path,
                                       monkeypatch) -> None:
    task = get_task("pi-indic-val150/t1/hin")
    data = load_task_data(task, data_dir)
    plain = task_texts(task, data, data_dir)
    folder = cache_root / "task-data" / "explain-texts"
    digest = next(iter(plain.parts))
    # Valid gzip of other JSON, under the name of the part's SHA-256.
    (folder / f"{digest}.json.gz").write_bytes(gzip.compress(b'{"texts":{}}', mtime=0))
    forget_texts(monkeypatch)
    built = []
    monkeypatch.setattr(explain_files, "built_texts",
                        lambda *a: built.append(1) or built_texts(*a))
    again = task_texts(task, data, data_dir)
    assert built == [1]
    assert_same_texts(again, plain)


class _Forgetful(dict):
    """A memo that keeps nothing: every part is encoded, the plain way."""

    def __setitem__(self, key: object, value: object) -> None:
        pass


def test_a_part_tasks_share_is_encoded_once_and_is_the_plain_encoding(
        data_dir: Path, monkeypatch) -> None:
    """PI-Indic's tasks share most of their text parts (T1 Hindi's personas are T2
    Hindi-Tamil's); encoding each again took 0.3-0.4 of the 0.7-0.9 CPU-s their texts
    cost."""
    ids = ["pi-indic-val150/t1/hin", "pi-indic-val150/t2/hin-tam", "pi-indic-val150/t2/tam-hin",
           "pi-indic-val150/t3/hin", "pi-indic-val150/t4/hin", "pi-indic-val150/t1/hin"]
    tasks = [(get_task(i), load_task_data(get_task(i), data_dir)) for i in ids]
    encoded: list[str] = []
    encode = explain_files.ExplainFile.of
    monkeypatch.setattr(explain_files.ExplainFile, "of", classmethod(
        lambda cls, doc: encoded.append(doc["kind"]) or encode(doc)))

    def build_all() -> list[TaskTexts]:
        return [built_texts(task, data, data_dir) for task, data in tasks]

    forget_texts(monkeypatch)
    memo = build_all()
    once = list(encoded)
    forget_texts(monkeypatch)
    monkeypatch.setattr(explain_files, "_PARTS_BY_CONTENT", _Forgetful(), raising=False)
    encoded.clear()
    plain = build_all()
    for a, b in zip(memo, plain):
        assert_same_texts(a, b)
    distinct = {digest for texts in plain for digest in texts.parts}
    assert len(once) == len(distinct) < len(encoded)
