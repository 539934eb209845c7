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
