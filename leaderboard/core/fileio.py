"""File I/O shared by the project: atomic writes, reading validated JSON, and the guarded
reader of submitted files.

JSON from outside the project is read by :func:`load_json` and :func:`read_json_model`,
which refuse nesting deeper than :data:`MAX_JSON_DEPTH` before parsing.

Results, runs, prediction files, caches and metadata are written to a temporary file in
the target's folder, flushed to disk, then renamed over the target, so a crash or a full
disk leaves the old file (or none), never a half-written one.

Submitted files (TREC runs, T4 predictions) are read by :func:`read_submitted_bytes`: one
reader for both, which refuses what is not a plain file and a Git LFS pointer, bounds the
size before and after gzip decompression (a gzip bomb is stopped at the limit, never
inflated in full) and inflates concatenated gzip members in linear time.
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, BinaryIO, Callable, TypeVar

from leaderboard.core.refusals import newer_model_version, validation_problem
from leaderboard.core.report import Report, plural

if TYPE_CHECKING:
    # pydantic is imported where a model is read: run parsing (this module's other half)
    # is on the path of a one-task `leaderboard eval`, which never reads one.
    from pydantic import BaseModel

try:  # ISA-L inflates gzip about twice as fast as zlib, and deflates far faster; optional
    from isal import ISAL_VERSION
    from isal import isal_zlib as _gzip_lib
except ImportError:  # pragma: no cover - depends on the environment
    import zlib as _gzip_lib  # type: ignore[no-redef]
    ISAL_VERSION = None
import zlib

# Files the project writes gzipped (the explorer's explanation files) use ISA-L at its
# level 3 where it is installed: on BM25's 28.9 MB of explanation JSON it takes 0.15 CPU-s
# against zlib level 9's 2.24, for 5.08 MB against 4.31 (+18%); zlib level 6 takes 0.82
# for 4.44 MB (benchmarks/explain_compression.py). Scoring a whole submission compresses
# every card (issue 37), a card is fetched gzipped by the browser: a fifteenth of the CPU
# for a sixth more bytes. Readers name such a file by the SHA-256 of what it inflates to,
# never of its bytes, so another writer changes no name; one writer always writes the
# same bytes.
if ISAL_VERSION is not None:
    GZIP_WRITER = f"isal {ISAL_VERSION} level 3"
    _deflate = _gzip_lib.compress
    _DEFLATE_LEVEL = 3
else:  # pragma: no cover - depends on the environment
    GZIP_WRITER = f"zlib {zlib.ZLIB_RUNTIME_VERSION} level 6"
    _deflate = zlib.compress
    _DEFLATE_LEVEL = 6


def gzip_bytes(data: bytes) -> bytes:
    """``data`` as one gzip member with no timestamp, by :data:`GZIP_WRITER`."""
    return _deflate(data, _DEFLATE_LEVEL, wbits=31)


ModelT = TypeVar("ModelT", bound="BaseModel")


def _readable_mode() -> int:
    # mkstemp creates 0600; published files should be readable like any other file.
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def process_gone(pid: int) -> bool:
    """Whether no process has id ``pid`` (a file named after a killed writer may go); a
    process of another user counts as there."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def left_by_gone_process(name: str, prefix: str) -> bool:
    """Whether ``name``, written ``{prefix}{pid}-...`` by the process ``pid``, is what a
    process now gone left behind (a command killed by SIGKILL cannot remove its own)."""
    pid = name[len(prefix):].split("-", 1)[0] if name.startswith(prefix) else ""
    return pid.isdigit() and process_gone(int(pid))


def remove_killed_writers(folder: Path, start: str = ".", suffix: str = ".tmp") -> None:
    """Remove the temporary files :func:`atomic_file` made in ``folder``
    (``{prefix}{name}.{pid}-XXXX{suffix}``), of those whose names begin with ``start``,
    whose writer is gone: one killed between creating its file and renaming it cannot
    remove it, and nothing else would (in results/reported/ or a pull request's report
    folder it was then committed or uploaded with the rest). ``atomic_file`` removes those
    of the file it writes; a folder of files named by their content (a cache's chunks),
    which a later run may never write again under the same name, removes all of its own."""
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if not (name.startswith(start) and name.endswith(suffix)):
                    continue
                writer = name[:len(name) - len(suffix)].rpartition(".")[2]
                if left_by_gone_process(writer, "") and entry.is_file(follow_symlinks=False):
                    os.unlink(entry.path)
    except OSError:
        pass  # removed meanwhile, or not ours to remove: the write goes on


