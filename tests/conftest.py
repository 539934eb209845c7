"""Shared fixtures: the benchmark data directory, the caches, run files written for tests."""

from __future__ import annotations

import fcntl
import gzip
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data"


def data_root() -> Path:
    return Path(os.environ.get("LEADERBOARD_DATA", str(DEFAULT_DATA))).resolve()


@pytest.fixture(scope="session", autouse=True)
def cache_root(tmp_path_factory):  # noqa: ANN201 - a generator fixture
    """Every cache (leaderboard.core.config: loaded task data, the run store's files, the
    reference models' encodings) in a folder of this test run, never the user's own; the
    task-data cache on, so every test that loads data goes through it. The xdist workers
    share it (each entry is written whole, by a rename): a task's data is loaded from its
    upstream files once per run, not once per worker."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, above each worker's own
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEADERBOARD_CACHE_DIR", str(base / "cache-root"))
        patch.delenv("LEADERBOARD_DATA_CACHE", raising=False)
        yield


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules holding slow or browser tests first, each module's tests kept together.
    ``--dist loadscope`` hands modules to the workers in this order: started last, one of
    them (a minute or two of tests) kept one worker busy while the other sat idle."""
    heavy = {item.module.__name__ for item in items if item.get_closest_marker("slow")
             or item.get_closest_marker("browser")}
    items.sort(key=lambda item: item.module.__name__ not in heavy)  # stable: order kept


@pytest.fixture(scope="session")
def committed_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built from what the repository commits, as the quickstart builds it, once
    per test run: the xdist workers share one build (11-14 s here; a file lock says who
    builds, the others wait for it). Tests only read it."""
    from leaderboard.publish.site.build import build_site

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, above each worker's own
    folder = base / "committed-site"
    with open(base / "committed-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "built").exists():
            build_site(REPO, folder / "out", cache_dir=folder / "cache")
            (folder / "built").touch()  # only a finished build is shared
    return folder / "out"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    root = data_root()
    if not (root / "followtable").is_dir():
        pytest.fail(f"benchmark data not found under {root}; set LEADERBOARD_DATA")
    return root


def write_run(path: Path, rows: list[tuple[str, str, float]], tag: str = "test",
              compress: bool = False) -> Path:
    """Write (qid, docid, score) rows as a TREC run, ranks numbered in the given order."""
    lines = []
    last_q, rank = None, 0
    for qid, docid, score in rows:
        rank = rank + 1 if qid == last_q else 1
        last_q = qid
        lines.append(f"{qid} Q0 {docid} {rank} {score:.6f} {tag}\n")
    data = "".join(lines).encode("utf-8")
    if compress:
        path.write_bytes(gzip.compress(data, mtime=0))
    else:
        path.write_bytes(data)
    return path
