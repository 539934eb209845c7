"""The repository the site links submission files to: its URL, the commit the site is
built from, the files a submission page lists, and when each submission was first committed.

Run files and results are linked (to the repository at the built commit, or to the run
store's copy), never copied into the site.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote
from leaderboard.benchmarks import benchmark_of
from leaderboard.core.config import ENV_REPO_URL
from leaderboard.core.user_git import git_command
from leaderboard.benchmarks.registry import all_tasks
from leaderboard.publish.standings import SubmissionInfo
from leaderboard.store.files import StoreError
from leaderboard.submission.files import submission_files
from leaderboard.submission.folder import run_files
from leaderboard.submission.layout import (MANIFEST_NAME, METADATA_NAME, PER_QUERY_NAME,
                                           RESULTS_NAME, RUNS_DIR)
from leaderboard.submission.results import ResultsFileError, read_results

@dataclass(frozen=True)
class RepositoryRef:
    """Where the files of the published results live: ``{url}/blob/{ref}/{path}``."""

    url: str
    ref: str                  # a commit (from git), else the default branch
    toplevel: Path | None     # the checkout's root, to make paths repository-relative
    pinned: bool              # True when ``ref`` is a commit

    def file_url(self, path: Path) -> str:
        """Link to a file of the repository as it was at ``ref``. Outside a checkout the
        path is taken relative to the current folder's layout (``submissions/<id>/...``)."""
        resolved = path.resolve()
        rel: str | None = None
        if self.toplevel is not None:
            try:
                rel = resolved.relative_to(self.toplevel).as_posix()
            except ValueError:
                rel = None
        if rel is None:
            parts = resolved.parts
            rel = "/".join(parts[parts.index("submissions"):]) if "submissions" in parts \
                else path.name
        return f"{self.url}/blob/{quote(self.ref)}/{quote(rel)}"


# The repository the site is published from: set here once. Run files and results are
# linked there (at the commit the site was built from) instead of being copied into the
# site, and the "How to submit" page points contributors at it.
REPO_URL = "https://github.com/followboard/followboard"


# The branch linked when the build does not run inside a git checkout.
REPO_DEFAULT_BRANCH = "main"


def repository_url(environ: Mapping[str, str] | None = None) -> str:
    """The repository the site links to: ``$LEADERBOARD_REPO_URL`` when set, else the
    repository a GitHub Actions run builds (``$GITHUB_SERVER_URL/$GITHUB_REPOSITORY``, so
    the published site always links where its files are), else :data:`REPO_URL`."""
    env = os.environ if environ is None else environ
    if env.get(ENV_REPO_URL):
        return env[ENV_REPO_URL].rstrip("/")
    if env.get("GITHUB_REPOSITORY"):
        server = env.get("GITHUB_SERVER_URL") or "https://github.com"
        return f"{server.rstrip('/')}/{env['GITHUB_REPOSITORY']}"
    return REPO_URL


def repository_ref(results_root: Path, url: str | None = None) -> RepositoryRef:
    """The commit the site is built from (``git rev-parse HEAD`` in ``results_root``); when
    that is not a git checkout, or git is missing, links point at the default branch."""
    url = repository_url() if url is None else url
    try:
        out = subprocess.run([*git_command(results_root), "rev-parse", "HEAD",
                              "--show-toplevel"], capture_output=True, text=True, timeout=30,
                             check=False)
    except (OSError, subprocess.SubprocessError):
        out = None
    if out is not None and out.returncode == 0:
        lines = out.stdout.split()
        if len(lines) == 2 and len(lines[0]) == 40:
            return RepositoryRef(url=url, ref=lines[0], toplevel=Path(lines[1]).resolve(),
                                 pinned=True)
    return RepositoryRef(url=url, ref=REPO_DEFAULT_BRANCH, toplevel=None, pinned=False)


