"""A resumable, content-addressed cache of model outputs (embeddings or pair scores).

Each model configuration (weights revision, pooling, lengths, dtype...) gets its own
folder; inside it, every item is keyed by the SHA-256 of exactly what the model saw
(the formatted text and its maximum length). Results are written in chunks, each chunk
an ``.npz`` file written to a temporary name and renamed into place, so an interrupted
run leaves only complete chunks and a rerun encodes only what is missing. Several
processes (data-parallel ranks) may add chunks to the same folder at once: chunk names
are derived from their content, and no file is ever modified after it appears.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from leaderboard.core.config import cache_folder
from leaderboard.core.fileio import atomic_write_bytes, remove_killed_writers

def default_cache_root() -> Path:
    """``embeddings`` under the cache root (:mod:`leaderboard.core.config`)."""
    return cache_folder("embeddings")


def item_key(text: str, max_length: int) -> str:
    """The cache key of one model input: what was encoded and how far it was read."""
    return hashlib.sha256(f"{max_length}\x00{text}".encode("utf-8")).hexdigest()


def config_fingerprint(config: dict) -> str:
    """A short stable hash of a model configuration (canonical JSON)."""
    blob = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


class VectorCache:
    """Vectors by key, stored as immutable chunk files under ``folder``."""

    def __init__(self, folder: Path, config: dict | None = None) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        # A chunk a killed run was writing: a later run may cut its chunks otherwise
        # (another --chunk-size, other ranks, other tasks) and never write that one again.
        remove_killed_writers(self.folder)
        if config is not None:
            # A human-readable record of what the folder holds; identical for every writer.
            manifest = self.folder / "config.json"
            if not manifest.exists():
                atomic_write_bytes(manifest, json.dumps(config, sort_keys=True, indent=2)
                                   .encode("utf-8"))
        self._index: dict[str, tuple[Path, int]] = {}
        self._seen_chunks: set[str] = set()
        self._loaded: dict[Path, np.ndarray] = {}
        self.refresh()

    def refresh(self) -> None:
        """Index chunk files written since the last look (by this or another process)."""
        for path in sorted(self.folder.glob("chunk-*.npz")):
            if path.name in self._seen_chunks:
                continue
            try:
                with np.load(path, allow_pickle=False) as data:
                    keys = data["keys"]
            except (OSError, ValueError, KeyError) as exc:
                raise OSError(f"{path}: unreadable cache chunk ({exc}); delete it to "
                              "recompute its entries") from None
            for row, key in enumerate(keys.tolist()):
                self._index.setdefault(str(key), (path, row))
            self._seen_chunks.add(path.name)

    def __contains__(self, key: str) -> bool:
        return key in self._index

    def __len__(self) -> int:
        return len(self._index)

    def missing(self, keys: Iterable[str]) -> list[str]:
        """Keys not cached yet, first occurrence order, without duplicates."""
        seen: set[str] = set()
        out = []
        for key in keys:
            if key not in self._index and key not in seen:
                seen.add(key)
                out.append(key)
        return out

    def put(self, keys: Sequence[str], vectors: np.ndarray) -> Path:
        """Store one chunk atomically; returns its file."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(keys):
            raise ValueError(f"expected {len(keys)} vectors, got array of shape {vectors.shape}")
        key_array = np.asarray(list(keys), dtype="U64")
        name = hashlib.sha256("\n".join(keys).encode("ascii")).hexdigest()[:24]
        path = self.folder / f"chunk-{name}.npz"
        buffer = _npz_bytes(keys=key_array, vectors=vectors)
        atomic_write_bytes(path, buffer)
        for row, key in enumerate(keys):
            self._index.setdefault(key, (path, row))
        self._seen_chunks.add(path.name)
        return path

    def get(self, keys: Sequence[str]) -> np.ndarray:
        """Vectors of ``keys`` in order; KeyError names how many are missing."""
        absent = [k for k in keys if k not in self._index]
        if absent:
            raise KeyError(f"{len(absent)} of {len(keys)} items are not in the cache "
                           f"{self.folder} (first: {absent[0][:12]}...)")
        by_chunk: dict[Path, list[tuple[int, int]]] = {}
        for position, key in enumerate(keys):
            path, row = self._index[key]
            by_chunk.setdefault(path, []).append((position, row))
        out: np.ndarray | None = None
        for path, pairs in by_chunk.items():
            vectors = self._vectors(path)
            if out is None:
                out = np.empty((len(keys), vectors.shape[1]), dtype=np.float32)
            positions, rows = zip(*pairs)
            out[list(positions)] = vectors[list(rows)]
        if out is None:
            return np.empty((0, 0), dtype=np.float32)
        return out

    def _vectors(self, path: Path) -> np.ndarray:
        if path not in self._loaded:
            with np.load(path, allow_pickle=False) as data:
                self._loaded[path] = data["vectors"]
        return self._loaded[path]


def _npz_bytes(**arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()
