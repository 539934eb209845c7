"""The run store: manifests, the store setting, and fetching stored files, hostile cases too.

The HTTPS store is tested against a real HTTP server on the loopback address that serves
files as asked: whole, with a byte flipped, cut short, too long, silent, trickling,
redirecting. The Hugging Face dataset store is tested against the fake Hub of
tests/fixtures/fake_upstream.py, the one `leaderboard data pull` is tested with. No test
reaches the network.
"""

from __future__ import annotations

import gzip
import hashlib
import re
import socket
import subprocess
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from huggingface_hub import constants as hf_constants

from fixtures.fake_upstream import (FakeRepo, FakeUpstream, isolate_from_the_network, serve,
                                    serving)
from fixtures.kill import folder_files
from leaderboard.core.config import ENV_RUN_STORE
from leaderboard.core.report import Report
from leaderboard.store.files import StoredRef, StoreError
from leaderboard.submission.explain_writers import Placement, placement
from leaderboard.submission.files import SubmissionFiles
from leaderboard.store.http import HttpLimits
from leaderboard.store.locations import (
    FolderStore,
    HttpsStore,
    HubSource,
    HubStore,
    StoreConfigError,
    configured_store,
    parse_source,
    parse_store,
)
from leaderboard.submission.manifest import (
    FORMAT_LINE,
    Manifest,
    digest_file,
    digest_files,
    format_manifest,
    parse_manifest,
)
from leaderboard.submission.layout import MAX_FILE_BYTES

SUB = "my-model"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
SHA = "a" * 64
FAST = HttpLimits(timeout_s=0.5, min_rate=10**9, retries=1, backoff_s=0.0,
                  sleep=lambda _s: None)


def entry_line(path: str, size: int = 10, sha: str = SHA) -> str:
    return f"{sha}  {size}  {path}\n"


def parsed(text: str) -> tuple[Manifest | None, list[str]]:
    report = Report()
    manifest = parse_manifest(text.encode("utf-8"), f"{SUB}/manifest.txt", report)
    return manifest, report.lines()


# --------------------------------------------------------------------------- the manifest

def test_a_manifest_round_trips_in_its_canonical_form() -> None:
    text = (f"# a comment\n\nformat: {FORMAT_LINE}\nsource: hf://datasets/jane/runs@{COMMIT}/m\n"
            + entry_line("runs/followtable/wtr/original.trec.gz", 123, "b" * 64)
            + entry_line("runs/followtable/wtr/altered.trec.gz", 45, "c" * 64))
    manifest, problems = parsed(text)
    assert problems == [] and manifest is not None
    assert manifest.source == HubSource("jane/runs", COMMIT, "m", manifest.source.endpoint)
    assert manifest.entries["runs/followtable/wtr/altered.trec.gz"].size == 45
    canonical = format_manifest(manifest)
    again, _ = parsed(canonical)
    assert again is not None and format_manifest(again) == canonical
    # Files by path, whatever order they were given in.
    lines = [line for line in canonical.splitlines() if line.startswith(("b", "c"))]
    assert [line.split()[2] for line in lines] == sorted(manifest.entries)


def test_files_digested_on_threads_are_each_file_s_own_digest(tmp_path: Path) -> None:
    # A submission's run files are digested on a thread per CPU; each entry must still be
    # its own file's, under its own name, in the order given.
    files = {}
    for i in range(40):
        path = tmp_path / f"f{i}.trec"
        path.write_bytes(bytes([i]) * (i * 70_001 + 1))
        files[f"runs/t/{39 - i}.trec"] = path
    assert list(digest_files(files).items()) == [
        (rel, digest_file(path, rel)) for rel, path in files.items()]
    one = {"runs/t/x.trec": files["runs/t/0.trec"]}
    assert digest_files(one) == {rel: digest_file(path, rel) for rel, path in one.items()}


@pytest.mark.parametrize(("line", "message"), [
    (entry_line("runs/followtable/wtr/x.trec", sha="A" * 64),
     "the SHA-256 must be 64 lower-case hexadecimal digits"),
    (entry_line("runs/followtable/wtr/x.trec").replace("  10  ", "  1e3  "),
     "the size '1e3' is not a whole number of bytes"),
    (entry_line("runs/followtable/wtr/x.trec", size=0), "the size is 0"),
    (entry_line("runs/followtable/wtr/x.trec", size=MAX_FILE_BYTES + 1),
     "over the 25 MiB limit per file"),
    # int() of over 4,300 digits raises: validate stopped with an internal error
    (entry_line("runs/followtable/wtr/x.trec").replace("  10  ", "  " + "9" * 5000 + "  "),
     "the size (a number of 5,000 digits) is over the 25 MiB limit per file"),
    (entry_line("runs/../../etc/passwd"), "without '.' or '..' parts"),
    (entry_line("metadata.yaml"), "path must be runs/<task id>/<file>"),
    (f"{SHA} 10\n", "expected '<sha256> <bytes> <path>'"),
    (f"source: hf://datasets/jane/runs@{COMMIT}\n", "source: must come before the file lines"),
])
def test_a_bad_manifest_line_is_named_with_its_number(line: str, message: str) -> None:
    manifest, problems = parsed(f"format: {FORMAT_LINE}\n"
                                + entry_line("runs/followtable/wtr/original.trec") + line)
    assert manifest is None
    assert len(problems) == 1 and problems[0].startswith(f"{SUB}/manifest.txt:3: "), problems
    assert message in problems[0]


@pytest.mark.parametrize(("source", "message"), [
    ("hf://datasets/jane/runs@main", "revision 'main' is not a commit id; a branch or tag can "
                                     "move after the files were checked"),
    ("https://evil.example/runs", "is outside the configured store: a manifest may name only "
                                  "a Hugging Face dataset at a commit"),
    ("hf://datasets/jane/runs", "names no commit"),
    (f"hf://datasets/jane/runs@{COMMIT}/../../x", "must be plain names"),
])
def test_a_bad_source_is_refused_on_its_line(source: str, message: str) -> None:
    manifest, problems = parsed(f"format: {FORMAT_LINE}\nsource: {source}\n"
                                + entry_line("runs/followtable/wtr/original.trec"))
    assert manifest is None
    assert len(problems) == 1 and problems[0].startswith(f"{SUB}/manifest.txt:2: "), problems
    assert message in problems[0]


def test_manifest_structure_errors() -> None:
    _, problems = parsed(entry_line("runs/followtable/wtr/original.trec"))
    assert problems == [f"{SUB}/manifest.txt:1: the first line must be 'format: {FORMAT_LINE}'"]
    _, problems = parsed("# only a comment\n")
    assert problems == [f"{SUB}/manifest.txt: empty: the first line must be "
                        f"'format: {FORMAT_LINE}'"]
    twice = entry_line("runs/followtable/wtr/original.trec")
    _, problems = parsed(f"format: {FORMAT_LINE}\n{twice}{twice}")
    assert problems == [f"{SUB}/manifest.txt:3: runs/followtable/wtr/original.trec is listed "
                        "twice (first on line 2)"]
    _, problems = parsed("format: followboard-manifest/0\n")
    assert "is not 'followboard-manifest/1'" in problems[0]
    # One a newer FollowBoard writes says so, and to update (it said only "is not").
    _, problems = parsed("format: followboard-manifest/9\n")
    assert problems == [f"{SUB}/manifest.txt:1: format followboard-manifest/9 is newer than "
                        "this version of FollowBoard reads (format followboard-manifest/1); "
                        "update FollowBoard to read it"]
    report = Report()
    assert parse_manifest(b"\xff\xfe", "m.txt", report) is None
    assert report.lines() == ["m.txt: not valid UTF-8 (byte 0)"]


def test_a_byte_order_mark_before_the_format_line_is_ignored() -> None:
    # An editor that saves UTF-8 with a BOM (Notepad) made a manifest's visible first
    # line 'format: followboard-manifest/1' refused as "the first line must be 'format:
    # ...'"; it is read as the run files and metadata.yaml are, the mark ignored.
    text = f"format: {FORMAT_LINE}\n" + entry_line("runs/followtable/wtr/original.trec")
    manifest, problems = parsed("\ufeff" + text)
    assert problems == [] and manifest is not None
    assert manifest.entries == parsed(text)[0].entries
    _, problems = parsed(f"format: {FORMAT_LINE}\n\ufeff" + entry_line("runs/t/x.trec"))
    assert problems and problems[0].startswith(f"{SUB}/manifest.txt:2: ")  # only first


def test_manifest_size_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    from leaderboard.submission import manifest as module

    report = Report()
    huge = b"#" * (module.MAX_MANIFEST_BYTES + 1)
    assert parse_manifest(huge, "m.txt", report) is None
    assert "over the 256 KiB limit of a manifest" in report.lines()[0]
    monkeypatch.setattr(module, "MAX_FILES", 2)
    monkeypatch.setattr(module, "MAX_SUBMISSION_BYTES", 25)
    text = f"format: {FORMAT_LINE}\n" + "".join(
        entry_line(f"runs/followtable/wtr/f{i}.trec", 10) for i in range(3))
    _, problems = parsed(text)
    assert problems == [f"{SUB}/manifest.txt: 3 files, over the limit of 2",
                        f"{SUB}/manifest.txt: the files add up to 30 bytes, over the 25 bytes "
                        "limit of a submission"]


# --------------------------------------------------------------------------- the setting

