"""The path a new submitter follows, end to end (issue 34, findings 4 and 5).

A model folder, `leaderboard baselines run` as the How-to-submit guide's step 3 says, the
folder committed as its step 5 says in a scratch clone of the submitter's fork, then
`leaderboard ci pr-check` on that commit: what the command writes is what the guide lists
and what CI accepts, and metadata.yaml records who may change the submission and only
what is known of the model. Model folders are built offline as tests/test_any_model.py
builds them; pr-check runs as tests/test_ci.py runs it, CI's on pulled data (a manifest
as `leaderboard data pull` writes it), as the workflows pull theirs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from conftest import models_extra

models_extra()

from leaderboard.app.ci.pr_report import read_ci_report  # noqa: E402
from leaderboard.app.cli import main  # noqa: E402
from leaderboard.app.submitter import (derive_owner, git_identity, remote_owner,  # noqa: E402
                                       submitter_of)
from leaderboard.benchmarks.registry import get_task  # noqa: E402
from leaderboard.submission.layout import Writer, entry_of  # noqa: E402
from reference_models.baseline_run import DEFAULT_CONTACT  # noqa: E402
from reference_models.spec import get_model_spec  # noqa: E402
from test_any_model import folders  # noqa: E402
from test_ci import git, pr_check  # noqa: E402
from test_reference_models import tiny_data, tiny_models  # noqa: E402
from fixtures.submission import pulled  # noqa: E402

__all__ = ["folders", "tiny_data", "tiny_models"]  # fixtures, used by name

REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "leaderboard" / "publish" / "site" / "templates" / "submit.md.j2"
BOARD = "https://github.com/followboard/followboard"


def guide_listing() -> list[str]:
    """What step 3 of the guide says `ls submissions/my-model` shows."""
    found = re.search(r"^ls submissions/my-model +# (.+)$", GUIDE.read_text(encoding="utf-8"),
                      re.M)
    assert found, "the guide's step 3 lists the folder `baselines run` writes"
    return found.group(1).split()


def scratch_repo(path: Path, origin: str | None = None) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "jane@example.org")
    git(path, "config", "user.name", "Jane Doe")
    if origin is not None:
        git(path, "remote", "add", "origin", origin)
    return path


@pytest.fixture()
def fork(tmp_path: Path, monkeypatch) -> tuple[Path, str]:
    """A clone of jane-doe's fork of the leaderboard, with git's github.user unset (as for
    most people), the current folder."""
    repo = scratch_repo(tmp_path / "followboard", "https://github.com/jane-doe/followboard.git")
    (repo / "submissions").mkdir()
    (repo / "submissions" / "README.md").write_text("Submissions, one folder each.\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("LEADERBOARD_REPO_URL", BOARD)
    monkeypatch.chdir(repo)
    return repo, git(repo, "rev-parse", "HEAD")


@pytest.fixture()
def pulled_data(tiny_data: Path, tmp_path: Path) -> Path:
    """The data as `leaderboard data pull` leaves it, and as CI has it: tiny_data's files
    with the manifest a pull writes. tiny_data itself has none, as data copied in by
    hand."""
    return pulled(tmp_path / "pulled", ["followtable/wtr"], mirror=tiny_data)


def step_3(folders, data: Path, tmp_path: Path, capsys) -> tuple[int, str]:
    """Step 3: one command, run from the clone, no --owner; its exit status and output."""
    code = main(["baselines", "run", str(folders["st-bi"]), "--id", "my-model",
                 "--tasks", "followtable/wtr", "--data-dir", str(data),
                 "--cache-dir", str(tmp_path / "encodings"), "--device", "cpu", "--quiet"])
    out, err = capsys.readouterr()
    return code, out + err


def step_5(repo: Path) -> str:
    """Step 5: commit submissions/<your-id>/ (nothing else) on a branch of the fork."""
    git(repo, "switch", "-q", "-c", "my-model")
    git(repo, "add", "submissions/my-model")
    git(repo, "commit", "-q", "-m", "Add my-model")
    return git(repo, "rev-parse", "HEAD")


def local_pr_check(repo: Path, base: str, data: Path, report: Path) -> int:
    """Step 4 again, once committed: CI's own check, as the guide writes it (upstream/main
    is the board's main branch, here the fork's base commit)."""
    text = GUIDE.read_text(encoding="utf-8")
    local = re.search(r"^leaderboard ci pr-check (.+)$", text, re.M)
    assert local, "step 4 no longer shows CI's own check"
    args = [{"upstream/main": base, "YOUR-GITHUB-LOGIN": "jane-doe",
             "pr-report": str(report)}.get(a, a) for a in local.group(1).split()]
    return main(["ci", "pr-check", *args, "--repo", str(repo), "--data-dir", str(data),
                 "--quiet"])


def ci_pr_check(repo: Path, base: str, head: str, data: Path, report: Path) -> int:
    """CI, on the pull request jane-doe opens: on the data it pulls."""
    return pr_check(repo, base, head, report, data, "--pr-author", "jane-doe",
                    "--author-association", "NONE", "--base-ref", "main",
                    "--default-branch", "main")


def test_baselines_run_writes_a_folder_ci_accepts_as_committed(folders, pulled_data: Path,
                                                               fork, tmp_path: Path,
                                                               capsys) -> None:
    repo, base = fork
    code, out = step_3(folders, pulled_data, tmp_path, capsys)
    assert code == 0, out
    assert "verified" not in out  # pulled data: nothing to say of it
    folder = repo / "submissions" / "my-model"
    # What it wrote is what the guide lists, and nothing a pull request may not carry.
    written = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir())
    assert written == guide_listing() == ["manifest.txt", "metadata.yaml",
                                          "per-query.json.gz", "results.json", "runs/"]
    assert all(entry_of(p.relative_to(folder).as_posix()).writer is not Writer.CI
               for p in folder.rglob("*") if p.is_file())
    # Step 4: the local check.
    assert main(["validate", "submissions/my-model", "--data-dir", str(pulled_data),
                 "--quiet"]) == 0
    head = step_5(repo)
    capsys.readouterr()
    assert local_pr_check(repo, base, pulled_data, tmp_path / "pr-report") == 0, \
        capsys.readouterr().out
    assert "FollowBoard check" in (tmp_path / "pr-report" / "comment.md").read_text(
        encoding="utf-8")
    capsys.readouterr()
    assert ci_pr_check(repo, base, head, pulled_data, tmp_path / "report") == 0, \
        capsys.readouterr().out
    (sub,) = read_ci_report(tmp_path / "report" / "report.json").submissions
    assert sub.valid and sub.id == "my-model" and sub.results_json == "matches"
    assert [t.task for t in sub.tasks] == ["followtable/wtr"]
    # Finding 5: the owner is the fork's, and what is not known is not recorded.
    meta = yaml.safe_load((folder / "metadata.yaml").read_text(encoding="utf-8"))
    assert meta["owner"] == "jane-doe"
    assert meta["contact"] == "Jane Doe <jane@example.org>"
    assert "instruction_trained" not in meta["model"]
    assert "null" not in (folder / "metadata.yaml").read_text(encoding="utf-8")


def test_a_folder_scored_on_data_no_pull_verified_fails_here_as_it_fails_in_ci(
        folders, tiny_data: Path, pulled_data: Path, fork, tmp_path: Path, capsys) -> None:
    """Scored on data copied in by hand (no .manifest.json), the results.json records the
    data as not verified; CI scores on pulled data and records the revision alone. The
    guide's local check, on the same copy, called it valid, and CI refused it saying to
    run `leaderboard score`, which was what had written it. `baselines run` says, once
    and naming the folder, that CI refuses what it wrote; `validate` and the guide's
    check refuse it as CI does."""
    repo, base = fork
    code, out = step_3(folders, tiny_data, tmp_path, capsys)
    assert code == 0, out
    data = tiny_data / get_task("followtable/wtr").source.local_dir
    assert out.count("no `leaderboard data pull` verified") == 1
    assert (f"{data}: warning: it holds files that no `leaderboard data pull` verified, so "
            "results.json records the data of 1 task as \"the pinned revision; files not "
            "verified: no .manifest.json from `leaderboard data pull`\", and `ci pr-check` "
            "refuses such a results.json in a pull request") in out, out
    refusal = "leaderboard data pull followtable --data-dir DIR"
    assert main(["validate", "submissions/my-model", "--data-dir", str(tiny_data),
                 "--quiet"]) == 1
    assert refusal in capsys.readouterr().out
    head = step_5(repo)
    assert local_pr_check(repo, base, tiny_data, tmp_path / "pr-report") == 1
    assert refusal in capsys.readouterr().out
    assert ci_pr_check(repo, base, head, pulled_data, tmp_path / "report") == 1
    (sub,) = read_ci_report(tmp_path / "report" / "report.json").submissions
    assert not sub.valid and sub.results_json == "differs"
    assert [p.path for p in sub.problems if p.severity == "error"] == [
        "submissions/my-model/results.json"]


def test_metadata_records_instruction_training_when_the_model_is_known(
        folders, tiny_data: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    """A model the leaderboard's registry knows (here by the name --name gives) records
    the registry's fact, which is what the site shows for it; --instruction-trained wins."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    for given, expected in ((None, False), ("yes", True)):
        out_dir = tmp_path / str(given) / "submissions"
        code = main(["baselines", "run", str(folders["st-bi"]), "--name", "all-MiniLM-L6-v2",
                     "--id", "minilm-copy", "--tasks", "followtable/wtr", "--no-score",
                     "--out", str(out_dir), "--data-dir", str(tiny_data), "--owner", "jane-doe",
                     "--cache-dir", str(tmp_path / "encodings"), "--device", "cpu", "--quiet",
                     *(["--instruction-trained", given] if given else [])])
        assert code == 0, capsys.readouterr()
        meta = yaml.safe_load((out_dir / "minilm-copy" / "metadata.yaml").read_text())
        assert meta["model"]["instruction_trained"] is expected


