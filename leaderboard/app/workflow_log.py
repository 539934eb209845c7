"""Text from a pull request in a GitHub Actions log, where the runner runs none of it.

The runner reads each line a step prints as a workflow command when it begins ``::``
(``::add-mask::``, ``::error::``, ``::stop-commands::``), and when it holds ``##[``
anywhere, the old form of the same commands (``##[add-mask]x``, ``##[error]x``:
actions/runner's ``ActionCommand.TryParse``). A file name, a query id or a report's key
that a message quotes can hold either, or a line end before ``::``. A command prints such
text inside :func:`commands_stopped`: in Actions, between ``::stop-commands::<token>``
and ``::<token>::`` with a fresh random token, the runner runs no command of it; elsewhere
nothing is added.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


def in_actions() -> bool:
    """Whether this process is a step of a GitHub Actions job."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


@contextmanager
def commands_stopped(stream: TextIO | None = None) -> Iterator[TextIO]:
    """``stream`` (standard output by default), the runner running no workflow command of
    what is written to it meanwhile. The pair is written to ``stream`` itself: the runner
    reads standard output and standard error apart, so a pair on the other would not be
    in order with the text it should enclose."""
    stream = stream or sys.stdout
    if not in_actions():
        yield stream
        return
    token = uuid.uuid4().hex  # the runner masks it in the log
    print(f"::stop-commands::{token}", file=stream, flush=True)
    try:
        yield stream
    finally:
        stream.flush()
        print(f"::{token}::", file=stream, flush=True)
