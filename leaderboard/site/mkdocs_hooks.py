"""MkDocs hook: put the big tables into the built pages after Markdown and search ran.

Rendering puts each large table in ``<docs>/.fragments/<page>.json`` and leaves a
placeholder comment ``<!-- fb-slot N -->`` in the Markdown. Python-Markdown's raw-HTML
parser and Material's search indexer both walk every tag of a page, which for thousands of
table rows costs far more than the rest of the build; the tables are already-escaped
HTML that needs neither (they are excluded from search anyway). MkDocs skips dot-folders
in ``docs_dir``, so the fragments are never copied into the site.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

FRAGMENTS = ".fragments"
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
