"""The README's promises to a newcomer that code can check."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def section(title: str) -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def test_the_quickstart_says_where_the_leaderboard_command_is() -> None:
    """After the quickstart, `leaderboard --help` gave "command not found": nothing said
    the command is installed in .venv/bin."""
    quickstart = section("Quickstart")
    commands = re.search(r"```bash\n(.*?)```", quickstart, re.S).group(1).strip().splitlines()
    assert [c.split("#")[0].strip() for c in commands] == ["bash scripts/build-site.sh",
                                                         "bash scripts/test.sh"]
    assert "`.venv/bin/leaderboard --help`" in quickstart
    assert "`source .venv/bin/activate`" in quickstart
    # ... which is where both scripts' setup puts it.
    setup = (REPO / "scripts" / "setup-venv.sh").read_text()
    assert "python3 -m venv .venv" in setup and ".venv/bin/python -m pip install" in setup
    for script in ("build-site.sh", "test.sh"):
        assert "scripts/setup-venv.sh" in (REPO / "scripts" / script).read_text()
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["leaderboard"] == "leaderboard.app.cli:entry"


def test_the_guides_install_step_uses_a_virtual_environment_and_the_cpu_torch_first() -> None:
    """Issue 34, finding 12: the How-to-submit guide's step 1 installed into whatever
    Python was first on the PATH, and the models extra pulled the CUDA build of torch
    (gigabytes) onto machines without a GPU."""
    guide = (REPO / "leaderboard" / "publish" / "site" / "templates" / "submit.md.j2"
             ).read_text(encoding="utf-8")
    step = guide[guide.index("## 1. Install"):guide.index("## 2. ")]
    blocks = re.findall(r"```bash\n(.*?)```", step, re.S)
    commands = [line.strip() for block in blocks for line in block.strip().splitlines()]
    venv = next(i for i, c in enumerate(commands) if c.startswith("python3 -m venv .venv"))
    assert "source .venv/bin/activate" in commands[venv]
    installs = [i for i, c in enumerate(commands) if "pip install" in c]
    assert installs and min(installs) > venv  # nothing is installed outside it
    cpu_torch = next(i for i, c in enumerate(commands)
                     if "pip install torch" in c and "download.pytorch.org/whl/cpu" in c)
    models = next(i for i, c in enumerate(commands) if ".[models]" in c)
    assert cpu_torch < models


@pytest.mark.parametrize(("build", "wheel_on_disk"),
                         [("cpu", True), ("cpu", False), ("cuda", False)])
def test_the_quickstart_installs_the_cpu_torch_with_or_without_a_wheel_on_disk(
        tmp_path: Path, build: str, wheel_on_disk: bool) -> None:
    """The quickstart's `pip install torch==2.13.0` took the CPU build only where pip's
    find-links folder held it (the project's machines); from PyPI, Linux gets the CUDA
    build and gigabytes of NVIDIA packages. A stand-in for the venv's Python records what
    pip is asked, and has a wheel without an index or not. The GPU runner asks for the
    CUDA build, PyPI's (as the GPU runner's lock file, requirements/gpu.txt, does)."""
    calls = tmp_path / "calls"
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\necho "$*" >> {calls}\n'
                      f'case " $* " in *" --no-index "*) exit {0 if wheel_on_disk else 1};; esac\n')
    python.chmod(0o755)
    subprocess.run(["bash", str(REPO / "scripts" / "install-torch.sh"), str(python),
                    "--quiet"], check=True, capture_output=True,
                   env={"PATH": "/usr/bin:/bin", "TORCH_BUILD": build})
    asked = calls.read_text().splitlines()
    if build == "cuda":
        assert asked == ["-m pip install --quiet torch==2.13.0"]
    elif wheel_on_disk:
        assert asked == ["-m pip install --no-index --no-deps --quiet torch==2.13.0"]
    else:
        assert asked == ["-m pip install --no-index --no-deps --quiet torch==2.13.0",
                         "-m pip install --extra-index-url "
                         "https://download.pytorch.org/whl/cpu --quiet torch==2.13.0"]
    setup = (REPO / "scripts" / "setup-venv.sh").read_text()
    assert "scripts/install-torch.sh .venv/bin/python" in setup
    assert "pip install --quiet --no-compile torch" not in setup


def test_the_metadata_example_is_valid_metadata(tmp_path: Path) -> None:
    """The Submitting section's metadata.yaml, copied as it is, passes the validator."""
    from leaderboard.core.report import Report
    from leaderboard.submission.metadata import load_metadata

    example = re.search(r"`metadata.yaml`:\n\n```yaml\n(.*?)```", section("Submitting"),
                        re.S).group(1)
    path = tmp_path / "my-model" / "metadata.yaml"
    path.parent.mkdir()
    path.write_text(example, encoding="utf-8")
    report = Report()
    meta = load_metadata(path, "my-model/metadata.yaml", report, folder_name="my-model")
    assert meta is not None and report.ok, report.lines()
    assert meta.date == "2025-01-31" and meta.efficiency is not None


