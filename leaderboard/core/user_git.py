"""Running git on the user's repository as the user's own git would find it.

A shell may set ``GIT_DIR`` (and ``GIT_WORK_TREE``) to name the repository; git reads a
relative one from the directory it runs in. Run in a submission's folder (``git -C``),
``GIT_DIR=.git`` typed at the repository's root names no repository there, and the
command takes the folder for one outside any checkout (merged detection, the identity
`baselines run` records, the commit a site build links to). So where ``GIT_DIR`` is set,
git runs in this process's directory, from which the user gave it; otherwise git finds
the checkout around the folder, a linked worktree's included.

:func:`batch_blobs` reads what ``git cat-file --batch`` answers, for every caller that
asks it for many files at once (the PR check, and `validate` of the merged submissions).
"""

from __future__ import annotations

import os
from pathlib import Path


def git_command(folder: Path) -> list[str]:
    """The start of a git command line that reads the repository ``folder`` is in, the
    way the user's git does (paths in the command are from that repository's root for
    ``<ref>:<path>``, or absolute)."""
    if os.environ.get("GIT_DIR"):
        return ["git"]
    return ["git", "-C", str(folder)]


def blob_size(header: bytes, sha: str) -> int:
    """The size ``git cat-file --batch`` gives in its line ``<sha> blob <size>`` for the
    object ``sha``; a ValueError where the line is not a blob's."""
    fields = header.decode("ascii", "replace").split()
    if len(fields) != 3 or fields[1] != "blob" or not fields[2].isdigit():
        raise ValueError(f"object {sha} is not a readable blob ({' '.join(fields)})")
    return int(fields[2])


def batch_blobs(out: bytes, shas: list[str]) -> list[bytes]:
    """The contents ``git cat-file --batch`` printed in ``out`` for ``shas``, in order:
    each ``<sha> blob <size>``, a newline, the content, a newline. A ValueError names the
    object whose answer is not a blob's (missing, another kind, output cut short)."""
    blobs: list[bytes] = []
    pos = 0
    for sha in shas:
        end = out.find(b"\n", pos)
        size = blob_size(out[pos:end] if end >= 0 else b"", sha)
        if end + 1 + size > len(out):
            raise ValueError(f"object {sha}: git's answer is cut short")
        blobs.append(out[end + 1:end + 1 + size])
        pos = end + 1 + size + 1  # content, then a newline
    return blobs
