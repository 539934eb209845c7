"""TREC run files: reading, parsing, ordering and validation against a task.

    reading     the file's bytes: size limits and gzip (shared with T4 predictions);
                standard library only, so that a one-task `leaderboard eval` starts
                inflating its runs before it imports numpy and pyarrow
    parsing     bytes to columns: a vectorised pyarrow fast path, an exact line pass
    columns     ParsedRun, the columns every other step works on; id encoding
    ordering    trec_eval's ranking (score descending, docid descending)
    validation  the checks against a task, and the whole check of one file

Following trec_eval, the rank column is ignored for scoring.
"""
