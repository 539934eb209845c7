"""Every hostile input ends in a clear message, bounded in time and memory (issue 34,
findings 6-10): JSON nested without end, sizes a results.json declares, a store that
never answers, ids that would publish onto another page, a FIFO or a folder where a file
belongs, a password in a store's URL, a pull request with no history in common.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import shutil
import socket
import time
from pathlib import Path

import pytest

from leaderboard.app.cli import main
from leaderboard.core.report import Report
from leaderboard.store.files import StoredRef
from leaderboard.store.http import HttpLimits
from leaderboard.store.locations import HttpsStore, StoreConfigError, parse_store
from leaderboard.submission.files import SubmissionFiles
from leaderboard.submission.manifest import FORMAT_LINE, parse_manifest
from test_ci import (_report, commit_all, git, pr_check, pulled_data, repo, template,
                     write_submission, wtr)

__all__ = ["pulled_data", "repo", "template", "wtr"]  # fixtures, used by name

SUB = "my-model"
DEEP = b'{"a":' * 100_000 + b"1" + b"}" * 100_000
TASK = "pi-indic-val150/t1/hin"


def deep_array(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


# --------------------------------------------------------------------------- finding 6

def test_compare_refuses_json_nested_without_end(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / "results.json"
    deep.write_bytes(DEEP)
    assert main(["compare", str(deep), str(deep)]) == 1
    err = capsys.readouterr().err
    assert f"{deep}: JSON nested deeper than 64 levels" in err
    assert "internal error" not in err and "RecursionError" not in err


def test_comment_body_refuses_deep_json_in_the_report_and_in_the_file_list(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The privileged comment job reads an untrusted artifact and the API's file list."""
    report = tmp_path / "report.json"
    report.write_bytes(DEEP)
    assert main(["ci", "comment-body", str(report)]) == 1
    err = capsys.readouterr().err
    assert "JSON nested deeper than 64 levels: not a FollowBoard CI report" in err
    assert "internal error" not in err
    report.write_text(_report(status="valid").model_dump_json())
    files = tmp_path / "files.jsonl"
    files.write_bytes(b'{"status": "added", "filename": "submissions/x/metadata.yaml"}\n'
                      + deep_array(100_000) + b"\n")
    assert main(["ci", "comment-body", str(report), "--pr-files", str(files)]) == 1
    err = capsys.readouterr().err
    assert f"{files}:2: JSON nested deeper than 64 levels" in err
    assert "internal error" not in err


def test_the_depth_limit_reads_nothing_into_strings() -> None:
    from leaderboard.core.fileio import MAX_JSON_DEPTH, json_too_deep, load_json

    assert not json_too_deep(deep_array(MAX_JSON_DEPTH))
    assert json_too_deep(deep_array(MAX_JSON_DEPTH + 1))
    # Brackets inside strings (escaped quotes included) are text, not nesting.
    text = json.dumps({"note": "[" * 1000 + '"' + "{" * 1000}).encode()
    assert not json_too_deep(text)
    assert load_json(text, "x", ValueError) == {"note": "[" * 1000 + '"' + "{" * 1000}
    with pytest.raises(ValueError, match=r"^f\.json:2: invalid JSON: "):
        load_json(b'{"a":\n}', "f.json", ValueError)


@pytest.mark.parametrize("alphabet", [b'"[]{}a,', b'"[]{}\\ a'])
def test_the_depth_shortcut_answers_as_the_definition(alphabet: bytes) -> None:
    """json_too_deep's shortcut for text without a backslash (and its hand-over to the
    definition for text with one) against the definition, on 20,000 seeded texts of
    quotes, brackets, backslashes and other bytes, and on the committed per-query files."""
    from leaderboard.core.fileio import json_too_deep, json_too_deep_scanned

    rng = random.Random(37)
    disagreements = []
    for _ in range(20_000):
        text = bytes(rng.choice(alphabet) for _ in range(rng.randrange(1, 40)))
        limit = rng.randrange(0, 6)
        if json_too_deep(text, limit) != json_too_deep_scanned(text, limit):
            disagreements.append((text, limit))
    assert disagreements == []
    # The cases the shortcut takes apart: a last quote that starts no string (the brackets
    # after it count), two strings side by side, brackets in strings.
    for text, deep in [(b'"[[[""', False), (b'"]""[[["[[[[', True), (b'["[[[["]', False),
                       (b'"[""]"[[[[', True), (b'[[[{"a":"]]]]"}]]]', True),
                       (b'[[{"a":"]]]]"}]]', False)]:
        assert json_too_deep(text, 3) is json_too_deep_scanned(text, 3) is deep, text
    for path in sorted(Path(__file__).parent.parent.glob("submissions/*/per-query.json.gz")):
        raw = gzip.decompress(path.read_bytes())
        for limit in (2, 3, 4, 64):
            assert json_too_deep(raw, limit) is json_too_deep_scanned(raw, limit), (path, limit)


