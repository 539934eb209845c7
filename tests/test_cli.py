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
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.mteb_collection import run_lines, write_collection
from fixtures.submission import linked_data, make_submission, oracle_lines, write_run_file
from leaderboard.app.cli import build_parser, main
from leaderboard.core.data import load_task_data
from leaderboard.benchmarks.registry import get_task
from leaderboard.submission.files import submission_files
from leaderboard.submission.results import read_results

WTR = "followtable/wtr"
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wtr(data_dir: Path):
    return load_task_data(get_task(WTR), data_dir)


@pytest.fixture(scope="module")
def wtr_runs(tmp_path_factory, wtr) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("wtr-runs")
    return {role: write_run_file(folder / f"{role}.trec", oracle_lines(wtr, role, 30))
            for role in ("original", "altered")}


@pytest.fixture(scope="module")
def written_submission(tmp_path_factory, wtr) -> Path:
    """The fixture submission's files, written once: its oracle runs of WTR's 327 queries
    took 0.9 s to draw and compress for each of the 16 tests that take one."""
    return make_submission(tmp_path_factory.mktemp("written") / "fixture-oracle", {WTR: wtr},
                           docs_per_query=30)


@pytest.fixture
def submission(tmp_path: Path, written_submission: Path) -> Path:
    """A test's own copy of the fixture submission (its files written afresh)."""
    folder = tmp_path / "submissions" / "fixture-oracle"
    shutil.copytree(written_submission, folder, copy_function=shutil.copyfile)
    return folder


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


def test_role_inferred_from_query_ids_else_exit_2(capsys, data_dir: Path, tmp_path: Path,
                                                  wtr_runs) -> None:
    path = tmp_path / "mine.trec"
    shutil.copy(wtr_runs["original"], path)  # the name says nothing; the topic-only ids do
    rc, out, _ = run_cli(capsys, "check-run", WTR, str(path), "--data-dir", str(data_dir))
    assert rc == 0 and "--role original (inferred from the query ids)" in out
    stranger = tmp_path / "stranger.trec"  # query ids of neither run: no role fits
    stranger.write_text("no-such-query Q0 8930 1 1.0 x\n", encoding="utf-8")
    err = usage_error(capsys, "check-run", WTR, str(stranger), "--data-dir", str(data_dir))
    assert "cannot tell which run of followtable/wtr this is" in err
    assert "give --role (original, altered)" in err


def test_a_run_of_no_query_of_the_task_is_told_what_its_ids_look_like(
        capsys, tmp_path: Path) -> None:
    """A FollowIR run whose ids are none of the task's ('100-og-fas', mFollowIR's
    language written into them) was told only to give --role, which cannot make them
    the task's: the refusal says none is, with the first, and how the task numbers each
    run's queries."""
    root = tmp_path / "data"
    collection = write_collection(root / "followir" / "robust04", n_queries=2, pool_size=5,
                                  corpus_size=12, seed=1)
    path = tmp_path / "mine.trec"
    path.write_text("".join(ln.replace("-og ", "-og-fas ", 1)
                            for ln in run_lines(collection, "original")), encoding="utf-8")
    err = usage_error(capsys, "check-run", "followir/robust04", str(path),
                      "--data-dir", str(root))
    assert ("cannot tell which run of followir/robust04 this is from its name or its query "
            "ids: none of them is a query of the task (first '100-og-fas'), whose original "
            "queries are numbered like '100-og' and altered ones like '100-changed'; give "
            "--role (original, altered)") in err


@pytest.mark.parametrize(("content", "finding"), [
    (None, "file not found"),
    (b"", "file is empty"),
    (b"\x1f\x8b\x08\x00", "gzip"),
])
def test_an_unreadable_file_is_invalid_whatever_its_role(capsys, data_dir: Path, tmp_path: Path,
                                                         content: bytes | None,
                                                         finding: str) -> None:
    """Without --role, a missing, empty or broken file got "give --role" (exit 2); given
    the role, the file's own finding (exit 1). It is the finding, either way."""
    path = tmp_path / "mine.trec.gz"
    if content is not None:
        path.write_bytes(content)
    rc, out, _ = run_cli(capsys, "check-run", WTR, str(path), "--data-dir", str(data_dir))
    assert rc == 1 and finding in out and "--role" not in out, out
    assert out.splitlines()[-1].startswith(f"{path}: INVALID {WTR} run (1 error")


def test_exit_2_on_missing_altered(capsys, data_dir: Path, wtr_runs) -> None:
    """The message names each option as the usage line above it does (it said --original
    FILE under a usage of --original RUN)."""
    err = usage_error(capsys, "eval", WTR, "--original", str(wtr_runs["original"]),
                      "--data-dir", str(data_dir))
    assert "followtable/wtr takes --original RUN --altered RUN" in err
    assert "[--original RUN]" in err
    err = usage_error(capsys, "explain", "pi-indic-val150/t4/hin", "--run", "x.trec")
    assert "pi-indic-val150/t4/hin takes --predictions FILE" in err


def test_exit_2_on_unknown_command_and_option(capsys) -> None:
    usage_error(capsys, "frobnicate")
    usage_error(capsys, "tasks", "--no-such-option")
    usage_error(capsys)


@pytest.mark.parametrize(("missing", "task"), [("bm25s", "pi-indic-val150/t1/hin"),
                                              ("Stemmer", WTR)])  # English is stemmed
def test_baselines_run_without_the_models_extra_says_to_install_it(
        capsys, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        missing: str, task: str) -> None:
    """How to submit's step 1 installs the models extra only to run one's own model, but
    its by-hand path starts with `baselines run bm25s`: without the extra that ended in
    "internal error (ModuleNotFoundError): No module named 'bm25s'. Please report it"
    (PyStemmer's "needs PyStemmer" likewise), a bug report for a missing install. It is
    an error that names the module and the extra's install line; nothing is written."""
    monkeypatch.setitem(sys.modules, missing, None)  # import of it fails as if not installed
    rc, out, err = run_cli(capsys, "baselines", "run", "bm25s", "--tasks", task,
                           "--out", str(tmp_path / "out"),
                           "--data-dir", str(data_dir), "--quiet")
    assert rc == 1
    assert "internal error" not in err and "Please report it" not in err
    assert missing in err and "the models extra" in err
    assert "python -m pip install -e '.[models]'" in err
    assert not (tmp_path / "out" / "bm25s").exists()


# --- help ---

def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(actions) == 1
    return dict(actions[0].choices)


def test_every_role_a_task_can_take_is_an_option_of_eval_explain_and_check_run() -> None:
    """The roles are core.tasks.Role; the commands spell them from one table (each
    command spelt them itself, four times in all)."""
    from typing import get_args

    from leaderboard.app.commands import ROLE_FILES
    from leaderboard.core.tasks import Role

    assert list(ROLE_FILES) == list(get_args(Role))
    commands = subcommands()
    for name in ("eval", "explain"):
        options = {o for a in commands[name]._actions for o in a.option_strings}
        assert {f"--{role}" for role in ROLE_FILES} <= options, name
    role = next(a for a in commands["check-run"]._actions if "--role" in a.option_strings)
    assert list(role.choices) == list(ROLE_FILES)


