"""PI-Indic-Align reader: the 150 human-validated persona-instruction pairs per language.

Upstream (``aryashah2k/PI-Indic-Align``) publishes, per language, one CSV
``annotator_validation/language-wise-validation/Nirdesha_Multilingual_Validation - <Language>.csv``
with columns ``id, ENG_indian_context, indian_context, expert_1, expert_2``. The two context
columns hold JSON objects with ``indian_context_persona`` and ``indian_context_instruction``
(English, and the file's language). Ids 1..150 are the same pairs in every language, which
is what makes the cross-lingual tasks possible. The paper's full 50k-pair data is not
released, so the leaderboard benchmark ``pi-indic-val150`` is built on these 150 pairs.

Identifiers. A persona is ``p<id>`` and an instruction ``i<id>``, so a run line says which
side its query and document come from. T1/T2 query with personas and rank instructions; T3
queries with instructions and ranks personas. The candidates are the whole 150-item
target-side corpus in the target language (no pools), and each query has exactly one
relevant item: its own counterpart (relevance 1).

Expert validation. Every row was judged by two native speakers (``Completely Agree``,
``Partially Agree``, ``Do Not Agree``) on whether the translation preserves the English
pair's compatibility. The paper reports these judgments as an inter-annotator agreement
study of the translated pairs, not as a filter, and the upstream README calls all 150
"human-validated"; the ids must also stay aligned across the 12 languages. So every row is
kept. A row is dropped only when it is unusable: its persona or instruction text in that
language is empty. A task uses the ids usable in all of its languages. On the pinned
revision no row is dropped (see :func:`dropped_ids`).

Known upstream defect: Punjabi row 4's ``indian_context`` JSON carries one stray closing
brace after the object. The reader accepts trailing ``}`` characters (and only those) and
records the lines in :attr:`LanguageFile.stray_braces`: a note of every task reading it.

T4 (compatibility classification) is scored from predictions over a fixed pair set, built
by :func:`t4_pairs`: per language, every validated pair is a positive and each persona
gets up to 10 lexically similar instructions as hard negatives (the authors' way);
personas are split into a calibration half (labels for calibrating probabilities) and a
test half (scored); pair ids are opaque. See its docstring. The negatives mined from the
pinned revision ship with the package (``pi_indic_t4_negatives.json``, used only for the
very instructions they were mined from), so a process reading T4's data does not mine
them again.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import stat
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Collection, Iterable, Iterator, Literal

import numpy as np

from leaderboard.core.data.base import (
    DataFiles,
    DataFormatError,
    MissingDataError,
    RoleData,
    TaskData,
    named_files,
)
from leaderboard.core.data.layout_files import (
    INSTRUCTION_PREFIX,
    PERSONA_PREFIX,
    PI_INDIC_LANGUAGES,
    PI_INDIC_LOCAL_DIR,
    pi_indic_path,
)
from leaderboard.core.data.notes import DataNote
from leaderboard.core.tasks import Task

COLUMNS = ("id", "ENG_indian_context", "indian_context", "expert_1", "expert_2")
PERSONA_KEY = "indian_context_persona"
INSTRUCTION_KEY = "indian_context_instruction"

# T4 pair set. The paper fixes every random seed to 42 (Appendix A.1); we use the same.
T4_SEED = 42
# The authors' pair constructor (src/pair_constructor.py, mine_hard_negatives) pairs each
# persona with the instructions of up to 10 other records whose instruction is lexically
# closest to its own (rapidfuzz token_set_ratio), within one language.
T4_MAX_NEGATIVES_PER_PERSONA = 10
# Their threshold (token_set_ratio >= 70) is not applied: among only 150 instructions it
# leaves 0-2 negatives per language (measured on the pinned revision), so the 10 closest
# instructions are taken whatever their score.
T4_SPLITS = ("calibration", "test")
# Fraction of personas whose pairs form the calibration split (the rest are scored).
T4_CALIBRATION_FRACTION = 0.5

Side = Literal["persona", "instruction"]


def persona_id(item: int) -> str:
    return f"{PERSONA_PREFIX}{item}"


def instruction_id(item: int) -> str:
    return f"{INSTRUCTION_PREFIX}{item}"


def _side_prefix(side: Side) -> str:
    return PERSONA_PREFIX if side == "persona" else INSTRUCTION_PREFIX


def language_file(data_dir: Path, task: Task | None, lang: str) -> Path:
    """Local path of one language's validation CSV."""
    if lang not in PI_INDIC_LANGUAGES:
        raise DataFormatError(
            f"unknown PI-Indic language code {lang!r}; known: {', '.join(PI_INDIC_LANGUAGES)}")
    local_dir = task.source.local_dir if task is not None else PI_INDIC_LOCAL_DIR
    return pi_indic_path(data_dir, local_dir, lang)


