"""The published leaderboard site: results -> Markdown/HTML docs tree -> MkDocs (Material).

    build       build_site: read the results, render the pages, run ``mkdocs build``
    board       every view filled from the results (standings), and the submissions
    render      the pages themselves (jinja2 templates, the display model of a table)
    overview    the home page (one row per model)
    explorer    the query explorer's page and index
    format      display helpers: scores, sizes, safe links
"""