def command_lines(parser: argparse.ArgumentParser | None = None,
                  prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and subcommand, however deep (``runs pull``, ``ci pr-check``)."""
    parser = parser or build_parser()
    out = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                out += command_lines(child, (*prefix, name))
    return out


def command_parsers(root: argparse.ArgumentParser) -> list[tuple[tuple[str, ...],
                                                                argparse.ArgumentParser]]:
    """Each of :func:`command_lines` with its parser, under ``root``."""
    out = []
    for line in command_lines(root):
        parser = root
        for word in line:
            parser = next(a for a in parser._actions
                          if isinstance(a, argparse._SubParsersAction)).choices[word]
        out.append((line, parser))
    return out


def test_every_command_help_has_an_example(capsys) -> None:
    """The README promises an example under every command's --help, nested ones too
    (issue 34, finding 12: `runs pull|push|verify|add`, `import mteb|all`, `baselines
    list|run` had none)."""
    names = list(subcommands())
    assert {"tasks", "check-run", "eval", "validate", "score"} <= set(names)
    every = command_lines()
    assert {("runs", "pull"), ("runs", "add"), ("import", "mteb"), ("baselines", "list"),
            ("ci", "pr-check")} <= set(every)
    for argv in [[*line, "--help"] for line in every]:
        capsys.readouterr()
        with pytest.raises(SystemExit) as info:
            main(argv)
        out, _ = capsys.readouterr()
        assert info.value.code == 0, argv
        assert "Example" in out, f"`leaderboard {' '.join(argv)}` has no example"
        assert re.search(r"^\s+leaderboard ", out, re.M), argv  # the example is a command


def test_every_value_a_command_takes_is_named_for_what_it_is() -> None:
    """Options left to argparse's own name for their value showed it as the upper-cased
    option: `import mteb --out OUT`, `import all --out-dir OUT_DIR`, `ci audit-settings
    --branch BRANCH` by luck, and `tasks [pattern]` in lower case under a description of
    PATTERN. Every option that takes a value, and every positional, names it (DIR, FILE,
    N, PATTERN, ...) in capitals, unless it lists its choices."""
    root = build_parser()
    for line, parser in command_parsers(root):
        for action in parser._actions:
            if action.nargs == 0 or action.choices is not None or isinstance(
                    action, (argparse._HelpAction, argparse._VersionAction)):
                continue
            where = (line, action.option_strings or action.dest)
            assert action.metavar is not None, where
            shown = str(action.metavar).partition("://")  # hf://datasets/OWNER/NAME
            assert shown[2 if shown[1] else 0].split("/")[-1].isupper(), where
    mteb = {a.dest: a for a in subcommands()["import"]._actions[-1].choices["mteb"]._actions}
    assert mteb["out"].metavar == "FILE"


def test_every_output_option_is_out_and_import_all_keeps_out_dir_hidden(capsys) -> None:
    """`import all --out-dir DIR` was the only output option not called `--out` (build,
    export, baselines and ci pr-check take `--out DIR`). It is `--out DIR`, as every
    other; `--out-dir` still parses, for the scripts that give it, and no help shows it."""
    root = build_parser()
    shown = set()
    for line, parser in command_parsers(root):
        shown |= {o for a in parser._actions if a.help != argparse.SUPPRESS
                  for o in a.option_strings if o.startswith("--out")}
    assert shown == {"--out"}
    for option in ("--out", "--out-dir"):
        args = root.parse_args(["import", "all", option, "elsewhere"])
        assert args.out == Path("elsewhere"), option
    assert root.parse_args(["import", "all"]).out == Path("results/reported")
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["import", "all", "--help"])
    text = capsys.readouterr().out
    assert "--out DIR" in text and "--out-dir" not in text, text


def test_every_option_says_what_it_does() -> None:
    """`ci error-report --help` listed its six options bare (--repo DIR with no default,
    --reason TEXT with none of its own), `ci score-pending` its --after and --repo,
    `ci pr-check` its --pr-number and `runs add` its one required option, --from FROM:
    every option of every command has its line of help."""
    root = build_parser()
    bare = []
    for line, parser in command_parsers(root):
        bare += [(" ".join(line), a.option_strings[0]) for a in parser._actions
                 if a.option_strings and not (a.help or "").strip()]
    assert bare == []


def test_build_help_says_what_a_site_opened_from_disk_lacks(capsys) -> None:
    """`build --help` said to serve the site "to use the search box": opened from disk,
    the query explorer cannot load its files either (the build's own last line says so),
    and a reader opened index.html and found the explorer empty."""
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["build", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "to use the query explorer and the search box" in text, text


def help_examples() -> list[tuple[tuple[str, ...], list[str]]]:
    """Every `leaderboard` line of every help's "Example:" block, however deep: (the
    command whose help prints it, the line's words as a shell splits them). A line run
    through torchrun (`-m leaderboard.app.cli ...`) counts; other programs' lines (`python
    -m http.server`) do not."""
    examples = []
    root = build_parser()
    for line, parser in command_parsers(root):
        block = (parser.epilog or "").partition("Example:")[2]
        for text in block.splitlines():
            found = re.search(r"(?:^|\s)(?:leaderboard|-m leaderboard\.app\.cli)\s+(.*)$",
                              text)
            if found:
                examples.append((line, shlex.split(found.group(1), comments=True)))
    return examples


def test_every_help_example_parses_with_the_real_parser(capsys) -> None:
    """A user copies a help's example: each line parses as it is printed (an option
    renamed or a choice dropped, with its example left behind, fails here), and runs the
    command whose help shows it."""
    examples = help_examples()
    assert len(examples) >= len(command_lines())
    parser = build_parser()
    for line, words in examples:
        assert tuple(words[:len(line)]) == line, (line, words)
        capsys.readouterr()
        try:
            parser.parse_args(words)
        except SystemExit as exc:
            pytest.fail(f"`leaderboard {shlex.join(words)}` (in `{' '.join(line)} --help`): "
                        f"{capsys.readouterr().err.strip().splitlines()[-1]} (exit {exc.code})")


def test_every_help_that_says_where_the_cache_is_says_it_as_the_code_finds_it(
        capsys, tmp_path: Path) -> None:
    """`baselines run --help` put the encodings under "$LEADERBOARD_CACHE_DIR, else
    ~/.cache/followboard", and How to submit the explorer's files there: with
    $XDG_CACHE_HOME set (as many desktops set it) they are under that, where the user was
    not told to look. Each text that names the cache root names config.cache_root's rule
    whole, in its order."""
    from leaderboard.core.config import CACHE_ROOT_RULE, cache_root

    assert cache_root({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "followboard"
    assert cache_root({"LEADERBOARD_CACHE_DIR": "x", "XDG_CACHE_HOME": "y"}) == Path("x")
    assert CACHE_ROOT_RULE.index("$LEADERBOARD_CACHE_DIR") \
        < CACHE_ROOT_RULE.index("$XDG_CACHE_HOME/followboard") \
        < CACHE_ROOT_RULE.index("~/.cache/followboard")
    texts = {"submit.md.j2": " ".join((REPO / "leaderboard/publish/site/templates/"
                                       "submit.md.j2").read_text(encoding="utf-8").split())}
    for line in command_lines():
        capsys.readouterr()
        with pytest.raises(SystemExit):
            main([*line, "--help"])
        texts[" ".join(line)] = " ".join(capsys.readouterr().out.split())
    naming = {name for name, text in texts.items()
              if "LEADERBOARD_CACHE_DIR" in text or "cache/followboard" in text}
    assert {"baselines run", "score", "submit.md.j2"} <= naming
    for name in naming:
        text = texts[name].replace("`", "")
        assert text.count("LEADERBOARD_CACHE_DIR") == text.count(CACHE_ROOT_RULE), (name, text)


# --- eval --json ---

def test_every_data_pull_the_help_and_docs_suggest_names_what_it_pulls(capsys) -> None:
    """`import mteb --help` sent readers to `leaderboard data pull mteb-results`, which
    `data pull` refuses as an unknown benchmark: each `data pull` a help text or a doc
    suggests names sources it fetches."""
    from leaderboard.app.datapull.pull import select_sources

    texts = [(Path(__file__).parents[1] / doc).read_text(encoding="utf-8")
             for doc in ("README.md", "docs/MAINTAINERS.md", "docs/ARCHITECTURE.md")]
    for line in command_lines():
        capsys.readouterr()
        with pytest.raises(SystemExit):
            main([*line, "--help"])
        texts.append(capsys.readouterr().out)
    suggested = [m.group(1).split() for text in texts
                 for m in re.finditer(r"leaderboard data pull ((?:[\w/*.-]+ ?)+)", text)]
    names = []
    for words in suggested:  # the names before the first option
        for word in words:
            if word.startswith("-"):
                break
            if word.upper() != word:  # BENCHMARK... is a placeholder
                names.append(word)
    assert "followtable" in names
    for name in names:
        assert select_sources([name]), name


def test_eval_json_is_one_object(capsys, data_dir: Path, wtr_runs, wtr) -> None:
    rc, out, err = run_cli(capsys, "eval", WTR, "--original", str(wtr_runs["original"]),
                           "--altered", str(wtr_runs["altered"]), "--data-dir", str(data_dir),
                           "--json")
    assert rc == 0, err
    result = json.loads(out)  # one object, nothing else on stdout
    assert set(result) == {"format", "task", "metrics", "groups", "per_query"}
    assert result["task"] == WTR
    assert set(result["metrics"]) == set(get_task(WTR).metric_keys())
    assert set(result["per_query"]["IRS"]) == set(wtr.roles["altered"].query_ids)
    assert set(result["per_query"]["original/nDCG@10"]) == set(wtr.roles["original"].query_ids)
    assert set(result["groups"]) == {"C1", "C2", "S1", "S2", "S3"}
    # Relevant documents first in both runs: nDCG@10 is perfect where <= 10 are relevant.
    assert result["metrics"]["original/nDCG@10"] > 0.9


def test_every_json_output_names_its_format_and_its_help_says_it(
        capsys, data_dir: Path, wtr_runs) -> None:
    """`eval --json` and `explain --json` printed objects with no version, so a script
    reading them could not tell a later shape from this one (`compare --json` names
    followboard-compare/3): each names its format, and its --help names it."""
    runs = ["--original", str(wtr_runs["original"]), "--altered", str(wtr_runs["altered"]),
            "--data-dir", str(data_dir), "--json"]
    for command, extra, form in (("eval", [], "followboard-eval/1"),
                                 ("explain", ["--limit", "1"], "followboard-explain/1")):
        rc, out, err = run_cli(capsys, command, WTR, *runs, *extra)
        assert rc == 0, err
        assert json.loads(out)["format"] == form, command
        capsys.readouterr()
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert form in " ".join(capsys.readouterr().out.split()), command
    # `tasks --json` printed a bare list: an object naming its format holds the tasks.
    rc, out, err = run_cli(capsys, "tasks", "followtable/w", "--json")
    assert rc == 0, err
    listed = json.loads(out)
    assert set(listed) == {"format", "tasks"} and listed["format"] == "followboard-tasks/1"
    assert [t["id"] for t in listed["tasks"]] == ["followtable/wqt", "followtable/wtr"]
    with pytest.raises(SystemExit):
        main(["tasks", "--help"])
    assert "followboard-tasks/1" in " ".join(capsys.readouterr().out.split())


def test_eval_text_output_is_on_the_leaderboards_scale_and_says_so(capsys, data_dir: Path,
                                                                   wtr_runs) -> None:
    common = ("eval", WTR, "--original", str(wtr_runs["original"]),
              "--altered", str(wtr_runs["altered"]), "--data-dir", str(data_dir))
    rc, out, _ = run_cli(capsys, *common)
    assert rc == 0
    assert out.startswith(f"{WTR} (267 queries; scores x100, as on the leaderboard; "
                          "--json gives fractions)")
    _, as_json, _ = run_cli(capsys, *common, "--json")
    fractions = json.loads(as_json)
    # Signed where the catalogue says so (p-MRR, IRS), as on the board and in `compare`;
    # nDCG printed "+53.90", which no other surface writes.
    for key, form in (("IRS", "+.2f"), ("p-MRR", "+.2f"), ("original/nDCG@10", ".2f")):
        shown = re.search(rf"^\s+{re.escape(key)}\s+([+-]?\d+\.\d\d)$", out, re.M)
        assert shown, key
        assert shown.group(1) == format(100 * fractions['metrics'][key], form)
    c1 = re.search(r"^\s+\[C1\] original/nDCG@10=(\S+) .*IRS=(\S+)$", out, re.M)
    assert c1 and c1.groups() == (
        f"{100 * fractions['groups']['C1']['original/nDCG@10']:.2f}",
        f"{100 * fractions['groups']['C1']['IRS']:+.2f}")


def test_eval_text_lines_up_every_figure(capsys, data_dir: Path) -> None:
    """T4's "Predicted positive rate" (23 characters) overran the 22-character name column
    by one, so its figure stood a column right of the others'."""
    task = "pi-indic-val150/t4/hin"
    predictions = REPO / "submissions" / "bm25s" / "runs" / task / "predictions.tsv"
    rc, out, _ = run_cli(capsys, "eval", task, "--predictions", str(predictions),
                         "--data-dir", str(data_dir))
    assert rc == 0
    figures = out.splitlines()[1:]
    assert any(line.split()[0] == "Predicted" for line in figures)
    assert len({len(line) for line in figures}) == 1, figures


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
    written = [results, submission / "per-query.json.gz", submission / "manifest.txt"]
    first = [p.read_bytes() for p in written]
    rc, _, _ = run_cli(capsys, "score", str(submission), "--data-dir", str(data_dir), "--quiet")
    assert rc == 0
    assert [p.read_bytes() for p in written] == first
    parsed = json.loads(first[0])
    system = parsed["systems"][0]
    assert system["system_id"] == "fixture-oracle"
    assert set(system["tasks"]) == {WTR}
    # Git keeps the scores; the per-query ones are in the file results.json names.
    assert "per_query" not in system["tasks"][WTR]
    assert parsed["per_query_file"]["path"] == "per-query.json.gz"
    assert read_results(results).systems[0].tasks[WTR].per_query["IRS"]


def test_score_records_the_revision_the_data_folder_holds(capsys, data_dir: Path,
                                                          submission: Path,
                                                          tmp_path: Path) -> None:
    """results.json recorded the registry's pinned revision for every task, whatever the
    data folder held: data pulled at another revision was recorded as the pinned one (the
    manifest was never read), and files nobody checked as verified. It records the
    manifest's revision (with a warning where it is not the pinned one), and says when
    there is no manifest to vouch for the files."""
    source = get_task(WTR).source
    pinned = f"{source.repo}@{source.revision}"
    cases = [({"repo": source.repo, "revision": source.revision}, pinned, False),
             ({"repo": source.repo, "revision": "0123abcd4567"},
              f"{source.repo}@0123abcd4567", True),
             (None, f"{pinned} (the pinned revision; files not verified: no .manifest.json "
                    "from `leaderboard data pull`)", False)]
    for i, (manifest, recorded, warned) in enumerate(cases):
        data = linked_data(data_dir, tmp_path / f"data-{i}", source, manifest)
        rc, out, err = run_cli(capsys, "score", str(submission), "--data-dir", str(data),
                               "--quiet")
        assert rc == 0, out + err
        produced = json.loads((submission / "results.json").read_text())["produced_by"]
        assert produced[f"data:{WTR}"] == recorded
        warning = (f"{data / 'followtable' / 'WTR'}: warning: pulled {source.repo}@0123abcd4567,"
                   f" but the registry pins {pinned}")
        assert (warning in out) == warned, out


def test_score_records_files_the_manifest_does_not_list_as_not_verified(
        capsys, data_dir: Path, submission: Path, tmp_path: Path) -> None:
    """A file the reader reads that the folder's manifest does not list (put there by
    hand, or left by a copy) is caught by `data status --verify` and by `data pull`, but
    `score` recorded the pulled revision for scores computed with it. It records the
    revision as not verified, naming the file, and warns; listing the declared files
    hashes nothing."""
    source = get_task(WTR).source
    pinned = f"{source.repo}@{source.revision}"
    data = linked_data(data_dir, tmp_path / "data", source,
                       {"repo": source.repo, "revision": source.revision},
                       unlisted=("qrels/test.tsv",))
    rc, out, err = run_cli(capsys, "score", str(submission), "--data-dir", str(data), "--quiet")
    assert rc == 0, out + err
    produced = json.loads((submission / "results.json").read_text())["produced_by"]
    assert produced[f"data:{WTR}"] == (
        f"{pinned} (files not verified: qrels/test.tsv is read with the pulled files and "
        f"not listed in .manifest.json)")
    folder = data / source.local_dir
    assert (f"{folder}: warning: {folder / 'qrels/test.tsv'} is read with the pulled files "
            f"and not listed in .manifest.json") in out, out


def explanation_manifest(submission: Path) -> dict:
    """The explanation manifest results.json names, wherever the store keeps it (a
    submitter's `leaderboard score` keeps it in the run store's cache: CI writes explain/
    after the merge)."""
    named = read_results(submission / "results.json", per_query=False).explain_manifest
    assert named is not None
    return json.loads(submission_files(submission).read(named.ref()))


def test_score_same_runs_in_another_order_give_the_same_bytes(capsys, data_dir: Path,
                                                              submission: Path) -> None:
    run_cli(capsys, "score", str(submission), "--data-dir", str(data_dir), "--quiet")
    first = (submission / "results.json").read_bytes()
    explained = explanation_manifest(submission)
    path = submission / "runs" / WTR / "altered.trec.gz"
    lines = gzip.decompress(path.read_bytes()).decode().splitlines(True)
    path.write_bytes(gzip.compress("".join(reversed(lines)).encode(), mtime=0))
    rc, _, _ = run_cli(capsys, "score", str(submission), "--data-dir", str(data_dir), "--quiet")
    assert rc == 0
    # Same scores to the byte; only the recorded SHA-256 of the reordered file differs,
    # and so the explanation manifest, which records the digest of the inputs it was
    # computed from (its files, named by content, are the same).
    before, after = json.loads(first), json.loads((submission / "results.json").read_bytes())
    digests_before, digests_after = before.pop("inputs_sha256"), after.pop("inputs_sha256")
    before.pop("explain_manifest"), after.pop("explain_manifest")
    assert after == before
    explained_again = explanation_manifest(submission)
    assert explained_again.pop("inputs_digest") != explained.pop("inputs_digest")
    assert explained_again == explained
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
    assert "query '0' has 1001 documents; at most 1000 are allowed" in out
    assert "fixture-oracle: not scored (2 errors)" in out
    assert results.read_bytes() == before and results.stat().st_mtime_ns == mtime
    assert not list(submission.glob("*.tmp*")) and not list(submission.glob(".*"))


def test_score_broken_submission_without_old_results(capsys, data_dir: Path,
                                                     submission: Path) -> None:
    (submission / "runs" / WTR / "altered.trec.gz").write_bytes(b"\x1f\x8b truncated")
    rc, out, _ = run_cli(capsys, "score", str(submission), "--data-dir", str(data_dir))
    assert rc == 1
    assert sorted(p.name for p in submission.iterdir()) == ["metadata.yaml", "runs"]


@pytest.mark.parametrize("command", [
    ["score"], ["validate"], ["runs", "verify"], ["runs", "pull"], ["runs", "push", "--keep"],
    ["runs", "add", "--from", "FROM"]])
def test_a_folder_that_is_not_there_is_named_as_such(
        command: list[str], capsys, data_dir: Path, tmp_path: Path) -> None:
    """`score submissions/nope` (and validate, runs pull/push/verify/add) said "nope: not a
    submission folder" of a folder that does not exist, which reads as a folder of the
    wrong kind; a file was "not a submission folder" too. Each says what it is; a folder
    without metadata.yaml, runs/ or manifest.txt is "not a submission folder", naming
    them, for the runs commands too (they said "manifest.txt: missing: run `leaderboard
    score` first")."""
    source = tmp_path / "new-runs"
    (source / "runs").mkdir(parents=True)
    argv = [str(source) if word == "FROM" else word for word in command]
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "empty").mkdir()
    for name, said in (("nope", "no such folder"), ("a-file", "not a folder"),
                       ("empty", "not a submission folder: it holds neither metadata.yaml "
                                 "nor runs/ nor manifest.txt")):
        rc, out, err = run_cli(capsys, *argv, str(tmp_path / name),
                               *(["--data-dir", str(data_dir)] if command[0] != "runs"
                                 or command[1] == "add" else []))
        assert rc == 1, (out, err)
        assert said in out + err, (name, out, err)
        if said != "not a submission folder" and name != "empty":
            assert "not a submission folder" not in out + err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "empty", "new-runs"]
    assert list((tmp_path / "empty").iterdir()) == []


