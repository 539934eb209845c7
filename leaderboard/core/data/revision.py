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


def read_manifest(local_root: Path) -> dict[str, Any] | None:
    """The manifest `data pull` wrote in a source's folder; None when there is none, or it
    cannot be read or is of another format (then nothing vouches for the files)."""
    path = local_root / MANIFEST_NAME
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(obj, dict) or obj.get("format") != MANIFEST_FORMAT:
        return None
    return obj


@dataclass(frozen=True)
class DataRevision:
    """The revision of ``source`` that its folder under a data directory holds."""

    source: DataSource
    folder: Path
    # (repository, revision) the folder's manifest names; None: no (readable) manifest.
    pulled: tuple[str, str] | None

    @property
    def pinned(self) -> str:
        return f"{self.source.repo}@{self.source.revision}"

    @property
    def other(self) -> bool:
        """Whether the folder was pulled at another repository or revision than the pin."""
        return self.pulled is not None and self.pulled != (self.source.repo,
                                                           self.source.revision)

    def recorded(self) -> str:
        """What results.json records as the data a task was scored on."""
        if self.pulled is None:
            return (f"{self.pinned} (the pinned revision; files not verified: no "
                    f"{MANIFEST_NAME} from `leaderboard data pull`)")
        return "@".join(self.pulled)

    def mismatch(self) -> str | None:
        """'pulled A, but the registry pins B' for a folder of another revision, else None."""
        if not self.other:
            return None
        return f"pulled {self.recorded()}, but the registry pins {self.pinned}"


def data_revision(source: DataSource, data_dir: Path) -> DataRevision:
    """What revision of ``source`` the data directory ``data_dir`` holds."""
    folder = Path(data_dir) / source.local_dir
    manifest = read_manifest(folder)
    repo, revision = (manifest or {}).get("repo"), (manifest or {}).get("revision")
    pulled = ((repo, revision) if isinstance(repo, str) and isinstance(revision, str)
              else None)
    return DataRevision(source, folder, pulled)
