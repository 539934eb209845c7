"""The atomic file helper every writer in the project goes through."""

from __future__ import annotations

import errno
import os
import signal
import stat
from pathlib import Path

import pytest

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from leaderboard.core.fileio import atomic_file, atomic_write_text, read_json_model, size_text
from leaderboard.core.refusals import validation_problem


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "results.json"
    atomic_write_text(target, "old\n")
    with pytest.raises(KeyboardInterrupt):
        with atomic_file(target) as fh:
            fh.write(b"half of the new cont")
            raise KeyboardInterrupt
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]


def test_a_folder_where_the_file_goes_is_named_not_the_temp_file(tmp_path: Path) -> None:
    """`import mteb --out DIR` and `ci comment-body --out DIR` (the option takes a file)
    said "[Errno 21] Is a directory: '.../.out.1234-ab12.tmp' -> '.../out'", naming a file
    the user never made, after doing the work: the folder is named alone, and nothing is
    written beside it."""
    target = tmp_path / "out"
    (target / "kept").mkdir(parents=True)
    with pytest.raises(IsADirectoryError) as info:
        atomic_write_text(target, "text\n")
    assert info.value.filename == str(target) and info.value.filename2 is None
    assert str(target) in str(info.value) and ".tmp" not in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert [p.name for p in target.iterdir()] == ["kept"]


@pytest.mark.parametrize("where", ["write", "flush"])
def test_a_full_disk_names_the_file_being_written(tmp_path: Path, monkeypatch,
                                                  where: str) -> None:
    """`import mteb --out FILE` on a full disk said "[Errno 28] No space left on device"
    and nothing of which file: the operating system's error names none (a write's or a
    flush's), so the writer names the file it was writing, and leaves the old one."""
    target = tmp_path / "results.json"
    atomic_write_text(target, "old\n")
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    if where == "flush":
        def no_space(fd: int) -> None:
            raise full
        monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(OSError) as info:
        with atomic_file(target) as fh:
            fh.write(b"new")
            if where == "write":
                raise full
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(target)
    assert str(target) in str(info.value) and ".tmp" not in str(info.value)
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]