def test_the_metadata_example_says_which_fields_are_optional() -> None:
    """The example marked `date` and `efficiency` optional and nothing else, so `owner`,
    `type`, `instruction_trained`, `links`, `licence` and `revision` read as required. A
    top-level or model key says "optional" exactly when the validator lets it be left out
    (How to submit's example is held to the same rule, tests/test_site.py)."""
    from leaderboard.submission.metadata import Metadata, SubmittedModel

    example = re.search(r"`metadata.yaml`:\n\n```yaml\n(.*?)```", section("Submitting"),
                        re.S).group(1)
    marked, parent = {}, None
    for line in example.splitlines():
        found = re.match(r"( *)(\w+):([^#]*)(#.*)?$", line)
        if not found:
            continue
        if not found[1]:
            parent = found[2]
        elif parent != "model" or len(found[1]) != 2:
            continue  # efficiency's own keys
        key = ("model." if found[1] else "") + found[2]
        marked[key] = "optional" in (found[4] or "")
    fields = {**Metadata.model_fields,
              **{f"model.{k}": f for k, f in SubmittedModel.model_fields.items()}}
    assert marked == {k: not f.is_required() for k, f in fields.items() if k != "hardware"}


DOCS = ("README.md", "docs/ARCHITECTURE.md", "docs/MAINTAINERS.md")


def test_every_python_name_the_docs_give_imports() -> None:
    """The README sent readers to `leaderboard.publish.stats.tier_views`, which is
    `leaderboard.publish.stats.tiers.tier_views`: a dotted name in the docs must import."""
    import importlib

    names = {name for doc in DOCS
             for name in re.findall(r"`((?:leaderboard|reference_models)(?:\.\w+)+)`",
                                    (REPO / doc).read_text(encoding="utf-8"))}
    assert names
    wrong = []
    for name in sorted(names):
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):  # the longest module prefix, then attributes
            try:
                target = importlib.import_module(".".join(parts[:cut]))
            except ModuleNotFoundError:
                continue
            for attribute in parts[cut:]:
                target = getattr(target, attribute, None)
            if target is None:
                wrong.append(name)
            break
        else:
            wrong.append(name)
    assert not wrong, f"the docs name what does not exist: {wrong}"


def test_every_file_the_repository_layout_names_is_where_it_says() -> None:
    """The layout table put `fixedpoint.py` and `runtime.py` in `leaderboard/publish/stats/`;
    they are in its `significance/`. A name in a row is in the row's folder, or in a
    subfolder the row names (`runs/`, `data/`), or given with its path."""
    table = section("Repository layout")
    rows = re.findall(r"^\| (`[^|]+`) \|(.*)\|$", table, re.M)
    assert len(rows) >= 10
    files = [p.relative_to(REPO).as_posix() for p in REPO.rglob("*")
             if not {".git", "node_modules", ".venv"} & set(p.parts)]
    wrong = []
    for heads, text in rows:
        folders = [REPO / h for h in re.findall(r"`([^`]+)`", heads) if h.endswith("/")]
        subfolders = [f / d for f in folders for d in re.findall(r"`([\w-]+/)`", text)
                      if (f / d).is_dir()]
        for name in re.findall(r"`([\w./-]+\.(?:py|js|yaml|json))`", text):
            if "/" in name:
                found = any(f == name or f.endswith("/" + name) for f in files)
            else:
                found = any((f / name).exists() for f in folders + subfolders)
            if not found:
                wrong.append(f"{heads}: {name}")
    assert not wrong, wrong


WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
         "eight": 8, "nine": 9, "ten": 10}