@dataclass(frozen=True)
class LanguageFile:
    """One language's parsed validation CSV.

    ``columns`` holds one value per usable id (ascending) in each of ``id`` (int),
    ``persona``, ``instruction`` (the language's texts), ``eng_persona``,
    ``eng_instruction``, ``expert_1`` and ``expert_2``. ``dropped`` maps unusable ids to
    the reason; ``stray_braces`` the lines whose context had stray ``}`` after its JSON
    object. Plain tuples, not a pandas frame: importing pandas took half a second of every
    process that loads a PI-Indic task from its files (as `ci pr-check` does, with no
    task-data cache).
    """

    lang: str
    path: Path
    columns: dict[str, tuple]
    dropped: dict[int, str] = field(default_factory=dict)
    stray_braces: tuple[int, ...] = ()

    def text(self, side: Side) -> dict[int, str]:
        return dict(zip(self.columns["id"], self.columns[side]))

    @property
    def ids(self) -> list[int]:
        """The usable ids, ascending."""
        return list(self.columns["id"])


def _decode_context(raw: str, where: str, line: int, stray_braces: list[int]) -> dict:
    """Parse a context cell; tolerate trailing stray ``}`` (an upstream typo), nothing else."""
    try:
        obj, end = json.JSONDecoder().raw_decode(raw.strip())
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"{where}: invalid JSON in context column: {exc.msg}") from None
    trailing = raw.strip()[end:]
    if trailing.strip():
        if set(trailing.strip()) <= {"}"}:
            stray_braces.append(line)
        else:
            raise DataFormatError(f"{where}: unexpected text after the JSON object: {trailing[:40]!r}")
    if not isinstance(obj, dict):
        raise DataFormatError(f"{where}: context column is not a JSON object")
    return obj


@lru_cache(maxsize=32)
def _read_language_cached(path: Path, lang: str, mtime_ns: int) -> LanguageFile:
    del mtime_ns  # part of the cache key only: an edited file is read again
    try:
        content = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:  # there, but unreadable: permission denied, an I/O error
        raise DataFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise DataFormatError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    reader = csv.reader(io.StringIO(content, newline=""))
    header = next(reader, None)
    if header is None:
        raise DataFormatError(f"{path}: empty file")
    header = [h.strip() for h in header]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise DataFormatError(f"{path}:1: missing column(s) {', '.join(missing)}; "
                              f"header is {', '.join(header)}")
    col = {name: header.index(name) for name in COLUMNS}

    rows: list[dict] = []
    dropped: dict[int, str] = {}
    stray_braces: list[int] = []
    seen: dict[int, int] = {}
    record_start = reader.line_num + 1
    for record in reader:
        # csv.reader.line_num is the physical line a record ends on; quoted cells may span
        # lines, so remember where each record starts for error messages.
        start_line = record_start
        where = f"{path}:{start_line}"
        record_start = reader.line_num + 1
        if not any(cell.strip() for cell in record):
            continue
        if len(record) != len(header):  # more: rows run together, or a stray comma
            raise DataFormatError(f"{where}: expected {len(header)} columns, found {len(record)}")
        raw_id = record[col["id"]].strip()
        try:
            item = int(raw_id)
        except ValueError:
            raise DataFormatError(f"{where}: id {raw_id!r} is not an integer") from None
        if item <= 0:
            raise DataFormatError(f"{where}: id {item} is not positive")
        if item in seen:
            raise DataFormatError(f"{where}: id {item} repeats line {seen[item]}")
        seen[item] = start_line
        eng = _decode_context(record[col["ENG_indian_context"]], where, start_line, stray_braces)
        local = _decode_context(record[col["indian_context"]], where, start_line, stray_braces)
        if "id" in local and str(local["id"]).strip() != str(item):
            raise DataFormatError(f"{where}: row id {item} but indian_context.id is {local['id']!r}")
        persona = str(local.get(PERSONA_KEY) or "").strip()
        instruction = str(local.get(INSTRUCTION_KEY) or "").strip()
        empty = [k for k, v in ((PERSONA_KEY, persona), (INSTRUCTION_KEY, instruction)) if not v]
        if empty:
            dropped[item] = f"{where}: empty {' and '.join(empty)}"
            continue
        rows.append({
            "id": item, "persona": persona, "instruction": instruction,
            "eng_persona": str(eng.get(PERSONA_KEY) or "").strip(),
            "eng_instruction": str(eng.get(INSTRUCTION_KEY) or "").strip(),
            "expert_1": record[col["expert_1"]].strip(),
            "expert_2": record[col["expert_2"]].strip(),
        })
    if not rows:
        raise DataFormatError(f"{path}: no usable persona-instruction rows")
    rows.sort(key=lambda row: row["id"])  # ids are distinct (checked above)
    columns = {name: tuple(row[name] for row in rows) for name in rows[0]}
    return LanguageFile(lang=lang, path=path, columns=columns, dropped=dropped,
                        stray_braces=tuple(dict.fromkeys(stray_braces)))


