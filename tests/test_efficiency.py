"""What a model cost (issue 36): the efficiency meter, the ``efficiency:`` block `baselines
run` writes and `baselines measure` records without touching the runs, and its schema."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from leaderboard.app.board_ids import reference_ids
from leaderboard.app.cli import main
from leaderboard.core.report import Report
from leaderboard.submission.metadata import Metadata, load_metadata
from reference_models.baseline_run import RunOptions, run_reference_model
from reference_models.efficiency import (
    FAMILY_ENTRY_ABOVE,
    EfficiencyMeter,
    efficiency_conflict,
    merged_block,
)
from reference_models.measure import with_block, without_block
from test_reference_models import _read_runs, tiny_data

__all__ = ["tiny_data"]  # a fixture, used by name


class _Runner:
    """Says how many tokens it fed, as the real runners do."""

    def __init__(self) -> None:
        self.last_token_count: int | None = None

    def encode(self, texts: list[str]) -> list[int]:
        self.last_token_count = sum(len(t.split()) for t in texts)
        return [len(t) for t in texts]


def test_the_meter_counts_what_the_model_computed_task_by_task() -> None:
    meter = EfficiencyMeter()
    runner = _Runner()
    assert meter.encode(runner, ["a b"], lambda: runner.encode(["a b"])) == [3]  # no task: free
    with meter.task("followtable/wtr"):
        meter.encode(runner, ["a b c", "d"], lambda: runner.encode(["a b c", "d"]))
        with meter.searching():
            with meter.searching():   # a nested timing (a first stage) counts once
                pass
        with meter.encoding(5):
            meter.encode(runner, ["x"], lambda: runner.encode(["x"]))  # nested: not again
    with meter.task("followtable/tarx", sample="a sample"):
        meter.encode(object(), ["q"], lambda: None)   # a runner that cannot count tokens
    entries = meter.entries()
    first, second = entries["followtable/wtr"], entries["followtable/tarx"]
    assert first["texts"] == 7 and first["tokens"] == 4
    assert first["encode_seconds"] >= 0 and first["search_seconds"] >= 0
    assert first["peak_cpu_memory_bytes"] > 0 and "peak_gpu_memory_bytes" not in first
    assert second["texts"] == 1 and "tokens" not in second and second["sample"] == "a sample"
    # Nothing unknown is written as null, and every entry is what the schema accepts.
    block = {"source": "measured", "hardware": {"cpu": "x", "precision": "float32"},
             "tasks": entries}
    assert "null" not in yaml.safe_dump(block)
    Metadata.model_validate({"id": "ab", "model": {"name": "m"}, "contact": "c",
                             "produced_by": "p", "efficiency": block})


def test_the_figures_a_new_measurement_keeps_are_written_without_nulls() -> None:
    """`baselines measure --tasks A` (or `run`) kept the other tasks' entries of the
    earlier block as they were, so nulls a block written before the meter left them out
    (the committed ones held `peak_gpu_memory_bytes: null`) were written again."""
    hardware = {"cpu": "x", "cpu_cores": 2, "gpu_count": 0, "precision": "float32"}
    common = {"source": "measured", "date": "2026-01-02", "hardware": hardware,
              "embedding_cache": False}
    before = {**common, "hardware": {**hardware, "gpu": None},
              "measured_by": "leaderboard baselines measure m --tasks a/b",
              "tasks": {"a/b": {"encode_seconds": 1.5, "search_seconds": 0.1, "texts": 3,
                                "peak_gpu_memory_bytes": None, "load_average": 1.0}}}
    block = {**common, "measured_by": "leaderboard baselines measure m --tasks a/c",
             "tasks": {"a/c": {"encode_seconds": 2.0, "search_seconds": 0.2, "texts": 4}}}
    merged = merged_block(before, block)
    assert merged["tasks"]["a/b"] == {"encode_seconds": 1.5, "search_seconds": 0.1,
                                      "texts": 3, "load_average": 1.0}
    assert merged["measured_by"] == "leaderboard baselines measure m --tasks a/b a/c"
    assert "null" not in yaml.safe_dump(merged)


def test_a_large_task_family_is_one_entry() -> None:
    meter = EfficiencyMeter()
    for i in range(FAMILY_ENTRY_ABOVE + 1):
        with meter.task(f"pi/t2/{i:03d}"):
            meter.encode(_Runner(), ["a"], lambda: None)
    with meter.task("pi/t1/hin"):
        pass
    entries = meter.entries()
    assert sorted(entries) == ["pi/t1/hin", "pi/t2/*"]
    assert entries["pi/t2/*"]["texts"] == FAMILY_ENTRY_ABOVE + 1
    assert f"{FAMILY_ENTRY_ABOVE + 1} tasks together" in entries["pi/t2/*"]["sample"]


def test_a_bad_efficiency_block_is_refused_on_its_line(tmp_path: Path) -> None:
    path = tmp_path / "metadata.yaml"
    path.write_text("id: my-model\nmodel:\n  name: M\ncontact: me\nproduced_by: by hand\n"
                    "efficiency:\n  source: declared\n  hardware:\n    cpu: X\n"
                    "    precision: bf16\n  tasks:\n    followtable/wtr:\n"
                    "      encode_seconds: -3\n      search_seconds: 1\n      texts: 10\n")
    report = Report()
    assert load_metadata(path, "metadata.yaml", report) is None
    assert any(":13:" in line and "encode_seconds" in line for line in report.lines()), \
        report.lines()


def test_baselines_run_records_the_cost_of_each_task(tiny_data: Path, tmp_path: Path) -> None:
    summary = run_reference_model("bm25s", ["followtable/wtr"], tiny_data, tmp_path,
                                  RunOptions(progress=False, command="test"))
    meta = yaml.safe_load((summary.folder / "metadata.yaml").read_text(encoding="utf-8"))
    cost = Metadata.model_validate(meta).efficiency
    assert cost is not None and cost.source == "measured" and cost.measured_by == "test"
    entry = cost.tasks["followtable/wtr"]
    assert entry.texts > 0 and entry.tokens and entry.texts_per_second
    assert entry.sample is None and cost.hardware.gpu_count == 0
    assert cost.hardware.cpu and cost.hardware.cpu_cores


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs two CPUs and CPU affinity (Linux)")
def test_the_cores_recorded_are_those_the_run_may_use(tiny_data: Path, tmp_path: Path) -> None:
    """A run held to some of a machine's CPUs (Slurm's --cpus-per-task, taskset, a
    container's cpuset) recorded every CPU of the machine: measured on 1 core of 2 (torch
    takes as many threads as it may use), its figures said 2 CPU cores."""
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        summary = run_reference_model("bm25s", ["followtable/wtr"], tiny_data, tmp_path,
                                      RunOptions(progress=False, command="test"))
    finally:
        os.sched_setaffinity(0, allowed)
    meta = yaml.safe_load((summary.folder / "metadata.yaml").read_text(encoding="utf-8"))
    assert meta["efficiency"]["hardware"]["cpu_cores"] == 1
    assert meta["hardware"].endswith("(1 CPU core)"), meta["hardware"]


def test_a_bm25_run_says_no_cache_answered_a_text(tiny_data: Path, tmp_path: Path) -> None:
    """BM25 has no embedding cache, yet a run wrote ``embedding_cache: true`` unless
    --no-cache was given: the page said texts the cache answered were not counted, and a
    --no-cache rerun of one task could not keep the other tasks' figures."""
    shutil.copytree(tiny_data / "followtable" / "WTR", tiny_data / "followtable" / "TArX")
    out = tmp_path / "subs"
    command = "leaderboard baselines run bm25s --tasks {} --device auto"
    run_reference_model("bm25s", ["followtable/wtr", "followtable/tarx"], tiny_data, out,
                        RunOptions(progress=False, command=command.format("a b")))
    meta_path = out / "bm25s" / "metadata.yaml"
    assert yaml.safe_load(meta_path.read_text())["efficiency"]["embedding_cache"] is False
    run_reference_model("bm25s", ["followtable/wtr"], tiny_data, out, RunOptions(
        progress=False, use_cache=False, command=command.format("a")))
    block = yaml.safe_load(meta_path.read_text())["efficiency"]
    assert list(block["tasks"]) == ["followtable/wtr", "followtable/tarx"]


