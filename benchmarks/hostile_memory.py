"""Peak memory of `leaderboard eval` on hostile inputs that must stop at the error cap.

Not a test: it prints figures. Each case runs `leaderboard eval` in a fresh process and
reports its peak resident memory (``ru_maxrss`` of that one child) and wall time:

* ``gzip bomb of T4 lines as a run``: a 1.5 MB gzip file of PI-Indic T4 prediction lines
  (``t4-5f5acece6ce7 0.93``, two columns where a run has six) that inflates to 600 MiB,
  given as a T1 run. Every line is an error, so the checker stops at its 21st line; the
  file used to be inflated to the 512 MiB limit first.
* ``two runs of 10^6 unknown query ids``: FollowTable WTR runs of 10^6 lines each, every
  line a query id the task does not have; one finding per unknown query was kept
  (2x10^6 findings).

With ``--against DIR`` the same commands also run from another checkout, for a ratio:

    git archive 7d55749 | tar -x -C /tmp/before
    .venv/bin/python benchmarks/hostile_memory.py --against /tmp/before

The task data comes from ``$LEADERBOARD_DATA`` (else ../shared/data); the task-data cache
is off, so both checkouts read the same files.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Runs each command as its own child, so ru_maxrss is that command's peak alone.
MEASURE = ("import json, resource, subprocess, sys, time\n"
           "start = time.perf_counter()\n"
           "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
           "wall = time.perf_counter() - start\n"
           "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
           "print(json.dumps({'rc': done.returncode, 'peak_kib': peak, 'wall': wall,\n"
           "                  'stderr': done.stderr[-3000:]}))\n")


def write_t4_bomb(path: Path, inflated_mib: int = 600) -> None:
    line = b"t4-5f5acece6ce7 0.93\n"
    block = line * (1 << 20 // len(line) + 1)
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    with path.open("wb") as out:
        written = 0
        while written < inflated_mib << 20:
            out.write(compressor.compress(block))
            written += len(block)
        out.write(compressor.flush())


def write_unknown_queries(path: Path, doc_id: str, n_lines: int = 1_000_000,
                          prefix: str = "unknown") -> None:
    with path.open("w", encoding="utf-8") as out:
        for i in range(n_lines):
            out.write(f"{prefix}{i} Q0 {doc_id} 1 1.0 t\n")


def measure(argv: list[str], checkout: Path, data_dir: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout), LEADERBOARD_DATA_CACHE="off",
               LEADERBOARD_DATA=str(data_dir), OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-m",
                           "leaderboard.app.cli", *argv], capture_output=True, text=True,
                          env=env, cwd=checkout, check=True)
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, default=None, metavar="DIR",
                        help="another checkout to run the same commands from")
    parser.add_argument("--data-dir", type=Path, default=Path(
        os.environ.get("LEADERBOARD_DATA", ROOT.parent / "shared" / "data")))
    args = parser.parse_args(argv)
    data_dir = args.data_dir.resolve()
    first_wtr_doc = json.loads(
        (data_dir / "followtable" / "WTR" / "corpus.jsonl").open(encoding="utf-8")
        .readline())["_id"]
    sys.path.insert(0, str(ROOT))
    from benchmarks.machine import cpu_description

    print(f"host: {cpu_description()}; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}")
    checkouts = [("this checkout", ROOT)]
    if args.against is not None:
        checkouts.append((str(args.against), args.against.resolve()))
    with tempfile.TemporaryDirectory(prefix="hostile-memory-") as tmp:
        work = Path(tmp)
        write_t4_bomb(work / "t4-lines.trec.gz")
        write_unknown_queries(work / "original.trec", first_wtr_doc, prefix="unknown-og-")
        write_unknown_queries(work / "altered.trec", first_wtr_doc, prefix="unknown-alt-")
        cases = [
            ("gzip bomb of T4 lines as a run",
             ["eval", "pi-indic-val150/t1/hin", "--run", str(work / "t4-lines.trec.gz")]),
            ("two runs of 10^6 unknown query ids",
             ["eval", "followtable/wtr", "--original", str(work / "original.trec"),
              "--altered", str(work / "altered.trec")]),
        ]
        print(f"gzip file: {(work / 't4-lines.trec.gz').stat().st_size / 2**20:.1f} MiB; "
              f"runs: {(work / 'original.trec').stat().st_size / 2**20:.1f} MiB each")
        results: dict[tuple[str, str], dict] = {}
        for case, command in cases:
            for name, checkout in checkouts:
                row = measure(command, checkout, data_dir)
                results[case, name] = row
                lines = row["stderr"].strip().splitlines()
                print(f"{case} [{name}]: peak {row['peak_kib'] / 1024:.0f} MiB, "
                      f"{row['wall']:.2f} s wall, exit {row['rc']}, "
                      f"{len(lines)} line(s) on stderr")
        if args.against is not None:
            for case, _ in cases:
                before, now = results[case, str(args.against)], results[case, "this checkout"]
                print(f"{case}: peak {str(args.against)} / this checkout = "
                      f"{before['peak_kib'] / now['peak_kib']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