def read_language(data_dir: Path, lang: str, task: Task | None = None) -> LanguageFile:
    """Parse one language's CSV (cached per file and modification time): its rows by id,
    the rows dropped and the stray braces read past. The reader's entry for one file, kept
    for whoever inspects the data (the tests of the pinned revision read it so); the task
    loaders read through ``_read_languages``, which names every missing file at once."""
    return _read_languages(data_dir, task, (lang,))[0]


def _read_languages(data_dir: Path, task: Task | None, langs: tuple[str, ...]
                    ) -> list[LanguageFile]:
    """The CSVs of ``langs``, each parsed once per file and modification time; one
    MissingDataError names every missing file.

    A stat of each file is all a parsed one costs: a task asks for its languages a few
    times as it loads and again for the explorer's texts (912 times for the 300 tasks),
    and resolving each path's links and checking the file twice more took 0.3 CPU-s of
    a pass that loads them from their files (`ci pr-check`'s)."""
    paths = [language_file(data_dir, task, lang) for lang in langs]
    mtimes = [_file_mtime(path) for path in paths]
    missing = list(dict.fromkeys(path for path, mtime in zip(paths, mtimes) if mtime is None))
    if missing:
        task_id = task.id if task is not None else f"pi-indic-val150 ({', '.join(langs)})"
        raise MissingDataError(task_id, Path(data_dir), missing)
    return [_read_language_cached(Path(os.path.abspath(path)), lang, mtime)
            for path, lang, mtime in zip(paths, langs, mtimes)]


def _file_mtime(path: Path) -> int | None:
    """The modification time of the regular file at ``path`` (a link followed), or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns if stat.S_ISREG(st.st_mode) else None


def _query_side(task: Task) -> Side:
    side = task.params.get("query_side", "persona")
    if side not in ("persona", "instruction"):
        raise DataFormatError(f"task {task.id!r}: query_side must be persona or instruction")
    return side  # type: ignore[return-value]


def _doc_side(task: Task) -> Side:
    return "instruction" if _query_side(task) == "persona" else "persona"


def data_files(task: Task, data_dir: Path) -> DataFiles:
    """The validation CSVs of the task's languages (one, where both sides share it)."""
    langs = dict.fromkeys((task.query_language, task.doc_language))
    return named_files([language_file(Path(data_dir), task, lang) for lang in langs])


def _read_task_languages(task: Task, data_dir: Path) -> tuple[LanguageFile, LanguageFile]:
    query_file, doc_file = _read_languages(data_dir, task,
                                           (task.query_language, task.doc_language))
    return query_file, doc_file


