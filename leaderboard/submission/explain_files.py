"""Explanation files: the per-query explorer's derived files of a scored submission, and
where they live.

Scoring a submission (:func:`leaderboard.submission.pipeline.score_submission`) explains every task
from the arrays it has just scored (:func:`leaderboard.core.explain_arrays.task_record`:
no second parse, ranking or lookup; :func:`leaderboard.core.explain.explain_task` is the
plain version the tests hold it to) and writes these files, which the submission's folder holds under
``submissions/<id>/explain/`` once it is merged (where they are kept before: below):

* ``<task id>.queries.json.gz``: the query list (each query's id, original query,
  constraint type and the engine's per-query figures) and where the task's texts are;
* ``<task id>.cards.<k>.json.gz``: the queries' cards (changed and instruction-compliant
  documents with their ranks and terms, the top 10 of both runs), ids and figures only,
  in consecutive slices of the query list of about 256 KB of JSON each, so a card loads
  one slice (BM25's 1,386 FollowTable WQT cards are 3.9 MB of JSON: inflating and parsing
  them all was most of a card's load time);
* ``texts/<sha256>.json.gz``: texts (one role's queries, or document snippets and
  which of them were cut), only for benchmarks whose licence lets the site show them.
  They are the same for every submission of a task, and many tasks share them
  (PI-Indic's T1 and T2 from Hindi ask the same Hindi personas), so each is named by the
  SHA-256 of its JSON and a store or a site keeps one copy;
* ``manifest.json``: every file by the size and SHA-256 of the JSON it inflates to (so
  the names do not depend on which zlib wrote the bytes), the tasks and their files, and
  the digest of the inputs they were computed from (the ``inputs_sha256`` that
  ``results.json`` records) and the formats its files are in (:data:`FILE_FORMATS`),
  so a reader can tell stale files from current ones.
  ``results.json`` names this manifest by its own size and SHA-256 (``explain_manifest``):
  those few bytes in git pin every explanation file.

Files are gzipped JSON (fixed compression, no timestamp), so rescoring the same runs
gives byte-identical files. The browser inflates them itself (``DecompressionStream``),
which works the same whether a static server, GitHub Pages or a Hugging Face ``resolve``
URL serves them.

**They are kept where the runs are kept**, as derived files of the run store
(:mod:`leaderboard.store`). CI writes them after the merge
(:mod:`leaderboard.submission.layout`): publishing's scoring writes them into the
submission's folder (:func:`explain_dir`), while a submitter's own scoring keeps them in
the run store's cache, so that the folder it leaves is what a pull request may carry
(:mod:`leaderboard.submission.explain_writers` writes them, either way). `leaderboard
runs push` moves them to the configured store beside the runs
(``submissions/<id>/explain/...``), `runs pull` and `runs verify` fetch them, and every
reader gets them through :class:`leaderboard.submission.files.SubmissionFiles`,
verified by size and SHA-256 (:func:`read_stored_manifest`, :func:`stored_refs`). Where
a published site's browser fetches them from is derived from the same store
(:func:`browser_base`): a folder store's files are copied into the site.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from pathlib import Path
from urllib.parse import quote

from leaderboard.benchmarks import benchmark_of
from leaderboard.core.data import iter_corpus, reader_name
from leaderboard.core.data.base import TaskData
from leaderboard.core.data.cache import (
    DerivedEntry,
    blob_folder,
    derived_entry,
    read_blob,
    read_derived,
    write_blob,
    write_derived,
)
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.explain import (
    EXPLAIN_FORMAT,
    TEXT_FORMAT,
    TaskExplanation,
    explanation_record,
    shown_documents,
    shows_text,
    text_record,
)
from leaderboard.core.explain_arrays import FILE_JSON, ExplainRecord, task_record
from leaderboard.core.fileio import (GZIP_WRITER, MAX_JSON_DEPTH, gzip_bytes, json_too_deep,
                                     size_text)
from leaderboard.core.refusals import newer_version
from leaderboard.core.predictions import Predictions
from leaderboard.core.scoring import RankedTask, ScoreSheet
from leaderboard.core.tasks import Task
from leaderboard.store.files import StoredRef, StoreError
from leaderboard.store.locations import FolderStore, HttpsStore, store_path
from leaderboard.submission.files import SubmissionFiles
from leaderboard.submission.layout import (
    EXPLAIN_DIR,
    MAX_EXPLAIN_FILE_BYTES,
    MAX_EXPLAIN_FILES,
    MAX_EXPLAIN_TOTAL_BYTES,
)
from leaderboard.submission.results import ExplainManifestFile, ResultsFile

MANIFEST = "manifest.json"
TEXTS_DIR = "texts"
#: /2: files named by the size and SHA-256 of their JSON (/1 named the gzip bytes).
MANIFEST_FORMAT = "followboard-explain-manifest/2"
#: The formats of the files a manifest lists (the cards and query lists, the text parts),
#: which it records ("formats"): files of another format are stale (:func:`explain_problem`),
#: as the explorer refuses them, and publishing writes them anew. A manifest naming none
#: was written before manifests named them.
FILE_FORMATS = {"explain": EXPLAIN_FORMAT, "texts": TEXT_FORMAT}
# A path inside the explanation folder: plain names, '/' between folders, gzipped JSON.
_FILE_RE = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*\.json\.gz")
_SHA256_RE = re.compile(r"[0-9a-f]{64}")


class ExplainFilesError(FollowBoardError, ValueError):
    """An explanation folder cannot be read; the message names the file."""


def explain_dir(submission_root: Path) -> Path:
    """Where scoring writes a submission's explanation files; `runs push` moves them to
    the run store's place for them, ``submissions/<id>/explain/``."""
    return submission_root / EXPLAIN_DIR


