"""Benchmark of `leaderboard build`: build time, page sizes and the total size of the site
for many synthetic submissions, the time to sort a 1,000-row table in Chromium, and the
query explorer's bytes and load times.

    python benchmarks/site_build.py                       # 1,000 submissions, every task
    python benchmarks/site_build.py --submissions 200 --queries 20 --no-browser

Every synthetic submission covers every registered task (FollowIR, mFollowIR, FollowTable
and all ~300 PI-Indic val150 tasks) with per-query scores for every metric key, so each
view's table has one row per submission. The build is timed twice: cold (every
significance test computed) and warm (the tier cache from the cold build reused, as on a
rebuild where the scores did not change). Prints the figures; writes nothing in the repo.

The explorer's explanation files live in the run store, as for a public deployment:
one setting (``$LEADERBOARD_RUN_STORE``) says where, and the site derives from it where
the browser fetches them (leaderboard/submission/explain_files.py, ``browser_base``). Here the store
is a local HTTP server on another port (so the browser fetches them cross-origin, as
from a Hugging Face dataset), holding synthetic explanation files of every submission
for FollowTable WQT and the 12 PI-Indic T1 tasks (cards as large per query as real
FollowTable cards), and the committed BM25 submission's real files (its WQT cards: 1,386
queries in 15 slices, 1.1 MB gzipped), whose results join the tree; each results.json
names its explanation manifest, which the build reads through the store, verified.
Chromium then times, from a fresh cache, how long a list, a card, compare mode and the
heatmaps take from navigation to drawn; and, for the option of computing cards in the
browser from the runs, how long fetching, inflating and parsing BM25's two WQT runs takes.

``--store`` says where the per-query scores are: in each results.json (``none``, the
default), or in the run store as ``per-query.json.gz`` beside the explanation files
(``https``: the same HTTP server; ``folder``: a folder store, whose explanation files
the site then copies, as it does for the repository's own folder store). The build reads
and verifies every per-query file through the store (cold: the store's cache empty too;
warm: from the cache).
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from benchmarks.machine import cpu_description  # noqa: E402
from leaderboard.submission.explain_files import explain_dir  # noqa: E402
from leaderboard.publish.site.build import build_site  # noqa: E402
from leaderboard.submission.results import read_results  # noqa: E402
from fixtures.synthetic import (name_explanations, write_explanations,  # noqa: E402
                                write_tree)
from leaderboard.core.config import ENV_CACHE_DIR, ENV_RUN_STORE
from leaderboard.store.locations import FolderStore  # noqa: E402
from leaderboard.submission.layout import PER_QUERY_NAME  # noqa: E402
from reference_models.spec import load_model_specs  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
# The tasks whose synthetic explanation files the store holds: one FollowTable dataset
# (heatmap grouped by constraint type) and a PI-Indic family (grouped by language).
EXPLAINED_TASKS = ["followtable/wqt"] + [f"pi-indic-val150/t1/{lang}" for lang in (
    "asm", "ben", "guj", "hin", "kan", "mal", "mar", "ory", "pan", "tam", "tel", "urd")]
REAL = "bm25s"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def _serve(folder: Path, cors: bool = False) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_StoreHandler if cors else _QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


class _StoreHandler(_QuietHandler):
    """A store the site's pages read from another origin (Hugging Face allows that too)."""

    def end_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()


