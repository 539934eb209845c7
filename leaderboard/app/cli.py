"""The `leaderboard` command: a thin dispatcher over the subcommand modules.

Each module in ``leaderboard.app.commands`` registers its own subparser and handler; the
logic they call lives in importable modules (registry, data, runs, scoring, stats, site).
Exit codes: 0 success, 1 invalid input or failed check, 2 usage error.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import sys
from typing import NamedTuple, Sequence

from leaderboard import __version__


class Command(NamedTuple):
    name: str
    module: str
    summary: str


# Every subcommand, in the order `leaderboard --help` lists them. The summaries live here,
# not only in each module, so that `leaderboard --help` and `leaderboard eval ...` import
# one command module (or none) instead of all of them and their dependencies (pandas,
# pydantic, the data pullers): start-up time is most of a one-task `eval`.
# tests/test_cli.py holds each module's own summary to this table.
COMMANDS: tuple[Command, ...] = (
    Command("tasks", "tasks", "list every task the leaderboard scores"),
    Command("check-run", "check_run", "validate one run file (exit 0 valid, 1 invalid, 2 usage)"),
    Command("eval", "eval", "validate and score the runs of one task"),
    Command("explain", "explain", "show why runs follow an instruction or not, query by query"),
    Command("validate", "validate", "check submission folders (metadata and every run file)"),
    Command("score", "score", "validate and score submissions, writing results.json"),
    Command("runs", "runs", "fetch, store, check or add a submission's run files (the run store)"),
    Command("import", "import_", "import published results as reported rows"),
    Command("compare", "compare", "test two scored submissions against each other, view by view"),
    Command("baselines", "baselines",
            "run reference models (BM25, bi-encoders, rerankers) as submissions"),
    Command("data", "data", "download benchmark data from upstream, or check what is present"),
    Command("ci", "ci", "steps of the GitHub Actions workflows (PR check, comment, scoring)"),
    Command("build", "build", "build the static leaderboard site (MkDocs, works offline)"),
    Command("export", "export", "write the results as a dataset folder for the Hugging Face Hub"),
)



class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples in epilogs laid out as written."""


