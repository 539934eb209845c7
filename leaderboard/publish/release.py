"""A citable release of the leaderboard: which results it shows, pinned by content.

The release manifest (``release.json``, format ``followboard-release/1``) names the
commit the results were published from and the SHA-256 of every results file behind them
(each submission's metadata.yaml, manifest.txt and results.json, which pin its runs and
per-query scores by digest in turn; every reported results file; the model registry),
and, for an exported dataset (:mod:`leaderboard.publish.export`), of every file of the
export. A Zenodo deposit or a GitHub release carries it beside the files; anyone can
check a copy against it.

The release's name is derived from the results' content, not from a date or a counter:
``followboard-<version>+<first 12 hex digits of the results digest>``, where the results
digest is the SHA-256 of the sorted ``<sha256>  <path>`` lines of the results files. Two
builds of the same results carry the same name; the site's footer shows it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from leaderboard import __version__
from leaderboard.core.checksums import sha256_file
from leaderboard.publish.models import MODELS_FILE
from leaderboard.submission.layout import (
    MANIFEST_NAME,
    METADATA_NAME,
    RESULTS_NAME,
    SUBMISSIONS_DIR,
)

RELEASE_FORMAT = "followboard-release/1"
RELEASE_FILE = "release.json"
# Where the model registry is named in a manifest (it ships inside the package).
MODELS_ENTRY = "leaderboard/publish/reported/data/models.yaml"


def results_files(results_root: Path) -> dict[str, Path]:
    """Every results file a release shows, by its path relative to ``results_root``."""
    files: dict[str, Path] = {}
    submissions = results_root / SUBMISSIONS_DIR
    if submissions.is_dir():
        for folder in sorted(p for p in submissions.iterdir() if p.is_dir()):
            for name in (METADATA_NAME, MANIFEST_NAME, RESULTS_NAME):
                if (folder / name).is_file():
                    files[f"{SUBMISSIONS_DIR}/{folder.name}/{name}"] = folder / name
    reported = results_root / "results" / "reported"
    if reported.is_dir():
        for path in sorted(reported.glob("*.json")):
            files[f"results/reported/{path.name}"] = path
    files[MODELS_ENTRY] = MODELS_FILE
    return files


def digest_of(digests: dict[str, str]) -> str:
    """One SHA-256 for a set of files: of their sorted ``<sha256>  <path>`` lines."""
    lines = "".join(f"{sha}  {path}\n" for path, sha in sorted(digests.items()))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def release_name(results_digest: str) -> str:
    return f"followboard-{__version__}+{results_digest[:12]}"


def release_manifest(results_root: Path, commit: str | None, repository: str,
                     export: dict[str, str] | None = None) -> dict:
    """The manifest of the results under ``results_root`` (and of an export's files,
    path -> SHA-256, when given)."""
    results = {path: sha256_file(file) for path, file in results_files(results_root).items()}
    digest = digest_of(results)
    manifest: dict = {"format": RELEASE_FORMAT, "name": release_name(digest),
                      "version": __version__, "repository": repository, "commit": commit,
                      "results_digest": digest, "results": results}
    if export is not None:
        manifest["export_digest"] = digest_of(export)
        manifest["export"] = dict(sorted(export.items()))
    return manifest