def test_baselines_measure_writes_only_the_efficiency_block(tiny_data: Path,
                                                            tmp_path: Path,
                                                            capsys) -> None:
    out = tmp_path / "subs"
    run_reference_model("bm25s", ["followtable/wtr"], tiny_data, out,
                        RunOptions(progress=False, command="test"))
    folder = out / "bm25s"
    meta_path = folder / "metadata.yaml"
    # A hand-written line the measurement must keep as it was written.
    meta_path.write_text(without_block(without_block(meta_path.read_text(), "efficiency"),
                                       "hardware")
                         + "hardware: >-\n  written by hand,\n  folded\n", encoding="utf-8")
    assert main(["score", str(folder), "--data-dir", str(tiny_data)]) == 0
    before_text = meta_path.read_text()
    before = _read_runs(folder)
    assert main(["baselines", "measure", "bm25s", "--tasks", "followtable/wtr",
                 "--documents", "2", "--queries", "1", "--out", str(out),
                 "--data-dir", str(tiny_data)]) == 0
    assert "bm25s: scored 1 task ->" in capsys.readouterr().out
    after = _read_runs(folder)
    changed = {"metadata.yaml", "results.json"}
    assert {k: v for k, v in after.items() if k not in changed} == \
        {k: v for k, v in before.items() if k not in changed}
    text = meta_path.read_text()
    # Rescored in the same change: results.json differs only in metadata.yaml's digest and
    # so in the explanation manifest's, which records the inputs' digest (same size).
    old, new = json.loads(before["results.json"]), json.loads(after["results.json"])
    assert new["inputs_sha256"].pop("metadata.yaml") == hashlib.sha256(
        text.encode("utf-8")).hexdigest() != old["inputs_sha256"].pop("metadata.yaml")
    assert new["explain_manifest"].pop("sha256") != old["explain_manifest"].pop("sha256")
    assert new == old
    assert without_block(text, "efficiency") == before_text
    cost = Metadata.model_validate(yaml.safe_load(text)).efficiency
    entry = cost.tasks["followtable/wtr"]
    assert cost.embedding_cache is False and cost.measured_by.startswith(
        "leaderboard baselines measure bm25s --tasks followtable/wtr --documents 2")
    assert entry.sample.startswith("a uniform sample (seed 0): 2 of ")
    assert "1 of " in entry.sample and "search over the sampled documents only" in entry.sample


