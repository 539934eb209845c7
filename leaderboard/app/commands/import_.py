"""`leaderboard import`: bring published results in as reported rows."""

from __future__ import annotations

import argparse
from pathlib import Path

from leaderboard.app.commands import add_data_dir, new_command, warn

DEFAULT_OUT = Path("results/reported")


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "import", "import published results as reported rows",
        "`import mteb` reads MTEB result JSONs (1.x and 2.x layouts, each row keeping its "
        "mteb version) and model_meta.json into one reported results file. `import all` "
        "rebuilds every reported file: the papers' transcribed tables, the PI-Indic authors' "
        "result files and MTEB's results.",
        "  leaderboard import mteb ../shared/data/mteb-results\n"
        "  leaderboard import all --data-dir ../shared/data")
    kinds = p.add_subparsers(dest="source", metavar="SOURCE")
    kinds.required = True
    mteb = new_command(
        kinds, "mteb", "MTEB results repository (results/<org>__<model>/...)",
        "Read the MTEB result JSONs under RESULTS_DIR (a clone of embeddings-benchmark/"
        "results, which `data pull` does not fetch; `import all` reads the copy at "
        "mteb-results/ in the data folder) and write one reported results file of the "
        "leaderboard's tasks they cover. Each row names the commit of the results "
        "repository its files come from: a clone's HEAD, the pinned commit for the data "
        "folder's copy, else none (the row's note and a warning say why).",
        "  leaderboard import mteb ../shared/data/mteb-results\n"
        "  leaderboard import mteb ../mteb-results --out /tmp/mteb-results.json")
    mteb.add_argument("results_dir", metavar="RESULTS_DIR", type=Path)
    mteb.add_argument("--out", type=Path, default=DEFAULT_OUT / "mteb-results.json",
                      metavar="FILE", help="output file (default: %(default)s)")
    add_data_dir(mteb)
    mteb.set_defaults(handler=run_mteb)
    every = new_command(
        kinds, "all", "rebuild every file under results/reported/",
        "Rebuild every reported results file from its sources: the papers' transcribed "
        "tables, the PI-Indic authors' result files and MTEB's results (under --data-dir).",
        "  leaderboard import all --data-dir ../shared/data")
    every.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                       help="output folder (default: %(default)s)")
    # --out-dir, this option's first name, still parses for the scripts that give it;
    # no help shows it (every command's output option is --out).
    every.add_argument("--out-dir", dest="out", type=Path, default=argparse.SUPPRESS,
                       metavar="DIR", help=argparse.SUPPRESS)
    add_data_dir(every)
    every.set_defaults(handler=run_all)


def run_mteb(args: argparse.Namespace) -> int:
    from leaderboard.core.data import resolve_data_dir
    from leaderboard.publish.reported.mteb import (import_mteb, is_data_folder_copy,
                                                   summarise, unknown_commit_warning)
    from leaderboard.submission.results import write_results

    pinned = is_data_folder_copy(args.results_dir, resolve_data_dir(args.data_dir))
    results = import_mteb(args.results_dir, pinned_copy=pinned)
    write_results(args.out, results)
    warning = unknown_commit_warning(results)
    if warning:
        warn(args, warning)
    print(f"imported {summarise(results)} -> {args.out}")
    return 0


def run_all(args: argparse.Namespace) -> int:
    from leaderboard.core.data import resolve_data_dir
    from leaderboard.publish.reported.rebuild import build_all_reported

    for path in build_all_reported(resolve_data_dir(args.data_dir), args.out):
        print(path)
    return 0