def test_the_store_setting_and_where_it_comes_from(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_RUN_STORE, raising=False)
    project = tmp_path / "project"
    (project / "submissions" / SUB).mkdir(parents=True)
    # No configuration: the folder itself.
    assert configured_store(project) == FolderStore(project.resolve())
    (project / "pyproject.toml").write_text('[tool.followboard]\nrun-store = "../mirror"\n')
    inner = project / "submissions" / SUB
    assert configured_store(inner) == FolderStore(project.resolve() / ".." / "mirror")
    (project / "pyproject.toml").write_text(
        '[tool.followboard]\nrun-store = "hf://datasets/org/runs"\n')
    store = configured_store(inner)
    assert isinstance(store, HubStore) and store.repo == "org/runs"
    # The environment variable wins.
    monkeypatch.setenv(ENV_RUN_STORE, "https://mirror.example/files/{path}?download=1")
    store = configured_store(inner)
    assert isinstance(store, HttpsStore)
    assert store.url("submissions/x/runs/a b.trec") == \
        "https://mirror.example/files/submissions%2Fx%2Fruns%2Fa%20b.trec?download=1"
    monkeypatch.setenv(ENV_RUN_STORE, "https://mirror.example/root/")
    assert configured_store(inner).url("submissions/x/r") == \
        "https://mirror.example/root/submissions/x/r"
    monkeypatch.delenv(ENV_RUN_STORE)
    (project / "pyproject.toml").write_text('[tool.followboard]\nrun-store = 3\n')
    with pytest.raises(StoreConfigError, match=r"pyproject.toml: \[tool.followboard\] "
                                               "run-store must be a string"):
        configured_store(inner)


@pytest.mark.parametrize(("value", "message"), [
    ("http://example.org/runs", "plain http is accepted for the loopback address only"),
    ("hf://datasets/org/runs@main", "name the repository without a revision"),
    ("hf://models/org/runs", "only dataset repositories"),
    ("s3://bucket/runs", "a run store is a folder"),
    ("https://example.org/{path}/{+path}", "use one {+path} or {path} placeholder"),
    ("hf://datasets/org/../runs", "not a Hugging Face repository id"),
])
def test_a_bad_store_setting_is_refused_naming_where_it_was_set(value: str, message: str) -> None:
    with pytest.raises(StoreConfigError) as info:
        parse_store(value, Path("."), "$LEADERBOARD_RUN_STORE")
    assert str(info.value).startswith("$LEADERBOARD_RUN_STORE: ") and message in str(info.value)


def test_a_source_is_a_dataset_at_a_commit_on_the_configured_hub() -> None:
    source = parse_source(f"hf://datasets/jane/runs@{COMMIT}/a/b",
                          {"LEADERBOARD_HF_ENDPOINT": "http://127.0.0.1:9/hf"})
    assert source.download_url("runs/x y.trec") == \
        f"http://127.0.0.1:9/hf/datasets/jane/runs/resolve/{COMMIT}/a/b/runs/x%20y.trec"
    for bad in (f"hf://datasets/jane/runs@{COMMIT[:12]}", "hf://datasets/jane/runs@v1.0",
                f"hf://datasets/jane/runs@{COMMIT}/../x", "file:///etc/passwd",
                f"http://127.0.0.1/hf/datasets/jane/runs@{COMMIT}"):
        with pytest.raises(StoreConfigError):
            parse_source(bad)


# --------------------------------------------------------------------------- a loopback store

class StoreServer:
    """Files by URL path, each served as ``modes`` says (default: whole)."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.modes: dict[str, str] = {}
        self.requests: list[str] = []
        self.base = ""

    def handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            timeout = 5

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                path = self.path.split("?")[0]
                server.requests.append(path)
                mode = server.modes.get(path, "whole")
                data = server.files.get(path)
                try:
                    if mode.startswith("redirect:"):
                        self.send_response(302)
                        self.send_header("Location", mode[len("redirect:"):])
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    if mode == "status:503":
                        server.modes[path] = "whole"  # once: a retry gets the file
                        self.send_error(503)
                        return
                    if data is None or mode == "missing":
                        self.send_error(404)
                        return
                    if mode == "silent":
                        time.sleep(2)
                        return
                    if mode == "corrupt":
                        data = data[:-1] + bytes([data[-1] ^ 1])
                    if mode == "longer":
                        data = data + b"x" * 4096
                    self.send_response(200)
                    if mode != "no-length":
                        self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if mode == "truncate":
                        self.wfile.write(data[: len(data) // 2])
                        self.wfile.flush()
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return
                    if mode == "trickle":
                        for byte in data:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(0.1)
                        return
                    if mode == "no-length":
                        self.wfile.write(data + b"y" * 4096)
                        return
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler


@pytest.fixture
def https_store(monkeypatch: pytest.MonkeyPatch) -> Iterator[StoreServer]:
    isolate_from_the_network(monkeypatch)
    store = StoreServer()
    with serving(store.handler()) as base:
        store.base = base
        yield store


RUN = "runs/followtable/wtr/original.trec.gz"
CONTENT = gzip.compress(b"".join(b"0 Q0 %d %d %d.0 t\n" % (d, r, 100 - r)
                                 for r, d in enumerate(range(40), 1)), mtime=0)
REF = StoredRef(RUN, len(CONTENT), hashlib.sha256(CONTENT).hexdigest())


def store_files(server: StoreServer, cache: Path, source: HubSource | None = None
                ) -> SubmissionFiles:
    server.files[f"/store/submissions/{SUB}/{RUN}"] = CONTENT
    return SubmissionFiles(SUB, None, source, HttpsStore(f"{server.base}/store/{{+path}}"),
                           cache=cache, limits=FAST)


def leftovers(cache: Path) -> list[Path]:
    return [p for p in cache.rglob("*") if p.is_file()]


def test_an_https_store_file_is_fetched_verified_and_cached_once(https_store: StoreServer,
                                                                tmp_path: Path) -> None:
    files = store_files(https_store, tmp_path / "cache")
    path = files.locate(REF)
    assert path.read_bytes() == CONTENT
    assert path == tmp_path / "cache" / "sha256" / REF.sha256[:2] / REF.sha256
    assert files.locate(REF) == path
    assert https_store.requests == [f"/store/submissions/{SUB}/{RUN}"]  # the second: cached
    # A damaged cache entry is not trusted: it is fetched again.
    path.write_bytes(b"damaged")
    assert files.locate(REF).read_bytes() == CONTENT
    assert len(https_store.requests) == 2


@pytest.mark.parametrize(("mode", "message"), [
    ("corrupt", "does not match: its sha256 is"),
    ("truncate", "the connection closed after"),
    ("longer", "announces 4"),
    ("no-length", "the store sent more than the"),
    ("silent", "no answer in time"),
    ("trickle", "too slow"),
    ("missing", "not found (HTTP 404)"),
    ("redirect:file:///etc/passwd", "redirected to another scheme (file:)"),
    ("redirect:ftp://127.0.0.1/x", "redirected to another scheme (ftp:)"),
])
def test_a_hostile_https_store_is_refused_and_nothing_is_kept(
        https_store: StoreServer, tmp_path: Path, mode: str, message: str) -> None:
    cache = tmp_path / "cache"
    files = store_files(https_store, cache)
    https_store.modes[f"/store/submissions/{SUB}/{RUN}"] = mode
    started = time.monotonic()
    with pytest.raises(StoreError) as info:
        files.locate(REF)
    assert time.monotonic() - started < 5, "bounded in time"
    assert str(info.value).startswith(f"{SUB}/{RUN}: "), str(info.value)
    assert message in str(info.value)
    assert leftovers(cache) == []


def test_redirects_within_the_scheme_are_followed_and_retries_fix_a_5xx(
        https_store: StoreServer, tmp_path: Path) -> None:
    files = store_files(https_store, tmp_path / "cache")
    https_store.files["/elsewhere"] = CONTENT
    https_store.modes[f"/store/submissions/{SUB}/{RUN}"] = \
        f"redirect:{https_store.base.replace('127.0.0.1', 'localhost')}/elsewhere"
    assert files.locate(REF).read_bytes() == CONTENT
    files.locate(REF).unlink()
    https_store.modes[f"/store/submissions/{SUB}/{RUN}"] = "status:503"
    assert files.locate(REF).read_bytes() == CONTENT


def test_an_unreachable_store_is_one_clear_error(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    files = SubmissionFiles(SUB, None, None, HttpsStore(f"http://127.0.0.1:{port}/{{+path}}"),
                            cache=tmp_path / "cache", limits=FAST)
    with pytest.raises(StoreError, match=rf"^{SUB}/{RUN}: cannot reach the store at "
                                         rf"http://127.0.0.1:{port}/submissions/{SUB}/{RUN} "):
        files.locate(REF)
    assert leftovers(tmp_path / "cache") == []


def test_a_file_over_its_listed_size_is_never_written_past_it(https_store: StoreServer,
                                                             tmp_path: Path) -> None:
    """A store that sends a gigabyte where the manifest says 4 KiB is stopped at 4 KiB."""
    files = store_files(https_store, tmp_path / "cache")
    https_store.files[f"/store/submissions/{SUB}/{RUN}"] = CONTENT * 2000
    https_store.modes[f"/store/submissions/{SUB}/{RUN}"] = "no-length"
    with pytest.raises(StoreError, match=f"the store sent more than the {REF.size} bytes"):
        files.locate(REF)


# --------------------------------------------------------------------------- folders

def test_a_folder_store_and_the_submissions_own_folder(tmp_path: Path) -> None:
    store = FolderStore(tmp_path / "store")
    target = tmp_path / "store" / "submissions" / SUB / RUN
    target.parent.mkdir(parents=True)
    target.write_bytes(CONTENT)
    folder = tmp_path / "repo" / "submissions" / SUB
    folder.mkdir(parents=True)
    files = SubmissionFiles(SUB, folder, None, store, cache=tmp_path / "cache")
    assert files.locate(REF) == target
    assert files.link(RUN) is None  # a folder store is linked through the repository
    # A copy in the submission's own folder is used first, and checked like any other.
    (folder / RUN).parent.mkdir(parents=True)
    (folder / RUN).write_bytes(CONTENT[:-1] + bytes([CONTENT[-1] ^ 1]))
    with pytest.raises(StoreError, match=r"the copy in the submission's folder .* does not "
                                         r"match: its sha256 is"):
        files.locate(REF)
    target.unlink()
    (folder / RUN).unlink()
    with pytest.raises(StoreError, match=r"the file is missing \(not in the submission's "
                                         r"folder; not in the folder .*store\)"):
        files.locate(REF)


@pytest.mark.parametrize("layout", ["no store set", "the repository's folder store"])
def test_a_missing_file_of_a_folder_that_is_its_own_store_names_the_folder_once(
        tmp_path: Path, layout: str) -> None:
    """Where no store is set (the store is the folder itself) or the store is the
    repository holding the folder, a missing file read 'not in the submission's folder;
    not in the folder <that same folder>', as if two places had been searched."""
    if layout == "no store set":
        folder = tmp_path / SUB
        store = FolderStore(folder)
    else:
        folder = tmp_path / "repo" / "submissions" / SUB
        store = FolderStore(tmp_path / "repo")
    folder.mkdir(parents=True)
    files = SubmissionFiles(SUB, folder, None, store, cache=tmp_path / "cache")
    with pytest.raises(StoreError) as caught:
        files.locate(REF)
    assert str(caught.value) == (f"{SUB}/{RUN}: the file is missing "
                                 "(not in the submission's folder)")


