"""The error of a reference run that cannot go on as it was asked to.

`leaderboard baselines run` and `measure` print a :class:`FollowBoardError`'s message as
it is; any other exception is reported as an internal error (a bug). What a user's
arguments, environment or folders can cause is therefore raised as a
:class:`ReferenceRunError`, which is also a ``ValueError`` for callers of the modules.
"""

from __future__ import annotations

from leaderboard.core.errors import FollowBoardError


class ReferenceRunError(FollowBoardError, ValueError):
    """The run cannot go on as asked: the message says why, and what to change."""