def queries_file(task_id: str) -> str:
    """A task's query-list file, relative to the explanation folder."""
    return f"{task_id}.queries.json.gz"


def cards_file(task_id: str, part: int) -> str:
    """The ``part``-th slice of a task's cards, relative to the explanation folder."""
    return f"{task_id}.cards.{part}.json.gz"


#: JSON bytes of cards per file: one file for a PI-Indic task, 15 for FollowTable WQT.
CARDS_PER_FILE = 256 * 1024


def text_file(digest: str) -> str:
    return f"{TEXTS_DIR}/{digest}.json.gz"


@dataclass(eq=False)
class ExplainFile:
    """One explanation file: its JSON, which the manifest names by size and SHA-256, and
    its gzip bytes, compressed when the file is written (`ci pr-check` needs only the
    manifest, and compresses nothing). A worker process hands back only the gzip bytes
    (:meth:`gzip_only`), or only the size and digest (:meth:`digest_only`):
    :func:`leaderboard.submission.task_checks._handed_back`."""

    content: bytes | None  # None: only the gzip bytes, or only the size and digest
    sha256: str
    size: int  # bytes of the JSON
    _gzipped: bytes | None = field(default=None, repr=False)

    @classmethod
    def of_json(cls, text: str) -> ExplainFile:
        content = text.encode("utf-8")
        return cls(content, hashlib.sha256(content).hexdigest(), len(content))

    @classmethod
    def of(cls, doc: object) -> ExplainFile:
        """``doc`` as the files' JSON (:data:`leaderboard.core.explain_arrays.FILE_JSON`)."""
        return cls.of_json(FILE_JSON.encode(doc))

    def gzipped(self) -> bytes:
        """The JSON gzipped by :func:`leaderboard.core.fileio.gzip_bytes`, one fixed
        writer, so identical content gives identical bytes (computed once)."""
        if self._gzipped is None:
            if self.content is None:
                raise ValueError("an explanation file handed back by its digest only has "
                                 "no bytes to write")
            self._gzipped = gzip_bytes(self.content)
        return self._gzipped

    def gzip_only(self) -> ExplainFile:
        """The same file without its JSON, compressed first if need be."""
        return ExplainFile(None, self.sha256, self.size, self.gzipped())

    def digest_only(self) -> ExplainFile:
        """The same file's size and digest: what a manifest names, and nothing to write."""
        return ExplainFile(None, self.sha256, self.size)