def test_a_hub_store_without_a_source_says_the_files_were_never_pushed(tmp_path: Path) -> None:
    files = SubmissionFiles(SUB, None, None, HubStore("org/runs", "https://huggingface.co"),
                            cache=tmp_path / "cache")
    with pytest.raises(StoreError, match=r"its manifest names no source: the file was never "
                                         r"pushed to hf://datasets/org/runs"):
        files.locate(REF)


def test_gzip_refs_are_named_by_their_content(tmp_path: Path) -> None:
    content = b'{"format":"x"}\n' * 50
    stored = tmp_path / "per-query.json.gz"
    stored.write_bytes(gzip.compress(content, mtime=0))
    ref = StoredRef("per-query.json.gz", len(content), hashlib.sha256(content).hexdigest(),
                    gzip=True)
    files = SubmissionFiles(SUB, tmp_path, None, FolderStore(tmp_path), cache=tmp_path / "c")
    assert files.read(ref) == content
    # Another compressor's bytes for the same content are the same file.
    stored.write_bytes(gzip.compress(content, compresslevel=1, mtime=12345))
    assert files.read(ref) == content
    # A bomb stops at the content's size.
    stored.write_bytes(gzip.compress(content + b"\0" * 10**6, mtime=0))
    with pytest.raises(StoreError, match="decompresses to over"):
        files.read(ref)


# --------------------------------------------------------------------------- the Hub

@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeUpstream]:
    isolate_from_the_network(monkeypatch)
    up = FakeUpstream(lfs_suffixes=(".parquet", ".gz"))
    root = tmp_path / "hub-jane-runs"
    (root / "my-model" / "runs" / "followtable" / "wtr").mkdir(parents=True)
    (root / "my-model" / RUN).write_bytes(CONTENT)
    up.hf["jane/runs"] = FakeRepo(root, COMMIT)
    with serve(up, monkeypatch):
        yield up


def hub_source(up: FakeUpstream) -> HubSource:
    return parse_source(f"hf://datasets/jane/runs@{COMMIT}/my-model")


def test_a_file_in_a_submitters_dataset_is_read_at_its_commit(hub: FakeUpstream,
                                                              tmp_path: Path) -> None:
    files = SubmissionFiles(SUB, None, hub_source(hub), FolderStore(tmp_path / "none"),
                            cache=tmp_path / "cache", limits=FAST)
    assert files.locate(REF).read_bytes() == CONTENT
    # The Hub answers an LFS file with a redirect to its CDN, another host, same scheme.
    assert f"/hf/datasets/jane/runs/resolve/{COMMIT}/my-model/{RUN}" in hub.requests
    assert any(r.startswith("/cdn/jane/runs/") for r in hub.requests)
    assert files.link(RUN) == f"{hub.base}/hf/datasets/jane/runs/blob/{COMMIT}/my-model/{RUN}"


def test_a_hub_file_that_does_not_match_is_refused(hub: FakeUpstream, tmp_path: Path) -> None:
    hub.corrupt.add(f"my-model/{RUN}")
    files = SubmissionFiles(SUB, None, hub_source(hub), FolderStore(tmp_path / "none"),
                            cache=tmp_path / "cache", limits=FAST)
    with pytest.raises(StoreError, match=rf"^{SUB}/{RUN}: the store's copy at .*/cdn/jane/runs/"
                                         r".* does not match: its sha256 is .*nothing was kept"):
        files.locate(REF)
    assert leftovers(tmp_path / "cache") == []
    other = parse_source(f"hf://datasets/jane/runs@{'f' * 40}/my-model")
    files = SubmissionFiles(SUB, None, other, FolderStore(tmp_path / "none"),
                            cache=tmp_path / "cache", limits=FAST)
    with pytest.raises(StoreError, match=r"not found \(HTTP 404\)"):
        files.locate(REF)


def test_hub_reads_respect_the_offline_switch(hub: FakeUpstream, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", True)
    files = SubmissionFiles(SUB, None, hub_source(hub), FolderStore(tmp_path / "none"),
                            cache=tmp_path / "cache", limits=FAST)
    with pytest.raises(StoreError, match="HF_HUB_OFFLINE is set"):
        files.locate(REF)
    assert hub.requests == []


def test_an_https_mirror_is_tried_before_the_source(hub: FakeUpstream,
                                                    https_store: StoreServer,
                                                    tmp_path: Path) -> None:
    """A mirror (the configured store) serves what it has; the source, what it lacks."""
    files = SubmissionFiles(SUB, None, hub_source(hub),
                            HttpsStore(f"{https_store.base}/mirror/{{+path}}"),
                            cache=tmp_path / "cache", limits=FAST)
    assert files.locate(REF).read_bytes() == CONTENT
    assert https_store.requests == [f"/mirror/submissions/{SUB}/{RUN}"]  # a 404 there
    assert hub.requests  # then the source


# --------------------------------------------------------------------------- whole submissions

WTR = "followtable/wtr"


@pytest.fixture(scope="module")
def carried(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    """A WTR submission carrying its runs, scored: what a store-backed one must equal."""
    from fixtures.submission import make_submission
    from leaderboard.core.data import load_task_data
    from leaderboard.submission.pipeline import score_submission
    from leaderboard.benchmarks.registry import get_task

    folder = tmp_path_factory.mktemp("carried") / "submissions" / SUB
    make_submission(folder, {WTR: load_task_data(get_task(WTR), data_dir)}, docs_per_query=30)
    outcome = score_submission(folder, data_dir, store=FolderStore(folder.parent.parent),
                               after_merge=True)
    assert outcome.results_path is not None, outcome.report.lines()
    return folder


def stored_copy(carried: Path, dest: Path, source: str | None = None) -> Path:
    """The submission as git holds it with an external store: metadata and manifest only
    (plus a source line)."""
    folder = dest / "submissions" / SUB
    folder.mkdir(parents=True)
    for name in ("metadata.yaml", "manifest.txt"):
        (folder / name).write_bytes((carried / name).read_bytes())
    if source is not None:
        text = (folder / "manifest.txt").read_text()
        (folder / "manifest.txt").write_text(text.replace(
            f"format: {FORMAT_LINE}\n", f"format: {FORMAT_LINE}\nsource: {source}\n"))
    return folder


def stored_files(carried: Path) -> dict[str, bytes]:
    """The files a store keeps: the runs, and the scorer's per-query and explanation files."""
    return {p.relative_to(carried).as_posix(): p.read_bytes()
            for p in carried.rglob("*") if p.is_file()
            and (p.name == "per-query.json.gz"
                 or p.relative_to(carried).parts[0] in ("runs", "explain"))}


def explanation_files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in (folder / "explain").rglob("*") if p.is_file()}


def same_results(carried: Path, folder: Path) -> None:
    from leaderboard.submission.results import canonical_json, read_results

    for name in ("results.json", "manifest.txt"):
        assert (folder / name).read_bytes() == (carried / name).read_bytes(), name
    assert gzip.decompress((folder / "per-query.json.gz").read_bytes()) == \
        gzip.decompress((carried / "per-query.json.gz").read_bytes())
    whole = read_results(folder / "results.json")
    assert canonical_json(whole.model_dump(mode="json", exclude_none=True)) == canonical_json(
        read_results(carried / "results.json").model_dump(mode="json", exclude_none=True))
    assert whole.systems[0].tasks[WTR].per_query["IRS"]
    # The query explorer's files too, byte for byte (results.json names their manifest).
    assert explanation_files(folder) == explanation_files(carried)
    assert whole.explain_manifest is not None


@pytest.mark.parametrize("kind", ["folder", "https", "hub"])
def test_a_submission_whose_runs_are_in_a_store_scores_exactly_as_one_carrying_them(
        kind: str, carried: Path, data_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    from leaderboard.submission.pipeline import check_submission, score_submission

    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "cache"))
    files = stored_files(carried)
    if kind == "folder":
        store = FolderStore(tmp_path / "store")
        for rel, data in files.items():
            (tmp_path / "store" / "submissions" / SUB / rel).parent.mkdir(parents=True,
                                                                           exist_ok=True)
            (tmp_path / "store" / "submissions" / SUB / rel).write_bytes(data)
        folder = stored_copy(carried, tmp_path / "repo")
    elif kind == "https":
        server: StoreServer = request.getfixturevalue("https_store")
        for rel, data in files.items():
            server.files[f"/s/submissions/{SUB}/{rel}"] = data
        store = HttpsStore(f"{server.base}/s/{{+path}}")
        folder = stored_copy(carried, tmp_path / "repo")
    else:
        up: FakeUpstream = request.getfixturevalue("hub")
        for rel, data in files.items():
            (up.hf["jane/runs"].root / "my-model" / rel).parent.mkdir(parents=True,
                                                                       exist_ok=True)
            (up.hf["jane/runs"].root / "my-model" / rel).write_bytes(data)
        store = FolderStore(tmp_path / "empty")
        folder = stored_copy(carried, tmp_path / "repo",
                             f"hf://datasets/jane/runs@{COMMIT}/my-model")
    before = sorted(p.name for p in folder.iterdir())
    outcome = check_submission(folder, data_dir, score=False, store=store)
    assert outcome.report.ok, outcome.report.lines()
    assert sorted(p.name for p in folder.iterdir()) == before  # validating writes nothing
    outcome = score_submission(folder, data_dir, store=store, after_merge=True)
    assert outcome.report.ok, outcome.report.lines()
    if kind == "hub":
        # The manifest keeps its source; everything else is what the carried one has.
        text = (folder / "manifest.txt").read_text()
        assert f"source: hf://datasets/jane/runs@{COMMIT}/my-model\n" in text
        (folder / "manifest.txt").write_bytes((carried / "manifest.txt").read_bytes())
    same_results(carried, folder)
    assert not (folder / "runs").exists(), "scoring fetches into the cache, not the folder"


