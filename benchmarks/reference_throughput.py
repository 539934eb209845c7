"""Throughput of the reference-model runners against naive loops, on real benchmark texts.

Figures (documents per second, median of ``--repeats`` timed runs after a warm-up):

* BM25 indexing: our tokeniser + ``bm25s`` sparse index over a corpus sample;
* BM25 scoring: (query, document) pairs scored per second by ``bm25s`` versus a plain
  Python loop that scores one document at a time from term-frequency dictionaries;
* all-MiniLM-L6-v2 encoding (max 256 tokens) of FollowTable tables, of its queries with
  instructions and topic-only queries, and of PI-Indic T1 documents: the runner
  (length-sorted batches in ``inference_mode``, linear layers on oneDNN on CPU) versus the
  same runner with PyTorch's default linear kernels, one text at a time through the plain
  model in input order, and batching without length sorting; on CPU also the ceiling that
  the linear layers' arithmetic puts on any fp32 runner.

Against what users pick (issue 19): sentence-transformers' ``SentenceTransformer.encode``
on the same device, model (the package's local all-MiniLM-L6-v2 folder, no download) and
texts, with the ratio of our runner's rate to it; the achieved FLOP/s (the encoder's matrix
products at the texts' real token lengths: linear layers plus attention scores and
values) as a fraction of the device's peak (H100/H200 bf16 dense tensor peak from
NVIDIA's data sheet; on CPU the fp32 rate measured on one of the model's layers); and
where our runner's time goes: tokenisation, building padded batches, host-to-device
copies, the forward pass (synchronised) and device-to-host copies, plus the share of
padded tokens.

The machine's load average is printed before and after: on a shared machine the absolute
figures move with it, the ratios much less.

Run: ``python benchmarks/reference_throughput.py [--data-dir DIR] [--sample N]``. Uses the
GPU too when ``torch.cuda.is_available()``. Prints one line per figure and the ratios.

A GPU machine without the benchmark data (an air-gapped one, where the data folder is
larger than what can be carried) takes the sampled texts from a file that
``--write-sample FILE`` wrote from the data here, with the same ``--sample``,
``--bm25-sample`` and ``--seed``: ``--sample-file FILE``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Callable

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.machine import cpu_description  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def timed(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``repeats`` calls after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def load_sample(data_dir: Path, size: int, seed: int
                ) -> tuple[list[str], list[str], list[str]]:
    """A seeded random sample of linearised FollowTable tables (all four datasets), the
    FollowTable queries with instructions and the topic-only queries."""
    from leaderboard.core.data import load_task_data
    from leaderboard.benchmarks.registry import tasks_of
    from reference_models.rankers import load_corpus

    texts: list[str] = []
    queries: list[str] = []
    topics: list[str] = []
    for task in tasks_of("followtable"):
        texts.extend(load_corpus(task, data_dir).texts)
        data = load_task_data(task, data_dir)
        for role, out in (("altered", queries), ("original", topics)):
            out.extend(data.roles[role].query_text[q] for q in data.roles[role].query_ids)
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(texts), size=min(size, len(texts)), replace=False)
    shuffled = [queries[i] for i in rng.permutation(len(queries))]
    return [texts[i] for i in picks], shuffled, [topics[i] for i in rng.permutation(len(topics))]


def load_pi_indic_documents(data_dir: Path, size: int, seed: int) -> list[str]:
    """A seeded random sample of PI-Indic val150 T1 documents (instructions in the 12
    languages): shorter than tables and far more varied in length."""
    from leaderboard.benchmarks.registry import all_tasks
    from reference_models.rankers import load_corpus

    texts: list[str] = []
    for task in all_tasks().values():
        if task.benchmark == "pi-indic-val150" and task.views.get("pi_task") == "t1":
            texts.extend(load_corpus(task, data_dir).texts)
    rng = np.random.default_rng(seed)
    return [texts[i] for i in rng.choice(len(texts), size=min(size, len(texts)),
                                         replace=False)]


def naive_bm25_scores(query: list[str], docs: list[Counter], df: Counter, avgdl: float,
                      k1: float, b: float) -> list[float]:
    """Lucene BM25, one document at a time: the loop bm25s's sparse matrix replaces."""
    n = len(docs)
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in set(query)}
    out = []
    for tf in docs:
        length = sum(tf.values())
        score = 0.0
        for t in query:
            f = tf.get(t, 0)
            if f:
                # Lucene's BM25 (bm25s method "lucene") has no (k1 + 1) factor.
                score += idf[t] * f / (f + k1 * (1 - b + b * length / avgdl))
        out.append(score)
    return out