def test_an_explanation_manifest_nested_without_end_is_an_explanation_error() -> None:
    from leaderboard.submission.explain_files import ExplainFilesError, parse_manifest as explain

    with pytest.raises(ExplainFilesError, match="not a readable explanation file .JSON nested "
                                                "deeper than 64 levels"):
        explain(gzip.compress(DEEP), "my-model/explain/manifest.json")


# --------------------------------------------------------------------------- finding 7

def results_declaring(per_query_bytes: int) -> dict:
    return {"schema_version": 1, "kind": "submission", "inputs_sha256": {"metadata.yaml": "a"},
            "per_query_file": {"path": "per-query.json.gz", "bytes": per_query_bytes,
                               "sha256": "b" * 64},
            "systems": [{"system_id": SUB, "model": {"name": "m"}, "provenance": "verified",
                         "source": {"kind": "scored"}, "tasks": {}}]}


def test_a_declared_size_over_the_cap_is_refused_before_anything_is_fetched(
        tmp_path: Path) -> None:
    """A results.json naming a per-query file of 1 GiB made a store streaming without
    Content-Length fill the cache with 1 GiB, then memory (1.16 GB) before "not a gzip
    file". The size is refused as it is read."""
    from leaderboard.submission.layout import MAX_EXPLAIN_MANIFEST_BYTES, MAX_PER_QUERY_BYTES
    from leaderboard.submission.results import ResultsFileError, read_results

    path = tmp_path / SUB / "results.json"
    path.parent.mkdir()
    path.write_text(json.dumps(results_declaring(2**30)))
    with pytest.raises(ResultsFileError, match=rf"per_query_file\.bytes: Input should be less "
                                               rf"than or equal to {MAX_PER_QUERY_BYTES}"):
        read_results(path, HttpsStore("https://store.invalid/{+path}"))
    doc = results_declaring(1000)
    doc["explain_manifest"] = {"path": "explain/manifest.json",
                               "bytes": MAX_EXPLAIN_MANIFEST_BYTES + 1, "sha256": "c" * 64}
    path.write_text(json.dumps(doc))
    with pytest.raises(ResultsFileError, match=r"explain_manifest\.bytes: Input should be"):
        read_results(path, per_query=False)


def test_an_explanation_manifest_listing_too_much_in_all_is_refused() -> None:
    from leaderboard.submission.explain_files import (MANIFEST_FORMAT, ExplainFilesError,
                                                      parse_manifest as explain)
    from leaderboard.submission.layout import MAX_EXPLAIN_FILE_BYTES

    files = {f"t.cards.{i}.json.gz": {"bytes": MAX_EXPLAIN_FILE_BYTES, "sha256": "d" * 64}
             for i in range(8)}
    doc = {"format": MANIFEST_FORMAT, "tasks": {}, "files": files}
    with pytest.raises(ExplainFilesError, match=r"its files add up to 512 MiB, over the "
                                                r"256 MiB limit"):
        explain(json.dumps(doc).encode(), "m/explain/manifest.json")


# --------------------------------------------------------------------------- finding 8

