"""Which upstream revision a data source's folder holds: what `data status` says and what
results.json records for each task scored from it.

`leaderboard data pull` writes ``<data_dir>/<local_dir>/.manifest.json`` last, once every
file is in place and verified against the upstream revision it names
(:mod:`leaderboard.app.datapull.pull`). Its repository and revision are what the folder
holds; the registry pins one (:class:`leaderboard.core.tasks.DataSource`), and a folder
pulled before the pin moved holds another. A folder without a manifest (copied in by
hand, or a mirror such as the development machines' shared data folder) holds files
nothing has checked against any revision: it is read all the same, and what is recorded
says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leaderboard.core.errors import FollowBoardError
from leaderboard.core.tasks import DataSource

MANIFEST_NAME = ".manifest.json"
MANIFEST_FORMAT = 1


class DataRevisionError(FollowBoardError):
    """Data of another revision than the registry pins, where only the pinned one may be
    scored (CI: what it scores is what the board shows)."""


def _manifest(local_root: Path) -> tuple[dict[str, Any] | None, str | None]:
    """The manifest `data pull` wrote in a source's folder, or None with why it is of no
    use here: (None, None) when there is none; (None, reason) when there is one this
    version cannot read (another format, such as a newer version's, or not a manifest)."""
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
    return obj, None


def read_manifest(local_root: Path) -> dict[str, Any] | None:
    """The manifest `data pull` wrote in a source's folder; None when there is none, or
    none this version can read (then nothing it can check vouches for the files:
    :func:`data_revision` says why)."""
    return _manifest(local_root)[0]


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

    @property
    def pinned(self) -> str:
        return f"{self.source.repo}@{self.source.revision}"

    @property
    def other(self) -> bool:
        """Whether the folder was pulled at another repository or revision than the pin,
        or at one its unreadable manifest does not tell."""
        return self.unreadable is not None or (
            self.pulled is not None and self.pulled != (self.source.repo,
                                                        self.source.revision))

    def recorded(self) -> str:
        """What results.json records as the data a task was scored on."""
        if self.unreadable is not None:
            return f"unknown ({self.unreadable})"
        if self.pulled is None:
            return (f"{self.pinned} (the pinned revision; files not verified: no "
                    f"{MANIFEST_NAME} from `leaderboard data pull`)")
        return "@".join(self.pulled)

    def mismatch(self) -> str | None:
        """'pulled A, but the registry pins B' for a folder of another revision (or of one
        its manifest does not tell), else None."""
        if self.unreadable is not None:
            return (f"{self.unreadable}, so which revision it holds is unknown; the registry "
                    f"pins {self.pinned}")
        if not self.other:
            return None
        return f"pulled {self.recorded()}, but the registry pins {self.pinned}"


def data_revision(source: DataSource, data_dir: Path) -> DataRevision:
    """What revision of ``source`` the data directory ``data_dir`` holds."""
    folder = Path(data_dir) / source.local_dir
    manifest, unreadable = _manifest(folder)
    pulled = None if manifest is None else (manifest["repo"], manifest["revision"])
    return DataRevision(source, folder, pulled, unreadable)