# What a write meets on a full disk or past a quota or size limit: the operating system's
# error names no file ("[Errno 28] No space left on device"), and can only be the
# writer's own, so the writer names what it was writing (:func:`writing_into`).
_OUT_OF_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


@contextmanager
def writing_into(path: Path) -> Iterator[None]:
    """A block that writes ``path`` (a file, or a folder it fills): an out-of-space error
    raised in it that names no file names ``path`` as it goes on (`import mteb --out
    FILE` on a full disk said "No space left on device" and nothing of where)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None and exc.errno in _OUT_OF_SPACE:
            exc.filename = str(path)
        raise


@contextmanager
def atomic_file(path: Path, *, prefix: str = ".", suffix: str = ".tmp",
                durable: bool = True, private: bool = False) -> Iterator[BinaryIO]:
    """A new binary file that replaces ``path`` only if the ``with`` block succeeds.

    The file is created in ``path``'s folder (so the final rename stays on one file
    system) as ``{prefix}{name}.{pid}-XXXX{suffix}``, after removing those of ``path``
    whose writer is gone (killed before it could remove its own); on success it is flushed to disk, made
    readable like any other file and renamed over ``path``; on any error, an interrupt
    included, it is removed and ``path`` is untouched (a full disk's error names ``path``:
    :func:`writing_into`). The handle is opened ``w+b``, so
    the block may rewind and rewrite it (a retried download does). ``durable=False``
    skips the wait for the disk (fsync): for caches, whose reader takes a file a crash
    left empty for a miss, and which may write hundreds of files in one command.
    ``private=True`` keeps the file readable by its owner alone (a cache entry).
    """
    import tempfile  # here: readers of submitted files (`eval`) never write (2-3 ms)

    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir() and not path.is_symlink():
        # The rename would fail with both names, the temporary one first, which the
        # user never made: the folder is named alone, before anything is written.
        raise IsADirectoryError(errno.EISDIR, "a folder, where a file is to be written",
                                str(path))
    stem = f"{prefix}{path.name}."
    remove_killed_writers(path.parent, stem, suffix)
    fd, tmp_name = tempfile.mkstemp(prefix=f"{stem}{os.getpid()}-", suffix=suffix,
                                    dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with writing_into(path), os.fdopen(fd, "w+b") as fh:
            yield fh
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        if not private:
            os.chmod(tmp, _readable_mode())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: Path, data: bytes, *, durable: bool = True,
                       private: bool = False) -> None:
    with atomic_file(path, durable=durable, private=private) as fh:
        fh.write(data)


def atomic_write_text(path: Path, text: str) -> None:
    """UTF-8 text with ``\\n`` line ends, written atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


# JSON nested deeper than this is refused before it is parsed. No file the project reads
# nests more than 10 levels; Python's json module recurses once per level, so a file of
# 100,000 '[' exhausted the interpreter's stack ("internal error (RecursionError)").
MAX_JSON_DEPTH = 64
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_NOT_A_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_NOT_A_QUOTE_OR_BRACKET = bytes(b for b in range(256) if b not in b'"[]{}')


