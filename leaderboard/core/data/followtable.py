"""FollowTable readers: the BEIR-style files (all four datasets) and the raw JSON.

Upstream (``deu05232/FollowTable``) ships, per dataset, a BEIR export -- ``corpus.jsonl``,
``queries.jsonl`` (``"{q}_{i}"`` = instruction + query), ``only_queries.jsonl`` (``"{q}"``,
topic only), ``qrels/test.tsv`` (instruction_positive) and
``qrels/for_only_query_test.tsv`` (query_positive) -- and, except for WQT whose file was
lost upstream, the raw ``query_instruction.json``. Scoring uses the BEIR files because they
exist for every dataset; :func:`read_raw_instructions` reads the raw layout so the two can
be cross-checked.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Collection, Iterator

import numpy as np
import pyarrow as pa

from leaderboard.core.data.base import (
    DataFiles,
    DataFormatError,
    RoleData,
    TaskData,
    named_files,
    read_text,
    text_lines,
)
from leaderboard.core.data.layout_files import FOLLOWTABLE_FILES, followtable_topic
from leaderboard.core.data.notes import DataNote
from leaderboard.core.tasks import Task

# Upstream instruction_type codes -> the paper's constraint names (FollowTable, Fig. 2).
CONSTRAINT_OF_TYPE = {"1.1": "C1", "1.2": "C2", "2.1": "S1", "2.2": "S2", "2.3": "S3"}


def constraint_of(instruction_type: str) -> str:
    """Map ``1.1`` -> C1 ... ``2.3.x`` -> S3 (the three granularity sub-types are one type)."""
    key = ".".join(instruction_type.split(".")[:2])
    try:
        return CONSTRAINT_OF_TYPE[key]
    except KeyError:
        raise DataFormatError(f"unknown FollowTable instruction_type {instruction_type!r}") from None


def _iter_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataFormatError(f"{path}:{lineno}: invalid JSON: {exc.msg}") from None


def _iter_records(path: Path) -> Iterator[tuple[int, str, dict]]:
    """(line, id, object) of each record of a BEIR JSONL file (corpus or queries)."""
    for lineno, obj in _iter_jsonl(path):
        if not isinstance(obj, dict) or "_id" not in obj:
            raise DataFormatError(f'{path}:{lineno}: a line must be a JSON object with an "_id"')
        yield lineno, str(obj["_id"]), obj


def _iter_queries(path: Path) -> Iterator[tuple[int, str, dict]]:
    """:func:`_iter_records` of a queries file, each id once. A line repeating an earlier
    line's id is the same query only if it is the same record (it says nothing new, as a
    qrels row repeated with its grade); with other content it is refused, naming both
    lines: read as the last (as BEIR's loader does), the file would say two things of one
    query and the board would silently take one of them."""
    first: dict[str, tuple[int, dict]] = {}
    for lineno, qid, obj in _iter_records(path):
        if qid in first:
            line, seen = first[qid]
            if obj != seen:
                raise DataFormatError(f"{path}:{lineno}: query {qid!r} repeats line {line} "
                                      "with other content")
            continue
        first[qid] = (lineno, obj)
        yield lineno, qid, obj


def _qrels_rows(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line, [query, table, grade text]) of each row of a qrels file, past its header.
    One row at a time: a list of every row held at once made the cyclic garbage collector
    run through the whole heap of a scoring process (a cold pass's FollowTable checks 0.2
    to 0.45 CPU-s longer)."""
    reader = csv.reader(io.StringIO(read_text(path), newline=""), delimiter="\t")
    header = next(reader, None)
    if header != ["query-id", "corpus-id", "score"]:
        raise DataFormatError(f"{path}:1: expected header 'query-id corpus-id score'")
    for lineno, row in enumerate(reader, 2):
        if len(row) != 3:
            raise DataFormatError(f"{path}:{lineno}: expected 3 tab-separated columns")
        yield lineno, row


def _read_qrels(path: Path) -> tuple[dict[str, dict[str, int]], tuple[int, ...]]:
    """qrels[query][table] = grade, and the lines of the rows read as an earlier row's
    judgment. A row repeating a (query, table) is the same judgment if it gives the same
    grade (upstream's WTR, IndusTR and WQT test.tsv hold 4, 2 and 19 such rows); with
    another grade it is refused naming both lines, not read as the last."""
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    repeated: list[int] = []
    for lineno, (query, table, grade_text) in _qrels_rows(path):
        try:
            grade = int(grade_text)
        except ValueError:
            raise DataFormatError(f"{path}:{lineno}: relevance {grade_text!r} is not an "
                                  "integer") from None
        graded = qrels[query]
        earlier = graded.get(table)
        if earlier is None:
            graded[table] = grade
        elif earlier == grade:
            repeated.append(lineno)
        else:
            first = next(n for n, row in _qrels_rows(path) if row[:2] == [query, table])
            raise DataFormatError(f"{path}:{lineno}: table {table!r} of query {query!r} "
                                  f"graded {grade} here, {earlier} at line {first}")
    return dict(qrels), tuple(repeated)


def dataset_dir(task: Task, data_dir: Path) -> Path:
    return data_dir / task.source.local_dir


def read_corpus_ids_reference(path: Path) -> np.ndarray:
    """The sorted distinct ``_id`` values of a corpus file, each line parsed as JSON.

    The plain definition; :func:`read_corpus_ids` must return exactly this (tests hold it
    to that on the real corpora and on crafted files).
    """
    ids = {record_id for _, record_id, _ in _iter_records(path)}
    # Python's sort orders str by code point, as numpy does (np.unique would import
    # numpy.ma, 20-30 ms of a one-task `leaderboard eval`, on its first call).
    return np.array(sorted(ids), dtype=str)


# A corpus line as upstream writes it opens with the id, the first key, a plain string.
_ID_OPENING = b'{"_id": "'
def is_utf8(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 text throughout, as a JSON parser of each line requires,
    by Arrow's validator (2.3 ms for TArX's 17 MB corpus; decoding it a 64 KiB slice at a
    time took 7 ms, at once 33-50 ms and a string four times the file). Python's decoder
    is the definition: tests hold the two to the same verdict (surrogates, overlong
    forms and code points past U+10FFFF refused by both)."""
    offsets = pa.py_buffer(np.array([0, len(data)], dtype=np.int64).tobytes())
    one = pa.Array.from_buffers(pa.large_string(), 1, [None, offsets, pa.py_buffer(data)])
    try:
        one.validate(full=True)  # a string array's full check is of its UTF-8
    except pa.ArrowInvalid:
        return False
    return True


def read_corpus_ids(path: Path) -> np.ndarray:
    """:func:`read_corpus_ids_reference`, read without a JSON parse when the file is
    written the usual way.

    Scoring needs only a corpus's ids (and their number), and JSON-parsing 10-20k tables
    was a sixth of a one-task `leaderboard eval`. The fast reading is used only when it
    cannot differ from the parse: every non-blank line opens with ``{"_id": "<id>"``, the
    id free of escapes, and closes its object with ``}``; and the token ``"_id"`` occurs
    nowhere else in the file, so no nested object, repeated key or string value could
    change which id a JSON parser sees; and the file is UTF-8 throughout, so a byte the
    parse refuses (in a table's text as in an id) is refused as it refuses it. Any other
    file is parsed line by line. (A line broken inside its table's text that still ends
    in ``}`` is read; the parse would refuse it. Checking that is the parse's cost.)
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None
    # Offsets into the one buffer, not split lines: copying 17 MB of tables line by line
    # would cost as much as the parse this avoids.
    ids: set[bytes] = set()
    n_lines = 0
    size, skip = len(data), len(_ID_OPENING)
    line_start = 0
    while line_start < size:
        line_end = data.find(b"\n", line_start)
        if line_end < 0:
            line_end = size
        if data.startswith(_ID_OPENING, line_start):
            id_start = line_start + skip
            id_end = data.find(b'"', id_start, line_end)
            if id_end < 0 or data.find(b"\\", id_start, id_end) >= 0:
                return read_corpus_ids_reference(path)  # an escaped or unclosed id
            last = line_end  # the line's last byte before trailing blanks must close it
            while last > id_end and data[last - 1] in b" \t\r":
                last -= 1
            if data[last - 1] != 0x7D:  # "}"
                return read_corpus_ids_reference(path)
            ids.add(data[id_start:id_end])
            n_lines += 1
        elif data[line_start:line_end].strip():
            return read_corpus_ids_reference(path)  # a line written some other way
        line_start = line_end + 1
    if data.count(b'"_id"') != n_lines or not is_utf8(data):
        return read_corpus_ids_reference(path)  # which reports a bad byte's line
    return np.array(sorted({i.decode("utf-8") for i in ids}), dtype=str)


def iter_corpus(task: Task, data_dir: Path, only: Collection[str] | None = None
                ) -> Iterator[tuple[str, str]]:
    """(table id, table text) pairs, for reference models; with ``only``, of those tables."""
    for _, table_id, obj in _iter_records(dataset_dir(task, data_dir) / "corpus.jsonl"):
        if only is None or table_id in only:
            yield table_id, obj.get("text", "")


def data_files(task: Task, data_dir: Path) -> DataFiles:
    """The BEIR export's files of the task's dataset, in FOLLOWTABLE_FILES' order."""
    root = dataset_dir(task, Path(data_dir))
    return named_files([root / f for f in FOLLOWTABLE_FILES])


def load(task: Task, data_dir: Path) -> TaskData:
    files = data_files(task, data_dir).require(task.id, data_dir)
    corpus_path, queries_path, topics_path, altered_qrels_path, original_qrels_path = files

    topics: dict[str, str] = {}
    for _, topic_id, obj in _iter_queries(topics_path):
        topics[topic_id] = obj.get("text", "")
    altered_text: dict[str, str] = {}
    altered_parts: dict[str, tuple[str, str]] = {}
    pairs: dict[str, str] = {}
    groups: dict[str, str] = {}
    for lineno, qid, obj in _iter_queries(queries_path):
        if "_" not in qid:
            raise DataFormatError(f"{queries_path}:{lineno}: query id {qid!r} is not '<q>_<i>'")
        meta = obj.get("metadata") or {}
        if "instruction_type" not in meta:
            raise DataFormatError(f"{queries_path}:{lineno}: metadata.instruction_type missing")
        try:
            groups[qid] = constraint_of(str(meta["instruction_type"]))
        except DataFormatError as exc:
            raise DataFormatError(f"{queries_path}:{lineno}: {exc}") from None
        altered_text[qid] = obj.get("text", "")
        if isinstance(meta.get("origin_query"), str) and isinstance(meta.get("instruction"), str):
            altered_parts[qid] = (meta["origin_query"], meta["instruction"])
        pairs[qid] = followtable_topic(qid)

    original_qrels, original_repeats = _read_qrels(original_qrels_path)
    altered_qrels, altered_repeats = _read_qrels(altered_qrels_path)
    notes = tuple(DataNote("repeated-judgment", str(path.relative_to(data_dir)),
                           tuple(map(str, lines)))
                  for path, lines in ((altered_qrels_path, altered_repeats),
                                      (original_qrels_path, original_repeats)) if lines)

    changed: dict[str, list[str]] = {}
    positive: dict[str, list[str]] = {}
    for qid, topic in pairs.items():
        query_positive = {d for d, r in original_qrels.get(topic, {}).items() if r > 0}
        instruction_positive = {d for d, r in altered_qrels.get(qid, {}).items() if r > 0}
        # T- of the paper: relevant to the topic, but violating the instruction.
        changed[qid] = sorted(query_positive - instruction_positive)
        positive[qid] = sorted(instruction_positive)

    # Only topics that have at least one instruction are scored: an original run is
    # judged as the baseline of its pairs, and topics without pairs have none.
    topic_ids = sorted({t for t in pairs.values()}, key=_natural_key)
    missing_topics = [t for t in topic_ids if t not in topics]
    if missing_topics:
        raise DataFormatError(
            f"{topics_path}: topics {missing_topics[:5]} used by queries.jsonl are missing")
    original = RoleData(query_ids=topic_ids,
                        qrels={t: original_qrels.get(t, {}) for t in topic_ids},
                        query_text={t: topics[t] for t in topic_ids})
    altered_ids = sorted(pairs, key=_natural_key)
    altered = RoleData(query_ids=altered_ids,
                       qrels={q: altered_qrels.get(q, {}) for q in altered_ids},
                       query_text=altered_text, query_parts=altered_parts)
    return TaskData(task_id=task.id, roles={"original": original, "altered": altered},
                    doc_ids=read_corpus_ids(corpus_path), pairs=pairs, changed=changed,
                    instruction_positive=positive, groups=groups, notes=notes)


def _natural_key(qid: str) -> tuple[tuple[int, int | str], ...]:
    """Order of query ids: by their parts ("12_3": 12, then 3), a part of ASCII digits by
    its number and before any other part, which orders by its text. Each part is tagged
    with its kind, so a number is never compared with a text ("q1" beside "12")."""
    return tuple((0, int(p)) if p.isascii() and p.isdigit() else (1, p)
                 for p in qid.replace("-", "_").split("_"))


@dataclass(frozen=True)
class RawInstruction:
    query_id: str            # "{q}_{i}" as in the BEIR export
    topic: str
    instruction: str
    constraint: str
    query_positive: frozenset[str]
    instruction_positive: frozenset[str]
    all_tables: frozenset[str]


def read_raw_instructions(path: Path, topic_ids: dict[str, str]) -> list[RawInstruction]:
    """Read upstream ``query_instruction.json`` (a list of topics with their instructions).

    The raw file carries no ids: ``topic_ids`` maps the topic text to its BEIR id (from
    ``only_queries.jsonl``); instructions are numbered in file order, as the export does.
    Table names are file names (``"8930.txt"``); the ``.txt`` is dropped to match corpus ids.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    out: list[RawInstruction] = []

    def stem(names: list[str]) -> frozenset[str]:
        return frozenset(n[:-4] if n.endswith(".txt") else n for n in names)

    for entry in data:
        topic = topic_ids.get(entry["query"])
        if topic is None:
            continue  # upstream dropped topics without instructions from the BEIR export
        for i, out_entry in enumerate(entry.get("outs", [])):
            out.append(RawInstruction(
                query_id=f"{topic}_{i}", topic=topic, instruction=out_entry["instruction"],
                constraint=constraint_of(str(out_entry["instruction_type"])),
                query_positive=stem(out_entry.get("query_positive", entry["query_positive"])),
                instruction_positive=stem(out_entry["instruction_positive"]),
                all_tables=stem(out_entry.get("all_tables", [])),
            ))
    return out