@pytest.fixture()
def silent_store() -> str:
    """A store that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(256)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()


def test_a_store_that_never_answers_costs_one_deadline_not_one_per_file(
        silent_store: str, tmp_path: Path) -> None:
    """64 files against a silent store took 241 s (30 s each, 8 at a time); a 1,018-file
    submission would have taken 38 minutes. The fetches share one deadline, and what is
    left is said in one message."""
    limits = HttpLimits(timeout_s=0.5, min_rate=10**9, retries=0, sleep=lambda _s: None)
    files = SubmissionFiles(SUB, None, None, HttpsStore(f"{silent_store}/{{+path}}"),
                            cache=tmp_path / "cache", limits=limits)
    refs = [StoredRef(f"runs/t/run{i}.trec", 100, f"{i:064x}") for i in range(64)]
    started = time.monotonic()
    found = files.locate_all(refs)
    took = time.monotonic() - started
    # Two timeouts (1 s) plus the last round of reads in flight, not 8 rounds of 0.5 s.
    assert took < 2.5, took
    from leaderboard.store.files import unique_errors

    problems = unique_errors(found)
    left = [p for p in problems if "not fetched" in p.message]
    assert len(left) == 1 and left[0].display == SUB
    assert re.search(r"^\d+ of 64 files not fetched: fetching them took longer than the "
                     r"1 s this submission's files may take together", left[0].message)
    assert all(isinstance(v, Exception) for v in found.values())


# --------------------------------------------------------------------------- finding 9

@pytest.mark.parametrize(("sub_id", "why"), [
    ("slugged-", "must be 2-63 characters"), ("bm25s.", "ending with a letter or digit"),
    ("index", "the site's page submissions/index.html is the list of submissions"),
    ("con", "Windows cannot hold a folder of that name"), ("nul.v2", "Windows"),
])
def test_ids_that_would_publish_onto_another_page_are_refused(
        sub_id: str, why: str, tmp_path: Path) -> None:
    from fixtures.submission import METADATA
    from leaderboard.submission.ids import id_problem
    from leaderboard.submission.metadata import load_metadata

    assert why in (id_problem(sub_id) or "")
    folder = tmp_path / sub_id
    folder.mkdir()
    (folder / "metadata.yaml").write_text(METADATA.format(id=sub_id))
    report = Report()
    load_metadata(folder / "metadata.yaml", f"{sub_id}/metadata.yaml", report,
                  folder_name=sub_id)
    assert any(why in line for line in report.lines()), report.lines()


def test_every_valid_id_is_its_own_page() -> None:
    from leaderboard.submission.ids import id_problem, page_name

    ids = ["bm25s", "bm25s-v2", "bm25s.v2", "bm25s_v2", "a..b", "e5-large-v2", "0x"]
    assert all(id_problem(i) is None for i in ids)
    assert [page_name(i) for i in ids] == ids  # no two ids share a page
    with pytest.raises(ValueError, match="reserved"):
        page_name("index")


def test_pr_check_refuses_a_folder_named_after_a_reserved_page(repo, wtr, data_dir: Path,
                                                               tmp_path: Path) -> None:
    from leaderboard.app.ci.pr_report import read_ci_report

    root, base = repo
    write_submission(root, "index", "Index", wtr, quality="good")
    head = commit_all(root, "add index")
    assert pr_check(root, base, head, tmp_path / "report", data_dir) == 1
    report = read_ci_report(tmp_path / "report" / "report.json")
    assert report.status == "refused"
    assert any("'index' is reserved" in r for r in report.refusals), report.refusals


def test_the_site_shows_no_submission_whose_folder_is_not_an_id(tmp_path: Path) -> None:
    from leaderboard.publish.standings import load_rows

    for name in ("slugged-", "index"):
        (tmp_path / "submissions" / name).mkdir(parents=True)
        (tmp_path / "submissions" / name / "results.json").write_text("{}")
    rows, warnings = load_rows(tmp_path)
    assert rows == []
    assert sorted(w.split(": ", 1)[1] for w in warnings) == [
        "'index' is reserved: the site's page submissions/index.html is the list of "
        "submissions; choose another id; not shown",
        "'slugged-' is not a submission id: it must be 2-63 characters: lower-case letters, "
        "digits, '.', '_' or '-', starting and ending with a letter or digit; not shown"]


# --------------------------------------------------------------------------- finding 10

@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_manifest_that_is_a_fifo_or_a_folder_is_an_error_not_an_empty_submission(
        kind: str, tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fixtures.submission import METADATA

    folder = tmp_path / SUB
    folder.mkdir()
    (folder / "metadata.yaml").write_text(METADATA.format(id=SUB))
    if kind == "fifo":
        os.mkfifo(folder / "manifest.txt")
    else:
        (folder / "manifest.txt").mkdir()
    assert main(["validate", str(folder), "--data-dir", str(data_dir), "--quiet"]) == 1
    out = capsys.readouterr().out
    what = "a FIFO" if kind == "fifo" else "a folder"
    assert f"{SUB}/manifest.txt: not a regular file ({what})" in out
    assert "valid (0 tasks" not in out


@pytest.mark.parametrize("name", ["results.json", "per-query.json.gz"])
@pytest.mark.parametrize("kind", ["fifo", "folder", "link"])
def test_a_scorer_s_file_that_is_no_regular_file_is_an_error_and_never_opened(
        name: str, kind: str, tmp_path: Path, data_dir: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """validate opened a results.json that was a FIFO and waited on it for ever; one that
    was a folder or a link it passed over ("valid"), which score then refused."""
    import threading

    from fixtures.submission import METADATA

    folder = tmp_path / SUB
    folder.mkdir()
    (folder / "metadata.yaml").write_text(METADATA.format(id=SUB))
    path = folder / name
    opened: list[bool] = []
    done = threading.Event()

    def writer() -> None:  # ends a reader's wait on the FIFO, recording that it waited
        while not done.wait(0.05):
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                continue  # nobody is reading it
            opened.append(True)
            os.close(fd)

    if kind == "fifo":
        os.mkfifo(path)
        threading.Thread(target=writer, daemon=True).start()
    elif kind == "folder":
        path.mkdir()
    else:
        (tmp_path / "elsewhere").write_text("{}")
        path.symlink_to(tmp_path / "elsewhere")
    try:
        code = main(["validate", str(folder), "--data-dir", str(data_dir), "--quiet"])
    finally:
        done.set()
    out = capsys.readouterr().out
    assert not opened
    assert code == 1
    what = {"fifo": "not a regular file (a FIFO)", "folder": "not a regular file (a folder)",
            "link": "symbolic links are not allowed in a submission"}[kind]
    assert f"{SUB}/{name}: {what}" in out, out


def test_a_line_separator_in_a_manifest_comment_does_not_split_the_line() -> None:
    text = (f"# runs of my model\u2028garbage that is no manifest line\n"
            f"format: {FORMAT_LINE}\n"
            f"{'a' * 64}  10  runs/followtable/wtr/original.trec\n")
    report = Report()
    manifest = parse_manifest(text.encode("utf-8"), f"{SUB}/manifest.txt", report)
    assert report.lines() == [] and manifest is not None
    assert list(manifest.entries) == ["runs/followtable/wtr/original.trec"]
    assert manifest.entries["runs/followtable/wtr/original.trec"].line == 3


def test_a_folder_in_the_cache_where_a_file_belongs_is_named_as_damage(
        tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from fixtures.submission import make_submission
    from leaderboard.benchmarks.registry import get_task
    from leaderboard.core.data import load_task_data
    from leaderboard.store.cache import cached_path

    monkeypatch.setenv("LEADERBOARD_RUN_STORE", str(tmp_path / "store"))
    folder = make_submission(tmp_path / "submissions" / SUB,
                             {TASK: load_task_data(get_task(TASK), data_dir)})
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "first-cache"))
    assert main(["score", str(folder), "--data-dir", str(data_dir), "--quiet"]) == 0
    named = json.loads((folder / "results.json").read_text())["explain_manifest"]
    (folder / "results.json").unlink()
    cache = tmp_path / "cache"
    damaged = cached_path(cache / "store", named["sha256"], False)
    damaged.mkdir(parents=True)
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(cache))
    capsys.readouterr()
    assert main(["score", str(folder), "--data-dir", str(data_dir), "--quiet"]) == 1
    out, err = capsys.readouterr()
    assert f"the run store's cache is damaged: {damaged} is a folder where a file belongs; " \
           "remove it and run the command again" in out
    assert "Errno 21" not in out + err and "internal error" not in out + err
    assert not (folder / "results.json").exists()


def test_a_password_in_the_store_url_is_refused_and_never_shown(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "hunter2-s3cret"
    url = f"https://jane:{secret}@store.example/runs/{{+path}}"
    with pytest.raises(StoreConfigError) as info:
        parse_store(url, tmp_path, "$LEADERBOARD_RUN_STORE")
    assert secret not in str(info.value) and "user name or password" in str(info.value)
    assert "https://***@store.example/runs/" in str(info.value)
    with pytest.raises(StoreConfigError) as info:  # the plain-http refusal too
        parse_store(f"http://jane:{secret}@store.example/x", tmp_path, "X")
    assert secret not in str(info.value)
    folder = tmp_path / SUB
    folder.mkdir()
    (folder / "manifest.txt").write_text(f"format: {FORMAT_LINE}\n")
    monkeypatch.setenv("LEADERBOARD_RUN_STORE", url)
    assert main(["runs", "verify", str(folder)]) == 1
    out, err = capsys.readouterr()
    assert secret not in out + err and "user name or password" in out + err


def test_a_redirect_to_a_url_with_credentials_is_never_echoed() -> None:
    from leaderboard.store.http import FetchError, hide_credentials

    assert hide_credentials("at https://u:p@cdn.example/x and http://a@b/") == \
        "at https://***@cdn.example/x and http://***@b/"
    assert "p@" not in str(FetchError("https://u:p@cdn.example/x: HTTP 500"))


def test_pr_check_on_a_branch_with_no_common_history_is_a_refusal(
        repo, wtr, data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from leaderboard.app.ci.pr_report import read_ci_report

    root, base = repo
    git(root, "checkout", "-q", "--orphan", "unrelated")
    git(root, "rm", "-rq", "--cached", ".")
    for path in root.iterdir():
        if path.name != ".git":
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    write_submission(root, "new-model", "New Model", wtr, quality="good")
    head = commit_all(root, "a history of its own")
    assert pr_check(root, base, head, tmp_path / "report", data_dir) == 1
    out, err = capsys.readouterr()
    assert "internal error" not in out + err and "GitError" not in out + err
    report = read_ci_report(tmp_path / "report" / "report.json")
    assert report.status == "refused" and report.internal_error is None
    assert "shares no history with the base branch" in report.refusals[0]



def test_a_results_json_over_the_cap_is_refused_unread_naming_it(
        tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """validate read a submission's results.json whole, however large (a 300 MB one took
    0.7 GB of memory, to say it was reformatted by hand); compare and the site's build
    did too. A results file over MAX_RESULTS_BYTES, a hundred times a submission of every
    task's, is refused before it is read, naming it and the limit."""
    from fixtures.submission import METADATA
    from leaderboard.core.fileio import size_text
    from leaderboard.submission.layout import MAX_RESULTS_BYTES

    folder = tmp_path / SUB
    folder.mkdir()
    (folder / "metadata.yaml").write_text(METADATA.format(id=SUB))
    path = folder / "results.json"
    with path.open("wb") as stream:
        stream.truncate(MAX_RESULTS_BYTES + 1)  # sparse: nothing is written
    over = f"{path}: {size_text(MAX_RESULTS_BYTES + 1)}, over the " \
           f"{size_text(MAX_RESULTS_BYTES)} limit"
    assert main(["validate", str(folder), "--data-dir", str(data_dir), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert f"{SUB}/results.json: results.json cannot be read ({over})" in out, out
    assert main(["compare", str(folder), str(folder)]) == 1
    assert over in capsys.readouterr().err


def test_a_metadata_yaml_over_the_cap_is_refused_without_reading_it_whole(
        tmp_path: Path) -> None:
    """metadata.yaml was read whole before its size was checked: a 300 MB one took 300 MB
    of memory to be told it is over 64 KiB. No more than the limit and a byte is read."""
    import tracemalloc

    from leaderboard.submission.metadata import load_metadata

    folder = tmp_path / SUB
    folder.mkdir()
    with (folder / "metadata.yaml").open("wb") as stream:
        stream.truncate(64 << 20)  # sparse: nothing is written
    report = Report()
    tracemalloc.start()
    try:
        load_metadata(folder / "metadata.yaml", f"{SUB}/metadata.yaml", report,
                      folder_name=SUB)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.lines() == [f"{SUB}/metadata.yaml: metadata.yaml is over 64 KiB"], \
        report.lines()
    assert peak < 1 << 20, peak
