"""What every benchmark reader produces: the judgments and query sets of one task.

Readers for each upstream layout (FollowTable, PI-Indic, the Hugging Face layout of
FollowIR/mFollowIR) turn files into a :class:`TaskData`; validation and scoring only
ever see this type, so they need no benchmark-specific code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np

from leaderboard.core.config import ENV_DATA, data_dir_option
from leaderboard.core.data.notes import DataNote
from leaderboard.core.errors import FollowBoardError



class MissingDataError(FollowBoardError, FileNotFoundError):
    """Raised with one message listing every missing file and how to get them."""

    def __init__(self, task_id: str, data_dir: Path, missing: list[Path]) -> None:
        self.task_id = task_id
        self.data_dir = data_dir
        self.missing = missing
        listing = "\n".join(f"  - {p}" for p in missing[:20])
        more = f"\n  ... and {len(missing) - 20} more" if len(missing) > 20 else ""
        super().__init__(
            f"data for task {task_id!r} is missing from {data_dir}:\n{listing}{more}\n"
            f"Fetch it with `leaderboard data pull {task_id.split('/')[0]}"
            f"{data_dir_option(data_dir)}` "
            f"(needs network access), or point --data-dir / ${ENV_DATA} at a folder that has it."
        )

    def __str__(self) -> str:
        return self.args[0]


class DataFormatError(FollowBoardError, ValueError):
    """A data file exists but cannot be read; the message names the file (and line)."""


# text_lines decodes a file this many bytes at a time (to a line's end): one decode of a
# block, not one per line, which made loading a FollowTable task's qrels three times slower
# (TArX: 3 ms to 9.5 ms), and never a whole corpus at once (WQT's 16 MB as one string of
# four-byte characters, one emoji among them, was 65 MB).
_TEXT_BLOCK = 1 << 20


def _decoded(path: Path, data: bytes, lines_before: int) -> str:
    """``data``, whole lines of the file at ``path`` after its first ``lines_before``, as
    text; a byte that is not UTF-8 is a :class:`DataFormatError` naming its line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = lines_before + data.count(b"\n", 0, exc.start) + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        raise DataFormatError(f"{path}:{line}: not UTF-8 text ({exc.reason} at byte "
                              f"{exc.start - start + 1} of the line)") from None


def read_text(path: Path) -> str:
    """The whole UTF-8 file at ``path`` (a small one: judgments, queries), decoded at
    once; what cannot be read or decoded is refused as :func:`text_lines` refuses it."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return _decoded(path, data, 0)


def text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of the UTF-8 file at ``path``, its line ending
    kept (lines end at ``\n`` only, as a binary file's lines do). A line that is not
    UTF-8 (a Latin-1 byte, a file damaged on the way) is a :class:`DataFormatError`
    naming the file and line, as any other bad line is: decoded by the file, it was an
    internal error naming neither."""
    try:
        with path.open("rb") as fh:
            lineno, rest = 0, b""
            while True:
                chunk = fh.read(_TEXT_BLOCK)
                data = rest + chunk
                if chunk:
                    cut = data.rfind(b"\n") + 1
                    if not cut:  # no line end yet: read on
                        rest = data
                        continue
                else:
                    cut = len(data)
                    if not cut:
                        return
                block, rest = data[:cut], data[cut:]
                text = _decoded(path, block, lineno)
                lines = text.split("\n")
                last = lines.pop()  # "" after a final line end
                for text_line in lines:
                    lineno += 1
                    yield lineno, text_line + "\n"
                if last:
                    lineno += 1
                    yield lineno, last
                if not chunk:
                    return
    except OSError as exc:
        raise DataFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None


class DataDirError(FollowBoardError, NotADirectoryError):
    """The data directory named is something other than a folder."""