def test_baselines_measure_refuses_a_folder_it_cannot_speak_for(tiny_data: Path,
                                                                tmp_path: Path,
                                                                capsys) -> None:
    """`baselines measure` wrote BM25's figures into another model's submission, for a
    task it had no runs of, and a broken metadata.yaml stopped it with an internal error
    once the measurement was done. Each is refused first, naming the file."""
    out = tmp_path / "subs"
    run_reference_model("bm25s", ["followtable/wtr"], tiny_data, out,
                        RunOptions(progress=False, command="test"))
    folder = out / "bm25s"
    shutil.copytree(folder, out / "someone-else")
    meta = out / "someone-else" / "metadata.yaml"
    text = meta.read_text()
    name = yaml.safe_load(text)["model"]["name"]
    meta.write_text(text.replace("id: bm25s", "id: someone-else").replace(
        f"name: {name}", "name: Someone Else"))
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    measure = ["baselines", "measure", "bm25s", "--documents", "2", "--queries", "1",
               "--out", str(out), "--data-dir", str(tiny_data)]
    capsys.readouterr()
    assert main([*measure, "--tasks", "followtable/wtr", "--id", "someone-else"]) == 1
    err = capsys.readouterr().err
    assert f"the submission's model is 'Someone Else', not {name!r}" in err, err
    assert main([*measure, "--tasks", "followtable/tarx"]) == 1
    assert "the submission has no runs of followtable/tarx" in capsys.readouterr().err
    (folder / "metadata.yaml").write_text("id: [oops\n")
    assert main([*measure, "--tasks", "followtable/wtr"]) == 1
    err = capsys.readouterr().err
    assert f"{folder / 'metadata.yaml'}:" in err and "internal error" not in err, err
    (folder / "metadata.yaml").write_bytes(before[folder / "metadata.yaml"])
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_baselines_measure_of_one_task_keeps_the_figures_of_the_others(tiny_data: Path,
                                                                       tmp_path: Path,
                                                                       capsys) -> None:
    """`baselines measure MODEL --tasks A` replaced the whole efficiency: block, so the
    figures of the submission's other tasks were lost. Measured alike (machine, settings,
    command, day), they stay, and the block's command names every task it holds; measured
    otherwise, the command refuses before measuring and names what differs, unless
    --replace-efficiency says to drop them."""
    shutil.copytree(tiny_data / "followtable" / "WTR", tiny_data / "followtable" / "TArX")
    out = tmp_path / "subs"
    run_reference_model("bm25s", ["followtable/wtr", "followtable/tarx"], tiny_data, out,
                        RunOptions(progress=False, command="test"))
    meta_path = out / "bm25s" / "metadata.yaml"
    measure = ["baselines", "measure", "bm25s", "--documents", "2", "--queries", "1",
               "--out", str(out), "--data-dir", str(tiny_data), "--no-score"]
    assert main([*measure, "--tasks", "followtable/wtr", "followtable/tarx"]) == 0
    first = yaml.safe_load(meta_path.read_text())["efficiency"]
    assert main([*measure, "--tasks", "followtable/wtr"]) == 0
    block = yaml.safe_load(meta_path.read_text())["efficiency"]
    assert list(block["tasks"]) == ["followtable/wtr", "followtable/tarx"]
    assert block["tasks"]["followtable/tarx"] == first["tasks"]["followtable/tarx"]
    assert block["measured_by"] == first["measured_by"]  # both tasks, as measured
    # Figures of another machine cannot stand under this one's name: refused, untouched.
    text = meta_path.read_text()
    cpu = block["hardware"]["cpu"]
    meta_path.write_text(text.replace(f"cpu: {cpu}", "cpu: Another CPU"))
    other = meta_path.read_text()
    capsys.readouterr()
    assert main([*measure, "--tasks", "followtable/wtr"]) == 1
    err = capsys.readouterr().err
    assert f"{meta_path}: its efficiency: block holds figures of followtable/tarx" in err, err
    assert "hardware.cpu Another CPU there" in err and "--replace-efficiency" in err
    assert "internal error" not in err and meta_path.read_text() == other
    # So is a block measured by another command (here the run's, with its cache on).
    meta_path.write_text(text.replace("embedding_cache: false", "embedding_cache: true"))
    assert main([*measure, "--tasks", "followtable/wtr"]) == 1
    # As metadata.yaml writes the setting, not as Python prints it.
    assert "embedding_cache true there, false now" in capsys.readouterr().err
    assert main([*measure, "--tasks", "followtable/wtr", "--replace-efficiency"]) == 0
    block = yaml.safe_load(meta_path.read_text())["efficiency"]
    assert list(block["tasks"]) == ["followtable/wtr"]
    assert block["measured_by"].startswith(
        "leaderboard baselines measure bm25s --tasks followtable/wtr --documents 2")


