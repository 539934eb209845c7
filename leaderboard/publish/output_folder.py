"""The folders publishing generates whole (the site, the dataset export) or rewrites files
of (results/reported/), replaced as one.

A command writes the new contents into a hidden sibling of the folder,
``.<name>.partial-XXXX``, and only a complete one takes the folder's place, in one step
where the system allows it: Linux's ``renameat2(RENAME_EXCHANGE)`` swaps the two folders
(:func:`exchange`), and the old one, now under the hidden name, is deleted. A command that
fails leaves the folder as it was; one killed at any instant leaves it as it was or as it
was to be. Where the swap is refused (another system, a file system without it), the old
folder is renamed aside (``.<name>.old-XXXX``) and the new one renamed in: killed between
the two renames, the folder is absent with the old one aside, which the next run of either
command, or `export --existing` reading it, puts back before anything else
(:func:`recover_folder`). Every run first deletes what killed runs left beside the folder.
Two commands writing one folder at once are not supported: each would take the other's
new folder for a leftover.

A folder generated whole (:func:`replaced_folder`) is only ever replaced when a run of the
project made it (it holds the command's marker file) or it is empty: any other folder is
refused, never wiped. A folder a command rewrites files of (:func:`updated_folder`) starts
as a copy of the folder, so what the command does not rewrite stays.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import glob
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from leaderboard.core.fileio import writing_into

PARTIAL = "partial"
OLD = "old"

# renameat2(2)'s flag that swaps two paths in one step, and its "relative to the current
# folder" descriptor (Linux's values).
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
# What renameat2 answers where it cannot swap: a kernel without the call or a sandbox that
# filters it (ENOSYS, EPERM), a file system without the flag (EINVAL, EOPNOTSUPP). Where it
# was a real EPERM, the renames that replace the swap fail with it in turn.
_CANNOT_EXCHANGE = frozenset({errno.ENOSYS, errno.EPERM, errno.EINVAL, errno.ENOTSUP,
                              errno.EOPNOTSUPP})


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    """libc's ``renameat2``, or None where there is none (glibc before 2.28, another
    system: macOS's libc has no such function)."""
    if sys.platform != "linux":
        return None
    try:
        call = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    call.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                     ctypes.c_uint)
    call.restype = ctypes.c_int
    return call


def exchange(a: Path, b: Path) -> bool:
    """Swap the two existing paths ``a`` and ``b`` in one step: at no instant is either
    missing. False, with nothing changed, where this system or file system cannot;
    another failure raises :class:`OSError`."""
    call = _renameat2()
    if call is None:
        return False
    if call(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in _CANNOT_EXCHANGE:
        return False
    raise OSError(err, os.strerror(err), str(a), None, str(b))


def _siblings(out_dir: Path, kind: str) -> list[Path]:
    """What runs left beside ``out_dir`` of one kind, newest first."""
    pattern = str(out_dir.parent / f".{glob.escape(out_dir.name)}.{kind}-*")
    found = []
    for name in glob.glob(pattern, include_hidden=True):
        try:
            found.append((os.lstat(name).st_mtime_ns, Path(name)))
        except FileNotFoundError:  # removed meanwhile
            continue
    return [path for _, path in sorted(found, reverse=True)]


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def remove_tree(path: Path) -> None:
    """Remove the folder ``path`` and all it holds, never following a link, as
    :func:`shutil.rmtree` does; a file that cannot be removed is named by its whole path
    (rmtree removes each by its name within its folder, and the system's error names it
    so: "[Errno 30] Read-only file system: 't3x.md'")."""
    def named(_func: object, failed: str, exc: object) -> None:
        error = exc[1] if isinstance(exc, tuple) else exc  # onerror's exc_info, onexc's
        if isinstance(error, OSError):
            error.filename = failed
        raise error  # type: ignore[misc]

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=named)
    else:  # onexc is 3.12's; onerror is deprecated there
        shutil.rmtree(path, onerror=named)


def recover_folder(out_dir: Path) -> bool:
    """Undo what a killed run left beside ``out_dir``: put the old folder back when the
    run was killed between its two renames (``out_dir`` absent, the old one aside: only
    where the folders could not be swapped), then delete every unfinished new folder and
    every old one. Returns whether it put one back."""
    restored = False
    olds = _siblings(out_dir, OLD)
    if olds and not os.path.lexists(out_dir) and olds[0].is_dir():
        os.replace(olds[0], out_dir)
        restored = True
    for leftover in _siblings(out_dir, OLD) + _siblings(out_dir, PARTIAL):
        _remove(leftover)
    return restored


