"""A submission never loses data (issue 34, findings 1-3): every command that changes a
submission folder leaves it as it was or as intended, whatever stops it.

The fault-injection tests run a command in a forked child (tests/fixtures/kill.py) whose
every file operation (``os.open``, ``os.replace``, ``os.link``, ``os.unlink``,
``os.mkdir``, ``os.rmdir``, ``os.fsync``, ...) is counted; at the k-th the child kills
itself with SIGKILL, or the operation fails with ENOSPC (a full disk). After each, ``runs
verify`` (which first finishes or undoes what the killed command left) must accept the
folder, and its files must be the old state's or the new state's, byte for byte. The
disk-full test mounts an 8 MiB tmpfs where the host allows it (root).
"""

from __future__ import annotations

import gzip
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Literal

import pytest
import yaml

from fixtures.kill import folder_files, needs_fork, run_child
from fixtures.submission import make_submission, oracle_lines, write_run_file
from leaderboard.app.cli import main
from leaderboard.app.transfer import verify

SUB = "my-model"
# A small task (150 queries of 150 candidates): each command takes a fraction of a second,
# so the harness can stop it at every file operation.
TASK = "pi-indic-val150/t1/hin"
# The file operations a child counts (and dies or fails at).
COUNTED = ("open", "replace", "rename", "link", "unlink", "remove", "mkdir", "rmdir", "fsync",
           "symlink", "write")


# --------------------------------------------------------------------------- harness


def around(folder: Path) -> list[str]:
    """What lies beside the submission folder (a change left behind would be here)."""
    return sorted(p.name for p in folder.parent.iterdir())


def instants(n_ops: int, every: bool) -> list[int]:
    """Every operation, or 20 evenly spaced ones (the first and the last among them)."""
    if every or n_ops <= 20:
        return list(range(1, n_ops + 1))
    return sorted({1 + round(i * (n_ops - 1) / 19) for i in range(20)})


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> dict[str, Path]:
    """A scored submission of TASK (``scored``), new runs of the task (``new-runs/runs``), and
    the same submission before its first scoring (``unscored``: metadata, runs and
    manifest, no results)."""
    from leaderboard.benchmarks.registry import get_task
    from leaderboard.core.data import load_task_data

    root = tmp_path_factory.mktemp("states")
    data = load_task_data(get_task(TASK), data_dir)
    scored = make_submission(root / "scored" / "submissions" / SUB, {TASK: data},
                             docs_per_query=30)
    assert main(["score", str(scored), "--data-dir", str(data_dir), "--quiet"]) == 0
    unscored = root / "unscored" / "submissions" / SUB
    shutil.copytree(scored, unscored)
    (unscored / "results.json").unlink()
    (unscored / "per-query.json.gz").unlink()
    for role in data.roles:
        write_run_file(root / "new-runs" / "runs" / TASK / f"{role}.trec.gz",
                       oracle_lines(data, role, 30, seed=7))
    return {"scored": scored, "unscored": unscored, "new-runs": root / "new-runs"}


# What a state adds to the copy of its folder that copytree cannot copy (a FIFO).
Prepare = Callable[[Path], object] | None


def fresh(state: Path, where: Path, prepare: Prepare = None) -> Path:
    """A copy of a submission state at ``where/submissions/<id>``, then ``prepare``d."""
    folder = where / "submissions" / SUB
    if where.exists():
        shutil.rmtree(where)
    shutil.copytree(state, folder)
    if prepare is not None:
        prepare(folder)
    return folder


def folder_entries(folder: Path) -> dict[str, bytes]:
    """:func:`folder_files`, and every link (its target) and FIFO (never opened) there."""
    entries = folder_files(folder)
    for current, dirs, names in os.walk(folder):
        for name in dirs + names:
            path = Path(current) / name
            rel = path.relative_to(folder).as_posix()
            if path.is_symlink():
                entries[rel] = b"link to " + os.fsencode(os.readlink(path))
            elif path.is_fifo():
                entries[rel] = b"FIFO"
    return entries


def old_and_new(state: Path, argv: Callable[[Path], list[str]], where: Path,
                prepare: Prepare = None) -> tuple[dict[str, bytes], dict[str, bytes], int]:
    """The folder's files before and after ``argv`` runs to its end, and how many file
    operations that takes."""
    folder = fresh(state, where, prepare)
    before = folder_entries(folder)
    run = run_child(lambda: main(argv(folder)), COUNTED)
    assert run.code == 0, run.output
    after = folder_entries(folder)
    assert after != before and verify(folder).ok
    assert around(folder) == [SUB]
    return before, after, run.operations


def check_interrupted(state: Path, argv: Callable[[Path], list[str]], tmp_path: Path, *,
                      how: Literal["kill", "enospc"], every: bool,
                      prepare: Prepare = None) -> int:
    """Stop the command at each instant; after each, the folder is verified and is the
    old or the new one. Returns how many instants were tried."""
    # The first fills the caches the next one reads.
    old_and_new(state, argv, tmp_path / "reference", prepare)
    old, new, n_ops = old_and_new(state, argv, tmp_path / "reference", prepare)
    assert n_ops > 5, n_ops
    seen = {"old": 0, "new": 0}
    for k in instants(n_ops, every):
        folder = fresh(state, tmp_path / "run", prepare)
        run = run_child(lambda: main(argv(folder)), COUNTED, fail_at=k, how=how)
        if how == "kill":
            assert run.code is None, f"op {k}: not killed\n{run.output}"
        else:
            assert "internal error" not in run.output and "Traceback" not in run.output, \
                f"op {k}: {run.output}"
        report = verify(folder)  # finishes or undoes what the command left
        files = folder_entries(folder)
        # What prepare put there is refused by verify, while the folder still holds it.
        assert report.ok or (prepare is not None and files == old and all(
            issue.path.startswith(f"{SUB}/explain/") for issue in report.issues)), \
            f"op {k} of {n_ops}: {report.lines()}\n{run.output}"
        assert around(folder) == [SUB], f"op {k}: {around(folder)}"
        assert files in (old, new), f"op {k} of {n_ops}: neither the old nor the new folder: " \
            f"{sorted(set(files) ^ set(old))} / {sorted(set(files) ^ set(new))}"
        seen["old" if files == old else "new"] += 1
    assert seen["old"] and seen["new"], seen
    return len(instants(n_ops, every))


