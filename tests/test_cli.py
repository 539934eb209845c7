"""The `leaderboard` command line: exit codes, help texts, JSON output, scoring outputs.

Exit codes: 0 valid / success, 1 invalid input, 2 usage error. Scoring writes
``results.json`` byte-identically for identical runs and writes nothing (keeping any old
file intact) when a run is broken. Submissions are built in tmp_path from WTR's judgments
(tests/fixtures/submission.py).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
from pathlib import Path

import pytest

from fixtures.submission import make_submission, oracle_lines, write_run_file
from leaderboard.cli import build_parser, main
from leaderboard.data import load_task_data
from leaderboard.registry import get_task

WTR = "followtable/wtr"


@pytest.fixture(scope="module")
def wtr(data_dir: Path):
    return load_task_data(get_task(WTR), data_dir)


@pytest.fixture(scope="module")
def wtr_runs(tmp_path_factory, wtr) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("wtr-runs")
    return {role: write_run_file(folder / f"{role}.trec", oracle_lines(wtr, role, 30))
            for role in ("original", "altered")}


@pytest.fixture
def submission(tmp_path: Path, wtr) -> Path:
    return make_submission(tmp_path / "submissions" / "fixture-oracle", {WTR: wtr},
                           docs_per_query=30)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


def usage_error(capsys, *argv: str) -> str:
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    out, err = capsys.readouterr()
    assert info.value.code == 2, out + err
    assert "Traceback" not in out + err
    return err


# --- exit codes ---

def test_check_run_exit_0_on_valid(capsys, data_dir: Path, wtr_runs) -> None:
    for role, path in wtr_runs.items():
        rc, out, _ = run_cli(capsys, "check-run", WTR, str(path), "--data-dir", str(data_dir))
        assert rc == 0, out  # role inferred from the file name
        assert f"valid {WTR} {role} run" in out


def test_check_run_exit_1_on_invalid(capsys, data_dir: Path, wtr_runs, tmp_path: Path) -> None:
    broken = tmp_path / "altered.trec"
    broken.write_text(wtr_runs["altered"].read_text().replace(" Q0 ", " Q0 x ", 1))
    rc, out, _ = run_cli(capsys, "check-run", WTR, str(broken), "--data-dir", str(data_dir))
    assert rc == 1
    assert f"{broken}:1: expected 6 columns" in out


def test_exit_2_on_unknown_task(capsys, data_dir: Path, wtr_runs) -> None:
    err = usage_error(capsys, "check-run", "followtable/nope", str(wtr_runs["original"]),
                      "--data-dir", str(data_dir))
    assert "unknown task 'followtable/nope'" in err and "leaderboard tasks" in err
    err = usage_error(capsys, "check-run", "followtable", str(wtr_runs["original"]))
    assert "Did you mean one of: " in err and "followtable/wtr" in err
    err = usage_error(capsys, "eval", "nope", "--run", str(wtr_runs["original"]))
    assert "unknown task 'nope'" in err


def test_exit_2_on_bad_role(capsys, data_dir: Path, wtr_runs) -> None:
    err = usage_error(capsys, "check-run", WTR, str(wtr_runs["original"]), "--role", "best")
    assert "invalid choice: 'best'" in err
    err = usage_error(capsys, "check-run", WTR, str(wtr_runs["original"]), "--role", "run",
                      "--data-dir", str(data_dir))
    assert "--role must be one of original, altered" in err


def test_exit_2_when_role_cannot_be_inferred(capsys, data_dir: Path, tmp_path: Path,
                                             wtr_runs) -> None:
    path = tmp_path / "mine.trec"
    shutil.copy(wtr_runs["original"], path)
    err = usage_error(capsys, "check-run", WTR, str(path), "--data-dir", str(data_dir))
    assert "--role must be one of original, altered" in err


def test_exit_2_on_missing_altered(capsys, data_dir: Path, wtr_runs) -> None:
    err = usage_error(capsys, "eval", WTR, "--original", str(wtr_runs["original"]),
                      "--data-dir", str(data_dir))
    assert "followtable/wtr takes --original FILE --altered FILE" in err


def test_exit_2_on_unknown_command_and_option(capsys) -> None:
    usage_error(capsys, "frobnicate")
    usage_error(capsys, "tasks", "--no-such-option")
    usage_error(capsys)


# --- help ---

def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(actions) == 1
    return dict(actions[0].choices)


def test_every_command_help_has_an_example(capsys) -> None:
    names = list(subcommands())
    assert {"tasks", "check-run", "eval", "validate", "score"} <= set(names)
    for argv in [["--help"]] + [[name, "--help"] for name in names]:
        capsys.readouterr()
        with pytest.raises(SystemExit) as info:
            main(argv)
        out, _ = capsys.readouterr()
        assert info.value.code == 0, argv
        assert "Example" in out, f"`leaderboard {' '.join(argv)}` has no example"
        assert re.search(r"^\s+leaderboard ", out, re.M), argv  # the example is a command


# --- eval --json ---

def test_eval_json_is_one_object(capsys, data_dir: Path, wtr_runs, wtr) -> None:
    rc, out, err = run_cli(capsys, "eval", WTR, "--original", str(wtr_runs["original"]),
                           "--altered", str(wtr_runs["altered"]), "--data-dir", str(data_dir),
                           "--json")
    assert rc == 0, err
    result = json.loads(out)  # one object, nothing else on stdout
    assert set(result) == {"task", "metrics", "groups", "per_query"}
    assert result["task"] == WTR
    assert set(result["metrics"]) == set(get_task(WTR).metric_keys())
    assert set(result["per_query"]["IRS"]) == set(wtr.roles["altered"].query_ids)
    assert set(result["per_query"]["original/nDCG@10"]) == set(wtr.roles["original"].query_ids)
    assert set(result["groups"]) == {"C1", "C2", "S1", "S2", "S3"}
    # Relevant documents first in both runs: nDCG@10 is perfect where <= 10 are relevant.
    assert result["metrics"]["original/nDCG@10"] > 0.9


def test_eval_text_output(capsys, data_dir: Path, wtr_runs) -> None:
    rc, out, _ = run_cli(capsys, "eval", WTR, "--original", str(wtr_runs["original"]),
                         "--altered", str(wtr_runs["altered"]), "--data-dir", str(data_dir))
    assert rc == 0
    assert out.startswith(f"{WTR} (267 queries)")
    assert re.search(r"^\s+IRS\s+[+-]\d\.\d{4}$", out, re.M)


def test_eval_invalid_run_exit_1(capsys, data_dir: Path, wtr_runs, tmp_path: Path) -> None:
    bad = tmp_path / "altered.trec"
    bad.write_text(wtr_runs["altered"].read_text() + "0_0 Q0 1 1 nan x\n")
    rc, out, err = run_cli(capsys, "eval", WTR, "--original", str(wtr_runs["original"]),
                           "--altered", str(bad), "--data-dir", str(data_dir), "--json")
    assert rc == 1 and out == ""
    assert re.search(rf"^{re.escape(str(bad))}:\d+: score 'nan' is not a finite number$", err, re.M)


# --- score ---

def test_score_is_byte_identical_twice(capsys, data_dir: Path, submission: Path) -> None:
    rc, out, _ = run_cli(capsys, "score", str(submission), "--data-dir", str(data_dir), "--quiet")
    assert rc == 0, out
    results = submission / "results.json"
    first = results.read_bytes()
    rc, _, _ = run_cli(capsys, "score", str(submission), "--data-dir", str(data_dir), "--quiet")
    assert rc == 0
    assert results.read_bytes() == first
    parsed = json.loads(first)
    system = parsed["systems"][0]
    assert system["system_id"] == "fixture-oracle"
    assert set(system["tasks"]) == {WTR}
    assert system["tasks"][WTR]["per_query"]["IRS"]


def test_score_same_runs_in_another_order_give_the_same_bytes(capsys, data_dir: Path,
                                                              submission: Path) -> None:
    run_cli(capsys, "score", str(submission), "--data-dir", str(data_dir), "--quiet")
    first = (submission / "results.json").read_bytes()
    path = submission / "runs" / WTR / "altered.trec.gz"
    lines = gzip.decompress(path.read_bytes()).decode().splitlines(True)
    path.write_bytes(gzip.compress("".join(reversed(lines)).encode(), mtime=0))
    rc, _, _ = run_cli(capsys, "score", str(submission), "--data-dir", str(data_dir), "--quiet")
    assert rc == 0
    # Same scores to the byte; only the recorded SHA-256 of the reordered file differs.
    before, after = json.loads(first), json.loads((submission / "results.json").read_bytes())
    digests_before, digests_after = before.pop("inputs_sha256"), after.pop("inputs_sha256")
    assert after == before
    assert {k for k in digests_after if digests_after[k] != digests_before[k]} == {
        f"runs/{WTR}/altered.trec.gz"}


def test_score_broken_run_writes_nothing(capsys, data_dir: Path, submission: Path) -> None:
    results = submission / "results.json"
    run_cli(capsys, "score", str(submission), "--data-dir", str(data_dir), "--quiet")
    before = results.read_bytes()
    mtime = results.stat().st_mtime_ns
    path = submission / "runs" / WTR / "original.trec.gz"
    text = gzip.decompress(path.read_bytes()).decode()
    path.write_bytes(gzip.compress((text + "0 Q0 no-such-table 99 1.0 x\n").encode(), mtime=0))
    rc, out, _ = run_cli(capsys, "score", str(submission), "--data-dir", str(data_dir), "--quiet")
    assert rc == 1
    assert "document 'no-such-table' is not in the corpus" in out
    assert "fixture-oracle: not scored (1 error(s))" in out
    assert results.read_bytes() == before and results.stat().st_mtime_ns == mtime
    assert not list(submission.glob("*.tmp*")) and not list(submission.glob(".*"))


def test_score_broken_submission_without_old_results(capsys, data_dir: Path,
                                                     submission: Path) -> None:
    (submission / "runs" / WTR / "altered.trec.gz").write_bytes(b"\x1f\x8b truncated")
    rc, out, _ = run_cli(capsys, "score", str(submission), "--data-dir", str(data_dir))
    assert rc == 1
    assert sorted(p.name for p in submission.iterdir()) == ["metadata.yaml", "runs"]


def test_score_not_a_folder(capsys, data_dir: Path, tmp_path: Path) -> None:
    rc, out, _ = run_cli(capsys, "score", str(tmp_path / "nope"), "--data-dir", str(data_dir))
    assert rc == 1 and "not a submission folder" in out


# --- validate ---

def test_validate_valid_submission(capsys, data_dir: Path, submission: Path) -> None:
    rc, out, _ = run_cli(capsys, "validate", str(submission), "--data-dir", str(data_dir),
                         "--quiet")
    assert rc == 0, out
    assert "fixture-oracle: valid (1 task(s), 0 error(s)" in out
    assert not (submission / "results.json").exists()


def test_validate_bad_metadata_points_at_key_and_line(capsys, data_dir: Path,
                                                      submission: Path) -> None:
    meta = submission / "metadata.yaml"
    text = meta.read_text()
    text = text.replace("  parameters: 1000\n", "  parameters: lots\n")
    text = text.replace("contact: fixture@example.org\n", "contact: fixture@example.org\nteam: x\n")
    meta.write_text(text)
    lines = text.splitlines()
    param_line = next(i for i, ln in enumerate(lines, 1) if "parameters:" in ln)
    team_line = next(i for i, ln in enumerate(lines, 1) if ln.startswith("team:"))
    rc, out, _ = run_cli(capsys, "validate", str(submission), "--data-dir", str(data_dir),
                         "--quiet")
    assert rc == 1
    shown = "fixture-oracle/metadata.yaml"
    assert re.search(rf"^{shown}:{param_line}: model\.parameters: ", out, re.M), out
    assert re.search(rf"^{shown}:{team_line}: team: Extra inputs are not permitted", out, re.M), out
    assert "fixture-oracle: INVALID" in out
