"""Submission folders: metadata.yaml schema errors at KEY and LINE, and the run layout.

Each broken metadata file must give an error that names the offending key (dotted path)
and the line of metadata.yaml it sits on; stray task folders, unexpected file names and
missing roles are reported against the path at fault.
"""

from __future__ import annotations

import json
import re
import shutil
import unicodedata
from pathlib import Path

import pytest

from fixtures.submission import METADATA
from leaderboard.core.report import Report
from leaderboard.submission.folder import _files_and_links, discover
from leaderboard.submission.metadata import Metadata, load_metadata, owner_of

SUB = "my-model"


def write_meta(root: Path, text: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / "metadata.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def errors_of(root: Path) -> list[str]:
    report = Report()
    discover(root, report)
    return [i.format() for i in report.errors]


GOOD = METADATA.format(id=SUB)
# A declared efficiency block, to append to GOOD.
DECLARED = """\
efficiency:
  source: declared
  measured_by: run.py --time
  hardware: {cpu: AMD EPYC, gpu: NVIDIA A100, gpu_count: 1, precision: bf16}
  tasks:
    followtable/wtr:
      encode_seconds: 1.5
      search_seconds: 0.5
      texts: 10
"""


def test_good_metadata_loads(tmp_path: Path) -> None:
    path = write_meta(tmp_path / SUB, GOOD)
    report = Report()
    meta = load_metadata(path, f"{SUB}/metadata.yaml", report)
    assert report.ok, report.lines()
    assert isinstance(meta, Metadata)
    assert meta.model.name == "Fixture oracle" and meta.model.parameters == 1000


def test_plain_texts_of_every_kind_load(tmp_path: Path) -> None:
    """The texts a page shows take any printable text, and produced_by its lines (the
    commands that made the runs, as `baselines run` writes them)."""
    lines = 'produced_by: "run.py --a\\tb\\n\\nrun.py --c"\n'
    text = re.sub(r"produced_by: .*\n", lambda _: lines,
                  GOOD.replace("  type: other\n", "  type: other\n  licence: Apache-2.0 (مجوز)\n"
                               "  revision: v1.0\n")) + "hardware: 1x NVIDIA A100 80GB\n" + DECLARED
    path = write_meta(tmp_path / SUB, text)
    report = Report()
    meta = load_metadata(path, f"{SUB}/metadata.yaml", report)
    assert report.ok, report.lines()
    assert meta is not None and meta.produced_by == "run.py --a\tb\n\nrun.py --c"
    assert meta.model.licence == "Apache-2.0 (مجوز)"
    assert meta.efficiency is not None and meta.efficiency.hardware.gpu == "NVIDIA A100"


# (case, edit of the good file, dotted key, text of the line it must point at, message)
BAD_METADATA = [
    ("missing model.name", lambda t: t.replace("  name: Fixture oracle\n", ""), "model.name",
     "model:", r"Field required"),
    ("bad model.type", lambda t: t.replace("type: other", "type: transformer"), "model.type",
     "type: transformer", r"Input should be 'sparse', 'bi-encoder'"),
    ("parameters not a number", lambda t: t.replace("parameters: 1000", "parameters: big"),
     "model.parameters", "parameters: big",
     r"^model\.parameters: 'big' is text, where a whole number is expected: write it in "
     r"digits alone"),
    # YAML reads 'revision: 1234' as a number: pydantic's 'Input should be a valid string'.
    ("revision: 1234", lambda t: t.replace("  type: other\n", "  type: other\n  revision: 1234\n"),
     "model.revision", "revision: 1234",
     r"^model\.revision: 1234 is a number, where text is expected: put it in quotes$"),
    ("javascript: link", lambda t: t.replace("https://example.org/fixture",
                                             "javascript:alert(1)"),
     "model.links.0", "javascript:alert(1)", r"must start with http:// or https://"),
    ("unknown top-level key", lambda t: t + "team: somebody\n", "team", "team: somebody",
     r"Extra inputs are not permitted"),
    ("unknown model key", lambda t: t.replace("  type: other\n", "  type: other\n  size: 7B\n"),
     "model.size", "size: 7B", r"Extra inputs are not permitted$"),
    # An unknown key was refused with no word of the key meant: the nearest known one of
    # its mapping is named.
    ("licence spelt license", lambda t: t.replace("  type: other\n",
                                                  "  type: other\n  license: MIT\n"),
     "model.license", "license: MIT",
     r"^model\.license: Extra inputs are not permitted; did you mean 'licence'\?$"),
    ("top-level key misspelt", lambda t: t.replace("contact:", "contacts:"), "contacts",
     "contacts:", r"did you mean 'contact'\?$"),
    ("efficiency key misspelt", lambda t: t + DECLARED.replace("encode_seconds",
                                                               "encode_secs"),
     "efficiency.tasks.followtable/wtr.encode_secs", "encode_secs:",
     r"did you mean 'encode_seconds'\?$"),
    ("hardware key misspelt", lambda t: t + DECLARED.replace("gpu_count", "gpus_count"),
     "efficiency.hardware.gpus_count", "hardware:", r"did you mean 'gpu_count'\?$"),
    ("missing contact", lambda t: t.replace("contact: fixture@example.org\n", ""), "contact",
     None, r"Field required"),
    ("empty produced_by", lambda t: re.sub(r"produced_by: .*\n", 'produced_by: ""\n', t),
     "produced_by", "produced_by:", r"at least 1 character"),
    ("bad id shape", lambda t: t.replace(f"id: {SUB}", "id: My Model!"), "id", "id: My Model!",
     r"must be 2-63 characters"),
    # Each below was accepted and reached the submission page.
    ("link breaking out of its line", lambda t: t.replace(
        "https://example.org/fixture", '"https://example.org/\\n<script>"'),
     "model.links.0", "<script>", r"holds '\\n': escape it \(%0A\)"),
    ("link with a quote", lambda t: t.replace(
        "https://example.org/fixture", """'https://example.org/"onmouseover=x'"""),
     "model.links.0", "onmouseover", r"holds '\"'"),
    ("link with a space", lambda t: t.replace(
        "https://example.org/fixture", "https://example.org/a b"),
     "model.links.0", "a b", r"holds ' '"),
    ("link without a host", lambda t: t.replace("https://example.org/fixture", "https://"),
     "model.links.0", "https://", r"names no host"),
    ("negative parameters", lambda t: t.replace("parameters: 1000", "parameters: -5"),
     "model.parameters", "parameters: -5", r"greater than or equal to 1"),
    ("parameters no page can print", lambda t: t.replace("parameters: 1000",
                                                         "parameters: 1" + "0" * 400),
     "model.parameters", "parameters: 1000", r"less than 1000000000000000"),
    ("blank contact", lambda t: t.replace("contact: fixture@example.org", 'contact: "   "'),
     "contact", "contact:", r"the contact must not be blank"),
    ("date that is no date", lambda t: t.replace('date: "2025-01-01"', "date: soon"),
     "date", "date: soon", r"'soon' is not a date written YYYY-MM-DD"),
    # A year alone (YAML reads it as a number) was told 'Input should be a valid string'.
    ("date: 2025", lambda t: t.replace('date: "2025-01-01"', "date: 2025"),
     "date", "date: 2025", r"^date: 2025 is not a date written YYYY-MM-DD$"),
    ("date: 20250101", lambda t: t + DECLARED.replace("  hardware:",
                                                      "  date: 20250101\n  hardware:"),
     "efficiency.date", "date: 20250101", r"^efficiency\.date: 20250101 is not a date written "
     r"YYYY-MM-DD$"),
    ("date in the future", lambda t: t.replace('date: "2025-01-01"', "date: 2999-01-01"),
     "date", "date: 2999", r"2999-01-01 is in the future"),
    ("contact with a terminal escape", lambda t: t.replace(
        "contact: fixture@example.org", 'contact: "me \\e[2J"'),
     "contact", "contact:", r"U\+001B"),
    # The other texts pages show were never checked: a right-to-left override in the
    # CPU's name turned the rest of "Declared on <CPU>, ...: declared by the submitter,
    # not measured by the leaderboard" backwards, and a line end let a field print lines
    # of its own.
    ("licence with a direction override", lambda t: t.replace(
        "  type: other\n", '  type: other\n  licence: "\\u202e0.2-ehcapa"\n'),
     "model.licence", "licence:", r"U\+202E"),
    ("revision with a terminal escape", lambda t: t.replace(
        "  type: other\n", '  type: other\n  revision: "v1 \\e[2J"\n'),
     "model.revision", "revision:", r"U\+001B"),
    ("produced_by with a terminal escape", lambda t: re.sub(
        r"produced_by: .*\n", lambda _: 'produced_by: "run.py\\n\\e[2J"\n', t),
     "produced_by", "produced_by:", r"U\+001B.*line ends and tabs aside"),
    ("hardware with a line end", lambda t: t + 'hardware: "1x A100\\n::error::x"\n',
     "hardware", "hardware:", r"U\+000A"),
    ("efficiency text with a direction override", lambda t: t + DECLARED.replace(
        "cpu: AMD EPYC", 'cpu: "AMD \\u202e EPYC"'),
     "efficiency.hardware.cpu", "cpu:", r"U\+202E"),
    # A YAML yes/no (true, yes, on) was taken for 1 and false for 0: the board showed a
    # model of 1 parameter, a measurement on 1 GPU or of 1 text.
    ("parameters: true", lambda t: t.replace("parameters: 1000", "parameters: true"),
     "model.parameters", "parameters: true",
     r"^model\.parameters: a yes/no value \(YAML reads true, yes and on so\), not a "
     r"number: write the number$"),
    ("gpu_count: yes", lambda t: t + DECLARED.replace("gpu_count: 1", "gpu_count: yes"),
     "efficiency.hardware.gpu_count", "hardware:", r"a yes/no value"),
    ("texts: on", lambda t: t + DECLARED.replace("texts: 10", "texts: on"),
     "efficiency.tasks.followtable/wtr.texts", "texts: on", r"a yes/no value"),
    ("encode_seconds: false", lambda t: t + DECLARED.replace("encode_seconds: 1.5",
                                                             "encode_seconds: false"),
     "efficiency.tasks.followtable/wtr.encode_seconds", "encode_seconds:", r"a yes/no value"),
    ("efficiency sample with a line end", lambda t: t + DECLARED.replace(
        "texts: 10", 'texts: 10\n      sample: "a\\nb"'),
     "efficiency.tasks.followtable/wtr.sample", "sample:", r"U\+000A"),
]


@pytest.mark.parametrize("name,edit,key,line_text,message", BAD_METADATA,
                         ids=[c[0] for c in BAD_METADATA])
def test_metadata_error_names_key_and_line(name, edit, key, line_text, message,
                                           tmp_path: Path) -> None:
    text = edit(GOOD)
    assert text != GOOD
    path = write_meta(tmp_path / SUB, text)
    report = Report()
    assert load_metadata(path, f"{SUB}/metadata.yaml", report) is None
    found = [i for i in report.errors if i.message.startswith(f"{key}: ")]
    assert found, [i.format() for i in report.errors]
    issue = found[0]
    assert re.search(message, issue.message), issue.message
    if line_text is None:  # a missing top-level key has no line of its own
        assert issue.line is None
        assert issue.format().startswith(f"{SUB}/metadata.yaml: {key}: ")
    else:
        assert issue.line == line_of(text, line_text), issue.format()
        assert issue.format().startswith(f"{SUB}/metadata.yaml:{issue.line}: {key}: ")


def test_id_must_match_folder(tmp_path: Path) -> None:
    text = METADATA.format(id="other-model")
    write_meta(tmp_path / SUB, text)
    errors = errors_of(tmp_path / SUB)
    expected = (f"{SUB}/metadata.yaml:{line_of(text, 'id: other-model')}: id: 'other-model' "
                f"must equal the folder name '{SUB}'")
    assert expected in errors, errors


@pytest.mark.parametrize("text,line,message", [
    ("model: [unclosed\n", 2, "invalid YAML"),
    ("- just\n- a list\n", 1, "must be a mapping"),
    ("", 1, "must be a mapping"),
    ("just a string\n", 1, "must be a mapping"),
    # Refused before with "could not determine a constructor for the tag ...merge".
    ("model:\n  <<: {name: M}\n", 2, "a merge key (<<) is not read"),
])
def test_unusable_yaml(text: str, line: int, message: str, tmp_path: Path) -> None:
    path = write_meta(tmp_path / SUB, text)
    report = Report()
    meta = load_metadata(path, f"{SUB}/metadata.yaml", report)
    assert meta is None and not report.ok
    assert report.errors[0].line == line and message in report.errors[0].message


@pytest.mark.parametrize("edit", [lambda t: t.replace("  type: other", "\ttype: other"),
                                  lambda t: t.replace(f"id: {SUB}", f"id:\t{SUB}")])
def test_a_tab_in_yaml_says_to_write_spaces(edit, tmp_path: Path) -> None:
    """A metadata.yaml indented with a tab (an editor's default) was told only "found
    character '\\t' that cannot start any token", which says nothing of what to do."""
    text = edit(GOOD)
    path = write_meta(tmp_path / SUB, text)
    report = Report()
    assert load_metadata(path, f"{SUB}/metadata.yaml", report) is None
    assert [i.format() for i in report.issues] == [
        f"{SUB}/metadata.yaml:{line_of(text, chr(9))}: invalid YAML: found a tab, which YAML "
        "takes neither to indent nor after a key's colon: write spaces instead"]


@pytest.mark.parametrize("value,message", [
    # Each stopped validate, score and pr-check with "internal error (ValueError)": YAML
    # reads an unquoted date or integer itself, and Python refuses these.
    ("date: 2025-02-30", "'2025-02-30' cannot be read: day is out of range for month"),
    ("date: 0000-01-01", "'0000-01-01' cannot be read: year 0 is out of range"),
    ("date: 2025-01-01 10:00:00 +99:00", "cannot be read: offset must be a timedelta"),
    ("x: " + "9" * 5000, "cannot be read: Exceeds the limit (4300 digits) for integer "
                         "string conversion: value has 5000 digits"),
])
def test_a_value_yaml_cannot_construct_is_refused_at_its_line(value: str, message: str,
                                                             tmp_path: Path) -> None:
    text = GOOD.replace('date: "2025-01-01"\n', "") + value + "\n"
    path = write_meta(tmp_path / SUB, text)
    report = Report()
    assert load_metadata(path, f"{SUB}/metadata.yaml", report) is None
    (issue,) = report.errors
    assert issue.line == len(text.splitlines()) and message in issue.message, issue.message
    assert "set_int_max_str_digits" not in issue.message
    assert owner_of(text + "owner: jane\n") is None  # pr-check asks it of any metadata.yaml


def test_metadata_not_utf8_or_missing(tmp_path: Path) -> None:
    root = tmp_path / SUB
    root.mkdir()
    report = Report()
    assert load_metadata(root / "metadata.yaml", "m", report) is None
    assert report.errors[0].message == "metadata.yaml is missing"
    (root / "metadata.yaml").write_bytes("model: caf\xe9\n".encode("latin-1"))
    report = Report()
    assert load_metadata(root / "metadata.yaml", "m", report) is None
    assert "not valid UTF-8" in report.errors[0].message


def test_a_utf16_metadata_yaml_says_to_save_it_as_utf8(tmp_path: Path) -> None:
    """A metadata.yaml saved as UTF-16 (Notepad's "Unicode", PowerShell 5's >) was "not
    valid UTF-8", which says neither what it is nor what to do."""
    root = tmp_path / SUB
    root.mkdir()
    for codec, named in (("utf-16", "UTF-16LE"), ("utf-16-be", "UTF-16BE")):
        # Without its byte-order mark, UTF-16 of ASCII text is UTF-8 with NULs between.
        (root / "metadata.yaml").write_bytes(GOOD.encode(codec))
        report = Report()
        assert load_metadata(root / "metadata.yaml", f"{SUB}/metadata.yaml", report) is None
        assert [i.format() for i in report.issues] == [
            f"{SUB}/metadata.yaml: UTF-16 text ({named}), not UTF-8: save it as UTF-8, e.g. "
            f"iconv -f {named} -t UTF-8 metadata.yaml > metadata-utf8.yaml (Windows "
            "PowerShell 5's > writes UTF-16: use Out-File -Encoding utf8)"]


# --- the runs/ layout ---

def touch(root: Path, rel: str, data: bytes = b"x") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_layout_errors(tmp_path: Path) -> None:
    root = tmp_path / SUB
    write_meta(root, GOOD)
    touch(root, "runs/followtable/wtr/original.trec.gz")
    touch(root, "runs/followtable/wtr/altered.trec")
    touch(root, "runs/followtable/wtr/notes.md")                  # unexpected file name
    touch(root, "runs/followtable/wtr/run.trec")                  # a role WTR does not take
    touch(root, "runs/followtable/tarx/altered.trec.gz")          # original missing
    touch(root, "runs/followir/robust05/original.trec")           # unknown task
    touch(root, "runs/followir/core17/original.trec")             # altered missing
    touch(root, "runs/followtable/wtr/altered.run")               # second altered file
    report = Report()
    submission = discover(root, report)
    errors = [i.format() for i in report.errors]

    def has(prefix: str, pattern: str) -> bool:
        return any(e.startswith(prefix) and re.search(pattern, e) for e in errors)

    assert has(f"{SUB}/runs/followtable/wtr/notes.md: ", r"unexpected file name; followtable/wtr "
               r"takes: original\.trec\[\.gz\], altered\.trec\[\.gz\]"), errors
    assert has(f"{SUB}/runs/followtable/wtr/run.trec: ", "unexpected file name"), errors
    assert has(f"{SUB}/runs/followir/robust05/original.trec: ", r"unknown task "
               r"'followir/robust05'"), errors
    assert has(f"{SUB}/runs/followtable/tarx: ", r"missing the original run"), errors
    assert has(f"{SUB}/runs/followir/core17: ", r"missing the altered run"), errors
    # Which file is kept, and what to do: a newcomer who copied a reference folder and
    # added predictions.tsv.gz beside its predictions.tsv was told only "a second file".
    assert f"{SUB}/runs/followtable/wtr/altered.trec: a second altered file for " \
        "followtable/wtr beside runs/followtable/wtr/altered.run: a task takes one file " \
        "per role, so delete one of them" in errors, errors
    assert len(errors) == 6, errors
    assert submission.files["followtable/wtr"]["original"].name == "original.trec.gz"


def test_a_file_directly_under_runs_is_told_where_run_files_go(tmp_path: Path) -> None:
    """A file right under runs/ (a macOS .DS_Store, a run not yet put in its task's
    folder) was told "unknown task ''", a task id it never named."""
    root = tmp_path / SUB
    write_meta(root, GOOD)
    touch(root, "runs/.DS_Store")
    touch(root, "runs/original.trec")
    # Nor in a folder holding task folders (the Finder writes a .DS_Store in each), which
    # was told "unknown task 'followtable'" and to put it in runs/followtable/wtr/.
    touch(root, "runs/followtable/.DS_Store")
    touch(root, "runs/pi-indic-val150/t1/original.trec")
    assert errors_of(root) == [
        f"{SUB}/runs/{name}: a file outside any task's folder: runs/ holds a folder per task, "
        "each with its run files (runs/<task id>/<role>.trec[.gz], e.g. "
        "runs/followtable/wtr/original.trec)"
        for name in (".DS_Store", "followtable/.DS_Store", "original.trec",
                     "pi-indic-val150/t1/original.trec")]


@pytest.mark.parametrize(("folder", "meant"), [
    ("pi-indic/t1/hin", "runs/pi-indic-val150/t1/hin/"),
    ("followtable/WTR", "runs/followtable/wtr/"),
    ("followtable/wtq", "runs/followtable/wtr/ or runs/followtable/wqt/"),
])
def test_an_unknown_task_folder_is_told_the_task_ids_it_may_mean(tmp_path: Path, folder: str,
                                                                 meant: str) -> None:
    """A run at runs/pi-indic/t1/hin/ (the benchmark's name without its split) was told
    'unknown task' and nothing of pi-indic-val150/t1/hin: the closest task ids are
    named, as `leaderboard eval` names them."""
    root = tmp_path / SUB
    write_meta(root, GOOD)
    touch(root, f"runs/{folder}/run.trec")
    errors = errors_of(root)
    assert (f"{SUB}/runs/{folder}/run.trec: unknown task {folder!r}: the folder under runs/ "
            f"must be a task id, e.g. runs/followtable/wtr/; did you mean {meant}?") in errors, \
        errors


def test_no_runs_folder(tmp_path: Path) -> None:
    root = tmp_path / SUB
    write_meta(root, GOOD)
    assert errors_of(root) == [f"{SUB}: no runs/ folder and no manifest.txt: nothing to score"]


@pytest.mark.parametrize("kind", ["file", "fifo"])
def test_a_runs_entry_that_is_no_folder_is_named_as_such(kind: str, tmp_path: Path) -> None:
    """runs/ as a file or a FIFO was told "no runs/ folder and no manifest.txt: nothing
    to score", as if there were nothing there, where score names the FIFO."""
    import os

    root = tmp_path / SUB
    write_meta(root, GOOD)
    if kind == "fifo":
        os.mkfifo(root / "runs")
    else:
        (root / "runs").write_text("x")
    what = "a FIFO" if kind == "fifo" else "a regular file"
    assert errors_of(root) == [f"{SUB}/runs: {what}, not a folder: runs/ is the folder of "
                               "the run files, runs/<task id>/<role>.trec[.gz]"]


def test_a_folder_of_too_many_files_is_told_so_once(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """validate of a folder holding 100,001 files (runs/junk0/f0 ...) printed a line and a
    'did you mean' search for each of them, 100,004 lines in 31 s, where ci pr-check
    refuses the same folder in one line: over the limit, the count is the one problem
    reported, as in CI, and no file is placed."""
    from leaderboard.submission import folder

    monkeypatch.setattr(folder, "MAX_FILES", 3)
    root = tmp_path / SUB
    write_meta(root, GOOD)
    for i in range(6):
        touch(root, f"runs/junk{i}/f{i}")
    assert errors_of(root) == [f"{SUB}: 6 run files, over the limit of 3"]
    # At the limit each file is checked, as before.
    for i in range(3):
        (root / f"runs/junk{i}/f{i}").unlink()
    assert len(errors_of(root)) == 3


def test_a_folder_of_too_many_files_is_refused_before_any_file_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """validate of a folder holding 100,001 files said only the count, but read and
    hashed every file first (19 s): over the limit, no file is opened, whether the
    folder holds the files or its manifest lists some of them."""
    from leaderboard.submission import folder

    def never(*_args: object) -> None:
        raise AssertionError("a file was read")

    monkeypatch.setattr(folder, "MAX_FILES", 3)
    root = tmp_path / SUB
    write_meta(root, GOOD)
    for i in range(3):
        touch(root, f"runs/junk{i}/f{i}")
    (root / "manifest.txt").write_text(
        "format: followboard-manifest/1\n"
        f"{'0' * 64}  1  runs/followtable/wtr/original.trec\n")
    monkeypatch.setattr(folder, "digest_files", never)
    monkeypatch.setattr(folder, "digest_file", never)
    assert errors_of(root) == [f"{SUB}: 4 run files, over the limit of 3"]
    # The scorer's view of the folder (results.json's staleness, runs verify) is refused
    # the same way, in one line.
    report = Report()
    inputs = folder.collect_inputs(root, report, record_local=True)
    assert [i.format() for i in report.errors] == [f"{SUB}: 4 run files, over the limit of 3"]
    assert inputs.over_limit
    # validate of such a folder with a results.json compared it with inputs never read
    # ("metadata.yaml was removed since results.json was scored", a line per run file):
    # nothing was read to compare, the count is the one error, and results.json is stale.
    from leaderboard.submission import pipeline

    shutil.copy(Path(__file__).parent.parent / "submissions/bm25s/results.json", root)
    outcome = pipeline.check_submission(root, tmp_path, score=False)
    assert [i.format() for i in outcome.report.errors] == [
        f"{SUB}: 4 run files, over the limit of 3"]
    assert pipeline.results_staleness(root) == ["4 run files, over the limit of 3"]


def test_a_count_of_files_over_the_limit_is_written_as_other_counts_are(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """'100001 run files, over the limit of 1000', where every other count a message
    gives is written '100,001': validate, the manifest, ci pr-check's tree and an
    explanation manifest write the count and the limit with the thousands separator."""
    from leaderboard.app.ci.git import TreeEntry
    from leaderboard.app.ci.policy import check_tree
    from leaderboard.submission import explain_files, manifest
    from leaderboard.submission.layout import MAX_FILES

    assert MAX_FILES == 1000
    lines = "".join(f"{'0' * 64}  1  runs/junk/f{i}\n" for i in range(1001))
    text = f"format: followboard-manifest/1\n{lines}"
    report = Report()
    manifest.parse_manifest(text.encode(), f"{SUB}/manifest.txt", report)
    assert report.lines() == [f"{SUB}/manifest.txt: 1,001 files, over the limit of 1,000"]
    # The folder's own count (the manifest's limit raised so that it reads the lines).
    monkeypatch.setattr(manifest, "MAX_FILES", 2000)
    root = tmp_path / SUB
    write_meta(root, GOOD)
    (root / "manifest.txt").write_text(text)
    assert errors_of(root) == [f"{SUB}: 1,001 run files, over the limit of 1,000"]
    report = Report()
    check_tree(SUB, [TreeEntry(mode="100644", kind="blob", sha="0" * 40, size=1,
                               path=f"submissions/{SUB}/runs/followtable/wtr/f{i}.trec")
                     for i in range(1001)], report)
    assert f"{SUB}: 1,001 files, over the limit of 1,000" in report.lines()
    monkeypatch.setattr(explain_files, "MAX_EXPLAIN_FILES", 1000)
    files = {f"t.cards.{i}.json.gz": {"bytes": 1, "sha256": "d" * 64} for i in range(1001)}
    doc = {"format": explain_files.MANIFEST_FORMAT, "tasks": {}, "files": files}
    with pytest.raises(explain_files.ExplainFilesError,
                       match="lists 1,001 files, over the limit of 1,000$"):
        explain_files.parse_manifest(json.dumps(doc).encode(), "m/explain/manifest.json")


def test_symlinks_are_refused(tmp_path: Path) -> None:
    root = tmp_path / SUB
    write_meta(root, GOOD)
    touch(root, "runs/followtable/wtr/original.trec")
    (root / "runs/followtable/wtr/altered.trec").symlink_to("/etc/passwd")
    errors = errors_of(root)
    assert (f"{SUB}/runs/followtable/wtr/altered.trec: symbolic links are not allowed in a "
            "submission") in errors


# --- hostile metadata and folders: every local check refuses what CI refuses ---

def test_deeply_nested_yaml_is_a_clear_error_not_a_recursion_error(tmp_path: Path) -> None:
    root = tmp_path / SUB
    write_meta(root, GOOD + "extra: " + "[" * 30_000 + "]" * 30_000 + "\n")
    report = Report()
    assert load_metadata(root / "metadata.yaml", f"{SUB}/metadata.yaml", report) is None
    (issue,) = report.errors
    assert issue.path == f"{SUB}/metadata.yaml" and "nested too deeply" in issue.message
    # discover() (validate, score and CI) reports it the same way.
    assert any("metadata.yaml: invalid YAML: nested too deeply" in e for e in errors_of(root))


def test_an_alias_is_refused_at_its_line(tmp_path: Path) -> None:
    """A YAML alias repeats a value without writing it again: a 25,000-character link
    written once and named 9,000 times in links: (a 52 KB metadata.yaml) passed validate,
    and score wrote a results.json of 225 MB, fourteen times its limit, which the PR
    check, the site and git would then carry. metadata.yaml reads no alias, at the
    alias's line, as it reads no merge key."""
    link = "https://example.org/" + "a" * 25_000
    text = GOOD.replace("  links:\n    - https://example.org/fixture\n",
                        f"  links: [&u {link}" + ", *u" * 9_000 + "]\n")
    assert len(text.encode()) < 64 * 1024
    write_meta(tmp_path / SUB, text)
    report = Report()
    assert load_metadata(tmp_path / SUB / "metadata.yaml", "m", report) is None
    (issue,) = report.errors
    assert issue.line == line_of(text, "  links: [&u")
    assert issue.message == ("invalid YAML: an alias (*u) is not read in metadata.yaml: "
                             "write its value out")
    assert any(f"{SUB}/metadata.yaml:{issue.line}: invalid YAML: an alias" in e
               for e in errors_of(tmp_path / SUB))
    # An anchor no alias names repeats nothing.
    path = write_meta(tmp_path / SUB, GOOD.replace("name: Fixture oracle",
                                                   "name: &n Fixture oracle"))
    report = Report()
    assert load_metadata(path, "m", report) is not None and report.ok


def test_a_set_is_refused_at_its_line(tmp_path: Path) -> None:
    """YAML's !!set reads as a Python set, whose order changes with every process
    (string hashing is salted): links given as one passed validate, and each score
    wrote them into results.json in another order, so ci pr-check's comparison with
    the PR's results.json and the page's first link changed from run to run."""
    text = GOOD.replace("  links:\n    - https://example.org/fixture\n",
                        "  links: !!set {https://a.example/1, https://b.example/2}\n")
    write_meta(tmp_path / SUB, text)
    report = Report()
    assert load_metadata(tmp_path / SUB / "metadata.yaml", "m", report) is None
    (issue,) = report.errors
    assert issue.line == line_of(text, "  links: !!set")
    assert issue.message == ("invalid YAML: a set (!!set) is not read in metadata.yaml: "
                             "it keeps no order; write a list")


def test_duplicate_keys_are_refused_with_both_lines(tmp_path: Path) -> None:
    text = GOOD + f"id: {SUB}\n"
    write_meta(tmp_path / SUB, text)
    report = Report()
    assert load_metadata(tmp_path / SUB / "metadata.yaml", "m", report) is None
    (issue,) = report.errors
    assert issue.line == len(text.splitlines())
    assert issue.message == "invalid YAML: duplicate key 'id' (first given on line 1)"
    nested = GOOD.replace("  type: other\n", "  type: other\n  type: sparse\n")
    write_meta(tmp_path / SUB, nested)
    report = Report()
    assert load_metadata(tmp_path / SUB / "metadata.yaml", "m", report) is None
    assert "duplicate key 'type'" in report.errors[0].message


def test_a_lone_surrogate_escape_is_refused_at_its_line(tmp_path: Path) -> None:
    """YAML's "\\ud800" is half of a UTF-16 pair, not a character: a name holding one
    passed every check, then `score` stopped with "internal error (UnicodeEncodeError)"
    writing results.json. It is refused at its line; a whole pair is the character."""
    assert '  name: Fixture oracle\n' in GOOD
    lines = GOOD.splitlines()
    name_line = lines.index("  name: Fixture oracle") + 1
    write_meta(tmp_path / SUB, GOOD.replace("  name: Fixture oracle",
                                            '  name: "Fixture \\ud800 oracle"'))
    report = Report()
    assert load_metadata(tmp_path / SUB / "metadata.yaml", "m", report) is None
    (issue,) = report.errors
    assert issue.line == name_line
    assert "half of a UTF-16 surrogate pair" in issue.message
    assert any("metadata.yaml" in e and "surrogate" in e for e in errors_of(tmp_path / SUB))
    write_meta(tmp_path / SUB, GOOD.replace("  name: Fixture oracle",
                                            '  name: "Fixture \\ud83d\\ude00 oracle"'))
    report = Report()
    meta = load_metadata(tmp_path / SUB / "metadata.yaml", "m", report)
    assert report.ok, report.lines()
    assert meta is not None and meta.model.name == "Fixture \U0001F600 oracle"


def test_an_unknown_key_is_named_on_one_line(tmp_path: Path) -> None:
    """An unknown key was printed as it was written: `"x\\n::error::forged": 1` made
    `validate` print a line `::error::forged`, which a GitHub runner runs as a command,
    and a key holding a terminal escape reached the terminal. Such a key is quoted with
    its escapes; a plain one is named as before."""
    text = GOOD + '"x\\n::error::forged\\e[2J": 1\nteam: somebody\n'
    write_meta(tmp_path / SUB, text)
    report = Report()
    assert load_metadata(tmp_path / SUB / "metadata.yaml", "m", report) is None
    messages = [i.format() for i in report.errors]
    assert ("m:" + str(line_of(text, "::error::forged")) + ": 'x\\n::error::forged\\x1b[2J': "
            "Extra inputs are not permitted") in messages, messages
    assert f"m:{line_of(text, 'team:')}: team: Extra inputs are not permitted" in messages
    assert not any("\n" in m or "\x1b" in m for m in messages), messages


@pytest.mark.parametrize(("name", "problem"), [
    ('"BM25 \\e[31m red"', "U+001B"),
    ('"BM25 \\u202e 5MB"', "U+202E"),
    ('"two\\nlines"', "U+000A"),
    ('"  "', "must not be blank"),
    ('""', "must not be blank"),
    ("x" * 201, "at most 200 characters"),
    # "Zalgo": combining marks stacked on one letter draw over the rows above and below
    # it on every table (the names of other models hidden under them).
    ('"BM25 E' + "\\u0300\\u0301\\u0316\\u0317\\u0334" * 20 + '"',
     "100 combining marks in a row"),
    ('"e\\u0300\\u0301\\u0302\\u0303\\u0304"', "5 combining marks in a row"),
])
def test_a_model_name_is_one_line_of_plain_text(name: str, problem: str,
                                                tmp_path: Path) -> None:
    """A name with a terminal escape, a text-direction override (which shows the rest
    reversed: a name could read as another model's), a line end, more combining marks on
    one letter than Unicode's UTS #39 allows (drawn over the neighbouring rows), or none
    at all, was accepted and shown on the board; each is refused at the name's line."""
    name_line = GOOD.splitlines().index("  name: Fixture oracle") + 1
    write_meta(tmp_path / SUB, GOOD.replace("  name: Fixture oracle", f"  name: {name}"))
    report = Report()
    assert load_metadata(tmp_path / SUB / "metadata.yaml", "m", report) is None
    (issue,) = report.errors
    assert issue.line == name_line and problem in issue.message, issue.format()


@pytest.mark.parametrize("invisible", ["\\u200b", "\\u2060", "\\ufeff", "\\u00ad",
                                       "\\U000e0041", "\\u2028", "\\u206a", "\\u206f",
                                       "\\U0001bca0", "\\U0001bca3"])
def test_a_model_name_holds_no_invisible_character(invisible: str, tmp_path: Path) -> None:
    """"all-MiniLM-L6-v2" with a zero-width space, a word joiner, a byte-order mark, a
    soft hyphen or a tag character in it was accepted: it shows on the board, in the PR
    comment and in the downloads as the reference model's name while being another text,
    so another model's line (its own record, parameters and type of its own choosing). A
    line separator made a one-line name two. Each is refused at the name's line; the
    joiners that Persian and Indic words are written with are not
    (test_a_model_name_may_hold_any_script)."""
    name_line = GOOD.splitlines().index("  name: Fixture oracle") + 1
    write_meta(tmp_path / SUB, GOOD.replace("  name: Fixture oracle",
                                            f'  name: "all-MiniLM{invisible}-L6-v2"'))
    report = Report()
    assert load_metadata(tmp_path / SUB / "metadata.yaml", "m", report) is None
    (issue,) = report.errors
    shown = f"U+{ord(invisible.encode().decode('unicode_escape')):04X}"
    assert issue.line == name_line and shown in issue.message, issue.format()
    assert "invisible" in issue.message


def test_a_yaml_date_is_read_as_its_iso_text(tmp_path: Path) -> None:
    """``date: 2025-01-31`` unquoted (a YAML date) was refused: "Input should be a valid
    string"."""
    write_meta(tmp_path / SUB, GOOD.replace('date: "2025-01-01"', "date: 2025-01-31"))
    report = Report()
    meta = load_metadata(tmp_path / SUB / "metadata.yaml", "m", report)
    assert report.ok and meta is not None and meta.date == "2025-01-31", report.lines()


def test_a_model_name_may_hold_any_script(tmp_path: Path) -> None:
    for name in ("mE5-small (多言語, हिन्दी, فارسی)", "e5 \u2014 \u00e9t\u00e9",
                 "می\u200cخواهم-embed", "🦙\ufe0f llama"):
        write_meta(tmp_path / SUB, GOOD.replace("  name: Fixture oracle", f"  name: {name}"))
        report = Report()
        meta = load_metadata(tmp_path / SUB / "metadata.yaml", "m", report)
        assert report.ok and meta is not None and meta.model.name == name, report.lines()


def test_the_models_beside_a_submission_are_read_without_failing_on_a_broken_one(
        tmp_path: Path) -> None:
    """`validate` holds a new submission's model facts to those of the submissions beside
    it (:func:`leaderboard.app.model_facts.check_model_facts`): their models are read from
    their metadata.yaml, and one that is unreadable, invalid, a link or absent is left out,
    not a traceback (its own validation reports it)."""
    from leaderboard.submission.pipeline import models_beside

    subs = tmp_path / "submissions"
    write_meta(subs / SUB, GOOD)
    write_meta(subs / "other-model", METADATA.format(id="other-model").replace(
        "type: other", "type: sparse"))
    write_meta(subs / "bad-yaml", "model: [\n")
    write_meta(subs / "bad-type", METADATA.format(id="bad-type").replace("type: other",
                                                                         "type: reranker"))
    write_meta(subs / "no-model", "id: no-model\n")
    (subs / "not-utf8").mkdir()
    (subs / "not-utf8" / "metadata.yaml").write_bytes(b"model: {name: \xff}\n")
    (subs / "linked").mkdir()
    (subs / "linked" / "metadata.yaml").symlink_to(subs / "other-model" / "metadata.yaml")
    (subs / "empty").mkdir()
    models = models_beside(subs / SUB)
    assert list(models) == ["other-model"]
    assert (models["other-model"].name, models["other-model"].type,
            models["other-model"].parameters) == ("Fixture oracle", "sparse", 1000)


MINILM = {"all-MiniLM-L6-v2": "the name of the reference model all-minilm-l6-v2"}


@pytest.mark.parametrize("name", [
    "All-MiniLM-L6-v2", "all-minilm-l6-v2", " all-MiniLM-L6-v2", "all-MiniLM-L6-v2\u00a0",
    "all-MiniLM-L6-v2\u3000", "\uff41\uff4c\uff4c-MiniLM-L6-v2",
    "all\u2010MiniLM\u2011L6\u2212v2", "all-Mini\u200dLM-L6-v2", "all-Mini\u200cLM-L6-v2",
    "all-MiniLM-L6-v2\ufe0f", "aIl-MiniLM-L6-v2", "all-MiniLM-L6-v2\u2800",
    "all-MiniLM-L\u2076-v\u2082", "ALL-MINILM-L6-V2", "ALL-MINILM-L6-V2\u00a0",
    "a1l-MiniLM-L6-v2", "all-MiniLM-L6-v2".replace("l", "1"),
])
def test_a_model_name_that_reads_as_anothers_is_refused(name: str) -> None:
    """A name that differs from a reference model's only in case, width, white space,
    dashes, an I for an l or characters that show as nothing read as that model's on the
    board while being another text, so another model line: it is refused, naming the
    name it reads as. In capitals too: 'ALL-MINILM-L6-V2' passed, its capital I's taken
    for l's where the reference name has small i's ('all-mlnllm-l6-v2')."""
    from leaderboard.submission.ids import name_lookalike_problem

    assert name_lookalike_problem("all-MiniLM-L6-v2", MINILM) is None
    problem = name_lookalike_problem(name, MINILM)
    assert problem is not None and ("reads as 'all-MiniLM-L6-v2', the name of the reference "
                                    "model all-minilm-l6-v2, but is another text" in problem)


@pytest.mark.parametrize(("name", "taken"), [
    ("multi1ingual-e5-small", "multilingual-e5-small"), ("k1=O.9", "k1=0.9")])
def test_a_digit_for_a_letter_is_among_the_differences_the_refusal_names(
        name: str, taken: str) -> None:
    """A name refused for a 1 for an l or a 0 for an O was told it 'differs only in case,
    width, white space, dashes, an I for an l, invisible characters or Greek, Cyrillic or
    Cherokee letters', none of which it did: the refusal names the digits as README and
    How to submit do."""
    from leaderboard.submission.ids import name_lookalike_problem

    problem = name_lookalike_problem(name, {taken: "the name of the submission other"})
    assert problem is not None and f"reads as {taken!r}, " in problem, problem
    assert "an I or a 1 for an l, a 0 for an O" in problem, problem


@pytest.mark.parametrize(("name", "other"), [
    ("rnultilingual-e5-small", "multilingual-e5-small"),
    ("r\u200bnultilingual-e5-small", "multilingual-e5-small"),
    ("E5-rnistral", "E5-mistral"),
    ("paraphrase-rnultilingual-rnpnet-base-v2", "paraphrase-multilingual-mpnet-base-v2"),
    ("Cohere ernbecl-english-v3.0", "Cohere embed-english-v3.0"),
    ("Cohere embecI-english-v3.0", "Cohere embed-english-v3.0"),
    ("Qvven3-Embedding-8B", "Qwen3-Embedding-8B"),
    ("QVVEN3-Embedding-8B", "Qwen3-Embedding-8B"),
    ("bge-rn3", "BGE-M3"), ("GritLRN-7B", None), ("E5-RNistral", None),
])
def test_a_name_with_two_letters_for_one_reads_as_the_boards_name(
        name: str, other: str | None) -> None:
    """A name taking 'rn' for an 'm' (confusables.txt's own line), 'vv' for a 'w' or 'cl'
    for a 'd' (a 'cI' too) read as none of the board's names ('rnultilingual-e5-small'
    beside multilingual-e5-small passed validate): it is refused, naming them. Capitals,
    drawn otherwise, keep a name its own ('GritLRN-7B' beside GritLM-7B, 'E5-RNistral'
    beside E5-mistral)."""
    from leaderboard.app.board_ids import taken_names
    from leaderboard.submission.ids import name_lookalike_problem

    problem = name_lookalike_problem(name, taken_names())
    if other is None:
        assert problem is None
    else:
        assert problem is not None and f"reads as {other!r}, " in problem, problem
        assert "'rn' for an 'm', 'vv' for a 'w', 'cl' for a 'd'" in problem, problem


# Changed when the rule narrowed from the name to the word: 'all-MiniLM-L6-\u03bd2' mixes no
# script in a word ('\u03bd2' is Greek and a digit) and is refused instead for reading as
# all-MiniLM-L6-v2 (test_a_look_alike_in_other_scripts_reads_as_the_boards_name);
# 'Модель \u03b1' (two words in two scripts) passes
# (test_a_model_name_whose_words_are_each_in_one_script_passes); and a letter is now named
# as the name holds it ('\U0001d41a', not the 'a' NFKC makes of it).
@pytest.mark.parametrize(("name", "mixed"), [
    ("\u0430ll-MiniLM-L6-v2",
     "Cyrillic ('\u0430', U+0430) and Latin ('l', U+006C) letters in the word '\u0430ll'"),
    ("\u13aall-MiniLM-L6-v2",
     "Cherokee ('\u13aa', U+13AA) and Latin ('l', U+006C) letters in the word '\u13aall'"),
    ("\u041ciniLM-L6-v2",
     ("Cyrillic ('\u041c', U+041C) and Latin ('i', U+0069) letters in the word "
      "'\u041ciniLM'")),
    ("\u041c\u200diniLM", "Cyrillic ('\u041c', U+041C) and Latin ('i', U+0069) letters"),
    ("Model \u0432\u0435\u0440\u0441\u0438\u044fB",
     "Cyrillic ('\u0432', U+0432) and Latin ('B', U+0042) letters"),
    ("\U0001d41a\u0430", "Latin ('\U0001d41a', U+1D41A) and Cyrillic ('\u0430', U+0430) "
                         "letters"),
])
def test_a_model_name_mixing_lookalike_scripts_in_a_word_is_refused(name: str,
                                                                    mixed: str) -> None:
    """A word (letters, marks and digits; what shows as nothing joins it) mixing Latin,
    Greek, Cyrillic or Cherokee letters, a Cyrillic 'М' in 'MiniLM', is refused whatever
    names the board holds: the confusables table the skeleton maps (folded_name) is
    partial, and no table lists every name a look-alike may copy."""
    from leaderboard.submission.ids import name_lookalike_problem

    problem = name_lookalike_problem(name, {})
    assert problem is not None and f"mixes {mixed}" in problem, problem


@pytest.mark.parametrize("name", [
    "ruBERT (\u0440\u0443\u0441\u0441\u043a\u0438\u0439)",
    "SBERT-\u043f\u043e\u0438\u0441\u043a v2", "\u03b2-VAE", "\u00b5BERT",
    "\u041c\u043e\u0434\u0435\u043b\u044c \u03b1",
    "mE5 \u03bc\u03b5\u03b3\u03ac\u03bb\u03bf",
])
def test_a_model_name_whose_words_are_each_in_one_script_passes(name: str) -> None:
    """A name mixing scripts only across words, as a lab naming its model in Latin and
    Russian for mFollowIR does, or a Greek letter standing alone ('\u03b2-VAE'), was refused
    for mixing Latin, Greek, Cyrillic or Cherokee letters anywhere: it passes, unless it
    reads as a name the board holds. '\u00b5' is the MICRO SIGN, no Greek letter."""
    from leaderboard.app.board_ids import taken_names
    from leaderboard.submission.ids import name_lookalike_problem

    assert unicodedata.name("\u00b5") == "MICRO SIGN"
    assert name_lookalike_problem(name, {}) is None
    assert name_lookalike_problem(name, taken_names()) is None


@pytest.mark.parametrize(("name", "other"), [
    ("all-MiniLM-L6-\u03bd2", "all-MiniLM-L6-v2"),
    ("\u050c\u0422\u0415-\u042c\u0430\u0455\u0435", "GTE-base"),
    ("\u0392\u039c25", "BM25"),
    ("\u0412\u041c25", "BM25"),
    ("\u13f4\u13c0\u13ac-\u13b73", "BGE-M3"),
    ("\u0392\u0393\u0395-\u039c3", None),
    ("BM25 (bm25s, Lucene variant, \u043a1=0.9 b=0.4)",
     "BM25 (bm25s, Lucene variant, k1=0.9 b=0.4)"),
    ("BM25 (bm25s, Lucene variant, \u03ba1=0.9 b=0.4)",
     "BM25 (bm25s, Lucene variant, k1=0.9 b=0.4)"),
    ("BM25 (bm25s, Lucene variant, \u03f01=0.9 b=0.4)",
     "BM25 (bm25s, Lucene variant, k1=0.9 b=0.4)"),
    ("BM25 (bm25s, Lucene variant, \u01381=0.9 b=0.4)",
     "BM25 (bm25s, Lucene variant, k1=0.9 b=0.4)"),
])
def test_a_look_alike_in_other_scripts_reads_as_the_boards_name(name: str,
                                                                other: str | None) -> None:
    """A name whose words are each written in one script but in another script's
    look-alikes of the board's Latin letters ('\u0392\u039c25' in Greek, '\u0412\u041c25' or
    'ԌТЕ-Ьаѕе' wholly in Cyrillic, Cherokee capitals) passed: it mixes nothing. The
    skeleton maps the Cyrillic, Greek and Cherokee letters UTS #39's confusables.txt
    lists as a Latin letter to it, so it is refused for reading as the name it copies; a
    letter the table does not list ('\u0393', Greek GAMMA) keeps a name its own. The small
    kappa and ka (and the Latin kra, which the file makes them) are a k: 'к1=0.9', a word
    of a Cyrillic letter and a digit, passed beside the board's 'k1=0.9'."""
    from leaderboard.app.board_ids import taken_names
    from leaderboard.submission.ids import name_lookalike_problem

    problem = name_lookalike_problem(name, taken_names())
    if other is None:
        assert problem is None
    else:
        assert problem is not None and f"reads as {other!r}, " in problem, problem


@pytest.mark.parametrize(("name", "taken"), [
    ("\u041c\u041e\u0414\u0415\u041b\u042c \u041f\u041e\u0418\u0421\u041a\u0410",
     "\u043c\u043e\u0434\u0435\u043b\u044c \u043f\u043e\u0438\u0441\u043a\u0430"),
    ("\u039d\u0395\u039f", "\u03bd\u03b5\u03bf"),
])
def test_a_name_differing_only_in_case_reads_alike_in_any_script(name: str,
                                                                  taken: str) -> None:
    """The skeleton maps a capital Cyrillic 'М' to 'M' but not the small 'м', which looks
    like no Latin letter, and a Greek 'Ν' to 'N' but its small 'ν' to 'v': names that
    differ only in case still read alike (case_folded_name)."""
    from leaderboard.submission.ids import name_lookalike_problem

    problem = name_lookalike_problem(name, {taken: "the name of the submission other"})
    assert problem is not None and f"reads as {taken!r}, " in problem, problem


# A model's name in each language of the benchmarks, alone and beside Latin.
NAMES_BY_LANGUAGE = {
    "asm": "অসমীয়া সন্ধান", "ben": "বাংলা অনুসন্ধান", "guj": "ગુજરાતી શોધ",
    "hin": "हिन्दी खोज क्\u200dष", "kan": "ಕನ್ನಡ ಹುಡುಕಾಟ", "mal": "മലയാളം തിരച്ചില്\u200d",
    "mar": "मराठी शोध", "ory": "ଓଡ଼ିଆ ସନ୍ଧାନ", "pan": "ਪੰਜਾਬੀ ਖੋਜ", "tam": "தமிழ் தேடல்",
    "tel": "తెలుగు శోధన", "urd": "اردو تلاش", "fas": "می\u200cخواهم جستجو",
    "zho": "多语言检索模型", "rus": "Поисковая модель", "eng": "BM25 (k1=0.9, b=0.4)",
}


@pytest.mark.parametrize("language", sorted(NAMES_BY_LANGUAGE))
def test_a_model_name_in_any_language_passes(language: str) -> None:
    """Names in each language, alone and beside Latin words (the Russian one too, since a
    name may mix scripts across words), with digits and punctuation, pass; the joiners of
    a script that writes them stay in its name's skeleton (a Persian word with and
    without ZWNJ reads as two words)."""
    from leaderboard.app.board_ids import taken_names
    from leaderboard.submission.ids import folded_name, name_lookalike_problem

    name = NAMES_BY_LANGUAGE[language]
    taken = taken_names()
    assert name_lookalike_problem(name, taken) is None
    assert name_lookalike_problem(f"{name} 2", taken) is None
    assert name_lookalike_problem(f"mE5-small ({name}), v2", taken) is None
    if "\u200c" in name or "\u200d" in name:
        assert folded_name(name) != folded_name(name.replace("\u200c", "").replace("\u200d", ""))


@pytest.mark.parametrize("bad_id", ["my-model\n", "my-model\n\n", "\nmy-model"])
def test_id_must_match_as_a_whole_string(bad_id: str, tmp_path: Path) -> None:
    write_meta(tmp_path / SUB, GOOD.replace(f"id: {SUB}", f"id: {bad_id!r}".replace("'", '"')))
    report = Report()
    assert load_metadata(tmp_path / SUB / "metadata.yaml", "m", report) is None
    assert report.errors[0].message.startswith("id: ")


@pytest.mark.parametrize(("owner", "ok"), [
    ("jane-doe", True), ("J4ne", True), ("@jane", False), ("jane--doe", False),
    ("-jane", False), ("jane\n", False), ("a" * 40, False),
])
def test_owner_is_a_github_login(owner: str, ok: bool, tmp_path: Path) -> None:
    write_meta(tmp_path / SUB, GOOD + f"owner: {owner!r}\n".replace("'", '"').replace("\n\"", '\\n"'))
    report = Report()
    meta = load_metadata(tmp_path / SUB / "metadata.yaml", "m", report)
    assert (meta is not None) == ok, report.lines()
    if ok:
        assert meta.owner == owner
    else:
        assert report.errors[0].message.startswith("owner: ")


def test_symlinked_metadata_or_runs_and_stray_files_are_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    write_meta(elsewhere, GOOD)
    touch(elsewhere, "runs/followtable/wtr/original.trec")
    touch(elsewhere, "runs/followtable/wtr/altered.trec")
    root = tmp_path / SUB
    root.mkdir()
    (root / "metadata.yaml").symlink_to(elsewhere / "metadata.yaml")
    (root / "runs").symlink_to(elsewhere / "runs")
    touch(root, "README.md")
    touch(root, "notes/x.txt")
    report = Report()
    submission = discover(root, report)
    errors = [i.format() for i in report.errors]
    assert f"{SUB}/metadata.yaml: symbolic links are not allowed in a submission; commit the " \
           "file itself" in errors
    assert any(e.startswith(f"{SUB}/runs: symbolic links are not allowed") for e in errors)
    assert any(e.startswith(f"{SUB}/README.md: unexpected file") for e in errors)
    assert any(e.startswith(f"{SUB}/notes: unexpected file") for e in errors)
    assert submission.metadata is None and submission.files == {}


def test_a_score_sheet_is_checked_when_it_becomes_a_results_row() -> None:
    """The engine's ScoreSheet is a plain dataclass (no pydantic on `eval`'s path); the
    results schema reads it by attribute and refuses a non-finite score there, so no
    results file can hold one."""
    import math

    from pydantic import ValidationError

    from leaderboard.submission.results import ModelInfo, Source, SystemResult
    from leaderboard.core.scoring import ScoreSheet

    def row(sheet: ScoreSheet) -> SystemResult:
        return SystemResult(system_id="s", model=ModelInfo(name="m"), provenance="verified",
                            source=Source(kind="scored"), tasks={"followtable/wtr": sheet})

    good = row(ScoreSheet(metrics={"IRS": 1}, per_query={"IRS": {"q1": 1}}, n_queries=1))
    assert good.tasks["followtable/wtr"].metrics == {"IRS": 1.0}
    assert isinstance(good.tasks["followtable/wtr"].metrics["IRS"], float)
    for bad in (math.nan, math.inf):
        with pytest.raises(ValidationError, match="finite"):
            row(ScoreSheet(metrics={"IRS": 0.5}, per_query={"IRS": {"q1": bad}}))


def test_the_validator_and_the_pull_request_check_read_one_layout(tmp_path: Path) -> None:
    """Every entry of leaderboard/submission/layout.py is a file the validator accepts at a
    folder's top; pr-check reads the submitter's, compares the scorer's and refuses a
    change to CI's; anything else is a stray file with the same message from both."""
    from leaderboard.app.ci.git import TreeEntry
    from leaderboard.app.ci.policy import check_derived, check_tree
    from leaderboard.submission.layout import ENTRIES, STRAY_FILE, Writer, left_to_ci

    root = tmp_path / SUB
    write_meta(root, GOOD)
    touch(root, "runs/followtable/wtr/original.trec.gz")
    touch(root, "runs/followtable/wtr/altered.trec.gz")
    for entry in ENTRIES:
        touch(root, entry.name + ("/x.json.gz" if entry.kind == "folder" else ""))
    touch(root, "notes.md")
    report = Report()
    discover(root, report)
    assert [i.format() for i in report.errors if "notes" in i.path or "unexpected" in
            i.message] == [f"{SUB}/notes.md: {STRAY_FILE}"]

    def blob(rel: str) -> TreeEntry:
        return TreeEntry(mode="100644", kind="blob", sha="0" * 40, size=10,
                         path=f"submissions/{SUB}/{rel}")

    paths = [e.name + ("/x.json.gz" if e.kind == "folder" else "") for e in ENTRIES]
    report = Report()
    assert check_tree(SUB, [blob(p) for p in [*paths, "notes.md"]], report)
    assert [i.format() for i in report.errors] == [f"{SUB}/notes.md: {STRAY_FILE}"]
    report = Report()
    check_derived(SUB, [f"submissions/{SUB}/{p}" for p in paths], report, merged=True)
    refused = [e for e in ENTRIES if e.writer is Writer.CI]
    assert refused and [i.path for i in report.errors] == [f"{SUB}/{e.name}" for e in refused]
    assert all(i.message.endswith(left_to_ci(e)) for i, e in zip(report.errors, refused))
    report = Report()  # a submission not merged yet: CI wrote none of them
    check_derived(SUB, [f"submissions/{SUB}/{p}" for p in paths], report, merged=False)
    assert [i.path for i in report.errors] == [f"{SUB}/{e.name}" for e in refused]
    assert all("git rm -r" in i.message for i in report.errors)


def test_the_run_files_are_listed_as_rglob_lists_them(tmp_path: Path) -> None:
    # The runs/ listing is one os.scandir per folder instead of pathlib's rglob (23 -> 4 ms
    # for a whole submission): the same paths in the same order, links listed and not
    # followed into, and whatever is no folder (a FIFO) listed, to be refused.
    import os

    runs = tmp_path / "runs"
    for rel in ("a/b/run.trec", "a-b/c/run.trec", "a.b/run.trec.gz", "z/x/y/deep.trec",
                "a/b/original.trec"):
        (runs / rel).parent.mkdir(parents=True, exist_ok=True)
        (runs / rel).write_text("x")
    (runs / "a" / "to-file.trec").symlink_to(runs / "a" / "b" / "run.trec")
    (runs / "a" / "to-folder").symlink_to(runs / "z")
    (runs / "a" / "dangling").symlink_to(runs / "nowhere")
    os.mkfifo(runs / "a-b" / "fifo")
    expected = sorted(p for p in runs.rglob("*") if not p.is_dir() or p.is_symlink())
    assert _files_and_links(runs) == expected
    assert len(expected) == 9


def test_a_fifo_among_the_runs_is_refused_as_score_refuses_it(tmp_path: Path) -> None:
    # validate left a FIFO out of the listing and said "valid (1 task)" of a folder whose
    # run was one, where score refuses it: both refuse it, in one wording, and nothing
    # reads it (a FIFO blocks its reader).
    import os

    root = tmp_path / SUB
    write_meta(root, GOOD)
    touch(root, "runs/followtable/wtr/original.trec")
    os.mkfifo(root / "runs/followtable/wtr/altered.trec")
    assert (f"{SUB}/runs/followtable/wtr/altered.trec: not a regular file (a FIFO): a "
            "submission holds plain files and folders only") in errors_of(root)