# The commands' arguments for a folder (partials of module functions: a lean process,
# below, is handed them).

def _add(new_runs: Path, data_dir: Path, folder: Path) -> list[str]:
    return ["runs", "add", str(folder), "--from", str(new_runs), "--data-dir", str(data_dir),
            "--quiet"]


def _score(data_dir: Path, folder: Path) -> list[str]:
    return ["score", str(folder), "--data-dir", str(data_dir), "--quiet"]


def _publish(data_dir: Path, folder: Path) -> list[str]:
    return ["ci", "score-pending", "--repo", str(folder.parent.parent), "--data-dir",
            str(data_dir), "--quiet"]


def add_argv(states: dict[str, Path], data_dir: Path) -> Callable[[Path], list[str]]:
    return partial(_add, states["new-runs"], data_dir)


def score_argv(data_dir: Path) -> Callable[[Path], list[str]]:
    return partial(_score, data_dir)


def publish_argv(data_dir: Path) -> Callable[[Path], list[str]]:
    return partial(_publish, data_dir)


def _warm(data_dir: Path, unscored: Path, scratch: Path) -> None:
    """A lean process made as warm as the test run's process is when a sweep starts, where
    ``states`` scored the submission: a copy of it scored here. (A child of a colder one
    makes 5 file operations more, which the sweeps never counted: their instants are the
    same in either process, checked operation by operation.)"""
    folder = fresh(unscored, scratch)
    assert main(["score", str(folder), "--data-dir", str(data_dir), "--quiet"]) == 0
    shutil.rmtree(scratch)


def _with_store(store: Path, work: Callable[..., object], *args: object, **kwargs: object
                ) -> object:
    """``work`` in the lean process, the run store ``store`` (a test's setting)."""
    os.environ["LEADERBOARD_RUN_STORE"] = str(store)
    return work(*args, **kwargs)