def write_store(root: Path, store: Path, seed: int = 7) -> tuple[int, float]:
    """Synthetic explanation files of every synthetic submission for EXPLAINED_TASKS in the
    run store folder ``store`` (``submissions/<id>/explain/``, as `runs push` leaves
    them), each named in its results.json; and the committed BM25 submission (its results
    in the tree; its per-query file, explanation files and WQT runs in the store).
    Returns (files, MiB) of the explanation files in the store."""
    import numpy as np

    rng = np.random.default_rng(seed)
    in_store = store / "submissions"
    for folder in sorted((root / "submissions").iterdir()):
        if folder.name == REAL:
            # A reused tree holds the real submission from the last run: its files are
            # copied afresh below, and its per-query scores, which its results.json reads
            # from the store, are not there until then.
            continue
        results_path = folder / "results.json"
        results = read_results(results_path, FolderStore(store))
        written = write_explanations(in_store, folder.name, results, EXPLAINED_TASKS, rng)
        name_explanations(results_path, written)
    real = REPO / "submissions" / REAL
    target = root / "submissions" / REAL
    target.mkdir(parents=True, exist_ok=True)
    for name in ("metadata.yaml", "results.json"):
        shutil.copyfile(real / name, target / name)
    shutil.copytree(explain_dir(real), in_store / REAL / "explain", dirs_exist_ok=True)
    shutil.copyfile(real / PER_QUERY_NAME, in_store / REAL / PER_QUERY_NAME)
    # The runs, for the cost of computing a card in the browser from them instead.
    for role in ("original", "altered"):
        run = in_store / REAL / "runs" / "followtable" / "wqt" / f"{role}.trec.gz"
        run.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(real / "runs" / "followtable" / "wqt" / f"{role}.trec.gz", run)
    files = [p for p in in_store.glob("*/explain/**/*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files) / 2**20


def explorer_bytes(out: Path) -> dict[str, int]:
    """Bytes of the explorer in the built site: its page, script, style and index files."""
    parts = {"page + assets": [out / "explore.html"] + sorted((out / "assets").glob("explorer*")),
             "index": [out / "explore" / "index.json"],
             "task files": sorted((out / "explore" / "tasks").rglob("*.json")),
             "copied explanation files": sorted((out / "explore" / "data").rglob("*"))
             + sorted((out / "explore" / "texts").rglob("*"))}
    return {k: sum(p.stat().st_size for p in v if p.is_file()) for k, v in parts.items()}


# GitHub Pages publishes sites up to 1 GB; the 1,000-submission site must stay well under.
SIZE_TARGET_MB = 300


def site_breakdown(out: Path) -> list[tuple[str, float]]:
    """MiB of the built site by kind: submission pages, downloads, search index, the
    other pages, and assets (theme and ours)."""
    sizes = {"submission pages": 0, "downloads": 0, "search index": 0, "explorer": 0,
             "other pages": 0, "assets": 0}
    for p in out.rglob("*"):
        if not p.is_file():
            continue
        top = p.relative_to(out).parts[0]
        kind = ("submission pages" if top == "submissions" else "downloads" if top == "downloads"
                else "search index" if top == "search"
                else "explorer" if top in ("explore", "explore.html") or p.name.startswith("explorer")
                else "assets" if top == "assets" else "other pages")
        sizes[kind] += p.stat().st_size
    return [(k, v / 2**20) for k, v in sizes.items()]


def measure_sort(site: Path, page: str, repeats: int = 6) -> tuple[int, list[float]]:
    """Time a click on a column header of the page's largest table until the next frame
    has been painted: the sort, the row limit, style, layout and paint."""
    from playwright.sync_api import sync_playwright

    server, base = _serve(site)
    try:
        with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
            browser = pw.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            tab = browser.new_page()
            tab.goto(base + page, wait_until="load")
            rows = tab.evaluate("""() => {
                // The page keeps only the rows on screen in the DOM; count the model's.
                const size = t => window.fbTables.rows(t).length;
                const t = [...document.querySelectorAll('table.fb-table')]
                  .sort((a, b) => size(b) - size(a))[0];
                t.id = 'bench-table';
                // Show the table's tab, so the timing includes its layout.
                const block = t.closest('.tabbed-block');
                if (block) {
                  const i = [...block.parentElement.children].indexOf(block);
                  block.closest('.tabbed-set').querySelectorAll(':scope > input')[i].checked = true;
                }
                return size(t); }""")
            times = []
            for i in range(repeats):
                # Alternate between the last two columns so every click reorders the rows.
                ms = tab.evaluate("""async ([i]) => {
                    const t = document.getElementById('bench-table');
                    const cells = t.tHead.rows[0].cells;
                    const th = cells[cells.length - 1 - (i % 2)];
                    const t0 = performance.now();
                    th.click();
                    await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
                    return performance.now() - t0; }""", [i])
                times.append(ms)
            browser.close()
    finally:
        server.shutdown()
    return rows, times


def measure_explorer(site: Path, store_url: str, repeats: int = 5
                     ) -> list[tuple[str, list[float]]]:
    """Milliseconds from navigation to the view drawn (``data-state=ready``), each view
    opened ``repeats`` times in a fresh page with the browser cache off, so every file is
    fetched and inflated again. Then the option the explorer does without: fetching,
    inflating and parsing BM25's two WQT runs in the browser, the least a card computed
    from the runs would need before it could rank anything."""
    from playwright.sync_api import sync_playwright

    wqt = read_results(REPO / "submissions" / REAL / "results.json").systems[0] \
        .tasks["followtable/wqt"].per_query["IRS"]
    real_query = sorted(wqt)[len(wqt) // 2]
    cases = [
        ("card, BM25 on WQT (real files: 1,386 queries, cards in 15 slices of 75 KB gzipped)",
         f"?s={REAL}&t=followtable/wqt&query={real_query}"),
        ("query list, BM25 on WQT (1,386 rows)", f"?s={REAL}&t=followtable/wqt"),
        ("card, a synthetic submission on WQT", "?s=sub-0001&t=followtable/wqt&query=q3"),
        ("compare, two synthetic cards side by side",
         "?s=sub-0001&vs=sub-0002&t=followtable/wqt&query=q3"),
        ("compare list, two synthetic submissions", "?s=sub-0001&vs=sub-0002&t=followtable/wqt"),
        ("heatmap, WQT x the best 20 submissions", "?view=heatmap&t=followtable/wqt"),
        ("heatmap, 12 T1 languages x the best 20 submissions",
         "?view=heatmap&t=pi-indic-val150/t1/hin"),
    ]
    server, base = _serve(site)
    out = []
    try:
        with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
            browser = pw.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            for label, query in cases:
                times = []
                for _ in range(repeats):
                    tab = browser.new_page()
                    cdp = browser.new_cdp_session(tab)
                    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
                    tab.goto(base + "explore.html" + query)
                    tab.wait_for_selector("#fb-explorer[data-state]:not([data-state=loading])",
                                          timeout=60_000)
                    state = tab.evaluate("document.getElementById('fb-explorer').dataset.state")
                    if state != "ready":
                        raise RuntimeError(f"{label}: {tab.inner_text('#fb-explorer')[:300]}")
                    times.append(tab.evaluate("performance.now()"))
                    tab.close()
                out.append((label, times))
            tab = browser.new_page()
            tab.goto(base + "explore.html")
            times = []
            for _ in range(max(2, repeats // 2)):
                times.append(tab.evaluate("""async (store) => {
                    const t0 = performance.now();
                    const lines = [];
                    for (const role of ['original', 'altered']) {
                        const r = await fetch(store + 'runs/followtable/wqt/' + role + '.trec.gz', {cache: 'no-store'});
                        const text = await new Response(r.body.pipeThrough(
                            new DecompressionStream('gzip'))).text();
                        for (const line of text.split('\\n')) {
                            if (line) { const f = line.split(/\\s+/); lines.push([f[0], f[2], +f[4]]); }
                        }
                    }
                    return performance.now() - t0; }""", store_url + f"submissions/{REAL}/"))
            out.append(("BM25's two WQT runs fetched, inflated and parsed in the browser "
                        "(no ranking yet)", times))
            browser.close()
    finally:
        server.shutdown()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submissions", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=10,
                        help="per-query scores per task and metric (default 10)")
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium sort timing")
    parser.add_argument("--keep", type=Path, default=None, help="keep the work folder here")
    parser.add_argument("--reuse-tree", action="store_true",
                        help="with --keep: reuse the synthetic tree already there")
    parser.add_argument("--sort-only", action="store_true",
                        help="with --keep: only time the sort, on the site already built there")
    parser.add_argument("--store", choices=("none", "folder", "https"), default="none",
                        help="where the per-query scores are: in results.json (none, the "
                             "default), or in the run store beside the explanation files "
                             "(https: the HTTP store; folder: a folder store, whose "
                             "explanation files the site copies)")
    parser.add_argument("--read-only", action="store_true",
                        help="only time reading every results file (load_rows), twice: "
                             "the part of the build a run store changes")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="followboard-bench-")) if args.keep is None else args.keep
    work.mkdir(parents=True, exist_ok=True)
    try:
        root, cache = work / "root", work / "cache"
        # The run store: explanation files always, per-query files unless --store none.
        store = work / "store"
        t0 = time.perf_counter()
        if not (args.reuse_tree and (root / "submissions").is_dir()):
            shutil.rmtree(store, ignore_errors=True)
            write_tree(root, args.submissions, n_queries=args.queries, hostile=False,
                       run_files=1, per_query_store=store if args.store != "none" else None)
        # Written afresh even on a reused tree: the files follow the code's format.
        shutil.rmtree(store / "submissions" / REAL, ignore_errors=True)
        for old in store.glob("submissions/*/explain"):
            shutil.rmtree(old)
        store_files, store_mib = write_store(root, store)
        gen = time.perf_counter() - t0
        store_server, store_url = _serve(store, cors=True)
        os.environ[ENV_CACHE_DIR] = str(work / "cache")
        os.environ[ENV_RUN_STORE] = str(store) if args.store == "folder" else store_url
        if args.store != "none":
            stored = sum(p.stat().st_size for p in store.glob(f"submissions/*/{PER_QUERY_NAME}"))
            print(f"per-query scores in a {args.store} run store: {stored / 2**20:.0f} MiB of "
                  f"per-query.json.gz")
        if not args.sort_only:
            shutil.rmtree(cache, ignore_errors=True)  # the first build is really cold
            shutil.rmtree(work / "store-cache", ignore_errors=True)
        if args.read_only:
            from leaderboard.publish.standings import load_rows

            for label in ("cold", "warm"):
                wall, cpu = time.perf_counter(), time.process_time()
                rows, _ = load_rows(root)
                print(f"reading {len(rows)} rows ({label} store cache): "
                      f"{time.perf_counter() - wall:.1f} s wall, "
                      f"{time.process_time() - cpu:.1f} s CPU, "
                      f"load average {os.getloadavg()[0]:.1f}")
            store_server.shutdown()
            return 0
        data_mb = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) / 2**20
        print(f"synthetic tree: {args.submissions} submissions x every task (and the "
              f"committed {REAL}), {args.queries} queries per task, {data_mb:.0f} MiB, "
              f"written with the store in {gen:.1f} s")
        where = "copied into the site" if args.store == "folder" else "outside the site"
        print(f"explanation files in the run store ({where}): {store_files} files, "
              f"{store_mib:.0f} MiB ({len(EXPLAINED_TASKS)} tasks of each synthetic "
              f"submission, every task of {REAL}); a real submission of every task holds "
              "3.3-4.7 MiB of them")
        print(f"machine: {cpu_description()}")
        for label in () if args.sort_only else ("cold", "warm"):
            out = work / f"site-{label}"
            load = os.getloadavg()[0]
            cpu0 = time.process_time()
            result = build_site(root, out, cache_dir=cache,
                                reference_ids=frozenset(load_model_specs()))
            cpu = time.process_time() - cpu0
            page, size = result.largest_page
            total = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 2**20
            parts = site_breakdown(out)
            gz = len(gzip.compress((out / page).read_bytes(), 6)) / 2**20
            # The build is single-threaded: on an idle machine its wall time is about its
            # CPU time; on a shared one (load average above the core count) wall > CPU.
            print(f"build ({label} tier and store cache): "
                  f"{result.seconds:.1f} s wall, {cpu:.1f} s CPU, "
                  f"load average {load:.1f} "
                  f"(results + tiers + render {result.render_seconds:.1f} s, "
                  f"mkdocs {result.mkdocs_seconds:.1f} s); {result.pages} pages, "
                  f"site {total:.0f} MiB; largest page {page} {size / 2**20:.2f} MiB "
                  f"({gz:.2f} MiB gzipped, as a web server sends it)")
            print(f"site size ({label}): {total:.0f} MiB in all (target {SIZE_TARGET_MB} MB, "
                  f"{'met' if total * 2**20 <= SIZE_TARGET_MB * 10**6 else 'MISSED'}): "
                  + ", ".join(f"{name} {mib:.0f} MiB" for name, mib in parts))
            explorer = explorer_bytes(out)
            print(f"explorer in the site ({label}): {sum(explorer.values()) / 2**20:.2f} MiB: "
                  + ", ".join(f"{k} {v / 2**20:.2f} MiB" for k, v in explorer.items()))
        if not args.no_browser:
            if not Path(CHROMIUM).exists():
                print(f"sort timing skipped: {CHROMIUM} not installed")
            else:
                rows, times = measure_sort(work / "site-warm", "followir.html")
                print(f"click-to-paint sort of a {rows}-row table in Chromium: median "
                      f"{statistics.median(times):.1f} ms, max {max(times):.1f} ms "
                      f"over {len(times)} sorts (top 100 rows shown, as the site does)")
                print("explorer in Chromium, navigation to drawn, cache off (target: a card "
                      "under 1000 ms):")
                for label, times in measure_explorer(work / "site-warm", store_url):
                    print(f"  {label}: median {statistics.median(times):.0f} ms, "
                          f"max {max(times):.0f} ms over {len(times)}")
        store_server.shutdown()
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
