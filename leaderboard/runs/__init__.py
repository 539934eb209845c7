"""TREC run files: reading, parsing, ordering and validation against a task.

    reading     the file's bytes: size limits and gzip (shared with T4 predictions)
    parsing     bytes to columns: a vectorised pyarrow fast path, an exact line pass
    columns     ParsedRun, the columns every other step works on; id encoding
    ordering    trec_eval's ranking (score descending, docid descending)
    validation  the checks against a task, and the whole check of one file

Following trec_eval, the rank column is ignored for scoring. The names below are the
package's public interface; import them from ``leaderboard.runs``.
"""

from leaderboard.runs.columns import ParsedRun, id_array, lookup, sorted_unique
from leaderboard.runs.ordering import grouped_order, order_run
from leaderboard.runs.parsing import MAX_ERRORS, MAX_LINE_CHARS, RUN_COLUMNS, parse_run
from leaderboard.runs.reading import MAX_COMPRESSED_BYTES, MAX_FILE_BYTES, read_run_bytes
from leaderboard.runs.validation import (MAX_FINDINGS_PER_KIND, ReadRun, load_and_validate,
                                         queries_of_file, read_run, required_depth,
                                         role_of_queries, validate_read_run, validate_run)

__all__ = [
    "MAX_COMPRESSED_BYTES", "MAX_ERRORS", "MAX_FILE_BYTES", "MAX_FINDINGS_PER_KIND",
    "MAX_LINE_CHARS", "RUN_COLUMNS", "ParsedRun", "ReadRun", "grouped_order", "id_array",
    "load_and_validate", "lookup", "order_run", "parse_run", "queries_of_file", "read_run",
    "read_run_bytes", "required_depth", "role_of_queries", "sorted_unique",
    "validate_read_run", "validate_run",
]
