"""TREC run files: reading, parsing, ordering and validation against a task.

    reading     the file's bytes: size limits and gzip (shared with T4 predictions)
    parsing     bytes to columns: a vectorised pyarrow fast path, an exact line pass
    columns     ParsedRun, the columns every other step works on; id encoding
    ordering    trec_eval's ranking (score descending, docid descending)
    validation  the checks against a task, and the whole check of one file

Following trec_eval, the rank column is ignored for scoring. The names below are the
package's public interface; import them from ``leaderboard.core.runs``.

Each name is imported from its submodule on first use (PEP 562), not when the package is:
``leaderboard.core.runs.reading`` needs only the standard library, and a one-task
`leaderboard eval` starts inflating the run files with it before it imports numpy and
pyarrow (100 ms that hold the GIL, while inflating releases it).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Each public name -> the submodule that defines it.
_HOME = {
    "ParsedRun": "columns", "id_array": "columns", "lookup": "columns",
    "sorted_unique": "columns",
    "grouped_order": "ordering", "order_run": "ordering",
    "MAX_ERRORS": "parsing", "MAX_LINE_CHARS": "parsing", "MAX_QUERIES": "parsing",
    "RUN_COLUMNS": "parsing",
    "parse_run": "parsing",
    "MAX_COMPRESSED_BYTES": "reading", "MAX_FILE_BYTES": "reading", "RunBytes": "reading",
    "read_run_bytes": "reading", "read_run_file": "reading", "start_reading": "reading",
    "MAX_FINDINGS_PER_KIND": "validation", "ReadRun": "validation",
    "load_and_validate": "validation", "parse_run_file": "validation",
    "queries_of_file": "validation", "read_run": "validation",
    "required_depth": "validation", "role_of_queries": "validation",
    "validate_read_run": "validation", "validate_run": "validation",
}

__all__ = sorted(_HOME)

if TYPE_CHECKING:  # what type checkers and readers see; at run time, __getattr__ below
    from leaderboard.core.runs.columns import ParsedRun, id_array, lookup, sorted_unique
    from leaderboard.core.runs.ordering import grouped_order, order_run
    from leaderboard.core.runs.parsing import (MAX_ERRORS, MAX_LINE_CHARS, MAX_QUERIES, RUN_COLUMNS,
                                          parse_run)
    from leaderboard.core.runs.reading import (MAX_COMPRESSED_BYTES, MAX_FILE_BYTES, RunBytes,
                                          read_run_bytes, read_run_file, start_reading)
    from leaderboard.core.runs.validation import (MAX_FINDINGS_PER_KIND, ReadRun,
                                             load_and_validate, parse_run_file,
                                             queries_of_file, read_run, required_depth,
                                             role_of_queries, validate_read_run,
                                             validate_run)


def __getattr__(name: str) -> Any:
    try:
        module = _HOME[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})