def test_runs_add_from_a_folder_that_is_not_there_says_so(capsys, data_dir: Path,
                                                          submission: Path,
                                                          tmp_path: Path) -> None:
    """`runs add SUB --from nope` said "nope: no runs/ folder to add from", as if the
    folder were there without its runs/."""
    rc, _, err = run_cli(capsys, "runs", "add", str(submission), "--from",
                         str(tmp_path / "nope"), "--data-dir", str(data_dir))
    assert rc == 1 and f"{tmp_path / 'nope'}: no such folder (--from)" in err, err


def test_every_command_words_its_errors_one_way(capsys, data_dir: Path, submission: Path,
                                                tmp_path: Path) -> None:
    """Errors started "error:" (import mteb), "leaderboard import: error:" (import all),
    "leaderboard runs: error:" (runs add), "leaderboard compare:", "check-model-ids:",
    "explain:" or nothing at all. Each is "leaderboard COMMAND: error: ..." with the
    command as typed (its action too), as argparse words a usage error."""
    missing = str(tmp_path / "missing")
    (tmp_path / "elsewhere").mkdir()
    failing = {
        "leaderboard import mteb": ["import", "mteb", missing, "--out", str(tmp_path / "o")],
        "leaderboard import all": ["import", "all", "--data-dir", missing, "--out",
                                   str(tmp_path / "o")],
        "leaderboard runs add": ["runs", "add", str(submission), "--from", missing,
                                 "--data-dir", str(data_dir)],
        "leaderboard runs push": ["runs", "push", "--all", "--submissions-dir", missing],
        "leaderboard tasks": ["tasks", "nope/"],
        "leaderboard ci score-pending": ["ci", "score-pending", "--repo",
                                         str(tmp_path / "elsewhere")],
        "leaderboard ci comment-body": ["ci", "comment-body", missing],
        "leaderboard ci check-model-ids": ["ci", "check-model-ids", "no-such-model"],
    }
    for command, argv in failing.items():
        rc, _, err = run_cli(capsys, *argv)
        assert rc == 1, (command, err)
        lines = err.strip().splitlines()
        assert lines and lines[0].startswith(f"{command}: error: "), (command, err)
    usage = {
        "leaderboard runs push": ["runs", "push"],
        "leaderboard ci audit-settings": ["ci", "audit-settings", "--repository", "no-slash"],
    }
    for command, argv in usage.items():
        err = usage_error(capsys, *argv)
        assert f"\n{command}: error: " in err, (command, err)



