"""Benchmark of the run store: what git keeps, and what CI spends fetching runs.

    python benchmarks/run_store.py                          # all of it, 1,000 synthetic submissions
    python benchmarks/run_store.py --synthetic 100 --skip-clone-old

Prints

1. the git growth of adding one full submission (default: the committed
   all-minilm-l6-v2, 308 run files), measured as the packed size of the objects its
   commit adds to a fresh repository: in the old layout (runs, every per-query score and
   the query explorer's explanation files in git), with the explanation files alone left
   in git, and in the new layout with a dataset store (metadata.yaml, manifest.txt,
   results.json naming the per-query file and the explanation manifest; target under
   100 KB);
2. the size of a clone (``git clone --no-local``, its .git folder) of a repository holding
   N synthetic submissions shaped like that one, in the new layout, measured; and in the
   old layout, N times the measured growth of one (N copies of 85 MB of runs do not fit
   the development machine's disk);
3. the time CI spends fetching and verifying that submission's stored files (its runs,
   per-query file and explanation files) from a folder store and from an HTTP store on
   the loopback address, with the store's cache empty and full.

Writes nothing in the repository (a temporary folder, removed unless --keep).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.machine import cpu_description  # noqa: E402
from leaderboard.submission.explain_files import (  # noqa: E402
    read_stored_manifest,
    stored_refs,
)
from leaderboard.core.report import Report  # noqa: E402
from leaderboard.submission.results import read_results, write_results  # noqa: E402
from leaderboard.store.files import StoredRef, StoreError  # noqa: E402
from leaderboard.submission.files import SubmissionFiles  # noqa: E402
from leaderboard.store.locations import FolderStore, HttpsStore, parse_source  # noqa: E402
from leaderboard.submission.manifest import format_manifest, load_manifest  # noqa: E402
from leaderboard.submission.layout import (  # noqa: E402
    EXPLAIN_DIR,
    MANIFEST_NAME,
    RESULTS_NAME,
)

GROWTH_TARGET_BYTES = 100 * 1000
SOURCE = "hf://datasets/followboard/runs@{commit}/submissions/{id}"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


def new_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "bench@followboard.invalid")
    git(path, "config", "user.name", "bench")
    (path / "README.md").write_text("# a repository\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "base")
    return path


def packed_bytes(repo: Path) -> int:
    """Bytes of the repository's objects once packed (what a clone downloads)."""
    git(repo, "gc", "-q", "--prune=now")
    return sum(p.stat().st_size for p in (repo / ".git" / "objects").rglob("*") if p.is_file())


def commit_growth(repo: Path, write) -> int:  # noqa: ANN001 - a callable(folder)
    before = packed_bytes(repo)
    write(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "add a submission")
    return packed_bytes(repo) - before


def git_layout(src: Path, dest: Path, sub_id: str, commit: str) -> None:
    """What git keeps with a dataset store: metadata, the manifest naming the store's
    commit, results.json (its per-query scores named, not held)."""
    folder = dest / "submissions" / sub_id
    folder.mkdir(parents=True)
    shutil.copyfile(src / "metadata.yaml", folder / "metadata.yaml")
    shutil.copyfile(src / RESULTS_NAME, folder / RESULTS_NAME)
    manifest = load_manifest(src, Report(), MANIFEST_NAME)
    assert manifest is not None
    manifest.source = parse_source(SOURCE.format(commit=commit, id=sub_id))
    (folder / MANIFEST_NAME).write_text(format_manifest(manifest))


def old_layout(src: Path, dest: Path, sub_id: str) -> None:
    """Before the run store: runs, a results.json with every per-query score, and the
    explanation files."""
    folder = dest / "submissions" / sub_id
    folder.mkdir(parents=True)
    shutil.copyfile(src / "metadata.yaml", folder / "metadata.yaml")
    shutil.copytree(src / "runs", folder / "runs")
    shutil.copytree(src / EXPLAIN_DIR, folder / EXPLAIN_DIR)
    write_results(folder / RESULTS_NAME, read_results(src / RESULTS_NAME))


def explain_in_git_layout(src: Path, dest: Path, sub_id: str, commit: str) -> None:
    """The runs and per-query scores in a dataset, the explanation files still in git (as
    the store kept them before they were its files too)."""
    git_layout(src, dest, sub_id, commit)
    shutil.copytree(src / EXPLAIN_DIR, dest / "submissions" / sub_id / EXPLAIN_DIR)


