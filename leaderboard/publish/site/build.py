"""Building the site: results -> Markdown/HTML docs tree -> MkDocs (Material).

``build_site`` reads the repository's results (see :mod:`leaderboard.publish.site.board`),
renders the pages with jinja2 (:mod:`leaderboard.publish.site.render`) and runs
``mkdocs build --strict`` through MkDocs' Python API. The site needs no network: no web
fonts, no CDN, every script and style is bundled, and Material's search runs on its
bundled lunr worker.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import writing_into
from leaderboard.core.processes import remove_dead_temp_folders
from leaderboard.core.report import plural
from leaderboard.publish.output_folder import (check_replaceable, check_writable,
                                               remove_tree, replaced_folder)
from leaderboard.publish.release import RELEASE_FILE, modified_warning, release_manifest
from leaderboard.publish.site.board import Board, load_board
from leaderboard.publish.site.downloads import write_download_json
from leaderboard.publish.site.mkdocs_config import (CITATION_FILE, mkdocs_config,
                                                    write_mkdocs_config)
from leaderboard.publish.site.render import render_docs
from leaderboard.publish.site.repository import repository_ref, uncommitted

# Written into the docs and output folders, so a rebuild only ever wipes folders that a
# previous build made (never a folder someone passed to --out by mistake).
DOCS_MARKER = ".followboard-docs"
SITE_MARKER = ".followboard-site"
BUILT_BY = "`leaderboard build`"
# A build's work folder in the temporary directory (its pages when no docs folder is given,
# MkDocs' configuration), "<prefix><pid>-XXXX": a killed build cannot remove its own, and
# the next build removes those whose process is gone.
WORK_PREFIX = "followboard-site-"


class SiteBuildError(FollowBoardError, ValueError):
    """The site could not be built; the message says why (and names the file if any)."""


@dataclass
class BuildResult:
    out_dir: Path
    docs_dir: Path | None
    pages: int
    seconds: float
    render_seconds: float
    mkdocs_seconds: float
    largest_page: tuple[str, int]                 # (path relative to out_dir, bytes)
    warnings: list[str] = field(default_factory=list)


def site_address(url: str) -> str:
    """The address the site is served from, as MkDocs' ``site_url`` takes it: an
    ``http(s)`` URL with a host and no query or fragment, ending in ``/``
    (``https://owner.github.io/repo`` -> ``https://owner.github.io/repo/``)."""
    try:
        parts = urlsplit(url)
        valid = (parts.scheme in ("http", "https") and bool(parts.hostname)
                 and not parts.query and not parts.fragment
                 and not any(c.isspace() for c in url))
    except ValueError:  # a malformed port or IPv6 host
        valid = False
    if not valid:
        raise SiteBuildError(
            f"site URL {url!r} is not a web address: give the address the site is served "
            "from, with http:// or https:// and its host and no query, as "
            "https://OWNER.github.io/REPO/")
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _prepare_dir(path: Path, marker: str, what: str) -> None:
    """Make ``path`` a folder holding only ``marker``, refusing to wipe one this tool did
    not create. The marker stays while the rest goes: a build killed at any instant leaves
    the folder marked, for the next build to empty (rmtree removed the marker among the
    first files, and a build killed then left pages that every later build refused)."""
    if path.exists():
        if not path.is_dir():
            raise SiteBuildError(f"{path}: {what} exists and is not a directory")
        if any(path.iterdir()) and not (path / marker).exists():
            raise SiteBuildError(
                f"{path}: {what} is not empty and was not made by `leaderboard build`; "
                "choose an empty or new directory")
        for entry in list(path.iterdir()):
            if entry.name == marker:
                continue
            if entry.is_dir() and not entry.is_symlink():
                remove_tree(entry)
            else:
                entry.unlink()
    path.mkdir(parents=True, exist_ok=True)
    (path / marker).write_text("made by `leaderboard build`; deleted on rebuild\n",
                               encoding="utf-8")


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.levelname.lower()}: {record.getMessage()}")


