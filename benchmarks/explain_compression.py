"""How the explanation files' gzip writer trades CPU time for bytes.

Not a test: it prints figures. Every explanation file of a committed submission is
inflated, then compressed again by zlib at several levels and by ISA-L (the ``isal``
package, which the run reader already uses to inflate) at each of its levels; for each,
the CPU seconds and the bytes. The project's writer
(:func:`leaderboard.core.fileio.gzip_bytes`) is the row marked ``*``.

    .venv/bin/python benchmarks/explain_compression.py                 # bm25s
    .venv/bin/python benchmarks/explain_compression.py --submission all-minilm-l6-v2
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.machine import cpu_description  # noqa: E402
from leaderboard.core.fileio import GZIP_WRITER, gzip_bytes  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submission", default="bm25s")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many passes")
    args = parser.parse_args()
    folder = REPO / "submissions" / args.submission / "explain"
    files = sorted(folder.rglob("*.json.gz"))
    if not files:
        sys.exit(f"{folder}: no explanation files")
    contents = [gzip.decompress(path.read_bytes()) for path in files]
    total = sum(map(len, contents))
    print(f"{cpu_description()}\n{args.submission}: {len(files)} files, "
          f"{total / 1e6:.1f} MB of JSON; best of {args.repeat}")
    writers = [(f"zlib level {level}", lambda d, lv=level: zlib.compress(d, lv, wbits=31))
               for level in (9, 6, 4, 1)]
    try:
        from isal import isal_zlib

        writers += [(f"isal level {level}",
                     lambda d, lv=level: isal_zlib.compress(d, lv, wbits=31))
                    for level in (3, 2, 1, 0)]
    except ImportError:
        print("(isal is not installed: zlib only)")
    writers.append((f"* {GZIP_WRITER}", gzip_bytes))
    base = None
    for name, write in writers:
        best = float("inf")
        size = 0
        for _ in range(args.repeat):
            start = time.process_time()
            size = sum(len(write(content)) for content in contents)
            best = min(best, time.process_time() - start)
        base = base or (best, size)
        print(f"  {name:24} {best:6.3f} CPU-s {total / best / 1e6:7.1f} MB/s   "
              f"{size / 1e6:6.2f} MB ({100 * (size / base[1] - 1):+5.1f}%), "
              f"{base[0] / best:5.1f}x less CPU than zlib level 9")


if __name__ == "__main__":
    main()
