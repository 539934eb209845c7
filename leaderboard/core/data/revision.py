"""Which upstream revision a data source's folder holds: what `data status` says and what
results.json records for each task scored from it.

`leaderboard data pull` writes ``<data_dir>/<local_dir>/.manifest.json`` last, once every
file is in place and verified against the upstream revision it names
(:mod:`leaderboard.app.datapull.pull`). Its repository and revision are what the folder
holds; the registry pins one (:class:`leaderboard.core.tasks.DataSource`), and a folder
pulled before the pin moved holds another. A folder without a manifest (copied in by
hand, or a mirror such as the development machines' shared data folder) holds files
nothing has checked against any revision: it is read all the same, and what is recorded
says so; and so does a task whose reader reads a file the manifest does not list (added
by hand beside the pulled ones), which the manifest cannot vouch for either.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from leaderboard.core.errors import FollowBoardError
from leaderboard.core.tasks import DataSource

MANIFEST_NAME = ".manifest.json"
MANIFEST_FORMAT = 1
# Set in a manifest to the repository@revision a pull is fetching, once it is about to
# change the files of a pull of another revision (the manifest's own): until the pull's
# own manifest replaces it, the folder may hold files of both, and no revision is
# claimed for it. Its file list stays what the next pull removes of the earlier ones.
PULLING = "pulling"


class DataRevisionError(FollowBoardError):
    """Data of another revision than the registry pins, where only the pinned one may be
    scored (CI: what it scores is what the board shows)."""


def _manifest(local_root: Path, *, stopped: bool = False
              ) -> tuple[dict[str, Any] | None, str | None]:
    """The manifest `data pull` wrote in a source's folder, or None with why it is of no
    use here: (None, None) when there is none; (None, reason) when there is one this
    version cannot read (another format, such as a newer version's, or not a manifest),
    or, unless ``stopped``, one of a pull stopped before it finished (:data:`PULLING`)."""
    path = local_root / MANIFEST_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except (OSError, ValueError) as exc:  # a folder, no permission, not UTF-8
        reason = getattr(exc, "strerror", None) or exc
        return None, f"its {MANIFEST_NAME} cannot be read ({reason})"
    try:
        obj = json.loads(text)
    except ValueError:
        return None, f"its {MANIFEST_NAME} is not JSON"
    if not isinstance(obj, dict):
        return None, f"its {MANIFEST_NAME} is not a manifest (not a JSON object)"
    found = obj.get("format")
    if found != MANIFEST_FORMAT:
        newer = (isinstance(found, int) and not isinstance(found, bool)
                 and found > MANIFEST_FORMAT)
        return None, (f"its {MANIFEST_NAME} is of format {found!r}, "
                      + ("which a newer version of the leaderboard writes" if newer else
                         "which no version of the leaderboard writes")
                      + f"; this one reads format {MANIFEST_FORMAT}")
    if not isinstance(obj.get("repo"), str) or not isinstance(obj.get("revision"), str):
        return None, f"its {MANIFEST_NAME} names no repository and revision"
    files = obj.get("files")
    if not isinstance(files, dict) or not all(isinstance(e, dict) for e in files.values()):
        # Damaged or edited by hand: it vouches for no file (every reader of the list,
        # `data status --verify` and the pull's reuse of files, takes it for entries).
        return None, (f"its {MANIFEST_NAME} lists no files (its \"files\" is not an "
                      "object of entries)")
    if PULLING in obj and not stopped:
        return None, (f"a `leaderboard data pull` of {obj[PULLING]} into it was stopped "
                      "before it finished")
    return obj, None


def read_manifest(local_root: Path, *, stopped: bool = False) -> dict[str, Any] | None:
    """The manifest `data pull` wrote in a source's folder; None when there is none, or
    none this version can read (then nothing it can check vouches for the files:
    :func:`data_revision` says why). ``stopped``: also the manifest of a pull stopped
    before it finished (:data:`PULLING`), whose files the next pull removes."""
    return _manifest(local_root, stopped=stopped)[0]


def unlisted_files(folder: Path, listed: Collection[str], read: Iterable[Path]) -> list[Path]:
    """Of the files ``read`` (what a reader reads, ``DataFiles.read``), those that are not
    among ``listed``, the paths in ``folder`` its manifest lists: a file put in a pulled
    folder by hand, or left there by another copy, which the reader would mix into the
    pulled revision's data while the manifest vouched for it. Only listed, never hashed."""
    unlisted: dict[Path, None] = {}
    for path in read:
        try:
            rel = path.relative_to(folder).as_posix()
        except ValueError:
            rel = None
        if rel not in listed:
            unlisted[path] = None
    return list(unlisted)


def unlisted_text(folder: Path, unlisted: list[Path] | tuple[Path, ...], *,
                  full: bool = False) -> str:
    """'<file> is read with the pulled files and not listed in .manifest.json' (the first
    of ``unlisted`` and how many more), the file as a path in ``folder`` or, ``full``, as
    it is."""
    first = unlisted[0] if full else _in_folder(folder, unlisted[0])
    more = len(unlisted) - 1
    return (f"{first} is read" if not more else f"{first} and {more} more are read") + (
        f" with the pulled files and not listed in {MANIFEST_NAME}")


def _in_folder(folder: Path, path: Path) -> str:
    try:
        return path.relative_to(folder).as_posix()
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class DataRevision:
    """The revision of ``source`` that its folder under a data directory holds."""

    source: DataSource
    folder: Path
    # (repository, revision) the folder's manifest names; None: no (readable) manifest.
    pulled: tuple[str, str] | None
    # Why the folder's manifest cannot be read here (another format, such as a newer
    # version's): its revision is then unknown, not taken for the pinned one.
    unreadable: str | None = None
    # The paths in the folder its manifest lists (empty without a readable manifest).
    listed: frozenset[str] = frozenset()
    # Files a task's reader reads that the manifest does not list (:meth:`reading`).
    unlisted: tuple[Path, ...] = ()

    @property
    def other(self) -> bool:
        """Whether the folder was pulled at another repository or revision than the pin,
        or at one its unreadable manifest does not tell."""
        return self.unreadable is not None or (
            self.pulled is not None and self.pulled != (self.source.repo,
                                                        self.source.revision))

    def reading(self, read: Iterable[Path]) -> DataRevision:
        """This revision as the data of a task whose reader reads ``read``, with those of
        them that the manifest does not list; without a readable manifest there is no
        list to hold them to (what is recorded already says nothing was verified)."""
        if self.pulled is None:
            return self
        return replace(self, unlisted=tuple(unlisted_files(self.folder, self.listed, read)))

    def recorded(self) -> str:
        """What results.json records as the data a task was scored on."""
        if self.unreadable is not None:
            return f"unknown ({self.unreadable})"
        if self.pulled is None:
            return (f"{self.source.pinned} (the pinned revision; files not verified: no "
                    f"{MANIFEST_NAME} from `leaderboard data pull`)")
        if self.unlisted:
            return (f"{'@'.join(self.pulled)} (files not verified: "
                    f"{unlisted_text(self.folder, self.unlisted)})")
        return "@".join(self.pulled)

    @property
    def verified(self) -> bool:
        """Whether what is recorded (:meth:`recorded`) is a revision a pull vouches for,
        with no note: the folder's manifest names it and lists every file read."""
        return self.pulled is not None and self.unreadable is None and not self.unlisted

    def mismatch(self) -> str | None:
        """'pulled A, but the registry pins B' for a folder of another revision (or of one
        its manifest does not tell), else None."""
        if self.unreadable is not None:
            return (f"{self.unreadable}, so which revision it holds is unknown; the registry "
                    f"pins {self.source.pinned}")
        if not self.other:
            return None
        return f"pulled {'@'.join(self.pulled or ())}, but the registry pins {self.source.pinned}"


def recorded_revision(recorded: str) -> str | None:
    """The repository@revision that what results.json records of a task's data
    (:meth:`DataRevision.recorded`) names, with or without its note that the files were
    not verified; None for data of an unknown revision."""
    head = recorded.split(" ", 1)[0]
    return head if "@" in head and not recorded.startswith("unknown (") else None


def recorded_verified(recorded: str) -> bool:
    """Whether what results.json records of a task's data (:meth:`DataRevision.recorded`)
    is a revision alone, which a pull verified: no note that the files were not verified,
    nor an unknown revision. CI scores on pulled data, so it records no such note."""
    return recorded_revision(recorded) == recorded


def recorded_note(recorded: str) -> str:
    """What results.json says of a task's data beside its revision (:meth:`DataRevision.
    recorded`), as a message quotes it: the note without its parentheses ('the pinned
    revision; files not verified: ...'), or all of it for an unknown revision; empty for
    a revision alone."""
    head = recorded_revision(recorded)
    if head is None:
        return recorded
    note = recorded[len(head):].strip()
    return note[1:-1] if note.startswith("(") and note.endswith(")") else note


def off_pin(recorded: str, source: DataSource) -> bool:
    """Whether scores recorded as computed on ``recorded`` (:meth:`DataRevision.recorded`)
    are on another revision of ``source`` than the registry pins now (or on one nothing
    tells): after the pin moves, such scores are not on the board's data."""
    return recorded_revision(recorded) != source.pinned


def data_revision(source: DataSource, data_dir: Path) -> DataRevision:
    """What revision of ``source`` the data directory ``data_dir`` holds."""
    folder = Path(data_dir) / source.local_dir
    manifest, unreadable = _manifest(folder)
    if manifest is None:
        return DataRevision(source, folder, None, unreadable)
    return DataRevision(source, folder, (manifest["repo"], manifest["revision"]),
                        listed=frozenset(manifest["files"]))
