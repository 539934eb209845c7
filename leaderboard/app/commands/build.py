"""`leaderboard build`: render the static leaderboard site from the repository's results."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from leaderboard.app.commands import new_command, warn


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "build", "build the static leaderboard site (MkDocs, works offline)",
        "Read submissions/*/results.json and results/reported/*.json under the results root,\n"
        "render the pages (tables, downloads, charts, one page per submission) and run\n"
        "`mkdocs build --strict`. The site needs no network; open OUT/index.html, or serve it\n"
        "with `python -m http.server -d OUT` to use the query explorer and the search box.\n\n"
        "Pages link each other relatively, so the site works at any address, all but\n"
        "404.html: the server shows it at any missing path, at any depth, so it links from\n"
        "the site's address, --site-url (publish.yml passes the one GitHub Pages reports).",
        "  leaderboard build --out site/build\n"
        "  leaderboard build --out site/build --site-url https://OWNER.github.io/REPO/\n"
        "  python -m http.server -d site/build 8000   # then open http://127.0.0.1:8000/")
    p.add_argument("--out", type=Path, default=Path("site/build"), metavar="DIR",
                   help="where the built site goes (default: site/build); a previous build "
                        "there is replaced, any other non-empty directory is refused")
    p.add_argument("--results-root", type=Path, default=Path("."), metavar="DIR",
                   help="folder holding submissions/ and results/reported/ (default: .)")
    p.add_argument("--docs-dir", type=Path, default=Path("site/docs"), metavar="DIR",
                   help="where the generated Markdown tree is kept (default: site/docs)")
    p.add_argument("--cache-dir", type=Path, default=Path(".cache/site-tiers"), metavar="DIR",
                   help="significance results keyed by a hash of their inputs, reused by the "
                        "next build (default: .cache/site-tiers)")
    p.add_argument("--site-url", metavar="URL",
                   help="the address the site is served from, such as "
                        "https://OWNER.github.io/REPO/ for a GitHub Pages project site: "
                        "the 404 page links from its path (also each page's canonical "
                        "address). Without it the 404 page links from /, which holds only "
                        "for a site served at a domain's root")
    p.add_argument("--no-cache", action="store_true", help="recompute every significance test")
    p.add_argument("--quiet", action="store_true", help="print only warnings and errors")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from leaderboard.app.board_ids import reference_ids
    from leaderboard.core.fileio import size_text
    from leaderboard.publish.site.build import build_site

    result = build_site(args.results_root, args.out, docs_dir=args.docs_dir,
                        reference_ids=reference_ids(),
                        cache_dir=None if args.no_cache else args.cache_dir,
                        site_url=args.site_url)
    for warning in result.warnings:
        warn(args, warning)
    if not args.quiet:
        page, size = result.largest_page
        built = result.out_dir.resolve()
        print(f"built {result.pages} pages into {built} in {result.seconds:.1f} s "
              f"(render {result.render_seconds:.1f} s, mkdocs {result.mkdocs_seconds:.1f} s); "
              f"largest page {page} ({size_text(size)})")
        # Opened from disk, pages show but the explorer and the search box cannot load
        # their files: serving the folder is the way to use it all.
        print(f"serve it: python -m http.server -d {shlex.quote(str(built))} 8000, then open "
              f"http://127.0.0.1:8000/ (or open {built / 'index.html'} without the explorer "
              "and the search box)")
    return 0
