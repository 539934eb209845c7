"""The home page as a researcher reads it (issue 18 item 1), in Chromium.

The site built from what the repository commits, as the quickstart builds it, served on
127.0.0.1 and opened in the system Chromium through Playwright, as tests/test_site_browser.py
does. Fails on any console error or request leaving localhost.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fixtures.chromium import CHROMIUM, offline_context, serve, watched
from leaderboard.publish.models import resolve_model
from leaderboard.submission.results import read_results

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent

if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="the playwright Python package is not installed")


@pytest.fixture(scope="module")
def site(committed_site: Path):
    server, url = serve(committed_site)
    yield {"url": url, "root": ROOT}
    server.shutdown()


@pytest.fixture(scope="module")
def page(site, tmp_path_factory: pytest.TempPathFactory):
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as pw:
        context = offline_context(pw, profile, viewport={"width": 1280, "height": 900})
        tab = context.new_page()
        problems = watched(tab)
        tab.goto(site["url"] + "index.html", wait_until="networkidle")
        yield tab
        assert problems == [] and context.outside == []
        context.close()


def _rows(tab, view: str) -> list[dict]:
    """Every row of a table, including those not in the DOM before "Show all"."""
    return tab.evaluate("""(view) => {
        const table = document.querySelector('#' + view + ' table.fb-table');
        return window.fbTables.rows(table).map(r => ({
            key: r.dataset.k, prov: r.dataset.p, inDom: r.isConnected,
            name: r.querySelector('.fb-n').textContent,
            cells: [...r.cells].map(c => ({v: c.dataset.v, text: c.textContent.trim(),
                                            cp: c.dataset.cp || ''}))}));
    }""", view)


def test_verified_submissions_are_visible_without_expanding(site, page) -> None:
    names = [read_results(p).systems[0].model.name
             for p in sorted((site["root"] / "submissions").glob("*/results.json"))]
    assert names
    for name in names:
        cell = page.locator("#home-verified .fb-n", has_text=name).first
        assert cell.is_visible(), name
    # In the model table, models with a verified submission come first and are on screen
    # before any "Show all".
    rows = _rows(page, "home-models")
    verified = [r for r in rows if r["prov"] == "verified"]
    assert len(verified) >= len({resolve_model(read_results(p).systems[0]).id for p in
                                 (site["root"] / "submissions").glob("*/results.json")})
    assert rows[:len(verified)] == verified
    assert all(r["inDom"] for r in verified)


def test_one_row_per_model(site, page) -> None:
    rows = _rows(page, "home-models")
    keys = [r["key"] for r in rows]
    assert len(keys) == len(set(keys))
    names = [r["name"] for r in rows]
    assert len(names) == len(set(names))
    # FollowIR-7B is printed under four names by four sources: one row, one type.
    followir = [r for r in rows if re.fullmatch(r"FollowIR-7B", r["name"])]
    assert len(followir) == 1
    assert followir[0]["cells"][2]["text"] == "llm-reranker"
    scored = sum(1 for c in followir[0]["cells"][6:] if c["v"])
    assert scored >= 3  # FollowIR, mFollowIR and FollowTable figures in one row


def test_counts_match_what_the_page_lists(site, page) -> None:
    counts = page.locator(".fb-home-counts")
    data = {k: int(counts.get_attribute(f"data-{k}"))
            for k in ("models", "verified", "reported", "unlisted")}
    text = counts.inner_text()
    assert f"{data['models']} models" in text
    assert len(_rows(page, "home-models")) == data["models"]
    assert len(_rows(page, "home-verified")) == data["verified"]
    reported = sum(len(read_results(p).systems)
                   for p in (site["root"] / "results" / "reported").glob("*.json"))
    assert data["reported"] + data["unlisted"] == reported
    assert (f"{data['reported']} reported row" + ("" if data["reported"] == 1 else "s")) in text


def test_every_listed_model_has_a_score_or_its_coverage(page) -> None:
    for row in _rows(page, "home-models"):
        scores = row["cells"][6:]
        assert any(c["v"] or re.fullmatch(r"\d+/\d+", c["text"]) for c in scores), row["name"]
        # Every figure says where it comes from: verified or reported.
        assert all(c["cp"] in ("v", "r") for c in scores if c["v"])


def test_legend_explains_every_mark(page) -> None:
    legend = page.locator(".fb-home-legend")
    assert legend.is_visible()
    assert legend.locator("b", has_text="Bold").count() == 1
    assert legend.locator("u", has_text="Underlined").count() == 1
    assert legend.locator("i", has_text="Italic").count() == 1
    assert legend.locator(".fb-prov-v").count() == 1 and legend.locator(".fb-prov-r").count() == 1


def test_the_legend_explains_a_coverage_mark_only_where_a_cell_shows_one(page) -> None:
    """The legend said what "2/3" means (a model with figures for 2 of a benchmark's 3
    tasks) over tables where no cell shows such a mark: it is there exactly when one does,
    as the legend's "data @…" is."""
    marks = page.evaluate("""() => [...document.querySelectorAll(
        '#home-verified td small, #home-models td small')]
        .filter(s => /^\\d+\\/\\d+$/.test(s.textContent.trim())).length""")
    legend = page.locator(".fb-home-legend").inner_text()
    assert ("2/3: the model has figures for 2 of the benchmark's 3 tasks" in legend) == (marks > 0), \
        (marks, legend)
