"""MkDocs hook: put the big tables into the built pages after Markdown and search ran.

Rendering puts each large table in ``<docs>/.fragments/<page>.json`` and leaves a
placeholder comment ``<!-- fb-slot N -->`` in the Markdown. Python-Markdown's raw-HTML
parser and Material's search indexer both walk every tag of a page, which for thousands of
table rows costs far more than the rest of the build; the tables are already-escaped
HTML that needs neither (they are excluded from search anyway). MkDocs skips dot-folders
in ``docs_dir``, so the fragments are never copied into the site.

Since the tables stay out of the search index, rendering also writes
``<docs>/.fragments/search-extra.json``: documents for each table and each system without
a page of its own, which :func:`on_post_build` appends to the index the search plugin
wrote (hooks run after the plugins listed in ``plugins``).

What a page sets apart from its neighbours in direction (a submitter's name or text: an
element with ``dir="auto"``, or a ``<bdi>``) Material's indexer would join to them: it keeps
a few tags (``p``, ``li``, ``code``...) and no attribute, and its results show the indexed
text as HTML, where a right-to-left name took the "(+6.8)" after it into its own direction.
So the page as the indexer reads it (:func:`on_page_content`) holds each such text between
the Unicode isolates (:func:`isolated`, what ``<bdi>`` is in plain text), which the search
configuration's separator splits words at, and the page written (:func:`on_post_page`) is
as rendered, without them.

Material's script asks for the index by the same name in every build; once it is
written, every page names it by a hash of its content (:func:`name_search_index`), which
assets/search-index.js has that request ask for.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

FRAGMENTS = ".fragments"
SEARCH_EXTRA = f"{FRAGMENTS}/search-extra.json"
SEARCH_INDEX = "search/search_index.json"
# The attribute of theme/main.html's script that names the search index's key, left empty
# when the page is written and filled once the index is (:func:`name_search_index`).
SEARCH_KEY_ATTR = "data-search-key"
SEARCH_KEY_UNSET = f'{SEARCH_KEY_ATTR}=""'
_SLOT = re.compile(r"<!-- fb-slot (\d+) -->")

# U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE: a text set apart from its
# neighbours, its direction its own first strong letter's, as <bdi> and dir="auto" do.
# Metadata refuses them in what a submitter writes (submission.metadata.NOT_SHOWN_AS_TEXT).
FSI, PDI = "\u2068", "\u2069"
# An element a page isolates, holding text only: its opening tag, its text, its closing tag.
_ISOLATE = r'(<(bdi)>|<([a-z][a-z0-9]*)\s[^>]*\bdir="auto"[^>]*>){}([^<]*){}(</(?:\2|\3)>)'
_ISOLATED = re.compile(_ISOLATE.format("", ""))
_MARKED = re.compile(_ISOLATE.format(FSI, PDI))


def isolated(text: str) -> str:
    """``text`` between the Unicode isolates, for plain text (a search document)."""
    return f"{FSI}{text}{PDI}"


def fragment_path(docs_dir: Path, src_uri: str) -> Path:
    return docs_dir / FRAGMENTS / f"{src_uri}.json"


# A heading with its id, or a table Markdown wrote (the templates' own tables carry a class
# and their name).
_HEADING_OR_BARE_TABLE = re.compile(r'<h[1-6][^>]*\bid="([^"]+)"|<table>')


def named_tables(html: str) -> str:
    """``html`` with each table Markdown wrote named by the heading of its section
    (aria-labelledby): a Markdown table has no attribute, so a screen reader's list of a
    page's tables said "table, 6 columns" of the Metrics page's measures."""
    heading: list[str] = []

    def name(m: re.Match[str]) -> str:
        if m[1] is not None:
            heading[:] = [m[1]]
            return m[0]
        return f'<table aria-labelledby="{heading[0]}">' if heading else m[0]

    return _HEADING_OR_BARE_TABLE.sub(name, html)


def on_page_content(html: str, page, config, files) -> str:  # noqa: ANN001 - MkDocs hook
    """The page's content as the search plugin indexes it (on_page_context, next) and as
    it is written: each isolated element's text between the Unicode isolates (taken out
    again by :func:`on_post_page`), each Markdown table named (:func:`named_tables`)."""
    return _ISOLATED.sub(lambda m: f"{m[1]}{FSI}{m[4]}{PDI}{m[5]}", named_tables(html))


def on_post_page(output: str, page, config) -> str:  # noqa: ANN001 - MkDocs hook signature
    # The page as rendered: without the isolates on_page_content added for the index.
    output = _MARKED.sub(lambda m: f"{m[1]}{m[4]}{m[5]}", output)
    path = fragment_path(Path(config["docs_dir"]), page.file.src_uri)
    if not path.is_file():
        return output
    fragments = json.loads(path.read_text(encoding="utf-8"))
    filled = _SLOT.sub(lambda m: fragments[int(m.group(1))], output)
    if _SLOT.search(filled):
        raise ValueError(f"{path}: a table placeholder was left unfilled")
    return filled


def on_post_build(config) -> None:  # noqa: ANN001 - MkDocs hook signature
    """The search index as the pages ask for it: with the documents of
    ``search-extra.json`` appended, and named in every page by its content
    (:func:`name_search_index`)."""
    extra = Path(config["docs_dir"]) / SEARCH_EXTRA
    index = Path(config["site_dir"]) / SEARCH_INDEX
    if not index.is_file():
        return
    if extra.is_file():
        data = json.loads(index.read_text(encoding="utf-8"))
        known = {doc["location"] for doc in data["docs"]}
        data["docs"] += [doc for doc in json.loads(extra.read_text(encoding="utf-8"))
                         if doc["location"] not in known]
        index.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")),
                         encoding="utf-8")
    name_search_index(Path(config["site_dir"]))


def search_index_key(site_dir: Path) -> str:
    """The search index's name for the pages: a hash of its bytes, so two builds whose
    indexes differ in any page, title or word name it apart, whatever else they share
    (the build's id, :func:`.scripts.build_id`, is a hash of the files the pages load,
    written before the pages and their text, which the index is made of)."""
    return hashlib.sha256((site_dir / SEARCH_INDEX).read_bytes()).hexdigest()[:12]


def name_search_index(site_dir: Path) -> None:
    """Write the search index's key (:func:`search_index_key`) into every page of the
    site, which theme/main.html leaves as :data:`SEARCH_KEY_UNSET` on the script that has
    Material ask for ``search_index.json?v=<key>`` (assets/search-index.js): Material's
    script asks for the index by the same name in every build, which a browser or proxy
    keeps for a while (GitHub Pages: max-age=600), so after a deploy its search listed
    the previous build's pages and text. The script comes after the page's content (its
    last occurrence is the one replaced)."""
    key = search_index_key(site_dir)
    for page in site_dir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        at = html.rfind(SEARCH_KEY_UNSET)
        if at == -1:
            continue
        page.write_text(html[:at] + f'{SEARCH_KEY_ATTR}="{key}"'
                        + html[at + len(SEARCH_KEY_UNSET):], encoding="utf-8")
