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
"""

from __future__ import annotations

import json
import re
from pathlib import Path

FRAGMENTS = ".fragments"
SEARCH_EXTRA = f"{FRAGMENTS}/search-extra.json"
SEARCH_INDEX = "search/search_index.json"
_SLOT = re.compile(r"<!-- fb-slot (\d+) -->")


def fragment_path(docs_dir: Path, src_uri: str) -> Path:
    return docs_dir / FRAGMENTS / f"{src_uri}.json"


def on_post_page(output: str, page, config) -> str:  # noqa: ANN001 - MkDocs hook signature
    path = fragment_path(Path(config["docs_dir"]), page.file.src_uri)
    if not path.is_file():
        return output
    fragments = json.loads(path.read_text(encoding="utf-8"))
    filled = _SLOT.sub(lambda m: fragments[int(m.group(1))], output)
    if _SLOT.search(filled):
        raise ValueError(f"{path}: a table placeholder was left unfilled")
    return filled


def on_post_build(config) -> None:  # noqa: ANN001 - MkDocs hook signature
    extra = Path(config["docs_dir"]) / SEARCH_EXTRA
    index = Path(config["site_dir"]) / SEARCH_INDEX
    if not extra.is_file() or not index.is_file():
        return
    data = json.loads(index.read_text(encoding="utf-8"))
    known = {doc["location"] for doc in data["docs"]}
    data["docs"] += [doc for doc in json.loads(extra.read_text(encoding="utf-8"))
                     if doc["location"] not in known]
    index.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")),
                     encoding="utf-8")