def test_a_store_file_that_does_not_match_is_reported_naming_the_submission_and_file(
        carried: Path, data_dir: Path, tmp_path: Path, https_store: StoreServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from leaderboard.submission.pipeline import score_submission

    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "cache"))
    for rel, data in stored_files(carried).items():
        https_store.files[f"/s/submissions/{SUB}/{rel}"] = data
    https_store.modes[f"/s/submissions/{SUB}/runs/{WTR}/altered.trec.gz"] = "corrupt"
    folder = stored_copy(carried, tmp_path / "repo")
    outcome = score_submission(folder, data_dir,
                               store=HttpsStore(f"{https_store.base}/s/{{+path}}"),
                               after_merge=True)
    assert outcome.results_path is None
    assert [line for line in outcome.report.lines() if "altered" in line] == [
        f"{SUB}/runs/{WTR}/altered.trec.gz: the store's copy at {https_store.base}/s/"
        f"submissions/{SUB}/runs/{WTR}/altered.trec.gz does not match: its sha256 is "
        f"{hashlib.sha256(_flipped(https_store, WTR)).hexdigest()}, not the "
        f"{hashlib.sha256(stored_files(carried)[f'runs/{WTR}/altered.trec.gz']).hexdigest()} "
        "listed; nothing was kept"]
    assert sorted(p.name for p in folder.iterdir()) == ["manifest.txt", "metadata.yaml"]


def _flipped(server: StoreServer, task: str) -> bytes:
    data = server.files[f"/s/submissions/{SUB}/runs/{task}/altered.trec.gz"]
    return data[:-1] + bytes([data[-1] ^ 1])


def test_a_carried_file_that_differs_from_its_manifest_is_an_error_until_scored(
        carried: Path, data_dir: Path, tmp_path: Path) -> None:
    import shutil

    from leaderboard.submission.pipeline import check_submission, results_staleness

    folder = tmp_path / "submissions" / SUB
    shutil.copytree(carried, folder)
    run = folder / "runs" / WTR / "original.trec.gz"
    lines = gzip.decompress(run.read_bytes()).splitlines(keepends=True)
    run.write_bytes(gzip.compress(b"".join(reversed(lines)), mtime=0))  # same scores
    store = FolderStore(tmp_path)
    outcome = check_submission(folder, data_dir, score=False, store=store)
    assert any(line.startswith(f"{SUB}/runs/{WTR}/original.trec.gz: this file (") and
               "is not the one manifest.txt line" in line and "run `leaderboard score" in line
               for line in outcome.report.lines()), outcome.report.lines()
    assert results_staleness(folder) == [
        f"runs/{WTR}/original.trec.gz changed since results.json was scored"]
    # Scoring records the file: the manifest and results' inputs agree again.
    from leaderboard.submission.pipeline import score_submission

    assert score_submission(folder, data_dir, store=store,
                            after_merge=True).results_path is not None
    assert results_staleness(folder) == []
    assert check_submission(folder, data_dir, score=False, store=store).report.ok


def test_a_run_file_renamed_after_scoring_is_recorded_by_the_next_scoring(
        carried: Path, data_dir: Path, tmp_path: Path) -> None:
    """original.trec.gz, which manifest.txt lists, uncompressed to original.trec (or
    gzipped, or renamed .txt): `score` refused 'a second original file' and 'the file is
    missing', and no step said how out. The folder's file for a task and role is the
    submitter's, as a new copy at the listed path is: scoring records it in place of the
    listing, and validate says to score it."""
    import shutil

    from leaderboard.submission.pipeline import check_submission, score_submission

    folder = tmp_path / "submissions" / SUB
    shutil.copytree(carried, folder)
    run = folder / "runs" / WTR / "original.trec.gz"
    (folder / "runs" / WTR / "original.trec").write_bytes(gzip.decompress(run.read_bytes()))
    run.unlink()
    store = FolderStore(tmp_path)
    lines = check_submission(folder, data_dir, score=False, store=store).report.lines()
    assert any(line.startswith(f"{SUB}/runs/{WTR}/original.trec: a second original file for "
                               f"{WTR}: manifest.txt line ") and
               f"lists runs/{WTR}/original.trec.gz; run `leaderboard score {folder} "
               f"--data-dir {data_dir}` to record this file in its place" in line
               for line in lines), lines
    outcome = score_submission(folder, data_dir, store=store, after_merge=False)
    assert outcome.results_path is not None, outcome.report.lines()
    manifest = (folder / "manifest.txt").read_text()
    assert f"runs/{WTR}/original.trec\n" in manifest and "original.trec.gz" not in manifest
    assert check_submission(folder, data_dir, score=False, store=store).report.ok


# --------------------------------------------------------------------------- runs push, pull, ...


@pytest.fixture
def board(hub: FakeUpstream, tmp_path: Path) -> HubStore:
    """The leaderboard's own (empty) dataset repository on the fake Hub."""
    root = tmp_path / "hub-board-runs"
    root.mkdir()
    hub.hf["board/runs"] = FakeRepo(root, "1" * 40)
    return HubStore("board/runs", f"{hub.base}/hf")


