"""Extra documents for the site's search index: one per table, and one per reported model
without a page of its own (Material's search indexes pages before the tables are filled
in: :mod:`leaderboard.publish.site.mkdocs_hooks`)."""

from __future__ import annotations

from urllib.parse import quote

from markupsafe import escape
from leaderboard.benchmarks.views import Page
from leaderboard.core.report import plural
from leaderboard.publish.site.board import Board
from leaderboard.publish.site.mkdocs_hooks import isolated
from leaderboard.publish.site.table_display import source_text

def search_doc(location: str, title: str, text: str) -> dict[str, str]:
    """A search index document. Material renders ``title`` and ``text`` as HTML (MkDocs
    stores page text escaped), so names from metadata are escaped here."""
    return {"location": location, "title": str(escape(title)), "text": str(escape(text))}


def search_entries(board: Board, pages: tuple[Page, ...]) -> list[dict[str, str]]:
    """Extra documents for the search index, which leaves the tables out (they are filled
    in after indexing, see :mod:`leaderboard.publish.site.mkdocs_hooks`): one per table, so a
    language, dataset or constraint type leads to its tab, and one per model without a
    submission page of its own (reported models) and benchmark page, which opens the page
    with the name filter set to it and the first table holding it on screen. Locations
    must be unique: Material's search keys results by them. A name in a document's text
    is set apart from the words after it (:func:`isolated`), as the pages set it apart."""
    entries: list[dict[str, str]] = []
    for page in pages:
        html = page.path[:-3] + ".html"
        for view in page.views:
            entries.append(search_doc(f"{html}#{view.anchor}", view.title,
                                      f"{page.title}: {view.title}. {view.note}".strip()))
        found: dict[str, tuple[str, list[str]]] = {}
        sources: dict[str, set[str]] = {}
        for view in page.views:
            for line in board.tables[view.id].lines:
                if line.submission_row is not None:
                    continue  # its submission page is indexed already
                found.setdefault(line.key, (line.name, []))[1].append(view.anchor)
                sources.setdefault(line.key, set()).update(
                    source_text(r, full=False) for r in line.rows)
        for key, (name, anchors) in found.items():
            entries.append(search_doc(
                # No "#" here: Material keys a top-level result by its path alone.
                f"{html}?fb-name={quote(name, safe='')}&fb-view={anchors[0]}", name,
                f"{isolated(name)} on {page.title} ({plural(len(anchors), 'table')}): "
                + "; ".join(sorted(sources[key]))))
    return entries