def test_baselines_run_of_one_task_keeps_or_names_the_figures_of_the_others(
        tiny_data: Path, tmp_path: Path) -> None:
    """`baselines run` of some of a submission's tasks kept the other tasks' figures under
    its own command and day, and dropped them without a word when they came from another
    machine. Measured alike they stay, under a command naming every task; otherwise the
    run is refused before encoding, the folder as it was, unless replace_efficiency."""
    from reference_models.errors import ReferenceRunError

    shutil.copytree(tiny_data / "followtable" / "WTR", tiny_data / "followtable" / "TArX")
    out = tmp_path / "subs"
    command = "leaderboard baselines run bm25s --tasks {} --device cpu"

    def run(*tasks: str, **options) -> None:
        run_reference_model("bm25s", list(tasks), tiny_data, out, RunOptions(
            progress=False, command=command.format(" ".join(tasks)), **options))

    run("followtable/wtr", "followtable/tarx")
    meta_path = out / "bm25s" / "metadata.yaml"
    first = yaml.safe_load(meta_path.read_text())["efficiency"]
    run("followtable/wtr")
    block = yaml.safe_load(meta_path.read_text())["efficiency"]
    assert block["tasks"]["followtable/tarx"] == first["tasks"]["followtable/tarx"]
    assert block["measured_by"] == command.format("followtable/wtr followtable/tarx")
    meta_path.write_text(meta_path.read_text().replace(
        f"cpu: {block['hardware']['cpu']}", "cpu: Another CPU"))
    before = _read_runs(out / "bm25s")
    with pytest.raises(ReferenceRunError, match="holds figures of followtable/tarx, which cannot stay .*"
                       "hardware.cpu Another CPU there"):
        run("followtable/wtr")
    assert _read_runs(out / "bm25s") == before
    run("followtable/wtr", replace_efficiency=True)
    block = yaml.safe_load(meta_path.read_text())["efficiency"]
    assert list(block["tasks"]) == ["followtable/wtr"]
    assert block["measured_by"] == command.format("followtable/wtr")


