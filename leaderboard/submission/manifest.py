"""``manifest.txt``: every run file of a submission, by SHA-256, size and path.

The manifest is what git keeps of a submission's runs; the files may sit beside it, in
the run store or in the submitter's own dataset (the ``source:`` line). It is read from
strangers' pull requests, so the format is small and strict and every problem is
reported as ``FILE:LINE: message``::

    # Comments and blank lines are ignored.
    format: followboard-manifest/1
    source: hf://datasets/jane/my-runs@0123456789abcdef0123456789abcdef01234567/my-model
    <sha256 of the file>  <size in bytes>  runs/followtable/wtr/original.trec.gz

``format:`` comes first; ``source:`` is optional (without it the files are in the
submission's folder or in the configured store); then one line per file: 64 lower-case
hex digits, the size in bytes, and the path inside the submission folder
(``runs/<task id>/<file>``), separated by spaces or tabs. Each path once. The same limits
bound the files wherever they are (:mod:`leaderboard.submission.layout` declares them).

A results file records the SHA-256 of the inputs it was scored from
(``inputs_sha256``); those digests are taken from the manifest
(:func:`input_digests`), so the two never hold different lists of the same files.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from leaderboard.core.checksums import file_checksum
from leaderboard.core.fileio import atomic_write_text, file_kind, size_text
from leaderboard.core.refusals import newer_version
from leaderboard.core.processes import usable_cpus
from leaderboard.core.report import Report, plural
from leaderboard.store.locations import HubSource, StoreConfigError, parse_source
from leaderboard.submission.layout import (MANIFEST_NAME, MAX_FILE_BYTES, MAX_FILES,
                                           MAX_MANIFEST_BYTES, MAX_PATH_CHARS,
                                           MAX_SUBMISSION_BYTES, METADATA_NAME, NO_LINKS,
                                           RUNS_DIR)

FORMAT_LINE = "followboard-manifest/1"

SHA256_RE = re.compile(r"[0-9a-f]{64}")
# A run path: runs/<task id>/<file>, plain ASCII names (task ids and file names are).
_PATH_PART = re.compile(r"[A-Za-z0-9._-]+")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
HEADER = (
    "# FollowBoard manifest: each run file of this submission by SHA-256, size in bytes\n"
    "# and path. `leaderboard score` writes it; `leaderboard runs pull|push|verify` fetch,\n"
    "# store and check the files it lists.\n")


@dataclass(frozen=True)
class FileEntry:
    """One file: its path inside the submission folder, size and SHA-256."""

    path: str
    size: int
    sha256: str
    line: int | None = None  # where a parsed manifest lists it

    def describe(self) -> str:
        return f"{self.size} bytes, sha256 {self.sha256[:12]}…"


@dataclass
class Manifest:
    entries: dict[str, FileEntry] = field(default_factory=dict)
    source: HubSource | None = None

    @property
    def total_bytes(self) -> int:
        return sum(e.size for e in self.entries.values())


def digest_file(path: Path, rel: str) -> FileEntry:
    """Size and SHA-256 of a local file, read in blocks."""
    checksum = file_checksum(path, "sha256")
    return FileEntry(rel, checksum.size, checksum.digest)


def digest_files(files: Mapping[str, Path]) -> dict[str, FileEntry]:
    """:func:`digest_file` of each file (relative path -> path), in ``files``' order.

    On a thread per usable CPU (at most four): hashing and reading give up the GIL, and a
    whole submission's 111 MB of gzipped runs took 0.15-0.18 s on one thread, before
    any task could start."""
    if len(files) < 2:
        return {rel: digest_file(path, rel) for rel, path in files.items()}
    with ThreadPoolExecutor(max_workers=min(usable_cpus(), 4),
                            thread_name_prefix="digest-runs") as pool:
        entries = pool.map(digest_file, files.values(), files.keys())
        return dict(zip(files.keys(), entries))


def path_problem(path: str) -> str | None:
    """Why ``path`` cannot be a manifest entry (None when it can)."""
    parts = path.split("/")
    if len(path) > MAX_PATH_CHARS:
        return f"path is over {MAX_PATH_CHARS} characters"
    if parts[0] != RUNS_DIR or len(parts) < 3:
        return "path must be runs/<task id>/<file>, e.g. runs/followtable/wtr/original.trec.gz"
    if any(not _PATH_PART.fullmatch(p) or p in (".", "..") for p in parts):
        return ("path must be plain names (letters, digits, '.', '_', '-') separated by "
                "'/', without '.' or '..' parts")
    return None


def parse_manifest(data: bytes, display: str, report: Report,
                   environ: Mapping[str, str] | None = None) -> Manifest | None:
    """The manifest in ``data``, or None after reporting every problem with its line."""
    if len(data) > MAX_MANIFEST_BYTES:
        report.add(display, None, f"{size_text(len(data))}, over the "
                                  f"{size_text(MAX_MANIFEST_BYTES)} limit of a manifest")
        return None
    try:
        # a byte order mark (an editor's UTF-8 with BOM) is no part of the first line, as
        # in the run files and metadata.yaml
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        report.add(display, None, f"not valid UTF-8 (byte {exc.start})")
        return None
    before = len(report.errors)
    manifest = Manifest()
    seen_format = False
    # Lines end at ASCII line breaks only: str.splitlines() also splits at U+2028 and
    # other Unicode separators, which a comment may hold.
    for number, raw in enumerate(_LINE_BREAK.split(text), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, colon, value = line.partition(":")
        if colon and key in ("format", "source"):
            value = value.strip()
            if manifest.entries:
                report.add(display, number, f"{key}: must come before the file lines")
            elif key == "source" and not seen_format:
                report.add(display, number, f"the first line must be 'format: {FORMAT_LINE}'")
                return None
            elif key == "format":
                if seen_format:
                    report.add(display, number, "format: given twice")
                elif value != FORMAT_LINE:
                    report.add(display, number,
                               newer_version("format", value, [FORMAT_LINE])
                               or f"format: {value!r} is not {FORMAT_LINE!r}")
                seen_format = True
            elif manifest.source is not None:
                report.add(display, number, "source: given twice")
            else:
                try:
                    manifest.source = parse_source(value, environ)
                except StoreConfigError as exc:
                    report.add(display, number, str(exc))
            continue
        if not seen_format:
            report.add(display, number, f"the first line must be 'format: {FORMAT_LINE}'")
            return None
        fields = line.split()
        if len(fields) != 3:
            report.add(display, number, "expected '<sha256> <bytes> <path>' (three fields "
                                        f"separated by spaces), got {plural(len(fields), 'field')}")
            continue
        sha, size_text_, path = fields
        problem = path_problem(path)
        if not SHA256_RE.fullmatch(sha):
            problem = "the SHA-256 must be 64 lower-case hexadecimal digits"
        elif not size_text_.isascii() or not size_text_.isdigit():
            problem = f"the size {size_text_!r} is not a whole number of bytes"
        elif len(digits := size_text_.lstrip("0")) > 18:
            # past any file size (an exabyte); int() of over 4,300 digits raises
            problem = (f"the size (a number of {len(digits):,} digits) is over the "
                       f"{size_text(MAX_FILE_BYTES)} limit per file")
        elif int(size_text_) == 0:
            problem = "the size is 0: an empty file is not a run"
        elif int(size_text_) > MAX_FILE_BYTES:
            problem = (f"the file is {size_text(int(size_text_))}, over the "
                       f"{size_text(MAX_FILE_BYTES)} limit per file; compress runs with gzip")
        if problem is None and path in manifest.entries:
            problem = f"{path} is listed twice (first on line {manifest.entries[path].line})"
        if problem is not None:
            report.add(display, number, problem)
            continue
        manifest.entries[path] = FileEntry(path, int(size_text_), sha, number)
    if not seen_format:
        report.add(display, None, f"empty: the first line must be 'format: {FORMAT_LINE}'")
    if len(manifest.entries) > MAX_FILES:
        report.add(display, None, f"{len(manifest.entries):,} files, over the limit "
                                  f"of {MAX_FILES:,}")
    if manifest.total_bytes > MAX_SUBMISSION_BYTES:
        report.add(display, None, f"the files add up to {size_text(manifest.total_bytes)}, "
                                  f"over the {size_text(MAX_SUBMISSION_BYTES)} limit of a "
                                  "submission")
    return manifest if len(report.errors) == before else None


def load_manifest(folder: Path, report: Report, display: str,
                  environ: Mapping[str, str] | None = None) -> Manifest | None:
    """``folder/manifest.txt`` parsed (None when absent or after reporting problems)."""
    path = folder / MANIFEST_NAME
    if path.is_symlink():
        report.add(display, None, NO_LINKS)
        return None
    if not os.path.lexists(path):
        return None
    if not path.is_file():  # a FIFO would block the reader; a folder is no manifest
        report.add(display, None, f"not a regular file ({file_kind(path)}): {MANIFEST_NAME} "
                                  "is a text file")
        return None
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_MANIFEST_BYTES + 1)
    except OSError as exc:
        report.add(display, None, f"cannot read: {exc.strerror or exc}")
        return None
    return parse_manifest(data, display, report, environ)


def format_manifest(manifest: Manifest) -> str:
    """The canonical text: the header, ``format:``, ``source:``, then files by path."""
    lines = [HEADER, f"format: {FORMAT_LINE}\n"]
    if manifest.source is not None:
        lines.append(f"source: {manifest.source.url()}\n")
    lines += [f"{e.sha256}  {e.size}  {e.path}\n"
              for _, e in sorted(manifest.entries.items())]
    return "".join(lines)


def write_manifest(folder: Path, manifest: Manifest) -> Path:
    path = folder / MANIFEST_NAME
    atomic_write_text(path, format_manifest(manifest))
    return path


def input_digests(metadata: FileEntry | None, manifest: Manifest) -> dict[str, str]:
    """What results.json records as ``inputs_sha256``: metadata.yaml's SHA-256 and every
    file of the manifest's, by path (the manifest is the one list of the run files)."""
    out = {METADATA_NAME: metadata.sha256} if metadata is not None else {}
    out.update({path: e.sha256 for path, e in sorted(manifest.entries.items())})
    return out


