"""Reference models on a CUDA GPU: every runner family in bf16, against the same tiny
models in fp32 on CPU, and the pipeline end to end.

Skipped where torch sees no GPU (CI has none); run on a GPU machine with
``pytest tests/test_reference_models_cuda.py``. The tiny models and the FollowTable
fixture are those of ``test_reference_models.py``.

bf16 keeps 8 significant bits, so GPU figures are compared with CPU fp32 ones to a
tolerance: vectors by cosine similarity, scores to a share of the scores' spread.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

from test_reference_models import (  # noqa: E402
    PAIRS, _check_submission, _parse, _read_runs, _spec, bi_encoder_spec,
    first_stage_reranker_spec, tiny_data, tiny_models, tiny_monot5_spec)

from reference_models.neural import (  # noqa: E402
    CausalReranker, CrossEncoder, Seq2SeqReranker, TextEncoder)
from reference_models.baseline_run import RunOptions, run_reference_model  # noqa: E402

__all__ = ["tiny_data", "tiny_models"]  # fixtures, used by name

TEXTS = ["running shoes", "price deal coupon store today cheap buy",
         "shoe", "foam sole material design upper mesh rubber build",
         "table caption weight brand model review"]
MORE_PAIRS = PAIRS + [("cheap shoes today", "sale discount store buy"),
                      ("lab test", "technical comparison of foam cushioning")]


def _reranker_spec(kind: str, models: dict[str, Path]):
    if kind == "cross-encoder":
        return CrossEncoder, _spec(id="tiny-ce", family="cross-encoder", type="cross-encoder",
                                   hf_id=str(models["bert-cls-head"]),
                                   reranker={"max_length": 64})
    if kind == "seq2seq-reranker":
        return Seq2SeqReranker, tiny_monot5_spec(models["t5"])
    return CausalReranker, _spec(
        id="tiny-llm", family="causal-reranker", type="llm-reranker",
        hf_id=str(models["llama"]), reranker={
            "prompt": "query {query} document {document} relevant",
            "true_token": "yes", "false_token": "no", "max_length": 64})


@pytest.mark.parametrize("model, pooling", [("bert", "mean"), ("bert", "cls"),
                                            ("llama", "last-token")])
def test_bi_encoder_on_gpu_matches_cpu(tiny_models, model: str, pooling: str) -> None:
    extra = {"append_eos": True} if model == "llama" else {}
    spec = bi_encoder_spec(tiny_models[model], pooling, **extra)
    gpu = TextEncoder(spec, device="cuda", progress=False)
    cpu = TextEncoder(spec, device="cpu", progress=False)
    assert gpu.device.type == "cuda" and gpu.dtype == torch.bfloat16
    assert cpu.dtype == torch.float32
    on_gpu, on_cpu = gpu.encode(TEXTS, 32), cpu.encode(TEXTS, 32)
    assert on_gpu.dtype == np.float32 and on_gpu.shape == on_cpu.shape
    assert np.allclose(np.linalg.norm(on_gpu, axis=1), 1.0, atol=1e-5)
    cosine = np.sum(on_gpu * on_cpu, axis=1)
    assert cosine.min() > 0.999, cosine  # measured on an H100: 1 - 1.4e-5 at worst
    # batches of mixed lengths (padded, sorted, restored) against one text at a time
    one_by_one = np.concatenate([gpu.encode([t], 32) for t in TEXTS])
    assert np.sum(on_gpu * one_by_one, axis=1).min() > 0.999


@pytest.mark.parametrize("kind", ["cross-encoder", "seq2seq-reranker", "causal-reranker"])
def test_rerankers_on_gpu_match_cpu(tiny_models, kind: str) -> None:
    runner_class, spec = _reranker_spec(kind, tiny_models)
    gpu = runner_class(spec, device="cuda", progress=False)
    cpu = runner_class(spec, device="cpu", progress=False)
    assert gpu.dtype == torch.bfloat16
    on_gpu, on_cpu = np.asarray(gpu.score(MORE_PAIRS)), np.asarray(cpu.score(MORE_PAIRS))
    assert on_gpu.shape == (len(MORE_PAIRS),) and np.all(np.isfinite(on_gpu))
    spread = max(float(np.ptp(on_cpu)), 1e-3)
    assert np.abs(on_gpu - on_cpu).max() <= 0.05 * spread + 0.02 * np.abs(on_cpu).max(), (
        on_gpu, on_cpu)
    alone = np.array([gpu.score([pair])[0] for pair in MORE_PAIRS])
    assert np.abs(alone - on_gpu).max() <= 0.05 * spread + 0.02 * np.abs(on_cpu).max()


@pytest.mark.parametrize("family", ["bi-encoder", "cross-encoder", "seq2seq-reranker",
                                    "causal-reranker"])
def test_pipeline_on_gpu_writes_a_valid_byte_identical_submission(
        tiny_models, tiny_data: Path, tmp_path: Path, family: str) -> None:
    spec = (bi_encoder_spec(tiny_models["bert"], "mean") if family == "bi-encoder"
            else first_stage_reranker_spec(tiny_models, family))
    folders = []
    for attempt in ("a", "b"):
        summary = run_reference_model(spec, ["followtable/wtr"], tiny_data, tmp_path / attempt,
                                      RunOptions(progress=False, device="cuda",
                                                 use_cache=False, command="test"))
        folders.append(summary.folder)
    first, second = (_read_runs(f / "runs") for f in folders)
    assert first == second  # the same GPU gives the same bytes
    altered = _parse(folders[0] / "runs/followtable/wtr/altered.trec.gz")
    assert set(altered) == {"0_0", "0_1", "1_0"}
    meta = (folders[0] / "metadata.yaml").read_text()
    assert "bfloat16" in meta
    _check_submission(folders[0], tiny_data)