def test_every_usage_error_a_command_finds_is_worded_and_exits_as_argparses(
        capsys, data_dir: Path, wtr_runs, tmp_path: Path) -> None:
    """Options that conflict, or a value an option cannot take, exited 2 when argparse or
    a handler's parser.error found them (`runs push` given folders and --all) and 1 when
    a handler or the library raised an error of its own (`export --existing` without
    --push, `export --push nope`, `baselines run bm25s --family ...`), though cli.py
    says 2 is a usage error. Every such check raises core.errors.UsageError, which main
    words as argparse does: the command's usage line, then `leaderboard CMD: error: ...`,
    exit 2, before any work (nothing written). parser.error is main's alone."""
    out = tmp_path / "out"
    folder = tmp_path / "a-folder"
    folder.mkdir()
    wtr_files = ["--original", str(wtr_runs["original"]), "--altered",
                 str(wtr_runs["altered"]), "--data-dir", str(data_dir)]
    bm25s = ["baselines", "run", "bm25s", "--out", str(out)]
    refused = [
        # options that conflict
        (["runs", "push", "--all", str(folder)], "give submission folders or --all"),
        (["runs", "push"], "give submission folders or --all"),
        (["export", "--out", str(out), "--existing"],
         "--existing pushes an earlier export: give --push too"),
        ([*bm25s, "--family", "bi-encoder"],
         "bm25s is declared in reference_models/models.yaml and runs as declared; --family"),
        (["baselines", "run", str(folder), "--revision", "abc", "--out", str(out)],
         "--revision applies to a Hub id"),
        (["eval", WTR, "--run", str(wtr_runs["original"]), "--data-dir", str(data_dir)],
         "followtable/wtr takes --original RUN --altered RUN"),
        (["check-run", WTR, str(wtr_runs["original"]), "--role", "run",
          "--data-dir", str(data_dir)], "--role must be one of original, altered"),
        # values an option cannot take
        (["export", "--out", str(out), "--push", "nope"], "--push 'nope': name a Hugging Face"),
        (["export", "--out", str(out), "--push", "hf://models/a/b"],
         "--push: 'hf://models/a/b': only dataset repositories hold FollowBoard's files"),
        (["runs", "push", str(folder), "--to", "hf://models/a/b"],
         "--to: 'hf://models/a/b': only dataset repositories"),
        ([*bm25s, "--owner", "not a login"], "--owner 'not a login' is not a GitHub login"),
        ([*bm25s, "--tasks", "nope/*"], "task pattern 'nope/*' matches no task"),
        # a near miss is named: another case, the benchmark's other name, a character off
        ([*bm25s, "--tasks", "PI-Indic-val150/t1/hin"], "task pattern 'PI-Indic-val150/t1/hin' "
         "matches no task; did you mean pi-indic-val150/t1/hin? (`leaderboard tasks`"),
        ([*bm25s, "--tasks", "pi-indic/t1/hin"], "did you mean pi-indic-val150/t1/hin?"),
        ([*bm25s, "--tasks", "followir/robust"], "did you mean followir/robust04"),
        (["baselines", "measure", "bm25s", "--tasks", "nope/*", "--out", str(out)],
         "task pattern 'nope/*' matches no task"),
        (["baselines", "run", "someone/model", "--first-stage", "nope", "--out", str(out)],
         "--first-stage 'nope' is not a declared BM25 or bi-encoder model"),
        (["data", "pull", "followtable", "--jobs", "0", "--data-dir", str(out)],
         "--jobs must be at least 1, not 0"),
        (["data", "pull", "nope", "--data-dir", str(out)], "unknown benchmark or task 'nope'"),
        (["data", "status", "--tasks", "nope/*", "--data-dir", str(out)],
         "--tasks 'nope/*' matches no task"),
        (["explain", WTR, *wtr_files, "--limit", "0"], "--limit must be positive"),
        (["eval", "nope/x", *wtr_files], "unknown task 'nope/x'"),
        (["ci", "audit-settings", "--repository", "no-slash"],
         "--repository must be OWNER/REPO, not 'no-slash'"),
        (["ci", "pr-check", "--repo", str(folder), "--base", "a", "--head", "b", "--out",
          str(out)], "is not a git repository"),
    ]
    for argv, said in refused:
        command = "leaderboard " + " ".join(argv[:2] if argv[0] in (
            "runs", "baselines", "data", "ci") else argv[:1])
        err = usage_error(capsys, *argv)
        lines = err.strip().splitlines()
        assert lines[0].startswith(f"usage: {command} "), (argv, err)
        assert lines[-1].startswith(f"{command}: error: ") and said in lines[-1], (argv, err)
        assert not out.exists(), argv
    callers = [path.relative_to(REPO) for root in ("leaderboard", "reference_models")
               for path in (REPO / root).rglob("*.py")
               if "parser.error(" in path.read_text(encoding="utf-8")]
    assert callers == [Path("leaderboard/app/cli.py")], callers


