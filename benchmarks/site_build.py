"""Benchmark of `leaderboard build`: build time, page sizes and the total size of the site
for many synthetic submissions, and the time to sort a 1,000-row table in Chromium.

    python benchmarks/site_build.py                       # 1,000 submissions, every task
    python benchmarks/site_build.py --submissions 200 --queries 20 --no-browser

Every synthetic submission covers every registered task (FollowIR, mFollowIR, FollowTable
and all ~300 PI-Indic val150 tasks) with per-query scores for every metric key, so each
view's table has one row per submission. The build is timed twice: cold (every
significance test computed) and warm (the tier cache from the cold build reused, as on a
rebuild where the scores did not change). Prints the figures; writes nothing in the repo.

``--store folder`` or ``--store https`` writes each results.json as git keeps it with a run
store and puts its per-query file in a folder store, or serves that folder over HTTP on
the loopback address: the build then fetches and verifies every per-query file through
the store (cold: the store's cache empty too; warm: from the cache).
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

from benchmarks.machine import cpu_description  # noqa: E402
from leaderboard.site import build_site  # noqa: E402
from leaderboard.site.synthetic import write_tree  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def _serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


# GitHub Pages publishes sites up to 1 GB; the 1,000-submission site must stay well under.
SIZE_TARGET_MB = 300


def site_breakdown(out: Path) -> list[tuple[str, float]]:
    """MiB of the built site by kind: submission pages, downloads, search index, the
    other pages, and assets (theme and ours)."""
    sizes = {"submission pages": 0, "downloads": 0, "search index": 0, "other pages": 0,
             "assets": 0}
    for p in out.rglob("*"):
        if not p.is_file():
            continue
        top = p.relative_to(out).parts[0]
        kind = ("submission pages" if top == "submissions" else "downloads" if top == "downloads"
                else "search index" if top == "search" else "assets" if top == "assets"
                else "other pages")
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
                             "default), or in a run store read through a folder or HTTP")
    parser.add_argument("--read-only", action="store_true",
                        help="only time reading every results file (load_rows), twice: "
                             "the part of the build a run store changes")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="followboard-bench-")) if args.keep is None else args.keep
    work.mkdir(parents=True, exist_ok=True)
    try:
        root, cache = work / "root", work / "cache"
        store = work / "store" if args.store != "none" else None
        t0 = time.perf_counter()
        if not (args.reuse_tree and (root / "submissions").is_dir()):
            write_tree(root, args.submissions, n_queries=args.queries, hostile=False,
                       run_files=1, per_query_store=store)
        gen = time.perf_counter() - t0
        server = None
        if store is not None:
            os.environ["FOLLOWBOARD_STORE_CACHE"] = str(work / "store-cache")
            if args.store == "https":
                server, url = _serve(store)
                os.environ["FOLLOWBOARD_RUN_STORE"] = url
            else:
                os.environ["FOLLOWBOARD_RUN_STORE"] = str(store)
            stored = sum(p.stat().st_size for p in store.rglob("*") if p.is_file()) / 2**20
            print(f"per-query scores in a {args.store} run store: {stored:.0f} MiB of "
                  f"per-query.json.gz")
        if not args.sort_only:
            shutil.rmtree(cache, ignore_errors=True)  # the first build is really cold
            shutil.rmtree(work / "store-cache", ignore_errors=True)
        if args.read_only:
            from leaderboard.standings import load_rows

            for label in ("cold", "warm"):
                wall, cpu = time.perf_counter(), time.process_time()
                rows, _ = load_rows(root)
                print(f"reading {len(rows)} rows ({label} store cache): "
                      f"{time.perf_counter() - wall:.1f} s wall, "
                      f"{time.process_time() - cpu:.1f} s CPU, "
                      f"load average {os.getloadavg()[0]:.1f}")
            if server is not None:
                server.shutdown()
            return 0
        data_mb = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) / 2**20
        print(f"synthetic tree: {args.submissions} submissions x every task, "
              f"{args.queries} queries per task, {data_mb:.0f} MiB, written in {gen:.1f} s")
        print(f"machine: {cpu_description()}")
        for label in () if args.sort_only else ("cold", "warm"):
            out = work / f"site-{label}"
            load = os.getloadavg()[0]
            cpu0 = time.process_time()
            result = build_site(root, out, cache_dir=cache)
            cpu = time.process_time() - cpu0
            page, size = result.largest_page
            total = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 2**20
            parts = site_breakdown(out)
            gz = len(gzip.compress((out / page).read_bytes(), 6)) / 2**20
            # The build is single-threaded: on an idle machine its wall time is about its
            # CPU time; on a shared one (load average above the core count) wall > CPU.
            print(f"build ({label} tier{' and store' if store else ''} cache): "
                  f"{result.seconds:.1f} s wall, {cpu:.1f} s CPU, "
                  f"load average {load:.1f} "
                  f"(results + tiers + render {result.render_seconds:.1f} s, "
                  f"mkdocs {result.mkdocs_seconds:.1f} s); {result.pages} pages, "
                  f"site {total:.0f} MiB; largest page {page} {size / 2**20:.2f} MiB "
                  f"({gz:.2f} MiB gzipped, as a web server sends it)")
            print(f"site size ({label}): {total:.0f} MiB in all (target {SIZE_TARGET_MB} MB, "
                  f"{'met' if total * 2**20 <= SIZE_TARGET_MB * 10**6 else 'MISSED'}): "
                  + ", ".join(f"{name} {mib:.0f} MiB" for name, mib in parts))
        if server is not None:
            server.shutdown()
        if not args.no_browser:
            if not Path(CHROMIUM).exists():
                print(f"sort timing skipped: {CHROMIUM} not installed")
            else:
                rows, times = measure_sort(work / "site-warm", "followir.html")
                print(f"click-to-paint sort of a {rows}-row table in Chromium: median "
                      f"{statistics.median(times):.1f} ms, max {max(times):.1f} ms "
                      f"over {len(times)} sorts (top 100 rows shown, as the site does)")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