def test_without_an_owner_to_derive_the_command_says_so(folders, tiny_data: Path,
                                                        tmp_path: Path, capsys,
                                                        monkeypatch) -> None:
    """A clone of the leaderboard itself names no submitter: no owner is guessed from it,
    and the command says what that means and how to set one."""
    repo = scratch_repo(tmp_path / "clone", BOARD + ".git")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("LEADERBOARD_REPO_URL", BOARD)
    monkeypatch.chdir(repo)
    code = main(["baselines", "run", str(folders["st-bi"]), "--id", "my-model", "--no-score",
                 "--tasks", "followtable/wtr", "--data-dir", str(tiny_data), "--quiet",
                 "--cache-dir", str(tmp_path / "encodings"), "--device", "cpu"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "records no owner" in err and "--owner <your GitHub login>" in err
    meta = yaml.safe_load((repo / "submissions" / "my-model" / "metadata.yaml").read_text())
    assert "owner" not in meta


def test_the_owner_comes_from_git_config_then_a_forks_remote(tmp_path: Path,
                                                             monkeypatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    fork = scratch_repo(tmp_path / "fork", "git@github.com:jane-doe/followboard.git")
    assert derive_owner(fork / "submissions", BOARD).login == "jane-doe"  # not there yet
    git(fork, "config", "github.user", "Jane-D")
    assert derive_owner(fork, BOARD).login == "Jane-D"
    upstream = scratch_repo(tmp_path / "upstream", BOARD + ".git")
    assert derive_owner(upstream, BOARD).login is None
    elsewhere = scratch_repo(tmp_path / "elsewhere", "https://gitlab.com/jane/followboard.git")
    assert derive_owner(elsewhere, BOARD).login is None
    assert derive_owner(tmp_path / "no-repository", BOARD).login is None
    assert remote_owner("https://github.com/jane-doe/followboard") == "jane-doe"
    assert remote_owner("ssh://git@github.com/jane-doe/followboard.git") == "jane-doe"
    assert remote_owner("https://github.com/-bad-/x.git") is None


def test_who_submits_is_the_libraries_answer_not_the_command_lines(
        tmp_path: Path, monkeypatch) -> None:
    """``baselines run`` worked out the owner, the contact and the registry's fact of
    instruction training itself; ``submitter_of`` is where that is decided, and the
    command prints what it says. A declared model is the maintainers' baseline: nothing is
    guessed for it. Any other gets the fork's owner (with a note of where it was found),
    git's identity and the registry's fact, each where the command line gives none."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("LEADERBOARD_REPO_URL", BOARD)
    fork = scratch_repo(tmp_path / "fork", "git@github.com:jane-doe/followboard.git")
    minilm = get_model_spec("all-minilm-l6-v2")
    declared = submitter_of(minilm, declared=True, out=fork, owner=None, contact=None)
    assert (declared.owner, declared.contact, declared.owner_note) == (
        None, DEFAULT_CONTACT, None)
    assert declared.spec is minilm
    unknown = minilm.model_copy(update={"instruction_trained": None})
    theirs = submitter_of(unknown, declared=False, out=fork / "submissions", owner=None,
                          contact=None)
    assert (theirs.owner, theirs.contact) == ("jane-doe", "Jane Doe <jane@example.org>")
    assert theirs.owner_note == ("owner: jane-doe (from the origin remote, "
                                 "git@github.com:jane-doe/followboard.git)")
    assert theirs.spec.instruction_trained is False  # the registry's record of MiniLM
    given = submitter_of(unknown.model_copy(update={"name": "my-own-model", "links": ()}),
                         declared=False, out=fork, owner="someone", contact="Me <me@x.org>")
    assert (given.owner, given.contact, given.owner_note) == ("someone", "Me <me@x.org>", None)
    assert given.spec.instruction_trained is None
    upstream = scratch_repo(tmp_path / "upstream", BOARD + ".git")
    none = submitter_of(unknown, declared=False, out=upstream, owner=None, contact=None)
    assert none.owner is None and "records no owner" in (none.owner_note or "")


def test_the_owner_and_contact_are_read_from_the_repository_git_dir_names(
        tmp_path: Path, monkeypatch) -> None:
    """With a relative GIT_DIR in the shell (`GIT_DIR=.git`, typed at the clone's root),
    `baselines run` asked git in the submission's folder, where .git names nothing: the
    clone's own user.name and origin were lost, so the contact was the global identity
    and no owner was found. git runs where the user's command runs when GIT_DIR is set."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    fork = scratch_repo(tmp_path / "fork", "git@github.com:jane-doe/followboard.git")
    (fork / "submissions" / "my-model").mkdir(parents=True)
    monkeypatch.chdir(fork)
    for git_dir in (".git", str(fork / ".git")):
        monkeypatch.setenv("GIT_DIR", git_dir)
        where = fork / "submissions" / "my-model"
        assert git_identity(where) == "Jane Doe <jane@example.org>", git_dir
        assert derive_owner(where, BOARD).login == "jane-doe", git_dir


def test_step_4_checks_a_run_file_where_the_layout_puts_it() -> None:
    """Step 4's check-run named `runs/followtable/wtr/altered.trec`, a path inside the
    submission folder without the `.gz` the layout writes, while the commands beside it
    run from the clone's root (`leaderboard score submissions/my-retriever-v1`): typed as
    the guide shows it, it answered "file not found". It names the file the layout puts
    in the folder the next commands check."""
    text = GUIDE.read_text(encoding="utf-8")
    check = re.search(r"^leaderboard check-run (\S+) (\S+) --role (\w+)", text, re.M)
    folder = re.search(r"^leaderboard validate (submissions/\S+)", text, re.M)
    suffix = re.search(r"^submissions/<id>/runs/<task id>/<role>(\S+) ", text, re.M)
    assert check and folder and suffix, "step 4 and the folder layout are where they were"
    task, path, role = check.groups()
    assert path == f"{folder.group(1)}/runs/{task}/{role}{suffix.group(1)}"