def usable_ids(task: Task, data_dir: Path) -> list[int]:
    """Ids usable in every language of the task (ascending)."""
    return _common_ids(*_read_task_languages(task, data_dir))


def _common_ids(query_file: LanguageFile, doc_file: LanguageFile) -> list[int]:
    return sorted(set(query_file.ids) & set(doc_file.ids))


def task_notes(task: Task, data_dir: Path) -> tuple[DataNote, ...]:
    """The notes of a task's data (:mod:`leaderboard.core.data.notes`), of each file: lines
    read past stray braces, ids left out for an empty text or that the other file alone has."""
    langs = (task.query_language, task.doc_language)
    files = dict(zip(langs, _read_task_languages(task, data_dir)))
    notes = []
    for lang, parsed in files.items():
        other = files[langs[lang == langs[0]]]  # the other side's (itself, where one file)
        absent = sorted(set(other.ids) - set(parsed.ids) - set(parsed.dropped))
        for kind, items in (("stray-brace", parsed.stray_braces),
                            ("empty-text", parsed.dropped), ("missing-pair", absent)):
            if items:
                where = str(language_file(data_dir, task, lang).relative_to(data_dir))
                notes.append(DataNote(kind, where, tuple(map(str, items))))
    return tuple(notes)


def dropped_ids(task: Task, data_dir: Path) -> dict[int, str]:
    """Ids a task leaves out (empty text in a language, or absent from one), with why."""
    query_file, doc_file = _read_task_languages(task, data_dir)
    out = {**doc_file.dropped, **query_file.dropped}
    for has, lacks in ((query_file, doc_file), (doc_file, query_file)):
        out.update(dict.fromkeys(set(has.ids) - set(lacks.ids) - out.keys(),
                                 f"not present in the {lacks.lang} file"))
    return dict(sorted(out.items()))


def _is_t4(task: Task) -> bool:
    return task.candidates == "pairs"


def iter_queries(task: Task, data_dir: Path) -> Iterator[tuple[str, str]]:
    """(query id, text) pairs in the query language, ids ascending.

    For T4 these are the personas (``p<id>``); pair them with :func:`iter_corpus`.
    """
    query_file, doc_file = _read_task_languages(task, data_dir)
    side: Side = "persona" if _is_t4(task) else _query_side(task)
    prefix = _side_prefix(side)
    texts = query_file.text(side)
    for item in _common_ids(query_file, doc_file):
        yield f"{prefix}{item}", texts[item]


def iter_corpus(task: Task, data_dir: Path, only: Collection[str] | None = None
                ) -> Iterator[tuple[str, str]]:
    """(document id, text) pairs in the document language, ids ascending; with ``only``,
    of those documents.

    For T4 these are the instructions (``i<id>``) of the task's language.
    """
    query_file, doc_file = _read_task_languages(task, data_dir)
    side: Side = "instruction" if _is_t4(task) else _doc_side(task)
    prefix = _side_prefix(side)
    texts = doc_file.text(side)
    for item in _common_ids(query_file, doc_file):
        doc = f"{prefix}{item}"
        if only is None or doc in only:
            yield doc, texts[item]


def _t4_order_key(item: int, seed: int) -> str:
    # A keyed hash rather than a library RNG: the pair set must be identical on every
    # machine and every numpy version, forever, because submitted predictions refer to it.
    return hashlib.sha256(f"pi-indic-val150/t4:{seed}:{item}".encode()).hexdigest()


# --- lexical similarity (rapidfuzz's token_set_ratio, written out) -----------------------


def indel_distance_plain(a: str, b: str) -> int:
    """Insertions + deletions turning ``a`` into ``b``: len(a) + len(b) - 2 * LCS(a, b).

    The textbook dynamic programme, one row at a time; the reference the fast path
    (rapidfuzz's bit-parallel ``Indel.distance``) is tested against."""
    if len(a) < len(b):
        a, b = b, a
    previous = [0] * (len(b) + 1)
    for char_a in a:
        current = [0]
        for j, char_b in enumerate(b, 1):
            if char_a == char_b:
                current.append(previous[j - 1] + 1)
            else:
                current.append(max(previous[j], current[j - 1]))
        previous = current
    return len(a) + len(b) - 2 * previous[-1]


