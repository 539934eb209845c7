"""One module per `leaderboard` subcommand; each defines ``register(subparsers)``.

A handler takes the parsed arguments and returns the exit code. Shared argument helpers
live here so every command spells ``--data-dir`` the same way.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from leaderboard.core.display import score_text
from leaderboard.core.measures import is_signed

if TYPE_CHECKING:
    from leaderboard.core.tasks import Role, Task
    from leaderboard.store.locations import RunStore


# The leaderboard, `compare` and the PR comment show scores x100; so do the texts of `eval`
# and `explain`, and say so on their first line. JSON output keeps the fractions
# results.json stores.
SCALE_NOTE = "scores x100, as on the leaderboard; --json gives fractions"


def figure_text(key: str, fraction: float | None) -> str:
    """A figure of metric ``key`` as `eval` and `explain` print it: x100, two decimals, by
    the leaderboard's display rule, signed where the catalogue signs the measure (p-MRR,
    IRS), as the board and `compare` do (one convention per column: nDCG@10 was printed
    "+84.15" above "0.00"); "-" for none."""
    return "-" if fraction is None else score_text(fraction, signed=is_signed(key), digits=2)


def add_data_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir", metavar="DIR", default=None,
        help="benchmark data directory (default: $LEADERBOARD_DATA, else ./data)")


def add_seed(parser: argparse.ArgumentParser, help: str) -> None:
    """--seed: a non-negative integer (default 0), what every seeded procedure takes; a
    negative one is a usage error here, not an internal error where the seed is used."""
    parser.add_argument("--seed", type=_seed, default=0, metavar="SEED", help=help)


def _seed(text: str) -> int:
    value = text.strip()
    if not value.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative integer")
    return int(value)


def new_command(sub: "argparse._SubParsersAction", name: str, summary: str, description: str,
                example: str) -> argparse.ArgumentParser:
    from leaderboard.app.cli import HelpFormatter

    parser = sub.add_parser(name, help=summary, description=description,
                            epilog=f"Example:\n{example}", formatter_class=HelpFormatter)
    # The command as typed ("leaderboard runs add"), which begins each of its messages as
    # it begins argparse's usage errors; the innermost command's default wins.
    parser.set_defaults(command_prog=parser.prog, parser=parser)
    return parser


def warn(args: argparse.Namespace, message: str) -> None:
    """A warning on standard error, begun as the command's errors are
    (`leaderboard build: warning: ...`; :func:`leaderboard.app.cli.main` words errors)."""
    from leaderboard.app.workflow_log import commands_stopped

    with commands_stopped(sys.stderr):  # a warning may quote a pull request's text
        print(f"{args.command_prog}: warning: {message}", file=sys.stderr)


#: Each run role a task can take (:data:`leaderboard.core.tasks.Role`), as the option of
#: `eval` and `explain` that names its file and the choice of `check-run --role`:
#: (metavar, help).
ROLE_FILES: dict[Role, tuple[str, str]] = {
    "original": ("RUN", "run with the original query"),
    "altered": ("RUN", "run with the altered instruction"),
    "run": ("RUN", "the run of a single-run task"),
    "predictions": ("FILE", "PI-Indic T4 predictions"),
}


def add_role_files(parser: argparse.ArgumentParser) -> None:
    """--original, --altered, --run and --predictions: a task's files by role."""
    for role, (metavar, help) in ROLE_FILES.items():
        parser.add_argument(f"--{role}", type=Path, metavar=metavar, help=help)


def task_and_files(args: argparse.Namespace) -> tuple["Task", dict[str, Path]]:
    """The task `eval` and `explain` are given and its files by role
    (:func:`add_role_files`); a usage error when the roles are not the task's."""
    from leaderboard.benchmarks.registry import UnknownTaskError, get_task
    from leaderboard.core.errors import UsageError

    try:
        task = get_task(args.task)
    except UnknownTaskError as exc:
        raise UsageError(str(exc)) from None
    given = {role: getattr(args, role) for role in ROLE_FILES
             if getattr(args, role) is not None}
    if sorted(given) != sorted(task.roles):
        raise UsageError(f"{task.id} takes "
                         f"{' '.join(f'--{r} {ROLE_FILES[r][0]}' for r in task.roles)}")
    return task, given


