"""What a file must hash to, and hashing files in blocks.

Every layer checks files by content: `data pull` against what upstream lists (a git blob
SHA-1 or an LFS SHA-256), the run store and a submission's manifest by SHA-256. The one
implementation lives here, at the bottom, so that none of them reaches up for it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Mapping

# Bytes read at a time when hashing a file.
CHUNK_BYTES = 1 << 20


@dataclass(frozen=True)
class Checksum:
    """What a file must hash to: a git blob SHA-1 or a SHA-256, and its size."""

    algorithm: Literal["git-sha1", "sha256"]
    digest: str
    size: int

    def hasher(self) -> "hashlib._Hash":
        # A git blob id hashes a header with the size first, so the expected size seeds it;
        # a file of another size fails the size check before the digest is compared.
        if self.algorithm == "git-sha1":
            return hashlib.sha1(b"blob %d\0" % self.size)
        return hashlib.sha256()

    def problem(self, size: int, digest: str) -> str | None:
        """Why (size, digest) does not match, or None when it does."""
        if size != self.size:
            return f"size {size} bytes, expected {self.size}"
        if digest != self.digest:
            return f"{self.algorithm} {digest}, expected {self.digest}"
        return None

    def to_json(self) -> dict[str, Any]:
        return {"algorithm": self.algorithm, "digest": self.digest, "size": self.size}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Checksum":
        return cls(algorithm=obj["algorithm"], digest=str(obj["digest"]), size=int(obj["size"]))


def git_blob_sha1(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def file_checksum(path: Path, algorithm: Literal["git-sha1", "sha256"]) -> Checksum:
    size = path.stat().st_size
    h = Checksum(algorithm, "", size).hasher()
    with path.open("rb") as fh:
        while chunk := fh.read(CHUNK_BYTES):
            h.update(chunk)
    return Checksum(algorithm, h.hexdigest(), size)


def sha256_file(path: Path) -> str:
    """The file's SHA-256, hex."""
    return file_checksum(path, "sha256").digest


def file_matches(path: Path, expected: Checksum) -> bool:
    """True when the file exists and has exactly the expected size and digest."""
    try:
        if path.stat().st_size != expected.size:
            return False
        return file_checksum(path, expected.algorithm) == expected
    except OSError:
        return False