def test_the_counts_the_readme_gives_of_models_and_tasks_are_the_registrys() -> None:
    """Counts the README states about the code, which drift as models and tasks are added:
    the declared reference models and how many are pinned, and PI-Indic's T2 and T3."""
    from leaderboard.benchmarks.registry import all_tasks
    from reference_models.spec import load_model_specs

    text = (REPO / "README.md").read_text(encoding="utf-8")
    claim = re.search(r"(\d+) of the (\d+) are pinned to a revision, and `baselines list`\s+"
                      r"marks the other (\w+) `not pinned`", text)
    specs = load_model_specs().values()
    unpinned = [s.id for s in specs if s.revision is None and not s.package
                and s.family != "bm25"]   # what `baselines list` marks "not pinned"
    assert claim, "the README no longer says how many reference models are pinned"
    assert (int(claim[1]), int(claim[2]), WORDS[claim[3]]) == (
        len(specs) - len(unpinned), len(specs), len(unpinned))
    claim = re.search(r"`pi-indic-val150/t2/\*`, (\d+) tasks; T3 (\d+)", text)
    families = [task.rsplit("/", 1)[0] for task in all_tasks()]
    assert claim and (int(claim[1]), int(claim[2])) == (
        families.count("pi-indic-val150/t2"), families.count("pi-indic-val150/t3"))


def test_the_stored_files_maintainers_md_counts_are_those_of_the_tasks_it_names() -> None:
    """MAINTAINERS.md called a submission of 308 runs "full": that is every FollowTable and
    PI-Indic task, as the committed baselines have; every task is 18 runs more."""
    from leaderboard.benchmarks.registry import all_tasks

    text = " ".join((REPO / "docs" / "MAINTAINERS.md").read_text(encoding="utf-8").split())
    claim = re.search(r"A submission of every FollowTable and PI-Indic task.{0,80}? has "
                      r"[\d,]+ stored files \((\d+) runs,.*?FollowIR and mFollowIR add (\d+) "
                      r"runs", text)
    assert claim, "MAINTAINERS.md no longer says which tasks its stored-file count covers"
    runs = {benchmark: 0 for benchmark in ("followtable", "pi-indic-val150")}
    others = 0
    for task in all_tasks().values():
        if task.benchmark in runs:
            runs[task.benchmark] += len(task.roles)
        else:
            others += len(task.roles)
    assert (int(claim[1]), int(claim[2])) == (sum(runs.values()), others)
    committed = REPO / "submissions" / "all-minilm-l6-v2" / "runs"
    assert sum(1 for p in committed.rglob("*") if p.is_file()) == int(claim[1])


