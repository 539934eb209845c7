"""A folder publishing generates whole (the site, the dataset export) is replaced as one
(leaderboard/publish/output_folder.py): killed at any file operation, it is the old
folder or the new one (where the two cannot be swapped in one step, once the next run has
looked), and nothing is left beside it once the next run has looked."""

from __future__ import annotations

import ctypes
import errno
import os
from pathlib import Path

import pytest

from fixtures.kill import ChildRun, folder_files, needs_fork, run_child
from leaderboard.publish import output_folder
from leaderboard.publish.output_folder import exchange, recover_folder, replaced_folder

MARKER = ".made-here"
COUNTED = ("open", "replace", "rename", "unlink", "mkdir", "rmdir", "write", "chmod")


class Refused(ValueError):
    pass



def _write_new(folder: Path) -> None:
    for name, text in (("index.html", "new page"), ("data/a.json", "[1]"),
                       ("data/b.json", "[2]")):
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _old_folder(out: Path) -> dict[str, bytes]:
    with replaced_folder(out, MARKER, "this test", Refused) as new:
        (new / "index.html").write_text("old page", encoding="utf-8")
        (new / "old-only.txt").write_text("gone in the new one", encoding="utf-8")
    return folder_files(out)


def _in_child_killed_at(k: int, out: Path) -> ChildRun:
    """Replace ``out`` in a forked child whose ``k``-th file operation kills it (0: none)."""
    def work() -> None:
        with replaced_folder(out, MARKER, "this test", Refused) as new:
            _write_new(new)
    return run_child(work, COUNTED, fail_at=k)


def _refusing_renameat2(*_args: object) -> int:
    """renameat2 as a file system without RENAME_EXCHANGE answers it."""
    ctypes.set_errno(errno.EINVAL)
    return -1


@pytest.fixture(params=["swapped", "renamed"])
def swap(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """How the new folder takes the old one's place: swapped in one step (Linux), or by
    two renames, where the system refuses the swap."""
    if request.param == "swapped":
        if output_folder._renameat2() is None:
            pytest.skip("no renameat2 here")
    else:
        monkeypatch.setattr(output_folder, "_renameat2", lambda: _refusing_renameat2)
    return request.param


@needs_fork
def test_killed_at_every_file_operation_the_folder_is_the_old_or_the_new(
        sweep_path: Path, swap: str) -> None:
    reference = sweep_path / "reference" / "site"
    old = _old_folder(reference)
    run = _in_child_killed_at(0, reference)
    assert run.code == 0, run.output
    n_ops = run.operations
    new = folder_files(reference)
    assert n_ops > 5 and new != old and (reference / MARKER).is_file()
    seen = {"old": 0, "new": 0}
    for k in range(1, n_ops + 1):
        out = sweep_path / f"run-{k}" / "site"
        assert _old_folder(out) == old
        assert _in_child_killed_at(k, out).code is None, f"op {k}: not killed"
        if swap == "swapped":  # never absent, even before the next run looks
            files = folder_files(out)
            assert files in (old, new), f"op {k} of {n_ops}: {sorted(files)}"
        recover_folder(out)  # what the next run of either command does first
        files = folder_files(out)
        assert files in (old, new), f"op {k} of {n_ops}: {sorted(files)}"
        seen["old" if files == old else "new"] += 1
        assert [p.name for p in out.parent.iterdir()] == ["site"], f"op {k}: left beside it"
    assert seen["old"] and seen["new"], seen


def test_killed_between_the_two_renames_the_next_run_puts_the_old_folder_back(
        tmp_path: Path) -> None:
    out = tmp_path / "site"
    old = _old_folder(out)
    aside = tmp_path / ".site.old-x1"
    os.replace(out, aside)  # as a run killed after its first rename leaves it
    unfinished = tmp_path / ".site.partial-x2"
    _write_new(unfinished)
    with pytest.raises(RuntimeError):
        with replaced_folder(out, MARKER, "this test", Refused):
            raise RuntimeError("this run fails too")
    assert folder_files(out) == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_exchange_swaps_two_folders_or_says_it_cannot(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "in-a").write_text("a", encoding="utf-8")
    (b / "in-b").write_text("b", encoding="utf-8")
    if output_folder._renameat2() is not None:
        assert exchange(a, b)
        assert [p.name for p in a.iterdir()] == ["in-b"]
        assert [p.name for p in b.iterdir()] == ["in-a"]
        with pytest.raises(FileNotFoundError):
            exchange(a, tmp_path / "absent")
    monkeypatch.setattr(output_folder, "_renameat2", lambda: _refusing_renameat2)
    before = {p.name: [q.name for q in p.iterdir()] for p in (a, b)}
    assert not exchange(a, b)
    assert {p.name: [q.name for q in p.iterdir()] for p in (a, b)} == before


def test_a_folder_not_made_here_is_refused_and_kept(tmp_path: Path) -> None:
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(Refused, match="not made by this test"):
        with replaced_folder(out, MARKER, "this test", Refused):
            pytest.fail("the block ran")
    assert folder_files(out) == {"notes.txt": b"keep me"}
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    with pytest.raises(Refused, match="not a folder"):
        with replaced_folder(tmp_path / "a-file", MARKER, "this test", Refused):
            pytest.fail("the block ran")
    (tmp_path / "link").symlink_to(out)
    with pytest.raises(Refused, match="a symbolic link; give the folder it points to"):
        with replaced_folder(tmp_path / "link", MARKER, "this test", Refused):
            pytest.fail("the block ran")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "link", "precious"]
    assert folder_files(out) == {"notes.txt": b"keep me"}


def test_a_full_disk_names_the_folder_being_written(tmp_path: Path) -> None:
    """`export --out DIR` on a full disk said "[Errno 28] Error writing bytes to file.
    Detail: [errno 28] No space left on device" (pyarrow's Parquet writer; Python's own
    says "No space left on device" alone), naming no file: the folder being written is
    named, the one the user gave, and it is left as it was."""
    out = tmp_path / "site"
    old = _old_folder(out)
    with pytest.raises(OSError) as info:
        with replaced_folder(out, MARKER, "this test", Refused) as new:
            _write_new(new)
            raise OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] "
                                        "No space left on device")
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(out)
    assert str(out) in str(info.value) and "partial" not in str(info.value)
    assert folder_files(out) == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