def test_push_to_a_dataset_then_read_score_verify_and_pull_from_it(
        carried: Path, board: HubStore, hub: FakeUpstream, data_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from leaderboard.submission.pipeline import check_submission, score_submission
    from leaderboard.submission.results import read_results
    from leaderboard.app.transfer import pull, push, verify

    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "repo" / "submissions" / SUB
    shutil.copytree(carried, folder)
    files = stored_files(carried)
    report, done = push([folder], board)
    assert report.ok, report.lines()
    repo = hub.hf["board/runs"]
    assert repo.commit != "1" * 40
    source = f"hf://datasets/board/runs@{repo.commit}/submissions/{SUB}"
    assert done == [f"{SUB}: {len(files)} files uploaded, now at {source}"]
    assert f"source: {source}\n" in (folder / "manifest.txt").read_text()
    # The store holds every file at that commit, the explanation files beside the runs;
    # the folder keeps what git keeps.
    assert {rel: (repo.root / "submissions" / SUB / rel).read_bytes() for rel in files} == files
    assert len([rel for rel in files if rel.startswith("explain/")]) > 3
    assert sorted(p.name for p in folder.iterdir()) == ["manifest.txt", "metadata.yaml",
                                                        "results.json"]
    # Everything reads back through the store, the same.
    whole = read_results(folder / "results.json", board)
    assert whole == read_results(carried / "results.json")
    assert verify(folder, board).lines() == []
    assert check_submission(folder, data_dir, score=False, store=board).report.ok
    # Pulling brings the very bytes back, the explorer's too: publishing pushed them to
    # the store (the manifest's source), so the submission is merged.
    report, written, kept = pull(folder, board)
    assert report.ok and sorted(written) == sorted(files) and kept == []
    assert {rel: (folder / rel).read_bytes() for rel in files} == files
    # A rescore writes its per-query file again, the very file the store holds: a push
    # sends nothing and makes no commit, and drops the folder's copy.
    shutil.rmtree(folder / "runs")
    hub.requests.clear()
    assert score_submission(folder, data_dir, store=board,
                            after_merge=True).results_path is not None
    assert (folder / "per-query.json.gz").is_file() and (folder / "explain").is_dir()
    hub.requests.clear()
    report, done = push([folder], board)
    assert report.ok and done == []
    assert not [r for r in hub.requests if r.startswith("POST")]
    assert not (folder / "per-query.json.gz").exists() and not (folder / "explain").exists()
    # The explanation files are compared through their manifest alone, not fetched.
    fetched = [r for r in hub.requests if "/explain/" in r]
    assert all(r.endswith("/explain/manifest.json") for r in fetched), fetched
    # A per-query file the store does not hold (other scores) is uploaded, alone: the runs
    # at the store's commit are kept by the new commit, and checked there.
    results = read_results(folder / "results.json")
    system = results.systems[0]
    task_id = next(iter(system.tasks))
    scores = system.tasks[task_id]
    metric = next(iter(scores.per_query))
    query = next(iter(scores.per_query[metric]))
    scores.per_query[metric][query] += 0.5
    from leaderboard.submission.results import write_submission_results

    write_submission_results(folder, results)
    report, done = push([folder], board)
    assert report.ok and len(done) == 1 and done[0].startswith(f"{SUB}: 1 file uploaded")
    commits = [r for r in hub.requests if r.startswith("POST") and r.endswith("/commit/main")]
    assert len(commits) == 1
    # Nothing left to push: no commit.
    hub.requests.clear()
    assert push([folder], board) == (report, [])
    assert not [r for r in hub.requests if r.startswith("POST")]


def test_a_refused_push_changes_nothing(carried: Path, board: HubStore, hub: FakeUpstream,
                                        tmp_path: Path) -> None:
    import shutil

    from leaderboard.app.transfer import TransferError, push

    folder = tmp_path / "repo" / "submissions" / SUB
    shutil.copytree(carried, folder)
    before = folder_files(folder)
    hub.refuse_commits = True
    with pytest.raises(TransferError, match=r"pushing to hf://datasets/board/runs .* failed: "
                                            r"HTTP 403 \(a token with write access"):
        push([folder], board)
    assert folder_files(folder) == before
    with pytest.raises(TransferError, match="is read-only"):
        push([folder], HttpsStore("https://mirror.example/{+path}"))
    assert folder_files(folder) == before


def test_a_tampered_explanation_file_in_the_store_is_refused_naming_the_submission_and_file(
        carried: Path, board: HubStore, hub: FakeUpstream, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from leaderboard.submission.pipeline import results_staleness
    from leaderboard.app.transfer import pull, push, verify

    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "repo" / "submissions" / SUB
    shutil.copytree(carried, folder)
    assert push([folder], board)[0].ok
    commit = hub.hf["board/runs"].commit
    card = next(rel for rel in sorted(stored_files(carried)) if ".cards." in rel)
    hub.corrupt.add(f"submissions/{SUB}/{card}")
    (problem,) = verify(folder, board).lines()
    assert problem.startswith(f"{SUB}/{card}: the store's copy at {hub.cdn_base}/cdn/board/runs/"
                              f"{commit}/submissions/{SUB}/{card} does not match: "), problem
    assert problem.endswith("; nothing was kept")
    report, written, kept = pull(folder, board)
    assert report.lines() == [problem] and written == kept == []
    assert sorted(p.name for p in folder.iterdir()) == ["manifest.txt", "metadata.yaml",
                                                        "results.json"]
    assert leftovers(tmp_path / "cache") and not [
        p for p in leftovers(tmp_path / "cache") if p.name.startswith(".fetch-")]
    # A tampered manifest is refused by the size and SHA-256 results.json names: the
    # next publish run finds the submission stale (and rescores it).
    hub.corrupt = {f"submissions/{SUB}/explain/manifest.json"}
    shutil.rmtree(tmp_path / "cache")
    (stale,) = results_staleness(folder, board)
    assert stale.startswith("explain/manifest.json: the store's copy at ") and \
        "does not match: its sha256 is" in stale, stale
    assert verify(folder, board).lines()[0].startswith(
        f"{SUB}/explain/manifest.json: the store's copy at ")


def test_explanation_files_pushed_to_the_hub_are_read_back_by_the_site_build(
        carried: Path, board: HubStore, hub: FakeUpstream, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One setting: with the store a dataset, the site copies no explanation file; its
    explorer fetches them from the Hub at the commit the manifest names, and the build
    reads their manifest there, verified."""
    import json
    import shutil
    import urllib.request

    from leaderboard.publish.site.build import build_site
    from leaderboard.app.transfer import push

    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "root"
    folder = root / "submissions" / SUB
    shutil.copytree(carried, folder)
    assert push([folder], board)[0].ok
    assert not (folder / "explain").exists()
    monkeypatch.setenv("LEADERBOARD_RUN_STORE", "hf://datasets/board/runs")
    hub.requests.clear()
    result = build_site(root, tmp_path / "out", cache_dir=tmp_path / "site-cache", reference_ids=())
    assert not [w for w in result.warnings if "explorer" in w], result.warnings
    commit = hub.hf["board/runs"].commit
    base = f"{hub.base}/hf/datasets/board/runs/resolve/{commit}/submissions/{SUB}/explain/"
    assert f"/hf/datasets/board/runs/resolve/{commit}/submissions/{SUB}/explain/manifest.json" \
        in hub.requests
    index = json.loads((tmp_path / "out" / "explore" / "index.json").read_text())
    entry = index["submissions"][SUB]
    assert entry["base"] == base and entry["explained"] == entry["tasks"] == 1
    assert not (tmp_path / "out" / "explore" / "data").exists()
    # What a browser gets at that address is the scorer's very file.
    for rel, data in stored_files(carried).items():
        if rel.startswith("explain/"):
            with urllib.request.urlopen(base + rel[len("explain/"):]) as answer:
                assert answer.read() == data, rel
    # The submission page links the manifest to its stored copy.
    page = (tmp_path / "out" / "submissions" / f"{SUB}.html").read_text()
    assert f"{hub.base}/hf/datasets/board/runs/blob/{commit}/submissions/{SUB}/explain/" \
           "manifest.json" in page


def test_a_push_with_no_run_store_set_writes_nothing(carried: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """With no run store set (no pyproject.toml above the folder, no
    $LEADERBOARD_RUN_STORE), the store is the submission's own folder: `runs push` copied
    its 74 files into a submissions/ folder inside it, then failed saying "nothing was
    changed", and `score` then found an unexpected file."""
    import shutil

    from leaderboard.app.cli import main

    monkeypatch.delenv(ENV_RUN_STORE, raising=False)
    folder = tmp_path / "alone" / "submissions" / SUB
    shutil.copytree(carried, folder)
    before = folder_files(folder)
    assert main(["runs", "push", str(folder), "--quiet"]) == 1
    assert folder_files(folder) == before and not (folder / "submissions").exists()


def test_push_to_a_folder_store_and_score_from_it(carried: Path, data_dir: Path,
                                                  tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from leaderboard.submission.pipeline import score_submission
    from leaderboard.app.transfer import TransferError, push

    folder = tmp_path / "repo" / "submissions" / SUB
    shutil.copytree(carried, folder)
    store = FolderStore(tmp_path / "mirror")
    # A folder that is not the run store: the manifest could not say the files went
    # there, and every later command failed with "the file is missing". Refused, folder
    # untouched, unless the copies stay (--keep).
    before = folder_files(folder)
    with pytest.raises(TransferError, match=r"is not this project's run store.*--keep") as info:
        push([folder], store)
    # It said "the folder <mirror> is not this project's run store (the folder
    # <submission>)": two folders, and the second, the submission's own, called the store.
    said = str(info.value)
    assert said.startswith(f"--to {tmp_path / 'mirror'}: "), said
    assert f"the folder {folder}" not in said and f"({FolderStore(folder).describe()})" \
        not in said, said
    assert (f"The run store is not set for {folder} (no pyproject.toml above it names one, "
            "nor $LEADERBOARD_RUN_STORE): each submission keeps its files in its own folder"
            in said), said
    assert folder_files(folder) == before and not (tmp_path / "mirror").exists()
    assert push([folder], store, keep=True)[0].ok and folder_files(folder) == before
    assert folder_files(tmp_path / "mirror" / "submissions" / SUB) == stored_files(carried)
    shutil.rmtree(tmp_path / "mirror")
    monkeypatch.setenv("LEADERBOARD_RUN_STORE", str(tmp_path / "mirror"))
    report, done = push([folder], store)
    assert report.ok and done == [f"{SUB}: {len(stored_files(carried))} files in "
                                  f"{tmp_path / 'mirror' / 'submissions' / SUB}"]
    assert folder_files(tmp_path / "mirror" / "submissions" / SUB) == stored_files(carried)
    assert sorted(p.name for p in folder.iterdir()) == ["manifest.txt", "metadata.yaml",
                                                        "results.json"]
    # A push killed while copying left its temporary file in the store for ever: the
    # next push to the submission removes those whose process is gone.
    inside = tmp_path / "mirror" / "submissions" / SUB
    from fixtures.pids import gone_pid, running_pid

    killed = inside / "runs" / WTR / f".push-{gone_pid()}-altered.trec.gz.x1y2.tmp"
    running = inside / "runs" / WTR / f".push-{running_pid()}-altered.trec.gz.z3w4.tmp"
    for tmp in (killed, running):
        tmp.write_bytes(b"half a file")
    again = tmp_path / "again" / "submissions" / SUB
    shutil.copytree(carried, again)
    report, _ = push([again], store)
    assert report.ok and not killed.exists() and running.exists(), report.lines()
    running.unlink()
    assert score_submission(folder, data_dir, store=store,
                            after_merge=True).results_path is not None
    same_results(carried, folder)
    # The repository as the folder store: the files stay where they are.
    assert push([carried], FolderStore(carried.parent.parent)) == (report, [])


def test_scoring_again_leaves_a_folder_every_command_takes(carried: Path, data_dir: Path,
                                                            tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """The explorer's files are CI's: a submitter's scoring keeps the new ones in the
    cache and leaves the earlier scoring's where they are, in the folder (merged) or in the
    folder store (pushed). `validate`, `runs verify` and `runs push` refused that earlier
    copy ("does not match ...; run `leaderboard score`"), however often one scored again."""
    import shutil

    from leaderboard.app.cli import main
    from leaderboard.app.transfer import push, verify
    from leaderboard.submission.pipeline import score_submission

    def rescore(folder: Path, contact: str) -> None:
        meta = folder / "metadata.yaml"
        meta.write_text(re.sub(r"contact: .*", f"contact: {contact}", meta.read_text()))
        outcome = score_submission(folder, data_dir, store=configured_store(folder),
                                   after_merge=False)
        assert outcome.results_path is not None, outcome.report.lines()

    repo = tmp_path / "repo"
    monkeypatch.setenv(ENV_RUN_STORE, str(repo))
    merged = repo / "submissions" / SUB
    shutil.copytree(carried, merged)
    earlier = folder_files(merged / "explain")
    rescore(merged, "someone else")
    assert folder_files(merged / "explain") == earlier  # a pull request may not change them
    assert verify(merged).ok, verify(merged).lines()
    assert main(["validate", str(merged), "--data-dir", str(data_dir), "--quiet"]) == 0
    # Where the cache has no copy either, the error says which copy is there and why.
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "empty-cache"))
    (problem,) = [i.message for i in verify(merged).errors]
    assert "the copy in the submission's folder" in problem and "does not match" in problem
    assert "an earlier scoring's copy" in problem and "scoring again writes them" in problem
    monkeypatch.undo()

    mirror = tmp_path / "mirror"
    monkeypatch.setenv(ENV_RUN_STORE, str(mirror))
    pushed = tmp_path / "elsewhere" / "submissions" / SUB
    shutil.copytree(carried, pushed, ignore=shutil.ignore_patterns("explain"))
    rescore(pushed, "a second person")  # the explorer's files go to the cache
    assert push([pushed])[0].ok
    rescore(pushed, "a third person")
    assert verify(pushed).ok, verify(pushed).lines()
    report, done = push([pushed])
    assert report.ok and done, report.lines()
    assert verify(pushed).ok, verify(pushed).lines()


def test_runs_add_scores_the_new_runs_or_leaves_the_submission_as_it_was(
        carried: Path, data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from leaderboard.app.cli import main

    monkeypatch.setenv("LEADERBOARD_RUN_STORE", str(tmp_path))
    folder = tmp_path / "submissions" / SUB
    shutil.copytree(carried, folder)
    before = folder_files(folder)
    new = tmp_path / "new-runs"
    shutil.copytree(carried / "runs", new / "runs")
    broken = new / "runs" / WTR / "altered.trec.gz"
    broken.write_bytes(gzip.compress(gzip.decompress(broken.read_bytes())
                                     + b"0_0 Q0 no-such-table 1 1.0 x\n", mtime=0))
    args = ["runs", "add", str(folder), "--from", str(new), "--tasks", "followtable/*",
            "--data-dir", str(data_dir), "--quiet"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "document 'no-such-table' is not in the corpus" in out
    assert f"{SUB}: nothing added" in out
    assert folder_files(folder) == before
    # Same queries, reversed lines (same scores), as plain text: a real change of file.
    for role in ("original", "altered"):
        text = gzip.decompress((carried / "runs" / WTR / f"{role}.trec.gz").read_bytes())
        (new / "runs" / WTR / f"{role}.trec.gz").unlink()
        (new / "runs" / WTR / f"{role}.trec").write_bytes(text)
    assert main(args) == 0, capsys.readouterr().out
    # It said "scored 1 task(s)" where `score` says "scored 1 task" (core.report.plural).
    assert f"{SUB}: scored 1 task -> " in capsys.readouterr().out
    assert sorted(p.name for p in (folder / "runs" / WTR).iterdir()) == \
        ["altered.trec", "original.trec"]
    manifest = (folder / "manifest.txt").read_text()
    assert f"runs/{WTR}/original.trec\n" in manifest and ".trec.gz" not in manifest
    from leaderboard.submission.results import read_results

    assert read_results(folder / "results.json").systems[0].tasks == \
        read_results(carried / "results.json").systems[0].tasks


@pytest.mark.parametrize("kind", ["file link", "folder link", "fifo"])
def test_runs_add_refuses_a_link_or_fifo_under_from_rather_than_leave_it_out(
        kind: str, tmp_path: Path) -> None:
    """A run file under --from that was a symbolic link (a run kept with the experiment
    that made it), a linked task folder or a FIFO was passed over: the others were added
    and scored as if that task had not been given, and with none else the command said
    'no run files'. It is refused, named, before the submission is touched, as README
    says of a folder holding a link or a FIFO."""
    import os

    from leaderboard.app.transfer import TransferError, new_run_files

    made = tmp_path / "experiments" / "run.trec"
    made.parent.mkdir()
    made.write_text("q Q0 d 1 1 x\n")
    runs = tmp_path / "from" / "runs"
    (runs / "followtable" / "wtr").mkdir(parents=True)
    (runs / "followtable" / "wtr" / "original.trec").write_text("q Q0 d 1 1 x\n")
    odd = {"file link": runs / "followtable" / "wtr" / "altered.trec",
           "folder link": runs / "followtable" / "wqt",
           "fifo": runs / "followtable" / "wtr" / "altered.trec"}[kind]
    if kind == "file link":
        odd.symlink_to(made)
    elif kind == "folder link":
        odd.symlink_to(made.parent)
    else:
        os.mkfifo(odd)
    with pytest.raises(TransferError, match=f"^{re.escape(str(odd))}: "):
        new_run_files(runs.parent, None)
    (runs / "followtable" / "wtr" / "original.trec").unlink()
    with pytest.raises(TransferError, match=f"^{re.escape(str(odd))}: "):
        new_run_files(runs, None)  # not "no run files"


def test_runs_verify_from_the_command_line(carried: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from leaderboard.app.cli import main

    monkeypatch.setenv("LEADERBOARD_RUN_STORE", str(tmp_path / "mirror"))
    folder = tmp_path / "submissions" / SUB
    shutil.copytree(carried, folder)
    assert main(["runs", "verify", str(folder)]) == 0
    assert capsys.readouterr().out.strip() == f"{SUB}: verified (0 errors)"
    assert main(["runs", "push", "--all", "--submissions-dir", str(tmp_path / "submissions"),
                 "--quiet"]) == 0
    assert not (folder / "runs").exists()
    capsys.readouterr()
    assert main(["runs", "verify", str(folder)]) == 0
    (tmp_path / "mirror" / "submissions" / SUB / "runs" / WTR / "altered.trec.gz").unlink()
    assert main(["runs", "verify", str(folder)]) == 1
    out = capsys.readouterr().out
    assert f"{SUB}/runs/{WTR}/altered.trec.gz: the file is missing" in out
    assert f"{SUB}: INVALID (1 error)" in out
    # A mistyped --submissions-dir said "nothing to push: every submission's files are in
    # the store" and succeeded.
    assert main(["runs", "push", "--all", "--submissions-dir", str(tmp_path / "submisions"),
                 "--quiet"]) == 1
    assert "submisions: no such folder (--submissions-dir)" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["runs", "push", "--all", "--submissions-dir", str(tmp_path / "empty")]) == 0
    assert "no submission folder (with a metadata.yaml) under" in capsys.readouterr().out


def test_the_site_shows_a_stored_submission_and_links_its_files_to_the_store(
        carried: Path, hub: FakeUpstream, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from leaderboard.publish.site.board import load_board
    from leaderboard.publish.site.render import render_docs
    from leaderboard.publish.site.repository import REPO_URL, file_listing, repository_ref

    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("LEADERBOARD_RUN_STORE", raising=False)
    for name in ("GITHUB_REPOSITORY", "LEADERBOARD_REPO_URL"):
        monkeypatch.delenv(name, raising=False)
    for rel, data in stored_files(carried).items():
        (hub.hf["jane/runs"].root / "my-model" / rel).parent.mkdir(parents=True, exist_ok=True)
        (hub.hf["jane/runs"].root / "my-model" / rel).write_bytes(data)
    root = tmp_path / "root"
    folder = stored_copy(carried, root, f"hf://datasets/jane/runs@{COMMIT}/my-model")
    (folder / "results.json").write_bytes((carried / "results.json").read_bytes())
    board = load_board(root)
    (row,) = board.submissions
    # The standings got the per-query scores from the dataset: the row is the carried one.
    from leaderboard.submission.results import read_results

    assert row.system.tasks == read_results(carried / "results.json").systems[0].tasks
    listing = file_listing(row.submission, repository_ref(root))
    hub_page = f"{hub.base}/hf/datasets/jane/runs/blob/{COMMIT}/my-model/"
    top = {f.path: f.url for f in listing["top"]}
    assert top == {"results.json": f"{REPO_URL}/blob/main/submissions/{SUB}/results.json",
                   "per-query.json.gz": hub_page + "per-query.json.gz",
                   "explain/manifest.json": hub_page + "explain/manifest.json",
                   "metadata.yaml": f"{REPO_URL}/blob/main/submissions/{SUB}/metadata.yaml",
                   "manifest.txt": f"{REPO_URL}/blob/main/submissions/{SUB}/manifest.txt"}
    (group,) = listing["groups"]
    assert group.title == "FollowTable" and group.parts == []
    assert [f.url for f in group.files] == [hub_page + f"runs/{WTR}/altered.trec.gz",
                                            hub_page + f"runs/{WTR}/original.trec.gz"]
    assert group.size == sum(len(d) for r, d in stored_files(carried).items() if "runs" in r)
    assert listing["stores"] == [f"{hub.base}/hf/datasets/jane/runs"]
    render_docs(board, tmp_path / "docs", reference_ids=())
    fragment = (tmp_path / "docs" / ".fragments" / "submissions" / f"{SUB}.md.json").read_text()
    assert "fb-run-files" in fragment and hub_page.replace("/", "\\/") not in fragment
    assert hub_page + f"runs/{WTR}/altered.trec.gz" in fragment


def test_a_second_push_to_a_folder_store_pushes_nothing(carried: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """`runs push` to a folder store said "<id>: N files in <store>" and rewrote the
    manifest on every run, for submissions whose files were all there already, where a
    dataset store says "nothing to push" (the help: "Submissions already in the store are
    left alone")."""
    import shutil

    from leaderboard.app.cli import main

    monkeypatch.setenv(ENV_RUN_STORE, str(tmp_path / "mirror"))
    folder = tmp_path / "submissions" / SUB
    shutil.copytree(carried, folder)
    assert main(["runs", "push", str(folder), "--quiet"]) == 0
    capsys.readouterr()
    before = {p.name: p.stat().st_ino for p in folder.iterdir()}
    assert main(["runs", "push", str(folder), "--quiet"]) == 0
    assert capsys.readouterr().out == "nothing to push: every submission's files are in the store\n"
    assert {p.name: p.stat().st_ino for p in folder.iterdir()} == before
    # A store copy that is not the listed file is not "in the store": named, exit 1.
    stored = tmp_path / "mirror" / "submissions" / SUB / "runs" / WTR / "altered.trec.gz"
    stored.write_bytes(stored.read_bytes()[:-1])
    assert main(["runs", "push", str(folder), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert f"{SUB}/runs/{WTR}/altered.trec.gz: the copy in the folder " in out and \
        "does not match" in out, out


def test_runs_verify_and_pull_go_on_past_a_folder_that_is_not_there(
        carried: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`runs verify A nope B` (and `runs pull`) said only "nope: no such folder" and
    checked or fetched neither A nor B, where `validate` and `score` check each folder
    and name the missing one among the verdicts: all four go through
    commands.each_submission, the verdicts last under "N of M passed:", exit 1. `runs
    push` still refuses them all, before anything is written, and says so."""
    import shutil

    from leaderboard.app.cli import main

    monkeypatch.setenv(ENV_RUN_STORE, str(tmp_path / "mirror"))
    folder = tmp_path / "submissions" / SUB
    shutil.copytree(carried, folder)
    assert main(["runs", "push", str(folder), "--quiet"]) == 0
    nope, empty = tmp_path / "submissions" / "nope", tmp_path / "empty"
    empty.mkdir()
    capsys.readouterr()
    assert main(["runs", "pull", str(nope), str(folder), str(empty)]) == 1
    out = capsys.readouterr().out
    assert (folder / "runs" / WTR / "altered.trec.gz").read_bytes() == (
        carried / "runs" / WTR / "altered.trec.gz").read_bytes()
    assert out.endswith(f"\n1 of 3 passed:\n{nope}: no such folder\n"
                        f"{SUB}: pulled (9 files written)\n"
                        "empty: NOT pulled (0 files written)\n"), out
    assert "empty: not a submission folder: it holds neither" in out, out
    assert main(["runs", "verify", str(folder), str(nope)]) == 1
    assert capsys.readouterr().out == (f"\n1 of 2 passed:\n{SUB}: verified (0 errors)\n"
                                       f"{nope}: no such folder\n")
    assert list(empty.iterdir()) == []
    # push is all or nothing: one folder not there stops it before anything is written.
    other = tmp_path / "other-store"
    assert main(["runs", "push", str(folder), str(nope), "--to", str(other), "--keep",
                 "--quiet"]) == 1
    assert capsys.readouterr().out == (f"{nope}: no such folder\n"
                                       "nothing pushed: every folder given must be a "
                                       "submission's\n")
    assert not other.exists()


def test_a_pull_over_an_edited_run_file_keeps_it_and_says_what_to_do(
        carried: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`runs pull` over a run file the submitter changed refused it (the edit is kept)
    saying only "the copy in the submission's folder (...) does not match", where `runs
    verify` on the same folder says to score it: the refusal names both ways on."""
    import shutil

    from leaderboard.app.cli import main

    monkeypatch.setenv(ENV_RUN_STORE, str(tmp_path / "mirror"))
    folder = tmp_path / "submissions" / SUB
    shutil.copytree(carried, folder)
    assert main(["runs", "push", str(folder), "--quiet"]) == 0
    edited = folder / "runs" / WTR / "altered.trec.gz"
    edited.parent.mkdir(parents=True)
    edited.write_bytes(b"edited")
    capsys.readouterr()
    assert main(["runs", "pull", str(folder)]) == 1
    out = capsys.readouterr().out
    assert (f"{SUB}/runs/{WTR}/altered.trec.gz: the copy in the submission's folder "
            f"({edited}) does not match: it is 6 bytes, not the ") in out, out
    assert (f"listed; run `leaderboard score {folder}` to record the edit, or remove the "
            "file to fetch the stored one\n") in out, out
    assert edited.read_bytes() == b"edited"
    edited.unlink()
    assert main(["runs", "pull", str(folder)]) == 0
    assert edited.read_bytes() == (carried / "runs" / WTR / "altered.trec.gz").read_bytes()
    # Where the folder is the store, nothing else holds the file: scoring is the one way.
    monkeypatch.delenv(ENV_RUN_STORE)
    alone = tmp_path / "alone" / "submissions" / SUB
    shutil.copytree(carried, alone)
    (alone / "runs" / WTR / "altered.trec.gz").write_bytes(b"edited")
    assert main(["runs", "pull", str(alone)]) == 1
    assert (f"listed; run `leaderboard score {alone}` to record the edit\n"
            in capsys.readouterr().out)


def test_every_runs_command_holds_the_folder_to_its_metadata_id(
        carried: Path, data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A submission copied to a folder of another name: `runs add` and `score` refused it
    (its id must equal the folder's name), while `runs verify` said "verified" and `runs
    push` stored its files under the folder's name, a place no reader of the id looks."""
    import shutil

    from leaderboard.app.cli import main

    mirror = tmp_path / "mirror"
    monkeypatch.setenv(ENV_RUN_STORE, str(mirror))
    folder = tmp_path / "submissions" / "renamed"
    shutil.copytree(carried, folder)
    before = folder_files(folder)
    said = f"renamed/metadata.yaml:1: id: '{SUB}' must equal the folder name 'renamed'\n"
    for command in (["verify"], ["push", "--quiet"], ["pull"],
                    ["add", "--from", str(carried), "--data-dir", str(data_dir), "--quiet"]):
        capsys.readouterr()
        assert main(["runs", command[0], str(folder), *command[1:]]) == 1, command
        assert said in capsys.readouterr().out, command
    assert folder_files(folder) == before and not mirror.exists()


def test_every_step_to_score_again_names_the_folder_as_it_was_given(
        carried: Path, data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`runs verify work/my-model` (a folder outside any submissions/) of an edited run
    said to run `leaderboard score submissions/my-model`, a folder that is not there;
    `validate` said the same of stale scores. Every step names the folder as given."""
    import json
    import shutil

    from leaderboard.app.cli import main

    monkeypatch.chdir(tmp_path)
    given = f"work/{SUB}"
    folder = tmp_path / given
    shutil.copytree(carried, folder)
    step = f"run `leaderboard score {given}`"
    # With the data folder validate read (the scores depend on it); `runs verify` reads none.
    scored = f"run `leaderboard score {given} --data-dir {data_dir}`"
    run = folder / "runs" / WTR / "original.trec.gz"
    saved = run.read_bytes()
    lines = gzip.decompress(saved).splitlines(keepends=True)
    run.write_bytes(gzip.compress(b"".join(reversed(lines)), mtime=0))  # same scores
    validate = ["validate", given, "--data-dir", str(data_dir), "--quiet"]
    for command, said in ((["runs", "verify", given], step), (validate, scored)):
        capsys.readouterr()
        assert main(command) == 1, command
        out = capsys.readouterr().out
        assert f"{said} to record it\n" in out and "submissions/" not in out, (command, out)
    run.write_bytes(saved)
    results = folder / "results.json"
    doc = json.loads(results.read_text())
    doc["systems"][0]["tasks"][WTR]["metrics"]["IRS"] = 0.99  # a hand-edited score
    results.write_text(json.dumps(doc, sort_keys=True, indent=1) + "\n")
    capsys.readouterr()
    assert main([*validate, "--check-scores"]) == 1
    out = capsys.readouterr().out
    assert f"metadata.yaml give; {scored}\n" in out and "submissions/" not in out, out
    (folder / "metadata.yaml").write_text((folder / "metadata.yaml").read_text() + "# edited\n")
    assert main(validate) == 1
    assert f"the scores are stale; {scored}\n" in capsys.readouterr().out
    (folder / "manifest.txt").unlink()
    assert main(["runs", "verify", given]) == 1
    assert (f"{SUB}/manifest.txt: missing: {step} first, which writes it\n"
            in capsys.readouterr().out)


# The commands that compute on the benchmark data: a message that suggests one must name
# the data folder the command it is a message of read, or following it computes on the
# default one ($LEADERBOARD_DATA, else ./data): other data, or none.
DATA_COMMANDS = ("score", "validate", "eval", "explain", "check-run", "data pull",
                 "data status", "baselines run", "runs add", "ci pr-check",
                 "ci score-pending")


def suggested_commands(out: str) -> list[str]:
    """Every `leaderboard ...` command ``out`` suggests that reads the data."""
    return [c for c in re.findall(r"`leaderboard ([^`]*)`", out)
            if c.startswith(DATA_COMMANDS)]


def test_every_command_validate_suggests_reads_the_data_folder_it_read(
        carried: Path, data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`validate --data-dir X` said to run `leaderboard score <folder>`, with no
    --data-dir, of a reformatted results.json, of scores that differ from the runs, of an
    edited run, of explanation files CI did not write, of a missing results.json: followed, it scores on the default data folder, not X. Every
    command a message of it suggests that reads the data names X."""
    import json
    import shutil

    from fixtures.submission import pulled
    from leaderboard.app.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LEADERBOARD_DATA", str(tmp_path / "elsewhere"))
    mine = pulled(tmp_path / "my data", [WTR], mirror=data_dir)
    given = f"work/{SUB}"
    folder = tmp_path / given
    shutil.copytree(carried, folder)
    validate = ["validate", given, "--data-dir", str(mine), "--quiet"]
    said: dict[str, list[str]] = {}

    def run(case: str, *extra: str) -> None:
        capsys.readouterr()
        assert main([*validate, *extra]) == 1, case
        said[case] = suggested_commands(capsys.readouterr().out)

    results = folder / "results.json"
    scored = results.read_text()
    doc = json.loads(scored)
    doc["systems"][0]["tasks"][WTR]["metrics"]["IRS"] = 0.99
    results.write_text(json.dumps(doc, sort_keys=True, indent=1) + "\n")
    run("a hand-edited score", "--check-scores")
    results.write_text(json.dumps(json.loads(scored), indent=2) + "\n")
    run("a reformatted results.json")
    results.write_text(scored)
    (folder / "explain" / "stray.json").write_text("{}\n")
    run("a file under explain/ CI did not write")
    (folder / "explain" / "stray.json").unlink()
    path = folder / "runs" / WTR / "original.trec.gz"
    saved = path.read_bytes()
    lines = gzip.decompress(saved).splitlines(keepends=True)
    path.write_bytes(gzip.compress(b"".join(reversed(lines)), mtime=0))
    run("an edited run")
    path.write_bytes(saved)
    # (Its explanation files missing say nothing: not merged, validate computes them.)
    results.unlink()
    capsys.readouterr()
    assert main([*validate, "--check-scores"]) == 0
    said["no results.json"] = suggested_commands(capsys.readouterr().out)
    assert all(said.values()), said  # each says to run something
    for case, commands in said.items():
        for command in commands:
            assert command.endswith(f" --data-dir '{mine}'"), (case, command)


def test_scoring_a_folder_outside_a_project_names_that_folder_not_its_change_copy(
        carried: Path, data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`score work/my-model` (no pyproject.toml above it) with a listed run missing said
    "not in the folder .../work/.my-model.change/new/my-model": the run store was looked
    up from the transaction's copy, a folder the user never named. `runs add` scores its
    copy too. Every message names the user's folder."""
    import shutil

    from leaderboard.app.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(ENV_RUN_STORE, raising=False)
    folder = tmp_path / "work" / SUB
    shutil.copytree(carried, folder)
    shutil.rmtree(folder / "explain")
    # Another task's runs, listed and nowhere to be found.
    manifest = folder / "manifest.txt"
    manifest.write_text(manifest.read_text() + "".join(
        f"{'0' * 64}  100  runs/followtable/wqt/{role}.trec.gz\n"
        for role in ("original", "altered")))
    new = tmp_path / "new"
    shutil.copytree(carried / "runs", new / "runs")
    for command in (["score", f"work/{SUB}"],
                    ["runs", "add", f"work/{SUB}", "--from", str(new)]):
        capsys.readouterr()
        assert main([*command, "--data-dir", str(data_dir), "--quiet"]) == 1
        out = capsys.readouterr().out
        assert f"{SUB}/runs/followtable/wqt/altered.trec.gz: the file is missing" in out, out
        assert ".change" not in out and f"{folder})" in out, out


def test_a_submission_is_merged_where_publishing_keeps_its_explanation_files(
        carried: Path, tmp_path: Path) -> None:
    """What `validate` takes for a merged submission, whose results.json a pull request
    leaves as it is, outside a git checkout: CI's explain/manifest.json for it in its
    folder or a folder store's place, or a manifest whose source is the dataset store
    publishing pushed it to. Its scoring's files in the cache, or in the submitter's own
    dataset, are not merged."""
    import shutil

    folder = tmp_path / "repo" / "submissions" / SUB
    assert subprocess.run(["git", "-C", str(tmp_path), "rev-parse"], capture_output=True,
                          check=False).returncode != 0  # no checkout around
    shutil.copytree(carried, folder)
    repo = FolderStore(tmp_path / "repo")
    assert placement(SubmissionFiles(SUB, folder, None, repo)).merged
    shutil.copytree(folder, tmp_path / "store" / "submissions" / SUB)
    shutil.rmtree(folder / "explain")
    assert not placement(SubmissionFiles(SUB, folder, None, repo)).merged
    assert placement(SubmissionFiles(SUB, folder, None, FolderStore(tmp_path / "store"))).merged
    # Another submission's explain/, copied with its folder, is not this one's.
    copied = tmp_path / "repo" / "submissions" / "my-copy"
    shutil.copytree(carried, copied)
    assert not placement(SubmissionFiles("my-copy", copied, None, repo)).merged
    board = HubStore("board/runs", "https://hub.example")
    pushed = parse_source(f"hf://datasets/board/runs@{COMMIT}/submissions/{SUB}")
    assert placement(SubmissionFiles(SUB, folder, pushed, board)).merged
    own = parse_source(f"hf://datasets/jane/runs@{COMMIT}/my-model")
    assert not placement(SubmissionFiles(SUB, folder, own, board)).merged
    assert not placement(SubmissionFiles(SUB, folder, None, board)).merged


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t.invalid",
                    *args], check=True, capture_output=True)


def _board_repo(path: Path) -> Path:
    """A new repository at ``path`` whose run store is the repository itself, its
    pyproject.toml committed on main."""
    path.mkdir()
    _git(path, "init", "-q", "-b", "main")
    (path / "pyproject.toml").write_text('[tool.followboard]\nrun-store = "."\n',
                                         encoding="utf-8")
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "base")
    return path


def _commit_folder(repo: Path, sub_id: str, *, explained: bool) -> Path:
    folder = repo / "submissions" / sub_id
    folder.mkdir(parents=True)
    (folder / "metadata.yaml").write_text(f"id: {sub_id}\n", encoding="utf-8")
    if explained:
        (folder / "explain").mkdir()
        (folder / "explain" / "manifest.json").write_text("{}\n", encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", f"merge {sub_id}")
    return folder


def test_in_a_git_checkout_merged_is_what_the_default_branch_holds(tmp_path: Path) -> None:
    """In a checkout, merged is what the default branch holds, as last fetched
    (origin/HEAD, else origin/main, else the local main): submissions/<id>/, and its
    explain/manifest.json where publishing keeps that in the repository (the run store is
    the repository). The folder's own explain/ says nothing, nor does a commit on the
    local main a remote's default branch does not have; one git call, nothing fetched."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    _git(upstream, "init", "-q", "-b", "main")
    (upstream / "pyproject.toml").write_text('[tool.followboard]\nrun-store = "."\n',
                                             encoding="utf-8")
    _commit_folder(upstream, "published", explained=True)
    _commit_folder(upstream, "just-merged", explained=False)  # publishing has not run yet
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(upstream), str(clone))
    _commit_folder(clone, "mine", explained=True)  # on the local main, by mistake
    (clone / "submissions" / "published" / "explain").rename(tmp_path / "moved")

    def is_merged(sub_id: str, store: object = None) -> bool:
        folder = clone / "submissions" / sub_id
        return placement(SubmissionFiles(sub_id, folder, None,
                                         store or configured_store(folder))).merged

    assert is_merged("published")  # though its folder holds no explain/ now
    assert not is_merged("just-merged")  # the run store is the repository: explain/ first
    mirror = HttpsStore("https://mirror.invalid/{+path}")
    assert is_merged("just-merged", mirror)  # publishing moves explain/ to that store
    folder = clone / "submissions" / "just-merged"
    assert placement(SubmissionFiles("just-merged", folder, None, mirror)).apart == (
        "the default branch, origin/HEAD, holds no submissions/just-merged/explain/"
        "manifest.json")  # a pull may not add it
    assert placement(SubmissionFiles(
        "published", clone / "submissions" / "published", None, mirror)).apart is None
    assert not is_merged("mine")  # its explain/, in its folder, is its own
    # HEAD holds it, committed (on the local main): the default branch decides.
    assert placement(SubmissionFiles("mine", clone / "submissions" / "mine", None,
                                     mirror)).apart == (
        "it is not merged yet: the default branch, origin/HEAD, holds no submissions/mine/")
    assert not is_merged("mine", HttpsStore("https://mirror.invalid/{+path}"))
    # HEAD holds just-merged's explain/manifest.json, which the default branch (as last
    # fetched) holding the folder does not: that branch is behind, publishing has run
    # since; the files are kept as CI's, merged (never deleted for a stale branch).
    (folder / "explain").mkdir()
    (folder / "explain" / "manifest.json").write_text("{}\n", encoding="utf-8")
    _git(clone, "add", "-A")
    _git(clone, "commit", "-q", "-m", "publish just-merged (pulled from elsewhere)")
    assert placement(SubmissionFiles("just-merged", folder, None,
                                     configured_store(folder))) == Placement(True, None)
    _git(clone, "rm", "-q", "--cached", "-r", "submissions/just-merged/explain")
    _git(clone, "commit", "-q", "-m", "a copy, not committed")
    assert placement(SubmissionFiles("just-merged", folder, None, configured_store(folder))
                     ).apart is not None
    _git(clone, "remote", "set-head", "origin", "--delete")
    assert is_merged("published") and not is_merged("mine")  # origin/main
    _git(clone, "remote", "remove", "origin")
    assert is_merged("mine")  # no remote: the local main


def test_merged_is_asked_of_the_repository_git_dir_names(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """With GIT_DIR (and GIT_WORK_TREE) set, as a user's shell may have them, git takes
    relative paths in them from where it runs: the check ran git in the submission's
    folder (`git -C`), so `GIT_DIR=.git` there named no repository, the folder was
    taken for outside any checkout, and a submission not merged yet whose folder holds
    its own explain/ looked merged (validate said valid). git runs where the user's
    command runs, as the user's own git does, wherever GIT_DIR sets the repository."""
    repo = _board_repo(tmp_path / "repo")
    _git(repo, "checkout", "-q", "-b", "mine")
    folder = _commit_folder(repo, "mine", explained=True)
    (folder / "explain" / "manifest.json").write_text('{"submission": "mine"}\n',
                                                       encoding="utf-8")
    files = SubmissionFiles("mine", folder, None, FolderStore(repo))
    monkeypatch.chdir(repo)
    for git_dir, work_tree in ((".git", None), (".git", "."), (str(repo / ".git"), None)):
        monkeypatch.setenv("GIT_DIR", git_dir)
        if work_tree is None:
            monkeypatch.delenv("GIT_WORK_TREE", raising=False)
        else:
            monkeypatch.setenv("GIT_WORK_TREE", work_tree)
        assert placement(files) == Placement(
            False, "it is not merged yet: the default branch, main, holds no "
                   "submissions/mine/"), (git_dir, work_tree)
    # The repository kept apart from its work tree (`git --git-dir=../repo.git`).
    work = tmp_path / "work"
    (repo / ".git").rename(tmp_path / "repo.git")
    repo.rename(work)
    monkeypatch.chdir(work)
    monkeypatch.setenv("GIT_DIR", "../repo.git")
    monkeypatch.setenv("GIT_WORK_TREE", ".")
    moved = SubmissionFiles("mine", work / "submissions" / "mine", None, FolderStore(work))
    assert not placement(moved).merged


def test_in_a_forks_clone_merged_is_what_the_projects_remote_holds(tmp_path: Path) -> None:
    """How to submit has a submitter clone their fork (`origin`, which --owner reads) and
    GitHub's and gh's way names the project's remote `upstream`: merged was read from
    origin/HEAD, the fork's branch as forked, so a submission merged since was taken for
    one not merged yet (validate refused its published explain/, score removed it). The
    project's remote, as last fetched, decides: upstream/HEAD, else upstream/main, before
    origin's."""
    project = _board_repo(tmp_path / "project")
    fork = tmp_path / "fork.git"
    _git(tmp_path, "clone", "-q", "--bare", str(project), str(fork))  # forked here
    _commit_folder(project, "published", explained=True)  # merged and published since
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(fork), str(clone))
    _git(clone, "remote", "add", "upstream", str(project))
    _git(clone, "fetch", "-q", "upstream")
    _git(clone, "switch", "-q", "-c", "my-model", "upstream/main")
    folder = clone / "submissions" / "published"
    files = SubmissionFiles("published", folder, None, configured_store(folder))
    assert placement(files) == Placement(True, None)  # upstream/main: no upstream/HEAD
    _git(clone, "remote", "set-head", "upstream", "main")
    assert placement(files) == Placement(True, None)
    _commit_folder(clone, "mine", explained=True)
    assert placement(SubmissionFiles("mine", clone / "submissions" / "mine", None,
                                     configured_store(folder))).apart == (
        "it is not merged yet: the default branch, upstream/HEAD, holds no "
        "submissions/mine/")
    # Without the project's remote, origin's branch is all git has.
    _git(clone, "remote", "remove", "upstream")
    assert not placement(files).merged
