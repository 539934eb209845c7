"""Shared fixtures: the benchmark data directory, the caches, run files written for tests."""

from __future__ import annotations

import dataclasses
import fcntl
import gzip
import importlib.util
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from leaderboard.app.board_ids import reference_ids
from leaderboard.publish.site.board import Board, board_of, load_board
from leaderboard.publish.site.build import build_site

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data"
# The FollowTable revision off_pin_board's all-MiniLM was scored on, not the one pinned.
OFF_PIN_REVISION = "deu05232/FollowTable@0123abcd4567"


def models_extra() -> ModuleType:
    """Skip the test module that calls it, at its top, unless the `models` extra is
    installed (torch, transformers, sentence-transformers), and keep the Hub offline
    for it; torch, for the module to use. Sentence-transformers is found, not
    imported: importing it takes 12 s beyond torch and transformers, which every xdist
    worker paid while collecting; only the fixture that saves model folders with it
    imports it."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    if importlib.util.find_spec("sentence_transformers") is None:
        pytest.skip("sentence-transformers is not installed (the models extra)",
                    allow_module_level=True)
    return torch


def data_root() -> Path:
    return Path(os.environ.get("LEADERBOARD_DATA", str(DEFAULT_DATA))).resolve()


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This test run's temporary folder, which every xdist worker's own folder is in."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


# What GitHub Actions sets for the step running the suite (tests.yml), and what the `ci`
# commands act on: with them, a check given no --pr-author refused ("inside Actions"), and
# step outputs and comments were appended to the test job's own output and summary files.
ACTIONS_VARIABLES = ("GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV",
                     "GITHUB_PATH")


@pytest.fixture(scope="session", autouse=True)
def outside_actions():  # noqa: ANN201 - a generator fixture
    """Every test runs as on a laptop, inside Actions too; a test that needs the Actions
    variables sets its own (tests/test_ci.py's actions_env)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ACTIONS_VARIABLES:
            patch.delenv(name, raising=False)
        yield


@pytest.fixture(scope="session", autouse=True)
def cache_root(tmp_path_factory):  # noqa: ANN201 - a generator fixture
    """Every cache (leaderboard.core.config: loaded task data, the run store's files, the
    reference models' encodings) in a folder of this test run, never the user's own; the
    task-data cache on, so every test that loads data goes through it. The xdist workers
    share it (each entry is written whole, by a rename): a task's data is loaded from its
    upstream files once per run, not once per worker."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEADERBOARD_CACHE_DIR", str(run_folder(tmp_path_factory) / "cache-root"))
        patch.delenv("LEADERBOARD_DATA_CACHE", raising=False)
        yield


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str,
               build: Callable[[Path], object]) -> Path:
    """The folder ``name`` of this test run, which ``build`` fills once per run: the first
    xdist worker to ask builds it while the others wait on a file lock, and every module
    of every worker then reads the same folder (only a finished build is shared; one a
    failed worker left is built again). For what tests only read."""
    base = run_folder(tmp_path_factory)
    folder = base / name
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (base / f"{name}.built").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            (base / f"{name}.built").touch()
    return folder


@pytest.fixture(scope="session")
def committed_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built from what the repository commits, as the quickstart builds it, once
    per test run: the xdist workers share one build (11-14 s here). Tests only read it."""
    return built_once(tmp_path_factory, "committed-site",
                      lambda folder: build_site(REPO, folder / "out",
                                                cache_dir=folder / "cache",
                                                reference_ids=reference_ids())
                      ) / "out"


@pytest.fixture(scope="session")
def committed_cache(committed_site: Path) -> Path:
    """The cache of significance tests the committed site's build left beside it."""
    return committed_site.parent / "cache"


@pytest.fixture(scope="session")
def committed_board(committed_cache: Path) -> Board:
    """The board of what the repository commits, read once per worker with the
    committed site's cache (1.5 s here; 6.7 s without it). Tests only read it."""
    return load_board(REPO, cache_dir=committed_cache)


@pytest.fixture(scope="session")
def baselines_board(committed_board: Board, committed_cache: Path,
                    tmp_path_factory: pytest.TempPathFactory) -> Board:
    """The committed board with the reference baselines' submissions alone (those of a
    declared model, reference_models/models.yaml) beside the reported rows: what a test of
    a finding on those baselines reads (a tier, a leader, an adjusted p-value), which
    merging a researcher's submission leaves as it is. The committed board itself while
    the repository commits no other; else tiered with a copy of its cache."""
    ids = reference_ids()
    rows = [r for r in committed_board.rows if not r.verified or r.key in ids]
    if len(rows) == len(committed_board.rows):
        return committed_board
    cache = tmp_path_factory.mktemp("baselines") / "cache"
    shutil.copytree(committed_cache, cache)
    return board_of(rows, [], cache)


# Where the kill sweeps work when the host has it: a memory file system (tmpfs).
MEMORY_FOLDER = Path("/dev/shm")


@pytest.fixture()
def sweep_path(tmp_path: Path) -> Iterator[Path]:
    """An empty folder for a test that stops a command at each of its file operations
    (fixtures/kill.py): on a memory file system where the host has one with room (the
    test's tmp_path otherwise), removed after the test. Each instant copies a folder, runs
    the command to the instant and reads the folder back; on this host's ext4 disk the
    command's fsyncs, mkdirs and renames made a `runs add` take 150 ms against 40 in
    memory, for the same CPU, and the copy 20 ms against 1. A SIGKILL ends the process,
    not the machine, so the next command sees the same folder on either file system: the
    sweep counts the same operations and stops at the same instants (only the order in
    which a folder lists its entries is the file system's own, as it is between disks)."""
    try:
        stat = os.statvfs(MEMORY_FOLDER)
        roomy = stat.f_bavail * stat.f_frsize >= 256 * 2**20
    except OSError:
        roomy = False
    if not (roomy and os.access(MEMORY_FOLDER, os.W_OK | os.X_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix=f"followboard-{tmp_path.name}-", dir=MEMORY_FOLDER))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def off_pin_board(committed_board: Board, committed_cache: Path,
                  tmp_path_factory: pytest.TempPathFactory) -> Board:
    """The committed board as it reads once the registry pins another FollowTable
    revision than all-MiniLM's results.json records (OFF_PIN_REVISION) for its four
    FollowTable tasks, the other submissions on the pin; tiered with a copy of the
    committed site's cache (the FollowTable views' tests, without all-MiniLM, are new)."""
    cache = tmp_path_factory.mktemp("off-pin") / "cache"
    shutil.copytree(committed_cache, cache)
    rows = []
    for row in committed_board.rows:
        if row.key == "all-minilm-l6-v2":
            moved = {t: OFF_PIN_REVISION for t in row.system.tasks
                     if t.startswith("followtable/")}
            assert len(moved) == 4
            row = dataclasses.replace(row, submission=dataclasses.replace(
                row.submission, off_pin=moved), record=None)
        rows.append(row)
    return board_of(rows, [], cache)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    root = data_root()
    if not (root / "followtable").is_dir():
        pytest.fail(f"benchmark data not found under {root}; set LEADERBOARD_DATA")
    return root


def write_run(path: Path, rows: list[tuple[str, str, float]], tag: str = "test",
              compress: bool = False) -> Path:
    """Write (qid, docid, score) rows as a TREC run, ranks numbered in the given order."""
    path.write_bytes(run_bytes(rows, tag, compress))
    return path


def run_bytes(rows: list[tuple[str, str, float]], tag: str = "test",
              compress: bool = False) -> bytes:
    """The bytes :func:`write_run` writes."""
    lines = []
    last_q, rank = None, 0
    for qid, docid, score in rows:
        rank = rank + 1 if qid == last_q else 1
        last_q = qid
        lines.append(f"{qid} Q0 {docid} {rank} {score:.6f} {tag}\n")
    data = "".join(lines).encode("utf-8")
    # Level 1: the default 9 took 0.7 s for each WTR run tests/test_ci.py writes.
    return gzip.compress(data, compresslevel=1, mtime=0) if compress else data