#: An edit distance between two texts (rapidfuzz's Indel, or a plain one in tests).
Distance = Callable[[str, str], int]


def _indel_distance(a: str, b: str) -> int:
    return _indel_function()(a, b)


@lru_cache(maxsize=1)
def _indel_function() -> Callable[[str, str], int]:
    """rapidfuzz's bit-parallel Indel distance, else the plain programme: the same
    integers, found once rather than imported at each of a language's 11k comparisons."""
    try:
        from rapidfuzz.distance import Indel
    except ImportError:  # the plain programme gives the same integers, only slower
        return indel_distance_plain
    return Indel.distance


def _ratio(a: str, b: str, distance) -> float:
    total = len(a) + len(b)
    if total == 0:
        return 100.0
    return 100.0 * (total - distance(a, b)) / total


def token_set_ratio(a: str, b: str, distance: Distance = _indel_distance) -> float:
    """Lexical similarity in [0, 100] of two texts as sets of whitespace-separated tokens.

    With I the sorted shared tokens, A and B the sorted tokens only in ``a`` / only in
    ``b`` (each joined by spaces): 100 when the texts share a token and one has no other
    token; 0 when one text has no token; otherwise the best normalised Indel similarity
    ``100 * (1 - indel(x, y) / (len x + len y))`` among (I, I+A), (I, I+B) and (I+A, I+B).
    This is rapidfuzz's ``fuzz.token_set_ratio`` without a preprocessor (its default)."""
    return _token_set_ratio_of(frozenset(a.split()), frozenset(b.split()), distance)


def _token_set_ratio_of(tokens_a: frozenset[str], tokens_b: frozenset[str],
                        distance: Callable[[str, str], int]) -> float:
    """:func:`token_set_ratio` of two texts already split into their token sets."""
    if not tokens_a or not tokens_b:
        return 0.0
    shared = tokens_a & tokens_b
    only_a, only_b = tokens_a - tokens_b, tokens_b - tokens_a
    if shared and (not only_a or not only_b):
        return 100.0
    sect = " ".join(sorted(shared))
    with_a = " ".join(part for part in (sect, " ".join(sorted(only_a))) if part)
    with_b = " ".join(part for part in (sect, " ".join(sorted(only_b))) if part)
    best = _ratio(with_a, with_b, distance)
    if sect:
        best = max(best, _ratio(sect, with_a, distance), _ratio(sect, with_b, distance))
    return best


def _split_ratio(a: tuple[tuple[str, ...], frozenset[str]],
                 b: tuple[tuple[str, ...], frozenset[str]],
                 distance: Callable[[str, str], int]) -> float:
    """:func:`token_set_ratio` of two texts given as (sorted tokens, token set): the same
    float, with one Indel distance instead of three.

    Filtering a sorted token list keeps it sorted, so no set is sorted again, and of the
    shared tokens only their joined length is needed. The three strings compared share
    the sorted shared tokens as a prefix, which an LCS keeps whole:
    indel(I+A, I+B) is indel(A, B) on the shorter texts, and indel(I, I+A) is len(A) + 1,
    so each ratio is computed from the same integers as :func:`_token_set_ratio_of`'s.
    A language's 11,175 pairs took 0.42 s the plain way (rapidfuzz's own token_set_ratio,
    called per pair, 0.27 s)."""
    sorted_a, set_a = a
    sorted_b, set_b = b
    if not sorted_a or not sorted_b:
        return 0.0
    shared = set_a & set_b
    only_a = " ".join([token for token in sorted_a if token not in set_b])
    only_b = " ".join([token for token in sorted_b if token not in set_a])
    if shared and (not only_a or not only_b):
        return 100.0
    if not shared:
        return _ratio(only_a, only_b, distance)
    sect = sum(map(len, shared)) + len(shared) - 1  # the joined shared tokens' length
    with_a, with_b = sect + 1 + len(only_a), sect + 1 + len(only_b)
    best = 100.0 * (with_a + with_b - distance(only_a, only_b)) / (with_a + with_b)
    for with_x, only_x in ((with_a, only_a), (with_b, only_b)):
        total = sect + with_x
        best = max(best, 100.0 * (total - (len(only_x) + 1)) / total)
    return best