def check_replaceable(out_dir: Path, marker: str, made_by: str,
                      error: Callable[[str], Exception]) -> None:
    """Raise ``error(message)`` unless ``out_dir`` is absent, an empty folder, or one
    ``made_by`` made (it holds ``marker``): a folder that may be replaced. A command
    asks before its work, so that a wrong ``--out`` is said at once."""
    if not os.path.lexists(out_dir):
        return
    if out_dir.is_symlink():  # replaced, the link would become a folder of its own
        raise error(f"{out_dir}: a symbolic link; give the folder it points to "
                    f"({os.path.realpath(out_dir)})")
    if not out_dir.is_dir():
        raise error(f"{out_dir}: exists and is not a folder")
    if any(out_dir.iterdir()) and not (out_dir / marker).is_file():
        raise error(f"{out_dir}: not empty and not made by {made_by}; choose an empty or "
                    "new folder")


def check_writable(out_dir: Path, option: str, error: Callable[[str], Exception]) -> None:
    """Raise ``error(message)`` unless a folder can be made beside ``out_dir``, where
    :func:`replaced_folder` stages its next contents: a command asks before its work, so
    that a read-only checkout is told to give another folder (``option``, ``--out``) at
    once, not ``[Errno 30] Read-only file system: 'site'`` once the work is done. The
    trial folder is named as a staged one, for :func:`recover_folder` to remove should
    the command be killed before it does."""
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        os.rmdir(tempfile.mkdtemp(prefix=f".{out_dir.name}.{PARTIAL}-", dir=out_dir.parent))
    except OSError as exc:
        raise error(f"{out_dir}: cannot be written ({exc.strerror or exc}: "
                    f"{exc.filename or out_dir.parent}); give {option} a folder you can "
                    "write") from None


@contextmanager
def _staged(out_dir: Path) -> Iterator[Path]:
    """A new folder beside ``out_dir`` that takes its place (:func:`_put_in_place`) when
    the block ends without an error; on any error, an interrupt included, it is deleted
    and ``out_dir`` is as it was."""
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    new = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.{PARTIAL}-", dir=out_dir.parent))
    try:
        new.chmod(0o755)  # published as it is: mkdtemp makes it its owner's alone
        with writing_into(out_dir):  # a full disk names the folder given, not its stand-in
            yield new
        old = _put_in_place(new, out_dir)
    except BaseException:
        _remove(new)
        raise
    if old is not None:
        _remove(old)


@contextmanager
def replaced_folder(out_dir: Path, marker: str, made_by: str,
                    error: Callable[[str], Exception]) -> Iterator[Path]:
    """A new, empty folder for the next contents of ``out_dir``; when the block ends
    without an error, ``marker`` (naming ``made_by``) is written into it and it takes
    ``out_dir``'s place. On any error, an interrupt included, it is deleted and
    ``out_dir`` is as it was. A folder that may not be replaced
    (:func:`check_replaceable`) raises ``error(message)`` before anything is written."""
    recover_folder(out_dir)
    check_replaceable(out_dir, marker, made_by, error)
    with _staged(out_dir) as new:
        yield new
        (new / marker).write_text(f"made by {made_by}; replaced by its next run\n",
                                  encoding="utf-8")


def _link_or_copy(src: str, dst: str) -> None:
    """``dst``: the file ``src`` itself (a hard link), or a copy where links are refused."""
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP):
            raise
        shutil.copy2(src, dst, follow_symlinks=False)


@contextmanager
def updated_folder(out_dir: Path, error: Callable[[str], Exception]) -> Iterator[Path]:
    """A copy of the folder ``out_dir`` (made if absent) for a command to rewrite files
    of; when the block ends without an error, it takes ``out_dir``'s place as one, as
    :func:`replaced_folder`'s new folder does, so that a command killed at any instant
    leaves every file it rewrites old or every one new, never a mix. On any error, an
    interrupt included, it is deleted and ``out_dir`` is as it was.

    The copy's files are ``out_dir``'s own (hard links: no cost): a file is rewritten by
    renaming a new one over it (:mod:`leaderboard.core.fileio`'s atomic writes), never in
    place. ``out_dir`` reached through a symbolic link stays so: the folder it points to
    is updated. Anything else than a folder raises ``error(message)`` before anything is
    written."""
    out_dir = Path(os.path.realpath(out_dir))
    recover_folder(out_dir)
    if os.path.lexists(out_dir) and not out_dir.is_dir():
        raise error(f"{out_dir}: exists and is not a folder")
    with _staged(out_dir) as new:
        if out_dir.is_dir():
            shutil.copytree(out_dir, new, symlinks=True, copy_function=_link_or_copy,
                            dirs_exist_ok=True)
        yield new


def _put_in_place(new: Path, out_dir: Path) -> Path | None:
    """Make the complete folder ``new`` ``out_dir``; returns where the old ``out_dir`` now
    is, to be deleted (None: there was none)."""
    if not os.path.lexists(out_dir):
        os.replace(new, out_dir)
        return None
    if exchange(new, out_dir):
        return new  # the old folder, under the new one's hidden name
    old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.{OLD}-", dir=out_dir.parent))
    os.replace(out_dir, old)  # over the empty folder just made
    try:
        os.replace(new, out_dir)
    except BaseException:
        os.replace(old, out_dir)
        raise
    return old
