"""T4 prediction files: every error class gives its FILE:LINE message; scoring is right."""

from __future__ import annotations

import dataclasses
import gzip
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leaderboard.core.data import pi_indic
from leaderboard.core.metrics import classification as cls
from leaderboard.core.predictions import (
    Predictions,
    format_predictions,
    score_predictions,
    validate_predictions,
    write_predictions,
)
from leaderboard.benchmarks.registry import get_task

DATA_DIR = Path(os.environ.get("LEADERBOARD_DATA",
                               str(Path(__file__).resolve().parents[1].parent / "shared" / "data")))
TASK = get_task("pi-indic-val150/t4/hin")
SHOWN = "submissions/demo/t4-hin.txt"


@pytest.fixture(scope="module")
def data():
    if not (DATA_DIR / "pi-indic").is_dir():
        pytest.fail(f"PI-Indic data not found under {DATA_DIR}; set LEADERBOARD_DATA")
    return pi_indic.load(TASK, DATA_DIR)


@pytest.fixture(scope="module")
def pairs() -> pd.DataFrame:
    columns = dataclasses.asdict(pi_indic.t4_pairs(TASK, DATA_DIR))
    return pd.DataFrame({name: values for name, values in columns.items() if values is not None})


def lines_for(pairs: pd.DataFrame, probs: np.ndarray | None = None) -> list[str]:
    if probs is None:
        probs = pairs["label"].to_numpy(dtype=float)
    return [f"{pid} {float(p)!r}" for pid, p in zip(pairs["pair_id"], probs)]


def check(data, tmp_path: Path, content: str | bytes, name: str = "pred.txt"):
    path = tmp_path / name
    if isinstance(content, str):
        path.write_bytes(content.encode("utf-8"))
    else:
        path.write_bytes(content)
    return validate_predictions(TASK, data, path, display_name=SHOWN)


def messages(report) -> list[str]:
    return [issue.format() for issue in report.issues]


# --- valid files -------------------------------------------------------------------------

def test_valid_file_in_any_order_with_tabs_crlf_blank_lines_and_bom(data, pairs, tmp_path):
    lines = lines_for(pairs)[::-1]
    lines = [line.replace(" ", "\t", 1) if k % 2 else "  " + line + "  "
             for k, line in enumerate(lines)]
    content = "\ufeff" + "\r\n".join(lines[:10]) + "\r\n\r\n" + "\n".join(lines[10:]) + "\n\n"
    report, predictions = check(data, tmp_path, content)
    assert report.ok, messages(report)
    assert len(predictions) == len(predictions.probability) == len(pairs) == 825
    assert predictions.probability.dtype == np.float64
    assert set(predictions.pair_ids) == set(pairs["pair_id"])
    assert predictions.pair_ids[0] == pairs["pair_id"].iloc[-1]  # file order kept


def test_gzip_is_detected_by_magic_bytes_not_name(data, pairs, tmp_path):
    content = gzip.compress(("\n".join(lines_for(pairs)) + "\n").encode())
    report, predictions = check(data, tmp_path, content, name="pred.txt")
    assert report.ok, messages(report)
    assert len(predictions) == 825


def test_write_predictions_round_trips(data, pairs, tmp_path):
    rng = np.random.default_rng(5)
    probs = dict(zip(pairs["pair_id"], rng.random(len(pairs))))
    for name in ("out.tsv", "out.tsv.gz"):
        write_predictions(tmp_path / name, probs)
        report, predictions = validate_predictions(TASK, data, tmp_path / name)
        assert report.ok, messages(report)
        assert predictions.by_pair() == probs  # exact floats
    assert (tmp_path / "out.tsv.gz").read_bytes()[:2] == b"\x1f\x8b"
    with pytest.raises(ValueError, match="not a number in"):
        format_predictions({"p1-i1": 1.5})


# --- line errors -------------------------------------------------------------------------