def _block(command: str, *tasks: str, **settings) -> dict:
    return {"source": "measured", "measured_by": command, "date": "2026-01-02",
            "hardware": {"cpu": "X", "cpu_cores": 2, "gpu_count": 0, "precision": "float32"},
            "embedding_cache": False, "tasks": {t: {"texts": 1} for t in tasks}, **settings}


def test_only_what_changes_a_measurement_keeps_two_commands_figures_apart() -> None:
    """Two commands were "the same" only when their whole lines were: a rerun that named
    another --contact (or --owner, --name, --device auto for cpu: what the block's hardware
    says) could not keep the other tasks' figures, and the refusal quoted both commands
    whole. Only the options that change what is measured count, and the refusal names the
    one that differs."""
    run = "leaderboard baselines run bm25s {} --tasks {} --device {} --instruction-format benchmark"
    before = _block(run.format("--contact A --link https://a.example", "t/a t/b", "auto"),
                    "t/a", "t/b")
    now = _block(run.format("--contact 'B C' --owner bee --name N", "t/a", "cpu"), "t/a")
    assert efficiency_conflict("m.yaml", before, now) is None
    merged = merged_block(before, now)
    assert merged["measured_by"] == run.format("--contact 'B C' --owner bee --name N",
                                               "t/a t/b", "cpu")
    assert list(merged["tasks"]) == ["t/a", "t/b"]
    # What changes the measurement is named alone, not the two whole commands.
    batch = _block(run.format("--batch-size 16", "t/a", "auto"), "t/a")
    problem = efficiency_conflict("m.yaml", before, batch)
    assert "--batch-size not given there, 16 now" in problem, problem
    assert "--contact" not in problem and "measured by" not in problem
    prompt = _block(run.format("--query-prompt 'q: '", "t/a", "auto"), "t/a")
    assert "--query-prompt not given there, 'q: ' now" in efficiency_conflict(
        "m.yaml", before, prompt)
    measure = "leaderboard baselines measure bm25s --tasks {} --documents 64 --queries 32 --seed {}"
    sampled = _block(measure.format("t/a t/b", 0), "t/a", "t/b")
    problem = efficiency_conflict("m.yaml", sampled, _block(measure.format("t/a", 1), "t/a"))
    assert "--seed 0 there, 1 now" in problem and "--documents" not in problem, problem
    problem = efficiency_conflict("m.yaml", sampled, now)
    assert ("command leaderboard baselines measure bm25s there, leaderboard baselines run "
            "bm25s now") in problem, problem
    assert "--seed 0 there, not given now" in problem


