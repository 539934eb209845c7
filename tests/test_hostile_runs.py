"""Hostile and messy run files (issue 21, issue 18): linear-time gzip, bounded memory with
an error cap, every defect of a file reported in one pass, --role from the query ids.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from fixtures.mteb_collection import run_lines, write_collection

import leaderboard.core.fileio as fileio
import leaderboard.core.runs.exact as runs_exact
import leaderboard.core.runs.reading as runs_reading
import leaderboard.core.runs.validation as runs_validation
from leaderboard.app.cli import main
from leaderboard.benchmarks.registry import get_task
from leaderboard.core.data import load_task_data

REPO = Path(__file__).resolve().parents[1]
WTR = "followtable/wtr"


class CountingInflater:
    """zlib, counting the compressed bytes handed to every inflater, and its calls."""

    error = zlib.error

    def __init__(self) -> None:
        self.fed = 0
        self.calls: list[int] = []  # the bytes handed over by each call

    def decompressobj(self, **kwargs):  # noqa: ANN201 - a zlib decompressor lookalike
        inner = zlib.decompressobj(**kwargs)
        counter = self

        class Counted:
            def decompress(self, data, max_length=0):  # noqa: ANN001, ANN201
                counter.fed += len(data)
                counter.calls.append(len(data))
                return inner.decompress(data, max_length)

            eof = property(lambda self: inner.eof)
            unused_data = property(lambda self: inner.unused_data)
            unconsumed_tail = property(lambda self: inner.unconsumed_tail)

        return Counted()


def test_many_gzip_members_inflate_in_linear_time(tmp_path: Path, monkeypatch) -> None:
    # 7.5 MiB of one-line members took 68 s: each member handed the whole rest of the
    # file to the next inflater. Now each byte is handed over a bounded number of times.
    lines = [f"{i % 60} Q0 {i} 1 1.5 t\n".encode() for i in range(20_000)]
    raw = b"".join(gzip.compress(line, mtime=0) for line in lines)
    path = tmp_path / "members.trec.gz"
    path.write_bytes(raw)
    counting = CountingInflater()
    monkeypatch.setattr(fileio, "_gzip_lib", counting)
    read = runs_reading.read_run_file(path, "members.trec.gz")
    assert read.data == b"".join(lines) and read.report.ok
    # Quadratic: ~20,000 x half the file = 6.7 GB; linear: a small multiple of the file.
    assert counting.fed <= 32 * len(raw), counting.fed


def test_a_one_member_gzip_inflates_in_one_call(tmp_path: Path, monkeypatch) -> None:
    # In slices of _MAX_SLICE compressed bytes each slice's output was copied into a sink
    # and the sink once more: a 15 MB FollowTable run took 205-209 ms to read, 140 ms in
    # one call. The slice is made small here so that a small file shows it.
    lines = [f"q{i % 60} Q0 d{i} {i} {1 / (i + 1)!r} t\n".encode() for i in range(20_000)]
    raw = gzip.compress(b"".join(lines), compresslevel=1, mtime=0)
    path = tmp_path / "run.trec.gz"
    path.write_bytes(raw + gzip.compress(b"tail Q0 d 1 1.5 t\n", mtime=0))
    monkeypatch.setattr(fileio, "_MAX_SLICE", 4096)
    counting = CountingInflater()
    calls = counting.calls
    monkeypatch.setattr(fileio, "_gzip_lib", counting)
    read = runs_reading.read_run_file(path, "run.trec.gz")
    inflated = read.data
    assert read.report.ok and inflated == b"".join(lines) + b"tail Q0 d 1 1.5 t\n"
    assert len(raw) > 20 * 4096
    # The first member in one call (handed the whole file); the second in its own.
    assert calls[0] == path.stat().st_size and len(calls) == 2, calls
    # Past _WHOLE_FIRST_MEMBER the file goes on in slices again, as many as it takes.
    calls.clear()
    monkeypatch.setattr(fileio, "_WHOLE_FIRST_MEMBER", 8192)
    assert runs_reading.read_run_file(path, "run.trec.gz").data == inflated
    assert calls[0] == 8192 and max(calls[1:-1]) == 4096, calls


def test_gzip_members_with_zero_padding_and_garbage(tmp_path: Path) -> None:
    member = gzip.compress(b"0 Q0 1 1 1.5 t\n", mtime=0)
    path = tmp_path / "run.gz"
    path.write_bytes(member * 3 + b"\x00" * 700)
    read = runs_reading.read_run_file(path, "run.gz")
    assert read.data == b"0 Q0 1 1 1.5 t\n" * 3 and read.report.ok
    path.write_bytes(member * 3 + b"\x00" * 700 + b"x")
    read = runs_reading.read_run_file(path, "run.gz")
    assert read.data is None
    assert [i.format() for i in read.report.issues] == [
        "run.gz: not a valid gzip file: trailing garbage after the compressed data"]



LFS_POINTER = ("version https://git-lfs.github.com/spec/v1\n"
               "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
               "size 4823\n")


@pytest.mark.parametrize(("task", "name", "role"), [
    (WTR, "original.trec.gz", "original"),
    ("pi-indic-val150/t4/asm", "predictions.tsv", "predictions")])
def test_a_git_lfs_pointer_is_named_as_one_not_read_as_the_run(tmp_path: Path, capsys,
                                                               data_dir: Path, task: str,
                                                               name: str, role: str) -> None:
    """A run committed through Git LFS reaches git (and the PR check, which reads git's
    objects) as a three-line pointer: it was read as the run, "expected 6 columns ...,
    found 2" on each line (a T4 file: "probability 'https://git-lfs.github.com/spec/v1'
    is not a number"), which says nothing of LFS."""
    rc, out = check(tmp_path / name, LFS_POINTER, capsys, data_dir, "--role", role, task=task)
    assert rc == 1
    path = tmp_path / name
    assert out.splitlines()[0] == (
        f"{path}:1: a Git LFS pointer, not the file: nothing here fetches Git LFS objects; "
        "commit the file itself (`git lfs untrack` its pattern, then `git add "
        "--renormalize .`)"), out
    assert "columns" not in out and "probability" not in out