@pytest.mark.parametrize("bad_line, message", [
    ("p1-i1 0.5 extra", "expected 2 columns 'pair_id probability', found 3"),
    ("p1-i1", "expected 2 columns 'pair_id probability', found 1"),
    ("p1-i1 Q0 d1 1 0.5 tag", "found 6 (this looks like a TREC run line"),
    ("p1-i1 high", "probability 'high' is not a number"),
    ("p1-i1 1_0", "probability '1_0' is not a number"),
    ("p1-i1 0x1", "probability '0x1' is not a number"),
    ("p1-i1 nan", "probability 'nan' is not a finite number"),
    ("p1-i1 -Infinity", "probability '-Infinity' is not a finite number"),
    ("p1-i1 1e999", "probability '1e999' is not a finite number"),
    ("p1-i1 1.5", "probability 1.5 is outside [0, 1]"),
    ("p1-i1 -0.01", "probability -0.01 is outside [0, 1]"),
    ("p1-i2 0.5", "unknown pair id 'p1-i2': not one of the 825 test pairs of"),
    ("pair1 0.5", "unknown pair id 'pair1': not one of the 825 test pairs of"),
    # ASCII only: Arabic-Indic and Devanagari digits, and a no-break space as separator.
    ("p1-i1 0.\u0665", "probability '0.\u0665' is not a number"),
    ("p1-i1 \u0966.5", "probability '\u0966.5' is not a number"),
    ("p1-i1\u00a00.5", "expected 2 columns 'pair_id probability', found 1"),
    ("p\u0661-i1 0.5", "unknown pair id 'p\u0661-i1': not one of the 825 test pairs of"),
])
def test_line_errors_name_file_and_line(data, pairs, tmp_path, bad_line, message):
    # A complete valid file plus one bad line 4: that line is the only finding (a rejected
    # line is not counted as a prediction, so "p1-i1 ..." is not also a duplicate).
    good = lines_for(pairs)
    report, predictions = check(data, tmp_path, "\n".join(good[:3] + [bad_line] + good[3:]) + "\n")
    assert predictions is None
    [error] = messages(report)
    assert error.startswith(f"{SHOWN}:4: ") and message in error, error


@pytest.mark.parametrize("value", ["1.5", "nan", "-0.2", "high", "0.5 extra"])
def test_a_pair_whose_line_is_refused_is_not_also_said_to_have_none(data, pairs, tmp_path,
                                                                     value):
    """A file whose model wrote a logit (1.5) or NaN for a pair was told so at the line,
    and then that the pair had "no prediction", which is untrue (its line gives one, a bad
    one) and had the submitter hunt for a line that is there: the line's error is the
    one finding."""
    good = lines_for(pairs)
    pid = pairs["pair_id"].iloc[3]
    report, predictions = check(data, tmp_path, "\n".join(
        good[:3] + [f"{pid} {value}"] + good[4:]) + "\n")
    assert predictions is None
    [error] = messages(report)
    assert error.startswith(f"{SHOWN}:4: "), error


def test_a_calibration_pair_is_said_to_be_one_no_file_lists(data, pairs, tmp_path):
    """The pair set has a calibration half (labels public) and a test half, the pairs a
    file lists. A file of every pair, as the guide's "one line per pair of the task's
    fixed pair set" read, was told its calibration pairs were "not in this task's pair
    set", which they are, and nothing of what to do."""
    every = pi_indic.t4_pairs(TASK, DATA_DIR, split="all")
    calibration = [pid for pid, split in zip(every.pair_id, every.split)
                   if split == "calibration"]
    report, predictions = check(data, tmp_path, "\n".join(
        lines_for(pairs)[:2] + [f"{calibration[0]} 0.5"] + lines_for(pairs)[2:]) + "\n")
    assert predictions is None
    [error] = messages(report)
    assert error == (f"{SHOWN}:3: unknown pair id {calibration[0]!r}: not one of the 825 "
                     "test pairs of pi-indic-val150/t4/hin, the only pairs a prediction "
                     "file lists (a calibration pair is not predicted): "
                     "leaderboard.core.data.pi_indic.t4_pairs lists them")
    assert "not in this task's pair set" not in error


