"""The atomic file helper every writer in the project goes through."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from leaderboard.core.fileio import atomic_file, atomic_write_text


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "results.json"
    atomic_write_text(target, "old\n")
    with pytest.raises(KeyboardInterrupt):
        with atomic_file(target) as fh:
            fh.write(b"half of the new cont")
            raise KeyboardInterrupt
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