def uncommitted(repo: RepositoryRef, paths: list[Path]) -> list[str]:
    """Files under ``paths`` (folders or files) that differ from the commit ``repo``
    names, repository-relative: changed, added, untracked, deleted, and both names of a
    renamed one (the site would link to files the repository does not have there, a
    release naming the commit would name results it does not hold). A path outside the
    checkout holds none of its files and is left out (git refuses a list with one)."""
    if not repo.pinned or repo.toplevel is None:
        return []
    inside = [str(p.resolve()) for p in paths if p.resolve().is_relative_to(repo.toplevel)]
    if not inside:
        return []
    try:
        out = subprocess.run([*git_command(repo.toplevel), "status", "--porcelain", "-z",
                              "--untracked-files=all", "--", *inside],
                             capture_output=True, text=True, timeout=60,
                             check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    # -z: NUL-separated and unquoted (a path with a space stays as it is); "XY PATH", and
    # a rename's or copy's original path as an entry of its own after it, with no status.
    changed: list[str] = []
    entries = iter(out.stdout.split("\0"))
    for entry in entries:
        if len(entry) <= 3:
            continue
        changed.append(entry[3:])
        if entry[0] in "RC" or entry[1] in "RC":
            original = next(entries, "")
            if entry[0] == "R" or entry[1] == "R":  # gone from the tree; a copy's stays
                changed.append(original)
    return changed


@dataclass(frozen=True)
class ListedFile:
    path: str
    url: str
    size: int | None = None
    note: str = ""
    stored: bool = False      # linked to the run store's copy, not to the repository


@dataclass
class FileGroup:
    title: str
    files: list[ListedFile]
    parts: list["FileGroup"]  # a benchmark of many files, by task family (PI-Indic T1-T4)

    @property
    def size(self) -> int:
        return sum(f.size or 0 for f in self.files)


# A benchmark with more run files than this is folded again by task family.
FOLD_FAMILIES_ABOVE = 24


def file_listing(sub: SubmissionInfo, repo: RepositoryRef) -> dict[str, object]:
    """A submission page's files: results.json, its per-query scores, the explanation
    manifest, metadata.yaml and the manifest, then the run files folded by benchmark (and,
    in a benchmark of many, by task family). Each links to the repository at the built commit, or, for a file git
    does not hold, to its copy in the run store (the commit the manifest names)."""
    try:
        stored = submission_files(sub.folder)
    except StoreError:
        stored = None  # the page still lists the files; the build warns elsewhere

    def listed(rel: str, size: int | None = None, note: str = "") -> ListedFile:
        url = stored.link(rel) if stored is not None else None
        if size is None and (sub.folder / rel).is_file():
            size = (sub.folder / rel).stat().st_size
        return ListedFile(rel, url or repo.file_url(sub.folder / rel), size, note,
                          stored=url is not None)

    try:
        named = read_results(sub.results_path, per_query=False).per_query_file
    except ResultsFileError:
        named = None
    top = [listed(RESULTS_NAME, note="every score but the per-query ones")]
    if named is not None:
        top.append(listed(PER_QUERY_NAME, note="every per-query score (gzipped JSON)"))
    if sub.explain_manifest is not None:
        top.append(listed(sub.explain_manifest.path,
                          note="the query explorer's files, each by SHA-256 and size"))
    top += [listed(rel, note=note) for rel, note in (
        (METADATA_NAME, "the model and how its runs were made"),
        (MANIFEST_NAME, "every run file by SHA-256 and size")) if (sub.folder / rel).is_file()]
    registry = all_tasks()
    by_benchmark: dict[str, list[tuple[str, ListedFile]]] = {}
    for rel, entry in run_files(sub.folder).items():
        task_id = rel[len(RUNS_DIR) + 1:].rpartition("/")[0]
        task = registry.get(task_id)
        title = benchmark_of(task.benchmark).title if task is not None else "Other files"
        parts = task_id.split("/")
        family = parts[1].upper() if len(parts) > 2 else ""
        by_benchmark.setdefault(title, []).append(
            (family, listed(rel, entry.size if entry is not None else None)))
    groups = []
    for title, items in by_benchmark.items():
        files = [f for _, f in items]
        families: dict[str, list[ListedFile]] = {}
        if len(files) > FOLD_FAMILIES_ABOVE:
            for family, f in items:
                families.setdefault(family or title, []).append(f)
        parts_ = [FileGroup(name, fs, []) for name, fs in families.items()] \
            if len(families) > 1 else []
        groups.append(FileGroup(title, files, parts_))
    stores = sorted({f.url.split("/blob/")[0] for g in groups for f in g.files if f.stored}
                    | {f.url.split("/blob/")[0] for f in top if f.stored})
    return {"top": top, "groups": groups, "stores": stores}


def submission_dates(repo: RepositoryRef, subs: list) -> tuple[dict[str, str], str | None]:
    """Submission id -> the date of the first commit that added files to its folder (when
    it was submitted), for the submissions whose metadata gives no ``date`` (one
    ``git log`` for all of them; {} outside a checkout), and why there are none when a
    checkout cannot say."""
    if repo.toplevel is None or not subs:
        return {}, None
    folders = {}
    for sub in subs:
        try:
            folders[sub.folder.resolve().relative_to(repo.toplevel).as_posix()] = sub.id
        except ValueError:
            continue
    if not folders:
        return {}, None
    try:
        shallow = subprocess.run([*git_command(repo.toplevel), "rev-parse",
                                  "--is-shallow-repository"],
                                 capture_output=True, text=True, timeout=60, check=False)
        if shallow.stdout.strip() == "true":
            # The oldest commit of a shallow history shows every file as added: each
            # submission would get that commit's date.
            return {}, ("the checkout's history is shallow, so the submissions' pages give "
                        "no date for those whose metadata.yaml has none: fetch the whole "
                        "history (git fetch --unshallow; actions/checkout: fetch-depth: 0)")
        out = subprocess.run([*git_command(repo.toplevel), "log", "--format=%x00%cs",
                              "--name-only", "--diff-filter=A", "--", *folders],
                             capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return {}, None
    dates: dict[str, str] = {}
    for entry in out.stdout.split("\0")[1:]:
        date, _, names = entry.partition("\n")
        for name in names.split("\n"):
            for folder, sub_id in folders.items():
                if name.startswith(folder + "/"):
                    dates[sub_id] = date.strip()  # newest first: the oldest stays
    return dates, None
