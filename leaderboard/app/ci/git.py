"""Read-only access to a git repository: commits, diffs, trees and blobs.

CI looks at a pull request through git objects rather than the checked-out files, so the
result does not depend on which commit the runner happened to check out, and a file is
measured (size, mode) before a single byte of it is written anywhere. Every call passes
arguments as a list (no shell) and NUL-separated output (``-z``), so file names with
spaces, quotes or newlines are data, never syntax. The one thing written is the pushing
job's own commit of a checked tree (:func:`leaderboard.app.ci.handover.recommit`).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from leaderboard.core.errors import FollowBoardError, UsageError
from leaderboard.core.user_git import batch_blobs, blob_size

SHA_RE = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")  # SHA-1 or SHA-256; use fullmatch
NULL_SHA_RE = re.compile(r"^0+$")

# git tree modes
MODE_SYMLINK = "120000"
MODE_GITLINK = "160000"  # a submodule commit


class GitError(FollowBoardError, ValueError):
    """A git command failed; the message says which and why."""


class CommitNotFound(GitError, UsageError):
    """A commit the command was given is not in the repository, or there is no
    repository: what it was asked to read is not there (a usage error, exit 2)."""

    def __init__(self, message: str, *, no_repository: bool = False) -> None:
        super().__init__(message)
        self.no_repository = no_repository


class NoCommonHistory(GitError):
    """Two commits share no ancestor: a branch that was not made from the base branch."""


_GIT_MISSING = "git is not installed (needed to read the pull request)"


def git(repo: Path, *args: str, input_bytes: bytes | None = None,
        ok_codes: tuple[int, ...] = (0,), env: Mapping[str, str] | None = None) -> bytes:
    """git's output; ``env`` adds to (or overrides in) the environment git runs in."""
    try:
        proc = subprocess.run(["git", "-C", str(repo), *args], input=input_bytes,
                              capture_output=True, check=False,
                              env=None if env is None else {**os.environ, **env})
    except FileNotFoundError:
        raise GitError(_GIT_MISSING) from None
    if proc.returncode not in ok_codes:
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {' '.join(args[:3])} failed in {repo}: "
                       f"{detail[-1] if detail else f'exit {proc.returncode}'}")
    return proc.stdout


def is_repository(repo: Path) -> bool:
    """Whether ``repo`` is (inside) a git repository."""
    try:
        git(repo, "rev-parse", "--git-dir")
    except GitError:
        return False
    return True


def resolve_commit(repo: Path, rev: str) -> str:
    """The full SHA of a commit; :class:`CommitNotFound` when it is unknown (e.g. a
    shallow clone) or ``repo`` is no git repository."""
    if rev.startswith("-"):
        raise CommitNotFound(f"not a commit: {rev!r}")
    try:
        out = git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except GitError:
        if not is_repository(repo):
            raise CommitNotFound(f"{repo} is not a git repository",
                                 no_repository=True) from None
        raise CommitNotFound(f"commit {rev!r} is not in the repository at {repo} (in "
                             "Actions, check out with fetch-depth: 0)") from None
    return out.decode().strip()


def merge_base(repo: Path, base: str, head: str) -> str:
    """The commit where ``head``'s branch left ``base``'s; :class:`NoCommonHistory` when
    there is none (``git merge-base`` answers nothing, with exit status 1)."""
    out = git(repo, "merge-base", base, head, ok_codes=(0, 1)).decode().strip()
    if not out:
        raise NoCommonHistory(f"{base} and {head} have no common ancestor")
    return out


@dataclass(frozen=True)
class Change:
    """One file changed between two commits: status A(dded), M(odified), D(eleted), T(ype)."""

    status: str
    path: str
    # The git mode the path has after the change ("100644" a plain file, MODE_SYMLINK,
    # MODE_GITLINK; "000000" deleted); "" where it is not known (the API's file list).
    mode: str = ""


def changed_files(repo: Path, base: str, head: str) -> list[Change]:
    """Files that differ between two commits; renames and copies show as delete + add."""
    out = git(repo, "diff", "--raw", "-z", "--no-renames", "--no-ext-diff", "--no-abbrev",
              base, head, "--")
    fields = out.split(b"\0")
    changes: list[Change] = []
    i = 0
    while i + 1 < len(fields):
        # ":<old mode> <new mode> <old sha> <new sha> <status>", then the path.
        meta = fields[i].decode("ascii", "replace").split()
        path = fields[i + 1].decode("utf-8", "surrogateescape")
        if len(meta) == 5:
            changes.append(Change(meta[4][0], path, meta[1]))
        i += 2
    return changes


def parents(repo: Path, commit: str) -> list[str]:
    """The full SHAs of ``commit``'s parents, in order (none for a root commit)."""
    out = git(repo, "rev-list", "--parents", "-n", "1", resolve_commit(repo, commit), "--")
    return out.decode("ascii").split()[1:]


@dataclass(frozen=True)
class TreeEntry:
    mode: str
    kind: str      # "blob" or "commit" (submodule)
    sha: str
    size: int      # bytes of the blob; 0 for a submodule
    path: str      # from the repository root, POSIX separators

    @property
    def is_symlink(self) -> bool:
        return self.mode == MODE_SYMLINK

    @property
    def is_submodule(self) -> bool:
        return self.mode == MODE_GITLINK or self.kind == "commit"