MEASURE = """
import resource, sys, json
from pathlib import Path
from leaderboard.core.runs.validation import load_and_validate
from leaderboard.core.data import load_task_data
from leaderboard.benchmarks.registry import get_task
data = load_task_data(get_task("followtable/wtr"), Path(sys.argv[2]))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
report, run = load_and_validate(Path(sys.argv[1]), data, "original")
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"extra_kib": peak - base, "lines": report.lines()}))
"""


def test_a_gzip_of_bad_lines_stops_at_the_cap_in_bounded_memory(tmp_path: Path,
                                                                data_dir: Path) -> None:
    # A small .gz of millions of bad lines used to be read whole into Python rows (500 MiB
    # of them reached a MemoryError at 12 GB). It now stops after MAX_ERRORS errors, and
    # memory stays near the size of the decompressed file.
    size = 64 << 20
    bad = b"0 Q0 d 1 x t\n"
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    path = tmp_path / "original.trec.gz"
    path.write_bytes(compressor.compress(bad * (size // len(bad))) + compressor.flush())
    assert path.stat().st_size < 1 << 20
    done = subprocess.run([sys.executable, "-c", MEASURE, str(path), str(data_dir)],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    listed = result["lines"]
    cap = runs_exact.MAX_ERRORS
    assert listed[:cap] == [f"{path}:{i}: score 'x' is not a number"
                                   for i in range(1, cap + 1)]
    assert listed[cap] == (
        f"{path}: more than {cap} errors: stopped reading at line {cap + 1} of "
        f"{size // len(bad)}, as NIST's checker does; fix these and check again")
    assert result["extra_kib"] * 1024 < 2.5 * size, result["extra_kib"]


def check(path: Path, data: bytes | str, capsys, data_dir: Path, *args: str,
          task: str = WTR) -> tuple[int, str]:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    capsys.readouterr()
    rc = main(["check-run", task, str(path), "--data-dir", str(data_dir), *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out + err


@pytest.fixture(scope="module")
def wtr(data_dir: Path):
    return load_task_data(get_task(WTR), data_dir)


def full_run(data, role: str) -> list[str]:
    docs = data.doc_ids[:1000].tolist()
    return [f"{q} Q0 {d} {r} {2000 - r} t\n" for q in data.roles[role].query_ids
            for r, d in enumerate(docs, 1)]


def test_one_pass_reports_every_defect(tmp_path: Path, capsys, data_dir: Path, wtr) -> None:
    # Seven defects of different kinds took three rounds of check-run to reveal (format,
    # then fields, then the task checks). One run now lists them all.
    lines = full_run(wtr, "original")
    q_last = wtr.roles["original"].query_ids[-1]
    lines = [ln for ln in lines if not ln.startswith(f"{q_last} ")]        # missing query
    lines[1] = "0 Q0 9999 2 1998\n"                                          # 5 columns
    lines[2] = lines[2].replace(" 1997 ", " high ")                         # bad score
    lines[3] = lines[3].replace(" 4 1996 ", " -4 1996 ")                    # bad rank
    lines[4] = lines[4].replace("0 Q0 ", "no-such-topic Q0 ", 1)            # unknown query
    lines[1005] = lines[1005].replace(lines[1005].split()[2], "no-such-table")  # unknown doc
    lines[1006] = lines[1010]                                               # duplicate
    rc, out = check(tmp_path / "original.trec", "".join(lines), capsys, data_dir)
    assert rc == 1
    path = tmp_path / "original.trec"
    for expected in [
        f"{path}:2: expected 6 columns (qid Q0 docid rank score tag), found 5",
        f"{path}:3: score 'high' is not a number",
        f"{path}:4: rank '-4' is not a non-negative integer",
        f"{path}:5: unknown query 'no-such-topic' (not an original query of followtable/wtr)",
        f"{path}:1006: document 'no-such-table' is not in the corpus of followtable/wtr",
        f"{path}:1011: document '{lines[1010].split()[2]}' appears again for query '1' "
        "(first on line 1007)",
        f"{path}: missing 1 of 60 original queries: '{q_last}'; 1 unreadable line not "
        "counted",
    ]:
        assert expected in out.splitlines(), f"{expected!r} not in\n{out}"
    # Query 0 lost two lines (the 5-column one and the renamed query): reported once, with
    # the unreadable line it may explain.
    assert f"{path}:1: query '0' ranks 998 documents; each query must list min(1000, corpus " \
           "size) = 1,000 documents of the corpus" in out


def test_role_is_inferred_from_followtable_query_ids(tmp_path: Path, capsys, data_dir: Path,
                                                     wtr) -> None:
    for role in ("original", "altered"):
        rc, out = check(tmp_path / "run.trec", "".join(full_run(wtr, role)), capsys, data_dir)
        assert rc == 0, out
        assert f"{tmp_path / 'run.trec'}: --role {role} (inferred from the query ids)" in out
        assert f"valid followtable/wtr {role} run" in out


def test_role_is_inferred_from_followir_query_ids(tmp_path: Path, capsys) -> None:
    root = tmp_path / "data"
    collection = write_collection(root / "followir" / "core17", n_queries=3, pool_size=8,
                                  corpus_size=30, seed=2)
    for role in ("original", "altered"):
        rc, out = check(tmp_path / "run.trec", "".join(run_lines(collection, role)), capsys,
                        root, task="followir/core17")
        assert rc == 0, out
        assert f"--role {role} (inferred from the query ids)" in out


def test_role_that_cannot_be_inferred_is_a_usage_error(tmp_path: Path, capsys,
                                                       data_dir: Path) -> None:
    with pytest.raises(SystemExit) as stop:
        check(tmp_path / "run.trec", "nobody Q0 1 1 1.0 t\n", capsys, data_dir)
    assert stop.value.code == 2
    assert "give --role (original, altered)" in capsys.readouterr().err


def test_a_gzip_bomb_of_prediction_lines_stops_inflating_at_the_cap(tmp_path: Path,
                                                                    data_dir: Path) -> None:
    """T4 prediction lines (two columns) gzipped and given as a run were inflated to the
    512 MiB limit (about 700 MB peak) before being refused; every line is an error, so
    reading now stops at the error cap once the file has inflated past 64 MiB."""
    line = b"t4-5f5acece6ce7 0.93\n"
    member = gzip.compress(line * ((8 << 20) // len(line)), compresslevel=1, mtime=0)
    path = tmp_path / "original.trec.gz"
    path.write_bytes(member * 32)  # 256 MiB inflated, in 8 MiB gzip members
    done = subprocess.run([sys.executable, "-c", MEASURE, str(path), str(data_dir)],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    cap = runs_exact.MAX_ERRORS
    assert result["lines"][:cap] == [f"{path}:{i}: expected 6 columns (qid Q0 docid rank score "
                                     "tag), found 2" for i in range(1, cap + 1)]
    assert result["lines"][cap:] == [
        f"{path}: more than {cap} errors: stopped reading at line {cap + 1} (the file inflates "
        "to over 64 MiB, and was not inflated further), as NIST's checker does; fix these and "
        "check again"]
    # At most the 64 MiB inflated before the check, not the 256 MiB of the file.
    assert result["extra_kib"] * 1024 < 100 << 20, result["extra_kib"]


def test_a_file_of_bare_carriage_returns_is_named_as_such(tmp_path: Path, capsys,
                                                          data_dir: Path, wtr) -> None:
    """It used to be reported as one line millions of bytes long."""
    text = "".join(full_run(wtr, "original")).replace("\n", "\r")
    rc, out = check(tmp_path / "original.trec", text, capsys, data_dir)
    assert rc == 1
    assert out.splitlines()[0] == (f"{tmp_path / 'original.trec'}:1: bare carriage return "
                                   "(old Mac line ends?); end lines with \\n or \\r\\n")
    assert "bytes long" not in out


def test_unknown_queries_are_listed_up_to_the_cap_and_counted_past_it(tmp_path: Path, capsys,
                                                                      data_dir: Path) -> None:
    """Two runs of 10^6 unknown query ids kept 2x10^6 findings (1.15 GB): the findings of
    a kind stop at MAX_FINDINGS_PER_KIND, and the rest is counted in one."""
    cap = runs_validation.MAX_FINDINGS_PER_KIND
    n = cap + 500
    text = "".join(f"nobody-{i} Q0 0 1 1.0 t\n" for i in range(n))
    rc, out = check(tmp_path / "original.trec", text, capsys, data_dir, "--role", "original")
    assert rc == 1
    path = tmp_path / "original.trec"
    assert f"{path}:1: unknown query 'nobody-0' (not an original query of {WTR})" in out
    # All listed: the first unknown queries, the 500 past them counted, the missing ones.
    assert f"{path}: 500 more unknown queries" in out and "more errors" not in out
    assert f"INVALID {WTR} original run ({n + 1:,} errors" in out  # with the missing queries
    report = runs_validation.validate_read_run(runs_validation.read_run(path), load_task_data(get_task(WTR), data_dir),
                                    "original")[0]
    assert len(report.issues) == cap + 2 and report.n_errors == n + 1
    assert report.issues[cap].message == "500 more unknown queries"


def test_a_run_of_more_query_ids_than_any_task_has_stops_there(tmp_path: Path, capsys,
                                                               data_dir: Path) -> None:
    """Decoding 10^6 distinct query ids took 360 MB a file; past MAX_QUERIES the reading
    stops, with the line."""
    limit = runs_exact.MAX_QUERIES
    text = "".join(f"q{i} Q0 0 1 1.0 t\n" for i in range(limit + 50))
    rc, out = check(tmp_path / "original.trec", text, capsys, data_dir, "--role", "original")
    assert rc == 1
    assert out.splitlines()[0] == (
        f"{tmp_path / 'original.trec'}:{limit + 1}: more than {limit:,} distinct query ids: a "
        "run answers the queries of one task, and no task has that many; stopped reading here")


def test_swapped_runs_are_said_in_one_line(tmp_path: Path, capsys, data_dir: Path,
                                           wtr) -> None:
    """--original and --altered swapped gave about 50 lines of unknown-query errors."""
    original, altered = tmp_path / "a.trec", tmp_path / "b.trec"
    original.write_text("".join(full_run(wtr, "altered")))
    altered.write_text("".join(full_run(wtr, "original")))
    capsys.readouterr()
    rc = main(["eval", WTR, "--original", str(original), "--altered", str(altered),
               "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    assert rc == 1 and out == ""
    # (and the note of what the reader did with WTR's judgments, which holds either way)
    assert [line for line in err.splitlines() if ": note: " not in line] == [
        f"the runs look swapped: {original} (--original) holds the altered queries and "
        f"{altered} (--altered) the original ones; give each file to the other option"]
    # Given the right way round they are scored.
    assert main(["eval", WTR, "--original", str(altered), "--altered", str(original),
                 "--data-dir", str(data_dir)]) == 0
    # A file's other findings are said with the swap, not after its fix.
    lines = original.read_text().splitlines(keepends=True)
    lines[4] = lines[4].replace(" Q0 ", " Q0 x ", 1)
    original.write_text("".join(lines))
    capsys.readouterr()
    assert main(["eval", WTR, "--original", str(original), "--altered", str(altered),
                 "--data-dir", str(data_dir)]) == 1
    err = [line for line in capsys.readouterr().err.splitlines() if ": note: " not in line]
    assert err[0].startswith("the runs look swapped: ") and len(err) == 2
    assert err[1] == f"{original}:5: expected 6 columns (qid Q0 docid rank score tag), found 7"


def test_a_document_wrong_on_every_line_is_listed_up_to_the_line_cap(tmp_path: Path, capsys,
                                                                     data_dir: Path,
                                                                     wtr) -> None:
    """A WTR run naming every table '<id>.txt' (as query_instruction.json does) listed 25
    of its 60,000 unknown documents, then '... and 59,976 more errors', where the README
    promised 20 line errors: each kind of problem of a readable line is listed at its
    first MAX_LINE_ERRORS lines, and the lines past them are counted in one line that
    says what they are."""
    cap = fileio.MAX_LINE_ERRORS
    lines = [ln.split(" ") for ln in full_run(wtr, "original")]
    text = "".join(" ".join([q, q0, d + ".txt", *rest]) for q, q0, d, *rest in lines)
    rc, out = check(tmp_path / "original.trec", text, capsys, data_dir)
    assert rc == 1
    path = tmp_path / "original.trec"
    listed = out.splitlines()
    assert [ln.split(": ", 1)[0] for ln in listed[:cap]] == [f"{path}:{i}"
                                                              for i in range(1, cap + 1)]
    assert all("is not in the corpus of followtable/wtr" in ln for ln in listed[:cap])
    assert listed[cap] == (f"{path}: {len(lines) - cap:,} more lines naming a document not "
                           f"in the corpus of {WTR}")
    assert "more errors" not in out
    assert listed[-1] == (f"{path}: INVALID {WTR} original run ({len(lines) + 1:,} errors, "
                          "0 warnings)")  # with the short queries


@pytest.mark.parametrize(("written", "named"), [("{d}.txt", "{d}"), ("table_{d}.json", "{d}"),
                                                ("doc{d}", "{d}"), ("wtr/{d}.csv", "{d}")])
def test_a_document_id_known_without_an_ending_or_a_prefix_says_what_the_corpus_names_it(
        tmp_path: Path, capsys, data_dir: Path, wtr, written: str, named: str) -> None:
    """A run naming every table as FollowTable's query_instruction.json does ('9112.txt')
    was told each was not in the corpus, and nothing of what the corpus calls it: the
    first such finding says it, once."""
    lines = [ln.split(" ") for ln in full_run(wtr, "original")]
    text = "".join(" ".join([q, q0, written.format(d=d), *rest]) for q, q0, d, *rest in lines)
    rc, out = check(tmp_path / "original.trec", text, capsys, data_dir)
    assert rc == 1
    first = lines[0][2]
    assert out.splitlines()[0] == (
        f"{tmp_path / 'original.trec'}:1: document {written.format(d=first)!r} is not in the "
        f"corpus of {WTR}; the corpus names it {named.format(d=first)!r}")
    assert out.count("names it") == 1


def test_a_query_id_known_without_a_prefix_says_what_the_task_names_it(
        tmp_path: Path, capsys, data_dir: Path, wtr) -> None:
    lines = [ln.split(" ") for ln in full_run(wtr, "altered")]
    text = "".join(" ".join([f"q{q}", *rest]) for q, *rest in lines)
    rc, out = check(tmp_path / "altered.trec", text, capsys, data_dir)
    assert rc == 1
    first = lines[0][0]
    assert out.splitlines()[0] == (
        f"{tmp_path / 'altered.trec'}:1: unknown query 'q{first}' (not an altered query of "
        f"{WTR}); the task names it {first!r}")
    assert out.count("names it") == 1


def test_a_query_id_padded_with_zeros_says_what_the_task_names_it(
        tmp_path: Path, capsys, data_dir: Path, wtr) -> None:
    """A run writing FollowTable's pair 0_1 as '000_001' (ids padded for sorting) was told
    each query was unknown and every one missing, and nothing of how the task writes them:
    the first finding says it, once."""
    lines = [ln.split(" ") for ln in full_run(wtr, "altered")]
    padded = {q: "_".join(f"{int(part):03d}" for part in q.split("_")) for q, *_ in lines}
    text = "".join(" ".join([padded[q], *rest]) for q, *rest in lines)
    rc, out = check(tmp_path / "altered.trec", text, capsys, data_dir)
    assert rc == 1
    first = lines[0][0]
    assert out.splitlines()[0] == (
        f"{tmp_path / 'altered.trec'}:1: unknown query {padded[first]!r} (not an altered query "
        f"of {WTR}); the task names it {first!r}")
    assert out.count("names it") == 1


@pytest.mark.parametrize("written", ["{q}-fas", "{q}_fas", "fas-{q}"])
def test_a_query_id_with_its_language_added_says_what_the_task_names_it(
        tmp_path: Path, capsys, written: str) -> None:
    """An mFollowIR run whose ids carry the language, as its configs' names do
    ('100-og-fas' for corpus-fas' query 100-og), was told each query was unknown and every
    one missing, and nothing of how the task writes them, while the language written
    before the id ('fas-100-og') drew the hint: a suffix after a separator, holding a
    letter and ending no id of the task, is taken for a slip as such a prefix is."""
    root = tmp_path / "data"
    collection = write_collection(root / get_task("mfollowir/fas").source.local_dir,
                                  n_queries=2, pool_size=6, corpus_size=20, language="fas",
                                  seed=4)
    lines = [ln.split(" ") for ln in run_lines(collection, "original")]
    text = "".join(" ".join([written.format(q=q), *rest]) for q, *rest in lines)
    rc, out = check(tmp_path / "original.trec", text, capsys, root, task="mfollowir/fas")
    assert rc == 1
    first = lines[0][0]
    assert out.splitlines()[0] == (
        f"{tmp_path / 'original.trec'}:1: unknown query {written.format(q=first)!r} (not an "
        f"original query of mfollowir/fas); the task names it {first!r}")
    assert out.count("names it") == 1


@pytest.mark.parametrize("written", ["{q}_{n}", "{q}-{n}", "{q}-og-{n}"])
def test_a_query_id_with_a_number_added_gets_no_hint(
        tmp_path: Path, capsys, written: str) -> None:
    """A suffix of digits is another id ('5_1' is a FollowTable pair, not topic 5): it is
    not taken for a slip."""
    root = tmp_path / "data"
    collection = write_collection(root / "followir" / "robust04", n_queries=2, pool_size=6,
                                  corpus_size=20, seed=4)
    lines = [ln.split(" ") for ln in run_lines(collection, "original")]
    text = "".join(" ".join([written.format(q=q.removesuffix("-og"), n=7), *rest])
                   for q, *rest in lines)
    rc, out = check(tmp_path / "original.trec", text, capsys, root,
                    "--role", "original", task="followir/robust04")
    assert rc == 1 and "unknown query" in out
    assert "names it" not in out


@pytest.mark.parametrize("written", ["9{d}", "{d}9", "{d}.5", "0_{d}"])
def test_an_id_that_is_another_with_digits_added_gets_no_hint(
        tmp_path: Path, capsys, data_dir: Path, wtr, written: str) -> None:
    """Only a file extension, or a prefix holding a letter that no corpus id begins with,
    cut where letters meet digits or at a separator, is taken for a naming slip: '99112'
    is not table 9112, nor '100.5' table 5."""
    lines = [ln.split(" ") for ln in full_run(wtr, "original")]
    text = "".join(" ".join([q, q0, written.format(d=d) if int(d) > 99 else d, *rest])
                   for q, q0, d, *rest in lines)
    rc, out = check(tmp_path / "original.trec", text, capsys, data_dir)
    assert rc == 1 and "is not in the corpus" in out
    assert "names it" not in out


def test_a_pool_document_known_without_an_ending_says_what_the_pool_names_it(
        tmp_path: Path, capsys) -> None:
    root = tmp_path / "data"
    collection = write_collection(root / "followir" / "core17", n_queries=3, pool_size=8,
                                  corpus_size=30, seed=2)
    lines = [ln.split(" ") for ln in run_lines(collection, "original")]
    text = "".join(" ".join([q, q0, f"{d}.txt", *rest]) for q, q0, d, *rest in lines)
    rc, out = check(tmp_path / "original.trec", text, capsys, root, task="followir/core17")
    assert rc == 1
    q, _, d, *_ = lines[0]
    assert out.splitlines()[0] == (
        f"{tmp_path / 'original.trec'}:1: document '{d}.txt' is not in the candidate pool of "
        f"query {q!r} (this task reranks a fixed pool); the pool names it {d!r}")
    assert out.count("names it") == 1