# --- validate ---

def test_validate_valid_submission(capsys, data_dir: Path, submission: Path) -> None:
    rc, out, _ = run_cli(capsys, "validate", str(submission), "--data-dir", str(data_dir),
                         "--quiet")
    assert rc == 0, out
    assert "fixture-oracle: valid (1 task, 0 errors" in out
    assert not (submission / "results.json").exists()


def test_a_task_whose_data_is_missing_is_said_not_checked_not_invalid(
        capsys, data_dir: Path, submission: Path, tmp_path: Path) -> None:
    """A folder whose FollowIR runs could not be read (the data, on the Hub only, not
    pulled) ended "INVALID (2 tasks, 1 error...)": the runs were not found wrong, only
    not read. It says which tasks were not checked, and a folder with no other error is
    not called INVALID for them; the exit status stays 1 (not passed)."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "followtable").symlink_to(data_dir / "followtable")
    both = tmp_path / "fixture-oracle"
    shutil.copytree(submission, both)
    robust = both / "runs" / "followir" / "robust04"
    robust.mkdir(parents=True)
    for role in ("original", "altered"):
        (robust / f"{role}.trec").write_text("1 Q0 d1 1 1.0 t\n", encoding="utf-8")
    rc, out, _ = run_cli(capsys, "validate", str(both), "--data-dir", str(data), "--quiet")
    assert rc == 1, out
    assert out.splitlines()[-1] == ("fixture-oracle: NOT FULLY CHECKED, valid where checked "
                                    "(2 tasks, 1 error, 0 warnings, 1 task not checked: "
                                    "no data)"), out
    shutil.rmtree(both / "runs" / "followtable")
    rc, out, _ = run_cli(capsys, "validate", str(both), "--data-dir", str(data), "--quiet")
    assert rc == 1, out
    assert out.splitlines()[-1].startswith("fixture-oracle: NOT CHECKED (1 task, 1 error"), out


def test_a_submission_named_dot_from_inside_it_is_that_folder(
        capsys, data_dir: Path, submission: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`leaderboard validate .` inside the folder said "id: 'fixture-oracle' must equal
    the folder name ''" and failed; `score .` scored, under an empty name."""
    monkeypatch.chdir(submission)
    rc, out, _ = run_cli(capsys, "validate", ".", "--data-dir", str(data_dir), "--quiet")
    assert rc == 0, out
    assert "fixture-oracle: valid (1 task, 0 errors" in out
    rc, out, _ = run_cli(capsys, "score", ".", "--data-dir", str(data_dir), "--quiet")
    assert rc == 0, out
    assert "fixture-oracle: scored 1 task" in out
    monkeypatch.chdir(submission / "runs")
    rc, out, _ = run_cli(capsys, "runs", "verify", "..")
    assert rc == 0, out
    assert "fixture-oracle" in out


