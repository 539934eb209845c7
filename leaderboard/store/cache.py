"""Fetched files kept on disk under their SHA-256, so each is downloaded once per machine;
and files made on this machine that belong in a store rather than a folder (the query
explorer's files of a submitter's own scoring: :mod:`leaderboard.submission.layout`).

A file fetched from a store is written to a temporary file in the cache folder, verified,
then renamed to ``sha256/<first two digits>/<sha256>`` (``.gz`` appended for a file named
by the SHA-256 of what it inflates to); a failed or interrupted fetch leaves nothing
under a digest's name. A cached file is verified again each time it is used, so a
damaged one is fetched afresh rather than trusted.

Where: ``store`` under the cache root (:mod:`leaderboard.core.config`; CI keeps it between
runs with ``actions/cache``).
"""

from __future__ import annotations

from pathlib import Path

from leaderboard.core.config import cache_folder

# Temporary files of fetches in flight; a later fetch sweeps what a killed one left.
PART_PREFIX = ".fetch-"


def cache_dir() -> Path:
    return cache_folder("store")


def cached_path(root: Path, sha256: str, gzip: bool) -> Path:
    return root / "sha256" / sha256[:2] / (sha256 + (".gz" if gzip else ""))