def test_every_leaderboard_command_the_docs_show_parses() -> None:
    """Each `leaderboard ...` line of the docs' shell blocks parses as written, and each
    option a command fragment in the text names is one that command has: a renamed or
    removed flag leaves no example behind."""
    import argparse
    import contextlib
    import io
    import shlex

    from leaderboard.app.cli import build_parser

    parser = build_parser()

    def children(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        return next((a.choices for a in p._actions
                     if isinstance(a, argparse._SubParsersAction)), {})

    wrong, lines, flags = [], 0, 0
    for doc in DOCS:
        text = (REPO / doc).read_text(encoding="utf-8")
        for block in re.findall(r"```bash\n(.*?)```", text, re.S):
            for line in block.splitlines():
                found = re.search(r"(?:^|\s)(?:\.venv/bin/)?leaderboard (.*)", line)
                if not found:
                    continue
                lines += 1
                words = shlex.split(found.group(1), comments=True)
                try:
                    with contextlib.redirect_stderr(io.StringIO()):
                        parser.parse_args(words)
                except SystemExit:
                    wrong.append(f"{doc}: {line.strip()}")
        for fragment in re.findall(r"`leaderboard ([^`]*)`", text):
            words, command = fragment.split(), parser
            while words and words[0] in children(command):
                command = children(command)[words.pop(0)]
            options = {o for action in command._actions for o in action.option_strings}
            for flag in re.findall(r"(?<![\w-])--[a-z][a-z-]*", " ".join(words)):
                flags += 1
                if flag not in options:
                    wrong.append(f"{doc}: `leaderboard {fragment}`: {flag}")
    assert lines >= 10 and flags >= 10
    assert not wrong, wrong


def test_the_guides_followir_rows_say_a_run_answers_only_the_judged_queries() -> None:
    """How to submit said FollowIR's and mFollowIR's queries are those of the `queries`
    config, which lists queries the qrels do not judge: a run answering them, as the page
    said, was refused ('it has no judgments, so mteb and this board do not score it'),
    while the README says a run answers only the judged ones."""
    from leaderboard.benchmarks import declared

    rows = {row.title: row for benchmark in declared() for row in benchmark.guide}
    for title, qrels in (("FollowIR", "<code>default</code> config, else "
                                      "<code>qrels</code>"),
                         ("mFollowIR", "<code>default-&lt;lang&gt;</code>")):
        text = rows[title].queries
        assert f"only those the judgments ({qrels}) judge" in text, text
    assert "Their queries are those the qrels judge" in section("Submitting")


def test_maintainers_md_says_what_a_data_revision_bump_does_as_the_code_does_it() -> None:
    """MAINTAINERS.md's section on moving PI-Indic to another revision said how to write
    T4's negatives again and nothing of the board: not that publishing rescores every
    merged submission, nor what becomes of one the new revision cannot score, nor how the
    site shows it, nor what the maintainer does. Its words are held to the code's: the
    step output score-pending sets and the cell the site prints."""
    from leaderboard.publish.site.table_display import off_pin_gap

    text = " ".join((REPO / "docs" / "MAINTAINERS.md").read_text(encoding="utf-8").split())
    section = text[text.index("## Moving PI-Indic to another revision"):]
    assert "### What a bump does to the board, and what you do" in section
    assert "rescores every merged submission of that data on the new revision" in section
    cell = off_pin_gap({"t": "o/r@0123abcd4567"}).text
    assert cell == "not tested: data @0123abcd4567"
    assert "`not tested: data @<revision>`" in section
    pending = (REPO / "leaderboard" / "app" / "commands" / "ci.py").read_text(encoding="utf-8")
    assert 'gha.set_output("kept"' in pending and "sets the step output `kept`" in section
    assert "ask each one's owner" in section



def test_maintainers_md_dry_runs_a_bump_on_the_data_it_pulled() -> None:
    """MAINTAINERS.md had the bump's dry run pull the new revision into a scratch data
    folder, then run `validate` and `score-pending --all` with no --data-dir: they read
    $LEADERBOARD_DATA, the old revision, so validate scored on it and score-pending
    stopped (the data is not the revision the registry pins). Every command of its block
    parses, and every one that reads data reads the folder the pull wrote."""
    import shlex

    from leaderboard.app.cli import build_parser

    section = maintainers_section("What a bump does to the board, and what you do")
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "MAINTAINERS.md gives the bump's dry run no commands"
    commands = [shlex.split(line) for line in block[1].splitlines()
                if line.startswith("leaderboard ")]
    assert [c[1:3] for c in commands] == [["data", "pull"], ["validate", "submissions/*"],
                                          ["ci", "score-pending"]]
    folders = {build_parser().parse_args(c[1:]).data_dir for c in commands}
    assert len(folders) == 1 and None not in folders, folders
    made = re.search(r"^mkdir (\S+) ", block[1], re.M)
    assert made and folders == {made[1]}
    assert "git restore --staged --worktree -- submissions" in block[1]

@pytest.mark.parametrize("doc", ["README.md",
                                 "leaderboard/publish/site/templates/submit.md.j2"])
def test_the_docs_say_which_ids_are_taken_as_the_validator_refuses_them(doc: str) -> None:
    """The README said a submission's id is any of the validator's shape but a reference
    model's, while validate and pr-check refuse one that differs from a submission's or a
    reference model's only in its separators (ids.lookalike_problem): the README's and How
    to submit's words name the separators the code folds, and their example is refused."""
    from leaderboard.submission.ids import ID_SEPARATORS, lookalike_problem

    text = " ".join((REPO / doc).read_text(encoding="utf-8").split())
    claim = re.search(r"differs from a submission's or a reference model's only in its "
                      r"`(.)`, `(.)` and `(.)` \(`([\w.-]+)` beside `([\w.-]+)`\)", text)
    assert claim, f"{doc} no longer says which look-alike ids are refused"
    assert "".join(sorted(claim.group(1, 2, 3))) == "".join(sorted(ID_SEPARATORS))
    assert lookalike_problem(claim[4], {claim[5]: "a reference model's"}) is not None


@pytest.mark.parametrize(("doc", "refused", "fine"), [
    ("README.md", ["All-MiniLM-L6-v2", "ALL-MINILM-L6-V2", "all-MiniLM-L6-\u03bd2",
                   "\u0412\u041c25", "\u041ciniLM"],
     ["ruBERT (\u0440\u0443\u0441\u0441\u043a\u0438\u0439)",
      "SBERT-\u043f\u043e\u0438\u0441\u043a v2", "\u03b2-VAE"]),
    ("leaderboard/publish/site/templates/submit.md.j2",
     ["All-MiniLM-L6-v2", "all-MiniLM-L6-\u03bd2", "\u0412\u041c25", "\u041ciniLM"],
     ["ruBERT (\u0440\u0443\u0441\u0441\u043a\u0438\u0439)", "\u03b2-VAE"]),
])
def test_the_docs_say_which_model_names_are_refused_as_the_check_does(
        doc: str, refused: list[str], fine: list[str]) -> None:
    """The README and How to submit said a name mixing Latin, Greek, Cyrillic or Cherokee
    letters is refused and 'a name in one script, or in Latin and one other, is fine',
    while the check refused Latin beside Cyrillic anywhere; the rule is now the word's.
    Each example they give is refused or passes against the board's names as they say,
    and the README names the confusables version the table in ids.py was copied from."""
    from leaderboard.app.board_ids import taken_names
    from leaderboard.submission.ids import name_lookalike_problem

    text = " ".join((REPO / doc).read_text(encoding="utf-8").split())
    taken = taken_names()
    for name in refused:
        assert f"`{name}`" in text and name_lookalike_problem(name, taken), name
    for name in fine:
        assert f"`{name}`" in text and name_lookalike_problem(name, taken) is None, name
    if doc == "README.md":
        ids = (REPO / "leaderboard" / "submission" / "ids.py").read_text(encoding="utf-8")
        version = re.search(r"`confusables\.txt`, version ([\d.]+)", text)
        assert version and f"Version {version[1]}" in ids


def test_how_to_submit_says_a_short_run_is_refused_as_the_readme_does() -> None:
    """How to submit's depth rule said 'A shorter list scores the missing documents as
    unranked', while check-run, validate and CI refuse a run with a short query
    ('query '0_0' ranks 500 documents; each query must list min(1000, corpus size) =
    1,000 documents of the corpus'), as the README says."""
    guide = " ".join((REPO / "leaderboard" / "publish" / "site" / "templates" / "submit.md.j2"
                      ).read_text(encoding="utf-8").split())
    rule = guide[guide.index("**The pool and depth rule.**"):guide.index("## 3. ")]
    assert "A shorter list is refused" in rule and "scores the missing" not in rule
    assert "A run that falls short is refused" in " ".join(section("Submitting").split())
    validation = (REPO / "leaderboard" / "core" / "runs" / "validation.py").read_text()
    assert "each query must list {corpus_depth_text(max_docs)}" in validation


def test_the_readme_says_score_removes_a_link_or_fifo_named_explain_too() -> None:
    """The README said a folder holding a link or a FIFO is refused 'except under
    explain/', while score removes one named explain itself as well (f5f5766: validate
    of a folder whose explain is a link says score removes it, and score does): the
    transaction lets such an entry lie at or under each of its removable paths."""
    import inspect

    from leaderboard.submission import pipeline, transaction

    text = " ".join(section("Submitting").split())
    assert "(except `explain/` itself and what lies under it, where `score` removes one" in text
    assert "removable=(EXPLAIN_DIR,)" in inspect.getsource(pipeline.score_submission)
    assert transaction._removable("explain", ("explain",))
    assert transaction._removable("explain/x", ("explain",))


def maintainers_section(title: str) -> str:
    """A section of docs/MAINTAINERS.md, from its heading to the next of its level or above."""
    text = (REPO / "docs" / "MAINTAINERS.md").read_text(encoding="utf-8")
    level = re.search(rf"^(#+) {re.escape(title)}\n", text, re.M)
    assert level, f"MAINTAINERS.md has no section {title!r}"
    end = re.search(rf"^#{{1,{len(level[1])}}} ", text[level.end():], re.M)
    return text[level.start():level.end() + end.start() if end else None]


def test_maintainers_md_removes_a_submission_the_way_the_check_lets_it(tmp_path: Path) -> None:
    """MAINTAINERS.md told a maintainer to remove a kept submission's folder 'in a pull
    request of your own', which pr-check refuses whoever opens it ('removing a submission
    is done by the maintainers (open an issue)'), so with the check required the pull
    request could not be merged. The doc quotes the refusal and removes the folder in a
    commit on main; its commands, run as written, remove it and push."""
    from leaderboard.app.ci.git import Change
    from leaderboard.app.ci.policy import check_removal, classify_changes

    scope = classify_changes([Change("D", "submissions/gone/metadata.yaml")], merged={"gone"})
    check_removal(scope, "gone", [])
    refusal = scope.refusals[0]
    reason = refusal[refusal.index("; ") + 2:].rstrip(".")
    text = " ".join((REPO / "docs" / "MAINTAINERS.md").read_text(encoding="utf-8").split())
    assert "in a pull request of your own" not in text
    removing = maintainers_section("Removing a submission")
    assert f'("{reason}")' in " ".join(removing.split())
    assert "*Removing a submission*" in maintainers_section("What a bump does to the board, "
                                                            "and what you do")

    def git(*args: str, cwd: Path) -> str:
        return subprocess.run(["git", "-c", "user.name=m", "-c", "user.email=m@example.org",
                               *args], cwd=cwd, check=True, capture_output=True,
                              text=True).stdout

    origin, clone = tmp_path / "origin.git", tmp_path / "clone"
    git("init", "--quiet", "--bare", "--initial-branch=main", str(origin), cwd=tmp_path)
    git("clone", "--quiet", str(origin), str(clone), cwd=tmp_path)
    for sub in ("gone", "kept"):
        (clone / "submissions" / sub).mkdir(parents=True)
        (clone / "submissions" / sub / "metadata.yaml").write_text("id: x\n")
    git("add", "-A", cwd=clone)
    git("commit", "--quiet", "-m", "two", cwd=clone)
    git("push", "--quiet", "origin", "HEAD:main", cwd=clone)
    block = re.search(r"```bash\n(.*?)```", removing, re.S)[1]
    subprocess.run(["bash", "-eo", "pipefail", "-c", block.replace("<id>", "gone")
                    .replace("<why>", "withdrawn").replace("git ", "git -c user.name=m -c "
                                                           "user.email=m@example.org ")],
                   cwd=clone, check=True, capture_output=True)
    assert git("ls-tree", "-r", "--name-only", "main", cwd=origin).split() == [
        "submissions/kept/metadata.yaml"]


def test_maintainers_md_names_what_check_commit_lets_publishing_change() -> None:
    """MAINTAINERS.md said check-commit --published lets publishing change 'results,
    per-query scores, explanation files and the manifest', while it lets it write and
    remove kept.json too (handover.PUBLISHED), which score-pending writes for a submission
    kept on an earlier data revision: a maintainer who read a kept.json in a publish
    commit as something the check should have refused was misled. The doc names the
    entries PUBLISHED lets publishing add or change, and what it may remove."""
    from leaderboard.app.ci.handover import PUBLISHED
    from leaderboard.submission.layout import ENTRIES, KEPT_NAME

    text = " ".join(maintainers_section("What the workflows do on their side").split())
    claim = re.search(r"`leaderboard ci check-commit --published`: one commit on the pushed "
                      r"one, adding or changing in merged submissions only (.*?), and removing "
                      r"only what the run store keeps and `kept.json`\)", text)
    assert claim, "MAINTAINERS.md no longer says what check-commit --published lets through"
    kind = {e.name: e.kind for e in ENTRIES}
    assert set(re.findall(r"`([^`]+)`", claim[1])) == {
        name + ("/" if kind[name] == "folder" else "") for name, modes in PUBLISHED.items()
        if {"A", "M"} & set(modes)}
    assert {name for name, modes in PUBLISHED.items() if "D" in modes} == {
        e.name for e in ENTRIES if e.stored} | {KEPT_NAME}


def test_maintainers_md_pushes_the_rewritten_history_to_a_remote_it_has() -> None:
    """Shrinking history ran `git push --force --mirror` right after `git filter-repo`,
    which removes the clone's `origin` remote once it rewrites (its manual: --partial
    'disables removing of the origin remote'), so the push had no destination ('fatal: No
    configured push destination'). The block adds the remote back after the rewrite and
    pushes to it by name."""
    shrinking = maintainers_section("Shrinking history (optional, by hand)")
    lines = [line.split("#")[0].strip()
             for line in re.search(r"```bash\n(.*?)```", shrinking, re.S)[1].splitlines()]
    rewrite = next(i for i, line in enumerate(lines) if line.startswith("git filter-repo "))
    assert "--partial" not in lines[rewrite]
    added = [i for i, line in enumerate(lines) if line.startswith("git remote add ")]
    pushes = [i for i, line in enumerate(lines) if line.startswith("git push ")]
    assert pushes and added and rewrite < added[0] < pushes[0]
    remote = lines[added[0]].split()[3]
    assert all(lines[i].split()[-1] == remote for i in pushes), lines


def workflow(name: str) -> dict:
    """A workflow file as YAML reads it (its `on:` key is the boolean True there)."""
    import yaml

    return yaml.safe_load((REPO / ".github" / "workflows" / name).read_text(encoding="utf-8"))


def test_maintainers_md_reruns_a_publish_the_way_the_workflow_reads_its_range() -> None:
    """Nothing told a maintainer how to re-run a failed or cancelled publish, what the
    tag `published` means for what the next run reads, or when `score-pending --all` is
    needed. Each name the section quotes (the trigger, the workflow, its jobs, its
    concurrency group, the tag, the push range, the messages) is the workflow's and the
    command's, and its commands are the ones the workflow and the bump section run."""
    from leaderboard.app.commands import ci
    from leaderboard.submission.layout import DEFAULT_BRANCH

    text = " ".join(maintainers_section("Re-running a failed or cancelled publish").split())
    publish = workflow("publish.yml")
    assert publish[True]["workflow_dispatch"] is None  # the trigger, with no inputs
    assert "publish.yml's `workflow_dispatch` trigger" in text
    assert "no inputs" in text and "No run passes `--all`" in text
    assert f"*{publish['name']}*, *Run workflow*" in text
    assert f"gh workflow run publish.yml --ref {DEFAULT_BRANCH}" in text
    assert f"the concurrency group `{publish['concurrency']['group']}`" in text
    quoted = {"push", "score", "build", "export", "dataset", "deploy"}
    assert all(f"`{job}`" in text for job in quoted) and quoted <= set(publish["jobs"])
    steps = {s.get("name"): s for job in publish["jobs"].values() for s in job["steps"]}
    score = next(s for s in steps.values() if "leaderboard ci score-pending" in s.get("run", ""))
    assert score["env"]["PUBLISHED"] == "refs/tags/published" and "the tag `published`" in text
    assert score["env"]["BEFORE"] == "${{ github.event.before }}"
    assert "`github.event.before` is empty" in text
    pushed = steps["Push the new results and move the published tag"]["run"]
    assert "refs/heads/publish/checked:refs/heads/main" in pushed  # no + : never forced
    assert "+refs/heads/publish/checked:refs/heads/main" not in pushed
    assert "+refs/heads/publish/checked:refs/tags/published" in pushed  # every run moves it
    code = Path(ci.__file__).read_text(encoding="utf-8")
    for said in ("score-pending: no submission needs scoring", "Last publish unknown",
                 "Push range unknown"):
        assert said in code and said in text, said
    discard = "`git restore --staged --worktree -- submissions && git clean -fdq -- submissions`"
    assert discard in text and discard.strip("`") in maintainers_section(
        "What a bump does to the board, and what you do").splitlines()
    block = re.findall(r"```bash\n(.*?)```", maintainers_section(
        "Re-running a failed or cancelled publish"), re.S)
    assert [line for b in block for line in b.strip().splitlines()] == [
        f"gh workflow run publish.yml --ref {DEFAULT_BRANCH}",
        "leaderboard ci score-pending --all",
        "git status --short -- 'submissions/*/results.json'"]


def test_maintainers_md_moves_pinned_actions_and_the_test_image_as_the_workflows_pin_them(
        tmp_path: Path) -> None:
    """Nothing told a maintainer how the workflows pin their actions and the test
    container, what the tests hold them to, or how to find the commit of a release. The
    section's example pin is a line of the workflows, the actions it names are used, the
    tests it names exist, the image and job are tests.yml's, and its `git ls-remote`, run
    as written against a repository with an annotated and a plain tag, prints the commit
    where the text says."""
    from tests import test_workflows

    text = " ".join(maintainers_section("Updating the pinned actions and the test "
                                        "container").split())
    uses = "\n".join(p.read_text(encoding="utf-8")
                     for p in sorted((REPO / ".github" / "workflows").glob("*.yml")))
    example = re.search(r"\(`(actions/checkout@[0-9a-f]{40} # (v[\d.]+))`\)", text)
    assert example and f"uses: {example[1]}\n" in uses
    assert "uses: actions/cache@" in uses and "uses: actions/cache/restore@" in uses
    assert "(`actions/cache` and `actions/cache/restore` are one)" in text
    for test in ("test_every_action_is_pinned_to_a_commit_sha",
                 "test_same_action_same_pin_everywhere",
                 "test_the_test_container_is_pinned_by_digest"):
        assert callable(getattr(test_workflows, test))
    tests_yml = workflow("tests.yml")
    image = tests_yml["jobs"]["test"]["container"]
    tag = image.split("@")[0]
    assert f"The `test` job of `tests.yml` runs in `{tag}@sha256:<digest>`" in text
    blocks = re.findall(r"```bash\n(.*?)```", maintainers_section(
        "Updating the pinned actions and the test container"), re.S)
    lookup, inspect = [b.strip() for b in blocks]
    assert inspect == f"docker buildx imagetools inspect {tag}"
    assert lookup.startswith("git ls-remote https://github.com/actions/checkout ")
    assert f"refs/tags/{example[2]} " in lookup

    def git(*args: str, cwd: Path = tmp_path) -> str:
        return subprocess.run(["git", "-c", "user.name=m", "-c", "user.email=m@example.org",
                               *args], cwd=cwd, check=True, capture_output=True,
                              text=True).stdout

    action = tmp_path / "checkout"
    git("init", "--quiet", str(action))
    git("commit", "--quiet", "--allow-empty", "-m", "release", cwd=action)
    commit = git("rev-parse", "HEAD", cwd=action).strip()
    for kind in (["-a", "-m", "release"], []):  # annotated, then plain
        git("tag", "-f", *kind, example[2], cwd=action)
        said = subprocess.run(["bash", "-c", lookup.replace(
            "https://github.com/actions/checkout", str(action))], check=True,
            capture_output=True, text=True).stdout.splitlines()
        shas = dict(reversed(line.split("\t")) for line in said)
        peeled = shas.get(f"refs/tags/{example[2]}^{{}}")
        assert (peeled or shas[f"refs/tags/{example[2]}"]) == commit, said
        assert len(said) == (2 if kind else 1)


def test_maintainers_md_rotates_the_hub_token_where_the_workflows_read_it() -> None:
    """Nothing told a maintainer how to replace HF_TOKEN: where it is set, which jobs
    read it, what to check after. The steps the section names are exactly those whose
    env holds the secret, each in a job of the environment it names; its commands set an
    environment secret of that name, run the audit as the top of the doc does, and start
    the workflow whose dataset job pushes on every run."""
    import inspect
    import json

    from leaderboard.app.ci import audit

    section = maintainers_section("Rotating the Hub token")
    text = " ".join(section.split())
    assert audit.SECRET_ENVIRONMENTS == {"run-store": ("HF_TOKEN",)}
    assert "`HF_TOKEN` is one secret, of the environment `run-store`" in text
    readers = set()
    for name in ("publish.yml", "baselines.yml"):
        for job_id, job in workflow(name)["jobs"].items():
            for step in job["steps"]:
                if "HF_TOKEN" in json.dumps(step.get("env") or {}):
                    assert job["environment"] == "run-store", (name, job_id)
                    readers.add((name, job_id, step["name"]))
    quoted = set(re.findall(r"(\w+\.yml)'s `(\w+)` job in \"([^\"]+)\"", text))
    quoted |= {("publish.yml", job, step) for job, step in
               re.findall(r"its `(\w+)` job in \"([^\"]+)\"", text)}
    assert quoted == readers and len(readers) == 3, (quoted, readers)
    lines = [line.strip() for block in re.findall(r"```bash\n(.*?)```", section, re.S)
             for line in block.strip().splitlines()]
    top = re.search(r"```bash\n(GH_TOKEN=.*?)\n```", (REPO / "docs" / "MAINTAINERS.md")
                    .read_text(encoding="utf-8"))[1]
    assert lines == ["gh secret set HF_TOKEN --env run-store --repo OWNER/REPO", top,
                     "gh workflow run publish.yml --ref main"]
    source = inspect.getsource(audit._audit_environment)
    assert "holds {', '.join(secrets)}" in source
    assert "is no repository or organization secret" in source
    assert "no repository or organization secret has that name" in text
    dataset = workflow("publish.yml")["jobs"]["dataset"]
    assert "if" not in dataset and not any("if" in s for s in dataset["steps"])
    assert "Every publish run's `dataset` job pushes the results dataset" in text
