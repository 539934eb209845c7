"""Checking a parsed run against its task: queries, documents, duplicates, depth.

Also the whole check of one file (:func:`load_and_validate`: :func:`read_run`, which
reads and parses, then :func:`validate_read_run`) and telling which run of a task a file
is from its query ids.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from leaderboard.core.data.base import TaskData
from leaderboard.core.fileio import MAX_LINE_ERRORS
from leaderboard.core.report import Report, plural
from leaderboard.core.runs.columns import ParsedRun, id_array, lookup
from leaderboard.core.runs.ordering import grouped_order
from leaderboard.core.runs.parsing import _parse_rows
from leaderboard.core.runs.reading import RunBytes, read_run_file
from leaderboard.core.tasks import MAX_DOCS_PER_QUERY, corpus_depth_text

# Findings of one kind listed per file by the checks of the whole run (unknown documents,
# duplicates...); past this they are counted in one summary line. The parser's cap on
# unreadable lines: a run whose every document is misnamed says so in its first lines,
# and listing 1,000 of them (of which a report prints 25) told nothing more.
MAX_FINDINGS_PER_KIND = MAX_LINE_ERRORS


# A file's extension an id may carry from where it was read: FollowTable's
# query_instruction.json names table 9112 "9112.txt".
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}\Z")
_PADDING = re.compile(r"(?<![0-9])0+(?=[0-9])")  # leading zeros of a number


def known_form(name: str, known: np.ndarray) -> str | None:
    """The id of ``known`` (sorted) that the unknown ``name`` is, written with a file
    extension, its numbers padded with zeros, a prefix that no known id begins with or a
    suffix that no known id ends with ("9112.txt", "09112", "doc9112", "wtr/9112.csv" are
    9112; "fas-100-og" and "100-og-fas", an mFollowIR id with its language added, are
    100-og), else None.

    A prefix holds a letter and ends where letters meet digits or at a character neither
    letter nor digit, and a suffix holds a letter and begins at such a character, so an
    id with digits added ("99112", "100.5", "5_1") is not taken for another ("9112",
    "5")."""
    if not known.size:
        return None
    ending = _EXTENSION.search(name)
    stem = name[:ending.start()] if ending and ending.start() else None
    if stem is not None and lookup(known, [stem])[0] >= 0:
        return stem
    unpadded = _PADDING.sub("", name)  # numbers padded with zeros ("007_01" is 7_1)
    if unpadded != name and lookup(known, [unpadded])[0] >= 0:
        return unpadded
    for form in ([stem] if stem is not None else []) + [name]:
        for cut in range(1, len(form)):
            before, after = form[cut - 1], form[cut]
            if before.isalnum() and not (before.isalpha() and after.isdigit()):
                continue
            prefix, rest = form[:cut], form[cut:]
            if not any(c.isalpha() for c in prefix) or lookup(known, [rest])[0] < 0:
                continue
            at = int(np.searchsorted(known, prefix))
            if at == known.shape[0] or not str(known[at]).startswith(prefix):
                return rest
    for cut in range(len(name) - 1, 0, -1):
        rest, suffix = name[:cut], name[cut:]
        if (suffix[0].isalnum() or not any(c.isalpha() for c in suffix)
                or lookup(known, [rest])[0] < 0):
            continue
        if not any(str(k).endswith(suffix) for k in known):
            return rest
    return None


def _first_rows(codes: np.ndarray, mask_of_code: np.ndarray) -> np.ndarray:
    """Row of the first occurrence of each flagged code, in file order."""
    rows = np.flatnonzero(mask_of_code[codes])
    _, first = np.unique(codes[rows], return_index=True)
    return np.sort(rows[first])


def validate_run(data_task: TaskData, role: str, run: ParsedRun, display: str,
                 report: Report, max_docs: int = MAX_DOCS_PER_QUERY, unread_lines: int = 0) -> None:
    """Check a parsed run against the task: queries, documents, duplicates, depth.

    ``unread_lines`` counts lines of the file that could not be read into ``run`` (each
    already reported); the completeness checks say they may explain a shortfall.
    """
    unread = (f"; {plural(unread_lines, 'unreadable line')} not counted" if unread_lines
              else "")
    role_data = data_task.roles[role]
    expected = id_array(role_data.query_ids)
    expected_sorted = np.sort(expected)
    known = lookup(expected_sorted, run.q_names) >= 0
    article = "an" if role[0] in "aeiou" else "a"  # an original, an altered, a run
    if run.q_names.shape[0] and not known.any():
        other = role_of_queries(data_task, run.q_names)
        if other is not None and other != role:
            # The other run of the task (two files swapped): one finding, not one per query.
            first = str(run.q_names[run.q_codes[0]])
            report.add(display, None,
                       f"this is the {other} run: its queries (first {first!r}) are the {other} "
                       f"queries of {data_task.task_id}, none {article} {role} query",
                       kind=f"other-role:{other}")
            return
    if not known.all():
        unjudged = set(role_data.unjudged)

        def unknown(idx: int) -> str:
            name = str(run.q_names[run.q_codes[idx]])
            if name in unjudged:  # upstream lists it; mteb reads only judged queries
                return (f"unknown query {name!r}: the queries list it, but it has no "
                        "judgments, so mteb and this board do not score it; leave it out "
                        "of the run")
            return f"unknown query {name!r} (not {article} {role} query of {data_task.task_id})"

        def hint(idx: int) -> str | None:
            name = str(run.q_names[run.q_codes[idx]])
            return None if name in unjudged else _named("the task",
                                                        known_form(name, expected_sorted))

        _report_rows(_first_rows(run.q_codes, ~known), run, display, report, unknown,
                     more="unknown queries", hint=hint)
    present = lookup(run.q_names, expected) >= 0
    if not present.all():
        missing = [str(q) for q in expected[~present]]
        shown = ", ".join(repr(q) for q in missing[:10])
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        report.add(display, None, f"missing {len(missing):,} of "
                                  f"{plural(len(expected), role + ' query', role + ' queries')}"
                                  f": {shown}{more}{unread}")
    n_docs = max(int(run.d_names.shape[0]), 1)
    keys = run.q_codes.astype(np.int64) * n_docs + run.d_codes
    duplicates = _has_duplicates(keys, int(run.q_names.shape[0]) * n_docs)
    if duplicates:
        _report_duplicates(run, keys, display, report)
    counts = np.bincount(run.q_codes, minlength=run.q_names.shape[0])
    over = np.flatnonzero(counts > max_docs)
    if over.size:
        last = np.zeros(run.q_names.shape[0], dtype=np.int64)
        np.maximum.at(last, run.q_codes, np.arange(len(run), dtype=np.int64))
        for code in over:
            report.add(display, int(run.line[last[code]]),
                       f"query {str(run.q_names[code])!r} has {int(counts[code])} documents; "
                       f"at most {max_docs} are allowed")
    if data_task.pools is not None:
        in_candidates = _check_pool(data_task, run, display, report)
    else:
        in_candidates = np.ones(len(run), dtype=bool)
        if data_task.doc_ids.size:
            corpus = _sorted_corpus(data_task)
            in_corpus = lookup(corpus, run.d_names) >= 0
            if not in_corpus.all():
                rows = np.flatnonzero(~in_corpus[run.d_codes])
                in_candidates = in_corpus[run.d_codes]
                _report_rows(rows, run, display, report, lambda idx: (
                    f"document {str(run.d_names[run.d_codes[idx]])!r} is not in the corpus of "
                    f"{data_task.task_id}"),
                    more=f"lines naming a document not in the corpus of {data_task.task_id}",
                    hint=lambda idx: _named("the corpus", known_form(
                        str(run.d_names[run.d_codes[idx]]), corpus)))
    _check_depth(data_task, run, known, in_candidates, keys if duplicates else None, n_docs,
                 display, report,
                 max_docs, unread)
    if report.ok:  # ranks and ties of a broken file would only add noise
        _warn_rank_consistency(run, display, report)


def required_depth(data_task: TaskData, qid: str, max_docs: int = MAX_DOCS_PER_QUERY) -> int:
    """How many documents a run must rank for ``qid`` (see :func:`_check_depth`)."""
    if data_task.pools is not None:
        pool = data_task.pools.get(qid)
        return 0 if pool is None else int(pool.shape[0])
    return _corpus_depth(data_task, max_docs)


def _corpus_depth(data_task: TaskData, max_docs: int) -> int:
    """What a corpus task's run must rank for each of its queries."""
    return min(max_docs, data_task.corpus_size)


