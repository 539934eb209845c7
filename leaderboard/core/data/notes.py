"""What a reader did with upstream's files that a user of the task should know: the notes
of a task's data.

Upstream files have quirks a reader works around or sets aside rather than refuse: a
PI-Indic row whose JSON carries a stray ``}`` (Punjabi row 4), a row left out for an empty
text, a judgment repeated row for row, a changed document listed twice, a query listed
without a judgment. Each reader records what it did as a :class:`DataNote` (a kind, the
file or config it concerns, and what in it: lines or ids), facts only, on the task's data
(:attr:`leaderboard.core.data.base.TaskData.notes`), which the task-data cache keeps with
the rest. This module alone words them: :func:`note_text` in full (`leaderboard data
status`), :func:`notes_line` as the one line `eval`, `explain`, `validate` and `score`
print for a task that has any. A note is information, never a warning: the data is read
as stated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal

from leaderboard.core.config import data_dir_option

NoteKind = Literal[
    # PI-Indic: lines of a language CSV whose context cell ends in stray "}" after its JSON
    # object, which the reader ignores (items: line numbers).
    "stray-brace",
    # PI-Indic: ids of a language CSV whose persona or instruction text is empty, left out
    # of every task that reads the file (items: the pair ids).
    "empty-text",
    # PI-Indic: ids the task's other language file has and this one lacks, left out of
    # the task (items: the pair ids).
    "missing-pair",
    # FollowTable: qrels rows repeating an earlier row's query, table and grade, read as
    # one judgment (items: their line numbers).
    "repeated-judgment",
    # FollowIR/mFollowIR: qrels rows repeating an earlier row's query, document and grade,
    # read as one judgment, as mteb reads them (items: their query ids, one a row).
    "repeated-judgment-row",
    # FollowIR/mFollowIR: topics whose qrel_diff list names a document more than once,
    # each counted once in p-MRR (items: the topics, one per repeated listing).
    "repeated-changed-document",
    # FollowIR/mFollowIR: queries the queries config lists and the qrels judge not, no
    # query of the task, as mteb reads it (items: the query ids).
    "unjudged-query",
]


@dataclass(frozen=True)
class DataNote:
    """One thing a reader did with a task's upstream files: its ``kind``, ``where`` (the
    file, or a config's folder, under the data directory: an entry of the task-data cache
    serves the same files wherever the directory lies) and ``items`` (what in it, as
    :data:`NoteKind` says), in the order the reader met them."""

    kind: NoteKind
    where: str
    items: tuple[str, ...]


def _count(n: int, one: str, many: str) -> str:
    return f"1 {one}" if n == 1 else f"{n:,} {many}"


def _listed(noun: str, items: tuple[str, ...], limit: int = 20) -> str:
    """"line 5", "ids 2, 7", "queries a, b, c and 12 more": each item once."""
    items = tuple(dict.fromkeys(items))
    shown = ", ".join(items[:limit])
    more = f" and {len(items) - limit:,} more" if len(items) > limit else ""
    return f"{noun if len(items) == 1 else _PLURALS[noun]} {shown}{more}"


_PLURALS = {"line": "lines", "id": "ids", "query": "queries", "topic": "topics"}


def note_text(note: DataNote) -> str:
    """The note in full: where, what upstream's file holds, and what the reader made of
    it."""
    items, n = note.items, len(note.items)
    if note.kind == "stray-brace":
        return (f"{note.where}: {_listed('line', items)}: a context cell ends in a stray "
                "'}' after its JSON object (an upstream typo), which is ignored")
    if note.kind == "empty-text":
        return (f"{note.where}: {_count(n, 'pair', 'pairs')} ({_listed('id', items)}) "
                "with an empty persona or instruction text, left out of every task that "
                "reads the file")
    if note.kind == "missing-pair":
        return (f"{note.where}: lacks {_count(n, 'pair', 'pairs')} ({_listed('id', items)}) "
                "that the task's other file has, left out of the task")
    if note.kind == "repeated-judgment":
        return (f"{note.where}: {_count(n, 'row repeats', 'rows repeat')} an earlier row's "
                f"query, table and grade ({_listed('line', items)}), each read as one "
                "judgment")
    if note.kind == "repeated-judgment-row":
        return (f"{note.where}: {_count(n, 'row repeats', 'rows repeat')} an earlier row's "
                f"query, document and grade ({_listed('query', items)}), each read as one "
                "judgment, as mteb reads them")
    if note.kind == "repeated-changed-document":
        return (f"{note.where}: {_count(n, 'document is', 'documents are')} listed again in "
                f"a topic's changed documents ({_listed('topic', items)}), each counted "
                "once in p-MRR, where mteb's calculate_pmrr counts every listing")
    if note.kind == "unjudged-query":
        return (f"{note.where}: {_count(n, 'query is', 'queries are')} listed without a "
                f"judgment ({_listed('query', items)}), no query of the task, as mteb reads "
                "it: a run lists none")
    raise ValueError(f"unknown data note kind {note.kind!r}")


def _brief(kind: str, n: int) -> str:
    """A few words of ``n`` notes' items of one kind."""
    return {
        "stray-brace": "stray '}' ignored on " + _count(n, "line", "lines"),
        "empty-text": _count(n, "pair left out for an empty text",
                             "pairs left out for an empty text"),
        "missing-pair": _count(n, "pair left out, missing from a language",
                               "pairs left out, missing from a language"),
        "repeated-judgment": _count(n, "repeated judgment read once",
                                    "repeated judgments read once"),
        "repeated-judgment-row": _count(n, "repeated judgment read once",
                                        "repeated judgments read once"),
        "repeated-changed-document": _count(n, "changed document listed again, counted once",
                                            "changed documents listed again, counted once"),
        "unjudged-query": _count(n, "query without a judgment left out",
                                 "queries without a judgment left out"),
    }[kind]


def notes_brief(notes: tuple[DataNote, ...]) -> str:
    """A task's notes in a few words, counted by kind ("19 repeated judgments read
    once")."""
    counts: dict[str, int] = {}
    for note in notes:
        counts[note.kind] = counts.get(note.kind, 0) + len(note.items)
    return ", ".join(_brief(kind, n) for kind, n in counts.items())


def notes_line(notes: tuple[DataNote, ...], benchmark: str, data_dir: PurePath | None
               ) -> str:
    """The one line `eval`, `explain`, `validate` and `score` print for a task whose data
    has notes: :func:`notes_brief`, and where to read them in full (`data status` of the
    folder ``data_dir`` the command read)."""
    return (f"upstream's data as read: {notes_brief(notes)}; `leaderboard data status "
            f"{benchmark}{data_dir_option(data_dir)}` says where")


def source_note_lines(notes_of: Mapping[str, tuple[DataNote, ...]]) -> list[str]:
    """The notes of a data source's tasks (task id -> its notes; every task read), each
    note once, in full, with how many of the tasks it concerns when not all."""
    tasks_of: dict[DataNote, int] = {}
    for notes in notes_of.values():
        for note in notes:
            tasks_of[note] = tasks_of.get(note, 0) + 1
    return [note_text(note) + ("" if n == len(notes_of) else
                               f" ({n:,} of {len(notes_of):,} tasks)")
            for note, n in tasks_of.items()]