def run_mkdocs(config_path: Path) -> list[str]:
    """``mkdocs build --strict`` on a config file; returns MkDocs' warnings."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError

    collect = _Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(collect)
    try:
        config = load_config(config_file=str(config_path))
        build(config)
    except (Abort, ConfigurationError) as exc:
        details = "; ".join(collect.messages[:10])
        raise SiteBuildError(f"mkdocs build failed: {exc}" + (f" ({details})" if details else "")
                             ) from None
    finally:
        logger.removeHandler(collect)
    return collect.messages


def build_site(results_root: Path, out_dir: Path, docs_dir: Path | None = None,
               *, reference_ids: Collection[str], strict: bool = True,
               cache_dir: Path | None = None, site_url: str | None = None) -> BuildResult:
    """Build the site from ``results_root`` into ``out_dir``.

    ``docs_dir`` keeps the generated Markdown tree (for inspection); by default it lives
    in a temporary directory that is removed afterwards. ``cache_dir`` stores significance
    results by a hash of their inputs, so a rebuild only tests views whose scores changed.
    ``site_url`` is the address the site is served from (:func:`site_address`): every
    page links relatively but ``404.html``, which the server shows at any missing path
    and so links from that address's path; without it, from ``/``, which holds only for
    a site served at a domain's root. ``reference_ids``: the reference models' ids, whose
    submissions' parameter counts the pages call counted
    (:func:`leaderboard.publish.site.render.render_docs`).
    """
    start = time.perf_counter()
    address = site_address(site_url) if site_url is not None else None
    check_replaceable(out_dir, SITE_MARKER, BUILT_BY, SiteBuildError)
    # Before the work: a read-only checkout is told which folder to give elsewhere.
    check_writable(out_dir, "--out", SiteBuildError)
    remove_dead_temp_folders(WORK_PREFIX)
    tmp = tempfile.TemporaryDirectory(prefix=f"{WORK_PREFIX}{os.getpid()}-")
    try:
        docs = docs_dir if docs_dir is not None else Path(tmp.name) / "docs"
        try:
            _prepare_dir(docs, DOCS_MARKER, "the docs directory")
        except OSError as exc:
            raise SiteBuildError(
                f"{docs}: the docs directory cannot be written ({exc.strerror or exc}: "
                f"{exc.filename or docs}); give --docs-dir a folder you can write") from None
        board: Board = load_board(results_root, cache_dir=cache_dir)
        repo = repository_ref(results_root)
        changed = uncommitted(repo, [r.submission.folder for r in board.submissions
                                     if r.submission is not None])
        if changed:
            board.warnings.append(
                f"{plural(len(changed), 'submission file')} "
                f"{'differs' if len(changed) == 1 else 'differ'} from commit {repo.ref[:12]}, which "
                f"the site links them at (first: {changed[0]}); commit them before publishing")
        with writing_into(docs):  # a full disk names the folder the pages go to
            build = render_docs(board, docs, repo, reference_ids=reference_ids)
            release = release_manifest(results_root, repo)
            warning = modified_warning(release)
            if warning:
                board.warnings.append(warning)
            # At the site's root, not in downloads/: every file there is a table's download.
            write_download_json(docs / RELEASE_FILE, release)
            # How to cite the project, beside it: the footer links both (mkdocs_config).
            if (results_root / CITATION_FILE).is_file():
                shutil.copyfile(results_root / CITATION_FILE, docs / CITATION_FILE)
        rendered = time.perf_counter()
        # MkDocs writes into a new folder that replaces the site only once it is built: a
        # failed or killed build leaves the last site as it was (MkDocs empties its
        # site_dir first).
        with replaced_folder(out_dir, SITE_MARKER, BUILT_BY, SiteBuildError) as new_site:
            config_path = Path(tmp.name) / "mkdocs.yml"
            write_mkdocs_config(mkdocs_config(docs, new_site, strict=strict, release=release,
                                              site_url=address, build=build),
                                config_path)
            mkdocs_warnings = run_mkdocs(config_path)
    finally:
        tmp.cleanup()
    done = time.perf_counter()
    pages = [p for p in out_dir.rglob("*.html")]
    largest = max(pages, key=lambda p: p.stat().st_size)
    return BuildResult(
        out_dir=out_dir, docs_dir=docs_dir, pages=len(pages), seconds=done - start,
        render_seconds=rendered - start, mkdocs_seconds=done - rendered,
        largest_page=(largest.relative_to(out_dir).as_posix(), largest.stat().st_size),
        warnings=board.warnings + mkdocs_warnings)
