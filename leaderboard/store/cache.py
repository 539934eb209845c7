"""Fetched files kept on disk under their SHA-256, so each is downloaded once per machine;
and files made on this machine that belong in a store rather than a folder (the query
explorer's files of a submitter's own scoring: :mod:`leaderboard.submission.layout`).

A file fetched from a store is written to a temporary file in the cache folder, verified,
then renamed to ``sha256/<first two digits>/<sha256>`` (``.gz`` appended for a file named
by the SHA-256 of what it inflates to); a failed or interrupted fetch leaves nothing
under a digest's name. A cached file is verified again each time it is used, so a
damaged one is fetched afresh rather than trusted.

Where: ``$FOLLOWBOARD_STORE_CACHE``, else ``$XDG_CACHE_HOME/followboard/store``, else
``~/.cache/followboard/store`` (CI keeps it between runs with ``actions/cache``).
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "FOLLOWBOARD_STORE_CACHE"
# Temporary files of fetches in flight; a later fetch sweeps what a killed one left.
PART_PREFIX = ".fetch-"


def cache_dir() -> Path:
    chosen = os.environ.get(CACHE_ENV, "").strip()
    if chosen:
        return Path(chosen)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "followboard" / "store"


def cached_path(root: Path, sha256: str, gzip: bool) -> Path:
    return root / "sha256" / sha256[:2] / (sha256 + (".gz" if gzip else ""))