def t4_hard_negatives(instructions: dict[int, str],
                      per_persona: int = T4_MAX_NEGATIVES_PER_PERSONA,
                      distance: Distance = _indel_distance) -> dict[int, list[int]]:
    """Persona id -> the ids of the ``per_persona`` instructions lexically closest to its
    own instruction (token_set_ratio, highest first; equal scores by ascending id), its
    own instruction excluded. These are the persona's negatives, as in the authors'
    ``mine_hard_negatives`` without its score threshold (see ``T4_MAX_NEGATIVES_PER_PERSONA``).
    """
    ids = sorted(instructions)
    if len(ids) < 2:
        raise DataFormatError("T4 needs at least two pairs to draw a mismatched instruction")
    if distance is _indel_distance:
        distance = _indel_function()
    # Each instruction split and sorted once, not once per comparison (150 texts, 11k
    # comparisons): _split_ratio, held to token_set_ratio by tests/test_pi_indic.py.
    tokens = {}
    for item in ids:
        members = frozenset(instructions[item].split())
        tokens[item] = (tuple(sorted(members)), members)
    score: dict[tuple[int, int], float] = {}
    for position, first in enumerate(ids):
        for second in ids[position + 1:]:  # token_set_ratio is symmetric
            value = _split_ratio(tokens[first], tokens[second], distance)
            score[first, second] = score[second, first] = value
    return {item: sorted((o for o in ids if o != item),
                         key=lambda other: (-score[item, other], other))[:per_persona]
            for item in ids}


def t4_split_of(ids: list[int], seed: int = T4_SEED,
                calibration_fraction: float = T4_CALIBRATION_FRACTION) -> dict[int, str]:
    """Persona id -> "calibration" or "test". The ids are ordered by a seeded hash and the
    first ``round(fraction * n)`` form the calibration split; every pair of a persona
    belongs to its persona's split, so no persona is seen on both sides."""
    order = sorted(ids, key=lambda item: _t4_order_key(item, seed))
    cut = int(round(calibration_fraction * len(order)))
    return {item: ("calibration" if rank < cut else "test") for rank, item in enumerate(order)}


def t4_pair_id(lang: str, persona: int, instruction: int, seed: int = T4_SEED) -> str:
    """Opaque pair id, e.g. ``t4-3f9c0a71d2e4``: names neither the persona nor the
    instruction, so the id alone does not tell a positive (same id on both sides) from a
    negative. (The gold labels are public all the same: they follow from the data.)"""
    digest = hashlib.sha256(f"pi-indic-val150/t4:{seed}:{lang}:{persona}:{instruction}"
                            .encode()).hexdigest()
    return f"t4-{digest[:12]}"


T4Split = Literal["test", "calibration", "all"]


@dataclass(frozen=True)
class T4Pairs:
    """A T4 pair set as columns, one entry per pair, in :func:`t4_pairs`' order (for a
    table: ``pandas.DataFrame(dataclasses.asdict(pairs))``). The texts are None unless
    asked for."""

    pair_id: tuple[str, ...]
    persona_id: tuple[str, ...]
    instruction_id: tuple[str, ...]
    label: tuple[int, ...]
    split: tuple[str, ...]
    persona_text: tuple[str, ...] | None = None
    instruction_text: tuple[str, ...] | None = None

    def __len__(self) -> int:
        return len(self.pair_id)


