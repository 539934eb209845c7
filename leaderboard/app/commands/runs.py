"""`leaderboard runs`: move and check a submission's run files (the run store by hand).

The logic lives in :mod:`leaderboard.app.transfer`; where the store is, in
:mod:`leaderboard.store.locations` (``$LEADERBOARD_RUN_STORE``, else ``run-store`` under
``[tool.followboard]`` in pyproject.toml).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from leaderboard.app.commands import (add_data_dir, each_submission, new_command, store_option,
                                      submission_dir)


def register(sub: "argparse._SubParsersAction") -> None:
    parser = new_command(
        sub, "runs", "fetch, store, check or add a submission's run files (the run store)",
        "A submission's run files are listed in its manifest.txt (SHA-256, size, path) and "
        "kept in its folder, in the run store, or in the submitter's own Hugging Face "
        "dataset. The store is $LEADERBOARD_RUN_STORE, else run-store under "
        "[tool.followboard] in pyproject.toml: a folder (default: the repository), "
        "hf://datasets/<owner>/<name>, or a read-only https:// URL.",
        "  leaderboard runs verify submissions/bm25s\n"
        "  leaderboard runs push --all\n"
        "  leaderboard runs push submissions/my-model --to hf://datasets/me/my-runs\n"
        "  leaderboard runs add submissions/my-model --from ../new-runs --tasks 'followtable/*'")
    actions = parser.add_subparsers(dest="runs_command", metavar="ACTION")
    actions.required = True

    pull = new_command(
        actions, "pull", "fetch the files a submission lists into its folder",
        "Fetch every file of each submission's manifest, its per-query scores and its "
        "explanation files (the query explorer's) into the submission's folder, each "
        "verified against its size and SHA-256; the folder changes as one transaction. "
        "The explanation files, which CI writes and a pull request never carries, are kept "
        "in the run store's cache instead unless the folder is a merged submission's where "
        "publishing writes them (in a git checkout: where its default branch holds them).",
        "  leaderboard runs pull submissions/bm25s\n"
        "  LEADERBOARD_RUN_STORE=hf://datasets/me/my-runs leaderboard runs pull "
        "submissions/my-model")
    pull.add_argument("submissions", nargs="+", type=submission_dir, metavar="SUBMISSION_DIR")
    pull.set_defaults(handler=run_pull)

    push = new_command(
        actions, "push", "put submissions' files into the run store and record where",
        "Upload (Hugging Face dataset: one commit) or copy (folder) every file of each "
        "submission to the run store, write the commit into its manifest's source: line, "
        "and remove the folder's copies (--keep to keep them). Submissions already in the "
        "store are left alone. Nothing is pushed unless every folder given is a "
        "submission whose files can all be had (unlike verify and pull, which go on past "
        "a folder that is not there). A Hugging Face push uses huggingface_hub's token "
        "($HF_TOKEN).",
        "  leaderboard runs push submissions/my-model --to hf://datasets/me/my-runs\n"
        "  leaderboard runs push --all --quiet")
    push.add_argument("submissions", nargs="*", type=submission_dir, metavar="SUBMISSION_DIR")
    push.add_argument("--all", action="store_true",
                      help="every submission under --submissions-dir")
    push.add_argument("--submissions-dir", type=Path, default=Path("submissions"),
                      metavar="DIR", help="where --all looks (default: ./submissions)")
    push.add_argument("--to", metavar="STORE", default=None,
                      help="a store other than the configured one: hf://datasets/<owner>/<name> "
                           "(e.g. your own dataset, before a pull request; the manifest "
                           "records its commit), or a folder with --keep (a manifest cannot "
                           "record a folder, so the folder's copies stay)")
    push.add_argument("--keep", action="store_true",
                      help="keep the folder's copies of the pushed files")
    push.add_argument("--quiet", action="store_true", help="no progress lines")
    push.set_defaults(handler=run_push)

    verify = new_command(
        actions, "verify", "fetch and check every file a submission names",
        "Fetch (into the cache) every file each submission's manifest lists, its per-query "
        "scores and its explanation files, checking sizes and SHA-256; check the files in "
        "the folder against the manifest and whether results.json is up to date. Exit 1 on "
        "any problem.",
        "  leaderboard runs verify submissions/bm25s submissions/my-model")
    verify.add_argument("submissions", nargs="+", type=submission_dir, metavar="SUBMISSION_DIR")
    verify.set_defaults(handler=run_verify)

    add = new_command(
        actions, "add", "add run files to a submission and score it",
        "Copy the run files under --from (a submission folder or its runs/ folder) of the "
        "tasks matching --tasks into SUBMISSION_DIR, replacing that task's files there and "
        "in its manifest, and score the submission, as one transaction: when anything is "
        "invalid, or the command is stopped, the submission is as it was.",
        "  leaderboard runs add submissions/my-model --from ../new-runs --tasks "
        "'followtable/*'")
    add.add_argument("submission", type=submission_dir, metavar="SUBMISSION_DIR")
    add.add_argument("--from", dest="source", type=Path, required=True, metavar="DIR",
                     help="the folder whose run files are added: a submission folder or "
                          "its runs/ folder")
    add.add_argument("--tasks", nargs="+", default=None, metavar="PATTERN",
                     help="task ids or fnmatch patterns (default: every task under --from)")
    add.add_argument("--quiet", action="store_true", help="no progress lines")
    add_data_dir(add)
    add.set_defaults(handler=run_add)


def _folders(paths: list[Path]) -> list[Path] | None:
    """The submission folders given, or None when any is not one (each said)."""
    from leaderboard.submission.folder import folder_problem

    problems = [(p, folder_problem(p)) for p in paths]
    for path, problem in problems:
        if problem is not None:
            print(f"{path}: {problem}")
    return None if any(problem is not None for _, problem in problems) else paths


def _print(lines: list[str]) -> None:
    for line in lines:
        print(line)


def _pull(folder: Path) -> tuple[bool, list[str], str]:
    from leaderboard.app.transfer import pull
    from leaderboard.core.report import plural

    report, written, kept = pull(folder)
    cached = (f"; the explorer's {plural(len(kept), 'file')} "
              f"{'is' if len(kept) == 1 else 'are'} in the run store's cache: a pull "
              f"request never carries {'it' if len(kept) == 1 else 'them'}"
              if kept else "")
    return report.ok, report.lines(), (
        f"{folder.name}: {'pulled' if report.ok else 'NOT pulled'} "
        f"({plural(len(written), 'file')} written{cached})")


def run_pull(args: argparse.Namespace) -> int:
    return each_submission(args.submissions, _pull)


def _verify(folder: Path) -> tuple[bool, list[str], str]:
    from leaderboard.app.transfer import verify
    from leaderboard.core.report import plural

    report = verify(folder)
    return report.ok, report.lines(), (
        f"{folder.name}: {'verified' if report.ok else 'INVALID'} "
        f"({plural(len(report.errors), 'error')})")


def run_verify(args: argparse.Namespace) -> int:
    return each_submission(args.submissions, _verify)


def run_push(args: argparse.Namespace) -> int:
    from leaderboard.app.transfer import push
    from leaderboard.core.errors import FollowBoardError, UsageError

    if args.all == bool(args.submissions):
        raise UsageError("give submission folders or --all (not both)")
    store = store_option(args.to, "--to") if args.to else None  # refused before any work
    if args.all and not args.submissions_dir.is_dir():
        raise FollowBoardError(f"{args.submissions_dir}: no such folder (--submissions-dir)")
    folders = (sorted(p for p in args.submissions_dir.iterdir()
                      if (p / "metadata.yaml").is_file())
               if args.all else args.submissions)
    if not folders:
        print(f"nothing to push: no submission folder (with a metadata.yaml) under "
              f"{args.submissions_dir}")
        return 0
    if _folders(folders) is None:
        # All or nothing, as push is for files it cannot have: a mistyped folder among
        # several stops the push before anything is uploaded, copied or removed.
        print("nothing pushed: every folder given must be a submission's")
        return 1
    progress = (lambda _m: None) if args.quiet else (
        lambda m: print(m, file=sys.stderr, flush=True))
    report, done = push(folders, store, keep=args.keep, progress=progress)
    _print(report.lines())
    _print(done)
    if report.ok and not done:
        print("nothing to push: every submission's files are in the store")
    return 0 if report.ok else 1


def run_add(args: argparse.Namespace) -> int:
    from leaderboard.core.data import resolve_data_dir
    from leaderboard.core.evaluate import stderr_progress
    from leaderboard.core.report import plural
    from leaderboard.app.transfer import add

    if _folders([args.submission]) is None:
        return 1
    outcome = add(args.submission, args.source, args.tasks, resolve_data_dir(args.data_dir),
                  (lambda _m: None) if args.quiet else stderr_progress)
    _print(outcome.report.lines())
    if outcome.results_path is None:
        print(f"{args.submission.name}: nothing added ({plural(len(outcome.report.errors), 'error')}); "
              "the submission is as it was")
        return 1
    print(f"{args.submission.name}: scored {plural(len(outcome.scores), 'task')} -> "
          f"{outcome.results_path}")
    return 0