def json_too_deep(data: bytes | str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the JSON text ``data`` nests arrays and objects deeper than ``limit``,
    found without parsing it: brackets inside strings do not count. Linear in the size.

    :func:`json_too_deep_scanned` is the definition. Text with no backslash, as a
    per-query file is, takes a shortcut to the same answer: removing every string with a
    regular expression took as long as parsing the file (75 ms for a 2.2 MB per-query
    file, which `leaderboard build` and `ci pr-check` read for every submission).
    Without a backslash, every quote opens or closes a string in turn. Only the quotes
    and brackets are kept (one ``bytes.translate``), a last quote that opens no string
    is dropped, and each two quotes side by side go (one ``bytes.replace``): an empty
    string, or one string's end and the next one's start with no bracket between them,
    which makes the two one string. What is left is the brackets and the few strings
    that hold one, which the definition's scan then removes.
    tests/test_bounded_inputs.py holds the shortcut to the definition."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    if b"\\" in raw:  # an escaped quote does not end its string
        return json_too_deep_scanned(raw, limit)
    marks = raw.translate(None, _NOT_A_QUOTE_OR_BRACKET)
    if marks.count(b'"') % 2:  # the last quote's string has no end: it is no string
        last = marks.rindex(b'"')
        marks = marks[:last] + marks[last + 1:]
    return json_too_deep_scanned(marks.replace(b'""', b""), limit)


def json_too_deep_scanned(raw: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """:func:`json_too_deep` by its definition: every string removed (an escaped quote
    inside it included; a quote with no closing one starts none), then the brackets left
    counted, depth up at each opening one and down at each closing one."""
    depth = 0
    for byte in _JSON_STRING.sub(b"", raw).translate(None, _NOT_A_BRACKET):
        if byte in b"[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def load_json(data: bytes | str, where: str, error: type[Exception], *,
              line: int | None = None) -> object:
    """``json.loads`` for text from outside the project: raises ``error`` naming ``where``
    (and the line) for invalid UTF-8, invalid JSON and nesting deeper than
    :data:`MAX_JSON_DEPTH` (refused before parsing), never anything else. ``line``: the
    text is that one line of ``where`` (JSON lines)."""
    at = f"{where}:{line}" if line is not None else where
    if json_too_deep(data):
        raise error(f"{at}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(data)
    except UnicodeDecodeError as exc:
        raise error(f"{at}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        number = line if line is not None else exc.lineno
        raise error(f"{where}:{number}: invalid JSON: {exc.msg}") from None
    except ValueError as exc:  # an integer of over 4,300 digits, which int() refuses
        raise error(f"{at}: invalid JSON: {refusal_text(exc)}") from None


def refusal_text(exc: ValueError) -> str:
    """A ValueError of Python's reading of a value (an integer of over 4,300 digits, a
    date with no such day) as a reader is told it, less any advice to the programmer
    (``use sys.set_int_max_str_digits()``), which is not the reader's to take."""
    return str(exc).split("; use sys.")[0]


def read_json_file(path: Path, error: type[Exception]) -> object:
    """A JSON file from outside the project, whole (an importer's upstream result file):
    :func:`load_json` of its text, and a file that cannot be read or is not UTF-8 raises
    ``error`` naming it too."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc}") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return load_json(text, str(path), error)


def read_json_model(path: Path, model: type[ModelT], error: type[Exception], *,
                    what: str = "", max_bytes: int | None = None) -> ModelT:
    """Read a JSON file and validate it as ``model``; every failure raises ``error`` with a
    message naming the file (and the JSON line or the offending key), never a traceback.

    ``what`` names the expected kind of file in schema errors (e.g. "a FollowBoard CI
    report"); ``max_bytes`` refuses oversized files before reading them.
    """
    try:
        if max_bytes is not None:
            size = path.stat().st_size
            if size > max_bytes:
                raise error(f"{path}: {size_text(size)}, over the {size_text(max_bytes)} limit"
                            + (f" of {what}" if what else ""))
        data = path.read_bytes()
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc}") from None
    if json_too_deep(data):
        raise error(f"{path}: JSON nested deeper than {MAX_JSON_DEPTH} levels"
                    + (f": not {what}" if what else ""))
    from pydantic import ValidationError

    try:
        # pydantic parses and validates in one pass, ~3x faster than json.loads followed by
        # model_validate on results files (the site reads one per submission).
        return model.model_validate_json(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            _raise_json_error(path, data, error, first.get("ctx", {}).get("error"))
        newer = newer_model_version(exc.errors(), model)
        if newer is not None:
            raise error(f"{path}: {newer}") from None
        prefix = f"not {what}: " if what else ""
        raise error(f"{path}: {prefix}{validation_problem(first, model)} "
                    f"({plural(exc.error_count(), 'problem')} in all)") from None


def read_yaml_file(path: Path, error: type[Exception]) -> object:
    """A trusted YAML file of the project (a transcription, a registry), parsed safely; a
    read or syntax problem raises ``error`` naming the file and, for syntax, the line."""
    import yaml  # here: most commands never read YAML, and `eval` must not import it

    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise error(f"{path}{line}: invalid YAML: {exc}") from None


def _raise_json_error(path: Path, data: bytes, error: type[Exception],
                      pydantics: str | None = None) -> None:
    """Raise ``error`` naming the line of the JSON (or UTF-8) fault in ``data``.

    Only called on a file pydantic could not parse; Python's own decoder gives the line
    number and message users know from every other JSON tool. Where it accepts the text
    or refuses it with no place (an integer of over 4,300 digits, a plain ValueError that
    stopped `validate` with an internal error), pydantic's reading ``pydantics`` is
    given ("number out of range at line 2 column 4307")."""
    try:
        json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise error(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise error(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    except ValueError as exc:
        pydantics = pydantics or refusal_text(exc)
    raise error(f"{path}: invalid JSON" + (f": {pydantics}" if pydantics else ""))


# --- guarded reading of submitted files --------------------------------------------------

GZIP_MAGIC = b"\x1f\x8b"
# The first bytes of what a submitter may have packed a text file in instead of gzip.
_PACKED = ((b"PK\x03\x04", "a zip archive"), (b"BZh", "compressed with bzip2"),
           (b"\xfd7zXZ\x00", "compressed with xz"), (b"\x28\xb5\x2f\xfd", "compressed with zstd"),
           (b"7z\xbc\xaf\x27\x1c", "a 7z archive"))


def _text_name(shown: str) -> str:
    """The name of the text file ``shown`` (as a message names a submitted file) holds:
    its last part, without its .gz."""
    return PurePosixPath(shown.replace("\\", "/")).name.removesuffix(".gz")


def packed_text(data: bytes, shown: str) -> str | None:
    """What the (inflated) bytes of the file ``shown`` (as a message names it), which
    should be a text file, are packed as, an archive or another compression than gzip,
    and what to do instead ("a zip archive, not a text file: gzip the file itself (gzip
    altered.trec writes altered.trec.gz)", the text file named as ``shown`` names it,
    without its .gz); None when none is known."""
    kind = ("a tar archive" if data[257:262] == b"ustar"  # its header, gzipped or not
            else next((kind for magic, kind in _PACKED if data.startswith(magic)), None))
    name = _text_name(shown)
    return (None if kind is None else f"{kind}, not a text file: gzip the file itself "
                                      f"(gzip {name} writes {name}.gz)")


# A text file saved as UTF-16 (Windows PowerShell 5's > and Out-File write it, with a
# byte-order mark, as Notepad's "Unicode" does): each ASCII character a byte beside a NUL,
# which a UTF-8 reader takes for binary content. The marks, then the side the NULs are on
# in the first characters of a file without one.
_UTF16_MARKS = ((b"\xff\xfe", "UTF-16LE"), (b"\xfe\xff", "UTF-16BE"))
_UTF16_PROBE_CHARS = 32


def utf16_text(data: bytes, shown: str) -> str | None:
    """That the (inflated) bytes of the file ``shown`` (as a message names it), which
    should be UTF-8 text, are UTF-16 text, and how to save them as UTF-8 ("UTF-16 text
    (UTF-16LE), not UTF-8: save it as UTF-8, e.g. iconv ...", the text file named as
    ``shown`` names it, without its .gz); None when they are not."""
    encoding = next((name for mark, name in _UTF16_MARKS if data.startswith(mark)), None)
    if encoding is None:
        head = data[:2 * _UTF16_PROBE_CHARS]
        head = head[:len(head) - len(head) % 2]
        if len(head) >= 4 and 0 not in head[0::2] and not any(head[1::2]):
            encoding = "UTF-16LE"
        elif len(head) >= 4 and 0 not in head[1::2] and not any(head[0::2]):
            encoding = "UTF-16BE"
    if encoding is None:
        return None
    name = _text_name(shown)
    stem, dot, suffix = name.partition(".")
    return (f"UTF-16 text ({encoding}), not UTF-8: save it as UTF-8, e.g. iconv -f "
            f"{encoding} -t UTF-8 {name} > {stem}-utf8{dot}{suffix} (Windows PowerShell 5's "
            "> writes UTF-16: use Out-File -Encoding utf8)")


# What a file committed through Git LFS is in git's objects, and so in a clone without
# git-lfs and to the PR check, which reads the objects: a pointer under 1024 bytes
# beginning with this line (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md).
GIT_LFS_POINTER = b"version https://git-lfs.github.com/spec/"
GIT_LFS_POINTER_MAX_BYTES = 1024
# Line errors listed per submitted file; at the next one the checkers stop reading, as
# NIST's TREC checker does (its check scripts quit after 25): a file wrong on every line
# says so in its first lines, and reading millions more would cost time and memory. 20
# keeps them, the stop notice and a few file-level findings within one report listing
# (leaderboard.core.report lists 25 errors per file).
MAX_LINE_ERRORS = 20
# Compressed input is handed to the inflater in slices that grow (doubling) while one gzip
# member goes on, up to _MAX_SLICE; a member's first slice is sized after the previous
# one. At the end of a member the inflater copies the rest of the slice it was given (its
# ``unused_data``); handing each member the whole rest of the file, as the obvious loop
# does, made a file of many small members quadratic (7.5 MiB: 68 s).
_FIRST_SLICE = 512
_MAX_SLICE = 4 << 20
# A file's first member is handed over whole, up to this size: a one-member file (nearly
# every run) then inflates in one call into one piece, returned as it is. In 4 MiB slices
# each slice's output was copied into the sink, and the sink once more at the end: a
# 15 MB FollowTable run took 205-209 ms to read, 140 ms whole. Larger files go on in
# _MAX_SLICE slices, so the input the inflater copies (its unconsumed or unused rest)
# stays under this size.
_WHOLE_FIRST_MEMBER = 32 << 20
# Output is taken from the inflater at most this much at a time, so that a highly
# compressed slice never sits in memory twice (as one piece and in the sink).
_OUT_STEP = 64 << 20
# Inflated bytes after which a caller's ``enough`` is asked, and how many first bytes
# it sees (read_submitted_bytes).
ENOUGH_AFTER_BYTES = _OUT_STEP
_ENOUGH_HEAD = 64 << 10


def file_kind(path: Path) -> str:
    """What ``path`` is when it is not a regular file, in words ("a folder", "a FIFO")."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return "missing"
    for test, what in ((stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a regular file"


def size_text(n_bytes: int) -> str:
    """A size as every message and page writes one: bytes below 1 KiB, else KiB, MiB or
    GiB with one decimal, none for a whole number of them ("812 bytes", "1.5 KiB",
    "25 MiB", "25.3 MiB"). A limit reads as it is set, and a size just over it does not
    read as the limit ("25.0 MiB, over the 25 MiB limit": whole MiB said "25 MiB")."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n_bytes >= scale:
            if n_bytes % scale == 0:
                return f"{n_bytes // scale:,} {unit}"
            return f"{n_bytes / scale:,.1f} {unit}"
    return plural(n_bytes, "byte")


def read_submitted_bytes(path: Path, display: str, report: Report, *, max_bytes: int,
                         max_compressed_bytes: int,
                         enough: Callable[[bytes], int | None] | None = None) -> bytes | None:
    """The (decompressed) bytes of a submitted file, or None after reporting why not.

    A file starting with the gzip magic bytes is gzip whatever its name; it may be at most
    ``max_compressed_bytes`` on disk and inflate to at most ``max_bytes``; any other file
    may be at most ``max_bytes``. Every refusal names ``display`` and says why.

    ``enough`` lets a checker stop a gzip file early: once the inflated bytes first pass
    :data:`ENOUGH_AFTER_BYTES`, it is given the first 64 KiB of them, and when it returns
    a length, only that many first bytes are returned and the rest is never inflated (a
    file bad from its first lines is refused at the error cap, not after inflating it to
    the limit). No legitimate file comes near: the largest committed run inflates to 47 MB.
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        # A run typed without the .gz it was written with (or with one it lacks).
        twin, twin_shown = ((path.with_name(path.name[:-3]), display[:-3])
                            if path.name.endswith(".gz") and display.endswith(".gz")
                            else (path.with_name(path.name + ".gz"), display + ".gz"))
        meant = f"; did you mean {twin_shown}?" if twin.is_file() else ""
        report.add(display, None, f"file not found{meant}")
        return None
    except OSError as exc:
        report.add(display, None, f"cannot read file: {exc.strerror or exc}")
        return None
    if not path.is_file():
        report.add(display, None, "not a regular file")
        return None
    if size == 0:
        report.add(display, None, "file is empty")
        return None
    try:
        with path.open("rb") as fh:
            head = fh.read(2)
            limit = max_compressed_bytes if head == GZIP_MAGIC else max_bytes
            if size > limit:
                report.add(display, None, f"file is {size_text(size)}, over the "
                                          f"{size_text(limit)} limit")
                return None
            # Read again from the start rather than joined to the head: the join copied
            # the file into a new object, 26 of 30 ms for a 15 MB run (each large
            # object's pages are faulted in afresh).
            fh.seek(0)
            raw = fh.read(size + 1)  # +1: a file that grew is caught
    except OSError as exc:
        report.add(display, None, f"cannot read file: {exc.strerror or exc}")
        return None
    if len(raw) > limit:
        report.add(display, None, f"file is over the {size_text(limit)} limit")
        return None
    if len(raw) < GIT_LFS_POINTER_MAX_BYTES and raw.startswith(GIT_LFS_POINTER):
        report.add(display, 1, "a Git LFS pointer, not the file: nothing here fetches Git "
                               "LFS objects; commit the file itself (`git lfs untrack` its "
                               "pattern, then `git add --renormalize .`)")
        return None
    if raw[:2] != GZIP_MAGIC:
        return raw
    data = gunzip_bounded(raw, max_bytes, display, report, enough)
    if data is not None and not data:
        report.add(display, None, "file is empty (after decompression)")
        return None
    return data


def gunzip_bounded(raw: bytes, max_bytes: int, display: str, report: Report,
                   enough: Callable[[bytes], int | None] | None = None) -> bytes | None:
    """Inflate every gzip member of ``raw`` (``cat a.gz b.gz`` and pigz output are valid
    gzip), never past ``max_bytes`` + 1 bytes of output, in time linear in the input.

    Trailing zero bytes after the last member are tolerated, as gzip(1) does. ``enough``:
    see :func:`read_submitted_bytes`.
    """
    view = memoryview(raw)
    n = len(view)
    # The usual file inflates in one call and its output is returned as is. Otherwise the
    # pieces go to a BytesIO sink, which grows in place and hands its buffer over without
    # a copy: the peak is one file's worth of memory, not the two b"".join() takes.
    first: bytes | None = None
    sink: io.BytesIO | None = None
    total = 0
    step = max(_MAX_SLICE, min(n, _WHOLE_FIRST_MEMBER))  # most often the whole file
    pos = 0  # first byte of ``raw`` not yet handed to an inflater
    while True:
        inflater = _gzip_lib.decompressobj(wbits=31)
        member_start = pos
        chunk_in: bytes | memoryview = view[pos:pos + step]
        pos = min(n, pos + step)
        while True:
            try:
                out = inflater.decompress(chunk_in, min(_OUT_STEP, max_bytes + 1 - total))
            except (zlib.error, _gzip_lib.error) as exc:
                report.add(display, None, f"not a valid gzip file: {exc}")
                return None
            if out:
                if first is None and sink is None:
                    first = out
                else:
                    if sink is None:
                        sink = io.BytesIO()
                        sink.write(first or b"")
                        first = None
                    sink.write(out)
            before = total
            total += len(out)
            del out
            if enough is not None and before < ENOUGH_AFTER_BYTES <= total:
                inflated = memoryview(first or b"") if sink is None else sink.getbuffer()
                try:
                    keep = enough(bytes(inflated[:_ENOUGH_HEAD]))
                    if keep is not None:
                        return bytes(inflated[:keep])
                finally:
                    inflated.release()  # the sink may grow again
            if total > max_bytes:
                report.add(display, None, f"decompresses to over {size_text(max_bytes)}")
                return None
            if inflater.eof:
                # The input this member did not use is the end of what was handed over:
                # step back to it. The next member's first slice is twice this member's
                # size, so small members get small slices and the unused rest the
                # inflater copies at each member's end stays small (handing it the whole
                # rest of the file made many members quadratic).
                pos -= len(inflater.unused_data)
                step = min(max(2 * (pos - member_start), _FIRST_SLICE), _MAX_SLICE)
                break
            if inflater.unconsumed_tail:  # the output step was reached: go on with the rest
                chunk_in = inflater.unconsumed_tail
                continue
            if pos >= n:
                report.add(display, None, "gzip stream is truncated (file cut short?)")
                return None
            step = min(step * 2, _MAX_SLICE)
            chunk_in, pos = view[pos:pos + step], min(n, pos + step)
        if view[pos:pos + 2] == GZIP_MAGIC:
            continue
        if not view[pos:].tobytes().strip(b"\x00"):
            break  # only zero padding (or nothing) is left
        report.add(display, None, "not a valid gzip file: trailing garbage after the "
                                  "compressed data")
        return None
    if sink is not None:
        return sink.getvalue()
    return first if first is not None else b""