def store_option(text: str, option: str) -> RunStore:
    """The store an option names (`runs push --to`, `export --push`), a setting refused
    as a usage error: the command line gave what no store can be."""
    from leaderboard.core.errors import UsageError
    from leaderboard.store.locations import StoreConfigError, parse_store

    try:
        return parse_store(text, Path.cwd(), option)
    except StoreConfigError as exc:
        raise UsageError(str(exc)) from None


def submission_dir(text: str) -> Path:
    """A SUBMISSION_DIR argument as a path whose last part is the folder's own name, also
    when given as ``.`` or ``..``: the folder's name is the submission's id
    (`leaderboard validate .` inside a submission failed, its id "not the folder name
    ''")."""
    import os

    path = Path(text)
    return Path(os.path.abspath(path)) if path.name in ("", "..") else path


def add_submission_args(parser: argparse.ArgumentParser) -> None:
    """The arguments `validate` and `score` share: folders, --quiet, --data-dir."""
    parser.add_argument("submissions", nargs="+", type=submission_dir,
                        metavar="SUBMISSION_DIR")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    add_data_dir(parser)



def each_submission(roots: list[Path],
                    check: Callable[[Path], tuple[bool, list[str], str]]) -> int:
    """Run ``check(root) -> (ok, findings, verdict)`` on each submission folder given
    (`validate`, `score`, `runs verify`, `runs pull`).

    A folder that is not there, or is a file, is not checked: its verdict says so and the
    others are checked all the same (a folder there that is no submission is the check's
    finding). Each submission's findings are printed when its check ends; the one-line
    verdicts come last, after every submission's findings, so that they are found at the
    end of the output (``validate submissions/*`` checks hundreds of files), under "N of M
    passed:" when there are several. Exit 1 if any folder is missing or fails its check.
    """
    from leaderboard.submission.folder import folder_problem

    verdicts: list[str] = []
    failed = 0
    for root in roots:
        if not root.is_dir():
            verdicts.append(f"{root}: {folder_problem(root)}")
            failed += 1
            continue
        ok, findings, verdict = check(root)
        for line in findings:
            print(line)
        verdicts.append(verdict)
        failed += not ok
    sys.stdout.flush()  # the findings before the verdicts, also when both go to one file
    if len(verdicts) > 1:
        print(f"\n{len(verdicts) - failed} of {len(verdicts)} passed:")
    for verdict in verdicts:
        print(verdict)
    return 1 if failed else 0


def for_each_submission(args: argparse.Namespace, check) -> int:  # noqa: ANN001
    """:func:`each_submission` for the commands that read the data (`validate`, `score`):
    ``check(root, data_dir, progress) -> (ok, findings, verdict)``, with --data-dir and
    --quiet (:func:`add_submission_args`). On a terminal the progress line is rewritten
    in place rather than one line per task, and erased before the findings."""
    from leaderboard.core.data import resolve_data_dir
    from leaderboard.core.evaluate import stderr_progress

    data_dir = resolve_data_dir(args.data_dir)
    in_place = not args.quiet and sys.stderr.isatty()

    def progress(message: str) -> None:
        if in_place:  # back to the line's start, erase it, write
            print(f"\r\x1b[K{message}", end="", file=sys.stderr, flush=True)
        elif not args.quiet:
            stderr_progress(message)

    def checked(root: Path) -> tuple[bool, list[str], str]:
        outcome = check(root, data_dir, progress)
        if in_place:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)
        return outcome
    return each_submission(args.submissions, checked)