def resolve_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: ``--data-dir`` first, then $LEADERBOARD_DATA, then ./data.

    One that does not exist is a folder with nothing in it yet (every file is missing,
    and `data pull` makes it); one that exists and is not a folder (a file) is refused,
    naming where it was given: reported as missing data, it drew the advice to pull into
    it, which cannot work."""
    if explicit:
        path, given = Path(explicit), "--data-dir"
    elif os.environ.get(ENV_DATA):
        path, given = Path(os.environ[ENV_DATA]), f"${ENV_DATA}"
    else:
        path, given = Path("data"), "the default data directory"
    if path.exists() and not path.is_dir():
        raise DataDirError(f"{path} ({given}) is not a folder: point --data-dir or "
                           f"${ENV_DATA} at the folder that holds, or is to hold, the "
                           "benchmark data")
    return path


@dataclass(frozen=True)
class DataFiles:
    """What a reader reads for one task: each reader's ``data_files(task, data_dir)``
    declares it, reads exactly ``read`` when it loads the task, and ``leaderboard data
    status --verify`` checks every file of ``read`` against the folder's manifest, so a
    file the reader would read is never one that nothing vouches for."""

    # The files it reads, in the order it reads them (each present).
    read: tuple[Path, ...]
    # What it needs that is not there: a file, or a folder that holds no file of the
    # kind it reads (a Hugging Face config, whose files are not named in advance).
    missing: tuple[Path, ...]

    def require(self, task_id: str, data_dir: Path) -> tuple[Path, ...]:
        """``read``, or a :class:`MissingDataError` naming everything missing."""
        if self.missing:
            raise MissingDataError(task_id, data_dir, list(self.missing))
        return self.read


def named_files(paths: list[Path]) -> DataFiles:
    """The :class:`DataFiles` of a reader that reads files of fixed names: those present,
    and those that are not."""
    return DataFiles(read=tuple(p for p in paths if p.is_file()),
                     missing=tuple(p for p in paths if not p.is_file()))


@dataclass
class RoleData:
    """The queries a run of one role must answer and their judgments."""

    query_ids: list[str]
    # qrels[qid][docid] = graded relevance (ints); queries without a judged doc still appear
    # (FollowIR/mFollowIR read only the queries their qrels judge, as mteb does).
    qrels: dict[str, dict[str, int]]
    # What a model reads for each query: the benchmark's own text, the instruction joined
    # to the query as upstream joins them (FollowIR/mFollowIR as MTEB does, "query
    # instruction"; FollowTable as its BEIR export does, "instruction [SEP] query").
    query_text: dict[str, str] = field(default_factory=dict)
    # The same queries taken apart, (query, instruction), for a model that joins them its
    # own way (`baselines run --instruction-format`); a query without an instruction
    # (FollowTable's topic-only queries, PI-Indic) has no entry.
    query_parts: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Queries of this role upstream lists without a judgment, sorted: no query of the task
    # (FollowIR/mFollowIR, as mteb reads them), named so that a run listing one is told why.
    unjudged: list[str] = field(default_factory=list)


@dataclass
class TaskData:
    task_id: str
    roles: dict[str, RoleData]
    # Sorted unique corpus ids: a run may only rank these (validation uses searchsorted).
    doc_ids: np.ndarray
    # For "pool" tasks: qid -> sorted candidate ids (a run may only rank its query's pool).
    pools: dict[str, np.ndarray] | None = None
    # Altered qid -> original qid it is compared with (p-MRR and IRS pairs); PI-Indic T4:
    # pair id -> the instruction it pairs with its persona (``groups``).
    pairs: dict[str, str] = field(default_factory=dict)
    # Altered qid -> docs whose relevance the instruction changed (p-MRR's "changed" docs;
    # for FollowTable T- = query_positive minus instruction_positive).
    changed: dict[str, list[str]] = field(default_factory=dict)
    # FollowTable only: altered qid -> T+ (instruction_positive), for IRS.
    instruction_positive: dict[str, list[str]] = field(default_factory=dict)
    # Altered qid -> group label (FollowTable constraint type C1..S3); PI-Indic T4: pair id
    # -> the persona it belongs to (the unit its per-persona scores are built on).
    groups: dict[str, str] = field(default_factory=dict)
    # What the reader did with upstream's files that a user should know (a stray brace
    # ignored, a row left out, a repeated judgment read once), in the order it met them:
    # leaderboard.core.data.notes words them.
    notes: tuple[DataNote, ...] = ()

    # changed and instruction_positive encoded for the metrics, by kind, once per loaded
    # task, so that every submission scored in this process reuses them (as trec_eval
    # reuses its qrels): leaderboard.core.metrics.instruction.judged_docs fills it.
    judged: dict[str, object] = field(default_factory=dict, init=False, repr=False,
                                      compare=False)

    @property
    def corpus_size(self) -> int:
        return int(self.doc_ids.shape[0])