def test_a_rewound_write_replaces_the_file_readably(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "corpus.jsonl"
    with atomic_file(target, prefix=".pull-", suffix=".part") as fh:
        fh.write(b"first attempt, dropped")
        fh.seek(0)
        fh.truncate()
        fh.write(b"second attempt\n")
        assert [p.name for p in target.parent.iterdir()][0].startswith(".pull-corpus.jsonl.")
    assert target.read_bytes() == b"second attempt\n"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert [p.name for p in target.parent.iterdir()] == ["corpus.jsonl"]


@pytest.mark.parametrize(("n_bytes", "text"), [
    (0, "0 bytes"), (1, "1 byte"), (1023, "1,023 bytes"), (1024, "1 KiB"),
    (1536, "1.5 KiB"), (25 * 2**20, "25 MiB"), (25 * 2**20 + 1, "25.0 MiB"),
    (26_529_000, "25.3 MiB"), (3 * 2**29, "1.5 GiB"), (5000 * 2**30, "5,000 GiB"),
])
def test_one_way_to_write_a_size(n_bytes: int, text: str) -> None:
    """Sizes were written three ways: SI "1.5 MB" (data pull), whole MiB (a file of
    25.3 MiB was "25 MiB, over the 25 MiB limit"), and "25.3 MiB" or "0.02 MiB" by hand
    (the PR check, export, build). One: binary units, one decimal, none for a whole
    number of them (a limit reads as set), so a size over a limit never reads as it."""
    assert size_text(n_bytes) == text


def test_every_size_a_command_prints_is_size_text() -> None:
    """No message divides by 2**20 or 1000 by itself: each size goes through size_text."""
    import re

    root = Path(__file__).resolve().parent.parent / "leaderboard"
    by_hand = re.compile(r"/ ?(2 ?\*\* ?(10|20|30)|1024)\b.*(KiB|MiB|GiB)|_human_bytes")
    found = [f"{path.relative_to(root)}:{number}"
             for path in sorted(root.rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if by_hand.search(line)]
    assert found == [], found


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the test forks")
def test_the_next_write_removes_what_a_killed_writer_left(tmp_path: Path) -> None:
    """A writer killed between creating its temporary file and renaming it left
    ".<name>.XXXX.tmp" beside the file for good: `import mteb` killed so left one in
    results/reported/, which `git add -A` then committed. The next write of the same file
    removes those of writers gone, never one a running writer is filling."""
    from fixtures.pids import running_pid

    target = tmp_path / "mteb-results.json"
    atomic_write_text(target, "old\n")
    pid = os.fork()
    if pid == 0:  # the child: killed halfway through its write
        try:
            with atomic_file(target) as fh:
                fh.write(b"half of the new cont")
                fh.flush()
                os.kill(os.getpid(), signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    left = sorted(p.name for p in tmp_path.iterdir() if p != target)
    assert len(left) == 1 and target.read_text() == "old\n", left
    running = tmp_path / f".mteb-results.json.{running_pid()}-wr1t.tmp"
    running.write_bytes(b"being written")
    other = tmp_path / f".other.json.{pid}-x1y2.tmp"  # another file's: its own writer's
    other.write_bytes(b"another file")
    atomic_write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["mteb-results.json", running.name, other.name])


def test_a_json_file_over_its_limit_is_sized_as_every_message_sizes_one(
        tmp_path: Path) -> None:
    """A CI report over its 8 MiB limit read "9437184 bytes, over the 8388608 byte limit":
    the one reader of JSON models sized it by hand, not by size_text."""
    from pydantic import BaseModel

    class Model(BaseModel):
        a: int

    path = tmp_path / "big.json"
    path.write_text('{"a": 1}' + " " * 3000)
    with pytest.raises(ValueError) as caught:
        read_json_model(path, Model, ValueError, what="a test file", max_bytes=2048)
    assert str(caught.value) == f"{path}: 2.9 KiB, over the 2 KiB limit of a test file"
    # So was a manifest over its limit ("262145 bytes, over the 256 KiB limit").
    from leaderboard.core.report import Report
    from leaderboard.submission.layout import MAX_MANIFEST_BYTES
    from leaderboard.submission.manifest import parse_manifest

    report = Report()
    assert parse_manifest(b" " * (MAX_MANIFEST_BYTES + 1), "manifest.txt", report) is None
    assert [i.message for i in report.issues] == [
        "256.0 KiB, over the 256 KiB limit of a manifest"]


class _Leaf(BaseModel):
    model_config = ConfigDict(extra="forbid")
    licence: str | None = None
    revision: str | None = Field(default=None, alias="rev")


class _Root(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: _Leaf | None = None
    links: list[_Leaf] = []
    tasks: dict[str, _Leaf] = {}


@pytest.mark.parametrize(("data", "problem"), [
    ({"model": {"license": "MIT"}},
     "model.license: Extra inputs are not permitted; did you mean 'licence'?"),
    ({"links": [{}, {"revs": "v1"}]},
     "links.1.revs: Extra inputs are not permitted; did you mean 'rev'?"),
    ({"tasks": {"a/b": {"licenses": "MIT"}}},
     "tasks.a/b.licenses: Extra inputs are not permitted; did you mean 'licence'?"),
    ({"modle": {}}, "modle: Extra inputs are not permitted; did you mean 'model'?"),
    ({"team": 1}, "team: Extra inputs are not permitted"),
])
def test_an_unknown_key_is_told_the_closest_known_key_of_its_mapping(data: dict,
                                                                     problem: str) -> None:
    """metadata.yaml's `model.license:` was refused as 'Extra inputs are not permitted',
    with no word that the key is spelt `licence`."""
    with pytest.raises(Exception) as caught:
        _Root.model_validate(data)
    assert validation_problem(caught.value.errors()[0], _Root) == problem


class _Checked(BaseModel):
    model: _Leaf
    owner: str

    @field_validator("owner")
    @classmethod
    def _no_at(cls, value: str) -> str:
        if value.startswith("@"):
            raise ValueError("a GitHub login, without '@'")
        return value


@pytest.mark.parametrize(("data", "problem"), [
    ({"model": "My Model", "owner": "jane"},
     "model: 'My Model' is text, where a mapping of keys (licence, rev) is expected"),
    ({"model": {}, "owner": "@jane"}, "owner: a GitHub login, without '@'"),
])
def test_a_problem_is_worded_without_pydantics_names(data: dict, problem: str) -> None:
    """metadata.yaml's `model: My Model` was told 'Input should be a valid dictionary or
    instance of SubmittedModel', a Python class no submitter knows of, and every check of
    our own began 'Value error, ' ('owner: Value error, must be a GitHub login')."""
    with pytest.raises(ValidationError) as caught:
        _Checked.model_validate(data)
    assert validation_problem(caught.value.errors()[0], _Checked) == problem


class _Typed(BaseModel):
    name: str
    parameters: int | None = None
    seconds: float | None = None
    trained: bool | None = None
    links: list[str] = []


@pytest.mark.parametrize(("data", "problem"), [
    ({"name": 2.0}, "name: 2.0 is a number, where text is expected: put it in quotes"),
    ({"name": True}, "name: a yes/no value (true, yes or on) is given, where text is "
                     "expected: put the text in quotes"),
    ({"name": None}, "name: no value is given, where text is expected"),
    ({"name": ["a", "b"]}, "name: a list is given, where text is expected"),
    ({"name": "m", "parameters": "7B"}, "parameters: '7B' is text, where a whole number is "
     "expected: write it in digits alone (no units, commas or spaces)"),
    ({"name": "m", "parameters": 1.5},
     "parameters: 1.5 is a number with a fraction, where a whole number is expected"),
    ({"name": "m", "seconds": "1.5s"}, "seconds: '1.5s' is text, where a number is expected: "
     "write it in digits alone (no units, commas or spaces)"),
    ({"name": "m", "trained": "maybe"},
     "trained: 'maybe' is text, where true or false is expected: write true or false"),
    ({"name": "m", "links": "https://example.org"}, "links: 'https://example.org' is text, "
     "where a list is expected: write its items in [ ], separated by commas"),
])
def test_a_value_of_another_kind_says_what_to_write(data: dict, problem: str) -> None:
    """metadata.yaml's 'revision: 1234' (a number to YAML) was told 'Input should be a
    valid string', 'parameters: 7B' 'Input should be a valid integer, unable to parse
    string as an integer' and 'instruction_trained: maybe' 'Input should be a valid
    boolean, unable to interpret input': Python's names, and nothing of what to write."""
    with pytest.raises(ValidationError) as caught:
        _Typed.model_validate(data)
    assert validation_problem(caught.value.errors()[0], _Typed) == problem


def test_a_json_file_with_an_unknown_key_is_told_the_closest_known_key(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text('{"model": {"licence": "MIT", "revison": "v1"}}')
    with pytest.raises(ValueError, match=r"model\.revison: Extra inputs are not permitted; "
                                         r"did you mean 'rev'\? \(1 problem in all\)"):
        read_json_model(path, _Root, ValueError)


class _Refused(Exception):
    pass


def test_a_json_number_of_over_4300_digits_is_refused_as_invalid_json(tmp_path: Path) -> None:
    """Python's json refuses such an integer with a plain ValueError, not a
    JSONDecodeError: a results.json holding one stopped `validate` (and `ci pr-check`
    reading a results.json by load_json) with 'internal error (ValueError)'."""
    from leaderboard.core.fileio import load_json

    text = '{"model":\n {"licence": ' + "9" * 5000 + "}}"
    path = tmp_path / "results.json"
    path.write_text(text)
    with pytest.raises(_Refused, match=rf"^{path}: invalid JSON: number out of range at line "
                                       r"2 column \d+$"):
        read_json_model(path, _Root, _Refused)
    with pytest.raises(_Refused, match=r"^results.json: invalid JSON: .*5000 digits$"):
        load_json(text, "results.json", _Refused)