@pytest.fixture(scope="module")
def lean(states: dict[str, Path], data_dir: Path, tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[Callable[..., object]]:
    """Runs a sweep in a fresh interpreter holding only this module's imports, which each
    instant's child is forked from. The test run's own process holds every module the
    suite collected (torch and transformers among them: 450 MB and more), and a child
    forked from it cost twice as much (the five sweeps 12.2 s alone, 20.7 s beside torch,
    transformers and sentence-transformers); the interpreter starts once for the module.
    Call it as ``lean(store, work, *args)``: an assertion that fails there is raised here."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                             initializer=_warm, initargs=(data_dir, states["unscored"],
                                                          tmp_path_factory.mktemp("warm"))
                             ) as pool:
        yield lambda store, work, *args, **kwargs: pool.submit(
            _with_store, store, work, *args, **kwargs).result()


@pytest.fixture()
def store_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The run store a folder of this test (no project setting above tmp_path applies)."""
    monkeypatch.setenv("LEADERBOARD_RUN_STORE", str(tmp_path / "store"))
    yield


@pytest.fixture()
def sweep_here(sweep_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The kill sweeps' folder (conftest's sweep_path: in memory where the host allows),
    the run store a folder of it."""
    monkeypatch.setenv("LEADERBOARD_RUN_STORE", str(sweep_path / "store"))
    return sweep_path


# --------------------------------------------------------------------------- SIGKILL

@needs_fork
@pytest.mark.slow
def test_runs_add_killed_at_every_file_operation_leaves_the_old_or_the_new_folder(
        states: dict[str, Path], data_dir: Path, sweep_here: Path, lean: Callable) -> None:
    lean(sweep_here / "store", check_interrupted, states["scored"], add_argv(states, data_dir),
         sweep_here, how="kill", every=True)


@needs_fork
@pytest.mark.slow
def test_score_killed_at_every_file_operation_leaves_the_old_or_the_new_folder(
        states: dict[str, Path], data_dir: Path, sweep_here: Path, lean: Callable) -> None:
    lean(sweep_here / "store", check_interrupted, states["unscored"], score_argv(data_dir),
         sweep_here, how="kill", every=True)


@needs_fork
@pytest.mark.slow
def test_score_removing_a_fifo_and_a_link_under_explain_killed_at_every_file_operation(
        states: dict[str, Path], data_dir: Path, sweep_here: Path, lean: Callable) -> None:
    """score unlinks them from the folder with the rest of its change: killed at any
    instant, the folder holds both, or neither and the new files."""
    lean(sweep_here / "store", check_interrupted, states["unscored"], score_argv(data_dir),
         sweep_here, how="kill", every=True,
         prepare=partial(_special_explain, how="a folder of both",
                         outside=sweep_here / "outside"))


@needs_fork
@pytest.mark.slow
def test_publishing_killed_at_20_instants_leaves_the_old_or_the_new_folder(
        states: dict[str, Path], data_dir: Path, sweep_here: Path, lean: Callable) -> None:
    """`ci score-pending` writes the explorer's files into explain/ too."""
    lean(sweep_here / "store", check_interrupted, states["unscored"], publish_argv(data_dir),
         sweep_here, how="kill", every=False)


def _kept_on_an_earlier_revision(folder: Path) -> None:
    """A scored submission as after a data revision bump whose pinned data its runs do not
    fit: results.json records another revision, and a run names a query the data lacks."""
    results = folder / "results.json"
    doc = json.loads(results.read_text(encoding="utf-8"))
    key = f"data:{TASK}"
    doc["produced_by"][key] = doc["produced_by"][key].split("@")[0] + "@0123abcd4567"
    results.write_text(json.dumps(doc, sort_keys=True, indent=1) + "\n", encoding="utf-8")
    run = next((folder / "runs" / TASK).glob("*.trec.gz"))
    run.write_bytes(gzip.compress(gzip.decompress(run.read_bytes())
                                  + b"no-such-query Q0 d1 1 1.0 t\n", mtime=0))


def kept_interrupted(state: Path, argv: Callable[[Path], list[str]], where: Path) -> int:
    """Kill the command at each instant: the submission it keeps is as it was once the
    next command has looked, nothing beside it, but for publishing's whole record of it
    (kept.json) or none. Returns how many instants were tried."""
    folder = fresh(state, where / "reference", _kept_on_an_earlier_revision)
    old = folder_entries(folder)
    run = run_child(lambda: main(argv(folder)), COUNTED)
    assert run.code == 0 and "kept as scored on another data revision" in run.output, \
        run.output
    kept = folder_entries(folder)
    assert kept.pop("kept.json") and kept == old and around(folder) == [SUB]
    record = (folder / "kept.json").read_bytes()
    for k in range(1, run.operations + 1):
        folder = fresh(state, where / "run", _kept_on_an_earlier_revision)
        killed = run_child(lambda: main(argv(folder)), COUNTED, fail_at=k)
        assert killed.code is None, f"op {k}: not killed\n{killed.output}"
        verify(folder)  # finishes or undoes what the command left
        now = folder_entries(folder)
        assert now.pop("kept.json", record) == record, f"op {k} of {run.operations}"
        assert now == old, f"op {k} of {run.operations}"
        assert around(folder) == [SUB], f"op {k}: {around(folder)}"
    return run.operations


@needs_fork
@pytest.mark.slow
def test_publishing_killed_keeping_a_submission_leaves_it_as_it_was(
        states: dict[str, Path], data_dir: Path, sweep_here: Path, lean: Callable) -> None:
    """`ci score-pending` keeps a submission scored on an earlier data revision whose runs
    do not fit the pinned one (its scoring fails in a copy of the folder, which it then
    discards): killed at any instant, the folder is as it was."""
    assert lean(sweep_here / "store", kept_interrupted, states["scored"],
                publish_argv(data_dir), sweep_here) > 5


@needs_fork
@pytest.mark.slow
def test_runs_push_and_pull_after_a_killed_runs_add_see_the_finished_or_undone_folder(
        states: dict[str, Path], data_dir: Path, sweep_here: Path, lean: Callable) -> None:
    """`runs push` read a folder before finishing the change a killed command left:
    killed after its journal was written, `runs add` left the old folder and a journal,
    and push wrote the old manifest beside the new results, removed the old runs, and
    said nothing. Push and pull now finish or undo it first, as every reader does."""
    lean(sweep_here / "store", push_and_pull_after_kills, states["scored"],
         add_argv(states, data_dir), sweep_here)


def push_and_pull_after_kills(state: Path, argv: Callable[[Path], list[str]], where: Path
                              ) -> None:
    """Kill the command at each of its last 25 operations, then push, and again, then
    pull: each finds the folder finished or undone."""
    from leaderboard.app.transfer import pull, push

    old_and_new(state, argv, where / "reference")
    _, _, n_ops = old_and_new(state, argv, where / "reference")
    for k in range(max(1, n_ops - 24), n_ops + 1):  # the switch comes last
        folder = fresh(state, where / "run")
        shutil.rmtree(where / "store", ignore_errors=True)
        run = run_child(lambda: main(argv(folder)), COUNTED, fail_at=k)
        assert run.code is None, f"op {k}: not killed\n{run.output}"
        report, _ = push([folder])
        assert report.ok, f"op {k} of {n_ops}: {report.lines()}"
        assert around(folder) == [SUB], f"op {k}: {around(folder)}"
        assert verify(folder).ok, f"op {k} of {n_ops}: {verify(folder).lines()}"
        # And pull, the other way round, after the same kind of kill.
        folder = fresh(state, where / "run")
        run_child(lambda: main(argv(folder)), COUNTED, fail_at=k)
        report, _, _ = pull(folder)
        assert report.ok and around(folder) == [SUB], (k, report.lines(), around(folder))


def _push(folder: Path) -> list[str]:
    return ["runs", "push", str(folder), "--quiet"]


def _pull(folder: Path) -> list[str]:
    return ["runs", "pull", str(folder)]


def push_interrupted(state: Path, where: Path) -> int:
    """Kill `runs push` (into the configured folder store, emptied each time) at 20
    instants: the folder is the old or the new one once the next command has looked; the
    next push leaves the new folder, and the store holds the files a push puts there and
    nothing else (a killed push's temporary file removed). Returns the instants tried."""
    store = Path(os.environ["LEADERBOARD_RUN_STORE"])
    old_and_new(state, _push, where / "reference")
    old, new, n_ops = old_and_new(state, _push, where / "reference")
    stored = folder_files(store)
    assert stored and n_ops > 5, n_ops
    seen = {"old": 0, "new": 0}
    for k in instants(n_ops, every=False):
        shutil.rmtree(store)
        folder = fresh(state, where / "run")
        run = run_child(lambda: main(_push(folder)), COUNTED, fail_at=k)
        assert run.code is None, f"op {k}: not killed\n{run.output}"
        report = verify(folder)  # finishes or undoes what the command left
        files = folder_entries(folder)
        assert report.ok, f"op {k} of {n_ops}: {report.lines()}"
        assert around(folder) == [SUB], f"op {k}: {around(folder)}"
        assert files in (old, new), f"op {k} of {n_ops}: {sorted(set(files) ^ set(old))}"
        seen["old" if files == old else "new"] += 1
        assert main(_push(folder)) == 0, f"op {k}"
        assert folder_entries(folder) == new, f"op {k}"
        assert folder_files(store) == stored, f"op {k}: {sorted(set(folder_files(store)) ^ set(stored))}"
    assert seen["old"] and seen["new"], seen
    return len(instants(n_ops, every=False))


@needs_fork
@pytest.mark.slow
def test_runs_push_killed_at_20_instants_leaves_the_old_or_the_new_folder(
        states: dict[str, Path], sweep_here: Path, lean: Callable) -> None:
    """`runs push` copies the files into the store, then writes the manifest and removes
    the folder's copies as one change of the folder."""
    assert lean(sweep_here / "store", push_interrupted, states["scored"], sweep_here) == 20


def pull_interrupted(state: Path, where: Path) -> int:
    """:func:`check_interrupted` of `runs pull` into a folder whose files a push moved
    into the store (at 20 instants)."""
    pushed = fresh(state, where / "pushed")
    assert main(_push(pushed)) == 0
    assert sorted(folder_files(pushed)) == ["manifest.txt", "metadata.yaml", "results.json"]
    return check_interrupted(pushed, _pull, where, how="kill", every=False)


@needs_fork
@pytest.mark.slow
def test_runs_pull_killed_at_20_instants_leaves_the_old_or_the_new_folder(
        states: dict[str, Path], sweep_here: Path, lean: Callable) -> None:
    assert lean(sweep_here / "store", pull_interrupted, states["scored"], sweep_here) == 20


def _baselines_run(data_dir: Path, out: Path) -> list[str]:
    return ["baselines", "run", "bm25s", "--id", SUB, "--tasks", TASK, "--out", str(out),
            "--device", "cpu", "--no-cache", "--quiet", "--data-dir", str(data_dir)]


def _runs_of(folder: Path) -> dict[str, bytes]:
    """The folder's files by name, a run file's bytes too (metadata.yaml records the run's
    times, results.json their digest)."""
    return {rel: (data if rel.startswith("runs/") else b"")
            for rel, data in folder_files(folder).items()}


def baselines_run_interrupted(data_dir: Path, where: Path) -> int:
    """Kill `baselines run` of a new id at 4 instants, from its first file operation to its
    last, two while its change is under way: the next run of it, nothing read between,
    makes the folder, nothing beside it. Returns the operations of a whole run."""
    made = where / "reference" / "submissions"
    # Here first: the children are forked with its modules imported and its caches filled.
    assert main(_baselines_run(data_dir, where / "warm")) == 0
    reference = run_child(lambda: main(_baselines_run(data_dir, made)), COUNTED)
    assert reference.code == 0, reference.output
    new = _runs_of(made / SUB)
    n_ops = reference.operations
    for k in (1, n_ops // 3, 2 * n_ops // 3, n_ops):
        out = where / f"run-{k}" / "submissions"
        killed = run_child(lambda: main(_baselines_run(data_dir, out)), COUNTED, fail_at=k)
        assert killed.code is None, f"op {k}: not killed\n{killed.output}"
        again = run_child(lambda: main(_baselines_run(data_dir, out)), ())
        assert again.code == 0, f"op {k} of {n_ops}: {again.output}"
        assert _runs_of(out / SUB) == new and sorted(p.name for p in out.iterdir()) == [SUB]
    return n_ops


@needs_fork
@pytest.mark.slow
def test_baselines_run_killed_at_4_instants_the_next_run_makes_the_folder(
        data_dir: Path, sweep_here: Path, lean: Callable) -> None:
    """Killed while it installed and scored a new id's folder (its change under way), the
    next `baselines run` of the id encoded every task and failed at its end, "[Errno 2] No
    such file or directory", the folder gone (test_transaction's creation sweep says
    why)."""
    assert lean(sweep_here / "store", baselines_run_interrupted, data_dir, sweep_here) > 50


def _measure(data_dir: Path, out: Path) -> list[str]:
    return ["baselines", "measure", "bm25s", "--id", SUB, "--tasks", TASK, "--out", str(out),
            "--documents", "8", "--queries", "4", "--quiet", "--data-dir", str(data_dir)]


def _but_efficiency(metadata: bytes) -> dict:
    return {k: v for k, v in yaml.safe_load(metadata).items() if k != "efficiency"}


def measure_interrupted(data_dir: Path, where: Path) -> int:
    """Kill `baselines measure` of a scored submission at 20 instants, from its first file
    operation to its last: once the next command has looked, the folder is the old one,
    or the new one (its efficiency block, whose times differ from run to run, and the
    rescoring that records its metadata.yaml's digest), verified, nothing beside it.
    Returns the instants tried."""
    state = where / "state"
    assert main(_baselines_run(data_dir, state)) == 0
    # Here first: the children are forked with its modules imported and its caches filled.
    assert main(_measure(data_dir, fresh(state / SUB, where / "warm").parent)) == 0
    folder = fresh(state / SUB, where / "reference")
    old = folder_files(folder)
    reference = run_child(lambda: main(_measure(data_dir, folder.parent)), COUNTED)
    assert reference.code == 0, reference.output
    new = folder_files(folder)
    changed = {rel for rel in new if new[rel] != old.get(rel)}
    assert "metadata.yaml" in changed and "results.json" in changed and set(new) == set(old)
    n_ops = reference.operations
    seen = {"old": 0, "new": 0}
    for k in instants(n_ops, every=False):
        folder = fresh(state / SUB, where / "run")
        killed = run_child(lambda: main(_measure(data_dir, folder.parent)), COUNTED, fail_at=k)
        assert killed.code is None, f"op {k}: not killed\n{killed.output}"
        report = verify(folder)  # finishes or undoes what the command left
        files = folder_files(folder)
        assert report.ok, f"op {k} of {n_ops}: {report.lines()}"
        assert around(folder) == [SUB], f"op {k}: {around(folder)}"
        if files == old:
            seen["old"] += 1
            continue
        assert set(files) == set(new), f"op {k} of {n_ops}: {sorted(set(files) ^ set(new))}"
        assert {rel: data for rel, data in files.items() if rel not in changed} == \
            {rel: data for rel, data in old.items() if rel not in changed}, f"op {k}"
        assert _but_efficiency(files["metadata.yaml"]) == _but_efficiency(old["metadata.yaml"])
        seen["new"] += 1
    assert seen["old"] and seen["new"], seen
    return len(instants(n_ops, every=False))


@needs_fork
@pytest.mark.slow
def test_baselines_measure_killed_at_20_instants_leaves_the_old_or_the_new_folder(
        data_dir: Path, sweep_here: Path, lean: Callable) -> None:
    """`baselines measure` rewrites metadata.yaml's efficiency block and rescores the
    submission (results.json records metadata.yaml's digest) as one change of the folder."""
    assert lean(sweep_here / "store", measure_interrupted, data_dir, sweep_here) == 20


# --------------------------------------------------------------------------- the dataset export

def _export(root: Path, out: Path) -> list[str]:
    return ["export", "--out", str(out), "--results-root", str(root), "--cache-dir",
            str(root.parent / "cache")]


def export_interrupted(where: Path) -> int:
    """Kill `leaderboard export` over an earlier export at 20 instants: what
    `export --existing` reads (:func:`checked_export`, which first puts back or removes
    what a killed export left) is the old export or the new one, each file as its
    release.json lists it, nothing beside the folder; the next export writes the new one.
    Returns the instants tried."""
    from leaderboard.publish.export_check import checked_export
    from fixtures.synthetic import write_tree

    tasks = ["followir/robust04", "pi-indic-val150/t1/hin"]
    for seed, name in enumerate(("old-root", "new-root")):
        write_tree(where / name, 2, seed=seed, n_queries=6, task_ids=tasks)
    reference = where / "reference" / "dataset"
    assert main(_export(where / "old-root", reference)) == 0  # and fills the cache
    old = folder_files(reference)
    shutil.copytree(reference, where / "old")
    assert main(_export(where / "new-root", reference)) == 0
    run = run_child(lambda: main(_export(where / "new-root", reference)), COUNTED)
    assert run.code == 0, run.output
    new = folder_files(reference)
    assert new != old and run.operations > 20, run.operations
    seen = {"old": 0, "new": 0}
    for k in instants(run.operations, every=False):
        out = where / "run" / "dataset"
        shutil.rmtree(out.parent, ignore_errors=True)
        shutil.copytree(where / "old", out)
        killed = run_child(lambda: main(_export(where / "new-root", out)), COUNTED, fail_at=k)
        assert killed.code is None, f"op {k}: not killed\n{killed.output}"
        checked_export(out)  # what `export --existing --push` uploads
        files = folder_files(out)
        assert files in (old, new), f"op {k} of {run.operations}: " \
            f"{sorted(set(files) ^ set(old))} / {sorted(set(files) ^ set(new))}"
        assert os.listdir(out.parent) == ["dataset"], f"op {k}: {os.listdir(out.parent)}"
        seen["old" if files == old else "new"] += 1
        assert main(_export(where / "new-root", out)) == 0, f"op {k}"
        assert folder_files(out) == new and os.listdir(out.parent) == ["dataset"], f"op {k}"
    assert seen["old"] and seen["new"], seen
    return len(instants(run.operations, every=False))


@needs_fork
@pytest.mark.slow
def test_export_killed_at_20_instants_leaves_the_old_or_the_new_export(
        sweep_here: Path, lean: Callable) -> None:
    """`leaderboard export` writes the dataset folder through the output-folder swap
    `build` uses (leaderboard/publish/output_folder.py); `export --existing` reads a
    previous export."""
    assert lean(sweep_here / "store", export_interrupted, sweep_here) == 20


# --------------------------------------------------------------------------- a full disk

@needs_fork
@pytest.mark.slow
def test_runs_add_on_a_full_disk_at_20_instants_leaves_the_old_or_the_new_folder(
        states: dict[str, Path], data_dir: Path, sweep_here: Path, lean: Callable) -> None:
    """ENOSPC from any file operation (the unprivileged stand-in for a full disk): a
    clear message, never a traceback, and the folder old or new once recovered."""
    lean(sweep_here / "store", check_interrupted, states["scored"], add_argv(states, data_dir),
         sweep_here, how="enospc", every=False)


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """An 8 MiB tmpfs (root only; skipped where the host allows no mount)."""
    mount = tmp_path / "small-disk"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small file system needs root (the ENOSPC injection test "
                    "covers the full disk without one)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def fill(disk: Path, leave: int) -> Path:
    """A ballast file leaving about ``leave`` bytes free on ``disk``."""
    ballast = disk / "ballast"
    stat = os.statvfs(disk)
    free = stat.f_bavail * stat.f_frsize
    with ballast.open("wb") as fh:
        fh.write(b"\0" * max(0, free - leave))
    return ballast


def test_runs_add_and_score_on_a_full_small_disk_change_nothing(
        states: dict[str, Path], data_dir: Path, small_disk: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEADERBOARD_RUN_STORE", str(small_disk))
    folder = fresh(states["scored"], small_disk / "repo")
    before = folder_files(folder)
    new = states["new-runs"]
    need = sum(p.stat().st_size for p in new.rglob("*") if p.is_file())
    ballast = fill(small_disk, need // 2)
    code = main(["runs", "add", str(folder), "--from", str(new), "--data-dir", str(data_dir),
                 "--quiet"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "No space left on device" in out + err and "nothing was changed" in out + err
    assert "internal error" not in out + err
    assert folder_files(folder) == before and around(folder) == [SUB]
    assert verify(folder).ok
    # Scoring a folder with no room for its results changes nothing either.
    ballast.unlink()
    unscored = fresh(states["unscored"], small_disk / "repo2")
    unscored_before = folder_files(unscored)
    fill(small_disk, 2048)
    code = main(["score", str(unscored), "--data-dir", str(data_dir), "--quiet"])
    out, err = capsys.readouterr()
    assert code == 1 and "No space left on device" in out + err, out + err
    assert folder_files(unscored) == unscored_before and around(unscored) == [SUB]
    # With room again, the same commands work.
    (small_disk / "ballast").unlink()
    shutil.rmtree(unscored.parent.parent)
    assert main(["runs", "add", str(folder), "--from", str(new), "--data-dir", str(data_dir),
                 "--quiet"]) == 0
    assert verify(folder).ok and folder_files(folder) != before


# --------------------------------------------------------------------------- overlapping inputs

@pytest.mark.parametrize("source", ["folder", "runs"])
def test_runs_add_from_the_submission_itself_keeps_every_file(
        source: str, states: dict[str, Path], data_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], store_here: None) -> None:
    """Finding 1: `--from` the submission itself or its own runs/ folder deleted the runs
    it was to add (and the backup); the same files are added back, scored the same."""
    folder = fresh(states["scored"], tmp_path / "repo")
    before = folder_files(folder)
    given = folder if source == "folder" else folder / "runs"
    code = main(["runs", "add", str(folder), "--from", str(given), "--tasks", TASK,
                 "--data-dir", str(data_dir), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert folder_files(folder) == before
    assert verify(folder).ok


def test_runs_add_with_an_invalid_run_leaves_the_folder_and_says_why(
        states: dict[str, Path], data_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], store_here: None) -> None:
    folder = fresh(states["scored"], tmp_path / "repo")
    before = folder_files(folder)
    bad = tmp_path / "bad" / "runs" / TASK
    bad.mkdir(parents=True)
    (bad / "run.trec").write_text("not a run line\n")
    half = tmp_path / "bad" / "runs" / "followtable" / "wtr"
    half.mkdir(parents=True)
    (half / "altered.trec").write_text("not read: its task has no original run\n")
    assert main(["runs", "add", str(folder), "--from", str(tmp_path / "bad"),
                 "--data-dir", str(data_dir), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert f"{SUB}: nothing added" in out and "the submission is as it was" in out
    assert folder_files(folder) == before and around(folder) == [SUB]
    # The faults are in the files under --from, which the submission never held: named
    # there, not as the submission's runs/<task>/run.trec.
    assert f"{bad / 'run.trec'}:1: " in out, out
    assert f"{half}: missing the original run" in out, out
    assert f"{SUB}/runs/" not in out, out


# --------------------------------------------------------------------------- links

def test_runs_push_never_follows_a_link_inside_explain(
        states: dict[str, Path], data_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 3: explain/texts linked to another submission's: push copied the other's
    files, deleted them through the link, then crashed half done."""
    repo = tmp_path / "repo"
    other = fresh(states["unscored"], repo)
    assert main(["ci", "score-pending", "--repo", str(repo), "--data-dir", str(data_dir),
                 "--quiet"]) == 0
    capsys.readouterr()
    victim = repo / "submissions" / "victim"
    other.rename(victim)  # another submission, published: its explain/ in its folder
    mine = fresh(states["scored"], tmp_path / "mine")  # the same runs: the same files
    linked = victim / "explain" / "texts"  # the task's texts, the same for every submission
    assert linked.is_dir()
    victim_files = folder_files(victim)
    assert any(p.startswith("explain/") for p in victim_files)
    (mine / "explain").mkdir()
    (mine / "explain" / linked.name).symlink_to(linked, target_is_directory=True)
    mine_files = folder_files(mine)
    code = main(["runs", "push", str(mine), "--to", str(tmp_path / "store"), "--quiet"])
    out, err = capsys.readouterr()
    assert folder_files(victim) == victim_files, out + err  # nothing deleted through the link
    assert code == 1, out + err
    assert f"{SUB}/explain/{linked.name}: symbolic links are not allowed in a submission" in out
    assert "internal error" not in out + err
    assert (mine / "explain" / linked.name).is_symlink()
    assert folder_files(mine) == mine_files
    assert not (tmp_path / "store").exists() or not any((tmp_path / "store").rglob("*.gz"))


def test_scoring_a_folder_holding_a_link_or_a_fifo_changes_nothing_and_says_why(
        states: dict[str, Path], data_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], store_here: None) -> None:
    folder = fresh(states["unscored"], tmp_path / "repo")
    os.mkfifo(folder / "runs" / "notes.fifo")
    before = folder_files(folder)
    assert main(["score", str(folder), "--data-dir", str(data_dir), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert f"{SUB}/runs/notes.fifo: not a regular file (a FIFO)" in out
    assert folder_files(folder) == before and around(folder) == [SUB]


def _special_explain(folder: Path, how: str, outside: Path) -> list[str]:
    """Put under ``folder/explain`` what no submission holds, ``how``: a FIFO named
    explain, a link named explain to a folder ``outside`` (a file in it), or an explain/
    holding a FIFO and a link to that file. Returns the entries, by path in the folder."""
    outside.mkdir(exist_ok=True)
    (outside / "kept.json.gz").write_bytes(b"not the submission's")
    if how == "a FIFO":
        os.mkfifo(folder / "explain")
        return ["explain"]
    if how == "a link to a folder":
        (folder / "explain").symlink_to(outside, target_is_directory=True)
        return ["explain"]
    (folder / "explain" / "texts").mkdir(parents=True)
    os.mkfifo(folder / "explain" / "texts" / "notes.fifo")
    (folder / "explain" / "kept.json.gz").symlink_to(outside / "kept.json.gz")
    return ["explain/kept.json.gz", "explain/texts/notes.fifo"]


@pytest.mark.parametrize("how", ["a FIFO", "a link to a folder", "a folder of both"])
def test_score_removes_a_fifo_or_a_link_under_explain_as_validate_says(
        how: str, states: dict[str, Path], data_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], store_here: None) -> None:
    """validate said of a FIFO or a link named explain, or one inside explain/, that
    `leaderboard score FOLDER` removes them, and score refused the folder instead ('not a
    regular file (a FIFO)', 'symbolic links are not allowed'). score removes them with
    the rest of its change, unlinking each (a link is never followed, a FIFO never
    opened); what a link named leaves untouched."""
    folder = fresh(states["scored"], tmp_path / "repo")
    outside = tmp_path / "outside"
    special = _special_explain(folder, how, outside)
    files = folder_files(folder)
    validate = ["validate", str(folder), "--data-dir", str(data_dir), "--quiet"]
    assert main(validate) == 1
    out = capsys.readouterr().out
    assert f"{SUB}/explain: " in out and f"({', '.join(special)})" in out, out
    assert f"`leaderboard score {folder} --data-dir {data_dir}` removes them" in out, out
    assert main(["score", str(folder), "--data-dir", str(data_dir), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"{SUB}/explain: warning: removed " in out and f"({', '.join(special)})" in out, out
    assert not os.path.lexists(folder / "explain") and around(folder) == [SUB]
    assert folder_files(folder) == {rel: data for rel, data in files.items()
                                    if not rel.startswith("explain/")}
    assert (outside / "kept.json.gz").read_bytes() == b"not the submission's"
    # validate says nothing of explain/ now; only what CI says of a results.json scored
    # on data no pull verified, as the mirror's is (tests/test_ci.py
    # test_a_results_json_on_data_no_pull_verified_is_refused_here_as_in_ci).
    assert main(validate) == 1
    out = capsys.readouterr().out
    assert f"{SUB}/explain" not in out and "(1 task, 1 error, 0 warnings)" in out, out
    assert f"{SUB}/results.json: results.json records the data of 1 task" in out, out


def test_publishing_replaces_a_link_named_explain_with_the_explorers_files(
        states: dict[str, Path], data_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], store_here: None) -> None:
    """Publishing writes explain/ whole, over a link of that name, even one naming
    nothing (which it took for no explain/ and renamed its folder onto: 'Not a
    directory')."""
    folder = fresh(states["unscored"], tmp_path / "repo")
    (folder / "explain").symlink_to(tmp_path / "nowhere", target_is_directory=True)
    assert main(publish_argv(data_dir)(folder)) == 0, capsys.readouterr().out
    assert not (folder / "explain").is_symlink()
    assert (folder / "explain" / "manifest.json").is_file()
    assert not (tmp_path / "nowhere").exists() and around(folder) == [SUB]


# --------------------------------------------------------------------------- the mechanism

def test_a_change_left_by_a_killed_command_is_finished_or_undone_by_the_next(
        tmp_path: Path) -> None:
    from leaderboard.submission.transaction import change_dir, change_folder, recover

    folder = tmp_path / "submissions" / SUB
    (folder / "runs" / "t").mkdir(parents=True)
    (folder / "runs" / "t" / "a.trec").write_bytes(b"old a\n")
    (folder / "metadata.yaml").write_bytes(b"old metadata\n")
    old = folder_files(folder)

    def changed() -> None:
        with change_folder(folder) as change:
            (change.folder / "runs" / "t" / "a.trec").unlink()
            (change.folder / "runs" / "t").rmdir()
            (change.folder / "runs" / "u").mkdir()
            (change.folder / "runs" / "u" / "b.trec").write_bytes(b"new b\n")
            (change.folder / "metadata.yaml").unlink()
            (change.folder / "metadata.yaml").write_bytes(b"new metadata\n")
            assert folder_files(folder) == old  # nothing moves before the commit
            change.commit()

    changed()
    new = folder_files(folder)
    assert new == {"metadata.yaml": b"new metadata\n", "runs/u/b.trec": b"new b\n"}
    assert not change_dir(folder).exists() and not (folder / "runs" / "t").exists()
    # A change abandoned (an exception) is discarded at once.
    with pytest.raises(RuntimeError), change_folder(folder) as change:
        (change.folder / "metadata.yaml").unlink()
        raise RuntimeError("stop")
    assert folder_files(folder) == new and not change_dir(folder).exists()
    # A leftover without a journal is undone; with one, finished.
    leftover = change_dir(folder) / "new" / SUB
    shutil.copytree(folder, leftover)
    (leftover / "metadata.yaml").unlink()
    assert recover(folder) == "undone" and folder_files(folder) == new
    assert recover(folder) is None


def test_a_journal_of_a_newer_format_is_not_followed(tmp_path: Path) -> None:
    """The journal a killed change left records its format, which recovery never read: one
    a newer FollowBoard wrote (steps this version may not know the meaning of) was followed
    as its own. It is refused, saying to update FollowBoard, which finishes it; nothing is
    done meanwhile. One of no known format cannot be read, as before."""
    import json

    from leaderboard.submission.transaction import JOURNAL, ChangeError, change_dir, recover

    folder = tmp_path / SUB
    folder.mkdir()
    (folder / "metadata.yaml").write_bytes(b"old\n")
    leftover = change_dir(folder) / "new" / SUB
    shutil.copytree(folder, leftover)
    (leftover / "metadata.yaml").write_bytes(b"new\n")
    journal = change_dir(folder) / JOURNAL
    journal.write_text(json.dumps({"format": "followboard-change/2", "folder": str(folder),
                                   "ops": [["put", "metadata.yaml"]]}))
    with pytest.raises(ChangeError) as raised:
        recover(folder)
    assert raised.value.message == (
        "format followboard-change/2 is newer than this version of FollowBoard reads (format "
        f"followboard-change/1); update FollowBoard to read it, which finishes the change a "
        f"stopped command left; until then {folder.resolve()} may be half changed")
    assert folder_files(folder) == {"metadata.yaml": b"old\n"} and journal.is_file()
    journal.write_text(json.dumps({"format": "other", "ops": [["put", "metadata.yaml"]]}))
    with pytest.raises(ChangeError, match="a change journal that cannot be read .not of "
                                          "format followboard-change/1"):
        recover(folder)
    journal.write_text(json.dumps({"format": "followboard-change/1", "folder": str(folder),
                                   "ops": [["put", "metadata.yaml"]]}))
    assert recover(folder) == "finished"
    assert folder_files(folder) == {"metadata.yaml": b"new\n"}


def test_a_file_changed_while_the_command_ran_stops_the_commit(tmp_path: Path) -> None:
    from leaderboard.submission.transaction import ChangeError, change_folder

    folder = tmp_path / SUB
    folder.mkdir()
    (folder / "metadata.yaml").write_bytes(b"a\n")
    with pytest.raises(ChangeError, match="changed while this command ran; nothing was "
                                          "changed"), change_folder(folder) as change:
        (change.folder / "manifest.txt").write_bytes(b"new\n")
        (folder / "metadata.yaml").unlink()
        (folder / "metadata.yaml").write_bytes(b"edited meanwhile\n")
        change.commit()
    assert folder_files(folder) == {"metadata.yaml": b"edited meanwhile\n"}


def test_a_link_that_cannot_be_mirrored_refuses_the_change_a_file_is_copied(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy of a folder hard-links its files, or copies one the file system will not
    link; a link under a removable path is hard-linked as itself or not mirrored at all:
    then the change is refused (a ChangeError, nothing changed), never copied through the
    link (as _mirror's description says)."""
    import errno

    from leaderboard.submission import transaction
    from leaderboard.submission.transaction import ChangeError, change_folder

    folder = tmp_path / SUB
    (folder / "explain").mkdir(parents=True)
    (folder / "metadata.yaml").write_bytes(b"a\n")
    (folder / "explain" / "link").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "elsewhere").write_bytes(b"not the submission's\n")
    real_link = os.link

    def no_link(src: Path, dst: Path, *, follow_symlinks: bool = True) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link", str(src))

    monkeypatch.setattr(transaction.os, "link", no_link)
    with pytest.raises(ChangeError, match="nothing was changed"):
        with change_folder(folder, removable=("explain",)):
            pass
    assert os.path.islink(folder / "explain" / "link") and around(folder) == [
        "elsewhere", SUB]
    (folder / "explain" / "link").unlink()
    with change_folder(folder, removable=("explain",)) as change:
        copied = change.folder / "metadata.yaml"
        assert copied.read_bytes() == b"a\n" and os.stat(copied).st_nlink == 1
    monkeypatch.setattr(transaction.os, "link", real_link)
    assert folder_files(folder) == {"metadata.yaml": b"a\n"}


def test_two_commands_never_change_one_submission_at_once(tmp_path: Path) -> None:
    from leaderboard.submission.transaction import ChangeError, change_folder

    folder = tmp_path / SUB
    folder.mkdir()
    with change_folder(folder):
        script = (f"import sys\nfrom pathlib import Path\n"
                  f"from leaderboard.submission.transaction import ChangeError, change_folder\n"
                  f"try:\n    with change_folder(Path({str(folder)!r})): pass\n"
                  f"except ChangeError as exc:\n    print(exc)\n")
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              check=True)
        assert "another leaderboard command is changing this submission" in done.stdout
    with change_folder(folder) as change:  # released: free again
        assert change.folder != folder
    assert ChangeError


def test_a_new_folder_below_a_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    """A new submission (`baselines run --out FILE`) below a file failed with "[Errno 20]
    Not a directory" and a traceback's worth of nothing else."""
    from leaderboard.submission.transaction import ChangeError, change_folder

    (tmp_path / "file").write_text("kept\n")
    with pytest.raises(ChangeError, match=re.escape(f"cannot be made: {tmp_path / 'file'} is "
                                                    "a regular file, not a folder")):
        with change_folder(tmp_path / "file" / SUB, create=True):
            pass
    assert (tmp_path / "file").read_text() == "kept\n"


def _create_submission(parent: Path) -> None:
    """A change that makes ``parent/SUB`` with one file, written as every writer does
    (a new file renamed over the copy's)."""
    from leaderboard.submission.transaction import change_folder

    with change_folder(parent / SUB, create=True) as change:
        (change.folder / "metadata.yaml.new").write_bytes(b"new metadata\n")
        os.replace(change.folder / "metadata.yaml.new", change.folder / "metadata.yaml")
        change.commit()


@needs_fork
def test_a_change_creating_a_folder_killed_at_every_file_operation_leaves_it_or_nothing(
        sweep_path: Path) -> None:
    """`baselines run` of a new id, killed while its change was under way (installing
    and scoring the new folder: all but the first few of its file operations), left the
    folder beside its change; the next `baselines run` of that id then encoded every
    task and failed at its end, "[Errno 2] No such file or directory", the folder gone:
    its change undid the killed one, which removed the folder the change had read as
    there. Killed before the change marked the folder as its own, it left an empty
    folder no command removed. Now the next reader finds the new folder or none, and the
    next change makes it."""
    from leaderboard.submission.transaction import recover

    reference = run_child(lambda: _create_submission(sweep_path / "reference"), COUNTED)
    assert reference.code == 0, reference.output
    new = folder_files(sweep_path / "reference" / SUB)
    seen = {"none": 0, "new": 0}
    for k in range(1, reference.operations + 1):
        for then in ("read", "changed"):
            parent = sweep_path / f"run-{k}-{then}"
            killed = run_child(lambda: _create_submission(parent), COUNTED, fail_at=k)
            assert killed.code is None, f"op {k}: not killed\n{killed.output}"
            if then == "changed":  # the next change of the folder, nothing read before
                _create_submission(parent)
                assert folder_files(parent / SUB) == new, f"op {k}"
                assert sorted(p.name for p in parent.iterdir()) == [SUB], f"op {k}"
                continue
            recover(parent / SUB)  # what every reader of the folder does first
            left = sorted(p.name for p in parent.iterdir()) if parent.exists() else []
            if left == [SUB] and folder_files(parent / SUB) == new:
                seen["new"] += 1
            else:
                assert left == [], f"op {k}: {left}"
                seen["none"] += 1
    assert seen["none"] and seen["new"], seen


def test_baselines_installing_into_an_existing_id_is_one_change_with_its_scoring(
        tmp_path: Path) -> None:
    """`baselines run` into an existing submission: the new runs, metadata.yaml and the
    scoring of the new folder change it together; a scoring that fails half-way (here:
    an exception) leaves the old folder, its results included."""
    from reference_models.folder_writer import install_submission

    folder = tmp_path / "submissions" / SUB
    (folder / "runs" / "followtable" / "wtr").mkdir(parents=True)
    (folder / "runs" / "followtable" / "wtr" / "original.trec").write_text("old run\n")
    (folder / "results.json").write_text("{}\n")
    (folder / "metadata.yaml").write_text(f"id: {SUB}\n")
    before = folder_files(folder)
    staging = tmp_path / "staging"
    (staging / "runs" / "followtable" / "wtr").mkdir(parents=True)
    (staging / "runs" / "followtable" / "wtr" / "original.trec.gz").write_bytes(b"new run")
    written = [Path("runs/followtable/wtr/original.trec.gz")]
    seen: list[dict[str, bytes]] = []

    def scoring_that_fails(copy: Path) -> None:
        seen.append(folder_files(copy))
        raise RuntimeError("scoring stopped")

    with pytest.raises(RuntimeError, match="scoring stopped"):
        install_submission(staging, folder, written, {"id": SUB}, then=scoring_that_fails)
    assert folder_files(folder) == before and around(folder) == [SUB]
    # What scoring saw was the installed folder, results gone, the other role's file too.
    assert seen == [{"metadata.yaml": b"id: my-model\n",
                     "runs/followtable/wtr/original.trec.gz": b"new run"}]
    (staging / written[0]).write_bytes(b"new run")  # the staging folder is consumed
    install_submission(staging, folder, written, {"id": SUB},
                       then=lambda copy: (copy / "results.json").write_text("scored\n"))
    assert folder_files(folder) == {"metadata.yaml": b"id: my-model\n",
                                "results.json": b"scored\n",
                                "runs/followtable/wtr/original.trec.gz": b"new run"}


def test_score_help_says_what_it_removes_under_explain() -> None:
    """`score --help` said only that the explorer's files go to the run store's cache,
    nothing of what score removes from the folder under and at explain/ (the README
    does): what CI did not write there for the submission, a link or a FIFO (explain
    itself included), and in a git checkout the submission's own files where they belong
    apart from its folder (explain_writers.placement)."""
    import argparse
    import inspect

    from leaderboard.app.cli import build_parser
    from leaderboard.submission import pipeline, transaction

    commands = next(a.choices for a in build_parser()._actions
                    if isinstance(a, argparse._SubParsersAction))
    described = " ".join(commands["score"].description.split())
    assert ("Under explain/ it removes what CI did not write there for this submission, "
            "as `validate` reports it") in described, described
    assert "a link or a FIFO (one named explain included)" in described, described
    assert "in a git checkout whose default branch holds no explain/manifest.json" in described
    assert "removable=(EXPLAIN_DIR,)" in inspect.getsource(pipeline.score_submission)
    assert transaction._removable("explain", ("explain",))