def requested_command(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line, if any: the first word not an option.

    The top-level parser has no option taking a value, so the first such word is the
    command (or a typo, which argparse reports against the full list of choices).
    """
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word
    return None


def build_parser(only: str | None = None, *, lazy: bool = False) -> argparse.ArgumentParser:
    """The `leaderboard` parser.

    By default every command module registers its full subparser. With ``lazy=True`` only
    the command named ``only`` is imported and registered, and the others are left out
    (argparse makes a parser for each, 0.1-0.2 ms apiece); when ``only`` names no command,
    they all appear in the top-level help with their summaries but are not imported.
    """
    parser = argparse.ArgumentParser(
        prog="leaderboard",
        description="FollowBoard: validate, score and publish instruction-following "
                    "retrieval results.",
        epilog="Example:\n  leaderboard check-run followtable/wtr run.trec --role altered\n\n"
               "Run `leaderboard COMMAND --help` for each command's options and an example.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    known = lazy and any(command.name == only for command in COMMANDS)
    for command in COMMANDS:
        if lazy and command.name != only:
            if not known:
                sub.add_parser(command.name, help=command.summary, add_help=False)
            continue
        module = importlib.import_module(f"leaderboard.app.commands.{command.module}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # pydantic looks for plugins through every installed package's entry points the first
    # time a model is built: a tenth of a one-task `eval` in an environment with torch.
    # FollowBoard uses none; a user who does can set the variable (to "" for all plugins).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:  # Ctrl-C while the command line is read is said as it is once the command runs
        parser = build_parser(requested_command(argv), lazy=True)
        args = parser.parse_args(argv)
        # Errors whose message is the whole story: printed, no traceback. Every failure
        # the project expects derives from FollowBoardError, which says its exit status;
        # an operating-system error (a file that cannot be read or written) names its
        # file. Anything else is a bug, reported as an internal error. (Imported once a
        # command is known: `leaderboard --help` imports nothing of the project but this
        # module.)
        from leaderboard.core.config import ENV_DEBUG
        from leaderboard.core.errors import FollowBoardError, UsageError
        from leaderboard.app.workflow_log import commands_stopped
    except KeyboardInterrupt:  # the command as far as it is known yet
        return _interrupted(" ".join(["leaderboard", requested_command(argv) or ""]).strip())
    # Every message begins with the command as typed, as argparse's usage errors do
    # ("leaderboard runs add: error: ..."; commands.new_command records it).
    command = getattr(args, "command_prog", f"leaderboard {args.command}")
    try:
        code = int(args.handler(args) or 0)
        sys.stdout.flush()  # here, so that a closed pipe is caught below and not at exit
        return code
    except BrokenPipeError:
        # The reader stopped reading (`leaderboard tasks | head -1`): not an error to report.
        # Exit as a process killed by SIGPIPE would (128 + 13), so `set -o pipefail` scripts
        # see what they see from any other command cut short by a closed pipe.
        _silence_stdout()
        return 128 + 13
    except KeyboardInterrupt:
        return _interrupted(command)
    except UsageError as exc:
        # As argparse refuses a command line it cannot parse: the command's usage line,
        # its error, exit 2 (SystemExit, as from parse_args above).
        with commands_stopped(sys.stderr):
            args.parser.error(str(exc))
    except (FollowBoardError, OSError) as exc:
        if os.environ.get(ENV_DEBUG):
            raise
        with commands_stopped(sys.stderr):  # a message may quote a pull request's text
            print(f"{command}: error: {exc}", file=sys.stderr)
        return exc.exit_code if isinstance(exc, FollowBoardError) else 1
    except Exception as exc:  # noqa: BLE001 - last line of defence: a message, not a traceback
        if os.environ.get(ENV_DEBUG):
            raise
        with commands_stopped(sys.stderr):
            print(f"{command}: internal error ({type(exc).__name__}): {exc}\n"
                  "Please report it; set LEADERBOARD_DEBUG=1 to see the traceback.",
                  file=sys.stderr)
        return 1


def _interrupted(command: str) -> int:
    """Ctrl-C (SIGINT): a word on standard error, begun with ``command`` as every message
    is ("leaderboard score: interrupted"), and the status a shell gives a command the
    signal stopped (128 + 2), no traceback."""
    print(f"{command}: interrupted", file=sys.stderr)
    return 130


# Commands after which the process exits without the interpreter's teardown (see entry).
EXIT_WITHOUT_TEARDOWN = frozenset({"eval"})


def entry() -> None:
    """The `leaderboard` program: :func:`main`, then the exit.

    Tearing down an interpreter that imported numpy and pyarrow (freeing every module
    and running their finalisers) takes 20-35 ms, 5-8% of a one-task `leaderboard eval`
    (benchmarks/cli_startup.py), and does nothing for a command that is done: `eval`
    writes no file, and its worker threads have finished. So after `eval` the output is
    flushed here and the process ends at once (``os._exit``); every other command, whose
    work may leave temporary folders, child processes or buffered files to the
    interpreter's exit, ends the usual way. :func:`main` itself never exits, so tests
    and other callers run it in process.
    """
    argv = sys.argv[1:]
    # Where the output's encoding cannot write a character (a run's query id, a query's
    # text, on a console with a code page), it is written escaped rather than stopping
    # the command with "internal error (UnicodeEncodeError)" and no verdict.
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    code = main(argv)
    if requested_command(argv) not in EXIT_WITHOUT_TEARDOWN:
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        code = code or 128 + 13  # as main() reports a reader that stopped reading
    except (OSError, ValueError):
        code = code or 1
    os._exit(code)


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's final flush of what
    is still buffered for the closed pipe does not print an "Exception ignored" message."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass  # not a file descriptor (tests capture output in memory): nothing to flush


if __name__ == "__main__":
    entry()