def test_figures_of_another_day_are_refused_saying_why() -> None:
    """A block states one day for all its figures, and the submission page shows them as
    "Measured on <hardware>, <day>": one task measured again on a later day cannot join
    the others' figures under either day. That stays; the refusal said only "one block
    names one ... day", not that the page shows them so, nor how to keep them together."""
    run = "leaderboard baselines run bm25s --tasks {} --device auto"
    before = _block(run.format("t/a t/b"), "t/a", "t/b", date="2026-01-01")
    problem = efficiency_conflict("m.yaml", before, _block(run.format("t/a"), "t/a"))
    assert problem.startswith("m.yaml: its efficiency: block holds figures of t/b, ")
    assert "(date 2026-01-01 there, 2026-01-02 now)" in problem, problem
    assert 'the submission page shows them as "Measured on <hardware>, <date>"' in problem
    assert "Measure them all again (--tasks t/b t/a)" in problem
    assert "or pass --replace-efficiency to drop the figures of t/b" in problem


def test_a_rerun_of_part_of_a_family_entry_does_not_drop_the_family_unsaid() -> None:
    """A family of more than 12 tasks is one entry, its figures summed (PI-Indic T2's 132
    pairs). A rerun of one pair counted that entry as measured again and dropped it, with
    no word: the 131 other pairs' figures were lost, and the block kept only the pair's.
    The sum cannot be split, so the rerun is refused, naming the entry, unless
    --replace-efficiency."""
    run = "leaderboard baselines run bm25s --tasks {} --device auto"
    family = _block(run.format("'p/t2/*' p/t1/a"), "p/t2/*", "p/t1/a")
    family["tasks"]["p/t2/*"]["sample"] = "132 tasks together"
    problem = efficiency_conflict("m.yaml", family, _block(run.format("p/t2/x-y"), "p/t2/x-y"))
    assert problem is not None and "block holds figures of p/t2/*, p/t1/a" in problem, problem
    assert ("p/t2/* sums the figures of 132 tasks together, which cannot be told apart "
            "from p/t2/x-y measured again") in problem
    # The whole family measured again replaces its entry, as before.
    again = _block(run.format("'p/t2/*'"), "p/t2/*")
    assert efficiency_conflict("m.yaml", family, again) is None
    assert list(merged_block(family, again)["tasks"]) == ["p/t2/*", "p/t1/a"]


def test_a_block_of_every_task_keeps_a_command_of_every_task() -> None:
    """The figures of a run of every task (no --tasks) kept beside a rerun of one task
    were filed under the rerun's command, which named that one task only."""
    run = "leaderboard baselines run bm25s{} --device auto --instruction-format benchmark"
    every = _block(run.format(""), "t/a", "t/b", "u/c")
    merged = merged_block(every, _block(run.format(" --tasks 't/[a]'"), "t/a"))
    assert merged["measured_by"] == run.format("")
    assert list(merged["tasks"]) == ["t/a", "t/b", "u/c"]
    some = _block(run.format(" --tasks t/b"), "t/b")
    assert merged_block(some, _block(run.format(""), "t/a"))["measured_by"] == run.format("")