def run_digests(manifests: Mapping[str, bytes]) -> dict[str, dict[str, str]]:
    """Submission id -> {run path: SHA-256} of each manifest.txt in ``manifests`` (id -> its
    bytes), one unreadable left out: the merged submissions :func:`report_copied_runs`
    compares with."""
    out: dict[str, dict[str, str]] = {}
    for sub_id, data in sorted(manifests.items()):
        manifest = parse_manifest(data, f"{sub_id}/{MANIFEST_NAME}", Report())
        if manifest is not None:
            out[sub_id] = {path: e.sha256 for path, e in manifest.entries.items()}
    return out


def report_copied_runs(sub_id: str, own: Manifest, merged: Mapping[str, Mapping[str, str]],
                       report: Report, listed: int = 5) -> None:
    """Warn, on the submission's folder, once for each merged submission (``merged``: id ->
    {run path: SHA-256}, as its manifest lists them) that has a run file byte for byte one
    of ``own``'s, naming the files: a copy of another system's runs under a new name would
    otherwise be ranked with no word. A warning: a maintainer decides. Files of one
    submission alike (one run for two scripts) are no concern; ``sub_id``'s own merged
    version is not compared."""
    for other, digests in sorted(merged.items()):
        if other == sub_id:
            continue
        paths_of: dict[str, list[str]] = {}
        for path, sha in sorted(digests.items()):
            paths_of.setdefault(sha, []).append(path)
        same = [(path, paths_of[e.sha256][0]) for path, e in sorted(own.entries.items())
                if e.sha256 in paths_of]
        if not same:
            continue
        pairs = ", ".join(mine if mine == theirs else f"{mine} ({theirs})"
                          for mine, theirs in same[:listed])
        hidden = len(same) - listed
        more = f" and {plural(hidden, 'more', 'more')}" if hidden > 0 else ""
        report.add(sub_id, None,
                   f"{plural(len(same), 'run file')} with the same bytes (SHA-256) as the "
                   f"merged submission {other}'s: {pairs}{more}; a copy of its runs under "
                   "another name? A maintainer decides", "warning")
