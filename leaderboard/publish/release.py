"""A citable release of the leaderboard: which results it shows, pinned by content.

The release manifest (``release.json``, format ``followboard-release/1``) names the
commit the results were published from and the SHA-256 of every results file behind them
(each submission's metadata.yaml, manifest.txt and results.json, which pin its runs and
per-query scores by digest in turn; every reported results file; the model registry),
and, for an exported dataset (:mod:`leaderboard.publish.export`), of every Parquet file
and JSON Schema of the export (not of its card, which names the release, nor of itself),
with the format of the export's tables (``export_format``).
A Zenodo deposit or a GitHub release carries it beside the files; anyone can
check a copy against it.

Published from a checkout with uncommitted changes, the commit does not hold these
results: ``modified`` lists the results files that differ from it (changed, new or
deleted), every page and card that names the commit says so, and ``build`` and ``export``
warn (:func:`modified_warning`). Outside a git checkout ``commit`` is null and there is
no ``modified``.

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
from leaderboard.core.report import plural
from leaderboard.publish.models import MODELS_FILE
from leaderboard.publish.site.repository import RepositoryRef, uncommitted
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


# The reported results files, relative to the results root.
REPORTED_DIR = "results/reported"
# The files of a submission folder a release pins.
SUBMISSION_RESULTS = (METADATA_NAME, MANIFEST_NAME, RESULTS_NAME)


def results_files(results_root: Path) -> dict[str, Path]:
    """Every results file a release shows, by its path relative to ``results_root``."""
    files: dict[str, Path] = {}
    submissions = results_root / SUBMISSIONS_DIR
    if submissions.is_dir():
        for folder in sorted(p for p in submissions.iterdir() if p.is_dir()):
            for name in SUBMISSION_RESULTS:
                if (folder / name).is_file():
                    files[f"{SUBMISSIONS_DIR}/{folder.name}/{name}"] = folder / name
    reported = results_root / REPORTED_DIR
    if reported.is_dir():
        for path in sorted(reported.glob("*.json")):
            files[f"{REPORTED_DIR}/{path.name}"] = path
    files[MODELS_ENTRY] = MODELS_FILE
    return files


def _is_results_file(path: str) -> bool:
    """Whether ``path`` (relative to the results root) names a file :func:`results_files`
    would list, were it there."""
    parts = path.split("/")
    if len(parts) != 3:
        return False
    if parts[0] == SUBMISSIONS_DIR:
        return parts[2] in SUBMISSION_RESULTS
    return f"{parts[0]}/{parts[1]}" == REPORTED_DIR and parts[2].endswith(".json")


def digest_of(digests: dict[str, str]) -> str:
    """One SHA-256 for a set of files: of their sorted ``<sha256>  <path>`` lines."""
    lines = "".join(f"{sha}  {path}\n" for path, sha in sorted(digests.items()))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def release_name(results_digest: str) -> str:
    return f"followboard-{__version__}+{results_digest[:12]}"


def modified_results(results_root: Path, repo: RepositoryRef) -> list[str]:
    """The results files (by their paths in a manifest) that differ from the commit
    ``repo`` names: changed, new, or deleted since (a submission removed from the tree)."""
    root = results_root.resolve()
    models = MODELS_FILE.resolve()
    watched = [root / SUBMISSIONS_DIR, root / REPORTED_DIR, MODELS_FILE]
    found = set()
    for rel in uncommitted(repo, watched):
        assert repo.toplevel is not None  # uncommitted found files of a checkout
        path = repo.toplevel / rel
        if path == models:
            found.add(MODELS_ENTRY)
        elif path.is_relative_to(root) and _is_results_file(path.relative_to(root).as_posix()):
            found.add(path.relative_to(root).as_posix())
    return sorted(found)


def release_manifest(results_root: Path, repo: RepositoryRef,
                     export: dict[str, str] | None = None,
                     export_format: str | None = None) -> dict:
    """The manifest of the results under ``results_root``, published from ``repo`` (its
    commit, when it names one, and which results files differ from it), and of an
    export's files (path -> SHA-256) and the layout of its tables when given."""
    results = {path: sha256_file(file) for path, file in results_files(results_root).items()}
    digest = digest_of(results)
    commit = repo.ref if repo.pinned else None
    manifest: dict = {"format": RELEASE_FORMAT, "name": release_name(digest),
                      "version": __version__, "repository": repo.url, "commit": commit,
                      "results_digest": digest, "results": results}
    if commit is not None:
        manifest["modified"] = modified_results(results_root, repo)
    if export is not None:
        manifest["export_digest"] = digest_of(export)
        manifest["export"] = dict(sorted(export.items()))
    if export_format is not None:
        manifest["export_format"] = export_format
    return manifest


def modified_text(release: dict) -> str:
    """What a page or card adds after the commit it names when the commit alone does not
    hold the release's results ("" when it does)."""
    modified = release.get("modified")
    if not modified:
        return ""
    return (f" with uncommitted changes to {plural(len(modified), 'results file')} (listed "
            "under modified in release.json)")


def modified_warning(release: dict) -> str | None:
    """What ``build`` and ``export`` say when the commit the release names does not hold
    its results; None when it does (or names no commit)."""
    modified = release.get("modified")
    if not modified:
        return None
    return (f"{plural(len(modified), 'results file')} "
            f"{'differs' if len(modified) == 1 else 'differ'} from commit {release['commit'][:12]}, "
            f"which release.json names (first: {modified[0]}); it lists them under "
            "modified: commit them before publishing")