def test_a_rerun_naming_another_contact_keeps_the_other_figures(tiny_data: Path,
                                                                tmp_path: Path) -> None:
    shutil.copytree(tiny_data / "followtable" / "WTR", tiny_data / "followtable" / "TArX")
    out = tmp_path / "subs"
    run = ["baselines", "run", "bm25s", "--out", str(out), "--data-dir", str(tiny_data),
           "--no-score", "--quiet"]
    assert main([*run, "--tasks", "followtable/wtr", "followtable/tarx"]) == 0
    meta_path = out / "bm25s" / "metadata.yaml"
    first = yaml.safe_load(meta_path.read_text())["efficiency"]
    assert main([*run, "--tasks", "followtable/wtr", "--contact", "Jane (@jane)"]) == 0
    block = yaml.safe_load(meta_path.read_text())["efficiency"]
    assert block["tasks"]["followtable/tarx"] == first["tasks"]["followtable/tarx"]
    assert "--tasks followtable/wtr followtable/tarx" in block["measured_by"]


def test_a_run_of_every_task_checks_the_figures_of_the_tasks_it_skips_before_encoding(
        tiny_data: Path, tmp_path: Path, capsys) -> None:
    """A run with no --tasks skips the tasks whose data is not here, but its early check
    took every task for run: the figures of a skipped task measured elsewhere (or another
    model's runs of it) were found only after every other task was encoded, at install.
    The run's tasks are settled once, and the check covers exactly those."""
    from reference_models.errors import ReferenceRunError

    tarx = tiny_data / "followtable" / "TArX"
    shutil.copytree(tiny_data / "followtable" / "WTR", tarx)
    out = tmp_path / "subs"
    run_reference_model("bm25s", ["followtable/wtr", "followtable/tarx"], tiny_data, out,
                        RunOptions(progress=False, command="run --tasks a b"))
    here = tmp_path / "here"   # a data folder without TArX
    shutil.copytree(tiny_data, here, ignore=lambda _d, names: [n for n in names if n == "TArX"])
    meta_path = out / "bm25s" / "metadata.yaml"
    text = meta_path.read_text()
    cpu = yaml.safe_load(text)["efficiency"]["hardware"]["cpu"]
    meta_path.write_text(text.replace(f"cpu: {cpu}", "cpu: Another CPU"))
    before = _read_runs(out / "bm25s")
    capsys.readouterr()
    with pytest.raises(ReferenceRunError, match="holds figures of followtable/tarx"):
        run_reference_model("bm25s", None, here, out,
                            RunOptions(progress=False, command="run"))
    err = capsys.readouterr().err
    assert "followtable/tarx: skipped, data missing" in err
    assert "followtable/wtr: 5 documents" not in err, err  # refused before encoding
    assert _read_runs(out / "bm25s") == before
    # So is another model's folder: refused before encoding, naming it.
    meta_path.write_text(text.replace("name: BM25", "name: Other BM25"))
    with pytest.raises(ReferenceRunError, match="holds runs of Other BM25"):
        run_reference_model("bm25s", None, here, out,
                            RunOptions(progress=False, command="run"))
    assert "followtable/wtr: 5 documents" not in capsys.readouterr().err