# Text parts many tasks share, kept once per process by SHA-256 (so each is compressed
# once): PI-Indic's 612 parts are about 70 distinct files.
_TEXT_FILES: dict[str, ExplainFile] = {}
# The same parts by their content, so that a part built again is not encoded again:
# encoding PI-Indic's 612 parts (49 MB of JSON), making UTF-8 of them and hashing it took
# 0.3-0.4 of the 0.7-0.9 CPU-s their texts cost a process that builds them (`ci
# pr-check`'s workers, with no task-data cache). Only parts made of strings (and None)
# are kept here: 1 == 1.0 == True as a key of this dict, but not as JSON.
_PARTS_BY_CONTENT: dict[tuple, ExplainFile] = {}


def _strings(items: Iterable[tuple[object, object]]) -> bool:
    return all(type(k) is str and (type(v) is str or v is None) for k, v in items)


def _text_part(doc: dict) -> ExplainFile:
    """``ExplainFile.of(doc)`` for a text part (``doc["texts"]``: id -> text; a part of
    document snippets also ``doc["cut"]``, a list of ids), the one object of its SHA-256
    in this process; encoded once per distinct content."""
    texts = doc["texts"]
    cut = doc.get("cut", [])
    head = tuple(sorted((k, v) for k, v in doc.items() if k not in ("texts", "cut")))
    head += tuple(("cut", c) for c in cut)
    key: tuple | None = None
    if _strings(head) and _strings(texts.items()):
        key = (head, tuple(texts.items()))
        known = _PARTS_BY_CONTENT.get(key)
        if known is not None:
            return known
    part = ExplainFile.of(doc)
    part = _TEXT_FILES.setdefault(part.sha256, part)
    if key is not None:
        _PARTS_BY_CONTENT[key] = part
    return part


def unpacked(data: bytes, where: str) -> dict:
    """The JSON document of a (gzipped) explanation file; errors name ``where``."""
    try:
        text = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        if json_too_deep(text):
            raise ValueError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
        doc = json.loads(text)
    except (OSError, EOFError, ValueError) as exc:
        raise ExplainFilesError(f"{where}: not a readable explanation file ({exc})") from None
    if not isinstance(doc, dict):
        raise ExplainFilesError(f"{where}: not a readable explanation file (not an object)")
    return doc


# --------------------------------------------------------------------------- texts

@dataclass(frozen=True)
class TaskTexts:
    """A task's texts as content-addressed parts: ``refs`` (part name -> SHA-256, e.g.
    ``queries:original``, ``docs``) and the parts' files by SHA-256; or, for a
    benchmark whose licence does not let the site show its texts, ``upstream`` links."""

    refs: dict[str, str] = field(default_factory=dict)
    parts: dict[str, ExplainFile] = field(default_factory=dict)
    licence: str | None = None
    source: str | None = None
    upstream: dict[str, str] | None = None


# Texts depend on the task and its data only: built once per process (scoring several
# submissions of one task reuses them).
_TEXTS: dict[tuple[str, str], TaskTexts] = {}


def upstream_links(task: Task) -> dict[str, str] | None:
    """Where a card links the documents and queries of a benchmark whose texts it does not
    show (its declaration's ``upstream_text_links``), or None."""
    if shows_text(task):
        return None
    return benchmark_of(task.benchmark).upstream_text_links(task)