def t4_pairs(task: Task, data_dir: Path, with_text: bool = False,
             split: T4Split = "test") -> T4Pairs:
    """The T4 pair set of one language: ``pair_id, persona_id, instruction_id, label,
    split`` of each pair (:class:`T4Pairs`).

    Every validated pair (persona k, instruction k) is a positive (label 1). Each persona
    also gets up to ``T4_MAX_NEGATIVES_PER_PERSONA`` = 10 negatives (label 0): the
    instructions lexically closest to its own, in the task's language
    (:func:`t4_hard_negatives`), as the authors' pair constructor draws them. Personas
    are split by :func:`t4_split_of` (seed 42) into a ``calibration`` half, whose labelled
    pairs a method may fit on to calibrate probabilities, and a ``test`` half, the pairs a
    prediction file covers and the only ones scored. Every row has its label, the test
    half's too: the labels follow from the public data, and the split only says which
    half is for fitting. ``split`` picks which rows come back (default: the scored test
    pairs). Rows are ordered by persona id, the positive first,
    then the negatives closest first. Pair ids are opaque (:func:`t4_pair_id`).
    ``with_text`` adds ``persona_text`` and ``instruction_text``.
    """
    if not _is_t4(task):
        raise DataFormatError(f"task {task.id!r} is not a T4 (pairs) task")
    if split not in ("test", "calibration", "all"):
        raise ValueError(f"split must be test, calibration or all, not {split!r}")
    ids = usable_ids(task, data_dir)
    lang = task.query_language
    instructions = dict(iter_corpus(task, data_dir))
    negatives = _t4_negatives_cached(_instruction_items(ids, instructions))
    split_of = t4_split_of(ids)
    rows = []
    for item in ids:
        if split != "all" and split_of[item] != split:
            continue
        for other, label in [(item, 1)] + [(n, 0) for n in negatives[item]]:
            rows.append((t4_pair_id(lang, item, other), persona_id(item),
                         instruction_id(other), label, split_of[item]))
    pair_ids, persona_ids, instruction_ids, labels, splits = (
        tuple(column) for column in zip(*rows)) if rows else ((),) * 5
    if len(set(pair_ids)) < len(pair_ids):  # a 48-bit digest collision: refuse, never merge
        raise DataFormatError(f"task {task.id}: two T4 pairs share an id")
    texts: dict[str, tuple[str, ...]] = {}
    if with_text:
        personas = dict(iter_queries(task, data_dir))
        texts = {"persona_text": tuple(personas[p] for p in persona_ids),
                 "instruction_text": tuple(instructions[i] for i in instruction_ids)}
    return T4Pairs(pair_ids, persona_ids, instruction_ids, labels, splits, **texts)


@lru_cache(maxsize=32)
def _t4_negatives_cached(items: tuple[tuple[int, str], ...]) -> dict[int, list[int]]:
    # Scoring, validation and the reference runs all rebuild the pair set; mining it is
    # 11k token_set_ratio calls per language, so keep the answer per instruction set.
    kept = kept_t4_negatives().get(instructions_digest(items))
    if kept is not None and kept.keys() == {item for item, _ in items}:
        return kept
    return t4_hard_negatives(dict(items))


# The negatives mined from the pinned revision's instructions, one entry per language,
# shipped with the package. The pair set must never change (submitted predictions name
# its pair ids), and mining a language took 0.25-0.3 s in every process that read T4's
# data without the task-data cache: `ci pr-check`'s workers (the workflow turns the cache
# off), 3.5 CPU-s for the 12 languages. An entry is used only for the very instructions it
# was mined from (their digest); other instructions are mined. tests/test_pi_indic.py
# mines every language again and holds the file to it; `t4_negatives_table` writes it.
T4_NEGATIVES_FILE = Path(__file__).with_name("pi_indic_t4_negatives.json")
T4_NEGATIVES_FORMAT = "followboard-t4-negatives/1"