def tree_entries(repo: Path, commit: str, prefix: str) -> list[TreeEntry]:
    """Every file under ``prefix`` (a folder, no trailing slash) in ``commit``, recursively."""
    out = git(repo, "ls-tree", "-r", "-z", "--long", "--full-tree", commit, "--",
              prefix.rstrip("/") + "/")
    entries: list[TreeEntry] = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, sha, size = meta.decode("ascii").split()
        entries.append(TreeEntry(mode, kind, sha, int(size) if size != "-" else 0,
                                 path.decode("utf-8", "surrogateescape")))
    return entries


def file_at(repo: Path, commit: str, path: str) -> bytes | None:
    """The content of the file ``path`` in ``commit`` (None: no such file)."""
    out = git(repo, "ls-tree", "-z", "--full-tree", commit, "--", path)
    for record in out.split(b"\0"):
        meta, _, name = record.partition(b"\t")
        if name.decode("utf-8", "surrogateescape") == path and meta.split()[1:2] == [b"blob"] \
                and not meta.startswith(b"120000"):
            (blob,) = read_blobs(repo, [meta.split()[2].decode("ascii")])
            return blob
    return None


def folder_names(repo: Path, commit: str, folder: str) -> set[str]:
    """The names of the entries directly inside ``folder`` in ``commit`` (none: no folder)."""
    out = git(repo, "ls-tree", "-z", "--name-only", "--full-tree", commit, "--",
              folder.rstrip("/") + "/")
    return {PurePosixPath(record.decode("utf-8", "surrogateescape")).name
            for record in out.split(b"\0") if record}


def _blob_size(header: bytes, sha: str) -> int:
    """:func:`~leaderboard.core.user_git.blob_size`, a header that is not a blob's a
    :class:`GitError`."""
    try:
        return blob_size(header, sha)
    except ValueError as exc:
        raise GitError(str(exc)) from None


def read_blobs(repo: Path, shas: list[str]) -> list[bytes]:
    """The contents of many blobs in one ``git cat-file --batch`` call, in order (held in
    memory: small files; :func:`extract` writes large ones)."""
    if not shas:
        return []
    out = git(repo, "cat-file", "--batch", input_bytes="".join(f"{s}\n" for s in shas).encode())
    try:
        return batch_blobs(out, shas)
    except ValueError as exc:
        raise GitError(str(exc)) from None


def safe_relative(path: str) -> PurePosixPath:
    """A repository path as a relative path that cannot escape the folder it is written to."""
    pure = PurePosixPath(path)
    if pure.is_absolute() or any(part in ("", ".", "..", ".git") for part in pure.parts) \
            or "\\" in path or "\0" in path:
        raise GitError(f"unsafe path in the repository: {path!r}")
    return pure


# A blob goes from git to its file in pieces of at most this many bytes.
_COPY_PIECE = 1 << 20


def extract(repo: Path, entries: list[TreeEntry], strip: str, dest: Path) -> list[Path]:
    """Write blobs under ``dest``, each at its path with the ``strip`` prefix removed.

    Every path is checked before a byte is written. The blobs are copied from one ``git
    cat-file --batch`` into their files a piece at a time, never held whole: a pull
    request of every task carries 113 MB of runs (benchmarks/score_suite.py), which
    reading them all first held twice over and copied twice (0.55 s of `ci pr-check`'s
    serial start on the 2-core Zen 3 host; 0.32 s streamed)."""
    targets: list[Path] = []
    for entry in entries:
        rel = safe_relative(entry.path)
        rel = rel.relative_to(strip) if strip else rel
        targets.append(dest.joinpath(*rel.parts))
    if not entries:
        return targets
    # git's input and its messages go through files: written whole before it starts and
    # read after it ends, neither pipe can fill up while the other is waited on.
    with tempfile.TemporaryFile() as names, tempfile.TemporaryFile() as messages:
        names.write("".join(f"{e.sha}\n" for e in entries).encode("ascii"))
        names.seek(0)
        try:
            proc = subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch"],
                                    stdin=names, stdout=subprocess.PIPE, stderr=messages)
        except FileNotFoundError:
            raise GitError(_GIT_MISSING) from None
        out = proc.stdout
        assert out is not None
        try:
            for entry, target in zip(entries, targets):
                left = _blob_size(out.readline(), entry.sha)
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(target, "wb") as sink:
                    while left:
                        piece = out.read(min(left, _COPY_PIECE))
                        if not piece:
                            raise GitError(f"git cat-file ended inside object {entry.sha}")
                        sink.write(piece)
                        left -= len(piece)
                end = out.read(1)  # each object's content ends with a newline
                if not end:  # git stopped (killed?) before that end
                    raise GitError(f"git cat-file ended inside object {entry.sha}")
                if end != b"\n":
                    raise GitError(f"git cat-file gave more than object {entry.sha} holds")
        except BaseException:
            proc.kill()
            raise
        finally:
            out.close()
            status = proc.wait()
        if status != 0:
            messages.seek(0)
            detail = messages.read().decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git cat-file --batch failed in {repo}: "
                           f"{detail[-1] if detail else f'exit {status}'}")
    return targets