def synthetic_copy(src: Path, dest: Path, sub_id: str, rng: random.Random) -> None:
    """A submission shaped like ``src`` as git keeps it, every score, digest and size its
    own (so git cannot share objects between submissions any more than real ones)."""
    def fresh(value):  # noqa: ANN001, ANN202 - JSON values
        if isinstance(value, float):
            return rng.random()
        if isinstance(value, dict):
            return {k: fresh(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fresh(v) for v in value]
        return value

    folder = dest / "submissions" / sub_id
    folder.mkdir(parents=True)
    meta = (src / "metadata.yaml").read_text().replace(f"id: {src.name}", f"id: {sub_id}")
    (folder / "metadata.yaml").write_text(meta)
    doc = json.loads((src / RESULTS_NAME).read_text())
    doc["systems"][0]["tasks"] = fresh(doc["systems"][0]["tasks"])
    doc["systems"][0]["system_id"] = sub_id
    doc["inputs_sha256"] = {k: f"{rng.getrandbits(256):064x}" for k in doc["inputs_sha256"]}
    doc["per_query_file"]["sha256"] = f"{rng.getrandbits(256):064x}"
    if "explain_manifest" in doc:
        doc["explain_manifest"]["sha256"] = f"{rng.getrandbits(256):064x}"
    (folder / RESULTS_NAME).write_text(json.dumps(doc, sort_keys=True, indent=1) + "\n")
    manifest = load_manifest(src, Report(), MANIFEST_NAME)
    assert manifest is not None
    manifest.source = parse_source(SOURCE.format(commit=f"{rng.getrandbits(160):040x}",
                                                 id=sub_id))
    for path, entry in manifest.entries.items():
        manifest.entries[path] = type(entry)(path, max(1, entry.size + rng.randint(-999, 999)),
                                             f"{rng.getrandbits(256):064x}")
    (folder / MANIFEST_NAME).write_text(format_manifest(manifest))


def clone_size(repo: Path, work: Path) -> int:
    dest = work / f"clone-{repo.name}"
    subprocess.run(["git", "clone", "-q", "--no-local", str(repo), str(dest)], check=True)
    size = sum(p.stat().st_size for p in (dest / ".git").rglob("*") if p.is_file())
    shutil.rmtree(dest)
    return size


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def fetch_all(files: SubmissionFiles, refs: list[StoredRef]) -> float:
    t0 = time.perf_counter()
    found = files.locate_all(refs)
    seconds = time.perf_counter() - t0
    bad = [v for v in found.values() if isinstance(v, StoreError)]
    if bad:
        raise SystemExit(f"fetching failed: {bad[0]}")
    return seconds


def mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submission", type=Path,
                        default=Path("submissions/all-minilm-l6-v2"))
    parser.add_argument("--synthetic", type=int, default=1000,
                        help="synthetic submissions in the clone (default 1000)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the work folder here")
    args = parser.parse_args()
    src = args.submission
    work = Path(tempfile.mkdtemp(prefix="followboard-store-")) if args.keep is None else args.keep
    work.mkdir(parents=True, exist_ok=True)
    print(f"machine: {cpu_description()}")
    try:
        manifest = load_manifest(src, Report(), MANIFEST_NAME)
        assert manifest is not None, f"{src}: no manifest"
        runs = sum(e.size for e in manifest.entries.values())
        print(f"submission: {src.name}, {len(manifest.entries)} run files, {mib(runs)}")

        # 1. git growth of one submission
        old = commit_growth(new_repo(work / "old-one"),
                            lambda repo: old_layout(src, repo, src.name))
        half = commit_growth(new_repo(work / "half-one"),
                             lambda repo: explain_in_git_layout(src, repo, src.name, "0" * 40))
        new = commit_growth(new_repo(work / "new-one"),
                            lambda repo: git_layout(src, repo, src.name, "0" * 40))
        print(f"git growth of adding it: old layout (runs, per-query scores and explanation "
              f"files in git) {mib(old)}; runs and per-query scores in the store, explanation "
              f"files in git {mib(half)}; new layout (metadata.yaml, manifest.txt, "
              f"results.json) {new / 1000:.1f} KB (target {GROWTH_TARGET_BYTES // 1000} KB, "
              f"{'met' if new < GROWTH_TARGET_BYTES else 'MISSED'}); {old / new:.0f}x less")

        # 2. a clone at N synthetic submissions
        t0 = time.perf_counter()
        repo = new_repo(work / "new-many")
        rng = random.Random(0)
        for i in range(args.synthetic):
            synthetic_copy(src, repo, f"sub-{i:04d}", rng)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "many submissions")
        packed = packed_bytes(repo)
        cloned = clone_size(repo, work)
        print(f"clone at {args.synthetic} synthetic submissions, new layout: {mib(cloned)} "
              f"(.git of a fresh clone; packed {mib(packed)}; built and measured in "
              f"{time.perf_counter() - t0:.0f} s); old layout: "
              f"{args.synthetic * old / 2**30:.1f} GiB ({args.synthetic} x the {mib(old)} "
              "measured above, not built)")

        # 3. fetching and verifying it, as CI does
        refs = [StoredRef(e.path, e.size, e.sha256) for e in manifest.entries.values()]
        results = read_results(src / RESULTS_NAME, per_query=False)
        if results.per_query_file is not None:
            refs.append(results.per_query_file.ref())
        explained = 0
        if results.explain_manifest is not None:
            local = SubmissionFiles(src.name, src, None, FolderStore(src.parent.parent))
            listed = stored_refs(read_stored_manifest(local, results.explain_manifest))
            refs += [results.explain_manifest.ref(), *listed]
            explained = len(listed) + 1
        stored = sum((src / r.path).stat().st_size for r in refs)
        root = work / "store"
        shutil.copytree(src, root / "submissions" / src.name)
        folder_files = SubmissionFiles(src.name, None, None, FolderStore(root),
                                       cache=work / "cache-folder")
        seconds = fetch_all(folder_files, refs)
        print(f"fetch and verify {len(refs)} files ({mib(stored)}; {explained} of them "
              f"explanation files) from a folder store: {seconds:.2f} s "
              f"({stored / 2**20 / seconds:.0f} MiB/s)")
        handler = functools.partial(_Quiet, directory=str(root))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            https = SubmissionFiles(
                src.name, None, None,
                HttpsStore(f"http://127.0.0.1:{server.server_address[1]}/{{+path}}"),
                cache=work / "cache-http")
            cold = fetch_all(https, refs)
            warm = fetch_all(https, refs)
        finally:
            server.shutdown()
        print(f"fetch and verify them from an HTTP store on the loopback address: "
              f"{cold:.2f} s with an empty cache ({stored / 2**20 / cold:.0f} MiB/s), "
              f"{warm:.2f} s from the cache")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
