"""`leaderboard ci`: the PR check end to end in a throwaway git repository, the comment.

Each test builds a small project in a temporary git repository: a base commit with a
verified submission (scored here from the real FollowTable WTR judgments), a reported
results file and a placeholder code file; then a PR commit on a branch. The PR check runs
through the real command line with fake $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY files.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shlex
import shutil
import subprocess
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from leaderboard.app.ci import policy
from leaderboard.app.ci.git import Change, GitError, TreeEntry, extract, tree_entries
from leaderboard.app.ci.handover import PUBLISHED, check_proposal, check_published
from leaderboard.app.ci.policy import classify_changes
from leaderboard.app.ci.comment import COMMENT_MARKER, code, comment_body, md
from leaderboard.app.ci.pr_report import (
    CiReport,
    CiReportError,
    Problem,
    SubmissionCheck,
    TaskStanding,
    read_ci_report,
)
from leaderboard.app.cli import main
from leaderboard.core.data import load_task_data
from leaderboard.submission import layout
from leaderboard.submission.layout import ROOT_ENTRIES
from leaderboard.submission.pipeline import score_submission
from leaderboard.benchmarks.registry import get_task
from leaderboard.core.runs.validation import required_depth
from leaderboard.submission.results import (
    ModelInfo,
    ResultsFile,
    Source,
    SystemResult,
    TaskScores,
    off_pin_tasks,
    read_results,
    write_results,
)
from tests.conftest import REPO, run_bytes
from tests.fixtures.kill import folder_files, run_child
from tests.fixtures.fake_upstream import isolate_from_the_network
from tests.fixtures.loopback import folder_handler, serving
from tests.fixtures.submission import linked_data

TASK = "followtable/wtr"
RUNS = f"runs/{TASK}"


# --------------------------------------------------------------------------- helpers

def exit_status(argv: list[str]) -> int:
    """The exit status of `leaderboard ARGV`: main's, or, for a usage error, that of the
    SystemExit it raises as argparse does."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def init_repo(repo: Path) -> None:
    """An empty git repository at ``repo`` on branch main, committing as the tests."""
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "tests@followboard.invalid")
    git(repo, "config", "user.name", "FollowBoard tests")


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def metadata(sub_id: str, name: str, contact: bool = True) -> str:
    text = (f"id: {sub_id}\nmodel:\n  name: {name}\n  type: other\n"
            "produced_by: tests/test_ci.py, runs built from the WTR judgments\n")
    return text + ("contact: FollowBoard tests\n" if contact else "")


def wtr_rows(data, quality: str) -> dict[str, list[tuple[str, str, float]]]:
    """Runs from the judgments. "good": judged-relevant tables first (for the altered run
    the instruction's positives first and the tables it rules out last). "weak": the same
    tables behind 10 fillers, the ruled-out tables above the positives. "bad": a good
    original run, but the altered run puts the ruled-out tables first and the positives
    last (it follows the instruction backwards)."""
    # Every run lists min(1000, corpus size) tables per query (the depth rule), so the
    # fillers run to that depth.
    fillers_all = [str(d) for d in data.doc_ids[:1100]]
    rows: dict[str, list[tuple[str, str, float]]] = {}
    for role in ("original", "altered"):
        out = []
        for q in data.roles[role].query_ids:
            relevant = sorted(d for d, g in data.roles[role].qrels.get(q, {}).items() if g > 0)
            ruled_out = sorted(data.changed.get(q, [])) if role == "altered" else []
            depth = required_depth(data, q)
            judged = set(relevant) | set(ruled_out)
            fillers = [d for d in fillers_all if d not in judged][:depth - len(judged)]
            if quality == "good":
                order = relevant + fillers + ruled_out
            elif quality == "weak":
                order = fillers[:10] + ruled_out + relevant + fillers[10:]
            elif role == "original":
                order = relevant + fillers
            else:
                order = ruled_out + fillers + relevant
            out += [(q, d, float(len(order) - i)) for i, d in enumerate(order)]
        rows[role] = out
    return rows


# The runs' bytes by task, quality, tag and compression, made once per process: the
# module's 40-odd submissions, most of them the same files, took 15 s to build line by line.
_RUN_BYTES: dict[tuple[str, str, str, bool], dict[str, bytes]] = {}


def write_submission(root: Path, sub_id: str, name: str, data, quality: str,
                     compress: bool = True, contact: bool = True) -> Path:
    folder = root / "submissions" / sub_id
    (folder / RUNS).mkdir(parents=True, exist_ok=True)
    (folder / "metadata.yaml").write_text(metadata(sub_id, name, contact), encoding="utf-8")
    ext = ".trec.gz" if compress else ".trec"
    key = (data.task_id, quality, sub_id, compress)
    if key not in _RUN_BYTES:
        _RUN_BYTES[key] = {role: run_bytes(rows, tag=sub_id, compress=compress)
                           for role, rows in wtr_rows(data, quality).items()}
    for role, content in _RUN_BYTES[key].items():
        (folder / RUNS / f"{role}{ext}").write_bytes(content)
    return folder


@pytest.fixture(scope="module")
def wtr(data_dir: Path):
    return load_task_data(get_task(TASK), data_dir)


@pytest.fixture(scope="module")
def pulled_data(tmp_path_factory, data_dir: Path) -> Path:
    """A data folder as CI's is, `leaderboard data pull`'s: WTR's files (linked to the
    mirror's) with the manifest a pull writes, naming the pinned revision and listing
    them all. The mirror (``data_dir``) has no manifest, as data copied in by hand."""
    source = get_task(TASK).source
    return linked_data(data_dir, tmp_path_factory.mktemp("pulled") / "data", source,
                       {"repo": source.repo, "revision": source.revision})


@pytest.fixture(scope="module")
def template(tmp_path_factory, pulled_data: Path, wtr) -> tuple[Path, str]:
    """A base repository: one scored verified submission (as publishing scores it, on
    pulled data), one reported row, some code."""
    repo = tmp_path_factory.mktemp("template") / "repo"
    repo.mkdir()
    init_repo(repo)
    (repo / "leaderboard").mkdir()
    (repo / "leaderboard" / "__init__.py").write_text('"""placeholder"""\n')
    old = write_submission(repo, "old-model", "Old Model", wtr, quality="weak")
    outcome = score_submission(old, pulled_data, after_merge=True)
    assert outcome.results_path is not None, outcome.report.lines()
    old_irs = outcome.scores[TASK].metrics["IRS"]
    # A reported row (no per-query scores) carrying a figure measured above, so the
    # comment's "best reported" column has something real to show.
    reported = ResultsFile(kind="reported", systems=[SystemResult(
        system_id="paper-model", model=ModelInfo(name="Paper Model"), provenance="reported",
        source=Source(kind="paper", citation="test fixture"),
        tasks={TASK: TaskScores(metrics={"IRS": old_irs})})])
    write_results(repo / "results" / "reported" / "paper.json", reported)
    base = commit_all(repo, "base")
    return repo, base


@pytest.fixture
def repo(template, tmp_path: Path) -> tuple[Path, str]:
    src, base = template
    dst = tmp_path / "repo"
    shutil.copytree(src, dst, symlinks=True)
    git(dst, "checkout", "-q", "-b", "pr")
    return dst, base


@pytest.fixture
def actions_env(tmp_path: Path, monkeypatch) -> dict[str, Path]:
    files = {"output": tmp_path / "github_output", "summary": tmp_path / "step_summary"}
    for f in files.values():
        f.write_text("")
    monkeypatch.setenv("GITHUB_OUTPUT", str(files["output"]))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(files["summary"]))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return files


def outputs(path: Path) -> dict[str, str]:
    """Parse a $GITHUB_OUTPUT file (name<<delimiter ... delimiter records)."""
    values: dict[str, str] = {}
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        name, _, delim = lines[i].partition("<<")
        end = lines.index(delim, i + 1)
        values[name] = "\n".join(lines[i + 1:end])
        i = end + 1
    return values


def pr_check(repo: Path, base: str, head: str, out: Path, data_dir: Path, *extra: str) -> int:
    return main(["ci", "pr-check", "--repo", str(repo), "--base", base, "--head", head,
                 "--pr-number", "7", "--out", str(out), "--data-dir", str(data_dir),
                 "--quiet", *extra])


# --------------------------------------------------------------------------- end to end

def test_valid_submission_gets_scores_tier_and_comment(repo, wtr, data_dir, actions_env,
                                                       tmp_path, capsys):
    root, base = repo
    write_submission(root, "new-model", "New Model", wtr, quality="good")
    head = commit_all(root, "add new-model")
    out = tmp_path / "report"

    assert pr_check(root, base, head, out, data_dir) == 0
    stdout = capsys.readouterr().out
    assert "::error" not in stdout
    assert "pr-check: valid (new-model)" in stdout

    got = outputs(actions_env["output"])
    assert got["status"] == "valid" and got["valid"] == "true"
    assert got["submission"] == "new-model" and got["pr-number"] == "7"

    report = read_ci_report(out / "report.json")
    (sub,) = report.submissions
    assert sub.valid and not sub.updates_existing and sub.results_json == "absent"
    (row,) = sub.tasks
    results = read_results(out / "results" / "new-model" / "results.json")
    irs = results.systems[0].tasks[TASK].metrics["IRS"]
    assert row.primary == pytest.approx(irs)
    # Relevant tables first beats relevant tables behind fillers on 267 queries.
    assert row.tier == "leader" and row.previous_leader == "Old Model"
    assert row.n_competitors == 1 and row.best_reported == "Paper Model"

    comment = (out / "comment.md").read_text()
    assert comment.startswith(COMMENT_MARKER)
    assert "FollowBoard check: ✅ valid and scored" in comment
    assert "#### FollowTable" in comment
    # IRS with its sign, as the site and the metrics page show it (it had none here).
    assert f"| `{TASK}` | {irs * 100:+.1f} |" in comment
    assert "🥇 best verified" in comment and "Old Model" in comment
    assert (out / "pr-number").read_text().strip() == "7"

    summary = actions_env["summary"].read_text()
    assert f"| `{TASK}` | {irs * 100:+.1f} |" in summary
    assert COMMENT_MARKER not in summary

    # The comment job re-renders the same comment from the report, after cross-checks.
    body = tmp_path / "body.md"
    assert main(["ci", "comment-body", str(out / "report.json"), "--out", str(body),
                 "--expect-pr", "7", "--expect-head", head]) == 0
    assert body.read_text() == comment
    assert main(["ci", "comment-body", str(out / "report.json"), "--expect-pr", "8"]) == 1
    assert main(["ci", "comment-body", str(out / "report.json"),
                 "--expect-head", base]) == 1


def test_weaker_submission_is_below_the_leader_with_a_p_value(repo, wtr, data_dir,
                                                              actions_env, tmp_path):
    root, base = repo
    write_submission(root, "bad-model", "Bad Model", wtr, quality="bad", compress=False)
    head = commit_all(root, "add bad-model")
    out = tmp_path / "report"
    assert pr_check(root, base, head, out, data_dir) == 0  # valid, just not good
    (row,) = read_ci_report(out / "report.json").submissions[0].tasks
    assert row.n_competitors == 1 and row.previous_leader == "Old Model"
    assert row.tier == "below leader"
    assert row.p_adjusted is not None and row.p_adjusted < 0.05
    assert row.diff_vs_best_verified is not None and row.diff_ci_high is not None
    assert row.diff_vs_best_verified < 0
    comment = (out / "comment.md").read_text()
    assert "| below best verified |" in comment
    assert f"{row.diff_vs_best_verified * 100:+.1f}" in comment


def test_identical_rankings_tie_and_the_standing_leader_keeps_the_lead(
        repo, wtr, data_dir, actions_env, tmp_path):
    """Same per-query scores as the committed old-model. Before issue 35 the tie went to
    the smaller id and the comment announced "another-weak" as the new leader; a
    difference below the reproducibility threshold (here none at all) is a tie, and the
    standing leader keeps the lead."""
    root, base = repo
    write_submission(root, "another-weak", "Another Weak", wtr, quality="weak")
    head = commit_all(root, "add another-weak")
    out = tmp_path / "report"
    assert pr_check(root, base, head, out, data_dir) == 0
    (row,) = read_ci_report(out / "report.json").submissions[0].tasks
    assert row.previous_leader == "Old Model"
    assert row.tier == "tied with leader" and row.p_value == 1.0 and row.diff_vs_best_verified == 0.0
    assert row.note is not None and "reproducibility threshold" in row.note
    comment = (out / "comment.md").read_text()
    assert "🥇" not in comment and "tied with best verified" in comment


def test_broken_submission_gets_annotations_and_fails(repo, wtr, data_dir, actions_env,
                                                      tmp_path, capsys):
    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good", compress=False,
                              contact=False)
    altered = folder / RUNS / "altered.trec"
    lines = altered.read_text().splitlines(keepends=True)
    lines[2] = lines[2].rsplit(" ", 2)[0] + " high test\n"  # line 3: score is not a number
    altered.write_text("".join(lines))
    head = commit_all(root, "add a broken new-model")
    out = tmp_path / "report"

    assert pr_check(root, base, head, out, data_dir) == 1
    stdout = capsys.readouterr().out
    assert re.search(r"^::error file=submissions/new-model/runs/followtable/wtr/altered\.trec,"
                     r"line=3::score 'high' is not a number", stdout, re.M), stdout
    assert re.search(r"^::error file=submissions/new-model/metadata\.yaml::contact", stdout,
                     re.M), stdout
    assert "pr-check: invalid (new-model)" in stdout
    got = outputs(actions_env["output"])
    assert got["status"] == "invalid" and got["valid"] == "false"

    report = read_ci_report(out / "report.json")
    (sub,) = report.submissions
    assert not sub.valid and sub.tasks == [] and sub.n_errors >= 2
    comment = (out / "comment.md").read_text()
    assert "❌ not valid" in comment
    assert "`submissions/new-model/runs/followtable/wtr/altered.trec:3`" in comment
    assert not (out / "results").exists()


def test_pr_that_also_edits_code_or_another_submission_is_refused(repo, wtr, data_dir,
                                                                  actions_env, tmp_path,
                                                                  capsys):
    root, base = repo
    write_submission(root, "new-model", "New Model", wtr, quality="good")
    (root / "leaderboard" / "__init__.py").write_text("import os  # sneaky\n")
    meta = root / "submissions" / "old-model" / "metadata.yaml"
    meta.write_text(meta.read_text().replace("Old Model", "Renamed"))
    head = commit_all(root, "add new-model and change other things")
    out = tmp_path / "report"

    assert pr_check(root, base, head, out, data_dir) == 1
    stdout = capsys.readouterr().out
    assert re.search(r"^::error title=Refused,file=leaderboard/__init__\.py::", stdout, re.M)
    report = read_ci_report(out / "report.json")
    assert report.status == "refused" and report.submissions == []
    reasons = " ".join(report.refusals)
    assert "outside submissions/ (leaderboard/__init__.py)" in reasons
    assert "touches 2 submission folders (new-model, old-model)" in reasons
    assert outputs(actions_env["output"])["status"] == "refused"
    comment = (out / "comment.md").read_text()
    assert "⛔ refused" in comment and "separate pull request" in comment


def test_a_two_folder_refusal_points_at_the_merged_folder_not_the_new_one(
        repo, wtr, data_dir, actions_env, tmp_path, capsys):
    """A PR adding submissions/pr-model/ and deleting old-model's metadata.yaml: the
    "not allowed" annotations went to the folders after the first in name order, so the
    submitter's own new files were marked and the deletion in the merged folder was not.
    The files outside the PR's own new folder are the ones marked."""
    root, base = repo
    write_submission(root, "pr-model", "PR Model", wtr, quality="good")
    (root / "submissions" / "old-model" / "metadata.yaml").unlink()
    head = commit_all(root, "add pr-model, delete old-model's metadata")
    out = tmp_path / "report"
    assert pr_check(root, base, head, out, data_dir) == 1
    marked = re.findall(r"^::error title=Refused,file=([^:]+)::", capsys.readouterr().out, re.M)
    assert marked == ["submissions/old-model/metadata.yaml"], marked
    report = read_ci_report(out / "report.json")
    reasons = " ".join(report.refusals)
    assert "touches 2 submission folders (old-model, pr-model)" in reasons
    assert "already merged: old-model" in reasons
    # The comment job says the same from the API's list and its checkout of the base.
    files = tmp_path / "files.jsonl"
    files.write_text(json.dumps({"status": "added", "filename": "submissions/pr-model/x"})
                     + "\n" + json.dumps({"status": "removed",
                                          "filename": "submissions/old-model/metadata.yaml"}))
    base_dir = tmp_path / "base-checkout"
    git(root, "worktree", "add", "-q", str(base_dir), base)
    body = tmp_path / "comment.md"
    assert main(["ci", "comment-body", str(out / "report.json"), "--pr-files", str(files),
                 "--base-dir", str(base_dir), "--out", str(body)]) == 0
    assert "already merged: old-model" in body.read_text(), body.read_text()


@pytest.mark.parametrize(("merged", "marked"), [
    ({"b-model"}, ["submissions/b-model/y"]),
    # No single new folder the PR could own: every file of every folder.
    (set(), ["submissions/a-model/x", "submissions/b-model/y"]),
    ({"a-model", "b-model"}, ["submissions/a-model/x", "submissions/b-model/y"]),
])
def test_a_two_folder_refusal_marks_the_files_outside_the_prs_own_folder(merged, marked):
    scope = classify_changes([Change("A", "submissions/a-model/x"),
                              Change("D", "submissions/b-model/y")], merged=merged)
    assert not scope.ok and scope.refused_paths == marked


def test_a_pr_that_no_longer_changes_a_submission_says_so_for_its_head(
        repo, wtr, data_dir, actions_env, tmp_path, capsys):
    """A push that left a PR with no change under submissions/ ran no check (the
    workflow's paths filter), so the sticky comment kept saying "valid" of an earlier
    head. The check runs for every PR: one that changes no submission is "no submission
    changed" for its head, a pass, and the comment job says so (never refusing a PR that
    is no submission), or refuses a report claiming it of a PR that changes one."""
    root, base = repo
    (root / "leaderboard" / "__init__.py").write_text('"""a code change"""\n')
    head = commit_all(root, "change code only")
    out = tmp_path / "report"
    assert pr_check(root, base, head, out, data_dir) == 0
    assert "pr-check: none (no submission changed)" in capsys.readouterr().out
    report = read_ci_report(out / "report.json")
    assert report.status == "none" and not report.refusals and not report.submissions
    assert outputs(actions_env["output"])["status"] == "none"
    comment = (out / "comment.md").read_text()
    assert "FollowBoard check: ➖ no submission changed" in comment
    assert f"Head `{head[:12]}`" in comment and "earlier head" in comment

    files = tmp_path / "files.jsonl"
    body = tmp_path / "comment.md"

    def render(path: Path, *changed: str) -> str:
        files.write_text("".join(json.dumps({"status": "modified", "filename": f}) + "\n"
                                 for f in changed))
        assert main(["ci", "comment-body", str(path), "--pr-files", str(files), "--out",
                     str(body), "--pr-author", "jane", "--base-ref", "dev",
                     "--default-branch", "main"]) == 0
        return body.read_text()

    # Not a submission: not refused, into whichever branch.
    assert "➖ no submission changed" in render(out / "report.json", "leaderboard/__init__.py")
    # A report claiming "no submission" of a PR that changes one is refused.
    text = render(out / "report.json", "submissions/new-model/metadata.yaml")
    assert "⛔ refused" in text and "➖" not in text


def test_symlinks_stray_files_and_oversized_files_are_rejected_unread(
        repo, wtr, data_dir, actions_env, tmp_path, capsys, monkeypatch):
    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good")
    os.symlink("/etc/passwd", folder / RUNS / "notes.trec")
    (folder / "README.md").write_text("hello\n")
    monkeypatch.setattr(policy, "MAX_FILE_BYTES", 1000)
    monkeypatch.setattr(policy, "MAX_SUBMISSION_BYTES", 2000)
    head = commit_all(root, "add new-model with extras")
    out = tmp_path / "report"

    assert pr_check(root, base, head, out, data_dir) == 1
    report = read_ci_report(out / "report.json")
    problems = {(p.path, p.message.split(";")[0]) for p in report.submissions[0].problems}
    assert ("submissions/new-model/runs/followtable/wtr/notes.trec",
            "symbolic links are not allowed in a submission") in problems
    assert any(p == "submissions/new-model/README.md" and m.startswith("unexpected file")
               for p, m in problems)
    # The limits read in core.fileio.size_text's words ("over the 0 MiB limit" of a
    # 1,000-byte limit, before).
    assert any(p.endswith("altered.trec.gz") and "over the 1,000 bytes limit per file" in m
               for p, m in problems), problems
    assert any(p == "submissions/new-model" and m.startswith("the submission is")
               and "over the 2.0 KiB limit" in m for p, m in problems), problems
    assert report.submissions[0].tasks == []  # nothing was read, let alone scored


def test_a_name_no_file_system_holds_is_refused_unread(repo, wtr, data_dir, actions_env,
                                                     tmp_path):
    """A 300-byte file name (git holds it; Linux does not) stopped `ci pr-check` with
    "OSError: File name too long" as it wrote the files out: "the check itself failed"."""
    root, base = repo
    write_submission(root, "new-model", "New Model", wtr, quality="good")
    git(root, "add", "-A")
    blob = subprocess.run(["git", "-C", str(root), "hash-object", "-w", "--stdin"],
                          input=b"hi\n", capture_output=True, check=True).stdout.decode().strip()
    long_name = f"submissions/new-model/{RUNS}/{'a' * 300}.trec"
    git(root, "update-index", "--add", "--cacheinfo", f"100644,{blob},{long_name}")
    git(root, "commit", "-q", "-m", "add new-model with a long name")
    head = git(root, "rev-parse", "HEAD").strip()
    out = tmp_path / "report"
    assert pr_check(root, base, head, out, data_dir) == 1
    report = read_ci_report(out / "report.json")
    assert report.status == "invalid", report.status
    (problem,) = report.submissions[0].problems
    assert "path over 300 characters, or a name in it over 255 bytes" in problem.message
    assert report.submissions[0].tasks == []


def test_results_json_in_the_pr_must_be_what_the_scorer_writes(repo, wtr, pulled_data,
                                                               actions_env, tmp_path):
    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good")
    head = commit_all(root, "add new-model")
    first = tmp_path / "first"
    assert pr_check(root, base, head, first, pulled_data) == 0
    scored = (first / "results" / "new-model" / "results.json").read_bytes()

    (folder / "results.json").write_bytes(scored)
    head = commit_all(root, "add the scorer's results.json")
    out = tmp_path / "same"
    assert pr_check(root, base, head, out, pulled_data) == 0
    assert read_ci_report(out / "report.json").submissions[0].results_json == "matches"

    data = json.loads(scored)
    data["systems"][0]["tasks"][TASK]["metrics"]["IRS"] += 0.25
    (folder / "results.json").write_text(json.dumps(data))
    head = commit_all(root, "improve the score by hand")
    out = tmp_path / "edited"
    assert pr_check(root, base, head, out, pulled_data) == 1
    sub = read_ci_report(out / "report.json").submissions[0]
    assert sub.results_json == "differs"
    assert any(p.path == "submissions/new-model/results.json" for p in sub.problems)


