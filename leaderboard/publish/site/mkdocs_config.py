"""The MkDocs configuration of the site: Material, offline (no web fonts, no CDN), the
bundled assets, and the navigation the benchmark declarations give (a page's ``nav``
names the group it sits in)."""

from __future__ import annotations

from pathlib import Path

import yaml
from leaderboard import __version__
from leaderboard.benchmarks import site_pages
from leaderboard.publish.release import RELEASE_FILE, modified_text
from leaderboard.publish.site.repository import repository_url
from leaderboard.publish.site.scripts import (PAGE_SCRIPTS, PAGE_STYLES, SEARCH_SCRIPT,
                                             versioned)

# mkdocs_hooks.py sits beside this module; MkDocs loads it by path.
HOOKS = Path(__file__).with_name("mkdocs_hooks.py")
# Our overrides of Material's templates: partials/copyright.html, the footer's links;
# main.html, the script that has Material fetch its search index named by its content.
THEME = Path(__file__).with_name("theme")
# How the project is cited: the results root's copy goes to the site's root.
CITATION_FILE = "CITATION.cff"
# The files at the site's root the footer links, each with what it is.
FOOTER_FILES = (("manifest", RELEASE_FILE), ("cite", CITATION_FILE))


def footer_text(release: dict | None) -> str:
    """The footer: the release the site shows (its manifest, release.json, and the
    citation the site holds follow it as links: :func:`footer_files`)."""
    if release is None:
        return f"FollowBoard {__version__}"
    commit = (f", commit {release['commit'][:12]}{modified_text(release)}"
              if release.get("commit") else "")
    return f"FollowBoard {__version__} · release {release['name']}{commit}"


def footer_files(docs: Path) -> list[dict[str, str]]:
    """The files of :data:`FOOTER_FILES` the site holds at its root (``docs``'), which
    the footer links (theme/partials/copyright.html)."""
    return [{"label": label, "file": name} for label, name in FOOTER_FILES
            if (docs / name).is_file()]


def mkdocs_config(docs: Path, out: Path, strict: bool = True,
                  release: dict | None = None, site_url: str | None = None,
                  build: str | None = None) -> dict:
    """The MkDocs configuration: Material, offline (no web fonts, no CDN), our assets;
    the footer names ``release`` (:func:`leaderboard.publish.release.release_manifest`).
    ``site_url``, the address the site is served from, is where the 404 page links from
    (MkDocs links it from ``/`` without one) and gives pages their canonical address.
    ``build``: the build's id (:func:`.scripts.build_id`), which every page names our
    scripts and stylesheets with; None, as they are (a configuration no site is built from)."""
    def named(url: str) -> str:
        return url if build is None else versioned(url, build)

    nav: list = [{"Home": "index.md"}]
    groups: dict[str, list] = {}
    for page in site_pages():
        if page.nav:  # (group, title): the group's entry comes where its first page does
            if page.nav[0] not in groups:
                groups[page.nav[0]] = []
                nav.append({page.nav[0]: groups[page.nav[0]]})
            groups[page.nav[0]].append({page.nav[1]: page.path})
        else:
            nav.append({page.title: page.path})
    nav += [{"Submissions": "submissions/index.md"}, {"Query explorer": "explore.md"},
            {"How to submit": "submit.md"},
            {"Metrics": "metrics.md"}]
    config = {
        "site_name": "FollowBoard",
        "site_description": "Leaderboard for instruction-following retrieval: FollowIR, "
                            "mFollowIR, FollowTable and PI-Indic-Align",
        "docs_dir": str(docs.resolve()),
        "site_dir": str(out.resolve()),
        # Plain .html files: the site also opens straight from disk, without a server.
        "use_directory_urls": False,
        "strict": strict,
        "theme": {
            "name": "material",
            "custom_dir": str(THEME),
            "font": False,  # Material would otherwise load Google Fonts
            "language": "en",
            "features": ["navigation.sections", "navigation.top", "search.highlight",
                         "toc.follow"],
            "palette": [
                {"media": "(prefers-color-scheme: light)", "scheme": "default",
                 "primary": "indigo", "accent": "indigo",
                 "toggle": {"icon": "material/weather-night", "name": "Switch to dark mode"}},
                {"media": "(prefers-color-scheme: dark)", "scheme": "slate",
                 "primary": "indigo", "accent": "indigo",
                 "toggle": {"icon": "material/weather-sunny", "name": "Switch to light mode"}},
            ],
        },
        # A plain link to the repository (Material's repo_url would fetch star counts
        # from api.github.com on every page: the site makes no requests of its own).
        "extra": {"generator": False, "footer_files": footer_files(docs),
                  "search_script": named(SEARCH_SCRIPT),
                  "social": [{"icon": "fontawesome/brands/github", "link": repository_url(),
                              "name": "FollowBoard on GitHub: submissions, code, issues"}]},
        "extra_css": [named(url) for url in PAGE_STYLES],
        "extra_javascript": [named(url) for url in PAGE_SCRIPTS],
        # Only what the templates use: every extension costs time on each of the
        # (possibly thousands of) submission pages. Tabs and tables are raw HTML.
        # A heading's text is its permalink (a.toclink), as a table's title is; the mark
        # is CSS with empty alternative text (leaderboard.css). Python-Markdown's own
        # permalink is a "¶" as text in the heading, which Chromium read into its name
        # ("FollowIR ¶"), or, empty, its link's title ("FollowIR Permanent link").
        "markdown_extensions": [
            {"toc": {"anchorlink": True}}, "attr_list", "admonition", "pymdownx.superfences",
        ],
        # "/" separates words too, so "Qwen3" finds "Qwen/Qwen3-Embedding-8B"; so do the
        # Unicode isolates the index holds names between (mkdocs_hooks.on_page_content).
        "plugins": [{"search": {"separator": r"[\s\-/\u2066-\u2069]+"}}],
        "hooks": [str(HOOKS)],
        "nav": nav,
        "validation": {"omitted_files": "info", "absolute_links": "warn",
                       "unrecognized_links": "warn", "anchors": "warn"},
        "copyright": footer_text(release),
    }
    if site_url is not None:
        config["site_url"] = site_url
    return config


def write_mkdocs_config(config: dict, path: Path) -> None:
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True),
                    encoding="utf-8")
