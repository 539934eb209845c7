"""PI-Indic T4 prediction files: format, validator and scorer.

T4 (persona-instruction compatibility) is scored from probabilities, not rankings. A
prediction file has one line per test pair of the task's fixed pair set
(:func:`leaderboard.core.data.pi_indic.t4_pairs`; the calibration pairs, whose labels are
public, are not predicted)::

    t4-5f5acece6ce7 0.93
    t4-3092a5dad6ef 0.08

* two fields separated by spaces or tabs: the pair id and the model's probability that
  the persona and the instruction are compatible, a finite decimal number in [0, 1];
* one line for every test pair, no pair twice, no other pair ids; order does not matter;
* UTF-8 text, ``\\n`` or ``\\r\\n`` line ends, blank lines ignored; the file may be
  gzip-compressed (recognised by its magic bytes ``1f 8b``, whatever its name).

The validator reports every problem as ``FILE:LINE: message`` (or ``FILE: message`` for
whole-file problems) through :class:`leaderboard.core.report.Report` and never raises on bad
input.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np

from leaderboard.core.data.base import TaskData
from leaderboard.core.fileio import (
    MAX_LINE_ERRORS,
    atomic_write_bytes,
    packed_text,
    read_submitted_bytes,
    utf16_text,
)
from leaderboard.core.metrics.classification import (
    classification_metrics,
    per_unit_scores,
)
from leaderboard.core.report import Report
from leaderboard.core.scoring import ScoreSheet
from leaderboard.core.tasks import Task

ROLE = "predictions"
# A complete file is about 300 lines of ~20 bytes. Anything near this cap is not a
# prediction file, and the cap keeps a gzip bomb from exhausting memory.
MAX_BYTES = 8 * 1024 * 1024
MISSING_LISTED = 5

# A plain decimal literal of ASCII digits. float() alone would also accept "1_0", "nan",
# "infinity", Arabic-Indic or other Unicode digits and surrounding Unicode spaces, none of
# which belongs in a prediction file (nor does \\d, which matches any Unicode digit).
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_PAIR_ID_SHAPE = re.compile(r"t4-[0-9a-f]{12}")
# Fields are separated by ASCII spaces and tabs only; str.split() would also split on
# no-break spaces and other Unicode whitespace.
_SEPARATORS = re.compile(r"[ \t]+")


@dataclass(frozen=True)
class Predictions:
    """A valid prediction file: its pair ids, each once, in file order, and their
    probabilities. Plain arrays, not a pandas frame: importing pandas took 0.5 CPU-s, more
    than validating, scoring and explaining all twelve T4 tasks
    (benchmarks/score_suite.py)."""

    pair_ids: tuple[str, ...]
    probability: np.ndarray  # float64, one per pair id

    def __len__(self) -> int:
        return len(self.pair_ids)

    def by_pair(self) -> dict[str, float]:
        return dict(zip(self.pair_ids, self.probability.tolist()))


def _read_text(path: Path, shown: str, report: Report) -> str | None:
    """The file's text, or None after reporting why it cannot be read as text.

    Reading (size limits, gzip) is the guarded reader every submitted file goes through.
    """
    raw = read_submitted_bytes(path, shown, report, max_bytes=MAX_BYTES,
                               max_compressed_bytes=MAX_BYTES)
    if raw is None:
        return None
    if b"\x00" in raw and (utf16 := utf16_text(raw, shown)):  # the text, in another encoding
        report.add(shown, None, utf16)
        return None
    if b"\x00" in raw:
        line = raw.count(b"\n", 0, raw.index(b"\x00")) + 1
        packed = packed_text(raw, shown)
        report.add(shown, None, f"binary content (NUL byte on line {line}); " + (
            packed or "expected a text file of 'pair_id probability' lines"))
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        report.add(shown, None, f"not UTF-8 text: invalid byte 0x{raw[exc.start]:02x} on line "
                                f"{line} (byte offset {exc.start})")
        return None
    return text.removeprefix("\ufeff")


def validate_predictions(task: Task, data: TaskData, path: Path,
                         display_name: str | None = None) -> tuple[Report, Predictions | None]:
    """Check a T4 prediction file against the task's pair set.

    Returns the findings and, when there are no errors, the predictions in file order.
    ``display_name``
    is how the file is named in messages (default: ``path`` as given).
    """
    report = Report()
    shown = display_name or str(path)
    if ROLE not in data.roles:
        report.add(shown, None, f"task {task.id} is not scored from predictions "
                                f"(its roles are {', '.join(data.roles)})")
        return report, None
    expected = data.roles[ROLE].query_ids
    known = set(expected)

    text = _read_text(Path(path), shown, report)
    if text is None:
        return report, None

    pair_ids: list[str] = []
    probabilities: list[float] = []
    first_line: dict[str, int] = {}
    # Known pair ids whose line was refused (reported at it): they have a line, a bad one,
    # so they are not also said to have no prediction.
    refused: set[str] = set()
    line_errors = 0
    lines = text.split("\n")
    for lineno, line in enumerate(lines, 1):
        line = line.removesuffix("\r")
        fields = _SEPARATORS.split(line.strip(" \t"))
        if fields == [""]:
            continue
        if "\r" in line:
            error: str | None = ("bare carriage return inside the line (old Mac line ends?); "
                                 "end lines with \\n or \\r\\n")
        else:
            error = _check_line(fields, lineno, known, first_line, task.id)
        if error is not None:
            line_errors += 1
            if line_errors > MAX_LINE_ERRORS:  # stop, as NIST's checker does
                # The piece after a final line end is no line.
                total = len(lines) - (lines[-1] == "")
                report.add(shown, None, f"more than {MAX_LINE_ERRORS} errors: stopped reading "
                                        f"at line {lineno} of {total}; fix these and "
                                        "check again")
                return report, None  # the rest was not read: no whole-file checks
            report.add(shown, lineno, error)
            if fields[0] in known:
                refused.add(fields[0])
            continue
        first_line[fields[0]] = lineno
        pair_ids.append(fields[0])
        probabilities.append(float(fields[1]))

    if not pair_ids and line_errors == 0:
        report.add(shown, None, "empty file: no 'pair_id probability' lines")
        return report, None
    missing = [pid for pid in expected if pid not in first_line and pid not in refused]
    if missing:
        listed = ", ".join(missing[:MISSING_LISTED])
        more = f" and {len(missing) - MISSING_LISTED} more" if len(missing) > MISSING_LISTED else ""
        report.add(shown, None, f"{len(missing)} of {len(expected)} pair ids of {task.id} have "
                                f"no prediction: {listed}{more}")
    if not report.ok:
        return report, None
    return report, Predictions(tuple(pair_ids), np.asarray(probabilities, dtype=np.float64))


def _check_line(fields: list[str], lineno: int, known: set[str],
                first_line: dict[str, int], task_id: str) -> str | None:
    """The error message for one non-blank line, or None when it is valid."""
    if len(fields) != 2:
        hint = (" (this looks like a TREC run line; T4 takes 'pair_id probability')"
                if len(fields) == 6 else "")
        return f"expected 2 columns 'pair_id probability', found {len(fields)}{hint}"
    pid, value = fields
    if _NON_FINITE.fullmatch(value):
        return f"probability {value!r} is not a finite number"
    if not _DECIMAL.fullmatch(value):
        hint = " (a header line? remove it)" if lineno == 1 and pid not in known else ""
        return f"probability {value!r} is not a number{hint}"
    probability = float(value)
    if not np.isfinite(probability):
        return f"probability {value!r} is not a finite number"
    if not 0.0 <= probability <= 1.0:
        return f"probability {value} is outside [0, 1]"
    if pid not in known:
        # The known ids are the test half of the pair set: a calibration pair (its label
        # public) is in the set but no file lists it, which the message must not deny.
        hint = ("" if _PAIR_ID_SHAPE.fullmatch(pid)
                else "; pair ids look like t4-5f5acece6ce7")
        return (f"unknown pair id {pid!r}: not one of the {len(known)} test pairs of "
                f"{task_id}, the only pairs a prediction file lists (a calibration pair is "
                f"not predicted): leaderboard.core.data.pi_indic.t4_pairs lists them{hint}")
    if pid in first_line:
        return f"duplicate pair id {pid!r} (first on line {first_line[pid]})"
    return None


def score_predictions(task: Task, data: TaskData, predictions: Predictions) -> ScoreSheet:
    """Score validated predictions: AUROC, AUPRC, Accuracy, balanced accuracy and ECE (15
    bins, top-label), with the shares of predicted and of gold compatible pairs.

    The per-query scores are per persona (``data.groups`` names each pair's persona):
    Accuracy, balanced accuracy and AUROC each as one value per persona whose plain mean
    is the metric (:func:`~leaderboard.core.metrics.classification.per_unit_scores`; for AUROC,
    DeLong's structural components of the persona). A persona's eleven pairs are not
    eleven independent observations, and the significance tests resample and flip
    personas. AUPRC and ECE do not decompose over personas and are not tested.
    """
    role = data.roles.get(ROLE)
    if role is None:
        raise ValueError(f"task {task.id} is not scored from predictions")
    order = role.query_ids
    probs = predictions.by_pair()
    if len(probs) != len(predictions):
        raise ValueError(f"{task.id}: predictions repeat pair ids; validate them first")
    missing = [pid for pid in order if pid not in probs]
    if missing:
        raise ValueError(f"{task.id}: {len(missing)} pair ids have no prediction "
                         f"(first: {', '.join(missing[:5])}); validate them first")
    unknown = [pid for pid in order if pid not in data.groups]
    if unknown:
        raise ValueError(f"{task.id}: {len(unknown)} pairs have no persona in the task data "
                         f"(first: {', '.join(unknown[:5])})")
    labels = np.array([int(role.qrels[pid]["label"]) for pid in order], dtype=np.int8)
    p = np.array([probs[pid] for pid in order], dtype=np.float64)
    computed = classification_metrics(labels, p)
    metrics = {key: computed[key] for key in task.pair_metrics}
    units = per_unit_scores(labels, p, [data.groups[pid] for pid in order])
    per_query = {key: dict(zip(units.units, values.tolist()))
                 for key, values in units.values.items()}
    return ScoreSheet(metrics=metrics, per_query=per_query, n_queries=len(units.units))


def format_predictions(probabilities: Mapping[str, float]) -> str:
    """Prediction-file text: ``pair_id<TAB>probability`` lines, shortest exact floats."""
    lines = []
    for pid, value in probabilities.items():
        value = float(value)
        if not (np.isfinite(value) and 0.0 <= value <= 1.0):
            raise ValueError(f"probability of {pid} is {value}, not a number in [0, 1]")
        lines.append(f"{pid}\t{value!r}\n")
    return "".join(lines)


def write_predictions(path: Path, probabilities: Mapping[str, float]) -> None:
    """Write a prediction file atomically; gzip it when the name ends in ``.gz``."""
    data = format_predictions(probabilities).encode("utf-8")
    if path.name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)  # mtime=0: identical input, identical bytes
    atomic_write_bytes(path, data)
