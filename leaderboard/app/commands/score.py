"""`leaderboard score`: validate and score submissions, writing results.json."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from leaderboard.app.commands import add_submission_args, for_each_submission, new_command
from leaderboard.core.config import CACHE_ROOT_RULE
from leaderboard.core.report import SUMMARISE_WARNINGS_AFTER, plural

if TYPE_CHECKING:
    from leaderboard.core.evaluate import Progress


def register(sub: "argparse._SubParsersAction") -> None:
    p = new_command(
        sub, "score", "validate and score submissions, writing results.json",
        "Validate each submission, then score every task it covers and write "
        "submissions/<id>/manifest.txt (its run files by SHA-256), per-query.json.gz and "
        "results.json (atomically, byte-identical for identical runs). Nothing is written "
        "for a submission with any error. The folder is left as a pull request carries it: "
        "the query explorer's files, which CI writes into explain/ after the merge, are "
        f"kept in the run store's cache (store/ under the cache root, {CACHE_ROOT_RULE}). "
        "Under explain/ it removes what CI did not write there for this submission, as "
        "`validate` reports it: a copied folder's files, a stray file, a link or a FIFO "
        "(one named explain included), and, in a git checkout whose default branch holds "
        "no explain/manifest.json of it (a submission not merged yet, or one whose run "
        "store keeps its files), every file there, its own copied from the cache included. A file CI wrote there "
        "that was changed or deleted is an error: no scoring puts it back.",
        "  leaderboard score submissions/bm25s")
    add_submission_args(p)
    p.set_defaults(handler=run)


def _score(root: Path, data_dir: Path, progress: Progress) -> tuple[bool, list[str], str]:
    from leaderboard.submission.pipeline import score_submission

    outcome = score_submission(root, data_dir, progress, after_merge=False)
    findings = outcome.report.lines(summarise_after=SUMMARISE_WARNINGS_AFTER)
    if outcome.results_path is None:
        return False, findings, (f"{root.name}: not scored "
                                 f"({plural(outcome.report.n_errors, 'error')})")
    return True, findings, (f"{root.name}: scored {plural(len(outcome.scores), 'task')} -> "
                            f"{outcome.results_path}")


def run(args: argparse.Namespace) -> int:
    return for_each_submission(args, _score)