def task_texts(task: Task, data: TaskData, data_dir: Path) -> TaskTexts:
    """The texts a task's cards show (:func:`leaderboard.core.explain.text_record`), split in
    parts that tasks share; for a benchmark without a licence to show them, the upstream
    links (:func:`upstream_links`). Kept for the process, and between processes in the
    task-data cache (:func:`kept_texts`): they depend on the task's data alone, and
    building them reads its whole corpus and encodes and compresses each part."""
    key = (task.id, str(Path(data_dir).resolve()))
    if key in _TEXTS:
        return _TEXTS[key]
    entry = derived_entry(task, Path(key[1]), reader_name(task), "texts", TEXTS_CODE,
                          _GZIP_SALT)
    texts = kept_texts(entry) if entry is not None else None
    if texts is None:
        texts = built_texts(task, data, data_dir)
        if entry is not None:
            keep_texts(entry, texts)
    _TEXTS[key] = texts
    return texts


def built_texts(task: Task, data: TaskData, data_dir: Path) -> TaskTexts:
    """:func:`task_texts` computed from the task's files: the plain version the kept ones
    are held to (tests/test_explain_files.py)."""
    # Only the documents shown are made texts of: FollowIR's and mFollowIR's corpora hold
    # up to 47,000 documents, of which the cards show the judged ones (1,300-2,200).
    record = text_record(task, data, iter_corpus(task, data_dir, shown_documents(data)))
    if record is None:
        return TaskTexts(upstream=upstream_links(task))
    named: list[tuple[str, str, dict[str, object]]] = [
        (f"queries:{role}", "queries", texts) for role, texts in record["queries"].items()
        if texts]
    named.append(("docs", "docs", record["docs"]))
    if task.candidates == "pairs":
        named += _pair_parts(task, data, data_dir)
    refs: dict[str, str] = {}
    parts: dict[str, ExplainFile] = {}
    for name, kind, content in named:
        doc = {"format": record["format"], "kind": kind, "licence": record["licence"],
               "source": record["source"], "texts": content}
        if kind == "docs":
            doc["cut"] = record["cut"]
        part = _text_part(doc)
        refs[name] = part.sha256
        parts[part.sha256] = part
    return TaskTexts(refs=refs, parts=parts, licence=record["licence"],
                     source=record["source"])


# What a task's texts depend on besides its data (which the entry's fingerprint covers):
# the code that builds and serialises them, and the zlib and level that compress them
# (the parts are kept compressed, as they are written).
TEXTS_CODE = ("leaderboard.core.explain", "leaderboard.core.explain_arrays",
              "leaderboard.submission.explain_files")
_GZIP_SALT = GZIP_WRITER
_TEXT_BLOBS = "explain-texts"


def keep_texts(entry: DerivedEntry, texts: TaskTexts) -> None:
    """Keep a task's texts in the task-data cache: the entry names the parts, each kept
    once by the SHA-256 of its JSON, gzipped as written (most parts are shared)."""
    folder = blob_folder(_TEXT_BLOBS)
    if folder is None:
        return
    for digest, part in texts.parts.items():
        path = folder / f"{digest}.json.gz"
        if not path.exists():
            write_blob(path, part.gzipped())
    write_derived(entry, {"refs": texts.refs, "licence": texts.licence,
                          "source": texts.source, "upstream": texts.upstream})


def kept_texts(entry: DerivedEntry) -> TaskTexts | None:
    """A task's texts as :func:`keep_texts` kept them, or None (a miss): each part is
    inflated and must hash to the SHA-256 that names it."""
    value = read_derived(entry)
    if not isinstance(value, dict) or not isinstance(value.get("refs"), dict):
        return None
    refs = value["refs"]
    parts: dict[str, ExplainFile] = {}
    folder = blob_folder(_TEXT_BLOBS) if refs else None
    for digest in refs.values():
        part = _TEXT_FILES.get(digest) if isinstance(digest, str) else None
        if part is None:
            if folder is None or not isinstance(digest, str) or not _SHA256_RE.fullmatch(digest):
                return None
            blob = read_blob(folder / f"{digest}.json.gz")
            try:
                content = gzip.decompress(blob) if blob is not None else None
            except (OSError, EOFError, zlib.error):
                content = None
            if content is None or hashlib.sha256(content).hexdigest() != digest:
                return None
            part = _TEXT_FILES.setdefault(digest, ExplainFile(content, digest, len(content),
                                                                 blob))
        parts[digest] = part
    upstream = value.get("upstream")
    return TaskTexts(refs=dict(refs), parts=parts, licence=value.get("licence"),
                     source=value.get("source"), upstream=dict(upstream) if upstream else None)