def test_baselines_measure_counts_the_tasks_a_family_entry_sums(
        tiny_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """`baselines measure` counted the block's entries as tasks: PI-Indic T2's 132 pairs,
    one entry pi-indic-val150/t2/*, were "measured 1 task". Here a family of two is one
    entry (the limit lowered), and the command says it measured two tasks."""
    import reference_models.efficiency as efficiency

    shutil.copytree(tiny_data / "followtable" / "WTR", tiny_data / "followtable" / "TArX")
    out = tmp_path / "subs"
    run_reference_model("bm25s", ["followtable/wtr", "followtable/tarx"], tiny_data, out,
                        RunOptions(progress=False, command="test"))
    monkeypatch.setattr(efficiency, "FAMILY_ENTRY_ABOVE", 1)
    capsys.readouterr()
    assert main(["baselines", "measure", "bm25s", "--documents", "2", "--queries", "1",
                 "--out", str(out), "--data-dir", str(tiny_data), "--no-score",
                 "--tasks", "followtable/wtr", "followtable/tarx"]) == 0
    block = yaml.safe_load((out / "bm25s" / "metadata.yaml").read_text())["efficiency"]
    assert list(block["tasks"]) == ["followtable/*"]
    assert "bm25s: measured 2 tasks ->" in capsys.readouterr().out


def test_with_block_replaces_a_block_and_keeps_every_other_line() -> None:
    text = "id: x\nefficiency:\n  old: 1\n# a comment\nnote: >-\n  kept\n"
    new = with_block(text, "efficiency", {"new": 2})
    assert new == "id: x\nefficiency:\n  new: 2\n# a comment\nnote: >-\n  kept\n"
    assert with_block("id: x", "efficiency", {"a": 1}) == "id: x\nefficiency:\n  a: 1\n"
    assert without_block(new, "efficiency") == "id: x\n# a comment\nnote: >-\n  kept\n"


def test_the_committed_reference_submissions_record_measured_cost_with_hardware() -> None:
    """The reference baselines' submissions (those of a declared model,
    reference_models/models.yaml), whose cost `baselines measure` records. It read every
    committed folder, so a researcher's merged submission, whose metadata.yaml may record
    its cost as its author measured it (measured_by naming their own script) or not at
    all, failed the suite on its own pull request."""
    repo = Path(__file__).resolve().parents[1]
    folders = [f for f in sorted((repo / "submissions").iterdir()) if f.name in reference_ids()]
    assert len(folders) >= 4, folders  # the four committed baselines at least
    for folder in folders:
        report = Report()
        meta = load_metadata(folder / "metadata.yaml", folder.name, report)
        assert meta is not None, report.lines()
        cost = meta.efficiency
        assert cost is not None and cost.source == "measured", folder.name
        assert cost.embedding_cache is False and cost.hardware.cpu and cost.hardware.precision
        assert cost.measured_by and cost.measured_by.startswith("leaderboard baselines measure")
        for task, entry in cost.tasks.items():
            assert entry.load_average is not None and entry.sample, (folder.name, task)
            assert entry.texts > 0 and entry.texts_per_second, (folder.name, task)
        # As the writer writes it: nothing unknown recorded as null (three blocks measured
        # before that rule carried `gpu: null` and `peak_gpu_memory_bytes: null`).
        block = yaml.safe_load((folder / "metadata.yaml").read_text("utf-8"))["efficiency"]
        assert "null" not in yaml.safe_dump(block), folder.name


@pytest.mark.parametrize("bad", [{"source": "guessed"}, {"tasks": {}}])
def test_the_block_says_measured_or_declared_and_names_a_task(bad: dict) -> None:
    block = {"source": "declared", "hardware": {"cpu": "x", "precision": "fp16"},
             "tasks": {"a/b": {"encode_seconds": 1, "search_seconds": 1, "texts": 1}}}
    with pytest.raises(ValueError):
        Metadata.model_validate({"id": "ab", "model": {"name": "m"}, "contact": "c",
                                 "produced_by": "p", "efficiency": {**block, **bad}})


@pytest.mark.parametrize(("key", "ok"), [
    ("followtable/wtr", True), ("pi-indic-val150/t2/*", True),
    ("<b>wtr</b>", False), ("followtable/nope", False), ("nope/*", False), ("*", False),
])
def test_an_efficiency_entry_names_a_task_or_a_family(key: str, ok: bool,
                                                       tmp_path: Path) -> None:
    """The submission page shows each entry's key as a task: any text was accepted (HTML,
    a task no benchmark has); a key must be a task id or ``<family>/*``, on its line."""
    path = tmp_path / "metadata.yaml"
    path.write_text("id: my-model\nmodel:\n  name: M\ncontact: me\nproduced_by: by hand\n"
                    "efficiency:\n  source: declared\n  hardware:\n    cpu: X\n"
                    f"    precision: bf16\n  tasks:\n    {key!r}:\n"
                    "      encode_seconds: 3\n      search_seconds: 1\n      texts: 10\n")
    report = Report()
    meta = load_metadata(path, "metadata.yaml", report)
    assert (meta is not None) == ok, report.lines()
    if not ok:
        assert any(":12:" in line and "neither a task id" in line for line in report.lines()), \
            report.lines()
