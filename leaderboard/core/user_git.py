"""Running git on the user's repository as the user's own git would find it.

A shell may set ``GIT_DIR`` (and ``GIT_WORK_TREE``) to name the repository; git reads a
relative one from the directory it runs in. Run in a submission's folder (``git -C``),
``GIT_DIR=.git`` typed at the repository's root names no repository there, and the
command takes the folder for one outside any checkout (merged detection, the identity
`baselines run` records, the commit a site build links to). So where ``GIT_DIR`` is set,
git runs in this process's directory, from which the user gave it; otherwise git finds
the checkout around the folder, a linked worktree's included.
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
