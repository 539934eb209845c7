"""`leaderboard export --out DIR`: the leaderboard as a dataset folder laid out for the
Hugging Face Hub (:mod:`leaderboard.publish.export`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from leaderboard.app.commands import new_command, store_option, warn
from leaderboard.core.errors import UsageError


def register(sub: "argparse._SubParsersAction") -> None:
    parser = new_command(
        sub, "export", "write the results as a dataset folder for the Hugging Face Hub",
        "Write DIR as a Hugging Face dataset: a README.md card whose configs name each "
        "table, Parquet files (the standings, reported rows with their sources, verified "
        "submissions' metadata, task figures, cost and per-query scores, one file per "
        "benchmark, the model records with their training data), a JSON Schema per table "
        "and release.json, the release manifest. Offline; reads what `leaderboard build` "
        "reads. A folder not made by this command is refused. --push uploads the folder "
        "to a Hugging Face dataset in one commit (huggingface_hub; the token is $HF_TOKEN), "
        "removing from the export's folders there what an earlier release left and this "
        "one has not, and checks that commit holds every file.",
        "  leaderboard export --out dataset/\n"
        "  leaderboard export --out dataset/ --push hf://datasets/followboard/results\n"
        "  datasets.load_dataset('dataset/', 'per_query')  # in Python")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="the dataset folder (replaced when a previous export made it)")
    parser.add_argument("--results-root", type=Path, default=Path("."), metavar="DIR",
                        help="repository root holding submissions/ and results/ (default .)")
    parser.add_argument("--cache-dir", type=Path, default=Path(".cache/site-tiers"),
                        metavar="DIR", help="significance results shared with `leaderboard "
                                            "build` (default: .cache/site-tiers)")
    parser.add_argument("--no-cache", action="store_true",
                        help="recompute every significance test")
    parser.add_argument("--push", metavar="hf://datasets/OWNER/NAME", default=None,
                        help="then upload the folder to this Hugging Face dataset")
    parser.add_argument("--existing", action="store_true",
                        help="with --push: push DIR as an earlier export wrote it, each file "
                             "checked against its release.json, without exporting again")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from leaderboard.core.fileio import size_text
    from leaderboard.core.report import plural
    from leaderboard.publish.export import EXPORT_MARKER, export_dataset
    from leaderboard.publish.export_check import checked_export, stale_files
    from leaderboard.store.hub import Upload, push_files, repository_files
    from leaderboard.store.locations import HubStore

    store = None
    if args.push is not None:  # refused before anything is computed
        store = store_option(args.push, "--push")
        if not isinstance(store, HubStore):
            raise UsageError(f"--push {args.push!r}: name a Hugging Face dataset, "
                             "hf://datasets/<owner>/<name>")
    if args.existing:
        if store is None:
            raise UsageError("--existing pushes an earlier export: give --push too")
        release, files = checked_export(args.out)
    else:
        result = export_dataset(args.results_root, args.out,
                                cache_dir=None if args.no_cache else args.cache_dir)
        for warning in result.warnings:  # as `leaderboard build` says them
            warn(args, warning)
        total = sum(result.files.values())
        print(f"exported {plural(len(result.files), 'file')} ({size_text(total)}) to "
              f"{result.out_dir} in {result.seconds:.1f} s; release {result.release['name']}")
        release, files = result.release, sorted(result.files)
    if store is not None:
        uploads = [Upload(args.out / path, path) for path in files if path != EXPORT_MARKER]
        head, held = repository_files(store)
        removed = stale_files(held, [u.repo_path for u in uploads])
        commit = push_files(store, uploads, f"FollowBoard release {release['name']}",
                            delete=removed, parent_commit=head)
        print(f"pushed {plural(len(uploads), 'file')} to {store.describe()} at commit {commit}"
              + (f", removing {plural(len(removed), 'file')} an earlier release left "
                 f"({removed[0]}" + (", ...)" if len(removed) > 1 else ")") if removed else ""))
    return 0
