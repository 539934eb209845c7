"""Benchmark of a submission folder's transaction (leaderboard/submission/transaction.py).

    python benchmarks/folder_change.py                       # the committed bm25s
    python benchmarks/folder_change.py --submission submissions/all-minilm-l6-v2 --repeat 5

What one change of a whole submission costs on top of the work it saves, on a copy of a
committed submission (runs, per-query file and the query explorer's explain/ of every
task): the copy beside the folder (hard links), then each of

* **nothing changed**: commit of an untouched copy (`score` of an up-to-date submission);
* **publish**: every explanation file, the per-query file, results.json and the manifest
  rewritten (new files, the same bytes: compared, not switched) and then with other bytes
  (flushed, journaled, switched: what publishing a rescored submission does);
* **runs add**: one task's run files replaced.

Each figure is the median of --repeat runs, each on a fresh copy of the submission in the
temporary folder. Writes nothing in the repository.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.machine import cpu_description  # noqa: E402
from leaderboard.submission.transaction import change_folder  # noqa: E402


def rewrite(copy: Path, paths: list[Path], same: bool) -> None:
    """Replace each file by a new one (renamed over it, as every writer does)."""
    for path in paths:
        data = path.read_bytes()
        tmp = path.with_name(path.name + ".new")
        tmp.write_bytes(data if same else data + b"\n")
        tmp.replace(path)


def timed(folder: Path, work: Callable[[Path], None]) -> dict[str, float]:
    started = time.perf_counter()
    with change_folder(folder) as change:
        copied = time.perf_counter()
        work(change.folder)
        written = time.perf_counter()
        changed = change.commit()
    done = time.perf_counter()
    return {"copy": copied - started, "commit": done - written, "files": len(changed)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submission", type=Path, default=Path("submissions/bm25s"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    source = args.submission.resolve()
    files = [p for p in source.rglob("*") if p.is_file()]
    print(f"{cpu_description()}")
    print(f"{source.name}: {len(files)} files, "
          f"{sum(p.stat().st_size for p in files) / 2**20:.1f} MiB")

    def scorer_files(copy: Path) -> list[Path]:
        return [p for p in copy.rglob("*") if p.is_file() and (
            p.relative_to(copy).parts[0] == "explain"
            or p.name in ("per-query.json.gz", "results.json", "manifest.txt"))]

    def one_task(copy: Path) -> list[Path]:
        first = sorted(p.parent for p in (copy / "runs").rglob("*") if p.is_file())[0]
        return sorted(first.iterdir())

    cases: dict[str, Callable[[Path], None]] = {
        "nothing changed": lambda copy: None,
        "publish, same bytes": lambda copy: rewrite(copy, scorer_files(copy), same=True),
        "publish, new bytes": lambda copy: rewrite(copy, scorer_files(copy), same=False),
        "runs add, one task": lambda copy: rewrite(copy, one_task(copy), same=False),
    }
    with tempfile.TemporaryDirectory(prefix="followboard-change-bench-") as tmp:
        for name, work in cases.items():
            runs = []
            for i in range(args.repeat):
                folder = Path(tmp) / f"{i}-{len(runs)}" / source.name
                shutil.copytree(source, folder)
                runs.append(timed(folder, work))
                shutil.rmtree(folder.parent)
            print(f"{name:22s} copy {statistics.median(r['copy'] for r in runs):6.3f} s, "
                  f"commit {statistics.median(r['commit'] for r in runs):6.3f} s "
                  f"({int(runs[0]['files'])} file(s) switched)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
