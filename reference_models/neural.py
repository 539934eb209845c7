"""Transformer runners: bi-encoders, cross-encoders and generative (true/false) rerankers.

All three share the same mechanics: tokenise everything once, sort by token length so a
batch pads to its longest member only, run the model in ``inference_mode``, and put the
results back in input order. Weights are loaded through ``transformers`` Auto classes
from a pinned Hugging Face revision or from a package that ships them offline
(:mod:`reference_models.weights`); bf16 on GPU, fp32 on CPU (per the model's dtype policy).

Scores:
  * bi-encoder: pooled (cls / mean / last-token) and optionally L2-normalised vectors;
    relevance is the dot product (cosine when normalised);
  * cross-encoder: the single relevance logit (or logit(1) - logit(0) for 2-label heads);
  * generative reranker: logit(true) - logit(false) at the first generated position,
    which orders documents exactly as P(true | true or false) does without saturating.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from contextlib import contextmanager
from itertools import chain
from typing import Iterator, Sequence

import numpy as np

from leaderboard.core.report import plural
from reference_models.errors import ReferenceRunError
from reference_models.spec import ModelSpec
from reference_models.weights import load_pretrained, locate_weights, resolved_commit

DeviceChoice = str  # "auto" | "cpu" | "cuda" | "cuda:N"


def resolve_device(choice: DeviceChoice = "auto", local_rank: int = 0):  # -> torch.device
    """``auto`` picks the GPU when torch sees one; under torchrun each rank takes its own."""
    import torch

    if choice not in ("auto", "cpu", "cuda") and not choice.startswith("cuda:"):
        raise ReferenceRunError(f"--device must be auto, cpu or cuda, not {choice!r}")
    if choice == "cpu" or (choice == "auto" and not torch.cuda.is_available()):
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise ReferenceRunError("--device cuda was asked for but torch sees no CUDA device "
                                f"(torch {torch.__version__})")
    if choice.startswith("cuda:"):
        device = torch.device(choice)
    else:
        device = torch.device("cuda", local_rank % torch.cuda.device_count())
    torch.cuda.set_device(device)
    return device


def resolve_dtype(spec: ModelSpec, device):  # -> torch.dtype
    import torch

    name = spec.dtype.cuda if device.type == "cuda" else spec.dtype.cpu
    if name == "bfloat16" and device.type == "cuda" and not torch.cuda.is_bf16_supported():
        name = "float16"  # pre-Ampere GPUs: fp16 is the closest fast type
    return getattr(torch, name)


#: How a runner's linear layers compute: "onednn" (oneDNN's linear kernel, fp32 on CPU) or
#: "aten" (PyTorch's default: MKL BLAS on x86 CPUs, cuBLAS on GPUs). Runners take "auto"
#: (oneDNN wherever it applies) or "aten".
LinearKernels = str


def use_onednn_linears(model) -> LinearKernels:
    """Compute every ``nn.Linear`` of an fp32 CPU model with oneDNN's linear kernel.

    Why: PyTorch's x86 wheels send fp32 ``nn.Linear`` to MKL, and MKL runs its AVX2 code
    on AMD processors, while oneDNN (also inside the wheel) picks its kernels from the
    instruction set the CPU reports. On the AMD EPYC (AVX-512) machines the baselines were
    computed on, a 384x1536 layer over 2,560 tokens ran at 415 GFLOP/s through oneDNN
    against 186 through MKL (2 threads); benchmarks/reference_throughput.py measures the
    whole encoder both ways. The result is the same linear map in fp32; only the summation
    order differs (max |difference| 3e-6 on that layer), and it is the same order on every
    call with the same shapes, so runs stay byte-identical on the same hardware.

    The layers keep their ``weight`` and ``bias`` parameters (tied weights stay tied, the
    state dict keeps its keys). Returns "onednn" when the layers were replaced, "aten" when
    this torch has no usable oneDNN linear kernel (then nothing changes): the op is checked
    against ``torch.nn.functional.linear`` on a probe before any layer is touched.
    """
    import torch

    mkldnn_ops = getattr(torch.ops, "mkldnn", None)
    if not torch.backends.mkldnn.is_available() or not hasattr(mkldnn_ops, "_linear_pointwise"):
        return "aten"
    linear_op = torch.ops.mkldnn._linear_pointwise

    class OneDNNLinear(torch.nn.Module):
        """``nn.Linear`` computed by oneDNN (inference only: the op has no backward)."""

        def __init__(self, layer: torch.nn.Linear) -> None:
            super().__init__()
            self.in_features = layer.in_features
            self.out_features = layer.out_features
            self.weight = layer.weight
            self.bias = layer.bias

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            flat = x.reshape(-1, self.in_features)
            out = linear_op(flat, self.weight, self.bias, "none", [], "")
            return out.reshape(*x.shape[:-1], self.out_features)

        def extra_repr(self) -> str:
            return (f"in_features={self.in_features}, out_features={self.out_features}, "
                    f"bias={self.bias is not None}, kernel=oneDNN")

    with torch.inference_mode():
        probe = torch.nn.Linear(48, 40)
        x = torch.randn(3, 5, 48, generator=torch.Generator().manual_seed(0))
        try:
            got = OneDNNLinear(probe)(x)
        except RuntimeError:  # op present but unsupported on this CPU or build
            return "aten"
        if got.shape != (3, 5, 40) or not torch.allclose(got, probe(x), rtol=1e-4, atol=1e-5):
            return "aten"

    def replace(module: torch.nn.Module) -> None:
        for name, child in module.named_children():
            if type(child) is torch.nn.Linear:  # subclasses (e.g. quantised) stay as they are
                setattr(module, name, OneDNNLinear(child))
            else:
                replace(child)

    replace(model)
    return "onednn"


def is_out_of_memory(exc: BaseException) -> bool:
    """Whether torch raised ``exc`` for memory it could not have: a GPU's
    ``OutOfMemoryError``, or the CPU allocator's RuntimeError (which has no class of its
    own; its message names DefaultCPUAllocator)."""
    import torch

    return isinstance(exc, torch.OutOfMemoryError) or "DefaultCPUAllocator" in str(exc)


def count_parameters(model) -> int:
    return int(sum(p.numel() for p in model.parameters()))


def _length_sorted_batches(lengths: Sequence[int], batch_size: int,
                           max_tokens: int | None = None) -> list[np.ndarray]:
    """Indices grouped into batches of similar length, longest first (so an out-of-memory
    error shows up on the first batch, not after an hour); ties keep input order.

    A batch holds at most ``batch_size`` texts and, when ``max_tokens`` is given, at most
    that many padded tokens (its size times its longest member's length), never fewer
    than one text."""
    order = np.argsort(-np.asarray(lengths, dtype=np.int64), kind="stable")
    batches = []
    start = 0
    while start < len(order):
        size = batch_size
        if max_tokens is not None:  # the first member is the batch's longest
            size = max(1, min(batch_size, max_tokens // max(int(lengths[order[start]]), 1)))
        batches.append(order[start:start + size])
        start += size
    return batches


# CPU batches are capped so that the widest activation of a batch (its padded tokens times
# the model's widest layer, in fp32) stays under glibc's largest mmap threshold (32 MiB
# on 64-bit Linux). Larger blocks are mapped fresh from the kernel on every allocation and
# unmapped on free, and each first touch of their pages is a page fault: with batches of
# 32 FollowTable tables that cost MiniLM 12-16% of its time here.
_CPU_ACTIVATION_BYTES = 24 * 2**20


def cpu_batch_tokens(config) -> int:
    """Most padded tokens per CPU batch for a transformers model config."""
    widths = [getattr(config, name, None) for name in
              ("intermediate_size", "d_ff", "hidden_size", "d_model", "n_inner")]
    widest = max((w for w in widths if isinstance(w, int) and w > 0), default=1024)
    return max(1, _CPU_ACTIVATION_BYTES // (4 * widest))


def keep_freed_memory_for_reuse() -> bool:
    """Let glibc's malloc keep freed blocks of up to 32 MiB for reuse (Linux, glibc).

    Why: glibc maps blocks above its mmap threshold straight from the kernel and returns
    them on free; it raises that threshold on its own only after such a block is freed, and
    gives freed heap memory back to the kernel when more than twice the threshold is free.
    A CPU forward pass allocates and frees the same few large activations on every batch,
    so by default most of them come back as fresh pages, each first touched through a page
    fault. PyTorch's CPU tuning guide recommends jemalloc or tcmalloc for this; the two
    mallopt settings here get the same effect without another library: blocks up to the
    32 MiB maximum come from the heap, and up to 1 GiB of freed heap stays mapped. The
    process keeps that memory until it exits, which a batch run of a model can afford.
    Returns whether the settings were applied.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (e.g. musl has no mallopt)
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3  # from glibc's malloc.h
    return bool(mallopt(m_mmap_threshold, 32 * 2**20)) and bool(
        mallopt(m_trim_threshold, 2**30))


def _pad(sequences: list[list[int]], pad_id: int, device):
    """(ids, attention mask) of token sequences padded on the right to the longest, as
    int64 tensors on ``device``.

    Every token is copied once, into the cells the mask selects row by row, rather than a
    tensor made per row: on an H200, making them took 19-25% of the runner's time at batch
    128 (benchmarks/reference_throughput.py, "pad"). tests/test_reference_models.py holds
    it to the row-by-row construction."""
    import torch

    lengths = np.fromiter(map(len, sequences), dtype=np.int64, count=len(sequences))
    mask = np.arange(int(lengths.max())) < lengths[:, None]
    ids = np.full(mask.shape, pad_id, dtype=np.int64)
    ids[mask] = np.fromiter(chain.from_iterable(sequences), dtype=np.int64,
                            count=int(lengths.sum()))
    return (torch.from_numpy(ids).to(device),
            torch.from_numpy(mask.astype(np.int64)).to(device))


def _pad_id(tokenizer) -> int:
    for candidate in (tokenizer.pad_token_id, tokenizer.eos_token_id, 0):
        if candidate is not None:
            return int(candidate)
    return 0


def _progress(total: int, desc: str, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="text", file=sys.stderr, disable=not enabled,
                dynamic_ncols=True, mininterval=2.0)


class _Runner:
    """Shared loading and bookkeeping of the transformer runners."""

    auto_class = "AutoModel"

    def __init__(self, spec: ModelSpec, device="cpu", batch_size: int | None = None,
                 progress: bool = True, linear_kernels: LinearKernels = "auto") -> None:
        import torch

        if linear_kernels not in ("auto", "aten"):  # checked before loading any weights
            raise ValueError(f"linear_kernels must be 'auto' or 'aten', not {linear_kernels!r}")
        self.spec = spec
        self.device = resolve_device(device) if isinstance(device, str) else device
        self.dtype = resolve_dtype(spec, self.device)
        self.batch_size = batch_size or spec.batch_size
        self.progress = progress
        self.location = locate_weights(spec)
        self.tokenizer, self.model = load_pretrained(self.auto_class, spec, self.location,
                                                     self.device, self.dtype)
        self.parameters = count_parameters(self.model)
        self.max_batch_tokens: int | None = None
        if self.device.type == "cpu":
            self.max_batch_tokens = cpu_batch_tokens(self.model.config)
            keep_freed_memory_for_reuse()
        # "auto": oneDNN for fp32 on CPU where it works; "aten" keeps PyTorch's default.
        self.linear_kernels: LinearKernels = "aten"
        if (linear_kernels == "auto" and self.device.type == "cpu"
                and self.dtype == torch.float32):
            self.linear_kernels = use_onednn_linears(self.model)
        self.revision = resolved_commit(self.location)
        self._torch = torch

    @contextmanager
    def forward_pass(self, inputs: int, longest: int, what: str = "text") -> Iterator[None]:
        """One batch's forward pass (``inputs`` texts or pairs, padded to ``longest``
        tokens), its running out of memory said as what to change: it stopped the run as an
        internal error to report, though a smaller --batch-size is the way out."""
        try:
            yield
        except RuntimeError as exc:
            if not is_out_of_memory(exc):
                raise
            text = str(exc).strip()
            said = text.splitlines()[0][:200] if text else type(exc).__name__
            raise ReferenceRunError(
                f"out of memory on {self.device} in a batch of {plural(inputs, what)} of up "
                f"to {longest} tokens ({said}): lower --batch-size (now {self.batch_size})"
            ) from None

    def cache_config(self) -> dict:
        """Everything that changes this runner's outputs: the cache folder's identity."""
        return {
            "model": self.spec.id,
            "weights": self.location.path if self.spec.package is None else self.spec.package,
            "revision": self.revision,
            "weights_sha256": self.spec.weights_sha256,
            "adapter": self.spec.adapter.model_dump() if self.spec.adapter else None,
            "settings": (self.spec.encoder or self.spec.reranker).model_dump(),  # type: ignore[union-attr]
            "dtype": str(self.dtype),
            "linear_kernels": self.linear_kernels,
            "device_type": self.device.type,
            "runner": type(self).__name__,
        }


class TextEncoder(_Runner):
    """Bi-encoder: texts -> pooled vectors."""

    auto_class = "AutoModel"

    def __init__(self, spec: ModelSpec, device="cpu", batch_size: int | None = None,
                 progress: bool = True, linear_kernels: LinearKernels = "auto") -> None:
        if spec.encoder is None:
            raise ValueError(f"model {spec.id} is not a bi-encoder")
        super().__init__(spec, device, batch_size, progress, linear_kernels)
        self.settings = spec.encoder
        self._eos = self.tokenizer.eos_token_id if self.settings.append_eos else None
        if self.settings.append_eos and self._eos is None:
            raise ValueError(f"model {spec.id}: append_eos is set but the tokenizer has no "
                             "eos token")

    def format_query(self, text: str) -> str:
        return self.settings.query_template.format(text=text)

    def format_document(self, text: str) -> str:
        return self.settings.document_template.format(text=text)

    def tokenize(self, texts: Sequence[str], max_length: int) -> list[list[int]]:
        room = max_length - (1 if self._eos is not None else 0)
        encoded = self.tokenizer(list(texts), truncation=True, max_length=room,
                                 add_special_tokens=True)["input_ids"]
        if self._eos is not None:
            encoded = [ids + [self._eos] if not ids or ids[-1] != self._eos else ids
                       for ids in encoded]
        return encoded

    def encode(self, texts: Sequence[str], max_length: int, desc: str = "encode") -> np.ndarray:
        """Vectors of ``texts`` (float32, input order)."""
        torch = self._torch
        token_ids = self.tokenize(texts, max_length)
        # What the efficiency meter counts (reference_models.efficiency).
        self.last_token_count = sum(len(ids) for ids in token_ids)
        out: np.ndarray | None = None
        pad = _pad_id(self.tokenizer)
        with torch.inference_mode(), _progress(len(texts), desc, self.progress) as bar:
            for batch in _length_sorted_batches([len(t) for t in token_ids], self.batch_size,
                                                self.max_batch_tokens):
                longest = max(len(token_ids[i]) for i in batch)
                with self.forward_pass(len(batch), longest):
                    ids, mask = _pad([token_ids[i] for i in batch], pad, self.device)
                    hidden = self.model(input_ids=ids, attention_mask=mask).last_hidden_state
                    pooled = pool(hidden, mask, self.settings.pooling)
                    if self.settings.normalize:
                        pooled = torch.nn.functional.normalize(pooled.float(), p=2, dim=-1)
                    vectors = pooled.float().cpu().numpy()
                if out is None:
                    out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
                out[batch] = vectors
                bar.update(len(batch))
        return out if out is not None else np.empty((0, 0), dtype=np.float32)


def pool(hidden, mask, how: str):
    """One vector per sequence from token states [B, L, H] and the attention mask [B, L]."""
    import torch

    if how == "cls":
        return hidden[:, 0]
    if how == "mean":
        weights = mask.unsqueeze(-1).to(hidden.dtype)
        summed = (hidden * weights).sum(dim=1)
        return summed / weights.sum(dim=1).clamp(min=1.0)
    if how == "last-token":
        # Right padding: the last real token sits at length - 1.
        last = mask.sum(dim=1) - 1
        return hidden[torch.arange(hidden.shape[0], device=hidden.device), last]
    raise ValueError(f"unknown pooling {how!r}")


class _PairRunner(_Runner):
    """Scores (query, document) pairs."""

    def __init__(self, spec: ModelSpec, device="cpu", batch_size: int | None = None,
                 progress: bool = True, linear_kernels: LinearKernels = "auto") -> None:
        if spec.reranker is None:
            raise ValueError(f"model {spec.id} is not a reranker")
        super().__init__(spec, device, batch_size, progress, linear_kernels)
        self.settings = spec.reranker

    def pair_text(self, query: str, document: str) -> str:
        """The exact model input of a pair, as a string (for cache keys)."""
        raise NotImplementedError

    def tokenize_pairs(self, pairs: Sequence[tuple[str, str]]
                       ) -> tuple[list[list[int]], list[list[int]] | None]:
        """Token ids per pair, and segment (token type) ids when the model uses them."""
        raise NotImplementedError

    def _scores(self, ids, mask, token_types=None):
        raise NotImplementedError

    def score(self, pairs: Sequence[tuple[str, str]], desc: str = "rerank") -> np.ndarray:
        """One float score per pair, input order."""
        torch = self._torch
        token_ids, token_types = self.tokenize_pairs(pairs)
        self.last_token_count = sum(len(ids) for ids in token_ids)
        out = np.empty(len(pairs), dtype=np.float32)
        pad = _pad_id(self.tokenizer)
        with torch.inference_mode(), _progress(len(pairs), desc, self.progress) as bar:
            for batch in _length_sorted_batches([len(t) for t in token_ids], self.batch_size,
                                                self.max_batch_tokens):
                longest = max(len(token_ids[i]) for i in batch)
                with self.forward_pass(len(batch), longest, "pair"):
                    ids, mask = _pad([token_ids[i] for i in batch], pad, self.device)
                    types = None
                    if token_types is not None:
                        types, _ = _pad([token_types[i] for i in batch], 0, self.device)
                    out[batch] = self._scores(ids, mask, types).float().cpu().numpy()
                bar.update(len(batch))
        return out


class CrossEncoder(_PairRunner):
    """Sequence classification over the text pair (query, document)."""

    auto_class = "AutoModelForSequenceClassification"

    def pair_text(self, query: str, document: str) -> str:
        s = self.settings
        return (s.query_template.format(query=query) + "\x1f"
                + s.document_template.format(document=document))

    def tokenize_pairs(self, pairs: Sequence[tuple[str, str]]
                       ) -> tuple[list[list[int]], list[list[int]] | None]:
        s = self.settings
        queries = [s.query_template.format(query=q) for q, _ in pairs]
        documents = [s.document_template.format(document=d) for _, d in pairs]
        encoded = self.tokenizer(queries, documents, truncation="longest_first",
                                 max_length=s.max_length)
        # BERT-style models tell query from document by segment ids; XLM-R has none.
        return encoded["input_ids"], encoded.get("token_type_ids")

    def _scores(self, ids, mask, token_types=None):
        extra = {"token_type_ids": token_types} if token_types is not None else {}
        logits = self.model(input_ids=ids, attention_mask=mask, **extra).logits
        if logits.shape[-1] == 1:
            return logits[:, 0]
        return logits[:, 1] - logits[:, 0]


class _GenerativeRunner(_PairRunner):
    """Prompted LM judged by the logits of its true/false answer tokens."""

    def __init__(self, spec: ModelSpec, device="cpu", batch_size: int | None = None,
                 progress: bool = True, linear_kernels: LinearKernels = "auto") -> None:
        super().__init__(spec, device, batch_size, progress, linear_kernels)
        s = self.settings
        assert s.true_token is not None and s.false_token is not None
        self.true_id = _single_token_id(self.tokenizer, s.true_token, spec.id)
        self.false_id = _single_token_id(self.tokenizer, s.false_token, spec.id)
        if self.true_id == self.false_id:
            raise ValueError(f"model {spec.id}: true and false tokens map to the same id")

    def pair_text(self, query: str, document: str) -> str:
        assert self.settings.prompt is not None
        return self.settings.prompt.format(query=query, document=document)

    def tokenize_pairs(self, pairs: Sequence[tuple[str, str]]
                       ) -> tuple[list[list[int]], list[list[int]] | None]:
        return [fit_prompt(self.tokenizer, self.settings.prompt or "", q, d,
                           self.settings.max_length) for q, d in pairs], None


def _single_token_id(tokenizer, token: str, model_id: str) -> int:
    ids = tokenizer.encode(token, add_special_tokens=False)
    if len(ids) != 1:
        raise ValueError(f"model {model_id}: answer token {token!r} is {len(ids)} tokens "
                         f"({ids}) for this tokenizer; choose a single-token answer")
    return int(ids[0])


def fit_prompt(tokenizer, prompt: str, query: str, document: str, max_length: int) -> list[int]:
    """Token ids of the prompt within ``max_length``, cutting the document, never the
    instructions around it (the answer cue at the end must survive truncation)."""
    ids = tokenizer.encode(prompt.format(query=query, document=document))
    if len(ids) <= max_length:
        return ids
    doc_ids = tokenizer.encode(document, add_special_tokens=False)
    keep = len(doc_ids) - (len(ids) - max_length)
    for _ in range(4):  # decode/re-encode can shift a token or two; shrink until it fits
        if keep <= 0:
            break
        cut = tokenizer.decode(doc_ids[:keep], skip_special_tokens=True)
        ids = tokenizer.encode(prompt.format(query=query, document=cut))
        if len(ids) <= max_length:
            return ids
        keep -= len(ids) - max_length + 2
    # The query alone overflows: keep the prompt's head and its tail (the answer cue).
    ids = tokenizer.encode(prompt.format(query=query, document=""))
    tail_len = min(len(_suffix_after_document(tokenizer, prompt))
                   + len(tokenizer.encode("")), max_length // 2)
    return ids[:max_length - tail_len] + ids[-tail_len:]


def _suffix_after_document(tokenizer, prompt: str) -> list[int]:
    after = prompt.split("{document}", 1)[1] if "{document}" in prompt else ""
    return tokenizer.encode(after.replace("{query}", ""), add_special_tokens=False)


class Seq2SeqReranker(_GenerativeRunner):
    """monoT5-style: encoder reads the prompt, decoder's first step says true or false."""

    auto_class = "AutoModelForSeq2SeqLM"

    def _scores(self, ids, mask, token_types=None):
        torch = self._torch
        start = self.model.config.decoder_start_token_id
        if start is None:
            start = _pad_id(self.tokenizer)
        decoder = torch.full((ids.shape[0], 1), int(start), dtype=torch.long, device=ids.device)
        logits = self.model(input_ids=ids, attention_mask=mask,
                            decoder_input_ids=decoder).logits[:, 0, :]
        return logits[:, self.true_id].float() - logits[:, self.false_id].float()


class CausalReranker(_GenerativeRunner):
    """Decoder LM: the next-token logits after the prompt compare true against false."""

    auto_class = "AutoModelForCausalLM"

    def _scores(self, ids, mask, token_types=None):
        torch = self._torch
        # Right padding: read the hidden state of each row's last real token and project
        # only those through the LM head (full-vocabulary logits for every position of a
        # 2k-token batch would dwarf the model's own activations).
        hidden = self.model.base_model(input_ids=ids, attention_mask=mask).last_hidden_state
        last = mask.sum(dim=1) - 1
        states = hidden[torch.arange(hidden.shape[0], device=hidden.device), last]
        logits = self.model.get_output_embeddings()(states)
        return logits[:, self.true_id].float() - logits[:, self.false_id].float()


RUNNERS: dict[str, type[_Runner]] = {
    "bi-encoder": TextEncoder,
    "cross-encoder": CrossEncoder,
    "seq2seq-reranker": Seq2SeqReranker,
    "causal-reranker": CausalReranker,
}


def load_runner(spec: ModelSpec, device="cpu", batch_size: int | None = None,
                progress: bool = True, linear_kernels: LinearKernels = "auto") -> _Runner:
    try:
        runner_class = RUNNERS[spec.family]
    except KeyError:
        raise ValueError(f"model {spec.id} ({spec.family}) has no transformer runner") from None
    # HF libraries print their own bars on load; keep stderr for ours.
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    return runner_class(spec, device=device, batch_size=batch_size, progress=progress,
                        linear_kernels=linear_kernels)

