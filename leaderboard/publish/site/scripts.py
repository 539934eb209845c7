"""The site's JavaScript: which scripts each page loads, in order, and the query
explorer's script, built from its parts.

Every script is a classic script (no modules, no bundler): the site opens from disk
(``file://``) and from any static server, offline. The explorer's source is a folder of
parts (``assets/explorer/``), each one concern (records, loading, a view ...) that names
what it takes from the parts before it; the build joins them, in
:data:`EXPLORER_PARTS` order, inside one function, into ``assets/explorer.js``, so
nothing but ``window.fbExplorer`` leaks into the page and the browser makes one request.
The pure parts also export themselves to node for ``tests/js/``.

Every file a page loads or offers is named with its build (:func:`build_id`,
:func:`versioned`): the server (GitHub Pages: ``max-age=600``) lets a browser or proxy
keep a file for a while, and a page must not run one deploy's script against another's
stylesheet or the explorer's files of another format, nor offer the previous deploy's
table beside its own. The pages name their scripts, stylesheets and downloads
``?v=<build>``, and the explorer fetches every file of the site with it (its element's
``data-build``, assets/explorer/load.js); Material's own files carry a hash in their
names already, and its search index, which its script asks for by one name in every
build, is asked for named by a hash of its content (:data:`SEARCH_SCRIPT`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

ASSETS_DIR = Path(__file__).parent / "assets"
EXPLORER_SOURCE = ASSETS_DIR / "explorer"

#: Loaded by every page (mkdocs ``extra_javascript``), in this order: format.js first,
#: how every number is printed (leaderboard.js and the explorer use it);
#: explorer-links.js makes verified cells links to the queries behind them; cell-details.js
#: opens a cell's details (its title) to a tap, the keyboard and a screen reader, and makes
#: each table, the explorer's too (it runs on its page after the explorer's script), one Tab stop.
PAGE_SCRIPTS = ("assets/format.js", "assets/leaderboard.js", "assets/explorer-links.js",
                "assets/cell-details.js")

#: Loaded by every page before Material's script (theme/main.html): it has Material's
#: request for its search index ask for it named by the hash of its content that the build
#: writes into the page once the index is written (mkdocs_hooks.on_post_build).
SEARCH_SCRIPT = "assets/search-index.js"

#: Every page's stylesheets (mkdocs ``extra_css``).
PAGE_STYLES = ("assets/leaderboard.css", "assets/explorer.css")

#: What a page loads or offers of what a build writes into the docs tree, every file of
#: which a page names with the build's id: the folders :func:`build_id` hashes (the
#: scripts, the stylesheets, the explorer's files and the tables' downloads).
NAMED_FOLDERS = ("assets", "explore", "downloads")

#: The explorer's script in the built site, and what its page loads (explore.md.j2): the
#: explorer's content runs before the scripts every page loads at its end.
EXPLORER_SCRIPT = "assets/explorer.js"
EXPLORER_PAGE_SCRIPTS = ("assets/format.js", EXPLORER_SCRIPT)

#: The explorer's parts, each after the parts it uses; main.js, the router, draws the
#: first view, so it comes last.
EXPLORER_PARTS = (
    "common.js",      # DOM helpers, numbers
    "text.js",        # word diff, closest ids (pure)
    "records.js",     # file formats, rows to records by field name (pure)
    "rows.js",        # row order, compare pairs, heatmap rows and colours (pure)
    "links.js",       # view addresses, explanation file URLs (pure)
    "state.js",       # everything kept between views
    "frame.js",       # the page, its links, the frame of every view
    "load.js",        # fetching files; what a reader is told when one fails
    "data.js",        # the index and a submission's files, checked and mapped
    "start.js",       # views: start, a submission's tasks
    "list.js",        # view: the query list; the compare picker
    "compare.js",     # view: compare mode's list
    "card-texts.js",  # a card's texts and document dialog
    "card-parts.js",  # a card's figures, slope chart and tables
    "card.js",        # view: a query's card, alone or side by side
    "heatmap.js",     # view: the heatmap
    "main.js",        # the router
)


def explorer_script() -> str:
    """The explorer's parts joined into one classic script, which does nothing on a page
    without the explorer's element."""
    out = ["/* FollowBoard query explorer, built by leaderboard/publish/site/scripts.py from\n"
           " * assets/explorer/ (edit those): " + ", ".join(EXPLORER_PARTS) + ".\n */\n"
           "(function () {\n\"use strict\";\n"
           "if (!document.getElementById(\"fb-explorer\")) return;\n"]
    for name in EXPLORER_PARTS:
        out.append(f"\n/* ---- explorer/{name} ---- */\n")
        out.append((EXPLORER_SOURCE / name).read_text(encoding="utf-8"))
    out.append("})();\n")
    return "".join(out)


def write_explorer_script(docs: Path) -> None:
    """Write the explorer's script into the docs tree (``assets/explorer.js``)."""
    target = docs / EXPLORER_SCRIPT
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(explorer_script(), encoding="utf-8")


def build_id(docs: Path) -> str:
    """The build's id: a hash of every file under :data:`NAMED_FOLDERS` of the docs
    tree, their paths and contents, so two builds whose pages load and offer the same
    files share it and any other two differ. Computed once the explorer's files and the
    downloads are written, before any page names it and before the index and task files
    name it (:func:`.explorer.stamp_build`: the hash is of the files as they were before)."""
    digest = hashlib.sha256()
    for folder in NAMED_FOLDERS:
        for path in sorted((docs / folder).rglob("*")):
            if path.is_file():
                digest.update(path.relative_to(docs).as_posix().encode("utf-8") + b"\0")
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:12]


def versioned(url: str, build: str) -> str:
    """``url``, a file of the site, as a page of build ``build`` names it."""
    return f"{url}?v={build}"
