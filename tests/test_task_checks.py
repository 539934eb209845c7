"""A submission's tasks checked on worker processes give exactly what checking them one
after the other gives (leaderboard.submission.task_checks), down to the bytes scoring
writes."""

from __future__ import annotations

import gzip
import shutil
import time
from pathlib import Path

import pytest

from leaderboard.core import processes
from leaderboard.core.config import SettingError, worker_setting
from leaderboard.core.report import Report
from leaderboard.submission import task_checks
from leaderboard.submission.explain_files import ExplainFile
from leaderboard.submission.folder import discover
from leaderboard.submission.pipeline import score_submission
from leaderboard.submission.task_checks import (
    CheckOptions,
    TaskJob,
    checked_in_workers,
    checked_serially,
    worker_count,
)

REPO = Path(__file__).resolve().parents[1]
BM25S = REPO / "submissions" / "bm25s"
# Two FollowTable tasks, PI-Indic T1-T3 and a T4 prediction file: every kind of task.
PICKED = ["followtable/wtr", "followtable/tarx", "pi-indic-val150/t1/asm",
          "pi-indic-val150/t2/asm-hin", "pi-indic-val150/t3/asm-ben", "pi-indic-val150/t4/asm"]


@pytest.fixture(scope="module")
def small_submission(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bm25s's metadata and the runs of PICKED tasks, as a submitter's unscored folder."""
    root = tmp_path_factory.mktemp("workers") / "submissions" / "bm25s"
    root.mkdir(parents=True)
    shutil.copy(BM25S / "metadata.yaml", root / "metadata.yaml")
    for task in PICKED:
        source = BM25S / "runs" / task
        if not source.is_dir():
            pytest.fail(f"{source} is missing: pick tasks the committed bm25s covers")
        shutil.copytree(source, root / "runs" / task)
    return root


def jobs_of(root: Path) -> list[TaskJob]:
    submission = discover(root, Report(), record_local=True)
    return [TaskJob(task, submission.files[task.id], submission.names.get(task.id), root.parent)
            for task in submission.tasks()]


def test_workers_give_what_checking_one_task_after_the_other_gives(
        small_submission: Path, data_dir: Path) -> None:
    jobs = jobs_of(small_submission)
    assert len(jobs) == len(PICKED)
    options = CheckOptions(data_dir, score=True, explain=True, compress=True)
    serial = list(checked_serially(jobs, options))
    parallel = list(checked_in_workers(jobs, options, workers=2))
    assert [r.task_id for r in parallel] == [r.task_id for r in serial] == [j.task.id
                                                                         for j in jobs]
    for one, other in zip(serial, parallel):
        assert one.data_error is other.data_error is None
        assert one.report.issues == other.report.issues
        assert one.sheet == other.sheet and one.sheet is not None
        assert one.files is not None and other.files is not None
        assert {p: (f.sha256, f.size) for p, f in one.files.files.items()} == \
            {p: (f.sha256, f.size) for p, f in other.files.files.items()}
        # Workers compress what they send back, and keep the JSON; in this process the
        # writer compresses.
        for path, file in other.files.files.items():
            assert file.content is None
            assert file.gzipped() == ExplainFile.of_json(
                one.files.files[path].content.decode()).gzipped()
        assert set(other.cpu_s) == {"check", "score", "explain", "compress"}
        assert set(one.cpu_s) == {"check", "score", "explain"}


def test_a_check_that_writes_nothing_gets_back_only_the_files_digests(
        small_submission: Path, data_dir: Path) -> None:
    """`ci pr-check` names the explanation files in a manifest and writes none of them:
    its workers hand back sizes and digests, the same as checking in this process."""
    jobs = jobs_of(small_submission)
    options = CheckOptions(data_dir, score=True, explain=True, compress=False)
    serial = list(checked_serially(jobs, options))
    parallel = list(checked_in_workers(jobs, options, workers=2))
    for one, other in zip(serial, parallel):
        assert {p: (f.sha256, f.size) for p, f in one.files.files.items()} == \
            {p: (f.sha256, f.size) for p, f in other.files.files.items()}
        assert all(f.content is None and f._gzipped is None
                   for f in other.files.files.values())
        with pytest.raises(ValueError, match="no bytes to write"):
            next(iter(other.files.files.values())).gzipped()


@pytest.mark.parametrize("sizes", [[], [5], [3 << 20, 10, 2 << 20, 300_000] + [250_000] * 40,
                                   [1 << 20] * 3, [10] * 7, [230_000] * 288 + [10_000] * 12])
@pytest.mark.parametrize("workers", [2, 4])
def test_tasks_go_out_largest_first_in_bundles_that_shrink_to_one_task(sizes: list[int],
                                                                       workers: int) -> None:
    bundles = task_checks.bundles(sizes, workers)
    order = [i for bundle in bundles for i in bundle]
    assert sorted(order) == list(range(len(sizes)))  # each task once
    assert [sizes[i] for i in order] == sorted(sizes, reverse=True)
    left = sum(sizes)
    for bundle in bundles:
        assert 1 <= len(bundle) <= task_checks.BUNDLE_TASKS
        # Full, or one task alone: no bundle goes on past its bytes.
        target = min(task_checks.BUNDLE_BYTES, left // (4 * workers))
        assert sum(sizes[i] for i in bundle[:-1]) < max(target, 1)
        left -= sum(sizes[i] for i in bundle)
    if len(sizes) > 100:  # many small tasks: far fewer hand-overs, the last ones alone
        assert len(bundles) < len(sizes) / 2 and len(bundles[-1]) == 1


def test_scoring_on_workers_writes_the_same_bytes(small_submission: Path, data_dir: Path,
                                                  tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole `score` path, explanation files written as the workers deliver them."""
    written = {}
    for workers in ("0", "2"):
        root = tmp_path / workers / "submissions" / "bm25s"
        shutil.copytree(small_submission, root)
        monkeypatch.setenv("LEADERBOARD_WORKERS", workers)
        if workers == "2":
            assert worker_count(jobs_of(root)) == 2
        outcome = score_submission(root, data_dir, after_merge=True)
        assert outcome.report.ok, outcome.report.issues[:5]
        written[workers] = {str(p.relative_to(root)): p.read_bytes()
                            for p in sorted(root.rglob("*")) if p.is_file()}
        assert not list(root.parent.glob(".bm25s.explain-*")), "a work folder was left"
    assert written["0"] == written["2"]
    assert "results.json" in written["2"] and "explain/manifest.json" in written["2"]
    cards = [p for p in written["2"] if p.startswith("explain/") and p.endswith(".json.gz")]
    assert len(cards) > len(PICKED) and all(gzip.decompress(written["2"][p]) for p in cards)


def test_each_result_is_handed_over_as_it_comes_then_yielded_in_task_order(
        small_submission: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Scoring writes a task's files as soon as a worker finishes it, not once every task
    before it in the submission is done: here the first task takes 2 s longer."""
    jobs = jobs_of(small_submission)
    options = CheckOptions(data_dir, score=True, explain=True, compress=False)
    check = task_checks.check_task

    def first_is_slow(job: TaskJob, options: CheckOptions) -> task_checks.TaskResult:
        if job.task.id == jobs[0].task.id:
            time.sleep(2)
        return check(job, options)

    monkeypatch.setattr(task_checks, "check_task", first_is_slow)  # the forks inherit it
    arrived: list[str] = []
    yielded = []
    for result in checked_in_workers(jobs, options, workers=2,
                                     on_result=lambda r: arrived.append(r.task_id)):
        assert result.task_id in arrived  # handed over before it is yielded
        yielded.append(result.task_id)
    assert yielded == [job.task.id for job in jobs]
    assert sorted(arrived) == sorted(yielded) and arrived[0] != yielded[0]
    serial: list[str] = []
    assert [r.task_id for r in checked_serially(jobs, options, lambda r: serial.append(
        r.task_id))] == serial == yielded


def test_a_scoring_that_fails_after_files_were_written_leaves_no_explanation_folder(
        small_submission: Path, data_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The first task in order is invalid; the others were valid and their files written
    as they came: none of it stays."""
    root = tmp_path / "submissions" / "bm25s"
    shutil.copytree(small_submission, root)
    first = jobs_of(root)[0]
    broken = next(iter(first.files.values()))
    broken.write_bytes(gzip.compress(b"q1 Q0 d1 1 not-a-score run\n"))
    monkeypatch.setenv("LEADERBOARD_WORKERS", "2")
    outcome = score_submission(root, data_dir, after_merge=True)
    assert not outcome.report.ok and any(first.task.id in issue.format()
                                         for issue in outcome.report.issues)
    assert not (root / "explain").exists() and not (root / "results.json").exists()
    assert not list(root.parent.glob(".bm25s.explain-*")), "a work folder was left"


def test_a_task_without_its_data_is_reported_the_same_way(small_submission: Path,
                                                          tmp_path: Path) -> None:
    jobs = jobs_of(small_submission)[:2]
    options = CheckOptions(tmp_path / "no-data", score=True, explain=False, compress=False)
    serial = list(checked_serially(jobs, options))
    parallel = list(checked_in_workers(jobs, options, workers=2))
    assert [r.data_error for r in serial] == [r.data_error for r in parallel]
    assert all(r.data_error and "no-data" in r.data_error for r in parallel)


def test_a_bug_in_a_worker_is_raised_here(small_submission: Path, data_dir: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug in the checker")

    monkeypatch.setattr(task_checks, "check_task_files", broken)  # forked: the workers see it
    options = CheckOptions(data_dir, score=False, explain=False, compress=False)
    with pytest.raises(RuntimeError, match="a bug in the checker"):
        list(checked_in_workers(jobs_of(small_submission), options, workers=2))


def test_a_worker_checks_each_task_on_its_own_thread(small_submission: Path, data_dir: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers keep every core busy: a task's runs parsed on threads of their own
    there only added hand-overs (about 3 of a PI-Indic task's 23 ms of CPU)."""
    from leaderboard.core import evaluate

    def no_threads(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a worker started a thread pool")

    monkeypatch.setattr(evaluate, "ThreadPoolExecutor", no_threads)  # forked: workers see it
    options = CheckOptions(data_dir, score=True, explain=False, compress=False)
    results = list(checked_in_workers(jobs_of(small_submission), options, workers=2))
    assert all(r.report.ok and r.sheet is not None for r in results)


def test_reading_stopped_early_leaves_no_pool_thread_and_no_worker(
        small_submission: Path, data_dir: Path) -> None:
    """Closing the results early (an error, Ctrl-C) stops the workers and ends the pool's
    thread before it returns. A thread left running raced the interpreter's exit in
    CPython 3.11 and printed a "Bad file descriptor" traceback after Ctrl-C (once in the
    suite, in tests/test_task_checks.py's idle-workers test)."""
    import multiprocessing
    import threading
    from concurrent.futures.process import _ExecutorManagerThread

    options = CheckOptions(data_dir, score=False, explain=False, compress=False)
    results = checked_in_workers(jobs_of(small_submission), options, workers=2)
    next(results)
    results.close()
    assert not [t for t in threading.enumerate()
                if isinstance(t, _ExecutorManagerThread) and t.is_alive()]
    assert multiprocessing.active_children() == []


def _frozen_in_worker() -> int:
    import gc

    return gc.get_freeze_count()


def test_workers_inherit_this_process_objects_frozen_and_it_thaws_them_after() -> None:
    """A worker's full garbage collection walked every object it inherited (45 ms for a
    scoring's imports) and wrote to each page it shared with this process; frozen before
    the fork, they are out of its collections. This process gets them back afterwards,
    and a freeze of its caller's is left to the caller."""
    import gc

    assert gc.get_freeze_count() == 0
    with processes.forked_pool(1) as pool:
        assert pool.submit(_frozen_in_worker).result() > 10_000
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        with processes.forked_pool(1) as pool:
            pool.submit(_frozen_in_worker).result()
        assert gc.get_freeze_count() > 10_000  # still the caller's to thaw
    finally:
        gc.unfreeze()


# A pool whose worker is stopped in the middle of sending its result: the script runs in
# a process of its own, so that a pool that hangs cannot hang the test run.
_HALF_SENT = """
import os, struct, sys, time
from pathlib import Path
from leaderboard.core import processes

marker = Path(sys.argv[1])
POOL = None


def send_half_a_result():
    # The worker's copy of the pool's result pipe: a message's length, then only part of
    # it, as a worker killed while it sends a large result leaves it.
    writer = POOL._result_queue._writer
    os.write(writer.fileno(), struct.pack("!i", 1 << 20) + bytes(1000))
    marker.touch()
    time.sleep(60)


try:
    with processes.forked_pool(1) as POOL:
        POOL.submit(send_half_a_result)
        while not marker.exists():
            time.sleep(0.01)
        time.sleep(0.2)  # the pool's thread is reading the rest of the message
        raise KeyboardInterrupt  # Ctrl-C
except KeyboardInterrupt:
    print("stopped")
"""


def test_ctrl_c_while_a_worker_sends_its_result_stops_the_pool(tmp_path: Path) -> None:
    """Ctrl-C kills the workers; one killed while it sent a result left the pool's thread
    reading the rest of it for ever, and `score` hung (once in a full run of the suite,
    the Ctrl-C test below with it)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _HALF_SENT, str(tmp_path / "sending")],
                          capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout, done.stderr) == (0, "stopped\n", "")


# Workers that die while they send their result, as one the out-of-memory killer stops
# then would: in a process of its own, so that a wait that never ends cannot hang the run.
_DIED_SENDING = """
import os, signal, struct, sys
from pathlib import Path
from leaderboard.core.processes import WorkerError
from leaderboard.core.report import Report
from leaderboard.submission import task_checks
from leaderboard.submission.folder import discover


def died_sending(job, options):
    frame = sys._getframe(1)  # up to the pool's worker loop, which holds the result pipe
    while "result_queue" not in frame.f_locals:
        frame = frame.f_back
    writer = frame.f_locals["result_queue"]._writer
    os.write(writer.fileno(), struct.pack("!i", 1 << 20) + bytes(1000))
    os.kill(os.getpid(), signal.SIGKILL)


task_checks.check_task = died_sending
root, data_dir = Path(sys.argv[1]), Path(sys.argv[2])
submission = discover(root, Report(), record_local=True)
jobs = [task_checks.TaskJob(task, submission.files[task.id], None, root.parent)
        for task in submission.tasks()]
options = task_checks.CheckOptions(data_dir, score=False, explain=False, compress=False)
try:
    list(task_checks.checked_in_workers(jobs, options, workers=2))
except WorkerError as exc:
    print(exc)
"""


def test_a_worker_killed_while_it_sends_its_result_is_a_clear_error(
        small_submission: Path, data_dir: Path) -> None:
    """The pool notices a dead worker, unless it died in the middle of sending a result:
    its thread then waits for the rest of the message for ever, and so did `score`."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _DIED_SENDING, str(small_submission),
                           str(data_dir)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "ended without a result" in done.stdout and "LEADERBOARD_WORKERS=0" in done.stdout


def test_waiting_for_no_result_is_an_error_not_a_wait_for_ever() -> None:
    with processes.forked_pool(1) as pool:
        with pytest.raises(ValueError, match="at least one future"):
            processes.first_completed(pool, [])


def test_how_many_workers(small_submission: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jobs = jobs_of(small_submission)
    monkeypatch.delenv("LEADERBOARD_WORKERS", raising=False)
    # bm25s's few tasks here are under the size that repays a worker.
    assert sum(job.size for job in jobs) < task_checks.PARALLEL_MIN_BYTES
    assert worker_count(jobs) == 0
    monkeypatch.setattr(task_checks, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(processes, "usable_cpus", lambda: 8)
    assert worker_count(jobs) == 4  # one per CPU, at most 4
    assert worker_count(jobs[:1]) == 0  # one task: nothing to share
    for setting, expected in (("0", 0), ("1", 0), ("3", 3), ("64", len(jobs))):
        monkeypatch.setenv("LEADERBOARD_WORKERS", setting)
        assert worker_count(jobs) == expected
    for bad in ("two", "-1", "65", "1.5"):
        with pytest.raises(SettingError, match="LEADERBOARD_WORKERS"):
            worker_setting({"LEADERBOARD_WORKERS": bad})


def test_a_worker_killed_mid_task_is_a_clear_error(small_submission: Path, data_dir: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import signal

    from leaderboard.core.processes import WorkerError

    def killed(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer does

    monkeypatch.setattr(task_checks, "check_task_files", killed)
    options = CheckOptions(data_dir, score=False, explain=False, compress=False)
    with pytest.raises(WorkerError, match="ended without a result.*LEADERBOARD_WORKERS=0"):
        list(checked_in_workers(jobs_of(small_submission), options, workers=2))


def test_checking_the_scores_builds_no_per_query_part(small_submission: Path, data_dir: Path,
                                                      monkeypatch) -> None:  # noqa: ANN001
    """`validate --check-scores` scores every task to compare with results.json and writes
    no file: each task's part of per-query.json.gz went unused. `score` (and `ci
    pr-check`, which scores the same way) still gets one per task."""
    from leaderboard.submission import pipeline, task_checks

    monkeypatch.setenv("LEADERBOARD_WORKERS", "0")  # in this process, where the count is
    built: list[object] = []
    real = task_checks.task_per_query_json
    monkeypatch.setattr(task_checks, "task_per_query_json",
                        lambda sheet: built.append(sheet) or real(sheet))
    checked = pipeline.check_submission(small_submission, data_dir, score=False,
                                        check_scores=True)
    assert checked.scores and checked.per_query_json == {} and built == []
    scored = pipeline.check_submission(small_submission, data_dir, score=True)
    assert len(built) == len(scored.scores) == len(PICKED)
    assert sorted(scored.per_query_json) == sorted(scored.scores)

def test_ctrl_c_while_workers_score_prints_no_traceback_and_leaves_no_process(
        small_submission: Path, data_dir: Path, tmp_path: Path) -> None:
    """SIGINT to the whole process group, as a terminal's Ctrl-C, once the first task is
    reported: `score` says "leaderboard score: interrupted", the folder is as it was or
    wholly scored, and every worker is gone."""
    import os
    import signal
    import subprocess
    import sys
    import threading
    import time

    root = tmp_path / "submissions" / "bm25s"
    shutil.copytree(small_submission, root)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    env = {**os.environ, "LEADERBOARD_WORKERS": "2", "LEADERBOARD_DATA": str(data_dir)}
    child = subprocess.Popen([sys.executable, "-m", "leaderboard.app.cli", "score", str(root)],
                             stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env,
                             start_new_session=True, text=True)
    assert child.stderr is not None
    lines = []
    # A bound, so that a `score` that hangs fails the test (killed: exit -9) instead of
    # hanging the test run.
    bound = threading.Timer(120, os.killpg, (child.pid, signal.SIGKILL))
    bound.start()
    try:
        for line in child.stderr:
            lines.append(line)
            if line.startswith("[1/"):
                os.killpg(child.pid, signal.SIGINT)
                break
        lines += child.stderr.readlines()
    finally:
        bound.cancel()
    code = child.wait()
    output = "".join(lines)
    assert "Traceback" not in output, output
    assert code in (0, 130), output
    if code == 130:
        assert "leaderboard score: interrupted\n" in output
        assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    deadline = time.monotonic() + 30
    while True:
        try:
            os.killpg(child.pid, 0)  # any worker left in the group?
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "a worker outlived `score`"
        time.sleep(0.2)


def test_ctrl_c_reaching_idle_workers_prints_nothing_from_them(small_submission: Path,
                                                                data_dir: Path) -> None:
    """A worker waiting for its next task when Ctrl-C comes printed a KeyboardInterrupt
    traceback of its own; only this process handles it now."""
    import subprocess
    import sys

    # The child handles Ctrl-C as a command run from a terminal does, whatever the test
    # runner's process left it (a process started with SIGINT ignored or blocked keeps it
    # so; once in a full run here the child exited 0 with no KeyboardInterrupt at all).
    script = f"""
import os, signal, time
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
from pathlib import Path
from leaderboard.core.report import Report
from leaderboard.submission.folder import discover
from leaderboard.submission.task_checks import CheckOptions, TaskJob, checked_in_workers
root = Path({str(small_submission)!r})
found = discover(root, Report(), record_local=True)
jobs = [TaskJob(t, found.files[t.id], None, None) for t in found.tasks()][:2]
options = CheckOptions(Path({str(data_dir)!r}), score=False, explain=False, compress=False)
results = checked_in_workers(jobs, options, workers=2)
next(results)
time.sleep(2)  # the other task is done too: both workers wait for work
try:
    os.killpg(os.getpgrp(), signal.SIGINT)
    time.sleep(5)
except KeyboardInterrupt:
    print("interrupted here", flush=True)
    results.close()
"""
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           timeout=120, start_new_session=True)
    assert "interrupted here" in child.stdout, (child.returncode, child.stderr)
    assert "Traceback" not in child.stderr, child.stderr


def _live_in_group(group: int) -> list[int]:
    """The processes of process group ``group`` that are still running (a zombie, dead but
    not yet waited for by whoever adopted it, is not)."""
    import os

    live = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        state, pgrp = fields[0], int(fields[2])
        if pgrp == group and state not in ("Z", "X"):
            live.append(int(entry))
    return live


@pytest.mark.skipif(not processes.can_fork(), reason="workers are forked on Linux only")
def test_score_killed_while_workers_check_leaves_no_worker_and_no_lock(
        small_submission: Path, data_dir: Path, tmp_path: Path) -> None:
    """SIGKILL of `score` alone (the out-of-memory killer, a CI job's timeout) while its
    workers check: the workers end with it, and the next `score` of the folder finishes
    or undoes the killed change and scores. Orphaned workers lived for ever, blocked on a
    pipe nobody read, each holding its copy of the folder's lock: every later command on
    the submission was refused ("another leaderboard command is changing this
    submission")."""
    import os
    import signal
    import subprocess
    import sys
    import threading

    root = tmp_path / "submissions" / "bm25s"
    shutil.copytree(small_submission, root)
    # Each worker says when it starts a task, then waits: `score` is killed while both
    # hold a task (the forks inherit the patched function).
    # (One write each: two workers' prints could interleave their pieces on the pipe.)
    script = f"""
import os, sys, time
from leaderboard.submission import task_checks
check = task_checks.check_task
def held(job, options):
    os.write(1, b"checking\\n")
    time.sleep(60)
    return check(job, options)
task_checks.check_task = held
from leaderboard.app.cli import main
sys.exit(main(["score", {str(root)!r}, "--quiet"]))
"""
    env = {**os.environ, "LEADERBOARD_WORKERS": "2", "LEADERBOARD_DATA": str(data_dir)}
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, env=env, start_new_session=True,
                             text=True)
    assert child.stdout is not None
    bound = threading.Timer(120, os.killpg, (child.pid, signal.SIGKILL))
    bound.start()
    try:
        started = 0
        for line in child.stdout:
            started += line.strip() == "checking"
            if started == 2:
                break
        assert started == 2, "the workers never started their tasks"
        os.kill(child.pid, signal.SIGKILL)  # `score` alone, not its workers
        child.wait()
        deadline = time.monotonic() + 20
        while _live_in_group(child.pid):
            assert time.monotonic() < deadline, \
                f"workers outlived the killed `score`: {_live_in_group(child.pid)}"
            time.sleep(0.05)
    finally:
        bound.cancel()
        try:
            os.killpg(child.pid, signal.SIGKILL)  # whatever is left, so the run goes on
        except ProcessLookupError:
            pass
    again = subprocess.run([sys.executable, "-m", "leaderboard.app.cli", "score", str(root),
                            "--quiet"], capture_output=True, text=True, timeout=300,
                           env={**env, "LEADERBOARD_WORKERS": "0"})
    assert "another leaderboard command" not in again.stderr + again.stdout, again.stderr
    assert again.returncode == 0, again.stderr + again.stdout
    assert (root / "results.json").is_file()
