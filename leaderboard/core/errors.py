"""The one root of the failures FollowBoard expects: bad input, missing data, a store or
upstream that cannot be reached, a result that does not match its files.

Such an error's message is the whole story (it names the file, and the line where there
is one), so the command line prints it without a traceback and exits with its
``exit_code`` (:func:`leaderboard.app.cli.main` maps them, in one place). Anything else
that escapes a command is a bug, reported as an internal error. Each subclass keeps the
built-in exception it refines as a second base (a missing data file is still a
``FileNotFoundError``), so code that catches the built-in one goes on catching it.
"""

from __future__ import annotations


class FollowBoardError(Exception):
    """An expected failure whose message says what went wrong and where."""

    #: The process's exit status when a command ends with this error.
    exit_code = 1


class UsageError(FollowBoardError, ValueError):
    """The command line asks for what no input could make work: options that conflict
    (``export --existing`` without ``--push``), or a value an option cannot take (``data
    pull --jobs 0``, an unknown task), decided from the command line and what the
    project declares (the registry, models.yaml), before any work. Exit status 2, worded
    as argparse words its own usage errors: the command's usage line, then ``leaderboard
    COMMAND: error: ...`` (:func:`leaderboard.app.cli.main`). Every such check raises it,
    in a command module or in the library code it calls."""

    exit_code = 2