def test_duplicate_pair_id_points_at_first_occurrence(data, pairs, tmp_path):
    good = lines_for(pairs)
    report, predictions = check(data, tmp_path, "\n".join(good + [good[1].replace(" 0.0", " 0.3")]))
    assert predictions is None
    dup = pairs["pair_id"].iloc[1]
    assert messages(report) == [f"{SHOWN}:826: duplicate pair id '{dup}' (first on line 2)"]


def test_header_line_gets_a_hint(data, pairs, tmp_path):
    report, _ = check(data, tmp_path, "pair_id probability\n" + "\n".join(lines_for(pairs)))
    assert messages(report) == [
        f"{SHOWN}:1: probability 'probability' is not a number (a header line? remove it)"]


def test_bare_carriage_returns_are_reported(data, pairs, tmp_path):
    report, _ = check(data, tmp_path, "\r".join(lines_for(pairs)) + "\r")
    assert f"{SHOWN}:1: bare carriage return" in messages(report)[0]


# --- file errors -------------------------------------------------------------------------

def test_missing_pair_ids_listed_with_count(data, pairs, tmp_path):
    good = lines_for(pairs)
    report, predictions = check(data, tmp_path, "\n".join(good[7:]) + "\n")
    assert predictions is None
    assert messages(report) == [
        f"{SHOWN}: 7 of 825 pair ids of pi-indic-val150/t4/hin have no prediction: "
        + ", ".join(pairs["pair_id"].iloc[:5]) + " and 2 more"]


@pytest.mark.parametrize("content", ["\n\n", "  \r\n\t\n"])
def test_empty_file(data, tmp_path, content):
    report, predictions = check(data, tmp_path, content)
    assert predictions is None
    assert messages(report) == [f"{SHOWN}: empty file: no 'pair_id probability' lines"]


def test_zero_byte_file_and_empty_gzip(data, tmp_path):
    # The guarded reader every submitted file goes through (leaderboard.core.fileio).
    assert messages(check(data, tmp_path, b"")[0]) == [f"{SHOWN}: file is empty"]
    assert messages(check(data, tmp_path, gzip.compress(b""))[0]) == [
        f"{SHOWN}: file is empty (after decompression)"]


def test_many_line_errors_stop_at_the_cap(data, pairs, tmp_path):
    good = lines_for(pairs)
    report, predictions = check(data, tmp_path, "\n".join(["x 2"] * 500 + good) + "\n")
    assert predictions is None
    found = messages(report)
    assert len(found) == 21 and all(m.startswith(f"{SHOWN}:") for m in found)
    # The file's own count of lines: the empty piece after the final line end was one.
    assert found[-1] == (f"{SHOWN}: more than 20 errors: stopped reading at line 21 of "
                         f"{500 + len(good)}; fix these and check again")
    report, _ = check(data, tmp_path, "\n".join(["x 2"] * 500 + good))  # no final line end
    assert messages(report)[-1] == found[-1]


def test_gzip_bomb_is_stopped_at_the_limit(data, tmp_path):
    report, predictions = check(data, tmp_path, gzip.compress(b"p1-i1 0.5\n" * 1_000_000))
    assert predictions is None and messages(report) == [f"{SHOWN}: decompresses to over 8 MiB"]


def test_binary_content(data, pairs, tmp_path):
    content = ("\n".join(lines_for(pairs)[:2]) + "\n").encode() + b"\x00\x01\x02binary"
    report, predictions = check(data, tmp_path, content)
    assert predictions is None
    assert messages(report) == [f"{SHOWN}: binary content (NUL byte on line 3); expected a "
                                "text file of 'pair_id probability' lines"]