def _check_depth(data_task: TaskData, run: ParsedRun, known: np.ndarray,
                 in_candidates: np.ndarray, keys: np.ndarray | None, n_docs: int,
                 display: str, report: Report,
                 max_docs: int, unread: str = "") -> None:
    """Every query ranks its whole candidate set, or the corpus to the full depth.

    A document a run leaves out counts as ranked below all it lists, so a shallow run
    scores p-MRR as if every missing document had dropped together: cutting BM25's WTR
    run to its top 10 raised p-MRR from 0.354 to 0.812. Hence a depth floor: reranking
    tasks (FollowIR, mFollowIR) must rank every document of each query's ``top_ranked``
    pool; corpus tasks (FollowTable, PI-Indic T1-T3) must list min(max_docs, corpus size)
    documents per query (:func:`~leaderboard.core.tasks.corpus_depth_text`), which for PI-Indic is its whole 150-item candidate set.
    ``known`` flags the run's queries that belong to the role (others are reported
    already); ``in_candidates`` flags the rows inside the candidates. ``keys`` are the
    rows' (query, document) keys when the run repeats a document (it counts once), else
    None: then counting rows per query is enough, and linear.
    """
    n_queries = int(run.q_names.shape[0])
    if not n_queries:
        return
    if keys is None:
        ranked = np.bincount(run.q_codes[in_candidates], minlength=n_queries)
    else:
        distinct = np.unique(keys[in_candidates])
        ranked = np.bincount((distinct // n_docs).astype(np.int64), minlength=n_queries)
    if data_task.pools is None:  # one depth for all (asked per query: 0.05 ms a PI-Indic run)
        required = np.where(known, _corpus_depth(data_task, max_docs), 0).astype(np.int64)
    else:
        required = np.asarray([required_depth(data_task, q, max_docs) if ok else 0
                               for q, ok in zip(run.q_names.tolist(), known.tolist())],
                              dtype=np.int64)
    short = np.flatnonzero(ranked < required)
    if not short.size:
        return
    q_names = run.q_names.tolist()
    first_row = np.full(n_queries, len(run), dtype=np.int64)
    np.minimum.at(first_row, run.q_codes, np.arange(len(run), dtype=np.int64))
    short = short[np.argsort(first_row[short], kind="stable")]  # in file order
    first = int(short[0])
    n_missing = int((required[short] - ranked[short]).sum())
    tally = (f"{short.size:,} of {plural(int(known.sum()), 'query')} "
             f"{'is' if short.size == 1 else 'are'} short, "
             f"{plural(n_missing, 'document')} in all{unread}")
    if data_task.pools is not None:
        message = (f"query {q_names[first]!r} ranks {int(ranked[first])} of the "
                   f"{plural(int(required[first]), 'document')} in its candidate pool; a "
                   f"reranking task's run must rank every document of each query's pool "
                   f"({tally})")
    else:
        message = (f"query {q_names[first]!r} ranks {plural(int(ranked[first]), 'document')}; "
                   f"each query must list {corpus_depth_text(max_docs)} = "
                   f"{plural(int(required[first]), 'document')} of the corpus ({tally})")
    report.add(display, int(run.line[first_row[first]]), message)


def _sorted_corpus(data_task: TaskData) -> np.ndarray:
    ids = data_task.doc_ids
    if ids.shape[0] > 1 and not (ids[1:] > ids[:-1]).all():
        ids = np.unique(ids)  # the reader promises sorted ids; do not rely on it blindly
    return ids


# Up to this many possible (query, document) keys, duplicates are found with a table of
# one flag per key; past it, by sorting the keys (see _has_duplicates).
FLAG_TABLE_KEYS = 1 << 24


def _has_duplicates(keys: np.ndarray, key_range: int) -> bool:
    """Whether ``keys`` (each in ``range(key_range)``) repeats a value.

    A flag per possible key is linear, and cheapest while the table is small. A large
    table is fresh memory the flags touch page by page: WQT's altered run (1.4M rows,
    33M keys) took 64-69 ms inside a scoring pass (4-5 ms alone), where sorting its keys
    takes 4-5 ms in the pass (benchmarks/README.md, issue 37). ``tests/test_validator.py``
    holds both ways to a set of the keys."""
    n = keys.shape[0]
    if n < 2:
        return False
    if key_range <= FLAG_TABLE_KEYS:
        seen = np.zeros(key_range, dtype=bool)
        seen[keys] = True
        return int(np.count_nonzero(seen)) < n
    ordered = np.sort(keys.astype(np.int32) if key_range <= 2**31 else keys)
    return bool((ordered[1:] == ordered[:-1]).any())


def _report_duplicates(run: ParsedRun, keys: np.ndarray, display: str, report: Report) -> None:
    import pandas as pd

    frame = pd.DataFrame({"key": keys, "line": run.line})
    dup = frame.duplicated("key", keep="first").to_numpy()
    first_line = frame.groupby("key", sort=False)["line"].transform("min").to_numpy()
    _report_rows(np.flatnonzero(dup), run, display, report, lambda idx: (
        f"document {str(run.d_names[run.d_codes[idx]])!r} appears again for query "
        f"{str(run.q_names[run.q_codes[idx]])!r} (first on line {int(first_line[idx])})"),
        more="lines repeating a document of their query")


def _named(who: str, name: str | None) -> str | None:
    return None if name is None else f"{who} names it {name!r}"


def _report_rows(rows: np.ndarray, run: ParsedRun, display: str, report: Report,
                 message, more: str, hint=None  # noqa: ANN001
                 ) -> None:  # message, hint: callable(row) -> str (hint: or None)
    """A finding per row, up to MAX_FINDINGS_PER_KIND; the rest counted in one line.

    ``hint`` tells what an id of the row is named where it is known ("the corpus names
    it '9112'"); the first listed row that has one says it, once."""
    for idx in rows[:MAX_FINDINGS_PER_KIND]:
        text = message(int(idx))
        said = hint(int(idx)) if hint is not None else None
        if said is not None:
            text, hint = f"{text}; {said}", None
        report.add(display, int(run.line[idx]), text)
    if rows.shape[0] > MAX_FINDINGS_PER_KIND:
        past = rows.shape[0] - MAX_FINDINGS_PER_KIND
        report.add(display, None, f"{past:,} more {more}", count=past)


def _check_pool(data_task: TaskData, run: ParsedRun, display: str, report: Report
                ) -> np.ndarray:
    """Reranking tasks: each query may only rank its own fixed candidate pool.

    Returns which rows lie inside their query's pool. Each of the run's queries has its
    rows' documents looked up in its pool, which the task data keeps sorted: one
    searchsorted per query. (Encoding every pool and every run document as integers first,
    with a Python dictionary lookup per distinct document, took a FollowIR run of 52
    queries, 50,000 documents, most of its validation.)

    A valid run ranks each query's whole pool, once: then its rows' documents, in code
    order (which is name order: ``d_names`` is sorted), are the pool itself, which one
    comparison of the two arrays shows; only another query looks its documents up. That
    took a FollowIR or mFollowIR run's check 0.3-0.7 ms where the lookups took 2.3-6.4
    (a third of those tasks' CPU; benchmarks/README.md, issue 37)."""
    assert data_task.pools is not None
    # Each query's rows together: the order kept on the run, which ranking uses too.
    order, _ = grouped_order(run)
    codes = run.q_codes[order]
    starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
    ends = np.append(starts[1:], codes.shape[0])
    inside = np.zeros(len(run), dtype=bool)
    pooled_query = np.zeros(len(run), dtype=bool)
    for start, end in zip(starts.tolist(), ends.tolist()):
        pool = data_task.pools.get(str(run.q_names[codes[start]]))
        if pool is None:
            continue  # an unknown query: reported as such
        rows = order[start:end]
        pooled_query[rows] = True
        ranked = np.sort(run.d_codes[rows])
        if ranked.shape[0] == pool.shape[0] and bool((run.d_names[ranked] == pool).all()):
            inside[rows] = True  # exactly the pool
        else:
            inside[rows] = lookup(pool, run.d_names[run.d_codes[rows]]) >= 0
    rows = np.flatnonzero(pooled_query & ~inside)
    _report_rows(rows, run, display, report, lambda idx: (
        f"document {str(run.d_names[run.d_codes[idx]])!r} is not in the candidate pool of "
        f"query {str(run.q_names[run.q_codes[idx]])!r} (this task reranks a fixed pool)"),
        more="lines naming a document outside their query's pool",
        hint=lambda idx: _named("the pool", known_form(
            str(run.d_names[run.d_codes[idx]]),
            data_task.pools[str(run.q_names[run.q_codes[idx]])])))
    return inside


def _warn_rank_consistency(run: ParsedRun, display: str, report: Report) -> None:
    """Warnings only: trec_eval ignores ranks, but a mismatch often reveals a bug.

    Each warning names the earliest line (in the file) where the problem shows.
    """
    order, _ = grouped_order(run)  # only neighbours within a query are compared
    q_sorted = run.q_codes[order]
    score_sorted = run.score[order]
    same_q = q_sorted[1:] == q_sorted[:-1]
    ties = same_q & (score_sorted[1:] == score_sorted[:-1])
    if ties.any():
        # Each score equal to the one ranked just above it in its query counts once.
        n_queries = int(np.unique(q_sorted[1:][ties]).shape[0])
        report.add(display, int(run.line[order[1:][ties]].min()),
                   f"tied scores: {int(ties.sum()):,} in all, over "
                   f"{plural(n_queries, 'query')}; ties are broken by docid descending, as "
                   "trec_eval does", "warning", kind="ties")
    # trec_eval (and pytrec_eval, through which MTEB computes nDCG and AP) reads scores as
    # 32-bit floats: two scores distinct here and equal there are a tie to it, broken by
    # docid, where the leaderboard (like MTEB's p-MRR) ranks the scores as written.
    with np.errstate(over="ignore"):
        narrow = score_sorted.astype(np.float32)
    single = same_q & ~ties & (narrow[1:] == narrow[:-1])
    if single.any():
        n_single = int(single.sum())
        report.add(display, int(run.line[order[1:][single]].min()),
                   f"{plural(n_single, 'score')} {'differs' if n_single == 1 else 'differ'} "
                   "from the one ranked above "
                   "only beyond single precision (about 7 significant digits): trec_eval and "
                   "pytrec_eval read scores as 32-bit floats and rank those as ties (by "
                   "docid), the leaderboard as written, so nDCG, AP and RR can differ from "
                   "trec_eval's; round scores to 7 significant digits or break the ties",
                   "warning", kind="single-precision")
    rank_sorted = run.rank[order]
    inverted = same_q & (rank_sorted[1:] < rank_sorted[:-1]) & ~ties
    if inverted.any():
        report.add(display, int(run.line[order[1:][inverted]].min()),
                   f"rank column disagrees with scores on {plural(int(inverted.sum()), 'line')}"
                   "; ranks are ignored, documents are ordered by score", "warning",
                   kind="rank-order")


def role_of_queries(data_task: TaskData, qids: "np.ndarray | list[str]") -> str | None:
    """The role whose query ids the run's queries are, when the file name does not say.

    Query ids tell the roles apart: FollowIR and mFollowIR number a query ``<id>-og``
    (original) or ``<id>-changed`` (altered); FollowTable's original run holds the
    topic-only queries ``<q>``, the altered one ``<q>_<i>``. The role holding the most of
    the run's distinct query ids wins; None when no role holds any, or two tie.
    """
    distinct = np.unique(id_array(list(qids))) if len(qids) else np.empty(0, dtype=str)
    counts = {role: int((lookup(np.sort(id_array(data.query_ids)), distinct) >= 0).sum())
              for role, data in data_task.roles.items()}
    best = max(counts.values(), default=0)
    winners = [role for role, n in counts.items() if n == best]
    return winners[0] if best > 0 and len(winners) == 1 else None


def unknown_role(data_task: TaskData, run: ParsedRun) -> str:
    """Why :func:`role_of_queries` found no role for ``run``, and how the task numbers
    each run's queries, by the first of each ("whose original queries are numbered like
    '100-og' and altered ones like '100-changed'")."""
    examples = [(role, data.query_ids[0]) for role, data in data_task.roles.items()
             if data.query_ids]
    forms = [f"{role} {'queries are numbered' if i == 0 else 'ones'} like {first!r}"
             for i, (role, first) in enumerate(examples)]
    whose = f", whose {' and '.join(forms)}" if forms else ""
    if not len(run):
        return f"it names no query{whose}"
    first = str(run.q_names[run.q_codes[0]])
    known = any((lookup(np.sort(id_array(data.query_ids)), run.q_names) >= 0).any()
                for data in data_task.roles.values())
    if not known:
        return f"none of them is a query of the task (first {first!r}){whose}"
    return f"as many of them are {' as '.join(data_task.roles)} queries{whose}"


@dataclass
class ReadRun:
    """One run file read and parsed, not yet checked against a task.

    Reading needs no task data, so :mod:`leaderboard.submission.pipeline` reads a task's files while
    it loads the data (:func:`leaderboard.core.evaluate.check_task_files`).
    """

    display: str
    report: Report
    # The parsed rows; None when the file could not be read or parsed far enough.
    run: ParsedRun | None
    # Lines that could not be used (each already reported).
    unread_lines: int = 0


def read_run(path: Path, display: str | None = None) -> ReadRun:
    """Read and parse one run file, reporting what is wrong with the file itself."""
    return parse_run_file(read_run_file(path, display or str(path)))


def parse_run_file(read: RunBytes) -> ReadRun:
    """Parse a run file's bytes (:func:`leaderboard.core.runs.reading.read_run_file`)."""
    report = Report()
    report.extend(read.report)
    if read.data is None:
        return ReadRun(read.display, report, None)
    # Rows of a file with bad lines are still checked against the task, so one pass
    # reports every problem (up to the error cap), not one kind of problem per round.
    run, unread = _parse_rows(read.data, read.display, report,
                              whole_file=not read.stopped_early)
    return ReadRun(read.display, report, run, unread)


def validate_read_run(read: ReadRun, data_task: TaskData, role: str, max_docs: int = MAX_DOCS_PER_QUERY
                      ) -> tuple[Report, ParsedRun | None]:
    """Check a read run against the task; the run when the file is valid."""
    report = Report()
    report.extend(read.report)
    if read.run is None:
        return report, None
    validate_run(data_task, role, read.run, read.display, report, max_docs=max_docs,
                 unread_lines=read.unread_lines)
    return report, (read.run if report.ok else None)


def load_and_validate(path: Path, data_task: TaskData, role: str, display: str | None = None,
                      max_docs: int = MAX_DOCS_PER_QUERY) -> tuple[Report, ParsedRun | None]:
    """Everything the validator knows about one run file; the run when it is valid."""
    return validate_read_run(read_run(path, display), data_task, role, max_docs)