def test_a_results_json_on_data_no_pull_verified_is_refused_here_as_in_ci(
        repo, wtr, data_dir, pulled_data, tmp_path, capsys):
    """Scored on a data folder no `leaderboard data pull` verified (a mirror copied in by
    hand: no .manifest.json), results.json records each task's data as the pinned
    revision, not verified; CI pulls its data and records the revision alone. So a local
    `ci pr-check` on the same unverified data called the carried file "matches" while CI
    refused it as not what the scorer writes, saying to run `leaderboard score`, which
    the submitter had done; and one scored on pulled data passed CI but failed a local
    check on the mirror (and `validate` on the mirror alike). A results.json that records
    unverified data is refused everywhere, saying why and what to do; a check on
    unverified data holds a carried file to what the scorer records on pulled data, and
    pr-check says it ran on such data."""
    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good")
    mirror = data_dir / get_task(TASK).source.local_dir
    # Scored on the mirror: `score` says that CI refuses what it wrote, naming the folder.
    assert main(["score", str(folder), "--data-dir", str(data_dir), "--quiet"]) == 0
    out = capsys.readouterr().out
    note = ("the pinned revision; files not verified: no .manifest.json from `leaderboard "
            "data pull`")
    assert (f"{mirror}: warning: it holds files that no `leaderboard data pull` verified, so "
            f"results.json records the data of 1 task as \"{note}\", and `ci pr-check` "
            "refuses such a results.json in a pull request") in out, out
    assert out.count("no `leaderboard data pull` verified") == 1
    head = commit_all(root, "add new-model, scored on the mirror")
    refusal = (f"results.json records the data of 1 task of followtable ({TASK}) as \"{note}\": "
               "scored on files that `leaderboard data pull followtable` did not fetch and "
               "verify, while CI scores on the data it pulls and records its revision alone, "
               "so a pull request may not carry this results.json; pull the data into a "
               "folder of your own (`leaderboard data pull followtable --data-dir DIR`) and "
               "run `leaderboard score {} --data-dir DIR` again, or delete "
               "results.json from the pull request (CI writes it after merge)")
    # `validate`, on either data, says what pr-check says.
    for data in (data_dir, pulled_data):
        capsys.readouterr()
        assert main(["validate", str(folder), "--data-dir", str(data), "--quiet"]) == 1
        assert f"new-model/results.json: {refusal.format(folder)}" in capsys.readouterr().out
    refusal = refusal.format("submissions/new-model")
    for data in (data_dir, pulled_data):  # here, on the mirror, and as CI, on pulled data
        capsys.readouterr()
        assert pr_check(root, base, head, tmp_path / "mirror", data) == 1
        (sub,) = read_ci_report(tmp_path / "mirror" / "report.json").submissions
        assert sub.results_json == "differs"
        assert [p.message for p in sub.problems if p.severity == "error"] == [refusal]
    # Scored on pulled data: CI accepts it, and so does a check on the mirror, which says
    # that it ran on data no pull verified.
    capsys.readouterr()
    assert main(["score", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert "verified" not in capsys.readouterr().out
    head = commit_all(root, "new-model scored on pulled data")
    for data, warned in ((pulled_data, False), (data_dir, True)):
        assert main(["validate", str(folder), "--data-dir", str(data), "--quiet"]) == 0
        capsys.readouterr()
        assert pr_check(root, base, head, tmp_path / "pulled", data) == 0
        (sub,) = read_ci_report(tmp_path / "pulled" / "report.json").submissions
        assert sub.valid and sub.results_json == "matches"
        warnings = [p.message for p in sub.problems if p.severity == "warning"]
        assert warnings == ([f"the check ran on data that no `leaderboard data pull` verified "
                             f"({mirror}), while CI scores on the data it pulls; the "
                             "results.json the pull request carries is held to what the "
                             "scorer records on pulled data, as CI holds it (with no note "
                             "that the files were not verified)"] if warned else [])
    # Set aside are those notes alone: a score edited by hand still differs.
    edited = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    edited["systems"][0]["tasks"][TASK]["metrics"]["IRS"] += 0.25
    (folder / "results.json").write_text(json.dumps(edited, indent=1, sort_keys=True) + "\n")
    head = commit_all(root, "improve the score by hand")
    assert pr_check(root, base, head, tmp_path / "edited", data_dir) == 1
    (sub,) = read_ci_report(tmp_path / "edited" / "report.json").submissions
    assert sub.results_json == "differs"


def test_a_per_query_file_that_inflates_without_end_is_compared_within_bounds(tmp_path):
    """A per-query.json.gz the PR carries is compared with the scorer's content: it was
    inflated whole first, so 1 MiB of gzip (64 members of 16 MiB of zeros) held 2.3 GB
    and one at the 25 MiB file limit, about 25 GiB, killed the check's runner. It is
    inflated no further than the scorer's content and one byte, and differs."""
    from leaderboard.app.ci.pr_check import _check_results_json
    from leaderboard.core.report import Report

    member = gzip.compress(b"\0" * (16 << 20), compresslevel=9)
    expected = b'{"per-query": {}}'
    right = gzip.compress(expected)
    for blob, state in [(member * 16, "differs"), (right + member * 4, "differs"),
                        (right, "matches"), (b"not gzip", "differs")]:
        path = "submissions/s/per-query.json.gz"
        where = tmp_path / f"{state}-{len(blob)}"
        where.mkdir()
        repo, head = _blob_repo(where, {path: blob})
        entries = tree_entries(repo, head, "submissions/s")
        report = Report()
        tracemalloc.start()
        try:
            found = _check_results_json(entries, [path], "s", ("{}", expected), report, repo)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert found == state
        assert peak < 8 * 1024 * 1024, f"comparing held {peak / 2**20:.1f} MiB"


def test_score_pending_writes_results_of_merged_submissions(repo, wtr, data_dir, tmp_path,
                                                            capsys):
    root, base = repo
    write_submission(root, "new-model", "New Model", wtr, quality="good")
    head = commit_all(root, "merge new-model")
    old_results = (root / "submissions" / "old-model" / "results.json").read_bytes()
    assert main(["ci", "score-pending", "--repo", str(root), "--before", base, "--after", head,
                 "--data-dir", str(data_dir), "--quiet"]) == 0
    assert "new-model: scored" in capsys.readouterr().out
    assert read_results(root / "submissions" / "new-model" / "results.json").systems[0] \
        .tasks[TASK].metrics["IRS"] > 0
    assert (root / "submissions" / "old-model" / "results.json").read_bytes() == old_results
    # The scorer's files of the new submission, and nothing else.
    assert git(root, "status", "--porcelain", "--untracked-files=normal").splitlines() == [
        f"?? submissions/new-model/{name}"
        for name in ("explain/", "manifest.txt", "per-query.json.gz", "results.json")]


@pytest.mark.parametrize("extra", [["--all"], []])
def test_score_pending_outside_the_repository_is_refused(extra, tmp_path, capsys):
    """`ci score-pending --all` run outside the repository said "no submission needs
    scoring" and exited 0, as `build` and `export` once made an empty leaderboard: a
    root without submissions/ is named and refused."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = main(["ci", "score-pending", "--repo", str(elsewhere), *extra, "--quiet"])
    captured = capsys.readouterr()
    assert code == 1
    assert f"{elsewhere}: holds no submissions/ folder" in captured.err
    assert "--repo" in captured.err
    assert "no submission needs scoring" not in captured.out
    assert list(elsewhere.iterdir()) == []


def _passes_pr_check(root: Path, base: str, head: str, out: Path, data_dir: Path,
                     capsys: pytest.CaptureFixture[str]) -> None:
    """The pull request base..head passes `ci pr-check`: one valid submission whose
    results.json is the one the check computes."""
    capsys.readouterr()
    assert pr_check(root, base, head, out, data_dir) == 0, capsys.readouterr().out
    (sub,) = read_ci_report(out / "report.json").submissions
    assert sub.valid and sub.results_json == "matches"


def test_a_folder_scored_by_leaderboard_score_is_accepted_as_committed(repo, wtr, pulled_data,
                                                                        tmp_path, capsys):
    """The guide's steps 4 and 5: score the folder locally, commit it as it is. Scoring
    used to write explain/ into it, which `validate` accepted and pr-check refused (issue
    34, finding 4); the explorer's files are CI's, written after the merge."""
    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good")
    assert main(["score", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert main(["validate", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == [
        "manifest.txt", "metadata.yaml", "per-query.json.gz", "results.json", "runs"]
    head = commit_all(root, "add new-model, scored")
    _passes_pr_check(root, base, head, tmp_path / "report", pulled_data, capsys)
    # Publishing then writes the explorer's files into the merged folder.
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--ff-only", head)
    assert main(["ci", "score-pending", "--repo", str(root), "--before", base, "--after",
                 head, "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert (folder / "explain" / "manifest.json").is_file()
    assert git(root, "status", "--porcelain").splitlines() == ["?? submissions/new-model/explain/"]


def test_a_merged_folder_copied_under_a_new_id_is_scored_into_one_ci_accepts(
        repo, wtr, pulled_data, tmp_path, capsys):
    """A submitter copies a merged submission's folder (explain/ and all, as CI committed
    it) outside the repository, sets its id, scores it, validates it and commits it: the
    explorer's files it copied are another submission's, which the pull request would add
    (pr-check refused '61 files under explain/ changed' after validate said valid).
    `score` removes them with the rest of its change; a stray file under explain/ of the
    submission's own (a .DS_Store) goes too, and validate says what pr-check would."""
    root, base = repo
    folder = tmp_path / "mine" / "my-copy"
    shutil.copytree(root / "submissions" / "old-model", folder)
    assert (folder / "explain" / "manifest.json").is_file()
    meta = folder / "metadata.yaml"
    meta.write_text(meta.read_text(encoding="utf-8").replace("id: old-model", "id: my-copy"),
                    encoding="utf-8")
    capsys.readouterr()
    assert main(["validate", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert ("my-copy/explain: " in out and "its manifest.json is old-model's" in out
            and layout.CI_FILES in out
            and f"`leaderboard score {folder} --data-dir {pulled_data}` removes them" in out), out
    assert main(["score", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert not (folder / "explain").exists()
    assert main(["validate", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    shutil.copytree(folder, root / "submissions" / "my-copy")
    head = commit_all(root, "add my-copy")
    _passes_pr_check(root, base, head, tmp_path / "report", pulled_data, capsys)
    # The merged submission's own explain/, with a file no scoring wrote: the update
    # removes that file and keeps CI's, as the base has them.
    merged = root / "submissions" / "old-model"
    (merged / "explain" / ".DS_Store").write_bytes(b"\0Bud1")
    assert main(["validate", str(merged), "--data-dir", str(pulled_data), "--quiet"]) == 1
    assert "not listed in its manifest.json (explain/.DS_Store)" in capsys.readouterr().out
    assert main(["score", str(merged), "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert not (merged / "explain" / ".DS_Store").exists()
    assert git(root, "status", "--porcelain", "submissions/old-model") == ""
    # A file CI wrote, edited or deleted: no scoring puts it back, and both say so.
    queries = merged / "explain" / "followtable" / "wtr.queries.json.gz"
    queries.write_bytes(gzip.compress(b"{}"))
    (merged / "explain" / "followtable" / "wtr.cards.0.json.gz").unlink()
    for command in ("validate", "score"):
        assert main([command, str(merged), "--data-dir", str(pulled_data), "--quiet"]) == 1
        out = capsys.readouterr().out
        assert ("old-model/explain/followtable/wtr.queries.json.gz: not the file "
                "explain/manifest.json lists (" in out and "put back the file CI wrote" in out
                and "old-model/explain/followtable/wtr.cards.0.json.gz: deleted, while "
                "explain/manifest.json lists it" in out), out


def test_a_run_edited_after_scoring_is_told_to_score_the_repositorys_folder(
        repo, wtr, data_dir, tmp_path, capsys):
    """The check reads a work copy of the pull request's folder; the step it gives for a
    run that differs from its manifest line names the folder in the repository, not that
    copy, and no data folder: CI's is the runner's, not the reader's."""
    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good")
    assert main(["score", str(folder), "--data-dir", str(data_dir), "--quiet"]) == 0
    for name in ("results.json", "per-query.json.gz"):
        (folder / name).unlink()
    write_submission(root, "new-model", "New Model", wtr, quality="weak")  # other runs
    head = commit_all(root, "add new-model, runs edited after scoring")
    capsys.readouterr()
    assert pr_check(root, base, head, tmp_path / "report", data_dir) == 1
    out = capsys.readouterr().out
    assert (f"submissions/new-model/{RUNS}/original.trec.gz: this file (" in out and
            "run `leaderboard score submissions/new-model` to record it\n" in out), out


# --------------------------------------------------------------------------- units

@pytest.mark.parametrize(("paths", "expected"), [
    (["submissions/a-model/metadata.yaml"], None),
    (["submissions/a-model/runs/x", ".github/workflows/pr.yml"], "outside submissions/"),
    (["submissions/README.md"], "directly under submissions/"),
    (["submissions/a-model/x", "submissions/b-model/y"], "touches 2 submission folders"),
    (["submissions/Bad Name/metadata.yaml"], "not valid ids"),
    (["results/reported/paper.json"], "outside submissions/"),
])
def test_pr_scope_rules(paths, expected):
    scope = classify_changes([Change("A", p) for p in paths])
    if expected is None:
        assert scope.ok and scope.submission_ids == ["a-model"]
    else:
        assert not scope.ok and expected in " ".join(scope.refusals)


def _report(**overrides) -> CiReport:
    base = dict(status="invalid", pr_number=3, base_sha="a" * 40, head_sha="b" * 40,
                merge_base="c" * 40, scorer="followboard test")
    base.update(overrides)
    return CiReport(**base)


def test_comment_escapes_untrusted_text():
    nasty = "<img src=x onerror=alert(1)> @everyone [click](https://evil.example) | x"
    sub = SubmissionCheck(id="new-model", model_name=nasty, valid=False, n_errors=1,
                          n_warnings=0, problems=[Problem(path="submissions/new-model/x`y",
                                                          line=2, message=nasty)])
    text = comment_body(_report(submissions=[sub]))
    assert "<img" not in text and "&lt;img" in text
    assert "@everyone" not in text and "@\u200beveryone" in text
    assert "](https://evil" not in text
    assert md("a|b") == "a\\|b"


def test_comment_stays_under_githubs_limit_and_says_it_was_cut():
    long = "x" * 1900
    problems = [Problem(path=f"submissions/new-model/runs/pi-indic-val150/t2/hin-ben/run{i}.trec",
                        line=i + 1, message=long) for i in range(200)]
    tasks = [TaskStanding(task=f"pi-indic-val150/t2/{i}", primary_metric="RR@10", primary=0.5,
                          headline_metric="R@1", headline=0.4, note=long)
             for i in range(3000)]
    sub = SubmissionCheck(id="new-model", model_name="M", valid=False, n_errors=5000,
                          n_warnings=0, problems=problems, tasks=tasks)
    text = comment_body(_report(submissions=[sub]))
    assert len(text) <= 65_536
    assert text.startswith(COMMENT_MARKER)
    assert "more tasks" in text or "truncated" in text


@pytest.mark.parametrize("change", [
    {"pr_number": "7"}, {"pr_number": 7.0}, {"pr_number": True}, {"pr_number": -1},
    {"head_sha": "HEAD"}, {"unexpected": 1}, {"status": "great"},
])
def test_report_from_an_artifact_is_validated_strictly(tmp_path, change):
    good = _report().model_dump(mode="json")
    path = tmp_path / "report.json"
    path.write_text(json.dumps({**good, **change}))
    with pytest.raises(CiReportError, match="not a FollowBoard CI report"):
        read_ci_report(path)
    path.write_text(json.dumps(good))
    assert read_ci_report(path).pr_number == 3


def runner_commands(text: str) -> list[str]:
    """The lines of one stream of a step's output that the GitHub Actions runner runs as
    workflow commands: `::name::` at a line's start after spaces (TryParseV2), or `##[`
    anywhere in it (TryParse, the old form); none between `::stop-commands::TOKEN` and
    `::TOKEN::`, nor those two. A line ends at CR, LF or CRLF (.NET's ReadLine)."""
    found: list[str] = []
    token = None
    for line in re.split(r"\r\n|\r|\n", text):
        if not (line.lstrip().startswith("::") or "##[" in line):
            continue
        if token is not None:
            if line.strip() in (f"::{token}::", f"##[{token}]"):
                token = None
            continue
        stop = re.fullmatch(r"\s*::stop-commands\s*::(\S+)", line)
        if stop:
            token = stop.group(1)
            continue
        found.append(line)
    return found


def test_a_forged_reports_keys_cannot_print_workflow_commands(tmp_path, monkeypatch, capsys):
    """The comment job (trusted code, a token that writes to the PR) printed a forged
    artifact's unknown key as it was: a key holding line ends put `::error` and
    `::add-mask::` lines of the stranger's choosing into its log, where the runner runs
    them, and a terminal escape reached a maintainer's terminal. A key that is not plain
    text is quoted with its escapes, so the message stays one line; and as the runner
    takes `##[add-mask]` or `##[error]` anywhere in a line as a command too, the message
    is printed with workflow commands stopped."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    evil = ("x\n::error title=Approved::merge me\n::add-mask::FollowBoard\n\x1b[2J "
            "##[add-mask]not commenting ##[error title=Approved]merge me")
    path = tmp_path / "report.json"
    path.write_text(json.dumps({**_report().model_dump(mode="json"), evil: 1}))
    assert main(["ci", "comment-body", str(path), "--pr-author", "jane"]) == 1
    captured = capsys.readouterr()
    assert runner_commands(captured.out) == [] and runner_commands(captured.err) == []
    said = [line for line in captured.err.splitlines() if not line.startswith("::")]
    assert len(said) == 1 and "\x1b" not in captured.err, captured.err
    assert "not a FollowBoard CI report: 'x\\n::error title=Approved::merge me" in said[0]


@pytest.mark.parametrize("change", [
    {"primary_metric": "bogus"}, {"headline_metric": "nDCG@10@5"}, {"p_floor": "Infinity"},
    {"primary": "NaN"},
])
def test_a_standing_the_check_cannot_write_is_no_report(tmp_path, change):
    """A standing with a metric the catalogue does not know, or an infinite p_floor,
    passed the report's validation and stopped the comment job with an internal error
    (UnknownMeasureError, a ValueError in floor_text)."""
    standing = {"task": "followtable/wtr", "primary_metric": "IRS", "primary": 0.1,
                "headline_metric": "p-MRR", "headline": 0.2, "p_floor": 1e-5}
    sub = SubmissionCheck(id="new-model", model_name="M", valid=True, n_errors=0,
                          n_warnings=0, tasks=[TaskStanding(**standing)])
    good = json.loads(_report(status="valid", submissions=[sub]).model_dump_json())
    good["submissions"][0]["tasks"][0].update(change)
    path = tmp_path / "report.json"
    path.write_text(json.dumps(good).replace('"Infinity"', "Infinity").replace('"NaN"', "NaN"))
    with pytest.raises(CiReportError, match="not a FollowBoard CI report"):
        read_ci_report(path)


def _standing_pair(task_id: str, metric: str) -> TaskStanding:
    """A new system below a committed one on ``task_id``'s ``metric`` over 20 topics: most
    topics a little worse, three far better, so that the mean and the typical shift
    differ."""
    from leaderboard.app.ci.standing import CommittedResults, standing

    def system(name: str, values: np.ndarray) -> SystemResult:
        per_query = {f"{300 + i}": float(v) for i, v in enumerate(values)}
        return SystemResult(system_id=name, model=ModelInfo(name=name), provenance="verified",
                            source=Source(kind="scored"), tasks={task_id: TaskScores(
                                metrics={metric: float(np.mean(values))},
                                per_query={metric: per_query})})

    d = np.r_[-0.02 - np.linspace(0, 0.01, 17), [0.9, 0.9, 0.9]] - 0.2
    old = system("old", np.full(20, 0.3))
    return standing(get_task(task_id), system("new", 0.3 + d),
                    CommittedResults(verified={"old": old}))


def test_a_standing_names_its_statistics_as_the_downloads_do(tmp_path):
    """The CI report kept effect, estimate, ci_low and ci_high: the mean difference's
    interval on a randomization-tested task, the Hodges-Lehmann shift and its interval on
    a Wilcoxon-tested one (p-MRR), nothing but test saying which, and raw p-values, where
    the site's downloads give each statistic a field of its own and p-values raised to
    the floor. A standing has the downloads' fields, from the same rule (a version 2
    report), and the comment puts each interval beside the figure it bounds."""
    from leaderboard.publish.standings.verdicts import STATISTIC_FIELDS

    pmrr = _standing_pair("followir/core17", "p-MRR")
    irs = _standing_pair("followtable/wtr", "IRS")
    for row in (pmrr, irs):
        assert set(STATISTIC_FIELDS) | {"diff_vs_best_verified"} <= set(TaskStanding.model_fields)
        assert row.tier != "leader" and row.p_value is not None
        assert row.p_value >= row.p_floor and row.p_adjusted >= row.p_floor
    assert pmrr.test == "wilcoxon" and pmrr.diff_ci_low is None and pmrr.diff_ci_high is None
    assert pmrr.hl_ci_low <= pmrr.hl_shift <= pmrr.hl_ci_high
    assert pmrr.hl_shift < pmrr.diff_vs_best_verified  # the shift is not the mean
    assert irs.test == "randomization" and irs.hl_shift is None and irs.hl_ci_low is None
    assert irs.diff_ci_low <= irs.diff_vs_best_verified <= irs.diff_ci_high
    report = _report(status="valid", submissions=[SubmissionCheck(
        id="new", valid=True, n_errors=0, n_warnings=0, tasks=[pmrr, irs])])
    path = tmp_path / "report.json"
    path.write_text(report.model_dump_json())
    assert json.loads(path.read_text())["schema_version"] == 3
    assert read_ci_report(path) == report
    body = comment_body(report)
    t = lambda v: f"{v * 100:+.1f}"  # noqa: E731
    assert (f"{t(pmrr.diff_vs_best_verified)}; shift {t(pmrr.hl_shift)} "
            f"[{t(pmrr.hl_ci_low)}, {t(pmrr.hl_ci_high)}]; d = ") in body
    assert (f"{t(irs.diff_vs_best_verified)} [{t(irs.diff_ci_low)}, {t(irs.diff_ci_high)}]; "
            "d = ") in body


def test_the_comment_prints_p_values_as_every_surface_prints_them():
    """The comment printed three decimals ("<0.001", "0.049") where the site printed two
    significant digits and "< 1e-5", and compare "<0.0001": its p (Holm) is core/display's
    p_text, a value at or below the test's floor "≤" that floor."""
    irs = _standing_pair("followtable/wtr", "IRS")
    for p_adjusted, text in ((3.0517578125e-05, "3.1e-5"), (irs.p_floor, "≤ 2e-6"),
                             (0.0494537, "0.049"), (0.36246, "0.36")):
        row = irs.model_copy(update={"p_adjusted": p_adjusted})
        body = comment_body(_report(status="valid", submissions=[SubmissionCheck(
            id="new", valid=True, n_errors=0, n_warnings=0, tasks=[row])]))
        assert f"| tied with best verified | {text} | {row.diff_vs_best_verified * 100:+.1f} [" \
            in body, body


def test_the_comment_prints_an_adjusted_p_that_rests_on_the_floor_as_a_bound():
    """A raw p at its floor printed "≤ 1e-5" on the site and compare, but the adjusted p
    Holm made of it as a number ("2.3e-5"); the comment printed that number as exact. One
    the report says is an upper bound (p_adjusted_bound) prints "≤", as its raw p does."""
    irs = _standing_pair("followtable/wtr", "IRS")
    for bound, text in ((True, "≤ 3e-5"), (False, "3e-5"), (None, "3e-5")):
        row = irs.model_copy(update={"p_adjusted": 3e-5, "p_adjusted_bound": bound})
        body = comment_body(_report(status="valid", submissions=[SubmissionCheck(
            id="new", valid=True, n_errors=0, n_warnings=0, tasks=[row])]))
        assert f"| tied with best verified | {text} | " in body, body
        assert "an adjusted p that rests on one shows as ≤ its value" in body


def test_a_report_of_schema_version_1_is_still_read(tmp_path, capsys):
    """The comment job runs the default branch's code on the report the pull request's
    own check wrote, which may be a version behind: a version 1 report (effect, estimate,
    ci_low, ci_high, raw p-values) is read in the current fields, and commented as a
    version 2 report of the same standings is; its old fields stay refused in a version 2
    report, and an unknown one in a version 1 report."""
    pmrr = _standing_pair("followir/core17", "p-MRR")
    irs = _standing_pair("followtable/wtr", "IRS")
    v3 = _report(status="valid", submissions=[SubmissionCheck(
        id="new", valid=True, n_errors=0, n_warnings=0, tasks=[pmrr, irs])])
    old = json.loads(v3.model_dump_json())
    old["schema_version"] = 1
    for task, row in zip(old["submissions"][0]["tasks"], (pmrr, irs)):
        del task["p_adjusted_bound"]
        for key in ("diff_vs_best_verified", "diff_ci_low", "diff_ci_high", "hl_shift",
                    "hl_ci_low", "hl_ci_high"):
            del task[key]
        wilcoxon = row.test == "wilcoxon"
        task.update(effect=row.diff_vs_best_verified,
                    estimate=row.hl_shift if wilcoxon else row.diff_vs_best_verified,
                    ci_low=row.hl_ci_low if wilcoxon else row.diff_ci_low,
                    ci_high=row.hl_ci_high if wilcoxon else row.diff_ci_high)
    # version 1 held raw p-values: one below the floor is raised to it on reading
    old["submissions"][0]["tasks"][1]["p_value"] = row.p_floor / 10
    path = tmp_path / "report.json"
    path.write_text(json.dumps(old))
    read = read_ci_report(path)
    assert read.schema_version == 3
    (got_pmrr, got_irs) = read.submissions[0].tasks
    # version 1 did not say whether an adjusted p is a bound: one whose raw p is at its
    # floor is (the raw ones Holm took before it were there too), else it is not known
    assert got_pmrr == pmrr.model_copy(update={"p_adjusted_bound": None})
    assert got_irs == irs.model_copy(update={"p_value": irs.p_floor, "p_adjusted_bound": True})
    body = tmp_path / "body.md"
    assert main(["ci", "comment-body", str(path), "--out", str(body)]) == 0
    assert body.read_text() == comment_body(read)
    for bad, key in ((json.loads(v3.model_dump_json()), "estimate"), (old, "hl_shift")):
        bad["submissions"][0]["tasks"][0][key] = 0.1
        path.write_text(json.dumps(bad))
        with pytest.raises(CiReportError, match=f"not a FollowBoard CI report: "
                                                f"submissions.0.tasks.0.{key}: Extra inputs"):
            read_ci_report(path)


def test_a_report_of_schema_version_2_is_still_read(tmp_path):
    """A version 2 report had no p_adjusted_bound: it is read as version 3, a row whose raw
    p is at its floor with its adjusted p a bound (None, not known, for the others), and
    p_adjusted_bound stays refused in a version 2 report; a report newer than this
    checkout reads is refused, naming the version."""
    irs = _standing_pair("followtable/wtr", "IRS")
    floored = irs.model_copy(update={"p_value": irs.p_floor})
    v3 = _report(status="valid", submissions=[SubmissionCheck(
        id="new", valid=True, n_errors=0, n_warnings=0, tasks=[irs, floored])])
    old = json.loads(v3.model_dump_json())
    old["schema_version"] = 2
    for task in old["submissions"][0]["tasks"]:
        del task["p_adjusted_bound"]
    path = tmp_path / "report.json"
    path.write_text(json.dumps(old))
    read = read_ci_report(path)
    assert read.schema_version == 3
    assert [t.p_adjusted_bound for t in read.submissions[0].tasks] == [None, True]
    old["submissions"][0]["tasks"][0]["p_adjusted_bound"] = False
    path.write_text(json.dumps(old))
    with pytest.raises(CiReportError, match="p_adjusted_bound: not a field of a version 2"):
        read_ci_report(path)
    newer = json.loads(v3.model_dump_json()) | {"schema_version": 4}
    path.write_text(json.dumps(newer))
    with pytest.raises(CiReportError,
                       match=r"schema_version 4 is newer .* \(schema_version 3\)"):
        read_ci_report(path)


def test_comment_job_rechecks_the_pr_scope_from_the_api_file_list(tmp_path: Path, capsys):
    sub = SubmissionCheck(id="new-model", model_name="New Model", valid=True, n_errors=0,
                          n_warnings=0)
    report_path = tmp_path / "report.json"
    report_path.write_text(_report(status="valid", submissions=[sub]).model_dump_json())
    files = tmp_path / "files.jsonl"

    def body(*lines: dict) -> str:
        files.write_text("".join(json.dumps(line) + "\n" for line in lines))
        out = tmp_path / "comment.md"
        assert main(["ci", "comment-body", str(report_path), "--pr-files", str(files),
                     "--out", str(out)]) == 0
        return out.read_text()

    honest = body({"status": "added", "filename": "submissions/new-model/metadata.yaml"},
                  {"status": "added", "filename": "submissions/new-model/runs/x/original.trec"})
    assert "✅ valid and scored" in honest
    # A PR whose own (edited) workflow claimed "valid" is refused by the trusted job.
    sneaky = body({"status": "added", "filename": "submissions/new-model/metadata.yaml"},
                  {"status": "modified", "filename": ".github/workflows/pr-validate.yml"})
    assert "⛔ refused" in sneaky and "✅" not in sneaky
    assert ".github/workflows/pr-validate.yml" in sneaky
    moved = body({"status": "renamed", "filename": "submissions/new-model/runs/a.trec",
                  "previous_filename": "submissions/old-model/runs/a.trec"})
    assert "touches 2 submission folders" in moved
    other = body({"status": "added", "filename": "submissions/other-model/metadata.yaml"})
    assert "⛔ refused" in other and "report is about new-model" in other
    files.write_text('{"status": "exploded", "filename": "x"}\n')
    assert main(["ci", "comment-body", str(report_path), "--pr-files", str(files)]) == 1
    assert "unexpected status 'exploded'" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the test forks")
def test_comment_body_killed_while_writing_leaves_the_previous_comment(tmp_path: Path) -> None:
    """`ci comment-body --out` wrote its file in place (Path.write_text): killed halfway,
    it left the first part of a comment where the whole previous one had been. It is
    written beside it and renamed over it, as every other file the CI steps write."""
    import resource
    import signal

    sub = SubmissionCheck(id="new-model", model_name="New Model", valid=True, n_errors=0,
                          n_warnings=0)
    report_path = tmp_path / "report.json"
    report_path.write_text(_report(status="valid", submissions=[sub]).model_dump_json())
    out = tmp_path / "comment.md"
    argv = ["ci", "comment-body", str(report_path), "--out", str(out)]
    assert main(argv) == 0
    previous = out.read_text()
    assert len(previous.encode()) > 200
    pid = os.fork()
    if pid == 0:  # the child: killed (SIGXFSZ) once it has written 100 bytes of a file
        try:
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it
            resource.setrlimit(resource.RLIMIT_FSIZE, (100, resource.RLIM_INFINITY))
            main(argv)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXFSZ
    assert out.read_text() == previous
    assert main(argv) == 0 and out.read_text() == previous
    assert sorted(p.name for p in tmp_path.iterdir()) == ["comment.md", "report.json"]


def test_log_cannot_smuggle_workflow_commands(monkeypatch, capsys):
    from leaderboard.app.ci.pr_check import emit_annotations, print_log

    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    evil = "bad line\n::add-mask::x\n::error file=README.md::fake"
    sub = SubmissionCheck(id="new-model", valid=False, n_errors=1, n_warnings=0,
                          problems=[Problem(path="submissions/new-model/runs/a.trec", line=4,
                                            message=evil)])
    report = _report(submissions=[sub])
    print_log(report)
    emit_annotations(report)
    lines = capsys.readouterr().out.splitlines()
    stop = next(i for i, line in enumerate(lines) if line.startswith("::stop-commands"))
    token = lines[stop].split("::")[2]
    resume = lines.index(f"::{token}::")
    outside = lines[:stop] + lines[resume + 1:]
    assert not any(line.startswith(("::add-mask", "::error file=README.md")) for line in outside)
    # The annotation itself carries the text escaped onto one line.
    assert ("::error file=submissions/new-model/runs/a.trec,line=4::bad line%0A::add-mask::x"
            "%0A::error file=README.md::fake") in outside


def test_the_log_signs_the_measures_the_comment_signs(monkeypatch, capsys):
    """The job log printed `IRS 3.6` where the comment beside it printed +3.6: p-MRR and
    IRS carry their sign in every place a score is shown, the log included."""
    from leaderboard.app.ci.pr_check import print_log

    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    tasks = [TaskStanding(task="followtable/wtr", primary_metric="IRS", primary=0.0359,
                          headline_metric="IRS", tier="tied with leader"),
             TaskStanding(task="pi-indic-val150/t1/hin", primary_metric="RR@10",
                          primary=0.5, headline_metric="RR@10", tier="leader")]
    sub = SubmissionCheck(id="new-model", valid=True, n_errors=0, n_warnings=0, tasks=tasks)
    print_log(_report(status="valid", submissions=[sub]))
    out = capsys.readouterr().out
    assert "new-model followtable/wtr: IRS +3.6, tied with best verified" in out
    assert "new-model pi-indic-val150/t1/hin: RR@10 50.0, best verified" in out



def test_the_comment_and_log_name_the_tiers_as_the_site_does(monkeypatch, capsys):
    """The PR comment and the job log printed 'tied with leader' / 'below leader' where the
    site and its downloads say 'tied with best verified' / 'below best verified', for the
    same comparison (the task's best verified row, by the site's own rank_systems): both
    read the site's words from verdicts.TIER_TEXT."""
    from leaderboard.app.ci.pr_check import print_log
    from leaderboard.publish.standings.verdicts import TIER_TEXT

    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    tiers = ["leader", "tied with leader", "below leader"]
    tasks = [TaskStanding(task=f"followtable/{t}", primary_metric="IRS", primary=0.01,
                          headline_metric="IRS", tier=tier)
             for t, tier in zip(("wqt", "wtr", "tarx"), tiers)]
    sub = SubmissionCheck(id="new-model", valid=True, n_errors=0, n_warnings=0, tasks=tasks)
    comment = comment_body(_report(status="valid", submissions=[sub]))
    print_log(_report(status="valid", submissions=[sub]))
    log = capsys.readouterr().out
    assert [TIER_TEXT[t] for t in tiers] == ["best verified", "tied with best verified",
                                             "below best verified"]
    assert "| 🥇 best verified |" in comment
    assert "| tied with best verified |" in comment and "| below best verified |" in comment
    assert "Δ vs best verified" in comment
    for t in tasks:
        assert f"{t.task}: IRS +1.0, {TIER_TEXT[t.tier]}" in log
    assert " leader |" not in comment and "vs leader" not in comment
    assert ", below leader" not in log and ", tied with leader" not in log

# --------------------------------------------------------------------------- audit-settings

API_FIXTURE = Path(__file__).parent / "fixtures" / "github_api" / "secure.json"
REPO_SLUG = "fb-org/followboard"


def recorded_api() -> dict:
    answers = json.loads(API_FIXTURE.read_text())
    answers.pop("_comment")
    return answers


def replay(answers: dict):
    from leaderboard.app.ci.audit import ApiError

    def fetch(path: str):
        if path not in answers:
            raise ApiError(path, 404, "Not Found")
        return json.loads(json.dumps(answers[path]))
    return fetch


def test_audit_passes_on_the_settings_the_maintainers_doc_requires():
    from leaderboard.app.ci.audit import audit_settings

    audit = audit_settings(REPO_SLUG, replay(recorded_api()))
    assert audit.ok, "\n".join(audit.lines())
    names = " ".join(c.name for c in audit.checks)
    for needed in ("restricted to fb-org/followboard/.github/workflows/baselines.yml@refs/heads/"
                   "main", "ephemeral", "approval for fork PRs", "read-only",
                   "repository-level", "for this repository only",
                   "environment 'run-store' deploys from main only",
                   "environment 'run-store' holds HF_TOKEN",
                   "HF_TOKEN is no repository or organization secret"):
        assert needed in names


GROUPS = "/orgs/fb-org/actions/runner-groups"
GPU_RUNNERS = "/orgs/fb-org/actions/runner-groups/2/runners"
GROUP_REPOS = "/orgs/fb-org/actions/runner-groups/2/repositories"


def _gpu_group(answers: dict) -> dict:
    return answers[GROUPS]["runner_groups"][1]


RUN_STORE = "/repos/fb-org/followboard/environments/run-store"


@pytest.mark.parametrize(("case", "edit", "failed"), [
    ("not restricted to workflows", lambda a: _gpu_group(a).update(restricted_to_workflows=False),
     "is restricted to"),
    ("any branch of baselines.yml", lambda a: _gpu_group(a).update(selected_workflows=[
        "fb-org/followboard/.github/workflows/baselines.yml@refs/heads/*"]), "is restricted to"),
    ("a second workflow allowed", lambda a: _gpu_group(a)["selected_workflows"].append(
        "fb-org/followboard/.github/workflows/tests.yml@refs/heads/main"), "is restricted to"),
    ("every repository", lambda a: _gpu_group(a).update(visibility="all"),
     "for this repository only"),
    # Selected repositories, but another one among them: its workflows (a fork PR's
    # included) may use the group's runners, whatever baselines.yml does here.
    ("another repository selected", lambda a: a[GROUP_REPOS]["repositories"].append(
        {"id": 7, "name": "scratch", "full_name": "fb-org/scratch", "private": False}),
     "for this repository only"),
    ("only another repository", lambda a: a[GROUP_REPOS].update(repositories=[
        {"id": 7, "name": "scratch", "full_name": "fb-org/scratch", "private": False}]),
     "for this repository only"),
    ("unreadable repository list", lambda a: a.pop(GROUP_REPOS), "for this repository only"),
    ("public repos not allowed", lambda a: _gpu_group(a).update(allows_public_repositories=False),
     "can serve this public repository"),
    ("a persistent runner", lambda a: a[GPU_RUNNERS]["runners"][1].update(ephemeral=False),
     "ephemeral"),
    ("a repository runner", lambda a: a["/repos/fb-org/followboard/actions/runners"].update(
        runners=[{"id": 3, "name": "old-gpu", "ephemeral": True,
                  "labels": [{"name": "self-hosted"}, {"name": "gpu"}]}]), "repository-level"),
    ("an open group", lambda a: a[GROUPS]["runner_groups"][0].update(
        allows_public_repositories=True), "not open to public repositories"),
    ("no GPU group", lambda a: a[GPU_RUNNERS].update(runners=[]), "GPU runner group"),
    ("first-time contributors only", lambda a: a[
        "/repos/fb-org/followboard/actions/permissions/fork-pr-contributor-approval"].update(
        approval_policy="first_time_contributors"), "approval for fork PRs"),
    ("write token by default", lambda a: a[
        "/repos/fb-org/followboard/actions/permissions/workflow"].update(
        default_workflow_permissions="write"), "read-only"),
    ("token approves PRs", lambda a: a[
        "/repos/fb-org/followboard/actions/permissions/workflow"].update(
        can_approve_pull_request_reviews=True), "cannot approve"),
    ("a user's repository", lambda a: a["/repos/fb-org/followboard"]["owner"].update(type="User"),
     "GPU runner group"),
    ("unreadable approval policy", lambda a: a.pop(
        "/repos/fb-org/followboard/actions/permissions/fork-pr-contributor-approval"),
     "approval for fork PRs"),
    # The Hub's write token (publish.yml's store and dataset jobs, baselines.yml's store
    # job): a job naming an environment that does not exist creates it, unprotected.
    ("no run-store environment", lambda a: [a.pop(k) for k in list(a)
                                            if k.startswith(RUN_STORE)], "deploys from main"),
    ("every branch deploys", lambda a: a[RUN_STORE].update(deployment_branch_policy=None),
     "deploys from main"),
    ("protected branches deploy", lambda a: a[RUN_STORE].update(deployment_branch_policy={
        "protected_branches": True, "custom_branch_policies": False}), "deploys from main"),
    ("another branch allowed", lambda a: a[RUN_STORE + "/deployment-branch-policies"][
        "branch_policies"].append({"id": 9, "name": "baselines/*", "type": "branch"}),
     "deploys from main"),
    ("a tag named main", lambda a: a[RUN_STORE + "/deployment-branch-policies"][
        "branch_policies"][0].update(type="tag"), "deploys from main"),
    ("no HF_TOKEN there", lambda a: a[RUN_STORE + "/secrets"].update(secrets=[]),
     "holds HF_TOKEN"),
    ("unreadable environment secrets", lambda a: a.pop(RUN_STORE + "/secrets"),
     "holds HF_TOKEN"),
    ("HF_TOKEN a repository secret", lambda a: a[
        "/repos/fb-org/followboard/actions/secrets"]["secrets"].append(
        {"name": "HF_TOKEN", "created_at": "2026-11-01T00:00:00Z"}), "no repository or"),
    ("HF_TOKEN an organization secret", lambda a: a[
        "/repos/fb-org/followboard/actions/organization-secrets"]["secrets"].append(
        {"name": "HF_TOKEN", "created_at": "2026-11-01T00:00:00Z"}), "no repository or"),
])
def test_audit_fails_each_unsafe_setting(case, edit, failed):
    from leaderboard.app.ci.audit import audit_settings

    answers = recorded_api()
    edit(answers)
    audit = audit_settings(REPO_SLUG, replay(answers))
    assert not audit.ok
    assert [c.name for c in audit.failed if failed in c.name], "\n".join(audit.lines())
    assert len(audit.failed) == 1, "\n".join(audit.lines())


@pytest.mark.parametrize(("case", "edit", "failed"), [
    ("owner as text", lambda a: a["/repos/fb-org/followboard"].update(owner="fb-org"),
     "repository"),
    ("runners as an object", lambda a: a["/repos/fb-org/followboard/actions/runners"].update(
        runners={"a": 1}), "no repository-level self-hosted runners"),
    ("runner groups as numbers", lambda a: a[GROUPS].update(runner_groups=[1, 2]),
     "GPU runner group"),
    ("runners as names", lambda a: a[GPU_RUNNERS].update(runners=["gpu-jit-1"]),
     "runner group"),
    ("labels as a number", lambda a: [r.update(labels=7) for r in a[GPU_RUNNERS]["runners"]],
     "GPU runner group"),
])
def test_audit_fails_a_check_on_an_answer_of_another_shape(case, edit, failed):
    """Each stopped `ci audit-settings` with "internal error (AttributeError)" and printed
    none of its checks; the check the answer feeds fails, naming what it expected."""
    from leaderboard.app.ci.audit import audit_settings

    answers = recorded_api()
    edit(answers)
    audit = audit_settings(REPO_SLUG, replay(answers))
    assert not audit.ok and any(failed in c.name for c in audit.failed), \
        "\n".join(audit.lines())


@pytest.fixture
def fake_github(monkeypatch):
    """A local HTTP server answering like api.github.com from the recording, 1 runner a page."""
    import http.server
    import urllib.parse

    from tests.fixtures.loopback import serving

    answers = recorded_api()
    seen: list[tuple[str, str | None]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            url = urllib.parse.urlsplit(self.path)
            query = urllib.parse.parse_qs(url.query)
            seen.append((url.path, self.headers.get("Authorization")))
            body = answers.get(url.path)
            link = None
            if body is None:
                status, body = 404, {"message": "Not Found"}
            else:
                status = 200
                runners = body.get("runners") if isinstance(body, dict) else None
                if runners and len(runners) > 1:  # paginate: one runner per page
                    page = int(query.get("page", ["1"])[0])
                    body = {**body, "runners": runners[page - 1:page]}
                    if page < len(runners):
                        link = (f'<http://127.0.0.1:{self.server.server_port}{url.path}'
                                f'?per_page=100&page={page + 1}>; rel="next"')
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if link:
                self.send_header("Link", link)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            return None

    monkeypatch.setenv("GH_TOKEN", "test-token")
    with serving(Handler) as url:
        yield url, answers, seen


def test_audit_settings_command_over_http(fake_github, capsys):
    url, answers, seen = fake_github
    args = ["ci", "audit-settings", "--repository", REPO_SLUG, "--api-url", url]
    assert main(args) == 0, capsys.readouterr().out
    assert "every check passed" in capsys.readouterr().out
    assert all(auth == "Bearer test-token" for _, auth in seen)
    # Both pages of the GPU group were read: a persistent runner on page 2 is found.
    assert [p for p, _ in seen].count(GPU_RUNNERS) == 2
    answers[GPU_RUNNERS]["runners"][1]["ephemeral"] = False
    answers["/repos/fb-org/followboard/actions/permissions/workflow"][
        "default_workflow_permissions"] = "write"
    assert main(args) == 1
    out = capsys.readouterr().out
    assert re.search(r"^FAIL runner group 'followboard-gpu' runners are ephemeral.*gpu-jit-2 "
                     r"not ephemeral", out, re.M), out
    assert re.search(r"^FAIL default GITHUB_TOKEN is read-only: default_workflow_permissions is "
                     r"'write'", out, re.M), out
    assert "2 checks failed" in out
    del answers["/orgs/fb-org/actions/runner-groups"]
    assert main(args) == 1
    assert "HTTP 404: Not Found" in capsys.readouterr().out


def test_audit_settings_without_a_repository_says_how_to_name_one(capsys, monkeypatch):
    """Outside Actions, with no --repository and no $GITHUB_REPOSITORY, the command said
    "--repository must be OWNER/REPO, not None", Python's word for what was not given."""
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.setenv("GH_TOKEN", "test-token")
    with pytest.raises(SystemExit) as info:
        main(["ci", "audit-settings"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.splitlines()[-1] == ("leaderboard ci audit-settings: error: give --repository "
                                    "OWNER/REPO (or set $GITHUB_REPOSITORY)"), err
    with pytest.raises(SystemExit):
        main(["ci", "audit-settings", "--repository", "no-slash"])
    assert "--repository must be OWNER/REPO, not 'no-slash'" in capsys.readouterr().err


def test_the_audit_token_never_follows_a_redirect_to_another_host():
    """urllib follows a redirect anywhere and keeps the request's headers: an API answer
    of 307 to another host got the admin token there, and its answers were audited."""
    import http.server
    from urllib.parse import urlsplit

    from leaderboard.app.ci.audit import ApiError, http_fetch
    from tests.fixtures.loopback import serving

    got: list[str | None] = []

    class Elsewhere(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            got.append(self.headers.get("Authorization"))
            data = b'{"default_workflow_permissions": "read"}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            return None

    with serving(Elsewhere) as elsewhere:
        port = urlsplit(elsewhere).port

        class Redirecting(Elsewhere):
            def do_GET(self):  # noqa: N802
                self.send_response(307)
                self.send_header("Location", f"http://localhost:{port}{self.path}")
                self.send_header("Content-Length", "0")
                self.end_headers()

        with serving(Redirecting) as api:
            fetch = http_fetch("secret-token", api, timeout=5)
            with pytest.raises(ApiError, match="redirected to another host"):
                fetch("/repos/fb-org/followboard/actions/permissions/workflow")
    assert got == []


# --------------------------------------------------------------------------- every failure reports

def test_a_missing_run_file_is_reported_and_commented(repo, wtr, data_dir, actions_env,
                                                      tmp_path, capsys):
    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good")
    (folder / RUNS / "altered.trec.gz").unlink()
    head = commit_all(root, "add new-model with the original run only")
    out = tmp_path / "report"
    assert pr_check(root, base, head, out, data_dir) == 1
    stdout = capsys.readouterr().out
    assert "pr-check: invalid (new-model)" in stdout
    report = read_ci_report(out / "report.json")
    (sub,) = report.submissions
    assert report.status == "invalid" and not sub.valid
    assert [p.message for p in sub.problems] == [
        "missing the altered run (altered.trec or altered.trec.gz)"]
    assert sub.problems[0].path == f"submissions/new-model/{RUNS}"
    comment = (out / "comment.md").read_text()
    assert "❌ not valid" in comment and "missing the altered run" in comment


def test_an_internal_error_still_writes_a_report_and_a_comment(repo, wtr, data_dir,
                                                               actions_env, tmp_path,
                                                               monkeypatch, capsys):
    from leaderboard.app.ci import pr_check as pr_check_module

    root, base = repo
    write_submission(root, "new-model", "New Model", wtr, quality="good")
    head = commit_all(root, "add new-model")

    def explode(*_args, **_kwargs):
        raise KeyError("altered")

    monkeypatch.setattr(pr_check_module, "check_submission", explode)
    out = tmp_path / "report"
    assert pr_check(root, base, head, out, data_dir) == 1
    captured = capsys.readouterr()
    assert "internal error: KeyError: 'altered'" in captured.out
    assert re.search(r"^::error title=The check failed \(internal error\)::KeyError: 'altered'",
                     captured.out, re.M), captured.out
    report = read_ci_report(out / "report.json")
    assert report.status == "error" and report.internal_error == "KeyError: 'altered'"
    assert report.head_sha == head and report.base_sha == base and report.pr_number == 7
    assert outputs(actions_env["output"])["status"] == "error"
    comment = (out / "comment.md").read_text()
    assert comment.startswith(COMMENT_MARKER) and "the check itself failed" in comment
    # The comment job accepts the report and renders the same comment.
    body = tmp_path / "body.md"
    assert main(["ci", "comment-body", str(out / "report.json"), "--out", str(body),
                 "--expect-pr", "7", "--expect-head", head]) == 0
    assert body.read_text() == comment
    # Revisions given by name are resolved as given: "HEAD" was made "head", which git
    # does not know, and the report named commit 000000000000.
    assert pr_check(root, base, "HEAD", tmp_path / "by-name", data_dir) == 1
    assert read_ci_report(tmp_path / "by-name" / "report.json").head_sha == head


def test_data_pulled_at_another_revision_fails_the_check_and_scores_nothing(
        repo, wtr, data_dir, actions_env, tmp_path, capsys):
    """CI scored on whatever revision its data folder had been pulled at (a cache restored
    from before the pin moved, a pull that failed part way): the PR got scores and a
    standing on data that is not the board's, and the publish job committed results.json
    recording it. The check fails itself, naming the folder and the pull that fixes it,
    and score-pending writes nothing."""
    root, base = repo
    write_submission(root, "new-model", "New Model", wtr, quality="good")
    head = commit_all(root, "add new-model")
    source = get_task(TASK).source
    other = linked_data(data_dir, tmp_path / "data", source,
                        {"repo": source.repo, "revision": "0123abcd4567"})
    folder = other / source.local_dir
    expected = (f"{folder}: pulled {source.repo}@0123abcd4567, but the registry pins "
                f"{source.repo}@{source.revision}")
    out = tmp_path / "report"
    assert pr_check(root, base, head, out, other) == 1
    report = read_ci_report(out / "report.json")
    assert report.status == "error" and expected in (report.internal_error or "")
    assert "leaderboard data pull followtable" in report.internal_error
    assert not (out / "results").exists()
    capsys.readouterr()
    assert main(["ci", "score-pending", "--repo", str(root), "--before", base, "--after", head,
                 "--data-dir", str(other), "--quiet"]) == 1
    assert expected in capsys.readouterr().err
    assert not (root / "submissions" / "new-model" / "results.json").exists()


def test_a_killed_checks_work_folder_is_removed_by_the_next(repo, wtr, data_dir, actions_env,
                                                           tmp_path, monkeypatch):
    """A SIGKILLed `ci pr-check` left its work folder, the extracted submission (up to
    55 MB), in the temporary directory for ever; the next check removes those of
    processes gone, and leaves a running one's."""
    import tempfile

    from leaderboard.app.ci.pr_check import PR_WORK_PREFIX

    from fixtures.pids import dead_and_running_folders

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    _, alive = dead_and_running_folders(tmp_path / "temp", PR_WORK_PREFIX)
    root, base = repo
    write_submission(root, "new-model", "New Model", wtr, quality="good")
    head = commit_all(root, "add new-model")
    assert pr_check(root, base, head, tmp_path / "report", data_dir) == 0
    assert sorted(p.name for p in (tmp_path / "temp").iterdir()) == [alive.name]
    # The report folder's files are written whole, the report last.
    assert (tmp_path / "report" / "pr-number").read_text() == "7\n"


def _visible_files(folder: Path) -> dict[str, bytes]:
    """What upload-artifact uploads of a report folder: its files but hidden ones (a
    killed writer's temporary file)."""
    return {rel: data for rel, data in folder_files(folder).items()
            if not any(part.startswith(".") for part in rel.split("/"))}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the test forks")
@pytest.mark.slow
def test_pr_check_killed_at_its_last_12_instants_then_the_workflows_next_steps_comment_on_one_report(
        repo, wtr, data_dir, tmp_path, monkeypatch):
    """pr-validate.yml runs `ci error-report` when `ci pr-check --out` fails (a kill
    included), uploads the folder, and the comment job renders report.json. Killed at each
    of its last 12 file operations (those that write the folder), into a new folder as in
    Actions or over an earlier check's report as on a laptop, the folder then holds one
    report: its comment.md and pr-number are that report's, and every other file is whole.
    Over an earlier report, a check killed before writing its own left the earlier
    report.json beside its own comment.md and pr-number, which `ci error-report` then kept
    as this check's (the comment job refused it: "the report is about PR 6"): pr-check
    removes an earlier report first."""
    import tempfile

    temp = tmp_path / "temp"  # the checks' work folders, emptied before each
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    root, base = repo
    write_submission(root, "new-model", "New Model", wtr, quality="good")
    head = commit_all(root, "add new-model")
    counted = ("open", "replace", "rename", "unlink", "mkdir", "rmdir", "fsync", "write")
    earlier = tmp_path / "earlier"  # an earlier check's report: another PR number
    assert main(["ci", "error-report", "--base", base, "--head", head, "--pr-number", "6",
                 "--out", str(earlier), "--repo", str(root)]) == 0

    def checked(start: str, out: Path, kill_at: int = 0):
        shutil.rmtree(out, ignore_errors=True)
        if start == "earlier":
            shutil.copytree(earlier, out)
        shutil.rmtree(temp, ignore_errors=True)
        temp.mkdir()
        return run_child(lambda: pr_check(root, base, head, out, data_dir), counted,
                         fail_at=kill_at)

    checked("new", tmp_path / "warm")  # fills what the next children read
    for start in ("new", "earlier"):
        run = checked(start, tmp_path / "reference")
        assert run.code == 0, run.output
        whole = _visible_files(tmp_path / "reference")
        for k in range(max(1, run.operations - 11), run.operations + 1):
            out = tmp_path / "out"
            killed = checked(start, out, k)  # the report folder is written last
            assert killed.code is None, f"op {k}: not killed\n{killed.output}"
            assert main(["ci", "error-report", "--base", base, "--head", head, "--pr-number",
                         "7", "--out", str(out), "--repo", str(root)]) == 0
            files = _visible_files(out)
            report = read_ci_report(out / "report.json")
            assert (report.pr_number, report.head_sha) == (7, head), (k, start)
            assert files["comment.md"].decode() == comment_body(report), (k, start)
            assert files["pr-number"] == b"7\n", (k, start)
            assert report.status == "error" or files == whole, (k, start)
            assert all(data == whole[rel] for rel, data in files.items()
                       if rel.startswith("results/")), (k, start)
            assert main(["ci", "comment-body", str(out / "report.json"), "--expect-pr", "7",
                         "--expect-head", head, "--out", str(tmp_path / "comment.md")]) == 0, \
                (k, start)

def test_a_check_without_the_commits_says_what_it_needs_not_internal_error(
        repo, tmp_path, capsys):
    """`ci pr-check` run outside a git repository said `internal error: GitError: commit
    'HEAD~1' is not in the repository at .`, exit 1, as if the check were broken: the
    command was given no checkout to read. A usage error (exit 2) naming the checkout
    and the option, and the workflow's variable, that give each commit."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "report"
    code = exit_status(["ci", "pr-check", "--repo", str(elsewhere), "--base", "HEAD~1",
                        "--head", "HEAD", "--out", str(out), "--quiet"])
    captured = capsys.readouterr()
    assert code == 2, captured
    assert "internal error" not in captured.out + captured.err
    assert f"{elsewhere} is not a git repository" in captured.err
    assert "--repo" in captured.err and "--base" in captured.err
    assert not out.exists()  # the workflow's error-report step writes the report
    # A clone that lacks the base commit (a shallow checkout) is told which it lacks.
    root, base = repo
    code = exit_status(["ci", "pr-check", "--repo", str(root), "--base", "f" * 40, "--head",
                        "HEAD", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "internal error" not in err
    assert f"the base commit {'f' * 40!r} (--base; $BASE_SHA in the workflow) is not" in err
    assert "fetch-depth: 0" in err


def test_error_report_for_a_step_that_failed_before_the_check(tmp_path, capsys):
    out = tmp_path / "report"
    args = ["ci", "error-report", "--repo", str(tmp_path), "--base", "a" * 40, "--head",
            "b" * 40, "--pr-number", "9", "--out", str(out), "--reason",
            "fetching the benchmark data failed"]
    assert main(args) == 0
    report = read_ci_report(out / "report.json")
    assert report.status == "error" and report.pr_number == 9 and report.head_sha == "b" * 40
    # The reason as the workflow gives it: no exception was raised, so none is named (it
    # read "RuntimeError: fetching the benchmark data failed").
    assert report.internal_error == "fetching the benchmark data failed"
    assert "- fetching the benchmark data failed\n" in (out / "comment.md").read_text()
    before = (out / "report.json").read_bytes()
    assert main([*args[:-1], "something else"]) == 0  # an existing report is kept
    assert (out / "report.json").read_bytes() == before
    # The comment job, given the pull request's files as the workflow gives them, posts
    # it as the check's own failure: it was "⛔ refused", "the check's report is about no
    # submission, but the pull request changes new-model".
    files = tmp_path / "files.jsonl"
    files.write_text(json.dumps({"status": "added",
                                 "filename": "submissions/new-model/metadata.yaml"}) + "\n")
    body = tmp_path / "body.md"
    assert main(["ci", "comment-body", str(out / "report.json"), "--out", str(body),
                 "--expect-pr", "9", "--expect-head", "b" * 40, "--pr-files", str(files),
                 "--pr-author", "alice", "--author-association", "NONE",
                 "--base-dir", str(tmp_path)]) == 0
    text = body.read_text()
    assert "the check itself failed" in text and "refused" not in text, text


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the test forks")
def test_error_report_killed_at_every_file_operation_then_run_again_writes_one_report(
        tmp_path):
    """`ci error-report` killed at any of its file operations (a runner's timeout): the
    folder holds no report.json or a whole one whose comment.md and pr-number are its own,
    nothing the artifact uploads is half-written, and the step run again leaves the
    folder its whole run writes."""
    counted = ("open", "replace", "rename", "unlink", "mkdir", "rmdir", "fsync", "write")

    def error_report(out: Path) -> int:
        return main(["ci", "error-report", "--repo", str(tmp_path), "--base", "a" * 40,
                     "--head", "b" * 40, "--pr-number", "9", "--out", str(out),
                     "--reason", "fetching the benchmark data failed"])

    reference = run_child(lambda: error_report(tmp_path / "reference"), counted)
    assert reference.code == 0, reference.output
    whole = _visible_files(tmp_path / "reference")
    assert sorted(whole) == ["comment.md", "pr-number", "report.json"]
    assert reference.operations > 5, reference.operations
    for k in range(1, reference.operations + 1):
        out = tmp_path / "out"
        shutil.rmtree(out, ignore_errors=True)
        killed = run_child(lambda: error_report(out), counted, fail_at=k)
        assert killed.code is None, f"op {k}: not killed\n{killed.output}"
        files = _visible_files(out) if out.exists() else {}
        if "report.json" in files:
            assert files == whole, k
        assert all(data == whole[rel] for rel, data in files.items()), k
        assert error_report(out) == 0, k
        assert folder_files(out) == whole, (k, sorted(folder_files(out)))


def test_a_backslash_in_a_file_name_is_refused_in_the_report(repo, wtr, data_dir,
                                                             actions_env, tmp_path):
    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good")
    (folder / "runs" / "followtable\\wtr").mkdir()
    (folder / "runs" / "followtable\\wtr" / "x.trec").write_text("1 Q0 d 1 1 t\n")
    head = commit_all(root, "add new-model with a backslash name")
    out = tmp_path / "report"
    assert pr_check(root, base, head, out, data_dir) == 1
    report = read_ci_report(out / "report.json")
    assert report.status == "refused"
    assert "backslash" in " ".join(report.refusals)
    assert "followtable\\\\wtr" in " ".join(report.refusals)  # ascii() of the name
    assert "⛔ refused" in (out / "comment.md").read_text()


@pytest.mark.parametrize("path", ["submissions/ab\n/metadata.yaml",
                                  "submissions/new-model/runs/a\\b.trec",
                                  "submissions/new-model/runs/\x1b[31m.trec"])
def test_names_git_allows_but_a_submission_must_not_have(path):
    scope = classify_changes([Change("A", path)])
    assert not scope.ok


# --------------------------------------------------------------------------- extracting

def _blob_repo(tmp_path: Path, files: dict[str, bytes]) -> tuple[Path, str]:
    repo = tmp_path / "blobs"
    repo.mkdir()
    init_repo(repo)
    for rel, data in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)
    return repo, commit_all(repo, "files")


def test_extract_writes_each_blob_as_git_holds_it(tmp_path: Path):
    files = {"submissions/s/metadata.yaml": b"id: s\n",
             "submissions/s/runs/a b/empty.trec": b"",
             "submissions/s/runs/no-newline.trec": b"q Q0 d 1 1.0 t",
             "submissions/s/runs/run.trec.gz": bytes(range(256)) * 5000}
    repo, head = _blob_repo(tmp_path, files)
    entries = tree_entries(repo, head, "submissions/s")
    written = extract(repo, entries, "submissions", tmp_path / "out")
    assert written == [tmp_path / "out" / Path(e.path).relative_to("submissions")
                       for e in entries]
    assert {e.path: p.read_bytes() for e, p in zip(entries, written)} == files


def test_extract_streams_a_large_blob_instead_of_holding_it(tmp_path: Path):
    """A pull request of every task carries over 100 MB of runs: each blob goes to its file
    a piece at a time. Reading them all first held each one twice (git's whole output,
    then its slice): at least 48 MiB here."""
    big = b"0 Q0 d 1 1.0 t\n" * (24 * 1024 * 1024 // 15)
    repo, head = _blob_repo(tmp_path, {"submissions/s/runs/big.trec": big})
    entries = tree_entries(repo, head, "submissions/s")
    tracemalloc.start()
    try:
        (written,) = extract(repo, entries, "submissions", tmp_path / "out")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert written.stat().st_size == len(big) and written.read_bytes() == big
    assert peak < 8 * 1024 * 1024, f"extracting held {peak / 2**20:.1f} MiB"


def test_extract_of_an_object_git_cannot_give_is_a_git_error(tmp_path: Path):
    repo, head = _blob_repo(tmp_path, {"submissions/s/a.trec": b"x\n"})
    (entry,) = tree_entries(repo, head, "submissions/s")
    gone = TreeEntry(entry.mode, entry.kind, "1" * 40, entry.size, entry.path)
    with pytest.raises(GitError, match=f"object {'1' * 40} is not a readable blob"):
        extract(repo, [entry, gone], "submissions", tmp_path / "out")
    with pytest.raises(GitError, match="unsafe path"):
        extract(repo, [TreeEntry(entry.mode, entry.kind, entry.sha, entry.size,
                                 "submissions/../escape")], "submissions", tmp_path / "o2")
    assert not (tmp_path / "o2").exists() and not (tmp_path / "escape").exists()


def test_extract_from_a_git_killed_before_an_objects_end_says_it_ended(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A `git cat-file` killed after an object's content, before the newline that ends it
    (found killing `ci pr-check`'s processes at each write with strace), was reported as
    having given "more than object X holds": the PR's comment said so. It ended early."""
    repo, head = _blob_repo(tmp_path, {"submissions/s/a.trec": b"x\n"})
    (entry,) = tree_entries(repo, head, "submissions/s")
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nread sha\nprintf '%s blob 2\\nx\\n' \"$sha\"\nkill -9 $$\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(GitError, match=f"git cat-file ended inside object {entry.sha}"):
        extract(repo, [entry], "submissions", tmp_path / "out")


# --------------------------------------------------------------------------- ownership

def _rename_old_model_on_a_branch(root: Path) -> str:
    """A pull request's head: old-model renamed in its metadata, on a branch of its own."""
    git(root, "checkout", "-q", "-b", "edit")
    meta = root / "submissions" / "old-model" / "metadata.yaml"
    meta.write_text(meta.read_text().replace("Old Model", "Old Model v2"))
    return commit_all(root, "change old-model")


def _set_owner(root: Path, sub_id: str, owner: str) -> None:
    meta = root / "submissions" / sub_id / "metadata.yaml"
    meta.write_text(meta.read_text() + f"owner: {owner}\n")


def _set_maintainers(root: Path, logins: list[str]) -> None:
    (root / "pyproject.toml").write_text(
        "[tool.followboard]\nrun-store = \".\"\nmaintainers = %s\n" % json.dumps(logins))


@pytest.mark.parametrize(("base_owner", "author", "association", "allowed"), [
    (None, "mallory", "NONE", False),
    ("alice", "mallory", "CONTRIBUTOR", False),
    ("alice", "Alice", "CONTRIBUTOR", True),     # logins compare without case
    # The bot (baselines.yml's PRs) changes the reference models' folders, no other.
    (None, "github-actions[bot]", "NONE", False),
    (None, "the-owner", "OWNER", True),          # the account owning the repository
    # A member of the owning organization, or an invited collaborator, is not for that a
    # maintainer (either may hold no more than read access); one the base branch's
    # [tool.followboard] maintainers names is, whatever GitHub calls them.
    ("alice", "bob", "MEMBER", False),
    (None, "someone", "COLLABORATOR", False),
    ("alice", "Carol", "MEMBER", True),
    (None, "carol", "NONE", True),
])
def test_only_the_owner_or_a_maintainer_may_change_a_merged_submission(
        repo, wtr, data_dir, actions_env, tmp_path, base_owner, author, association, allowed):
    root, base = repo
    _set_maintainers(root, ["dave", "carol"])
    if base_owner:
        _set_owner(root, "old-model", base_owner)
    base = commit_all(root, "record the owner and the maintainers")
    git(root, "checkout", "-q", "-b", "edit")
    meta = root / "submissions" / "old-model" / "metadata.yaml"
    # The PR also tries to make its author the owner: the base's owner is what counts.
    text = meta.read_text().replace("Old Model", "Old Model v2")
    meta.write_text("".join(line for line in text.splitlines(keepends=True)
                            if not line.startswith("owner:")) + f"owner: {author}\n")
    head = commit_all(root, "change old-model")
    out = tmp_path / "report"
    pr_check(root, base, head, out, data_dir, "--pr-author", author,
             "--author-association", association)
    report = read_ci_report(out / "report.json")
    (sub,) = report.submissions
    owner_errors = [p for p in sub.problems if "only its owner or a maintainer" in p.message]
    assert bool(owner_errors) != allowed, sub.problems
    if not allowed:
        assert owner_errors[0].path == "submissions/old-model/metadata.yaml"
        assert report.status == "invalid"

    # The comment job decides again from the base branch's files, whatever the report says.
    forged = report.model_copy(update=dict(status="valid", submissions=[
        sub.model_copy(update=dict(valid=True, problems=[], n_errors=0))]))
    forged_path = tmp_path / "forged.json"
    forged_path.write_text(forged.model_dump_json())
    base_dir = tmp_path / "base-checkout"
    git(root, "worktree", "add", "-q", str(base_dir), base)
    body = tmp_path / "comment.md"
    assert main(["ci", "comment-body", str(forged_path), "--out", str(body), "--pr-author",
                 author, "--author-association", association, "--base-dir",
                 str(base_dir)]) == 0
    text = body.read_text()
    assert ("⛔ refused" in text) != allowed
    if not allowed:
        assert "only its owner or a maintainer may change it" in text


@pytest.mark.parametrize(("text", "expected"), [
    (None, set()), ("", set()), ("[tool.followboard]\nrun-store = \".\"\n", set()),
    ('[tool.followboard]\nmaintainers = ["Jane-Doe", "x"]\n', {"jane-doe", "x"}),
    ('[tool.followboard]\nmaintainers = "jane-doe"\n', "must be a list of GitHub logins"),
    ('[tool.followboard]\nmaintainers = ["@jane"]\n', "must be a list of GitHub logins"),
    ("[tool.followboard\n", "cannot read the project's configuration"),
])
def test_the_maintainers_list_is_logins_or_a_clear_error(text, expected):
    if isinstance(expected, set):
        assert policy.maintainers_of(text, "pyproject.toml") == expected
    else:
        with pytest.raises(policy.MaintainersError, match=f"^pyproject.toml: .*{expected}"):
            policy.maintainers_of(text, "pyproject.toml")


@pytest.mark.parametrize(("author", "in_actions"), [
    ("", False), ("  ", False),  # an Actions expression that came out empty
    (None, True),                # no author at all inside Actions
])
def test_a_check_without_the_authors_login_refuses(repo, wtr, data_dir, actions_env, tmp_path,
                                                   monkeypatch, author, in_actions):
    """`--pr-author ''` skipped the ownership check: an unknown author now refuses, in
    the check job and again in the comment job."""
    root, base = repo
    _set_owner(root, "old-model", "alice")
    base = commit_all(root, "record the owner")
    head = _rename_old_model_on_a_branch(root)
    if in_actions:
        monkeypatch.setenv("GITHUB_ACTIONS", "true")
    author_args = [] if author is None else ["--pr-author", author]
    out = tmp_path / "report"
    assert pr_check(root, base, head, out, data_dir, *author_args,
                    "--author-association", "NONE") == 1
    report = read_ci_report(out / "report.json")
    assert report.status == "refused" and not report.submissions
    assert "author is not known" in report.refusals[0]
    # The comment job refuses too, whatever the report claims.
    valid = tmp_path / "valid.json"
    valid.write_text(report.model_copy(update=dict(status="valid", refusals=[])).model_dump_json())
    base_dir = tmp_path / "base-checkout"
    git(root, "worktree", "add", "-q", str(base_dir), base)
    body = tmp_path / "comment.md"
    assert main(["ci", "comment-body", str(valid), "--out", str(body), *author_args,
                 "--author-association", "NONE", "--base-dir", str(base_dir)]) == 0
    assert "⛔ refused" in body.read_text() and "author is not known" in body.read_text()


@pytest.mark.parametrize(("base_ref", "default", "in_actions", "refused"), [
    ("main", "main", True, False),
    ("baselines/old-model-123", "main", True, True),  # a bot branch, merged into main later
    ("", "main", True, True), ("main", "", False, True),  # expressions that came out empty
    (None, None, True, True),   # not given inside Actions
    (None, None, False, False),  # a local run
    ("main", None, False, False),  # a local run into main, the default branch's default
    ("dev", None, False, True),  # ... and one into another branch
    (None, "main", False, False),  # a local run that names no base branch checks none
])
def test_a_submission_pr_into_another_branch_than_the_default_is_refused(
        repo, wtr, data_dir, actions_env, tmp_path, monkeypatch, base_ref, default,
        in_actions, refused):
    """pr-validate.yml runs for pull requests into any branch. A stranger's PR into a bot
    branch baselines/<model>-<run> changing that model's folder was checked against that
    branch and, merged there by a maintainer, reached main inside the bot's PR, which the
    ownership check exempts. A submission PR into another branch than the default (or
    whose branches are not known, inside Actions) is refused, by the check and again by
    the comment job."""
    root, base = repo
    _set_maintainers(root, ["carol"])
    base = commit_all(root, "name the maintainers")
    head = _rename_old_model_on_a_branch(root)
    if in_actions:
        monkeypatch.setenv("GITHUB_ACTIONS", "true")
    branches = ([] if base_ref is None else ["--base-ref", base_ref]) + \
        ([] if default is None else ["--default-branch", default])
    out = tmp_path / "report"
    # A maintainer, whom the ownership check lets change it, so only the branch decides.
    author = ["--pr-author", "carol", "--author-association", "NONE"]
    assert pr_check(root, base, head, out, data_dir, *author, *branches) == int(refused)
    report = read_ci_report(out / "report.json")
    assert (report.status == "refused") == refused, report.refusals
    if refused:
        assert not report.submissions and ("default branch" in report.refusals[0])
    if base_ref in ("baselines/old-model-123", "dev"):
        assert f"into the branch {base_ref!r}, not 'main'" in report.refusals[0]
    # The comment job refuses too, whatever the report claims.
    forged = tmp_path / "forged.json"
    forged.write_text(report.model_copy(update=dict(
        status="valid", refusals=[], submissions=[SubmissionCheck(
            id="old-model", valid=True, n_errors=0, n_warnings=0, updates_existing=True)]))
        .model_dump_json())
    body = tmp_path / "comment.md"
    assert main(["ci", "comment-body", str(forged), "--out", str(body), *author,
                 *branches]) == 0
    assert ("⛔ refused" in body.read_text()) == refused


def test_a_new_submission_names_its_author_as_owner(repo, wtr, data_dir, actions_env,
                                                    tmp_path):
    root, base = repo
    write_submission(root, "new-model", "New Model", wtr, quality="good")
    _set_owner(root, "new-model", "someone-else")
    head = commit_all(root, "add new-model owned by someone else")
    out = tmp_path / "report"
    assert pr_check(root, base, head, out, data_dir, "--pr-author", "jane",
                    "--author-association", "NONE") == 1
    (sub,) = read_ci_report(out / "report.json").submissions
    assert any(p.message.startswith("owner: 'someone-else' must be your own GitHub login")
               for p in sub.problems)
    out2 = tmp_path / "report2"
    assert pr_check(root, base, head, out2, data_dir, "--pr-author", "Someone-Else",
                    "--author-association", "NONE") == 0


@pytest.mark.parametrize(("author", "association", "allowed"), [
    ("mallory", "NONE", False), ("bob", "MEMBER", False), ("carol", "NONE", True),
    ("github-actions[bot]", "NONE", True),
])
def test_a_reference_models_id_is_kept_for_its_runs(repo, wtr, data_dir, actions_env, tmp_path,
                                                    author, association, allowed):
    """A stranger's new folder submissions/e5-large-v2/ (a declared reference model's id)
    passed; `baselines run e5-large-v2` would then refuse to write into it."""
    root, base = repo
    _set_maintainers(root, ["carol"])
    base = commit_all(root, "name the maintainers")
    write_submission(root, "e5-large-v2", "e5-large-v2 (reference)", wtr, quality="good")
    head = commit_all(root, "add e5-large-v2")
    out = tmp_path / "report"
    pr_check(root, base, head, out, data_dir, "--pr-author", author,
             "--author-association", association)
    (sub,) = read_ci_report(out / "report.json").submissions
    refused = [p for p in sub.problems if "is a reference model's" in p.message]
    assert bool(refused) != allowed and sub.valid == allowed, sub.problems


@pytest.mark.parametrize(("sub_id", "other", "whose"), [
    ("old_model", "old-model", "a submission on the base branch"),
    ("e5.large_v2", "e5-large-v2", "a reference model's (reference_models/models.yaml)"),
])
def test_a_new_id_that_differs_from_the_boards_only_in_separators_is_refused(
        repo, wtr, data_dir, tmp_path, capsys, sub_id, other, whose):
    """A stranger's submissions/all_minilm-l6-v2/ passed beside the reference model
    all-minilm-l6-v2: a page and rows that pass for another's. pr-check refuses a new id
    that folds (its '.', '_' and '-' dropped) onto a merged submission's or a reference
    model's, whoever adds it, naming both; validate says so of one not merged yet, of the
    reference models and the folders beside it."""
    root, base = repo
    folder = write_submission(root, sub_id, "Look-alike", wtr, quality="good")
    problem = (f"{sub_id}/metadata.yaml: the id {sub_id!r} differs from {other!r}, ")
    why = "only in its separators ('.', '_', '-'): its page would pass for the other's"
    capsys.readouterr()
    assert main(["validate", str(folder), "--data-dir", str(data_dir), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert problem in out and why in out, out
    if other == "old-model":
        assert f"a submission beside it in {folder.parent}" in out, out
    head = commit_all(root, f"add {sub_id}")
    out_dir = tmp_path / "report"
    assert pr_check(root, base, head, out_dir, data_dir) == 1
    (sub,) = read_ci_report(out_dir / "report.json").submissions
    assert any(p.message == f"the id {sub_id!r} differs from {other!r}, {whose}, {why}; "
                            "choose another id" for p in sub.problems), sub.problems


def test_no_two_ids_on_the_board_fold_onto_one() -> None:
    """Every committed submission and declared reference model keeps its id: none folds
    onto another's."""
    from leaderboard.app.board_ids import taken_ids
    from leaderboard.submission.ids import folded_id, lookalike_problem

    taken = taken_ids(dict.fromkeys((p.name for p in (REPO / "submissions").iterdir()),
                                    "a submission"))
    assert len({folded_id(i) for i in taken}) == len(taken)
    assert all(lookalike_problem(i, taken) is None for i in taken)


BASE_SUBMISSION = "the name of the submission old-model on the base branch"
MINILM = "the name of the reference model all-minilm-l6-v2 (reference_models/models.yaml)"


@pytest.mark.parametrize(("name", "other", "whose", "beside"), [
    ("old model", "Old Model", BASE_SUBMISSION, True),
    ("all-Mini\u200dLM-L6-v2", "all-MiniLM-L6-v2", MINILM, False),
    ("\uff41ll-MiniLM-L6-v2", "all-MiniLM-L6-v2", MINILM, False),
    ("Paper\u00a0Model", "Paper Model", "the name of the reported row paper-model on the "
                                         "base branch", None),
    ("\u0430ll-MiniLM-L6-v2", None, "Cyrillic ('\u0430', U+0430) and Latin ('l', U+006C)",
     False),
    ("all-MiniLM-L6-\u03bd2", "all-MiniLM-L6-v2", MINILM, False),
    ("\u050c\u0422\u0415-\u042c\u0430\u0455\u0435", "GTE-base",
     "the name of the reference model gte-base (reference_models/models.yaml)", False),
    ("\u0392\u039c25", "BM25", "a name of the model bm25 in the model registry", False),
])
def test_a_new_model_name_that_reads_as_the_boards_is_refused(
        repo, wtr, data_dir, tmp_path, capsys, name, other, whose, beside):
    """A stranger's submission named 'all-Mini\u200dLM-L6-v2' (a joiner between Latin
    letters), full-width or with a Cyrillic 'а' passed: the board, the comment and the
    downloads showed the reference model's name on a line of its own, with the type and
    size the stranger chose (ids had a look-alike check, names none). So did one written
    wholly in Cyrillic ('ԌТЕ-Ьаѕе') or Greek ('\u0392\u039c25') look-alikes, which mixes
    no script in a word; 'all-MiniLM-L6-\u03bd2', refused for mixing scripts while that
    rule was the name's, is refused for reading as all-MiniLM-L6-v2. validate (against
    the reference models', the registry's and the submissions beside it) and pr-check
    (also the base branch's merged and reported rows) refuse it at the name's line of
    metadata.yaml, naming the name it reads as."""
    root, base = repo
    folder = write_submission(root, "new-model", name, wtr, quality="good")
    if other is None:
        why = f"the model name {name!r} mixes {whose} letters"
    else:
        why = f"the model name {name!r} reads as {other!r}, "
    capsys.readouterr()
    code = main(["validate", str(folder), "--data-dir", str(data_dir), "--quiet"])
    out = capsys.readouterr().out
    if beside is None:  # validate reads no reported row
        assert code == 0, out
    else:
        assert code == 1 and f"new-model/metadata.yaml:3: {why}" in out, out
        assert (f"beside it in {folder.parent}" in out) == beside, out
    head = commit_all(root, "add new-model")
    out_dir = tmp_path / "report"
    assert pr_check(root, base, head, out_dir, data_dir) == 1
    (sub,) = read_ci_report(out_dir / "report.json").submissions
    assert any(p.path == "submissions/new-model/metadata.yaml" and p.line == 3
               and p.message.startswith(why) and whose in p.message
               for p in sub.problems), sub.problems


def test_the_very_name_of_a_merged_model_joins_its_line(repo, wtr, data_dir, tmp_path):
    """The same text is the same model: a second submission of "Old Model" (a rerun, a
    reproduction) passes, and the board folds it into that model's line."""
    from leaderboard.publish.models import resolve_model
    from leaderboard.submission.results import read_results

    root, base = repo
    write_submission(root, "old-model-rerun", "Old Model", wtr, quality="good")
    head = commit_all(root, "add old-model-rerun")
    out_dir = tmp_path / "report"
    assert pr_check(root, base, head, out_dir, data_dir) == 0
    merged = read_results(root / "submissions" / "old-model" / "results.json").systems[0]
    rerun = read_results(out_dir / "results" / "old-model-rerun" / "results.json").systems[0]
    assert resolve_model(merged).id == resolve_model(rerun).id


def test_a_name_mixing_scripts_across_words_passes(repo, wtr, data_dir, tmp_path, capsys):
    """A Russian-speaking lab's 'ruBERT (русский)' was refused by validate and pr-check
    for mixing Latin and Cyrillic letters, though no word of it does and it reads as no
    name on the board: both pass it."""
    root, base = repo
    folder = write_submission(root, "new-model", "ruBERT (\u0440\u0443\u0441\u0441\u043a"
                                                 "\u0438\u0439)", wtr, quality="good")
    capsys.readouterr()
    code = main(["validate", str(folder), "--data-dir", str(data_dir), "--quiet"])
    assert code == 0, capsys.readouterr().out
    head = commit_all(root, "add new-model")
    assert pr_check(root, base, head, tmp_path / "report", data_dir) == 0


def test_every_name_on_the_board_passes_the_lookalike_check() -> None:
    """Every committed submission's model name passes the check its pull request would
    meet (against the reference models', the registry's, the other submissions' and the
    reported rows' names), and no reported row's name mixes look-alike scripts."""
    from leaderboard.app.board_ids import taken_names
    from leaderboard.submission.ids import mixed_script_problem, name_lookalike_problem
    from leaderboard.submission.results import read_results

    submitted = {read_results(p).systems[0].model.name: p.parent.name
                 for p in sorted((REPO / "submissions").glob("*/results.json"))}
    reported = {s.model.name: s.system_id
                for p in sorted((REPO / "results" / "reported").glob("*.json"))
                for s in read_results(p).systems}
    assert len(submitted) == len(list((REPO / "submissions").iterdir()))
    for name, sub_id in submitted.items():
        others = {n: f"submission {i}" for n, i in submitted.items() if i != sub_id}
        assert name_lookalike_problem(name, taken_names({**reported, **others})) is None
    assert not [n for n in reported if mixed_script_problem(n)]

def write_model(root: Path, sub_id: str, name: str, facts: str, wtr) -> Path:
    """A good WTR submission of the model ``name`` whose metadata.yaml states ``facts``
    (its lines under ``model:`` after the name)."""
    folder = write_submission(root, sub_id, name, wtr, quality="good")
    (folder / "metadata.yaml").write_text(
        f"id: {sub_id}\nmodel:\n  name: {name}\n{facts}"
        "produced_by: tests/test_ci.py, runs built from the WTR judgments\n"
        "contact: FollowBoard tests\n", encoding="utf-8")
    return folder


def merge_and_publish(root: Path, base: str, head: str, data_dir: Path) -> None:
    """The pull request merged into main and scored there, as the publish run does."""
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--ff-only", head)
    assert main(["ci", "score-pending", "--repo", str(root), "--before", base, "--after",
                 head, "--data-dir", str(data_dir), "--quiet"]) == 0


def test_a_rerun_of_a_registry_model_stating_other_facts_is_told_and_keeps_main_green(
        repo, wtr, data_dir, tmp_path, capsys):
    """A rerun named all-MiniLM-L6-v2 that left out instruction_trained and rounded the
    size to 22700000 passed validate and pr-check silently, and once merged turned main's
    tests/test_identity.py red ("rows disagree on parameters"), a merge CI had accepted.
    The board shows the registry's facts for a model it lists, so the row's own never
    give the model two identities: validate and pr-check accept it and warn, at each
    line, what the board shows in their place; merged and scored, the identity check
    over main's rows passes."""
    from leaderboard.publish.models import check_identities
    from tests.test_identity import _all_systems

    root, base = repo
    folder = write_model(root, "minilm-rerun", "all-MiniLM-L6-v2",
                         "  type: bi-encoder\n  parameters: 22700000\n", wtr)
    registry = ("the board shows the model registry's for all-MiniLM-L6-v2 in its place, "
                "{} (leaderboard/publish/reported/data/models.yaml): state that")
    told = {5: "parameters: 22700000; " + registry.format("22713216"),
            2: "instruction_trained: not stated; " + registry.format("false")}
    capsys.readouterr()
    assert main(["validate", str(folder), "--data-dir", str(data_dir), "--quiet"]) == 0
    out = capsys.readouterr().out
    for line, text in told.items():
        assert f"minilm-rerun/metadata.yaml:{line}: warning: {text}" in out, out
    head = commit_all(root, "add minilm-rerun")
    out_dir = tmp_path / "report"
    assert pr_check(root, base, head, out_dir, data_dir) == 0
    (sub,) = read_ci_report(out_dir / "report.json").submissions
    assert {(p.line, p.severity) for p in sub.problems
            if p.path == "submissions/minilm-rerun/metadata.yaml"} == {
        (5, "warning"), (2, "warning")}
    assert all(any(p.message.startswith(text) for p in sub.problems) for text in told.values())
    merge_and_publish(root, base, head, data_dir)
    assert check_identities(_all_systems(root)) == []


@pytest.mark.parametrize(("sub_id", "name", "facts", "told"), [
    # The merged submission old-model states type other and no size.
    ("old-model-rerun", "Old Model", "  type: bi-encoder\n",
     (4, "type: bi-encoder, but the submission old-model on the base branch gives other "
         "for 'Old Model'")),
    # Another text, the same line: its derived id is old-model too.
    ("old-model-v2", "Old-Model", "  type: other\n  parameters: 110000000\n",
     (5, "parameters: 110000000, but the submission old-model on the base branch gives "
         "none for 'Old Model'")),
    ("paper-model", "Paper Model", "  type: other\n  instruction_trained: true\n",
     (5, "instruction_trained: true, but the reported row paper-model on the base branch "
         "gives none for 'Paper Model'")),
])
def test_a_submission_joining_an_unlisted_model_must_state_its_facts(
        repo, wtr, data_dir, tmp_path, capsys, sub_id, name, facts, told):
    """A model the registry does not list shows the facts of the row its line is drawn
    from: a new submission joining such a model (by its very name) with another type,
    size or instruction training would give it two identities on the board, and turn
    main's identity test red once merged. pr-check refuses it, naming both values, and
    validate does against the submissions beside it; merged anyway, the identity check
    over main's rows fails as it says."""
    from leaderboard.publish.models import check_identities
    from tests.test_identity import _all_systems

    root, base = repo
    line, text = told
    folder = write_model(root, sub_id, name, facts, wtr)
    capsys.readouterr()
    code = main(["validate", str(folder), "--data-dir", str(data_dir), "--quiet"])
    out = capsys.readouterr().out
    if "reported row" in text:  # validate reads no reported row
        assert code == 0, out
    else:
        beside = text.replace("on the base branch", f"beside it in {folder.parent}")
        assert code == 1 and f"{sub_id}/metadata.yaml:{line}: {beside}" in out, out
    head = commit_all(root, f"add {sub_id}")
    out_dir = tmp_path / "report"
    assert pr_check(root, base, head, out_dir, data_dir) == 1
    (sub,) = read_ci_report(out_dir / "report.json").submissions
    problem = next(p for p in sub.problems if p.path == f"submissions/{sub_id}/metadata.yaml")
    assert (problem.line, problem.severity) == (line, "error")
    assert problem.message.startswith(text) and "state the same, or choose another name" \
        in problem.message, problem.message
    # What the check keeps off main.
    merge_and_publish(root, base, head, data_dir)
    assert check_identities(_all_systems(root))
    # The same facts join the line and pass (main and the branch back at the base).
    git(root, "checkout", "-q", "pr")
    git(root, "reset", "-q", "--hard", base)
    git(root, "clean", "-qfdx")
    git(root, "branch", "-f", "main", base)
    write_model(root, sub_id, name, "  type: other\n", wtr)
    head = commit_all(root, f"add {sub_id}, the same facts")
    assert pr_check(root, base, head, tmp_path / "again", data_dir) == 0
    merge_and_publish(root, base, head, data_dir)
    assert check_identities(_all_systems(root)) == []


@pytest.mark.parametrize(("name", "facts", "told"), [
    ("Fresh Mode1", "  type: other\n",
     (3, "the model name 'Fresh Mode1' reads as 'Fresh Model', the name of the submission "
         "fresh-model on the base branch")),
    ("Fresh Model", "  type: bi-encoder\n",
     (4, "type: bi-encoder, but the submission fresh-model on the base branch gives other "
         "for 'Fresh Model'")),
])
def test_a_merged_submission_not_yet_scored_is_held_against_a_new_one(
        repo, wtr, data_dir, tmp_path, name, facts, told):
    """pr-check read the merged submissions' names and facts from their results.json
    only, so one merged moments ago, before the publish run scored it, was in neither
    check: a look-alike of its name, or its very name with another type, passed. Such a
    submission's name and facts are read from its metadata.yaml at the base commit."""
    root, base = repo
    git(root, "checkout", "-q", "main")
    write_model(root, "fresh-model", "Fresh Model", "  type: other\n", wtr)
    base = commit_all(root, "merge fresh-model (not yet scored)")
    assert not (root / "submissions" / "fresh-model" / "results.json").exists()
    git(root, "checkout", "-q", "pr")
    git(root, "reset", "-q", "--hard", base)
    write_model(root, "new-model", name, facts, wtr)
    head = commit_all(root, "add new-model")
    out_dir = tmp_path / "report"
    assert pr_check(root, base, head, out_dir, data_dir) == 1
    (sub,) = read_ci_report(out_dir / "report.json").submissions
    line, text = told
    assert any(p.path == "submissions/new-model/metadata.yaml" and p.line == line
               and p.severity == "error" and p.message.startswith(text)
               for p in sub.problems), sub.problems


def test_the_bot_may_update_a_merged_reference_models_folder(repo, wtr, data_dir, actions_env,
                                                             tmp_path):
    """The ownership check let the repository's bot change every merged submission, where
    docs/MAINTAINERS.md says it may change the reference models' folders (baselines.yml
    reruns them): a workflow that opened a PR as the bot could rewrite anyone's."""
    root, base = repo
    write_submission(root, "e5-large-v2", "e5-large-v2 (reference)", wtr, quality="good")
    base = commit_all(root, "the reference model, merged")
    git(root, "checkout", "-q", "-b", "rerun")
    meta = root / "submissions" / "e5-large-v2" / "metadata.yaml"
    meta.write_text(meta.read_text().replace("e5-large-v2 (reference)", "e5-large-v2 (rerun)"))
    head = commit_all(root, "rerun e5-large-v2")
    out = tmp_path / "report"
    pr_check(root, base, head, out, data_dir, "--pr-author", "github-actions[bot]",
             "--author-association", "NONE")
    (sub,) = read_ci_report(out / "report.json").submissions
    assert not [p for p in sub.problems if "only its owner or a maintainer" in p.message]


def test_merged_explanation_files_neither_block_an_update_nor_call_for_scoring(
        repo, wtr, pulled_data, actions_env, tmp_path, capsys):
    """explain/ is the scorer's (leaderboard/submission/explain_files.py): CI committed it with the
    base (the folder store), an update PR leaves it alone and passes, a PR that edits it
    is refused, and on main an explanation file that is not the one results.json names
    is rewritten by the next publish run."""
    from leaderboard.app.ci.pending import pending_submissions

    root, base = repo
    folder = root / "submissions" / "old-model"
    explained = sorted((folder / "explain").rglob("*.json.gz"))
    assert explained and git(root, "ls-files", "submissions/old-model/explain")
    write_submission(root, "old-model", "Old Model", wtr, quality="good")  # better runs
    # With the run store a carried run must be the one manifest.txt lists, so the
    # submitter runs `leaderboard score` (as the check says) and commits the manifest,
    # and results.json and per-query.json.gz if they like (the scorer's own are
    # accepted), but not the explanation files it rewrote: those stay as the base has them.
    assert main(["score", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    git(root, "checkout", base, "--", "submissions/old-model/explain")
    git(root, "clean", "-fdq", "--", "submissions/old-model/explain")
    head = commit_all(root, "better runs for old-model")
    assert not [p for p in git(root, "diff", "--name-only", base, head).split()
                if "/explain/" in p]
    assert pr_check(root, base, head, tmp_path / "update", pulled_data) == 0
    (sub,) = read_ci_report(tmp_path / "update" / "report.json").submissions
    assert sub.valid and sub.results_json == "matches"
    explained[0].write_bytes(b"forged")
    forged = commit_all(root, "and forged explanation files")
    assert pr_check(root, base, forged, tmp_path / "forged", pulled_data) == 1
    (sub,) = read_ci_report(tmp_path / "forged" / "report.json").submissions
    assert any(p.path == "submissions/old-model/explain" and "written by CI after the merge"
               in p.message for p in sub.problems)
    # Back on main, an explanation file changed by a push is no longer the one results.json
    # names (by its manifest's size and SHA-256): the submission is due, and publishing
    # writes the very files again. (Before the run store named it, a push changing only
    # explain/ called for no scoring.)
    git(root, "checkout", "-q", "main")
    before = git(root, "rev-parse", "HEAD")
    manifest = folder / "explain" / "manifest.json"
    genuine = manifest.read_bytes()
    manifest.write_bytes(genuine + b" ")
    after = commit_all(root, "the scorer's files only")
    assert pending_submissions(root, before, after).ids == ["old-model"]
    capsys.readouterr()
    assert main(["ci", "score-pending", "--repo", str(root), "--before", before, "--after",
                 after, "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert "old-model: scored" in capsys.readouterr().out
    assert manifest.read_bytes() == genuine
    rescored = commit_all(root, "publish: rescored")
    assert git(root, "diff", "--name-only", before, rescored) == ""
    assert pending_submissions(root, rescored, rescored).ids == []


# --------------------------------------------------------------------------- stale scores

def test_results_record_input_digests_and_validate_reports_stale_scores(
        repo, wtr, data_dir, tmp_path, capsys):
    import hashlib

    root, base = repo
    folder = root / "submissions" / "old-model"
    results = read_results(folder / "results.json")
    run = folder / RUNS / "altered.trec.gz"
    assert results.inputs_sha256[f"{RUNS}/altered.trec.gz"] == \
        hashlib.sha256(run.read_bytes()).hexdigest()
    assert set(results.inputs_sha256) == {"metadata.yaml", f"{RUNS}/original.trec.gz",
                                          f"{RUNS}/altered.trec.gz"}
    args = ["validate", str(folder), "--data-dir", str(data_dir), "--quiet"]
    assert main(args) == 0
    capsys.readouterr()
    write_submission(root, "old-model", "Old Model", wtr, quality="good")  # new runs
    assert main(args) == 1
    out = capsys.readouterr().out
    assert (f"old-model/results.json: {RUNS}/altered.trec.gz changed since results.json was "
            f"scored: the scores are stale; run `leaderboard score {folder} --data-dir {data_dir}`"
            ) in out


def test_publish_rescores_every_stale_submission_not_just_its_push(repo, wtr, data_dir,
                                                                   capsys):
    root, base = repo
    # A merge whose publish run was cancelled: runs changed, results.json left behind.
    write_submission(root, "old-model", "Old Model", wtr, quality="good")
    merged = commit_all(root, "merge better runs for old-model")
    old_irs = read_results(root / "submissions" / "old-model" / "results.json") \
        .systems[0].tasks[TASK].metrics["IRS"]
    # The next publish run covers a later push that does not touch old-model.
    (root / "leaderboard" / "__init__.py").write_text('"""placeholder 2"""\n')
    later = commit_all(root, "an unrelated push")
    assert main(["ci", "score-pending", "--repo", str(root), "--before", merged, "--after",
                 later, "--data-dir", str(data_dir), "--quiet"]) == 0
    assert "old-model: scored" in capsys.readouterr().out
    new = read_results(root / "submissions" / "old-model" / "results.json")
    assert new.systems[0].tasks[TASK].metrics["IRS"] > old_irs
    # Up to date now: the next run leaves it alone.
    assert main(["ci", "score-pending", "--repo", str(root), "--before", later, "--after",
                 later, "--data-dir", str(data_dir), "--quiet"]) == 0
    assert "no submission needs scoring" in capsys.readouterr().out


def _scored_before_the_pin_moved(root: Path, data_dir: Path, tmp_path: Path,
                                 revision: str = "0123abcd4567") -> tuple[Path, str]:
    """old-model's results.json as scored on data pulled at ``revision``, not the pinned
    one (as every merged results.json is once the registry's pin moves), committed."""
    source = get_task(TASK).source
    earlier = linked_data(data_dir, tmp_path / "earlier-data", source,
                          {"repo": source.repo, "revision": revision})
    folder = root / "submissions" / "old-model"
    assert score_submission(folder, earlier, after_merge=False).results_path is not None
    return folder, commit_all(root, f"old-model as scored on {revision}")


def test_after_a_data_revision_bump_validate_says_so_and_publish_rescores(
        repo, data_dir, tmp_path, capsys):
    """Once the registry pinned another data revision, merged results.json files kept the
    scores of the old one: their recorded digests still matched the files, so `ci
    score-pending` said "no submission needs scoring" after the bump and `validate` said
    valid. A task recorded as scored on another revision than the pin is stale."""
    root, _ = repo
    folder, merged = _scored_before_the_pin_moved(root, data_dir, tmp_path)
    source = get_task(TASK).source
    validate = ["validate", str(folder), "--data-dir", str(data_dir), "--quiet"]
    capsys.readouterr()
    assert main(validate) == 1
    out = capsys.readouterr().out
    # The pull and the scoring it says to run read the folder validate was given.
    assert (f"old-model/results.json: 1 task ({TASK}) was scored on {source.repo}@0123abcd4567, "
            f"but the registry pins {source.repo}@{source.revision} (`leaderboard data pull "
            f"followtable --data-dir {data_dir}` fetches it): the scores are stale; run "
            f"`leaderboard score {folder} --data-dir {data_dir}`") in out, out
    assert main(["ci", "score-pending", "--repo", str(root), "--before", merged, "--after",
                 merged, "--data-dir", str(data_dir), "--quiet"]) == 0
    assert "old-model: scored" in capsys.readouterr().out
    assert not off_pin_tasks(read_results(folder / "results.json", per_query=False).produced_by)
    assert main(validate) == 0


def _tree_digests(folder: Path) -> dict[str, str]:
    import hashlib

    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_submission_the_new_revision_cannot_score_is_named_kept_and_not_half_written(
        repo, data_dir, tmp_path, capsys):
    """After the pin moved to a revision that no longer has some of what a merged
    submission's runs name (a query here; T4's pair ids on PI-Indic), its rescoring fails:
    the publish job failed as a whole, rescoring nothing else and failing every later
    push alike, with no word of why beyond the run file's errors. The submission is named,
    with the revision it stays on and what the maintainer does; its files stay as they
    were, and the job goes on (the site marks its scores as on another revision)."""
    root, _ = repo
    folder, merged = _scored_before_the_pin_moved(root, data_dir, tmp_path)
    source = get_task(TASK).source
    # The pinned revision lacks one of the altered queries the runs answer.
    pinned = linked_data(data_dir, tmp_path / "pinned-data", source,
                         {"repo": source.repo, "revision": source.revision})
    queries = pinned / source.local_dir / "queries.jsonl"
    lines = queries.read_text(encoding="utf-8").splitlines(keepends=True)
    dropped = json.loads(lines[0])["_id"]
    queries.unlink()
    queries.write_text("".join(lines[1:]), encoding="utf-8")
    before = _tree_digests(folder)
    capsys.readouterr()
    assert main(["ci", "score-pending", "--repo", str(root), "--before", merged, "--after",
                 merged, "--data-dir", str(pinned), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"unknown query {dropped!r}" in out and f"{RUNS}/altered.trec.gz" in out, out
    assert (f"submissions/old-model: warning: not rescored on {source.repo}@"
            f"{source.revision}, the revision the registry pins now: its runs do not fit it (the errors above); its "
            f"results.json keeps the scores of 1 task on {source.repo}@0123abcd4567, which "
            "the site marks as such") in out, out
    assert "old-model: NOT rescored, kept as scored on another data revision" in out
    # Its files as they were, and publishing's record of what it was tried with beside them.
    kept = _tree_digests(folder)
    assert kept.pop("kept.json") and kept == before


def _kept_after_the_bump(root: Path, data_dir: Path, tmp_path: Path) -> tuple[Path, Path, str]:
    """old-model scored on an earlier revision, which the pinned one (a query dropped)
    cannot score: one publish run keeps it, and its commit is merged. The folder, the
    pinned data and that commit."""
    folder, merged = _scored_before_the_pin_moved(root, data_dir, tmp_path)
    source = get_task(TASK).source
    pinned = linked_data(data_dir, tmp_path / "pinned-data", source,
                         {"repo": source.repo, "revision": source.revision})
    queries = pinned / source.local_dir / "queries.jsonl"
    lines = queries.read_text(encoding="utf-8").splitlines(keepends=True)
    queries.unlink()
    queries.write_text("".join(lines[1:]), encoding="utf-8")
    assert main(["ci", "score-pending", "--repo", str(root), "--before", merged, "--after",
                 merged, "--data-dir", str(pinned), "--quiet"]) == 0
    assert (folder / "kept.json").is_file()  # publishing's record, which its commit holds
    return folder, pinned, commit_all(root, "publish: old-model kept")


def test_a_kept_submission_is_tried_again_only_when_what_decides_it_changes(
        repo, data_dir, tmp_path, capsys, monkeypatch):
    """A submission the new revision could not score was tried again on every push, each
    run failing it alike and repeating its errors and warning, until its owner resubmitted
    or it was removed. The run that keeps it records what it was tried with (kept.json);
    later runs pass it over in one line until its files, the pinned revision of one of its
    tasks or the scorer's version differ from the record, and a scoring that succeeds
    removes the record."""
    from leaderboard.app.ci.pending import pending_submissions
    from leaderboard.submission import pipeline

    root, _ = repo
    folder, pinned, published = _kept_after_the_bump(root, data_dir, tmp_path)
    source = get_task(TASK).source

    def publish(before: str, after: str) -> str:
        capsys.readouterr()
        assert main(["ci", "score-pending", "--repo", str(root), "--before", before,
                     "--after", after, "--data-dir", str(pinned), "--quiet"]) == 0
        return capsys.readouterr().out

    (root / "leaderboard" / "__init__.py").write_text('"""an unrelated push"""\n')
    later = commit_all(root, "an unrelated push")
    out = publish(published, later)
    assert "unknown query" not in out and "warning" not in out and "NOT rescored" not in out
    assert ("score-pending: not tried again: old-model (kept on an earlier data revision "
            "by an earlier run") in out, out
    assert pending_submissions(root, published, later).ids == []
    from leaderboard.submission.kept import read_kept

    record = read_kept(folder)
    assert record is not None and record.kept_on == {TASK: f"{source.repo}@0123abcd4567"}
    assert record.pinned == {TASK: source.pinned}
    # The publish commit may carry the record.
    assert not check_published(root, f"{published}~1", published).problems
    # Whatever could change the outcome tries it again: the scorer's version ...
    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "__version__", "0.0.1")
        assert pending_submissions(root, later, later).ids == ["old-model"]
        assert "old-model: NOT rescored, kept" in publish(later, later)
        assert read_kept(folder).scorer == "followboard 0.0.1"
    # (the record the committed version wrote, back in place)
    git(root, "checkout", "-q", "--", "submissions/old-model/kept.json")
    assert pending_submissions(root, later, later).ids == []
    # ... the pinned revision of one of its tasks (the record tried another) ...
    kept_file = folder / "kept.json"
    genuine = kept_file.read_text(encoding="utf-8")
    kept_file.write_text(genuine.replace(source.pinned, f"{source.repo}@feedfacefeed"),
                         encoding="utf-8")
    assert pending_submissions(root, later, later).ids == ["old-model"]
    kept_file.write_text(genuine, encoding="utf-8")
    # ... and its files, which the push changes: the runs for the new revision at last.
    (folder / "metadata.yaml").write_text((folder / "metadata.yaml").read_text() + "\n")
    assert pending_submissions(root, later, later).ids == ["old-model"]
    git(root, "checkout", "-q", "--", "submissions/old-model")
    # A scoring that succeeds (on data its runs fit) removes the record.
    assert main(["ci", "score-pending", "--repo", str(root), "--all",
                 "--data-dir", str(data_dir), "--quiet"]) == 0
    assert "old-model: scored" in capsys.readouterr().out
    assert not kept_file.exists()


def test_pr_check_compares_no_row_scored_on_another_data_revision_and_says_so(
        repo, wtr, data_dir, actions_env, tmp_path):
    """After the pin moved, a new submission, scored on the pinned revision, was ranked
    and tested against the merged rows still scored on the old one, on other data,
    without a word. They are left out of its comparison, and the report says so, naming
    them and the revision they were scored on."""
    root, _ = repo
    _, base = _scored_before_the_pin_moved(root, data_dir, tmp_path)
    write_submission(root, "new-model", "New Model", wtr, quality="good")
    head = commit_all(root, "add new-model")
    out = tmp_path / "report"
    assert pr_check(root, base, head, out, data_dir) == 0
    report = read_ci_report(out / "report.json")
    (row,) = report.submissions[0].tasks
    old = f"{get_task(TASK).source.repo}@0123abcd4567"
    assert row.n_competitors == 0 and row.previous_leader is None
    # ... nor tested with it: ranked alone, as the site's table tests it against none.
    assert (row.tier, row.n_ranked, row.rank_best, row.rank_worst) == ("leader", 1, 1, 1)
    assert row.note == (f"not compared with Old Model: scored on {old}, another data "
                        "revision than this submission's")
    assert (f"submissions/old-model/results.json: 1 task scored on {old}, another data "
            "revision than the registry pins: not compared with this submission on them"
            ) in report.comparison_notes
    comment = (out / "comment.md").read_text()
    # (md() puts a zero-width space after "@", so no GitHub user is mentioned.)
    assert "(not compared with Old Model: scored on deu05232/FollowTable@\u200b0123abcd4567" \
        in comment



def test_pr_check_help_says_rows_on_another_data_revision_are_not_compared() -> None:
    """`ci pr-check --help` said it compares each task 'with the leader committed at
    BASE', while a verified row scored on another data revision than the registry pins is
    left out of the comparison (test above: the report and the comment say so)."""
    import argparse

    from leaderboard.app.cli import build_parser

    ci = next(a.choices for a in build_parser()._actions
              if isinstance(a, argparse._SubParsersAction))["ci"]
    check = next(a.choices for a in ci._actions
                 if isinstance(a, argparse._SubParsersAction))["pr-check"]
    described = " ".join(check.description.split())
    assert ("a verified row scored on another data revision than the registry pins is left "
            "out of the comparison") in described, described
    assert "the leader committed at BASE" not in described, described

def test_a_hand_edited_score_is_found_by_validate_and_rescored_by_publish(
        repo, pulled_data, capsys):
    """IRS and p-MRR set to 0.99 by hand, with the recorded SHA-256 of the runs kept:
    `validate` said valid and `ci score-pending` found nothing to score."""
    root, base = repo
    path = root / "submissions" / "old-model" / "results.json"
    genuine = path.read_bytes()
    data = json.loads(genuine)
    metrics = data["systems"][0]["tasks"][TASK]["metrics"]
    true_irs = metrics["IRS"]
    metrics["IRS"] = metrics["p-MRR"] = 0.99
    # The model the board shows, edited too: `--check-scores` only warned of it.
    data["systems"][0]["model"]["name"] = "A far better model"
    path.write_text(json.dumps(data, sort_keys=True, indent=1) + "\n")
    edited = commit_all(root, "a hand edit of old-model's scores")
    folder = str(path.parent)

    assert main(["validate", folder, "--data-dir", str(pulled_data), "--quiet"]) == 0
    capsys.readouterr()  # the recorded digests still match: only a rescore tells
    assert main(["validate", "--check-scores", folder, "--data-dir", str(pulled_data),
                 "--quiet"]) == 1
    out = capsys.readouterr().out
    assert ("old-model/results.json: differs from the runs and metadata.yaml: model name: "
            "not what metadata.yaml says") in out
    assert (f"old-model/results.json: differs from the runs and metadata.yaml: {TASK} IRS: "
            f"results.json has 0.99, the runs give {true_irs:.6g}") in out
    assert f"{TASK} p-MRR: results.json has 0.99" in out
    assert f"run `leaderboard score {folder} --data-dir {pulled_data}`" in out

    # A run whose push range is unknown (a force-push dropped --before, a manual run)
    # said "no submission needs scoring" and left the edit: it says what it cannot find,
    # and --all scores every submission.
    for before in ("f" * 40, ""):
        assert main(["ci", "score-pending", "--repo", str(root), "--before", before,
                     "--after", edited, "--data-dir", str(pulled_data), "--quiet"]) == 0
        err = capsys.readouterr().err
        assert "leaderboard ci score-pending: warning: " in err and "run with --all" in err, err
        assert path.read_bytes() != genuine
    assert main(["ci", "score-pending", "--repo", str(root), "--before", "f" * 40, "--after",
                 edited, "--all", "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert path.read_bytes() == genuine
    git(root, "checkout", "-q", "--", ".")
    assert main(["ci", "score-pending", "--repo", str(root), "--before", base, "--after",
                 edited, "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert "old-model: scored" in capsys.readouterr().out
    assert path.read_bytes() == genuine
    assert main(["validate", "--check-scores", folder, "--data-dir", str(pulled_data),
                 "--quiet"]) == 0


def test_score_pending_writes_workflow_commands_only_inside_actions(repo, data_dir,
                                                                   monkeypatch, capsys):
    """Whether a step runs in Actions was read two ways: $GITHUB_ACTIONS == "true" (the
    workflow log's guard, the branch and author checks) and any non-empty value (the
    score-pending warnings), so GITHUB_ACTIONS=false printed a '::warning' line outside
    Actions. One rule now (workflow_log.in_actions)."""
    root, _ = repo
    command = ["ci", "score-pending", "--repo", str(root), "--data-dir", str(data_dir),
               "--quiet"]
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    assert main(command) == 0
    out, err = capsys.readouterr()
    assert "warning: no --after commit was given" in err and "::" not in out, out
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert main(command) == 0
    assert "::warning title=Push range unknown::" in capsys.readouterr().out


def _publish_score_step() -> dict:
    """publish.yml's step that runs `ci score-pending`, as the workflow file has it."""
    import yaml

    workflow = yaml.safe_load((REPO / ".github/workflows/publish.yml").read_text())
    (step,) = [step for step in workflow["jobs"]["score"]["steps"]
               if "leaderboard ci score-pending" in (step.get("run") or "")]
    return step


def _run_publish_score_step(root: Path, data_dir: Path, before: str, after: str,
                            monkeypatch) -> int:
    """The real command of publish.yml's score step, run in ``root`` as Actions runs it
    on a push from ``before`` to ``after``: the step's env (its expressions given the
    push's values), its words as bash splits them, the leaderboard's data in data_dir."""
    step = _publish_score_step()
    given = {"${{ github.event.before }}": before, "${{ github.sha }}": after}
    for name, value in (step.get("env") or {}).items():
        monkeypatch.setenv(name, given.get(value, value))
    monkeypatch.setenv("LEADERBOARD_DATA", str(data_dir))
    monkeypatch.chdir(root)
    words = shlex.split(os.path.expandvars(step["run"]))
    assert words[:3] == ["leaderboard", "ci", "score-pending"], words
    return main([*words[1:], "--quiet"])


def test_publish_reads_a_push_whose_run_was_replaced_in_the_concurrency_group(
        repo, pulled_data, monkeypatch, capsys):
    """publish.yml's one concurrency group keeps one waiting run and cancels it when
    another push comes: push 1 (a hand edit of old-model's scores, digests kept) waits,
    push 2 (a README fix) replaces its run, and push 2's run read only push 2's range
    (--before push 1): the edit stayed on the board. The score step reads from the last
    commit a publish run pushed (the tag the push job moves), whichever runs ran."""
    root, base = repo
    git(root, "checkout", "-q", "main")
    published = _publish_score_step()["env"].get("PUBLISHED", "refs/tags/published")
    git(root, "update-ref", published, base)  # the last publish run pushed base
    path = root / "submissions" / "old-model" / "results.json"
    genuine = path.read_bytes()
    data = json.loads(genuine)
    data["systems"][0]["tasks"][TASK]["metrics"]["IRS"] = 0.99
    path.write_text(json.dumps(data, sort_keys=True, indent=1) + "\n")
    push1 = commit_all(root, "a hand edit of old-model's scores")
    (root / "README.md").write_text("a typo fixed\n")
    push2 = commit_all(root, "a README fix")
    capsys.readouterr()
    assert _run_publish_score_step(root, pulled_data, push1, push2, monkeypatch) == 0
    out, err = capsys.readouterr()
    assert "old-model: scored" in out and "warning" not in err, (out, err)
    assert path.read_bytes() == genuine
    # The first run, before any publish run moved the tag, reads the push's own range
    # and says what it cannot see.
    git(root, "checkout", "-q", "--", ".")
    git(root, "update-ref", "-d", published)
    assert _run_publish_score_step(root, pulled_data, push1, push2, monkeypatch) == 0
    out, err = capsys.readouterr()
    assert "no submission needs scoring" in out and path.read_bytes() != genuine
    assert (f"warning: --published {published} is not in this clone (no publish run has "
            "pushed since it was introduced") in " ".join(err.split()), err
    assert "run with --all" in err, err


def test_a_reformatted_results_file_is_found_by_validate_as_pr_check_refuses_it(
        repo, wtr, pulled_data, tmp_path, capsys):
    """results.json pretty-printed by hand, every score kept: `validate` (and `validate
    --check-scores`, 'results.json holds the scores of its runs') said valid, and
    pr-check refused it byte for byte. Lines ending in CRLF (a Windows checkout) are no
    fault: git commits them as LF."""
    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good")
    assert main(["score", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    path = folder / "results.json"
    genuine = path.read_text(encoding="utf-8")
    path.write_bytes(genuine.replace("\n", "\r\n").encode("utf-8"))
    assert main(["validate", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    path.write_text(json.dumps(json.loads(genuine), indent=2, sort_keys=True) + "\n",
                    encoding="utf-8")
    capsys.readouterr()
    for check in ([], ["--check-scores"]):
        assert main(["validate", *check, str(folder), "--data-dir", str(pulled_data),
                     "--quiet"]) == 1
        out = capsys.readouterr().out
        assert ("new-model/results.json:2: not as the scorer writes it from this line on "
                "(reformatted or edited by hand), while `ci pr-check` compares it byte for "
                f"byte; run `leaderboard score {folder} --data-dir {pulled_data}` to write it "
                "again") in out, out
    head = commit_all(root, "add new-model, results.json reformatted")
    assert pr_check(root, base, head, tmp_path / "report", pulled_data) == 1
    assert "results.json differs from what the scorer computes" in capsys.readouterr().out
    assert main(["score", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert path.read_text(encoding="utf-8") == genuine


def test_a_results_file_of_another_scorer_version_is_refused_by_validate_as_by_pr_check(
        repo, wtr, pulled_data, tmp_path, capsys, monkeypatch):
    """A submitter scored with another version of the scorer (then updated the project):
    `validate --check-scores` only warned that produced_by and the source differ and said
    valid, while pr-check refused the results.json the pull request carries, byte for
    byte. For a submission not merged yet it is an error; a merged one's results.json,
    which a pull request leaves as it is and pr-check never compares, is still a warning."""
    from leaderboard.submission import pipeline

    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good")
    merged = root / "submissions" / "old-model"
    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "__version__", "0.0.1")
        for sub in (folder, merged):
            assert main(["score", str(sub), "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert '"scorer": "followboard 0.0.1"' in (folder / "results.json").read_text()
    capsys.readouterr()
    check = ["validate", "--check-scores", "--data-dir", str(pulled_data), "--quiet"]
    assert main([*check, str(folder)]) == 1
    out = capsys.readouterr().out
    assert ("new-model/results.json: the scores match the runs, but produced_by, systems "
            "(source) differ from what this version of the scorer writes, while `ci "
            "pr-check` compares the results.json a pull request carries byte for byte; run "
            f"`leaderboard score {folder} --data-dir {pulled_data}` to write it again") in out, out
    assert main([*check, str(merged)]) == 0
    assert "old-model/results.json: warning: the scores match the runs" in \
        capsys.readouterr().out
    git(root, "checkout", "-q", "--", "submissions/old-model")
    head = commit_all(root, "add new-model, scored by another version")
    assert pr_check(root, base, head, tmp_path / "report", pulled_data) == 1
    assert "results.json differs from what the scorer computes" in capsys.readouterr().out


def test_a_hand_edited_score_of_a_new_submission_is_found_by_plain_validate(
        repo, wtr, pulled_data, tmp_path, capsys):
    """The guide's check is plain `validate`: it passed a score edited by hand (the
    canonical form and the recorded run digests kept), which only `--check-scores` found,
    and pr-check refused. A submission not merged yet carries its results.json in its pull
    request, which CI compares: validate compares it too, as --check-scores does."""
    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good")
    validate = ["validate", str(folder), "--data-dir", str(pulled_data), "--quiet"]
    assert main(["score", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    capsys.readouterr()
    assert main(validate) == 0
    assert "new-model: valid, and results.json holds the scores of its runs (" in \
        capsys.readouterr().out
    path = folder / "results.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    true_irs = data["systems"][0]["tasks"][TASK]["metrics"]["IRS"]
    data["systems"][0]["tasks"][TASK]["metrics"]["IRS"] = 0.99
    path.write_text(json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    assert main(validate) == 1
    out = capsys.readouterr().out
    assert (f"new-model/results.json: differs from the runs and metadata.yaml: {TASK} IRS: "
            f"results.json has 0.99, the runs give {true_irs:.6g}") in out, out
    head = commit_all(root, "add new-model, a score edited by hand")
    assert pr_check(root, base, head, tmp_path / "report", pulled_data) == 1
    assert "results.json differs from what the scorer computes" in capsys.readouterr().out


def test_runs_pull_of_a_submission_not_merged_leaves_a_folder_ci_accepts(
        repo, wtr, pulled_data, tmp_path, capsys):
    """Score, then `runs pull` (to have every file at hand) wrote the submission's own
    explorer files from the cache into explain/: validate said valid and pr-check refused
    '61 files under explain/ changed'. They are CI's, written after the merge: pull keeps
    them in the run store's cache for a submission not merged yet, and says so; a merged
    one's, in its folder as CI wrote them, stay as they are."""
    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good")
    assert main(["score", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["runs", "pull", str(folder)]) == 0
    out = capsys.readouterr().out
    assert not (folder / "explain").exists()
    assert re.search(r"new-model: pulled \(0 files written; the explorer's \d+ files are in "
                     r"the run store's cache: a pull request never carries them\)", out), out
    assert main(["validate", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    head = commit_all(root, "add new-model, pulled")
    capsys.readouterr()
    assert pr_check(root, base, head, tmp_path / "report", pulled_data) == 0, \
        capsys.readouterr().out
    merged = root / "submissions" / "old-model"
    before = sorted(p.relative_to(merged) for p in merged.rglob("*"))
    assert main(["runs", "pull", str(merged)]) == 0
    assert "old-model: pulled (0 files written)" in capsys.readouterr().out
    assert sorted(p.relative_to(merged) for p in merged.rglob("*")) == before


def _copy_kept_explanations(folder: Path) -> int:
    """What `runs pull` before 4439b6b did, and a submitter copying from the cache by
    hand does: the explorer's files a local scoring kept in the run store's cache, copied
    into the folder's explain/. Returns how many."""
    from leaderboard.store.files import StoredRef
    from leaderboard.submission.explain_files import parse_manifest, stored_refs
    from leaderboard.submission.files import submission_files

    files = submission_files(folder)
    named = json.loads((folder / "results.json").read_text())["explain_manifest"]
    ref = StoredRef("explain/manifest.json", named["bytes"], named["sha256"])
    refs = [ref, *stored_refs(parse_manifest(files.read(ref), ref.path))]
    for one in refs:
        (folder / one.path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(files.locate(one), folder / one.path)
    return len(refs)


def test_a_folder_not_merged_holding_its_own_explorer_files_is_told_to_drop_them(
        repo, wtr, pulled_data, tmp_path, capsys):
    """A submission not merged yet whose folder holds its own explain/ (the old `runs
    pull` wrote it from the cache, or a copy by hand) looked merged to the local check:
    validate said valid, without comparing results.json, and pr-check refused 'N files
    under explain/ changed'. Publishing commits explain/ with the folder where the store
    is the repository: one git does not hold at HEAD is no merged submission's, so
    validate says to drop it and score removes it; one committed on the PR's branch is
    refused by pr-check, saying to delete it and why."""
    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good")
    assert main(["score", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    copied = _copy_kept_explanations(folder)
    capsys.readouterr()
    assert main(["validate", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert (f"new-model/explain: {copied} files under explain/ that CI did not write for "
            "new-model, it is not merged yet: the default branch, main, holds no "
            "submissions/new-model/ (") in out, out
    assert f"`leaderboard score {folder} --data-dir {pulled_data}` removes them" in out, out
    assert main(["score", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert not (folder / "explain").exists()
    capsys.readouterr()
    assert main(["validate", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert "valid, and results.json holds the scores of its runs" in capsys.readouterr().out
    # Committed on the PR's branch, HEAD holds it: pr-check, which knows the base, says why.
    _copy_kept_explanations(folder)
    head = commit_all(root, "add new-model, with its explorer files")
    capsys.readouterr()
    assert pr_check(root, base, head, tmp_path / "report", pulled_data) == 1
    out = capsys.readouterr().out
    assert (f"{copied} files under explain/ changed (" in out and layout.CI_FILES in out
            and "; new-model is not merged (the base branch has no such folder), so CI "
                "wrote none of them: delete submissions/new-model/explain/ from the branch "
                "(`git rm -r submissions/new-model/explain`); `leaderboard score` keeps the "
                "explorer's files in the run store's cache") in out, out
    # The default branch decides, not HEAD: the copy committed there is refused and removed.
    assert main(["validate", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 1
    assert (f"{copied} files under explain/ that CI did not write for new-model, it is not "
            "merged yet: the default branch, main, holds no submissions/new-model/ (") \
        in capsys.readouterr().out
    assert main(["score", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert not (folder / "explain").exists()


def test_a_merged_submissions_explain_is_kept_where_the_default_branch_is_behind_head(
        repo, data_dir, capsys):
    """The default branch as git has it here (a stale main, a fork's origin) holds a merged
    submission's folder but not the explain/ publishing committed since, which HEAD holds:
    the files are CI's, kept by validate and score (removing them deletes published
    files in the branch, which pr-check refuses). Not committed at HEAD, they are a copy."""
    root, _ = repo
    merged = root / "submissions" / "old-model"
    git(root, "checkout", "-q", "main")
    git(root, "rm", "-q", "-r", "--cached", "submissions/old-model/explain")
    git(root, "commit", "-q", "-m", "main, before publishing committed old-model's explain/")
    shutil.rmtree(merged / "explain")  # pr's HEAD holds it: checking pr out puts it back
    git(root, "checkout", "-q", "pr")
    assert (merged / "explain" / "manifest.json").is_file()
    capsys.readouterr()
    validate = ["validate", str(merged), "--data-dir", str(data_dir), "--quiet"]
    assert main(validate) == 0, capsys.readouterr().out
    assert main(["score", str(merged), "--data-dir", str(data_dir), "--quiet"]) == 0
    assert (merged / "explain" / "manifest.json").is_file()
    git(root, "rm", "-q", "-r", "--cached", "submissions/old-model/explain")
    git(root, "commit", "-q", "-m", "old-model's explain/, not committed")
    capsys.readouterr()
    assert main(validate) == 1
    assert ("that CI did not write for old-model, the default branch, main, holds no "
            "submissions/old-model/explain/manifest.json (") in capsys.readouterr().out


def test_a_new_submissions_own_explorer_files_copied_into_its_folder_are_refused_by_validate(
        repo, wtr, pulled_data, tmp_path, capsys):
    """Score, then copy the explorer's files from the cache into explain/ by hand: the
    folder looked merged (CI's explain/manifest.json for it, every file as listed), so
    validate said valid and pr-check refused '61 files under explain/ changed'. The
    default branch does not hold it: every file under its explain/ is one the pull request
    would add, which validate refuses and score removes (they are in the cache)."""
    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good")
    assert main(["score", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    _copy_kept_explanations(folder)
    capsys.readouterr()
    validate = ["validate", str(folder), "--data-dir", str(pulled_data), "--quiet"]
    assert main(validate) == 1
    out = capsys.readouterr().out
    assert re.search(r"new-model/explain: \d+ files under explain/ that CI did not write for "
                     r"new-model, it is not merged yet: the default branch, main, holds no "
                     r"submissions/new-model/ \(explain/followtable/wtr", out), out
    assert (layout.CI_FILES in out
            and f"`leaderboard score {folder} --data-dir {pulled_data}` removes them" in out), out
    assert main(["score", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert "new-model/explain: warning: removed " in capsys.readouterr().out
    assert not (folder / "explain").exists()
    assert main(validate) == 0
    head = commit_all(root, "add new-model")
    capsys.readouterr()
    assert pr_check(root, base, head, tmp_path / "report", pulled_data) == 0, \
        capsys.readouterr().out
    assert main(["runs", "verify", str(folder)]) == 0  # the explorer's files, from the cache


def test_a_merged_submission_whose_explorer_files_are_in_an_https_store_is_merged(
        repo, wtr, pulled_data, tmp_path, capsys, monkeypatch):
    """A deployment whose run store is an https:// mirror: publishing moved a merged
    submission's explain/ there, so its folder holds none. validate took it for one not
    merged yet (no explain/ in the folder, and the mirror is not asked), compared its
    results.json, and called another scorer version's an error, while pr-check leaves a
    merged submission's results.json alone. Merged is what the default branch holds."""
    from leaderboard.submission import pipeline

    root, base = repo
    merged = root / "submissions" / "old-model"
    mirror = tmp_path / "mirror"
    # Publishing, on main, with another version of the scorer, then explain/ to the mirror.
    git(root, "checkout", "-q", "main")
    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "__version__", "0.0.1")
        assert score_submission(merged, pulled_data, after_merge=True).results_path is not None
    (mirror / "submissions" / "old-model").mkdir(parents=True)
    shutil.move(merged / "explain", mirror / "submissions" / "old-model" / "explain")
    base = commit_all(root, "publish old-model, explain/ moved to the mirror")
    git(root, "checkout", "-q", "-b", "new-model")

    isolate_from_the_network(monkeypatch)
    with serving(folder_handler(mirror)) as url:
        monkeypatch.setenv("LEADERBOARD_RUN_STORE", f"{url}/{{+path}}")
        folder = write_submission(root, "new-model", "New Model", wtr, quality="good")
        assert main(["score", str(folder), "--data-dir", str(pulled_data), "--quiet"]) == 0
        capsys.readouterr()
        for sub in (folder, merged):
            assert main(["validate", str(sub), "--data-dir", str(pulled_data), "--quiet"]) == 0, \
                capsys.readouterr().out
        assert main(["validate", "--check-scores", str(merged), "--data-dir", str(pulled_data),
                     "--quiet"]) == 0
        assert "old-model/results.json: warning: the scores match the runs, but produced_by" \
            in capsys.readouterr().out
        head = commit_all(root, "add new-model")
        assert pr_check(root, base, head, tmp_path / "report", pulled_data) == 0, \
            capsys.readouterr().out


def test_a_merged_submission_pulled_from_a_store_that_keeps_its_explorer_files_stays_one_ci_accepts(
        repo, pulled_data, tmp_path, capsys, monkeypatch):
    """A deployment whose run store is not the repository: publishing moved a merged
    submission's files there, explain/ too, so the default branch's folder holds none. Its
    owner pulled the files to update it (runs pull), which wrote explain/ into the folder;
    validate said valid after the update, and pr-check refused '... files under explain/
    changed'. The explorer's files belong in a folder only where the default branch holds
    them: pull keeps them in the cache, and validate refuses, and score removes, any."""
    root, base = repo
    store = tmp_path / "store"
    merged = root / "submissions" / "old-model"
    git(root, "checkout", "-q", "main")
    shutil.copytree(merged, store / "submissions" / "old-model")
    for name in ("runs", "per-query.json.gz", "explain"):  # what runs push --all moves
        path = merged / name
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    base = commit_all(root, "publish old-model into the run store")
    git(root, "checkout", "-q", "-b", "update")
    monkeypatch.setenv("LEADERBOARD_RUN_STORE", str(store))
    assert main(["runs", "pull", str(merged)]) == 0
    assert re.search(r"old-model: pulled \(\d+ files written; the explorer's \d+ files are in the "
                     r"run store's cache: a pull request never carries them\)",
                     capsys.readouterr().out)
    assert not (merged / "explain").exists()
    meta = merged / "metadata.yaml"
    meta.write_text(meta.read_text(encoding="utf-8").replace("Old Model", "Old Model 1.1"),
                    encoding="utf-8")
    assert main(["score", str(merged), "--data-dir", str(pulled_data), "--quiet"]) == 0
    shutil.copytree(store / "submissions" / "old-model" / "explain", merged / "explain")
    capsys.readouterr()
    validate = ["validate", str(merged), "--data-dir", str(pulled_data), "--quiet"]
    assert main(validate) == 1
    out = capsys.readouterr().out
    assert re.search(r"old-model/explain: \d+ files under explain/ that CI did not write for "
                     r"old-model, the default branch, main, holds no "
                     r"submissions/old-model/explain/manifest.json \(",
                     out), out
    assert main(["score", str(merged), "--data-dir", str(pulled_data), "--quiet"]) == 0
    assert not (merged / "explain").exists()
    assert main(validate) == 0
    head = commit_all(root, "old-model: a new name")
    capsys.readouterr()
    assert pr_check(root, base, head, tmp_path / "report", pulled_data) == 0, \
        capsys.readouterr().out


def test_moving_the_files_to_the_run_store_rescores_nothing_the_store_holds(
        repo, tmp_path, monkeypatch):
    """MAINTAINERS.md's move to a run store (`runs push --all`, then commit) made the next
    publish run rescore every merged submission: score-pending took the commit's removal
    of per-query.json.gz for a change of the submission, where it takes the removal of the
    run and explanation files moved with it for bookkeeping. Once pushed, the per-query
    file is read through the store (read_results), so its removal is bookkeeping too while
    the store holds the file results.json names; an edited per-query file, or a removed
    one the store does not hold as named, is still a change, and rescored."""
    from leaderboard.app.ci.pending import pending_submissions

    root, _ = repo
    git(root, "checkout", "-q", "main")
    published = git(root, "rev-parse", "HEAD")
    store = tmp_path / "store"
    monkeypatch.setenv("LEADERBOARD_RUN_STORE", str(store))
    assert main(["runs", "push", "--all", "--submissions-dir", str(root / "submissions"),
                 "--quiet"]) == 0
    local = root / "submissions" / "old-model" / "per-query.json.gz"
    assert not local.exists()
    moved = commit_all(root, "Keep runs and per-query scores in the run store")

    def pending() -> list[str]:
        return pending_submissions(root, None, moved, published=published).ids

    assert pending() == []
    stored = store / "submissions" / "old-model" / "per-query.json.gz"
    content = stored.read_bytes()
    stored.unlink()           # the store lacks it: the scores are lost, a change
    assert pending() == ["old-model"]
    stored.write_bytes(content[:-1])  # nor is a different copy the file results.json names
    assert pending() == ["old-model"]
    stored.write_bytes(content)

    isolate_from_the_network(monkeypatch)
    with serving(folder_handler(store)) as url:  # the same store, served over HTTP
        monkeypatch.setenv("LEADERBOARD_RUN_STORE", f"{url}/{{+path}}")
        assert pending() == []
        stored.unlink()       # fetched into the cache above, which is not the store
        assert pending() == ["old-model"]
        stored.write_bytes(content)
    monkeypatch.delenv("LEADERBOARD_RUN_STORE")  # the store is the repository: removed
    assert pending() == ["old-model"]
    monkeypatch.setenv("LEADERBOARD_RUN_STORE", str(store))
    local.write_bytes(gzip.compress(b"{}"))  # a hand-edited per-query file
    moved = commit_all(root, "edit the per-query scores")
    assert pending() == ["old-model"]


def test_outside_a_git_checkout_merged_is_what_the_folder_and_store_tell(
        repo, wtr, pulled_data, tmp_path, capsys, monkeypatch):
    """A folder outside any git checkout (a copy to work on) has no default branch to
    ask: merged is what its folder and the run store tell. Scored by another version of
    the scorer, a merged submission's copy (explain/ as CI wrote it) gets a warning from
    validate --check-scores; a new submission's folder (its explorer files in the cache)
    an error from plain validate, as pr-check refuses it in the pull request adding it."""
    from leaderboard.submission import pipeline

    root, base = repo
    outside = tmp_path / "outside"
    copy = outside / "submissions" / "old-model"
    shutil.copytree(root / "submissions" / "old-model", copy)
    new = write_submission(outside, "new-model", "New Model", wtr, quality="good")
    assert subprocess.run(["git", "-C", str(outside), "rev-parse"], capture_output=True,
                          check=False).returncode != 0
    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "__version__", "0.0.1")
        assert score_submission(copy, pulled_data, after_merge=True).results_path is not None
        assert main(["score", str(new), "--data-dir", str(pulled_data), "--quiet"]) == 0
    capsys.readouterr()
    validate = ["validate", "--data-dir", str(pulled_data), "--quiet"]
    assert main([*validate, "--check-scores", str(copy)]) == 0
    assert "old-model/results.json: warning: the scores match the runs, but produced_by" \
        in capsys.readouterr().out
    assert main([*validate, str(new)]) == 1
    assert ("new-model/results.json: the scores match the runs, but produced_by, systems "
            "(source) differ from what this version of the scorer writes, while `ci "
            "pr-check` compares") in capsys.readouterr().out


def test_score_pending_never_writes_through_a_linked_folder(repo, wtr, data_dir, tmp_path,
                                                            capsys):
    """submissions/evil, a link to a valid submission elsewhere: `score-pending` said
    "evil: scored -> submissions/evil/results.json" and wrote its files where the link
    points, outside the repository's submissions."""
    root, base = repo
    elsewhere = tmp_path / "elsewhere"
    write_submission(elsewhere, "evil", "Evil", wtr, quality="good")
    (root / "submissions" / "evil").symlink_to(elsewhere / "submissions" / "evil",
                                               target_is_directory=True)
    head = commit_all(root, "a linked submission folder")
    before = sorted(p.name for p in (elsewhere / "submissions" / "evil").iterdir())
    assert main(["ci", "score-pending", "--repo", str(root), "--before", base, "--after",
                 head, "--data-dir", str(data_dir), "--quiet"]) == 0
    assert "evil" not in capsys.readouterr().out
    assert sorted(p.name for p in (elsewhere / "submissions" / "evil").iterdir()) == before


def test_names_lose_controls_direction_marks_and_issue_links():
    """A report's text reached the comment with terminal escapes, a right-to-left override
    (a name shown reordered) and "GH-123", which GitHub links to issue 123."""
    out = md("Model \x1b[31mred\u202e 5MB GH-123")
    assert "\x1b" not in out and "\u202e" not in out and "GH-123" not in out, out
    assert out.startswith("Model \\[31mred 5MB GH\u200b-123"), out
    assert "\x1b" not in code("a\x1bb") and "\u202e" not in code("a\u202eb")


def test_issue_numbers_in_names_are_not_references():
    """"#123" reached the comment as "\\#123": the backslash stops a Markdown heading, but
    GitHub finds references in the rendered text, so it still linked issue 123 and left
    a "mentioned" entry on it (as "owner/repo#123" does on another repository's)."""
    for text in ("see #123", "#1 model", "org/repo#45"):
        out = md(text)
        assert re.search(r"#\d", out) is None, out
        assert out.replace("\u200b", "").replace("\\#", "#") == text
    assert md("C# model") == "C\\# model"  # a '#' before no digit references nothing


def test_bare_urls_in_names_are_not_links():
    for text in ("see https://evil.example/x", "HTTP://evil.example", "www.evil.example",
                 "ftp://x.example", "a javascript://x"):
        out = md(text)
        assert "://" not in out and "www." not in out, out
    sub = SubmissionCheck(id="new-model", model_name="Best https://evil.example model",
                          valid=True, n_errors=0, n_warnings=0)
    text = comment_body(_report(status="valid", submissions=[sub]))
    assert "https://evil" not in text and "https:\u200b//evil.example" in text


# --------------------------------------------------------------------------- the run store

@pytest.fixture
def fake_hub(tmp_path: Path, monkeypatch):
    """The fake Hub (tests/fixtures/fake_upstream.py): a submitter's dataset holding a
    folder of runs, and the leaderboard's own, empty, dataset."""
    from fixtures.fake_upstream import FakeRepo, FakeUpstream, isolate_from_the_network, serve

    isolate_from_the_network(monkeypatch)
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "store-cache"))
    up = FakeUpstream(lfs_suffixes=(".gz",))
    for name, commit in (("jane/runs", "a" * 40), ("board/runs", "b" * 40)):
        root = tmp_path / f"hub-{name.replace('/', '-')}"
        root.mkdir()
        up.hf[name] = FakeRepo(root, commit)
    with serve(up, monkeypatch):
        yield up


def runs_in_the_submitters_dataset(root: Path, hub, wtr, sub_id: str, quality: str) -> str:
    """The PR shape that carries no runs: metadata.yaml and a manifest naming the runs in
    the submitter's dataset at a commit. Returns that commit."""
    from leaderboard.submission.manifest import Manifest, digest_file

    folder = write_submission(root, sub_id, "New Model", wtr, quality=quality)
    dataset = hub.hf["jane/runs"]
    manifest = Manifest()
    for run in sorted((folder / RUNS).iterdir()):
        rel = f"{RUNS}/{run.name}"
        manifest.entries[rel] = digest_file(run, rel)
    commit = dataset.commit_files({f"{sub_id}/{rel}": (folder / rel).read_bytes()
                                   for rel in manifest.entries}, [])
    shutil.rmtree(folder / "runs")
    (folder / "manifest.txt").write_text(
        f"format: followboard-manifest/1\nsource: hf://datasets/jane/runs@{commit}/{sub_id}\n"
        + "".join(f"{e.sha256}  {e.size}  {e.path}\n" for e in manifest.entries.values()))
    return commit


def test_a_pr_may_name_runs_in_its_own_dataset_instead_of_carrying_them(
        repo, wtr, data_dir, fake_hub, tmp_path, capsys):
    root, base = repo
    runs_in_the_submitters_dataset(root, fake_hub, wtr, "new-model", "good")
    head = commit_all(root, "add new-model, runs in my dataset")
    assert git(root, "ls-tree", "-r", "--name-only", head, "submissions/new-model").split() == \
        ["submissions/new-model/manifest.txt", "submissions/new-model/metadata.yaml"]
    out = tmp_path / "report"
    assert pr_check(root, base, head, out, data_dir) == 0
    assert "pr-check: valid (new-model)" in capsys.readouterr().out
    (sub,) = read_ci_report(out / "report.json").submissions
    assert sub.valid and sub.tasks[0].tier == "leader"
    # The same runs carried in the pull request give the same results.json, byte for byte.
    git(root, "checkout", "-q", base)
    git(root, "checkout", "-q", "-b", "carried")
    write_submission(root, "new-model", "New Model", wtr, quality="good")
    carried = commit_all(root, "add new-model with its runs")
    out2 = tmp_path / "report2"
    assert pr_check(root, base, carried, out2, data_dir) == 0
    for name in ("results.json", "per-query.json.gz"):
        assert (out / "results" / "new-model" / name).read_bytes() == \
            (out2 / "results" / "new-model" / name).read_bytes()


def test_a_pr_manifest_pointing_anywhere_else_is_refused_on_its_line(
        repo, wtr, data_dir, fake_hub, tmp_path, capsys):
    root, base = repo
    commit = runs_in_the_submitters_dataset(root, fake_hub, wtr, "new-model", "good")
    manifest = root / "submissions" / "new-model" / "manifest.txt"
    good = manifest.read_text()
    for source, message in (
            ("https://evil.example/runs", "is outside the configured store"),
            ("hf://datasets/jane/runs@main/new-model", "revision 'main' is not a commit id")):
        manifest.write_text(good.replace(f"hf://datasets/jane/runs@{commit}/new-model", source))
        head = commit_all(root, f"source {source}")
        out = tmp_path / source.replace("/", "_")
        assert pr_check(root, base, head, out, data_dir) == 1
        (sub,) = read_ci_report(out / "report.json").submissions
        (problem,) = [p for p in sub.problems if p.path.endswith("manifest.txt")]
        assert problem.path == "submissions/new-model/manifest.txt" and problem.line == 2
        assert message in problem.message
    capsys.readouterr()
    # A dataset whose file is not what the manifest lists: refused, naming the file.
    manifest.write_text(good)
    dataset = fake_hub.hf["jane/runs"]
    fake_hub.corrupt.add(f"new-model/{RUNS}/altered.trec.gz")
    head = commit_all(root, "back to the dataset")
    out = tmp_path / "corrupt"
    assert pr_check(root, base, head, out, data_dir) == 1
    (sub,) = read_ci_report(out / "report.json").submissions
    assert [p.path for p in sub.problems] == [f"submissions/new-model/{RUNS}/altered.trec.gz"]
    assert "does not match: its sha256 is" in sub.problems[0].message
    assert dataset.commit  # the dataset itself is untouched


def test_publish_moves_merged_runs_to_the_dataset_and_the_next_pr_reads_them_there(
        repo, wtr, data_dir, fake_hub, tmp_path, capsys, monkeypatch):
    root, base = repo
    runs_in_the_submitters_dataset(root, fake_hub, wtr, "new-model", "good")
    merged = commit_all(root, "merge new-model")
    monkeypatch.chdir(root)
    monkeypatch.setenv("LEADERBOARD_RUN_STORE", "hf://datasets/board/runs")
    # The publish job: score what the push changed, move the files to the store, commit.
    assert main(["ci", "score-pending", "--repo", str(root), "--before", base, "--after",
                 merged, "--data-dir", str(data_dir), "--quiet"]) == 0
    old_explained = [p for p in (root / "submissions" / "old-model" / "explain").rglob("*")
                     if p.is_file()]
    assert main(["runs", "push", "--all", "--quiet"]) == 0
    out = capsys.readouterr().out
    store = fake_hub.hf["board/runs"]
    in_store = store.root / "submissions" / "new-model"
    stored = sorted(p.relative_to(in_store).as_posix() for p in in_store.rglob("*")
                    if p.is_file())
    # The runs, the per-query file, and the explanation files beside them.
    explained = [p for p in stored if p.startswith("explain/")]
    assert "explain/manifest.json" in explained and len(explained) > 3
    assert [p for p in stored if not p.startswith("explain/")] == [
        "per-query.json.gz", f"{RUNS}/altered.trec.gz", f"{RUNS}/original.trec.gz"]
    assert f"new-model: {len(stored)} files uploaded, now at hf://datasets/board/runs@" \
           f"{store.commit}/submissions/new-model" in out
    # old-model's files are in git (scored before the store moved): pushed along.
    assert f"old-model: {3 + len(old_explained)} files uploaded" in out
    published = commit_all(root, "publish")
    # The push job's check passes the commit the real score-pending and runs push made.
    assert main(["ci", "check-commit", "--repo", str(root), "--base", merged, "--commit",
                 published, "--published"]) == 0
    for sub_id in ("new-model", "old-model"):
        assert git(root, "ls-tree", "-r", "--name-only", published,
                   f"submissions/{sub_id}").split() == [
            f"submissions/{sub_id}/{n}" for n in ("manifest.txt", "metadata.yaml",
                                                  "results.json")]
    # old-model's files went to the dataset with the commit, its per-query file too,
    # which is read there: a range holding that commit does not rescore it.
    from leaderboard.app.ci.pending import pending_submissions
    assert pending_submissions(root, merged, published).ids == ["new-model"]
    # Up to date: the next publish run, reading from the commit the last one pushed (the
    # tag the push job moves), scores nothing and pushes nothing. (The range from merged
    # holds the publish commit, which changes new-model's files, and rescored it.)
    git(root, "update-ref", _publish_score_step()["env"]["PUBLISHED"], published)
    capsys.readouterr()
    assert _run_publish_score_step(root, data_dir, merged, published, monkeypatch) == 0
    out = capsys.readouterr().out
    assert "no submission needs scoring" in out and "scored ->" not in out, out
    assert main(["runs", "push", "--all", "--quiet"]) == 0
    assert "nothing to push" in capsys.readouterr().out
    assert git(root, "status", "--porcelain") == ""  # nothing to commit either
    # A later PR is compared with new-model, whose per-query scores are only in the store.
    git(root, "checkout", "-q", "-b", "later")
    write_submission(root, "weak-model", "Weak Model", wtr, quality="weak")
    head = commit_all(root, "add weak-model")
    out_dir = tmp_path / "report"
    assert pr_check(root, published, head, out_dir, data_dir) == 0
    report = read_ci_report(out_dir / "report.json")
    assert report.comparison_notes == []
    (row,) = report.submissions[0].tasks
    assert row.previous_leader == "New Model" and row.n_competitors == 2
    assert row.tier == "below leader"


# --------------------------------------------------------------------------- handover

HANDED_BASE = {"submissions/bm25s/metadata.yaml": "id: bm25s\n",
               "submissions/bm25s/manifest.txt": "m\n",
               "submissions/bm25s/runs/t/original.trec": "r\n",
               "submissions/bm25s/results.json": "{}\n",
               "submissions/bm25s/per-query.json.gz": "p\n",
               "README.md": "board\n"}


def _handed(tmp_path: Path, edit) -> tuple[Path, str, str]:
    """A repository of HANDED_BASE, and one commit on it of what ``edit`` does to the
    folder: (repository, base, commit)."""
    root = tmp_path / "handed"
    for rel, text in HANDED_BASE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root.parent, "init", "-q", str(root))
    git(root, "config", "user.name", "t")
    git(root, "config", "user.email", "t@example.org")
    base = commit_all(root, "base")
    edit(root / "submissions" / "bm25s")
    return root, base, commit_all(root, "handed over")


def _write(rel: str, text: str = "x\n"):
    def edit(folder: Path) -> None:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return edit


def _remove(rel: str):
    return lambda folder: (folder / rel).unlink()


def _link(rel: str):
    def edit(folder: Path) -> None:
        (folder / rel).unlink()
        (folder / rel).symlink_to("/etc/passwd")
    return edit


def _executable(rel: str):
    return lambda folder: (folder / rel).chmod(0o755)


def test_what_publishing_may_do_is_said_for_every_entry_of_a_submission():
    assert set(PUBLISHED) == set(ROOT_ENTRIES)
    assert set("".join(PUBLISHED.values())) <= set("AMD")


@pytest.mark.parametrize(("edit", "problem"), [
    (_write("results.json", '{"v": 2}\n'), None),
    (_write("manifest.txt", "m2\n"), None),
    (_write("explain/manifest.json"), None),
    (_remove("runs/t/original.trec"), None),           # the run store holds it now
    (_remove("per-query.json.gz"), None),
    (_write("runs/t/original.trec", "forged\n"),
     "runs/t/original.trec: the commit changes it; publishing may delete runs/"),
    (_write("runs/t/altered.trec"), "runs/t/altered.trec: the commit adds it"),
    (_write("metadata.yaml", "id: bm25s\nowner: mallory\n"),
     "metadata.yaml: the commit changes it; publishing may not change metadata.yaml"),
    (_remove("results.json"), "results.json: the commit deletes it; publishing may add, change"),
    (_write("notes.txt"), "submissions/bm25s/notes.txt: no entry of a submission folder"),
    (_write("../../README.md", "pwned\n"), "README.md: outside submissions/<id>/"),
    (_write("../../.github/workflows/x.yml"), ".github/workflows/x.yml: outside"),
    (_write("../new-model/results.json"),
     "submissions/new-model/ is no submission merged at"),
    (_link("results.json"), "results.json: the commit makes it git mode 120000"),
    (_executable("results.json"), "results.json: the commit makes it git mode 100755"),
], ids=["results", "manifest", "explain", "runs-stored", "per-query-stored", "run-rewritten",
        "run-added", "metadata", "results-removed", "stray", "outside", "workflow",
        "new-folder", "link", "executable"])
def test_the_push_job_takes_only_what_publishing_writes(edit, problem, tmp_path: Path):
    root, base, commit = _handed(tmp_path, edit)
    hand = check_published(root, base, commit)
    if problem is None:
        assert hand.ok and hand.changes, hand.problems
    else:
        assert any(problem in p for p in hand.problems), hand.problems


@pytest.mark.parametrize(("edit", "problem"), [
    (_write("runs/t/altered.trec"), None),
    (_write("metadata.yaml", "id: bm25s\nmodel: {}\n"), None),
    (_remove("runs/t/original.trec"), None),
    (_write("explain/manifest.json"), "explain/manifest.json: the explorer's files are "
                                      "written by CI"),
    (_write("../other/results.json"), "submissions/other/results.json: outside "
                                      "submissions/bm25s/"),
    (_write("../../README.md", "pwned\n"), "README.md: outside submissions/bm25s/"),
    (_link("results.json"), "git mode 120000"),
], ids=["run", "metadata", "removal", "explain", "other-folder", "outside", "link"])
def test_a_reference_models_branch_may_change_its_own_folder_only(edit, problem,
                                                                   tmp_path: Path):
    root, base, commit = _handed(tmp_path, edit)
    hand = check_proposal(root, base, commit, "bm25s")
    if problem is None:
        assert hand.ok, hand.problems
    else:
        assert any(problem in p for p in hand.problems), hand.problems


def test_a_handed_over_commit_is_one_commit_on_the_base(tmp_path: Path, capsys):
    root, base, first = _handed(tmp_path, _write("results.json", '{"v": 2}\n'))
    _write("results.json", '{"v": 3}\n')(root / "submissions" / "bm25s")
    second = commit_all(root, "again")
    for commit in (second, base):
        (problem,) = check_published(root, base, commit).problems
        assert f"is not one commit on {base}" in problem
    git(root, "checkout", "-q", "-b", "side", base)
    _write("manifest.txt", "m3\n")(root / "submissions" / "bm25s")
    side = commit_all(root, "side")
    git(root, "checkout", "-q", "-")
    git(root, "merge", "-q", "--no-edit", side)
    merge = git(root, "rev-parse", "HEAD")
    assert "is not one commit on" in check_published(root, first, merge).problems[0]
    # The command: 0 for a commit it may push, 1 naming each problem, 2 for no id.
    assert main(["ci", "check-commit", "--repo", str(root), "--base", base, "--commit",
                 first, "--published"]) == 0
    assert "changes 1 file, only what publishing writes" in capsys.readouterr().out
    assert main(["ci", "check-commit", "--repo", str(root), "--base", base, "--commit",
                 second, "--published"]) == 1
    assert "may not be pushed: 1 problem" in capsys.readouterr().err
    assert exit_status(["ci", "check-commit", "--repo", str(root), "--base", base, "--commit",
                        first, "--submission", ".."]) == 2
    assert "'..' is not a submission id" in capsys.readouterr().err
    assert exit_status(["ci", "check-commit", "--repo", str(root), "--base", base, "--commit",
                        "no-such-branch", "--published"]) == 2


def _log(root: Path, rev: str, fmt: str) -> str:
    return subprocess.run(["git", "-C", str(root), "log", "-1", f"--format={fmt}", rev],
                          capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("scope", ["published", "submission"])
def test_the_pushed_commit_is_the_workflows_own_of_the_checked_tree(scope: str,
                                                                   tmp_path: Path, capsys):
    """The push jobs pushed the handed-over commit object, whose author, committer, dates
    and message the read-only job that made it chose: a forged maintainer as author, a
    `[skip ci]` message, a date decades away all landed on main verbatim. --recommit
    commits the checked tree on the base as the workflow, now, with its own message."""
    edit = _write("results.json", '{"v": 2}\n') if scope == "published" \
        else _write("runs/t/altered.trec")
    root, base, handed = _handed(tmp_path, edit)
    git(root, "-c", "user.name=A Maintainer", "-c", "user.email=maintainer@followboard.org",
        "commit", "-q", "--amend", "--reset-author", "--date=2099-01-01T00:00:00",
        "-m", "[skip ci] Security fix, reviewed by the maintainers")
    handed = git(root, "rev-parse", "HEAD")
    scope_args = ["--published"] if scope == "published" else ["--submission", "bm25s"]
    assert main(["ci", "check-commit", "--repo", str(root), "--base", base, "--commit",
                 handed, *scope_args, "--recommit", "refs/heads/checked"]) == 0, \
        capsys.readouterr().err
    made = git(root, "rev-parse", "refs/heads/checked")
    assert made in capsys.readouterr().out and made != handed
    assert _log(root, made, "%an <%ae>|%cn <%ce>") == (
        "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>|"
        "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>\n")
    assert abs(int(_log(root, made, "%at")) - time.time()) < 600
    assert abs(int(_log(root, made, "%ct")) - time.time()) < 600
    assert _log(root, made, "%P").split() == [base]
    assert git(root, "rev-parse", f"{made}^{{tree}}") == git(root, "rev-parse",
                                                             f"{handed}^{{tree}}")
    said = _log(root, made, "%B")
    assert "skip ci" not in said and "Maintainer" not in said and "reviewed" not in said
    subject = ("Publish merged submissions: bm25s" if scope == "published"
               else "Baseline bm25s: runs and results")
    assert said.splitlines()[0] == subject
    assert ("submissions/bm25s/: changes 1 file" if scope == "published"
            else "submissions/bm25s/: adds 1 file") in said


def test_a_commit_that_fails_its_check_is_never_recommitted(tmp_path: Path, capsys):
    root, base, handed = _handed(tmp_path, _write("../../README.md", "pwned\n"))
    assert main(["ci", "check-commit", "--repo", str(root), "--base", base, "--commit",
                 handed, "--published", "--recommit", "refs/heads/checked"]) == 1
    assert "may not be pushed" in capsys.readouterr().err
    assert subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "--quiet",
                           "refs/heads/checked"], capture_output=True, check=False
                          ).returncode != 0
    root, base, handed = _handed(tmp_path / "b", _write("results.json", '{"v": 2}\n'))
    for bad in ("main", "refs/heads/a..b", "HEAD"):
        assert exit_status(["ci", "check-commit", "--repo", str(root), "--base", base,
                            "--commit", handed, "--published", "--recommit", bad]) == 2
        said = capsys.readouterr()
        assert "is not a branch's full name" in said.err
        # A usage error is refused before any work: no pass line before the refusal.
        assert said.out == "" and "changes" not in said.err


@pytest.mark.parametrize("scope", ["published", "submission"])
def test_a_handed_over_commit_that_changes_nothing_is_not_recommitted(scope: str,
                                                                      tmp_path: Path, capsys):
    """A commit that changes nothing passes its check, but --recommit made an empty
    commit of it ('Publish merged submissions: ', no id after the colon); then refused it
    after printing the check's pass line ('changes 0 files'), a pass the command did not
    give: the refusal is all it says."""
    root, base, _ = _handed(tmp_path, _write("results.json", '{"v": 2}\n'))
    git(root, "reset", "-q", "--hard", base)
    git(root, "commit", "-q", "--allow-empty", "-m", "nothing")
    empty = git(root, "rev-parse", "HEAD")
    scope_args = ["--published"] if scope == "published" else ["--submission", "bm25s"]
    assert main(["ci", "check-commit", "--repo", str(root), "--base", base, "--commit",
                 empty, *scope_args, "--recommit", "refs/heads/checked"]) == 1
    said = capsys.readouterr()
    assert f"{empty} changes nothing; there is no tree to recommit" in said.err
    assert said.out == ""
    assert subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "--quiet",
                           "refs/heads/checked"], capture_output=True, check=False
                          ).returncode != 0


@pytest.mark.parametrize(("changed", "full"), [
    ({"docs/MAINTAINERS.md": "more\n"}, False),
    ({"README.md": "more\n", "results/reported/paper.json": "{}\n"}, False),
    ({"leaderboard-notes.md": "x\n", "tests/test_ci.py": "x\n"}, False),
    ({"submissions/new-model/metadata.yaml": "id: new-model\n"}, True),
    ({"submissions/README.md": "x\n"}, True),     # refused by the check: it must run
    ({"submissions/old-model/metadata.yaml": None}, True),  # a deletion
    ({"docs/x.md": "x\n", "submissions/old-model/runs/x": "x\n"}, True),
    ({"leaderboard/benchmarks/followtable.py": "PIN = 1\n"}, True),  # the data registry
    ({"leaderboard/__init__.py": "x\n"}, True),
    ({"reference_models/models.yaml": "x\n"}, True),
    ({"pyproject.toml": "x\n"}, True),
    ({"requirements/ci.txt": "x\n"}, True),
    ({".github/workflows/pr-validate.yml": "x\n"}, True),
])
def test_only_a_pr_that_changes_no_submission_nor_the_checks_code_skips_the_data(
        changed: dict, full: bool, tmp_path: Path, actions_env, capsys):
    """pr-validate.yml pulled the benchmark data (minutes of downloads) for every pull
    request, a typo fix in the docs too. `ci pr-scope` decides from the diff pr-check
    reads: the whole check for a change under submissions/ or to what the check depends
    on (its code, the data registry, the reference models, pyproject.toml, the lock file,
    the workflow); otherwise pr-check reports "no submission changed" without any data."""
    root = tmp_path / "repo"
    for rel, text in {"docs/MAINTAINERS.md": "m\n", "leaderboard/__init__.py": "\n",
                      "submissions/old-model/metadata.yaml": "id: old-model\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    init_repo(root)
    base = commit_all(root, "base")
    git(root, "checkout", "-q", "-b", "pr")
    for rel, text in changed.items():
        if text is None:
            (root / rel).unlink()
        else:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
    head = commit_all(root, "pr")
    assert main(["ci", "pr-scope", "--repo", str(root), "--base", base, "--head", head]) == 0
    said = capsys.readouterr().out
    assert outputs(actions_env["output"]) == {"full": "true" if full else "false"}, said
    if full:
        assert "the whole check: it changes " in said
        return
    assert "no benchmark data needed" in said
    # What the workflow then runs, with no data at all: no submission, a pass.
    out = tmp_path / "report"
    assert pr_check(root, base, head, out, tmp_path / "no-data") == 0
    assert read_ci_report(out / "report.json").status == "none"


def test_a_file_name_pr_scope_prints_runs_no_workflow_command(tmp_path, actions_env,
                                                             monkeypatch, capsys):
    """`ci pr-scope`, in the pull request's job, printed the first file it changes as git
    names it: a file named `a<LF>::add-mask::FollowBoard ##[error]fake` put a line of the
    stranger's choosing into the log, which the runner ran (and `##[` runs anywhere in a
    line). The line is printed with workflow commands stopped."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    root = tmp_path / "repo"
    root.mkdir()
    init_repo(root)
    (root / "README.md").write_text("a\n")
    base = commit_all(root, "base")
    evil = root / "submissions" / "x" / "a\n::add-mask::FollowBoard ##[error title=Approved]ok"
    evil.parent.mkdir(parents=True)
    evil.write_text("x\n")
    head = commit_all(root, "pr")
    assert main(["ci", "pr-scope", "--repo", str(root), "--base", base, "--head", head]) == 0
    captured = capsys.readouterr()
    assert "the whole check: it changes submissions/x/a" in captured.out
    assert runner_commands(captured.out) == [] and runner_commands(captured.err) == []


def test_score_pendings_findings_run_no_workflow_command(repo, wtr, data_dir, monkeypatch,
                                                        capsys):
    """`ci score-pending` printed the findings of a merged submission it could not score
    as they were, outside the stopped commands pr-check prints its own in: a run naming
    the query `##[add-mask]FollowBoard` (or a file name holding one) had the publish job's
    runner run it, since `##[` is a command anywhere in a line."""
    root, base = repo
    folder = write_submission(root, "new-model", "New Model", wtr, quality="good",
                              compress=False)
    run = folder / RUNS / "original.trec"
    run.write_text(run.read_text() + "##[add-mask]FollowBoard Q0 d1 1 1.0 x\n")
    head = commit_all(root, "merge new-model")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert main(["ci", "score-pending", "--repo", str(root), "--before", base, "--after", head,
                 "--data-dir", str(data_dir), "--quiet"]) == 1
    captured = capsys.readouterr()
    assert "'##[add-mask]FollowBoard'" in captured.out
    assert runner_commands(captured.out) == [] and runner_commands(captured.err) == []


def test_a_branch_with_no_history_in_common_gets_the_whole_check(tmp_path, actions_env,
                                                                capsys):
    root = tmp_path / "repo"
    root.mkdir()
    init_repo(root)
    (root / "README.md").write_text("a\n")
    base = commit_all(root, "base")
    git(root, "checkout", "-q", "--orphan", "other")
    (root / "README.md").write_text("b\n")
    head = commit_all(root, "unrelated")
    assert main(["ci", "pr-scope", "--repo", str(root), "--base", base, "--head", head]) == 0
    assert outputs(actions_env["output"]) == {"full": "true"}
    assert "shares no history" in capsys.readouterr().out


def test_the_problems_a_report_stores_account_for_every_finding(monkeypatch, capsys):
    """A run with 300 lines naming documents not in the corpus was listed as the validator's
    20 lines and its "280 more lines ..." count, all there was, and then the comment added
    "… and 279 more: the job log lists them, and `leaderboard validate submissions/<id>`
    shows every one locally" (the count's 280 counted again; the log listed nothing more;
    `<id>` left for the reader): the stored problems account for every finding, a file's
    past the per-file cap and the report's past its cap counted in one line each, so the
    comment and the log say "more" of what they cut themselves, naming the submission."""
    from leaderboard.app.ci.pr_check import MAX_PROBLEMS_PER_FILE, _problems, print_log
    from leaderboard.core.report import Report

    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    run = "new-model/runs/pi-indic-val150/t1/hin/run.trec.gz"
    report = Report()
    for line in range(1, 21):
        report.add(run, line, f"document 'zz{line}' is not in the corpus")
    report.add(run, None, "280 more lines naming a document not in the corpus", count=280)
    report.add(run, 1, "query 'p1' ranks 75 documents")
    report.add("new-model", None, "a warning", severity="warning")
    problems = _problems(report.issues, "new-model")
    assert len(problems) == 23 and problems[20].message.startswith("280 more lines")
    sub = SubmissionCheck(id="new-model", valid=False, n_errors=report.n_errors,
                          n_warnings=report.n_warnings, problems=problems)
    body = comment_body(_report(submissions=[sub]))
    assert "#### Problems (301 errors, 1 warning)" in body
    assert "more:" not in body and "<id>" not in body, body
    print_log(_report(submissions=[sub]))
    assert "... and" not in capsys.readouterr().out

    # A file past the cap: its first findings, then one line counting the rest.
    report = Report()
    for line in range(1, MAX_PROBLEMS_PER_FILE + 11):
        report.add(run, line, "bad line")
    report.add(run, None, "100 more bad lines", count=100)
    report.add(run, 2, "tied scores", severity="warning")
    problems = _problems(report.issues, "new-model")
    assert [p.message for p in problems[MAX_PROBLEMS_PER_FILE - 1:]] == [
        "bad line", "… and 110 more errors of this file", "tied scores"]
    assert problems[MAX_PROBLEMS_PER_FILE].line is None

    # The report's cap: its last line counts what did not fit, errors and warnings.
    report = Report()
    for i in range(300):
        report.add(f"new-model/runs/{i}.trec", 1, "bad line")
    report.add("new-model", None, "a warning", severity="warning")
    problems = _problems(report.issues, "new-model")
    assert len(problems) == 200
    assert problems[-1].path == "submissions/new-model"
    assert problems[-1].message == "… and 102 more findings: 101 errors, 1 warning"

    # What the comment cuts to fit is said, with where to read it all.
    sub = SubmissionCheck(id="new-model", valid=False, n_errors=300, n_warnings=1,
                          problems=problems)
    from leaderboard.app.ci.comment import render
    body = render(_report(submissions=[sub]), marker=True, max_problems=5)
    assert ("- … and 195 more: the job summary and log list them, and "
            "`leaderboard validate submissions/new-model` checks the folder locally.") in body


def test_the_problems_a_report_stores_group_a_warning_of_many_files_as_validate_does():
    """A pull request updating a submission of 313 runs got a 60,876-character comment
    listing 200 "tied scores" warnings one by one, its score table cut to 100 of 313 rows
    to fit, where `validate` and `score` print such a kind of warning once, "[and the same
    warning for N more files]": the stored problems (so the comment, the log and the
    summary) group them through the same code, each error still listed."""
    from leaderboard.app.ci.pr_check import _problems
    from leaderboard.core.report import SUMMARISE_WARNINGS_AFTER, Report

    report = Report()
    for i in range(313):
        report.add(f"bm25s/runs/t{i}/og.trec", None, "tied scores: ...", "warning",
                   kind="ties")
    report.add("bm25s/runs/t0/og.trec", 3, "bad line")
    report.add("bm25s", None, "one warning of its own", "warning")
    problems = _problems(report.issues, "bm25s")
    cli = report.lines(summarise_after=SUMMARISE_WARNINGS_AFTER)
    assert [(p.path, p.line, p.message, p.severity) for p in problems] == [
        ("submissions/bm25s/runs/t0/og.trec", 3, "bad line", "error"),
        ("submissions/bm25s/runs/t0/og.trec", None,
         "tied scores: ... [and the same warning for 312 more files]", "warning"),
        ("submissions/bm25s", None, "one warning of its own", "warning")]
    assert ("bm25s/runs/t0/og.trec: warning: tied scores: ... [and the same warning for "
            "312 more files]") in cli
    # As few files as the CLI lists one by one are listed one by one.
    report = Report()
    for i in range(SUMMARISE_WARNINGS_AFTER):
        report.add(f"bm25s/runs/t{i}/og.trec", None, "tied scores", "warning", kind="ties")
    assert len(_problems(report.issues, "bm25s")) == SUMMARISE_WARNINGS_AFTER


def pr_check_of_a_copy(repo, data_dir):  # noqa: ANN001, ANN201
    """(folder, pr-check's check of it) of submissions/copy-model, old-model's run files
    under a new model name, committed on top of the base."""
    root, base = repo
    folder = root / "submissions" / "copy-model"
    shutil.copytree(root / "submissions" / "old-model" / RUNS, folder / RUNS)
    (folder / "metadata.yaml").write_text(metadata("copy-model", "Copy Model", True))
    head = commit_all(root, "add copy-model")
    from leaderboard.app.ci.pr_check import PrCheckRequest, run_pr_check
    report = run_pr_check(PrCheckRequest(repo=root, base=base, head=head, data_dir=data_dir))
    (sub,) = report.submissions
    return folder, sub


def test_a_submission_whose_runs_are_a_merged_submissions_bytes_is_warned(repo, data_dir,
                                                                          tmp_path):
    """A new submission whose run files were byte for byte a merged submission's (a copy
    under a new model name) passed as valid and was ranked with no word: pr-check warns,
    naming the merged submission and the files (their SHA-256 equal), and leaves it to a
    maintainer (valid still)."""
    _, sub = pr_check_of_a_copy(repo, data_dir)
    copied = [p for p in sub.problems if "old-model" in p.message]
    assert sub.valid and len(copied) == 1 and copied[0].severity == "warning", sub.problems
    assert copied[0].path == "submissions/copy-model"
    assert f"{RUNS}/original.trec.gz" in copied[0].message


def test_validate_warns_of_a_merged_submissions_run_bytes_as_pr_check_does(repo, data_dir,
                                                                            tmp_path, capsys):
    """`validate` of a submission not merged yet said nothing of run files byte for byte a
    merged submission's, which pr-check warns of: both give the one warning, comparing
    with the submissions the default branch (pr-check's base) holds. A folder beside it
    that the default branch lacks (another submission not merged yet) is no merged one."""
    folder, sub = pr_check_of_a_copy(repo, data_dir)
    root = folder.parents[1]
    (copied,) = [p for p in sub.problems if "the same bytes" in p.message]
    # Beside it in the working tree only, a twin of it, not merged: not compared.
    twin = root / "submissions" / "twin-model"
    shutil.copytree(folder, twin)
    shutil.copy(root / "submissions" / "old-model" / "manifest.txt", twin / "manifest.txt")
    capsys.readouterr()
    assert main(["validate", str(folder), "--data-dir", str(data_dir)]) == 0
    out = capsys.readouterr().out
    assert copied.message in out and out.count("the same bytes") == 1, out
    # Outside a git checkout, the folders beside it are all there is to compare with.
    plain = tmp_path / "plain"
    shutil.copytree(root / "submissions", plain / "submissions", symlinks=True)
    assert main(["validate", str(plain / "submissions" / "copy-model"), "--data-dir",
                 str(data_dir)]) == 0
    out = capsys.readouterr().out
    assert copied.message in out and "the merged submission twin-model's" in out, out
