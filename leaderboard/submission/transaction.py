"""Changing a submission folder as one transaction: afterwards it is as it was, or as
intended, whatever stops the command (SIGKILL at any instant, a full disk, an error).

Every command that changes a folder ``submissions/<id>/`` (`score`, `runs add | push |
pull`, publishing, `baselines run`) does it through :func:`change_folder`::

    with change_folder(folder) as change:
        ...write the new state into change.folder...
        change.commit()

1. **The new state is written beside the old.** ``change.folder`` is a copy of the folder
   in ``.<id>.change/new/<id>/`` next to it, made of hard links (a copy where links are
   refused), so it costs no space for the files that stay. Commands write there with
   their usual code; every writer of the project replaces a file by renaming a new one
   over it, never rewriting it in place, so the live folder's files are never touched.
   A command that fails, or leaves without :meth:`FolderChange.commit`, discards it.
2. **The switch is journaled.** :meth:`FolderChange.commit` compares the copy with the
   folder, flushes every new file to disk, and writes the list of renames and removals
   to ``.<id>.change/journal.json`` (flushed, then renamed into place: the commit
   point). Only then is the live folder changed, one rename or removal at a time; the
   change folder is removed last.
3. **The next command finishes or undoes it.** :func:`recover`, run before a command
   touches a folder (:func:`change_folder`, and every reader of a folder's inputs), redoes
   the journal's steps when it exists (each step can be done twice) and otherwise removes
   the change folder, whose copy never reached the live folder.

Nothing is removed from the live folder before the new state is on disk. Paths are
resolved once, when the change begins; inside the folder nothing is followed: a folder
holding a symbolic link, a FIFO or a device is refused before anything is written, and the
switch opens each folder on its way with ``O_NOFOLLOW``. A change may instead name the
places such an entry is allowed to be ``removable`` (`score`: ``explain/``, whose strays
it removes): there the copy gets a hard link of the entry itself (of the link, not what it
names; a FIFO is never opened), the command removes it from the copy, and the switch
unlinks it from the folder with the rest; a new state still holding one is refused, so
nothing but files and folders is ever put into a folder. The live folder itself is locked
(``flock``) for the whole change, so two commands never change one submission at once and
a live change is never taken for a killed one. A change of a folder that is itself the copy
of a change under way in this process (``runs add`` scores its copy) joins that change.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import file_kind
from leaderboard.core.refusals import newer_version
from leaderboard.submission.layout import NO_LINKS, NOT_PLAIN

JOURNAL_FORMAT = "followboard-change/1"
JOURNAL = "journal.json"
NEW = "new"
# Written when the change created the submission folder, so an undo removes it again.
CREATED = "created"
# Files compared byte for byte when a command rewrote them: an identical file is left as
# it is (`score` of an unchanged submission changes nothing on disk).
_COMPARE_CHUNK = 1 << 20
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

# The copies of the changes under way in this process, by path.
_ACTIVE: dict[Path, FolderChange] = {}


class ChangeError(FollowBoardError, ValueError):
    """A change that could not be made: ``where`` (a folder or a file in it) and
    ``message``, which says what state the folder is in."""

    def __init__(self, where: object, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = str(where)
        self.message = message


def change_dir(live: Path) -> Path:
    """Where a change of the folder ``live`` keeps its copy and journal."""
    return live.parent / f".{live.name}.change"


def describe_os_error(exc: OSError) -> str:
    where = f" ({exc.filename})" if exc.filename else ""
    return f"{exc.strerror or exc}{where}"


# --------------------------------------------------------------------------- the folder

@dataclass(frozen=True)
class _Entry:
    kind: str        # "file" or "dir"
    ino: int = 0
    dev: int = 0
    size: int = 0
    mtime_ns: int = 0


def _removable(rel: str, removable: tuple[str, ...]) -> bool:
    return any(rel == top or rel.startswith(f"{top}/") for top in removable)


def _scan(root: Path, display: str, removable: tuple[str, ...] = ()) -> dict[str, _Entry]:
    """Every file and folder under ``root`` by relative path, nothing followed; anything
    else (a link, a FIFO, a socket, a device) is refused, naming it, unless it lies at or
    under one of the paths ``removable`` (an ``other`` entry, never followed nor opened)."""
    out: dict[str, _Entry] = {}
    pending = [("", root)]
    while pending:
        prefix, folder = pending.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                rel = prefix + entry.name
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    out[rel] = _Entry("dir")
                    pending.append((rel + "/", Path(entry.path)))
                elif stat.S_ISREG(st.st_mode):
                    out[rel] = _Entry("file", st.st_ino, st.st_dev, st.st_size,
                                      st.st_mtime_ns)
                elif _removable(rel, removable):
                    out[rel] = _Entry("other", st.st_ino, st.st_dev, st.st_size,
                                      st.st_mtime_ns)
                elif stat.S_ISLNK(st.st_mode):
                    raise ChangeError(f"{display}/{rel}", f"{NO_LINKS}; commit the file itself "
                                      "(nothing was changed)")
                else:
                    kind = file_kind(Path(entry.path))
                    raise ChangeError(f"{display}/{rel}", f"not a regular file ({kind}): "
                                      f"{NOT_PLAIN} (nothing was changed)")
    return out


def _mirror(live: Path, copy: Path, entries: dict[str, _Entry]) -> None:
    """``copy``: the folder ``live`` as ``entries`` lists it, files hard-linked (copied
    where the file system will not link them); a link, FIFO or device (``other``)
    hard-linked as itself, never followed, opened or copied: where it cannot be linked,
    the OSError goes up and :func:`change_folder` refuses the change (a ChangeError,
    nothing changed)."""
    copy.mkdir(parents=True)
    for rel, entry in sorted(entries.items()):
        target = copy / rel
        if entry.kind == "dir":
            target.mkdir()
            continue
        if entry.kind == "other":
            os.link(live / rel, target, follow_symlinks=False)
            continue
        try:
            os.link(live / rel, target, follow_symlinks=False)
        except OSError as exc:
            if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP):
                raise
            shutil.copy2(live / rel, target, follow_symlinks=False)


def _same_bytes(a: Path, b: Path) -> bool:
    with a.open("rb") as fa, b.open("rb") as fb:
        while True:
            block = fa.read(_COMPARE_CHUNK)
            if block != fb.read(_COMPARE_CHUNK):
                return False
            if not block:
                return True


def links_in(folder: Path) -> list[str]:
    """Every symbolic link under ``folder``, by relative path (none is followed)."""
    out = []
    pending = [("", folder)]
    while pending:
        prefix, current = pending.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            if entry.is_symlink():
                out.append(prefix + entry.name)
            elif entry.is_dir(follow_symlinks=False):
                pending.append((prefix + entry.name + "/", Path(entry.path)))
    return sorted(out)


def plain_file(folder: Path, rel: str) -> Path | None:
    """``folder/rel`` when it is a regular file reached without following a link (None:
    absent, not a file, or a link on the way: a submission's file is never read through
    a link into another folder)."""
    path = folder
    for part in rel.split("/"):
        path = path / part
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            return None
        if stat.S_ISLNK(mode):
            return None
    return path if stat.S_ISREG(mode) else None


# --------------------------------------------------------------------------- the switch

def _open_dir(root_fd: int, parts: list[str], create: bool = False) -> int:
    """A descriptor of the folder ``parts`` below ``root_fd``, each step opened without
    following a link (a link on the way is an error)."""
    fd = os.dup(root_fd)
    try:
        for part in parts:
            if create:
                try:
                    os.mkdir(part, dir_fd=fd)
                except FileExistsError:
                    pass
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _step(live_fd: int, copy_fd: int, op: str, rel: str) -> None:
    """One step of a journal, which may already have been done (a killed switch's)."""
    *parents, name = rel.split("/")
    if op == "mkdir":
        fd = _open_dir(live_fd, parents, create=True)
        try:
            try:
                os.mkdir(name, dir_fd=fd)
            except FileExistsError:
                if not stat.S_ISDIR(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
                    raise
        finally:
            os.close(fd)
        return
    try:
        fd = _open_dir(live_fd, parents, create=op == "put")
    except FileNotFoundError:
        return  # delete, rmdir: the folder is gone already
    try:
        if op == "put":
            src = _open_dir(copy_fd, parents)
            try:
                os.replace(name, name, src_dir_fd=src, dst_dir_fd=fd)
            except FileNotFoundError:
                pass  # moved already
            finally:
                os.close(src)
        elif op == "delete":
            try:
                os.unlink(name, dir_fd=fd)
            except (FileNotFoundError, IsADirectoryError):
                pass  # deleted, and a later mkdir of this journal's made a folder there
        elif op == "rmdir":
            try:
                os.rmdir(name, dir_fd=fd)
            except FileNotFoundError:
                pass
            except OSError as exc:
                if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
        else:
            raise ChangeError(op, "not a step of a change journal")
    finally:
        os.close(fd)


def _fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _check_rel(rel: object) -> str:
    if not isinstance(rel, str) or not rel or rel.startswith("/") or any(
            part in ("", ".", "..") for part in rel.split("/")):
        raise ChangeError(repr(rel), "a change journal names this path, which is not inside "
                                     "its folder")
    return rel


def _apply(live: Path, copy: Path, ops: list[tuple[str, str]]) -> None:
    live_fd = os.open(live, _DIR_FLAGS)
    try:
        copy_fd = os.open(copy, _DIR_FLAGS)
        try:
            for op, rel in ops:
                _step(live_fd, copy_fd, op, _check_rel(rel))
            # The renames and removals on disk before the journal goes.
            touched = {rel.rpartition("/")[0] for _, rel in ops}
            for folder in sorted(touched):
                try:
                    fd = _open_dir(live_fd, folder.split("/") if folder else [])
                except FileNotFoundError:
                    continue  # removed itself; its parent is flushed
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
        finally:
            os.close(copy_fd)
    finally:
        os.close(live_fd)


def _discard(work: Path) -> None:
    """Remove a change folder: its journal first (it stops being a change to finish), then
    the rest (never following a link: shutil.rmtree removes links, not their targets)."""
    try:
        (work / JOURNAL).unlink()
    except FileNotFoundError:
        pass
    shutil.rmtree(work, ignore_errors=True)


def _finish_or_undo(live: Path, work: Path) -> str:
    """What a change left at ``work`` becomes: the journal's steps done, or the change
    folder removed. Returns which."""
    journal = work / JOURNAL
    if journal.is_file():
        newer = None
        try:
            doc = json.loads(journal.read_text(encoding="utf-8"))
            found = doc.get("format") if isinstance(doc, dict) else None
            # A newer version's steps may mean what this version cannot know.
            newer = newer_version("format", found, [JOURNAL_FORMAT])
            if found != JOURNAL_FORMAT:
                raise ValueError(f"not of format {JOURNAL_FORMAT}")
            ops = [(str(op), _check_rel(rel)) for op, rel in doc["ops"]]
        except (ValueError, KeyError, TypeError) as exc:
            if newer is not None:
                raise ChangeError(journal, f"{newer}, which finishes the change a stopped "
                                           f"command left; until then {live} may be half "
                                           f"changed") from None
            raise ChangeError(journal, f"a change journal that cannot be read ({exc}); "
                                       f"{live} may be half changed: look at it, then "
                                       f"remove {work}") from None
        try:
            _apply(live, work / NEW / live.name, ops)
        except OSError as exc:
            raise ChangeError(live, f"a change a stopped command left could not be finished "
                                    f"({describe_os_error(exc)}); the folder may be half "
                                    f"changed: {work} holds the journal and the new files")\
                from None
        _discard(work)
        return "finished"
    created = (work / CREATED).is_file()
    _discard(work)
    if created:
        try:
            live.rmdir()
        except OSError:
            pass  # not empty, or gone
    return "undone"


class _Lock:
    """An exclusive ``flock`` on the submission folder, held for a change."""

    def __init__(self, live: Path, *, wait: bool) -> None:
        self.fd = os.open(live, _DIR_FLAGS)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(self.fd)
            raise

    def release(self) -> None:
        os.close(self.fd)


def recover(folder: Path) -> str | None:
    """Finish (journal written) or undo (no journal) a change of ``folder`` that a killed
    command left; None when there is none, or when a command is changing the folder now
    (this process's own change included). Returns "finished" or "undone"."""
    live = Path(folder).resolve()
    work = change_dir(live)
    if not os.path.lexists(work) or live in _ACTIVE:
        return None
    if not live.is_dir():
        _discard(work)  # a change that would have created the folder, killed early
        return "undone"
    try:
        lock = _Lock(live, wait=False)
    except BlockingIOError:
        return None
    try:
        if not os.path.lexists(work):
            return None
        return _finish_or_undo(live, work)
    finally:
        lock.release()


# --------------------------------------------------------------------------- a change

@dataclass
class FolderChange:
    """A change of the submission folder ``live``: write the new state into ``folder``,
    then :meth:`commit`. ``given`` is the folder as the command was given it, which its
    messages name (``live`` is resolved); a change that joins another's (its ``folder``
    is that copy) has the other's ``live`` and ``given``: the copy is no folder of the
    user's, nor does it sit where theirs does (outside a project, the run store is looked
    up from the folder: :func:`leaderboard.store.locations.configured_store`)."""

    live: Path
    folder: Path
    joined: bool = False
    committed: bool = False
    _before: dict[str, _Entry] = field(default_factory=dict)
    given: Path | None = None
    # Where the folder may hold a link, FIFO or device, which the change must remove
    # (:func:`change_folder`).
    removable: tuple[str, ...] = ()

    @property
    def shown(self) -> Path:
        """The folder as its command's messages name it."""
        return self.given if self.given is not None else self.live

    @property
    def id(self) -> str:
        return self.live.name

    def outside(self, path: Path, given: Path) -> Path:
        """``path`` (maybe inside the copy) as the same file of the folder ``given``."""
        try:
            return given / path.relative_to(self.folder)
        except ValueError:
            return path

    def _plan(self) -> list[tuple[str, str]]:
        after = _scan(self.folder, self.id)  # nothing but files and folders is put
        now = _scan(self.live, self.id, self.removable)
        if now != self._before:
            moved = min(rel for rel in set(now) | set(self._before)
                        if now.get(rel) != self._before.get(rel))
            raise ChangeError(f"{self.id}/{moved}", "changed while this command ran; "
                              "nothing was changed: run the command again")
        puts = []
        for rel, entry in sorted(after.items()):
            if entry.kind != "file":
                continue
            old = self._before.get(rel)
            if old is not None and old.kind == "file" and (
                    (old.ino, old.dev) == (entry.ino, entry.dev) or (
                    old.size == entry.size and _same_bytes(self.live / rel, self.folder / rel))):
                continue
            puts.append(rel)
        deletes = [rel for rel, e in self._before.items() if e.kind in ("file", "other")
                   and (rel not in after or after[rel].kind != "file")]
        old_dirs = {rel for rel, e in self._before.items() if e.kind == "dir"}
        new_dirs = {rel for rel, e in after.items() if e.kind == "dir"}
        depth = lambda rel: rel.count("/")  # noqa: E731
        return ([("delete", r) for r in sorted(deletes)]
                + [("rmdir", r) for r in sorted(old_dirs - new_dirs, key=depth, reverse=True)]
                + [("mkdir", r) for r in sorted(new_dirs - old_dirs, key=depth)]
                + [("put", r) for r in puts])

    def commit(self) -> list[str]:
        """Make the folder what ``folder`` holds: returns the paths put or removed (empty
        when nothing differs). Raises :class:`ChangeError` saying what state the folder is
        in when it cannot."""
        if self.joined or self.committed:
            return []
        ops = self._plan()
        work = change_dir(self.live)
        if ops:
            puts = [rel for op, rel in ops if op == "put"]
            for rel in puts:
                _fsync_path(self.folder / rel)
            for folder in sorted({str(Path(rel).parent) for rel in puts}):
                _fsync_path(self.folder / folder)
            text = json.dumps({"format": JOURNAL_FORMAT, "folder": str(self.live),
                               "ops": ops}, indent=1) + "\n"
            pending = work / (JOURNAL + ".tmp")
            fd = os.open(pending, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
            try:
                os.write(fd, text.encode("utf-8"))
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(pending, work / JOURNAL)
            _fsync_path(work)
        self.committed = True  # from here on, the change is the new state
        try:
            _apply(self.live, self.folder, ops)
        except OSError as exc:
            raise ChangeError(self.live, f"the change is recorded but not finished "
                              f"({describe_os_error(exc)}); the next leaderboard command "
                              "on this submission finishes it") from None
        _discard(work)
        return [rel for op, rel in ops if op in ("put", "delete")]


def creation_problem(folder: Path) -> str | None:
    """Why no submission folder can be made at ``folder`` (None: it is a folder, or can
    be made): the nearest of it and the folders above it that exists is no folder."""
    for path in (folder, *folder.parents):
        if os.path.lexists(path):
            return None if path.is_dir() else f"{path} is {file_kind(path)}, not a folder"
    return None


@contextmanager
def change_folder(folder: Path, *, create: bool = False,
                  removable: tuple[str, ...] = ()) -> Iterator[FolderChange]:
    """A change of the submission folder ``folder`` (see the module's description).

    ``create``: the folder may not exist yet (`baselines run` of a new id); an undone
    change removes it again. ``removable``: paths in the folder at or under which a link,
    FIFO or device is not refused but mirrored as itself into the copy, for the command
    to remove there (a commit that still finds one refuses it). Raises
    :class:`ChangeError` when the folder holds anything but files and folders (elsewhere),
    is being changed by another command, or cannot be changed (a full disk: the folder is
    then as it was)."""
    live = Path(folder).resolve()  # once: the folder itself may be reached through a link
    if live in _ACTIVE:  # the copy of a change under way here: join it
        outer = _ACTIVE[live]
        yield FolderChange(outer.live, live, joined=True, given=outer.shown)
        return
    if os.path.lexists(live) and not live.is_dir():
        raise ChangeError(folder, "not a folder")
    # A change a killed command left, first: undoing one that created the folder removes
    # it, and this change then creates it (it read the folder as there, then the undo
    # removed it: "No such file or directory", the next `baselines run` of the id lost).
    recover(live)
    created = not live.exists()
    if created and not create:
        raise ChangeError(folder, "not a submission folder")
    if created and (problem := creation_problem(Path(folder))):
        raise ChangeError(folder, f"cannot be made: {problem}")
    busy = ChangeError(folder, "another leaderboard command is changing this submission; "
                               "run this one when it has finished")
    work = change_dir(live)
    if created:
        # The mark that the change made the folder comes before the folder: killed between
        # the two, it left an empty folder that no undo removed.
        live.parent.mkdir(parents=True, exist_ok=True)
        try:
            work.mkdir()
        except FileExistsError:
            raise busy from None
        try:
            (work / CREATED).touch()
            live.mkdir(exist_ok=True)
        except OSError as exc:
            _discard(work)
            raise ChangeError(folder, f"nothing was changed ({describe_os_error(exc)})") \
                from None
    try:
        lock = _Lock(live, wait=False)
    except BlockingIOError:
        if created:  # another command made the folder meanwhile, and holds it
            _discard(work)
        raise busy from None
    change: FolderChange | None = None
    try:
        if not created and os.path.lexists(work):
            _finish_or_undo(live, work)
        before = _scan(live, live.name, removable)
        try:
            if not created:
                work.mkdir()
            copy = work / NEW / live.name
            _mirror(live, copy, before)
        except OSError as exc:
            _discard(work)
            raise ChangeError(folder, f"nothing was changed ({describe_os_error(exc)})") \
                from None
        change = FolderChange(live, copy, _before=before, given=Path(folder),
                              removable=removable)
        _ACTIVE[copy] = change
        try:
            yield change
        except OSError as exc:
            if change.committed:
                raise
            raise ChangeError(folder, f"nothing was changed ({describe_os_error(exc)})") \
                from None
    finally:
        if change is not None:
            _ACTIVE.pop(change.folder, None)
        # Nothing to keep: a change left uncommitted, or a folder this one made and could
        # not copy (a journal a killed command left, which could not be finished, stays).
        if (change is None and created) or (change is not None and not change.committed):
            _discard(work)
            if created:
                try:
                    live.rmdir()
                except OSError:
                    pass
        lock.release()