def _pair_parts(task: Task, data: TaskData, data_dir: Path
                ) -> list[tuple[str, str, dict[str, object]]]:
    """PI-Indic T4: which persona and instruction each scored pair joins, and the
    personas' texts (the instructions are the task's documents). The pairs are the task
    data's (its hard negatives mined once, when the data was loaded)."""
    from leaderboard.core.data.pi_indic import iter_queries  # the reader, for T4 alone

    scored = data.roles["predictions"].query_ids
    pairs = {p: [data.groups[p], data.pairs[p]] for p in scored}
    shown = {data.groups[p] for p in scored}
    personas = {p: text for p, text in iter_queries(task, data_dir) if p in shown}
    return [("pairs", "pairs", dict(sorted(pairs.items()))),
            ("queries:persona", "queries", dict(sorted(personas.items())))]


# --------------------------------------------------------------------------- one task

@dataclass(frozen=True)
class TaskFiles:
    """A task's explanation files, ready to write: path (relative to the explanation
    folder) -> file, text parts included."""

    task_id: str
    files: dict[str, ExplainFile]
    text_refs: dict[str, str]


def _listing(record: Mapping, texts: TaskTexts, corpus_size: int, starts: list[int]) -> dict:
    """A task's query-list file: the record's list and where its cards and texts are."""
    return {
        "format": record["format"], "kind": "queries", "task": record["task"],
        "primary": record["primary"], "metrics": record["metrics"],
        "queries": record["queries"], "corpus_size": corpus_size, "card_files": starts,
        "texts": ({"refs": texts.refs, "licence": texts.licence, "source": texts.source}
                  if texts.refs else None),
        "upstream": texts.upstream,
    }


def _with_texts(files: dict[str, ExplainFile], texts: TaskTexts) -> dict[str, ExplainFile]:
    for digest in texts.refs.values():
        files[text_file(digest)] = texts.parts[digest]
    return files