def test_scoring_a_folder_that_is_no_submission_says_so_and_copies_nothing(
        capsys, data_dir: Path, tmp_path: Path) -> None:
    """`score .` at a repository's root copied the whole tree for the change (hard links
    to every file) and then refused the first symbolic link it met in .venv/, as if the
    folder were a submission holding a link."""
    root = tmp_path / "repository"
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "python").symlink_to("/usr/bin/python3")
    (root / "README.md").write_text("# a project\n", encoding="utf-8")
    rc, out, _ = run_cli(capsys, "score", str(root), "--data-dir", str(data_dir), "--quiet")
    assert rc == 1
    assert "repository: not a submission folder" in out and "symbolic link" not in out, out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repository"]


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


def test_validate_of_a_folder_that_is_not_a_submission_says_so_once(capsys, data_dir: Path,
                                                                     tmp_path: Path) -> None:
    """`validate submissions/../../../../etc` listed 147 "unexpected file" lines."""
    folder = tmp_path / "etc"
    for i in range(147):
        (folder / f"entry-{i}").mkdir(parents=True)
    rc, out, _ = run_cli(capsys, "validate", str(folder), "--data-dir", str(data_dir),
                         "--quiet")
    assert rc == 1
    problems = [line for line in out.splitlines() if line.startswith("etc: ")
                and "not a submission folder" in line]
    assert problems == ["etc: not a submission folder: it holds neither metadata.yaml nor "
                        "runs/ nor manifest.txt (a submission is a folder submissions/<id>/ "
                        "with its metadata.yaml and its runs)"], out
    assert "unexpected file" not in out


def test_validate_summarises_repeated_warnings_and_ends_with_the_verdicts(
        capsys, data_dir: Path, submission: Path, tmp_path: Path) -> None:
    """`validate submissions/*` printed a tie warning per run (884 of 1,815 lines) and
    each verdict after its own submission's findings, buried."""
    from fixtures.submission import METADATA

    tied = tmp_path / "submissions" / "tied-model"
    tied.mkdir(parents=True)
    (tied / "metadata.yaml").write_text(METADATA.format(id="tied-model"))
    languages = ["asm", "ben", "guj", "hin", "kan"]
    for language in languages:
        data = load_task_data(get_task(f"pi-indic-val150/t1/{language}"), data_dir)
        write_run_file(tied / "runs" / "pi-indic-val150" / "t1" / language / "run.trec",
                       [f"{q} Q0 {d} {r} 1.0 tied\n" for q in data.roles["run"].query_ids
                        for r, d in enumerate(data.doc_ids.tolist(), 1)])
    (submission / "runs" / WTR / "altered.trec.gz").write_bytes(b"\x1f\x8b truncated")
    rc, out, _ = run_cli(capsys, "validate", str(submission), str(tied), "--data-dir",
                         str(data_dir), "--quiet")
    assert rc == 1
    lines = out.splitlines()
    ties = [line for line in lines if "tied scores" in line]
    assert len(ties) == 1, out
    assert ties[0].startswith("tied-model/runs/pi-indic-val150/t1/asm/run.trec:1: warning: "
                              "tied scores: 22,350 in all, over 150 queries;")
    assert ties[0].endswith("[and the same warning for 4 more files]")
    # Every finding first, then the verdicts, one per submission, the last lines.
    assert lines[-4:] == ["", "1 of 2 passed:", "fixture-oracle: INVALID (1 task, 1 error, "
                          "0 warnings)", "tied-model: valid (5 tasks, 0 errors, 5 warnings)"]
    assert lines[0].startswith("fixture-oracle/runs/followtable/wtr/altered.trec.gz: ")


def wtr_note(data_dir: Path) -> str:
    """WTR's note, naming the data folder the command read for `data status` to read."""
    return ("followtable/wtr: note: upstream's data as read: 4 repeated judgments read once; "
            f"`leaderboard data status followtable --data-dir {shlex.quote(str(data_dir))}` "
            "says where")


def test_eval_says_what_the_reader_did_with_upstreams_files_in_one_line(
        capsys, data_dir: Path, wtr_runs) -> None:
    """Upstream's WTR test.tsv repeats 4 rows, grade and all, which the reader reads once;
    nothing told a user so (a logged warning would have shown only when the task-data
    cache missed). `eval` says it in one line of the task, a note that fails nothing,
    with --json too (on stderr), and on a cache hit as on a miss."""
    runs = ("eval", WTR, "--original", str(wtr_runs["original"]), "--altered",
            str(wtr_runs["altered"]), "--data-dir", str(data_dir))
    for extra in ((), ("--json",)):
        rc, _, err = run_cli(capsys, *runs, *extra)
        assert rc == 0 and err.splitlines() == [wtr_note(data_dir)], err
    rc, _, err = run_cli(capsys, "eval", "followtable/tarx", "--original",
                         str(wtr_runs["original"]), "--altered", str(wtr_runs["altered"]),
                         "--data-dir", str(data_dir))
    assert rc == 1 and "note:" not in err  # TArX's files need no note


def test_validate_and_score_say_each_tasks_notes_once_summarised_over_tasks(
        capsys, data_dir: Path, submission: Path, tmp_path: Path) -> None:
    """`validate` and `score` say a task's notes in one line of the task, neither an error
    nor a warning; the same line of more than a few tasks (the 47 that read the Punjabi
    file, whose row 4 has a stray brace) is one line, as repeated warnings are."""
    from fixtures.submission import METADATA

    rc, out, _ = run_cli(capsys, "validate", str(submission), "--data-dir", str(data_dir),
                         "--quiet")
    assert rc == 0 and out.splitlines() == [
        wtr_note(data_dir), "fixture-oracle: valid (1 task, 0 errors, 0 warnings)"], out
    rc, out, _ = run_cli(capsys, "score", str(submission), "--data-dir", str(data_dir),
                         "--quiet")
    # after the warning that CI refuses a results.json scored on unverified data
    assert rc == 0 and wtr_note(data_dir) in out.splitlines(), out

    punjabi = tmp_path / "submissions" / "punjabi-model"
    punjabi.mkdir(parents=True)
    (punjabi / "metadata.yaml").write_text(METADATA.format(id="punjabi-model"))
    tasks = ["t1/pan", "t2/hin-pan", "t2/pan-hin", "t3/pan", "t1/hin"]
    for task in tasks:
        data = load_task_data(get_task(f"pi-indic-val150/{task}"), data_dir)
        write_run_file(punjabi / "runs" / "pi-indic-val150" / task / "run.trec",
                       oracle_lines(data, "run"))
    rc, out, _ = run_cli(capsys, "validate", str(punjabi), "--data-dir", str(data_dir),
                         "--quiet")
    assert rc == 0 and out.splitlines() == [
        "pi-indic-val150/t1/pan: note: upstream's data as read: stray '}' ignored on 1 "
        f"line; `leaderboard data status pi-indic-val150 --data-dir {shlex.quote(str(data_dir))}`"
        " says where [and the same note for 3 more tasks]", "punjabi-model: valid (5 tasks, 0 errors, 0 warnings)"], out