def test_zipped_predictions_say_what_they_are(data, pairs, tmp_path):
    """Predictions zipped under a .gz name were 'binary content', as any binary file: the
    message says the file is a zip archive and to gzip the file itself."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("predictions.tsv", "\n".join(lines_for(pairs)) + "\n")
    report, predictions = check(data, tmp_path, buffer.getvalue())
    assert predictions is None
    assert messages(report) == [f"{SHOWN}: binary content (NUL byte on line 1); a zip archive, "
                                "not a text file: gzip the file itself (gzip t4-hin.txt "
                                "writes t4-hin.txt.gz)"]


def test_utf16_predictions_say_to_save_them_as_utf8(data, pairs, tmp_path):
    """Predictions saved as UTF-16 (PowerShell 5's >) were 'binary content', as any binary
    file: the message says they are UTF-16 text and how to save them as UTF-8."""
    report, predictions = check(data, tmp_path, ("\n".join(lines_for(pairs)) + "\n")
                                .encode("utf-16"))
    assert predictions is None
    assert messages(report) == [
        f"{SHOWN}: UTF-16 text (UTF-16LE), not UTF-8: save it as UTF-8, e.g. iconv -f "
        "UTF-16LE -t UTF-8 t4-hin.txt > t4-hin-utf8.txt (Windows PowerShell 5's > writes "
        "UTF-16: use Out-File -Encoding utf8)"]


def test_non_utf8_content(data, pairs, tmp_path):
    content = ("\n".join(lines_for(pairs)[:4]) + "\n").encode() + "p9-i9 0,5 é\n".encode("latin-1")
    report, predictions = check(data, tmp_path, content)
    assert predictions is None
    [message] = messages(report)
    assert message.startswith(f"{SHOWN}: not UTF-8 text: invalid byte 0xe9 on line 5")


def test_truncated_and_corrupt_gzip(data, pairs, tmp_path):
    whole = gzip.compress(("\n".join(lines_for(pairs)) + "\n").encode())
    report, predictions = check(data, tmp_path, whole[: len(whole) // 2])
    assert predictions is None
    assert messages(report) == [f"{SHOWN}: gzip stream is truncated (file cut short?)"]
    report, predictions = check(data, tmp_path, b"\x1f\x8b" + b"garbage" * 10)
    assert predictions is None and messages(report)[0].startswith(f"{SHOWN}: not a valid gzip file")


def test_file_not_found_and_wrong_task(data, tmp_path):
    report, predictions = validate_predictions(TASK, data, tmp_path / "nope.txt")
    assert predictions is None and messages(report) == [f"{tmp_path / 'nope.txt'}: file not found"]
    retrieval = pi_indic.load(get_task("pi-indic-val150/t1/hin"), DATA_DIR)
    report, predictions = validate_predictions(TASK, retrieval, tmp_path / "nope.txt")
    assert "not scored from predictions" in messages(report)[0]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_never_raises_on_arbitrary_bytes(data, tmp_path, content):
    report, predictions = check(data, tmp_path, content)
    assert (predictions is None) == (not report.ok)
    assert not report.ok  # 300 valid lines cannot come out of 300 bytes


# --- scoring -----------------------------------------------------------------------------

def test_perfect_predictor_scores_auroc_1_and_ece_0(data, pairs, tmp_path):
    report, predictions = check(data, tmp_path, "\n".join(lines_for(pairs)))
    assert report.ok
    scores = score_predictions(TASK, data, predictions)
    assert list(scores.metrics) == ["AUROC", "AUPRC", "Accuracy", "Balanced accuracy", "ECE",
                                    "Predicted positive rate", "Positive rate"]
    assert scores.metrics == {"AUROC": 1.0, "AUPRC": 1.0, "Accuracy": 1.0,
                              "Balanced accuracy": 1.0, "ECE": 0.0,
                              "Predicted positive rate": 75 / 825,
                              "Positive rate": 75 / 825}
    # per persona: 75 test personas, each with its positive and ten negatives
    assert scores.n_queries == 75
    assert list(scores.per_query) == ["Accuracy", "Balanced accuracy", "AUROC"]
    personas = set(pairs["persona_id"])
    for key in scores.per_query:
        assert set(scores.per_query[key]) == personas
        assert scores.per_query[key] == pytest.approx({p: 1.0 for p in personas})


def test_scores_match_metric_functions_and_ignore_file_order(data, pairs, tmp_path):
    rng = np.random.default_rng(11)
    labels = pairs["label"].to_numpy()
    probs = np.clip(0.35 * labels + rng.random(len(labels)) * 0.65, 0, 1).round(2)
    lines = lines_for(pairs, probs)
    shuffled = [lines[k] for k in rng.permutation(len(lines))]
    _, predictions = check(data, tmp_path, "\n".join(shuffled))
    scores = score_predictions(TASK, data, predictions)
    expected = {"AUROC": cls.auroc(labels, probs), "AUPRC": cls.average_precision(labels, probs),
                "Accuracy": cls.accuracy(labels, probs),
                "Balanced accuracy": cls.balanced_accuracy(labels, probs),
                "ECE": cls.expected_calibration_error(labels, probs),
                "Predicted positive rate": float(np.mean(probs >= 0.5)),
                "Positive rate": float(np.mean(labels == 1))}
    assert scores.metrics == pytest.approx(expected)
    assert 0.5 < scores.metrics["AUROC"] < 1.0
    # each per-persona value averages to its metric over the 75 personas
    for key in ("Accuracy", "Balanced accuracy", "AUROC"):
        per_persona = scores.per_query[key]
        assert len(per_persona) == 75
        assert np.mean(list(per_persona.values())) == pytest.approx(scores.metrics[key],
                                                                    abs=1e-12)
    # a persona's accuracy is the share of its eleven pairs classified right
    first = pairs["persona_id"].iloc[0]
    mine = pairs["persona_id"] == first
    right = ((probs[mine.to_numpy()] >= 0.5) == (labels[mine.to_numpy()] == 1)).mean()
    assert scores.per_query["Accuracy"][first] == pytest.approx(right)


def test_inverted_predictor(data, pairs, tmp_path):
    _, predictions = check(data, tmp_path, "\n".join(lines_for(pairs, 1.0 - pairs["label"].to_numpy())))
    scores = score_predictions(TASK, data, predictions)
    assert scores.metrics["AUROC"] == 0.0 and scores.metrics["Accuracy"] == 0.0
    assert scores.metrics["ECE"] == 1.0  # confident (1.0) and always wrong


def test_score_refuses_incomplete_predictions(data, pairs):
    predictions = Predictions(tuple(pairs["pair_id"][:-1]), np.full(len(pairs) - 1, 0.5))
    with pytest.raises(ValueError, match="1 pair ids have no prediction"):
        score_predictions(TASK, data, predictions)


def test_checking_scoring_and_explaining_t4_never_imports_pandas(pairs, tmp_path):
    """A worker that checks T4 tasks paid 0.5 CPU-s importing pandas, more than all twelve
    tasks' own work (benchmarks/score_suite.py): neither reading the task data from its
    files (the pair set's mining included) nor anything after it needs pandas."""
    path = tmp_path / "pred.txt"
    path.write_text("\n".join(lines_for(pairs)) + "\n")
    code = ("import sys\n"
            "from pathlib import Path\n"
            "from leaderboard.core.data import load_task_data\n"
            "from leaderboard.core.evaluate import score_inputs, validate_task_files\n"
            "from leaderboard.core.explain_arrays import task_record\n"
            "from leaderboard.benchmarks.registry import get_task\n"
            f"task = get_task({TASK.id!r})\n"
            f"data = load_task_data(task, Path({str(DATA_DIR)!r}))\n"
            "if sys.argv[1] == 'check':\n"
            f"    report, inputs = validate_task_files(task, data, {{'predictions': Path({str(path)!r})}})\n"
            "    assert report.ok, report\n"
            "    sheet = score_inputs(inputs)\n"
            "    task_record(task, data, sheet, None, inputs.predictions)\n"
            "print('pandas' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent),
               LEADERBOARD_CACHE_DIR=str(tmp_path / "cache"))
    # The first process reads the files and fills the task-data cache; the second reads
    # the cache.
    runs = [subprocess.run([sys.executable, "-c", code, step], capture_output=True, text=True,
                           env=env, check=True).stdout.strip() for step in ("load", "check")]
    assert runs == ["False", "False"]