def task_files(explanation: TaskExplanation, texts: TaskTexts, corpus_size: int) -> TaskFiles:
    """Split a task's explanation record (:func:`leaderboard.core.explain.explanation_record`)
    into its query list and its cards, and add the texts they point at. ``corpus_size``
    is N in the rank N + 1 IRS gives a table a run leaves out.

    The plain version, a document per file: :func:`record_files` writes the same files
    (the tests hold it to this), serialising each card once."""
    record = explanation_record(explanation)
    task_id = record["task"]
    # Cards in the list's order, cut into slices of equal numbers of queries holding
    # about CARDS_PER_FILE JSON bytes each (measured on the whole task, once); the list
    # names the position each slice starts at.
    order = [q[0] for q in record["queries"]]
    size = len(json.dumps(record["cards"], separators=(",", ":")))
    per_file = max(1, len(order) * CARDS_PER_FILE // max(size, 1))
    starts = list(range(0, max(len(order), 1), per_file))
    slices = [{q: record["cards"][q] for q in order[start:start + per_file]}
              for start in starts]
    files = {queries_file(task_id): ExplainFile.of(_listing(record, texts, corpus_size,
                                                            starts))}
    for part, cards in enumerate(slices):
        files[cards_file(task_id, part)] = ExplainFile.of({
            "format": record["format"], "kind": "cards", "task": task_id, "part": part,
            "fields": record["fields"], "cards": cards})
    return TaskFiles(task_id, _with_texts(files, texts), texts.refs)


# Characters ``json.dumps`` (ensure_ascii, its default) writes as one \uXXXX escape where
# the files hold the character itself, and those it writes as two (a surrogate pair).
_ONE_ESCAPE = re.compile("[\x7f-\uffff]")
_TWO_ESCAPES = re.compile("[\U00010000-\U0010ffff]")


def _ascii_length(text: str) -> int:
    """The length of ``text`` (JSON with ensure_ascii=False) as ensure_ascii writes it."""
    if text.isascii() and "\x7f" not in text:
        return len(text)
    return len(text) + 5 * len(_ONE_ESCAPE.findall(text)) + 11 * len(
        _TWO_ESCAPES.findall(text))


def _object_json(members: dict[str, str]) -> str:
    """A JSON object of already serialised members, keys sorted as ``sort_keys`` sorts.
    A key is a string, which FILE_JSON (ensure_ascii off) writes with
    ``encode_basestring``; called directly, not through the encoder's ``encode`` (2 us a
    call, 0.6 ms of a PI-Indic task's 150 cards)."""
    return "{" + ",".join(f"{encode_basestring(k)}:{members[k]}" for k in sorted(members)) + "}"


def record_files(record: ExplainRecord, texts: TaskTexts, corpus_size: int) -> TaskFiles:
    """The files :func:`task_files` writes, from a record whose cards are JSON text
    already (:func:`leaderboard.core.explain_arrays.task_record`): the slices are cut
    where :func:`task_files` cuts them (its measure of the task's cards, ensure_ascii
    and all, is summed from the cards' text), and each file is put together from its
    cards' text, so no card is serialised twice."""
    head, cards = record.head, record.cards
    task_id = head["task"]
    order = [q[0] for q in head["queries"]]
    # One measure of all keys and all cards joined: the length is a sum over characters.
    size = (2 + _ascii_length("".join(map(encode_basestring, cards))) + len(cards)
            + _ascii_length("".join(cards.values())) + max(len(cards) - 1, 0))
    per_file = max(1, len(order) * CARDS_PER_FILE // max(size, 1))
    starts = list(range(0, max(len(order), 1), per_file))
    files = {queries_file(task_id): ExplainFile.of(_listing(head, texts, corpus_size,
                                                            starts))}
    for part, start in enumerate(starts):
        members = {k: FILE_JSON.encode(v) for k, v in (
            ("format", head["format"]), ("kind", "cards"), ("task", task_id), ("part", part),
            ("fields", head["fields"]))}
        members["cards"] = _object_json({q: cards[q] for q in order[start:start + per_file]})
        files[cards_file(task_id, part)] = ExplainFile.of_json(_object_json(members))
    return TaskFiles(task_id, _with_texts(files, texts), texts.refs)


def explain_inputs(task: Task, data: TaskData, data_dir: Path, sheet: ScoreSheet,
                   ranked: RankedTask | None, predictions: Predictions | None) -> TaskFiles:
    """A scored task's files, from what it was scored from: the ranked runs and the
    ranks of its judged documents (:func:`leaderboard.core.scoring.rank_task`), or its
    predictions."""
    record = task_record(task, data, sheet, ranked, predictions)
    return record_files(record, task_texts(task, data, data_dir), data.corpus_size)


# --------------------------------------------------------------------------- a submission

def inputs_digest(inputs_sha256: Mapping[str, str]) -> str:
    """One digest of the inputs a results file records (``inputs_sha256``)."""
    text = json.dumps(dict(inputs_sha256), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def manifest_of(submission_id: str, tasks: Iterable[TaskFiles],
                inputs_sha256: Mapping[str, str]) -> dict:
    files: dict[str, dict[str, object]] = {}
    listed: dict[str, dict[str, object]] = {}
    for t in sorted(tasks, key=lambda t: t.task_id):
        for path, file in t.files.items():
            # Named by the JSON each file inflates to, as the per-query file is: another
            # zlib writes other bytes for the same JSON, and the names must not change.
            files[path] = {"sha256": file.sha256, "bytes": file.size}
        listed[t.task_id] = {"queries": queries_file(t.task_id),
                             "cards": sorted((p for p in t.files if p.startswith(
                                 f"{t.task_id}.cards.")), key=lambda p: int(p.split(".")[-3])),
                             "texts": dict(sorted(t.text_refs.items()))}
    return {"format": MANIFEST_FORMAT, "submission": submission_id,
            "formats": dict(FILE_FORMATS),
            "inputs_digest": inputs_digest(inputs_sha256), "tasks": listed,
            "files": dict(sorted(files.items()))}


def explanation_manifest(submission_id: str, tasks: Iterable[TaskFiles],
                         inputs_sha256: Mapping[str, str]) -> bytes:
    """The bytes of ``manifest.json`` for ``tasks``' files: what results.json names
    (:class:`leaderboard.submission.results.ExplainManifestFile`), also where nothing is written
    (`ci pr-check` computes the results.json publishing will write)."""
    doc = manifest_of(submission_id, tasks, inputs_sha256)
    return (json.dumps(doc, sort_keys=True, indent=1) + "\n").encode("utf-8")


def parse_manifest(data: bytes, where: str) -> dict:
    """An explanation manifest's document, its listing checked: every file a plain path
    inside the explanation folder, with a size and a SHA-256, within the bounds above.
    Raises :class:`ExplainFilesError` naming ``where``."""
    doc = unpacked(data, where)
    newer = newer_version("format", doc.get("format"), [MANIFEST_FORMAT])
    if newer is not None:
        raise ExplainFilesError(f"{where}: {newer}")
    if doc.get("format") != MANIFEST_FORMAT or not isinstance(doc.get("tasks"), dict) \
            or not isinstance(doc.get("files"), dict):
        raise ExplainFilesError(f"{where}: not an explanation manifest ({MANIFEST_FORMAT})")
    files = doc["files"]
    if len(files) > MAX_EXPLAIN_FILES:
        raise ExplainFilesError(f"{where}: lists {len(files):,} files, over the limit "
                                f"of {MAX_EXPLAIN_FILES:,}")
    total = 0
    for rel, entry in files.items():
        if not _FILE_RE.fullmatch(rel) or ".." in rel.split("/") or rel == MANIFEST:
            raise ExplainFilesError(f"{where}: {rel!r} is not an explanation file")
        size = entry.get("bytes") if isinstance(entry, dict) else None
        sha = entry.get("sha256") if isinstance(entry, dict) else None
        if not isinstance(size, int) or isinstance(size, bool) or not \
                0 < size <= MAX_EXPLAIN_FILE_BYTES or not isinstance(sha, str) \
                or not _SHA256_RE.fullmatch(sha):
            raise ExplainFilesError(f"{where}: {rel!r} needs its size (1 to "
                                    f"{MAX_EXPLAIN_FILE_BYTES} bytes) and SHA-256")
        total += size
    if total > MAX_EXPLAIN_TOTAL_BYTES:
        raise ExplainFilesError(f"{where}: its files add up to {size_text(total)}, over the "
                                f"{size_text(MAX_EXPLAIN_TOTAL_BYTES)} limit")
    return doc


def stored_refs(manifest: dict) -> list[StoredRef]:
    """Every file a (parsed) manifest lists, as the run store names it: its path in the
    submission folder and the size and SHA-256 of what it inflates to."""
    return [StoredRef(f"{EXPLAIN_DIR}/{rel}", entry["bytes"], entry["sha256"], gzip=True)
            for rel, entry in sorted(manifest["files"].items())]


def read_stored_manifest(files: SubmissionFiles, named: ExplainManifestFile) -> dict:
    """The manifest results.json names, through the run store (the submission's folder,
    the store, the cache or the manifest's source: wherever it is, never requiring it to
    be local), verified against its size and SHA-256 before it is parsed. Raises
    :class:`leaderboard.store.files.StoreError` or :class:`ExplainFilesError`."""
    return parse_manifest(files.read(named.ref()), files.display(named.path))


def explain_problem(files: SubmissionFiles, results: ResultsFile) -> str | None:
    """Why a scored submission's explanation files do not go with its ``results.json``,
    or None when they do: results.json names none (scored before the explorer), the
    manifest it names cannot be had or read, or it was computed from other inputs than
    results.json records. Starts with ``explain/``. Only the manifest is read."""
    named = results.explain_manifest
    if named is None:
        return (f"{EXPLAIN_DIR}/ is missing (results.json names no explanation files: "
                "scored before the query explorer)")
    try:
        manifest = read_stored_manifest(files, named)
    except StoreError as exc:
        return f"{named.path}: {exc.message}"
    except ExplainFilesError as exc:
        return f"{named.path} cannot be read ({exc})"
    if manifest.get("inputs_digest") != inputs_digest(results.inputs_sha256 or {}):
        return f"{EXPLAIN_DIR}/ was computed from other files than results.json"
    return formats_problem(manifest.get("formats"))


def formats_problem(formats: object) -> str | None:
    """Why the files a manifest recording ``formats`` lists are not in the formats this
    version writes (:data:`FILE_FORMATS`), or None when they are."""
    if formats == FILE_FORMATS:
        return None
    writes = ", ".join(FILE_FORMATS.values())
    if not isinstance(formats, dict) or not all(k in formats for k in FILE_FORMATS):
        return (f"{EXPLAIN_DIR}/ was written by a version of FollowBoard before its manifest "
                f"named the formats of its files (this one writes {writes})")
    kinds = sorted(k for k in formats if formats[k] != FILE_FORMATS.get(k))
    newer = [k for k in kinds if k in FILE_FORMATS
             and newer_version("format", formats[k], [FILE_FORMATS[k]]) is not None]
    if newer:
        return (f"{EXPLAIN_DIR}/ holds files in {', '.join(formats[k] for k in newer)}, "
                f"newer than this version of FollowBoard reads "
                f"({', '.join(FILE_FORMATS[k] for k in newer)}); update FollowBoard to "
                f"read them")
    had = ", ".join(str(formats[k])[:80] for k in kinds)
    want = ", ".join(FILE_FORMATS[k] for k in kinds if k in FILE_FORMATS) or writes
    return (f"{EXPLAIN_DIR}/ holds files in {had}, which this version of FollowBoard no "
            f"longer writes and its query explorer refuses (it writes {want})")


def browser_base(files: SubmissionFiles) -> str | None:
    """Where a published site's browser fetches a submission's explanation files when the
    site does not copy them, from the run store: a Hugging Face dataset's ``resolve`` URL
    at the commit the submission's manifest names, or an HTTPS store's own URL. None: the
    site build copies them (they are in the submission's folder, or the store is a
    folder), or nothing says where they are.

    The explorer appends a file's path inside the explanation folder; a store whose URL
    template does not end in ``{+path}`` gets ``{+rel}`` (or ``{rel}``, for ``{path}``,
    escaped the same way) where that path goes."""
    if files.local(f"{EXPLAIN_DIR}/{MANIFEST}") is not None or isinstance(files.store,
                                                                         FolderStore):
        return None
    prefix = store_path(files.sub_id, f"{EXPLAIN_DIR}/")
    if isinstance(files.store, HttpsStore):
        template = files.store.template
        if template.endswith("{+path}"):
            return template[:-len("{+path}")] + quote(prefix, safe="/")
        if "{+path}" in template:
            return template.replace("{+path}", quote(prefix, safe="/") + "{+rel}")
        return template.replace("{path}", quote(prefix, safe="") + "{rel}")
    if files.source is not None:
        return files.source.download_url(f"{EXPLAIN_DIR}/")
    return None
