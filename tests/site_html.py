"""The built site's HTML as the tests read it: every start tag, and the tables with their
cells (standard library parser; no browser)."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the tables with their cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.tables: list[dict] = []
        self._cell: list[str] | None = None
        self._row: dict | None = None
        self._section: str | None = None
        self._view: list[str] = []
        self._in_table = False  # inside a table.fb-table (another table's rows are not its)
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "div" and a.get("class") == "fb-view":
            self._view.append(a.get("id") or "")
        if tag == "table" and "fb-table" in (a.get("class") or ""):
            self.tables.append({"view": self._view[-1] if self._view else None,
                                "head": [], "rows": []})
            self._in_table = True
        elif tag in ("thead", "tbody"):
            self._section = tag
        elif tag == "tr" and self._in_table:
            self._row = {"attrs": a, "cells": []}
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
            self._row["cells"].append({"attrs": a, "text": self._cell})

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._in_table = False
        if tag == "tr" and self._row is not None:
            row = {"attrs": self._row["attrs"],
                   "cells": [{"attrs": c["attrs"], "text": "".join(c["text"]).strip()}
                             for c in self._row["cells"]]}
            if self._section == "thead":
                self.tables[-1]["head"] = row["cells"]
            else:
                self.tables[-1]["rows"].append(row)
            self._row = None
        elif tag in ("td", "th"):
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def parse(path: Path) -> _Tags:
    parser = _Tags()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def parse_html(html: str) -> _Tags:
    """:func:`parse` of a piece of HTML (a table's rows as a page's code writes them)."""
    parser = _Tags()
    parser.feed(html)
    return parser