def instructions_digest(items: tuple[tuple[int, str], ...]) -> str:
    """SHA-256 of a language's (id, instruction) items, in id order, as compact JSON."""
    text = json.dumps(items, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _instruction_items(ids: list[int], instructions: dict[str, str]
                       ) -> tuple[tuple[int, str], ...]:
    """The (id, instruction) items a T4 task's negatives are mined from: its usable ids,
    ascending, with their texts (``instructions``: :func:`iter_corpus`'s)."""
    return tuple((i, instructions[instruction_id(i)]) for i in ids)


@lru_cache(maxsize=1)
def kept_t4_negatives() -> dict[str, dict[int, list[int]]]:
    """Instructions digest -> persona id -> its negatives, from :data:`T4_NEGATIVES_FILE`;
    empty when the file is missing or is not of this format and negatives count."""
    try:
        value = json.loads(T4_NEGATIVES_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if (not isinstance(value, dict) or value.get("format") != T4_NEGATIVES_FORMAT
            or value.get("per_persona") != T4_MAX_NEGATIVES_PER_PERSONA):
        return {}
    try:
        return {entry["instructions_sha256"]: {int(k): [int(i) for i in v]
                                               for k, v in entry["negatives"].items()}
                for entry in value["languages"].values()}
    except (AttributeError, KeyError, TypeError, ValueError):  # another shape: mine
        return {}


def t4_negatives_table(tasks: Iterable[Task], data_dir: Path) -> dict:
    """What :data:`T4_NEGATIVES_FILE` holds: the negatives of each T4 task of ``tasks``
    (one a language), mined from its instructions under ``data_dir``, with the digest of
    those instructions."""
    languages = {}
    for task in sorted((t for t in tasks if _is_t4(t)), key=lambda t: t.id):
        lang = task.query_language
        items = _instruction_items(usable_ids(task, data_dir),
                                   dict(iter_corpus(task, data_dir)))
        languages[lang] = {"instructions_sha256": instructions_digest(items),
                           "negatives": {str(k): v for k, v in
                                         t4_hard_negatives(dict(items)).items()}}
    return {"format": T4_NEGATIVES_FORMAT, "per_persona": T4_MAX_NEGATIVES_PER_PERSONA,
            "languages": languages}


def t4_labels(data: TaskData) -> dict[str, int]:
    """pair id -> gold label, from a loaded T4 :class:`TaskData`."""
    role = data.roles["predictions"]
    return {pid: int(role.qrels[pid]["label"]) for pid in role.query_ids}


def load(task: Task, data_dir: Path) -> TaskData:
    """Judgments of one PI-Indic task.

    T1-T3: role ``run``; queries ``p<id>`` (T1/T2) or ``i<id>`` (T3) in the query language,
    each with its one counterpart as the only relevant document; ``doc_ids`` are the
    target-side ids (sorted). T4: role ``predictions``; its "queries" are the pair ids of
    :func:`t4_pairs` and ``qrels[pair_id] = {"label": 0 or 1}``; ``doc_ids`` is empty,
    ``groups`` maps each pair id to its persona id and ``pairs`` to its instruction id.
    """
    data_dir = Path(data_dir)
    if _is_t4(task):
        pairs = t4_pairs(task, data_dir)
        role = RoleData(
            query_ids=list(pairs.pair_id),
            qrels={pid: {"label": label} for pid, label in zip(pairs.pair_id, pairs.label)},
        )
        # Each pair's persona: the unit T4's per-persona scores and tests are built on;
        # and its instruction, so that what the pair set took mining (the hard negatives)
        # is kept with the task data (leaderboard.core.data.cache) and never mined again
        # to show the pairs (leaderboard.submission.explain_files).
        personas = dict(zip(pairs.pair_id, pairs.persona_id))
        instructions = dict(zip(pairs.pair_id, pairs.instruction_id))
        return TaskData(task_id=task.id, roles={"predictions": role},
                        doc_ids=np.array([], dtype=str), pairs=instructions,
                        groups=personas, notes=task_notes(task, data_dir))

    query_prefix = _side_prefix(_query_side(task))
    doc_prefix = _side_prefix(_doc_side(task))
    query_text = dict(iter_queries(task, data_dir))
    ids = usable_ids(task, data_dir)
    query_ids = [f"{query_prefix}{item}" for item in ids]
    qrels = {f"{query_prefix}{item}": {f"{doc_prefix}{item}": 1} for item in ids}
    doc_ids = np.sort(np.array([f"{doc_prefix}{item}" for item in ids], dtype=str))
    role = RoleData(query_ids=query_ids, qrels=qrels, query_text=query_text)
    notes = task_notes(task, data_dir)
    return TaskData(task_id=task.id, roles={"run": role}, doc_ids=doc_ids, notes=notes)