def test_data_status_lists_the_notes_of_the_real_data(capsys, data_dir: Path) -> None:
    """`data status` says, per source, each note of its tasks' data in full (the file
    under the data directory, the lines), with the tasks it concerns when not all, and
    with --tasks each task's in brief: on the pinned data, the rows WTR, IndusTR and
    WQT's test.tsv repeat, and Punjabi row 4's stray brace; nothing else."""
    rc, out, _ = run_cli(capsys, "data", "status", "followtable", "--tasks",
                         "--data-dir", str(data_dir))
    assert rc == 0
    notes = [line.strip() for line in out.splitlines() if line.strip().startswith("note:")]
    assert notes == [
        "note: followtable/WQT/qrels/test.tsv: 19 rows repeat an earlier row's query, table "
        "and grade (lines 2793, 4506, 5862, 8195, 9487, 9496, 9674, 10204, 15685, 16975, "
        "17217, 18602, 19047, 19753, 20462, 20471, 22688, 22694, 25440), each read as one "
        "judgment",
        "note: followtable/WTR/qrels/test.tsv: 4 rows repeat an earlier row's query, table "
        "and grade (lines 4040, 4764, 4766, 4781), each read as one judgment",
        "note: followtable/IndusTR/qrels/test.tsv: 2 rows repeat an earlier row's query, "
        "table and grade (lines 515, 516), each read as one judgment"], out
    assert "ready   followtable/wtr (4 repeated judgments read once)" in out
    assert re.search(r"ready   followtable/tarx$", out, re.M)
    rc, out, _ = run_cli(capsys, "data", "status", "pi-indic", "--tasks", "*/pan",
                         "*/hin", "--data-dir", str(data_dir))
    assert rc == 0
    notes = [line.strip() for line in out.splitlines() if line.strip().startswith("note:")]
    assert notes == [
        "note: pi-indic/annotator_validation/language-wise-validation/Nirdesha_Multilingual"
        "_Validation - Punjabi.csv: line 5: a context cell ends in a stray '}' after its "
        "JSON object (an upstream typo), which is ignored (3 of 6 tasks)"], out
    assert "ready   pi-indic-val150/t3/pan (stray '}' ignored on 1 line)" in out
    assert re.search(r"ready   pi-indic-val150/t3/hin$", out, re.M)


def test_data_status_names_a_task_whose_files_cannot_be_read(capsys, data_dir: Path,
                                                              tmp_path: Path) -> None:
    """A task whose files are all there but do not read is not ready: `data status`
    reads each task, as `eval` would, to give its notes, and says what stops it."""
    shutil.copytree(data_dir / "followtable" / "WTR", tmp_path / "followtable" / "WTR")
    qrels = tmp_path / "followtable" / "WTR" / "qrels" / "test.tsv"
    qrels.write_text(qrels.read_text(encoding="utf-8") + "1_0\t9156\tone\n", encoding="utf-8")
    rc, out, _ = run_cli(capsys, "data", "status", WTR, "--tasks", "--data-dir", str(tmp_path))
    assert rc == 1
    assert "0/1 tasks ready" in out
    assert re.search(rf"^ +cannot read: {WTR}: {re.escape(str(qrels))}:\d+: relevance 'one' "
                     "is not an integer$", out, re.M), out
    assert re.search(rf"invalid {WTR}$", out, re.M), out


def test_unknown_task_ids_get_close_suggestions_ignoring_case(capsys, wtr_runs) -> None:
    runs = ["--original", str(wtr_runs["original"]), "--altered", str(wtr_runs["altered"])]
    assert ("unknown task 'followtable/wtq'. Did you mean followtable/wtr or followtable/wqt?"
            in usage_error(capsys, "eval", "followtable/wtq", *runs))
    assert ("unknown task 'followIR/robust04'. Did you mean followir/robust04?"
            in usage_error(capsys, "eval", "followIR/robust04", *runs))
    assert ("Did you mean one of: followtable/industr, followtable/tarx, followtable/wqt, "
            "followtable/wtr?" in usage_error(capsys, "check-run", "FollowTable",
                                              str(wtr_runs["original"])))
    # The task under its benchmark's name without the split (pi-indic, not pi-indic-val150)
    # was too far from it for any suggestion.
    assert ("unknown task 'pi-indic/t1/hin'. Did you mean pi-indic-val150/t1/hin?"
            in usage_error(capsys, "check-run", "pi-indic/t1/hin", str(wtr_runs["original"])))


def test_eval_help_reads_as_whole_sentences(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "prints one object Scores" not in text
    assert ("takes --predictions. Scores print x100, the leaderboard's scale; with --json, one "
            'object {"format", "task", "metrics", "groups", "per_query"} holds them as '
            "fractions") in text


def test_pi_indic_messages_name_a_run_once_and_count_pairs(capsys, data_dir: Path) -> None:
    runs = REPO / "submissions" / "bm25s" / "runs" / "pi-indic-val150"
    rc, out, _ = run_cli(capsys, "check-run", "pi-indic-val150/t1/hin",
                         str(runs / "t1" / "hin" / "run.trec.gz"), "--data-dir", str(data_dir))
    assert rc == 0 and "run run" not in out
    assert "valid pi-indic-val150/t1/hin run (0 errors, 1 warning)" in out
    rc, out, _ = run_cli(capsys, "eval", "pi-indic-val150/t4/hin", "--predictions",
                         str(runs / "t4" / "hin" / "predictions.tsv"), "--data-dir",
                         str(data_dir))
    assert rc == 0
    assert out.splitlines()[0].startswith(
        "pi-indic-val150/t4/hin (825 pairs of 75 personas; scores x100")


# --- start-up: each command imports only what it needs ---

def run_python(code: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), **kwargs)


def test_help_imports_no_command_module() -> None:
    done = run_python(
        "import sys\n"
        "from leaderboard.app.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('leaderboard.')"
        " or m in ('pandas', 'numpy', 'pydantic')))")
    assert done.returncode == 0, done.stderr
    assert "COMMAND" in done.stdout and "build the static leaderboard site" in done.stdout
    assert done.stdout.splitlines()[-1] == "['leaderboard.app', 'leaderboard.app.cli']"  # nothing else


def test_followtable_eval_never_imports_pandas_nor_pydantic_plugins(data_dir: Path, wtr_runs) -> None:
    argv = ["eval", WTR, "--original", str(wtr_runs["original"]), "--altered",
            str(wtr_runs["altered"]), "--data-dir", str(data_dir), "--json"]
    done = run_python(
        "import sys\n"
        "from leaderboard.app.cli import main\n"
        f"code = main({argv!r})\n"
        "print(code, 'pandas' in sys.modules, 'leaderboard.app.commands.ci' in sys.modules,"
        " getattr(sys.modules.get('pydantic.plugin._loader'), '_plugins', None) is not None)")
    assert done.returncode == 0, done.stderr
    # Nor does pydantic search every installed package's entry points for plugins (it keeps
    # what it found in _plugins, None until it searches).
    assert done.stdout.splitlines()[-1] == "0 False False False"