def bench_bm25(texts: list[str], queries: list[str], repeats: int) -> None:
    from reference_models.bm25 import Bm25Index, tokenizer_for
    from reference_models.spec import get_model_spec

    settings = get_model_spec("bm25s").bm25
    assert settings is not None
    index_time = timed(lambda: Bm25Index(settings, texts, "eng"), repeats)
    print(f"BM25 index (tokenise + bm25s)       {len(texts) / index_time:10.1f} docs/s")

    index = Bm25Index(settings, texts, "eng")
    tokenize = tokenizer_for(settings, "eng")
    query_tokens = [tokenize(q) for q in queries[:20]]
    fast = timed(lambda: [index.scores(q) for q in query_tokens], repeats)
    doc_tokens = [Counter(tokenize(t)) for t in texts]
    df: Counter = Counter()
    for tf in doc_tokens:
        df.update(tf.keys())
    avgdl = sum(sum(tf.values()) for tf in doc_tokens) / len(doc_tokens)
    naive = timed(lambda: [naive_bm25_scores(q, doc_tokens, df, avgdl, settings.k1, settings.b)
                           for q in query_tokens], max(1, repeats // 2))
    pairs = len(query_tokens) * len(texts)
    # Same numbers from both, so the speed comparison is between equal results.
    check = np.asarray(naive_bm25_scores(query_tokens[0], doc_tokens, df, avgdl, settings.k1,
                                         settings.b))
    agree = np.allclose(check, index.scores(query_tokens[0]), rtol=1e-4, atol=1e-4)
    print(f"BM25 scoring, bm25s                 {pairs / fast:10.1f} docs/s (query-doc pairs)")
    print(f"BM25 scoring, naive per-doc loop    {pairs / naive:10.1f} docs/s   "
          f"ratio {naive / fast:6.1f}x   (scores agree: {agree})")


def linear_ceiling(config, lengths: list[int]) -> tuple[float, float, str]:
    """GFLOP per text spent in a BERT-style encoder's linear layers at the given token
    lengths, and the fastest fp32 rate (GFLOP/s) measured on one such layer over a batch of
    tokens, by MKL (PyTorch's default) and by oneDNN: an upper bound on texts per second
    for any runner that keeps fp32 and the model's arithmetic."""
    import torch

    hidden, inner, layers = (config.hidden_size, config.intermediate_size,
                             config.num_hidden_layers)
    # per token and layer: Q, K, V and output projections (4 h^2), the feed-forward (2 h i)
    gflop = 2.0 * layers * (4 * hidden * hidden + 2 * hidden * inner) * float(
        np.mean(lengths)) / 1e9
    layer = torch.nn.Linear(hidden, inner)
    x = torch.randn(4096, hidden)
    rates = {}
    candidates = {"MKL": lambda: layer(x)}
    if hasattr(getattr(torch.ops, "mkldnn", None), "_linear_pointwise"):
        candidates["oneDNN"] = lambda: torch.ops.mkldnn._linear_pointwise(
            x, layer.weight, layer.bias, "none", [], "")
    with torch.inference_mode():
        for name, call in candidates.items():
            seconds = timed(call, 20)
            rates[name] = 2.0 * x.shape[0] * hidden * inner / seconds / 1e9
    best = max(rates, key=rates.__getitem__)
    return gflop, rates[best], f"{best}; " + ", ".join(f"{k} {v:.0f}" for k, v in rates.items())


def bench_minilm(texts: list[str], label: str, device: str, repeats: int,
                 batch_size: int) -> None:
    import torch

    from reference_models.neural import TextEncoder, pool
    from reference_models.spec import get_model_spec

    spec = get_model_spec("all-minilm-l6-v2")
    runner = TextEncoder(spec, device=device, batch_size=batch_size, progress=False)
    # the same runner with PyTorch's default linear kernels; its model is the plain
    # transformers model the naive loops use
    runner_aten = TextEncoder(spec, device=device, batch_size=batch_size, progress=False,
                              linear_kernels="aten")
    max_length = 256
    model, tokenizer = runner_aten.model, runner_aten.tokenizer

    def naive() -> np.ndarray:
        rows = []
        with torch.inference_mode():
            for text in texts:
                enc = tokenizer(text, truncation=True, max_length=max_length,
                                return_tensors="pt").to(runner.device)
                hidden = model(**enc).last_hidden_state
                vec = pool(hidden, enc["attention_mask"], "mean")
                rows.append(torch.nn.functional.normalize(vec.float(), dim=-1).cpu().numpy())
        return np.concatenate(rows)

    def batched_unsorted() -> np.ndarray:
        rows = []
        with torch.inference_mode():
            for start in range(0, len(texts), batch_size):
                enc = tokenizer(texts[start:start + batch_size], truncation=True,
                                max_length=max_length, padding=True,
                                return_tensors="pt").to(runner.device)
                hidden = model(**enc).last_hidden_state
                vec = pool(hidden, enc["attention_mask"], "mean")
                rows.append(torch.nn.functional.normalize(vec.float(), dim=-1).cpu().numpy())
        return np.concatenate(rows)

    def ours() -> np.ndarray:
        return runner.encode(texts, max_length)

    def ours_aten() -> np.ndarray:
        return runner_aten.encode(texts, max_length)

    lengths = [len(ids) for ids in tokenizer(texts, truncation=True,
                                             max_length=max_length)["input_ids"]]
    where = f"{device} ({runner.dtype})".replace("torch.", "")
    print(f"MiniLM on {len(texts)} {label}: {np.mean(lengths):.0f} tokens on average "
          f"(max {max_length}), {where}, {torch.get_num_threads()} CPU threads, "
          f"batch {batch_size}, runner's linear layers: {runner.linear_kernels}")
    # fp32 vectors agree to float noise; bf16 (GPU) ones to bf16's 8 bits of mantissa
    tolerance = 1e-4 if runner.dtype == torch.float32 else 2e-2
    agree = np.allclose(naive(), ours(), atol=tolerance)
    t_ours = timed(ours, repeats)
    t_aten = timed(ours_aten, repeats) if runner.linear_kernels != "aten" else t_ours
    t_unsorted = timed(batched_unsorted, repeats)
    t_naive = timed(naive, max(1, repeats // 2))
    n = len(texts)
    print(f"  runner (length-sorted batches)   {n / t_ours:10.1f} texts/s")
    if runner.linear_kernels != "aten":
        print(f"  runner, PyTorch's default linear {n / t_aten:10.1f} texts/s   "
              f"runner is {t_aten / t_ours:5.2f}x faster")
    print(f"  batched, unsorted                {n / t_unsorted:10.1f} texts/s   "
          f"runner is {t_unsorted / t_ours:5.2f}x faster")
    print(f"  naive, one at a time             {n / t_naive:10.1f} texts/s   "
          f"runner is {t_naive / t_ours:5.2f}x faster   (vectors agree: {agree})")
    if device == "cpu":
        ceiling = linear_ceiling(model.config, lengths)
        print(f"  ceiling: the encoder's linear layers alone take {ceiling[0]:.2f} GFLOP per "
              f"text; at the fastest fp32 rate measured here ({ceiling[1]:.0f} GFLOP/s, "
              f"{ceiling[2]}) no runner exceeds {ceiling[1] / ceiling[0]:.1f} texts/s, "
              f"{t_naive / n * ceiling[1] / ceiling[0]:.2f}x the naive loop")


# Dense bf16 tensor-core peaks (TFLOP/s, without sparsity) from NVIDIA's data sheets.
GPU_BF16_PEAK_TFLOPS = {"H100 PCIe": 756.0, "H100 NVL": 835.0, "H100": 989.4, "H200": 989.4,
                        "A100": 312.0, "L4": 121.0, "A10": 125.0}


def gpu_peak_tflops(name: str) -> float | None:
    """bf16 dense peak of a GPU named like torch.cuda.get_device_name, if known."""
    for key in sorted(GPU_BF16_PEAK_TFLOPS, key=len, reverse=True):  # "H100 PCIe" first
        if key.lower() in name.lower():
            return GPU_BF16_PEAK_TFLOPS[key]
    return None


def encoder_flops(config, lengths: list[int]) -> float:
    """Matrix-product FLOPs of a BERT-style encoder over texts of these token lengths:
    per layer and token the Q, K, V and output projections (4 h^2 multiply-adds) and the
    feed-forward (2 h i), plus per layer and text the attention scores and the weighted
    values (2 n^2 h). Padding is not counted: it is work, not useful work."""
    h, i, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    n = np.asarray(lengths, dtype=np.float64)
    per_layer = n.sum() * (4 * h * h + 2 * h * i) + (2 * n * n * h).sum()
    return 2.0 * layers * per_layer


def sentence_transformers_encoder(device: str):
    """sentence-transformers over the very weights our runner loads (local folder)."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None, "sentence-transformers is not installed (pip install sentence-transformers)"
    from reference_models.weights import locate_weights
    from reference_models.spec import get_model_spec

    folder = locate_weights(get_model_spec("all-minilm-l6-v2")).path
    model = SentenceTransformer(folder, device=device, local_files_only=True)
    model.max_seq_length = 256
    if device.startswith("cuda"):
        model = model.to(dtype=__import__("torch").bfloat16)  # as our runner on GPU
    return model, folder


def time_breakdown(runner, texts: list[str], max_length: int) -> dict[str, float]:
    """Seconds per stage of one runner.encode-equivalent pass, synchronised per stage."""
    import torch

    from reference_models.neural import _length_sorted_batches, _pad, _pad_id, pool

    cuda = runner.device.type == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    stages = dict.fromkeys(("tokenise", "pad", "host-to-device", "forward", "device-to-host"),
                           0.0)
    start = time.perf_counter()
    token_ids = runner.tokenize(texts, max_length)
    stages["tokenise"] = time.perf_counter() - start
    pad = _pad_id(runner.tokenizer)
    padded = 0
    with torch.inference_mode():
        for batch in _length_sorted_batches([len(t) for t in token_ids], runner.batch_size,
                                            runner.max_batch_tokens):
            t0 = time.perf_counter()
            ids, mask = _pad([token_ids[i] for i in batch], pad, "cpu")
            padded += ids.numel()
            t1 = time.perf_counter()
            ids, mask = ids.to(runner.device), mask.to(runner.device)
            sync()
            t2 = time.perf_counter()
            hidden = runner.model(input_ids=ids, attention_mask=mask).last_hidden_state
            vectors = torch.nn.functional.normalize(
                pool(hidden, mask, runner.settings.pooling).float(), p=2, dim=-1)
            sync()
            t3 = time.perf_counter()
            vectors.cpu().numpy()
            t4 = time.perf_counter()
            stages["pad"] += t1 - t0
            stages["host-to-device"] += t2 - t1
            stages["forward"] += t3 - t2
            stages["device-to-host"] += t4 - t3
    stages["padded-token share"] = 1.0 - sum(len(t) for t in token_ids) / max(padded, 1)
    return stages


def bench_against_sentence_transformers(texts: list[str], label: str, device: str,
                                        repeats: int, batch_size: int,
                                        cpu_peak_gflops: float | None) -> None:
    import torch

    from reference_models.neural import TextEncoder
    from reference_models.spec import get_model_spec

    st_model, note = sentence_transformers_encoder(device)
    runner = TextEncoder(get_model_spec("all-minilm-l6-v2"), device=device,
                         batch_size=batch_size, progress=False)
    max_length = 256
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)

    def ours() -> np.ndarray:
        out = runner.encode(texts, max_length)
        sync()
        return out

    lengths = [len(t) for t in runner.tokenize(texts, max_length)]
    flops = encoder_flops(runner.model.config, lengths)
    t_ours = timed(ours, repeats)
    n = len(texts)
    print(f"MiniLM vs sentence-transformers on {n} {label} ({np.mean(lengths):.0f} tokens on "
          f"average), {device}, batch {batch_size}")
    print(f"  runner                           {n / t_ours:10.1f} texts/s   "
          f"{flops / t_ours / 1e12:8.3f} TFLOP/s")
    if st_model is None:
        print(f"  sentence-transformers: skipped, {note}")
    else:
        def theirs() -> np.ndarray:
            out = st_model.encode(texts, batch_size=batch_size, convert_to_numpy=True,
                                  normalize_embeddings=True, show_progress_bar=False)
            sync()
            return out

        t_st = timed(theirs, repeats)
        agree = np.allclose(ours(), theirs(), atol=1e-4 if device == "cpu" else 3e-2)
        print(f"  sentence-transformers encode     {n / t_st:10.1f} texts/s   "
              f"runner is {t_st / t_ours:5.2f}x faster (target >= 1.5x on GPU; "
              f"vectors agree: {agree})")
    if device.startswith("cuda"):
        peak = gpu_peak_tflops(torch.cuda.get_device_name(0))
        if peak is None:
            print(f"  peak: unknown for {torch.cuda.get_device_name(0)}")
        else:
            print(f"  achieved {flops / t_ours / 1e12:.2f} of {peak:.0f} TFLOP/s bf16 dense "
                  f"peak = {100 * flops / t_ours / 1e12 / peak:.2f}%")
    elif cpu_peak_gflops:
        print(f"  achieved {flops / t_ours / 1e9:.1f} of {cpu_peak_gflops:.0f} GFLOP/s "
              f"(fp32, measured on one of the model's layers) = "
              f"{100 * flops / t_ours / 1e9 / cpu_peak_gflops:.1f}%")
    stages = time_breakdown(runner, texts, max_length)
    share = stages.pop("padded-token share")
    total = sum(stages.values())
    print("  where the runner's time goes: " + ", ".join(
        f"{name} {100 * seconds / total:.1f}%" for name, seconds in stages.items())
        + f" (of {total:.2f} s); padded tokens {100 * share:.1f}% of the batch tokens")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path,
                        default=Path(os.environ.get("LEADERBOARD_DATA", REPO.parent / "shared/data")))
    parser.add_argument("--sample", type=int, default=512, help="tables encoded by MiniLM")
    parser.add_argument("--bm25-sample", type=int, default=10000, help="tables indexed by BM25")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--devices", nargs="+", choices=("cpu", "cuda"),
                        help="where MiniLM is timed (default: cpu, and cuda when available)")
    parser.add_argument("--only-sentence-transformers", action="store_true",
                        help="skip BM25 and the naive loops; time the runner against "
                             "sentence-transformers only")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--write-sample", type=Path, metavar="FILE",
                       help="write the sampled texts to FILE (gzipped JSON) and stop")
    where.add_argument("--sample-file", type=Path, metavar="FILE",
                       help="time the texts --write-sample wrote instead of reading the data")
    args = parser.parse_args(argv)

    if args.sample_file is not None:
        with gzip.open(args.sample_file, "rt", encoding="utf-8") as fh:
            sampled = json.load(fh)
        texts, queries, topics, documents = (sampled[k] for k in (
            "tables", "queries", "topics", "pi_indic_documents"))
    else:
        texts, queries, topics = load_sample(args.data_dir, max(args.sample, args.bm25_sample),
                                             args.seed)
        documents = load_pi_indic_documents(args.data_dir, args.sample, args.seed)
    if args.write_sample is not None:
        sampled = {"tables": texts, "queries": queries, "topics": topics,
                   "pi_indic_documents": documents}
        args.write_sample.write_bytes(gzip.compress(json.dumps(sampled).encode("utf-8")))
        print(f"wrote {args.write_sample}: {len(texts)} tables, {len(queries)} queries, "
              f"{len(topics)} topics, {len(documents)} PI-Indic documents")
        return 0

    import torch

    print(f"machine: {cpu_description()}")
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
    if not args.only_sentence_transformers:
        bench_bm25(texts[:args.bm25_sample], queries, args.repeats)
    samples = (("tables", texts[:args.sample]), ("instructed queries", queries[:args.sample]),
               ("topic-only queries", topics[:args.sample]),
               ("PI-Indic T1 documents", documents))
    devices = args.devices or ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    if "cuda" in devices:
        if not torch.cuda.is_available():
            parser.error("--devices cuda: torch.cuda.is_available() is False")
        print(f"GPU: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    cpu_peak = None
    if "cpu" in devices:
        from reference_models.weights import locate_weights
        from reference_models.spec import get_model_spec
        from transformers import AutoConfig

        config = AutoConfig.from_pretrained(locate_weights(get_model_spec("all-minilm-l6-v2")).path)
        cpu_peak = linear_ceiling(config, [1])[1]
    for device in devices:
        for label, sample in samples:
            if not args.only_sentence_transformers:
                bench_minilm(sample, label, device, args.repeats, args.batch_size)
            bench_against_sentence_transformers(sample, label, device, args.repeats,
                                                args.batch_size, cpu_peak)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if not torch.cuda.is_available():
        print("GPU: torch.cuda.is_available() is False; GPU figures skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