def test_command_table_matches_each_modules_own_summary() -> None:
    from leaderboard.app.cli import COMMANDS

    full = subcommands()
    assert list(full) == [c.name for c in COMMANDS]
    choices = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    helps = {action.dest: action.help for action in choices[0]._choices_actions}
    assert helps == {c.name: c.summary for c in COMMANDS}


# --- tasks ---

def test_tasks_pattern_matches_by_prefix(capsys) -> None:
    rc, out, _ = run_cli(capsys, "tasks", "followtable")
    assert rc == 0
    assert [line.split()[0] for line in out.splitlines()] == [
        "followtable/wqt", "followtable/wtr", "followtable/tarx", "followtable/industr"]
    rc, out, _ = run_cli(capsys, "tasks", "followtable/w*")
    assert [line.split()[0] for line in out.splitlines()] == ["followtable/wqt", "followtable/wtr"]
    rc, all_tasks, _ = run_cli(capsys, "tasks", "*")
    assert rc == 0 and len(all_tasks.splitlines()) == len(run_cli(capsys, "tasks")[1].splitlines())


def test_tasks_without_a_match_says_so(capsys) -> None:
    rc, out, err = run_cli(capsys, "tasks", "no-such-benchmark")
    assert rc == 1 and out == ""
    assert "no task id starts with 'no-such-benchmark'" in err


def test_closed_pipe_is_not_an_error() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line (`... | head -0`)
    try:
        done = subprocess.run([sys.executable, "-m", "leaderboard.app.cli", "tasks"], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, cwd=REPO,
                              env=dict(os.environ, PYTHONPATH=str(REPO)))
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == 141  # as a process killed by SIGPIPE



@pytest.mark.parametrize("stage", ["parser", "parse"])
def test_an_interrupt_before_the_command_runs_is_said_as_any_other(
        capsys, monkeypatch: pytest.MonkeyPatch, stage: str) -> None:
    """Ctrl-C while the command line was being read (its parser built: argparse's help
    formatter imports shutil, lzma with it) printed a traceback ending in
    KeyboardInterrupt; once the command ran it said "interrupted", exit 130. It says so
    from the start."""
    from leaderboard.app import cli

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt
    if stage == "parser":
        monkeypatch.setattr(cli, "build_parser", interrupted)
    else:
        monkeypatch.setattr(argparse.ArgumentParser, "parse_args", interrupted)
    capsys.readouterr()
    assert main(["tasks"]) == 130
    assert capsys.readouterr() == ("", "leaderboard tasks: interrupted\n")


def test_an_interrupt_is_said_beginning_with_the_command_as_every_message_is(
        capsys, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Ctrl-C said a bare "interrupted" where every other message begins with the
    command as typed ("leaderboard runs verify: error: ..."): it says
    "leaderboard runs verify: interrupted", exit 130."""
    from leaderboard.app import transfer

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt
    monkeypatch.setattr(transfer, "verify", interrupted)
    folder = tmp_path / "my-model"
    (folder / "runs").mkdir(parents=True)
    capsys.readouterr()
    assert main(["runs", "verify", str(folder)]) == 130
    assert capsys.readouterr().err.endswith("leaderboard runs verify: interrupted\n")

# --- wording ---

def test_unknown_query_message_reads_an_original_query(capsys, data_dir: Path, wtr_runs,
                                                       tmp_path: Path) -> None:
    run = tmp_path / "original.trec"
    run.write_text(wtr_runs["original"].read_text() + "no-such-topic Q0 1 1 1.0 x\n")
    rc, out, _ = run_cli(capsys, "check-run", WTR, str(run), "--data-dir", str(data_dir))
    assert rc == 1
    assert f"unknown query 'no-such-topic' (not an original query of {WTR})" in out


def test_corpus_ids_read_as_json_reads_them(data_dir: Path, tmp_path: Path) -> None:
    """The corpus id reader (pydantic_core's parser, for speed) against json, line by line."""
    from leaderboard.core.data.base import DataFormatError
    from leaderboard.core.data.followtable import read_corpus_ids

    corpus = data_dir / "followtable" / "WTR" / "corpus.jsonl"
    with corpus.open(encoding="utf-8") as fh:
        expected = sorted({str(json.loads(line)["_id"]) for line in fh if line.strip()})
    assert read_corpus_ids(corpus).tolist() == expected
    broken = tmp_path / "corpus.jsonl"
    broken.write_text('{"_id": "1", "text": "x"}\n\n{"_id": "2", "text": "y\n')
    with pytest.raises(DataFormatError, match=rf"^{re.escape(str(broken))}:3: invalid JSON"):
        read_corpus_ids(broken)


def test_a_named_command_gets_the_only_subparser_and_a_typo_gets_them_all(capsys) -> None:
    """A known command's parser is built alone (argparse makes a parser per command);
    anything else still lists every command, in the help and in the typo's error."""
    from leaderboard.app.cli import COMMANDS, build_parser, main

    def choices(parser: argparse.ArgumentParser) -> list[str]:
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return list(sub.choices)

    everything = [c.name for c in COMMANDS]
    assert choices(build_parser("eval", lazy=True)) == ["eval"]
    assert choices(build_parser("evl", lazy=True)) == everything
    assert choices(build_parser(None, lazy=True)) == everything
    with pytest.raises(SystemExit):
        main(["evl"])
    assert "invalid choice: 'evl' (choose from 'tasks', 'check-run', 'eval'" in capsys.readouterr().err


def test_a_console_that_cannot_write_a_character_gets_it_escaped(capsys, data_dir: Path,
                                                                 tmp_path: Path,
                                                                 wtr_runs) -> None:
    """Where standard output is not UTF-8 (a Windows code page), a query's text in
    `explain --json` or a run's odd column in a finding stopped the command with
    "internal error (UnicodeEncodeError)": no output, no verdict."""
    env = {**os.environ, "PYTHONIOENCODING": "cp1252"}

    def program(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", "from leaderboard.app.cli import entry; "
                               "entry()", *argv], capture_output=True, env=env, timeout=120)

    runs = ["--original", str(wtr_runs["original"]), "--altered", str(wtr_runs["altered"]),
            "--data-dir", str(data_dir)]
    explained = program("explain", WTR, *runs, "--query", "12_0", "--json")
    assert explained.returncode == 0, explained.stderr.decode()
    rc, utf8_out, _ = run_cli(capsys, "explain", WTR, *runs, "--query", "12_0", "--json")
    assert json.loads(explained.stdout) == json.loads(utf8_out)
    assert "\u2011" in utf8_out  # the query's text holds a character cp1252 cannot write
    odd = tmp_path / "odd.trec"
    lines = wtr_runs["original"].read_text().splitlines(keepends=True)
    odd.write_text("".join([lines[0].replace(" Q0 ", " Q\u65e5 ", 1), *lines[1:]]),
                   encoding="utf-8")
    checked = program("check-run", WTR, str(odd), "--role", "original", "--data-dir",
                      str(data_dir))
    out = checked.stdout.decode("cp1252")
    assert "internal error" not in checked.stderr.decode() and "Q\\u65e5" in out, out
    assert f"{odd}: valid {WTR} original run (0 errors, 1 warning)" in out
