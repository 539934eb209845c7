"""Benchmark of `leaderboard export`: time and size of the dataset folder.

    python benchmarks/export_build.py                     # the committed results
    python benchmarks/export_build.py --synthetic 50      # 50 synthetic full submissions

The committed results are exported twice: cold (every significance test computed) and
warm (the tier cache of the cold export reused, as after `leaderboard build` in the
publish workflow). Each export prints its wall time, the CPU time of the process and its
children, and the machine's load average before and after (other work on the machine
stretches the wall time, not the CPU time). With ``--synthetic N`` the export is of N
synthetic submissions covering every task (as benchmarks/site_build.py writes them), to
measure the per-query files' bytes per submission at full size. Writes nothing in the repo.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from benchmarks.machine import cpu_description  # noqa: E402
from leaderboard.publish.export import export_dataset  # noqa: E402
from leaderboard.publish.site.repository import RepositoryRef  # noqa: E402
from fixtures.synthetic import write_tree  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
# Named by no commit, so no git command is timed.
UNPINNED = RepositoryRef(url="benchmark", ref="main", toplevel=None, pinned=False)


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed_export(root: Path, out: Path, cache: Path | None, label: str) -> dict[str, int]:
    load = os.getloadavg()[0]
    cpu, wall = cpu_seconds(), time.perf_counter()
    result = export_dataset(root, out, repo=UNPINNED, cache_dir=cache)
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    total = sum(result.files.values())
    print(f"{label}: {wall:.1f} s wall, {cpu:.1f} s CPU, load {load:.2f} -> "
          f"{os.getloadavg()[0]:.2f}; {len(result.files)} files, {total / 2**20:.2f} MiB")
    return result.files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--synthetic", type=int, default=0, metavar="N",
                        help="export N synthetic submissions of every task instead")
    parser.add_argument("--queries", type=int, default=20,
                        help="queries per synthetic task (default 20)")
    args = parser.parse_args()
    print(f"host: {cpu_description()}")
    with tempfile.TemporaryDirectory(prefix="followboard-export-") as tmp:
        work = Path(tmp)
        root = REPO
        if args.synthetic:
            root = work / "root"
            start = time.perf_counter()
            write_tree(root, args.synthetic, n_queries=args.queries, hostile=False)
            print(f"wrote {args.synthetic} synthetic submissions in "
                  f"{time.perf_counter() - start:.0f} s")
        cache = work / "cache"
        files = timed_export(root, work / "cold", cache, "cold (no tier cache)")
        timed_export(root, work / "warm", cache, "warm (tier cache reused)")
        per_query = {k: v for k, v in files.items() if k.startswith("per-query/")}
        subs = args.synthetic or len(list((REPO / "submissions").glob("*/results.json")))
        total = sum(per_query.values())
        for name, size in sorted(per_query.items()):
            print(f"  {name}: {size / 2**20:.2f} MiB")
        print(f"per-query files: {total / 2**20:.2f} MiB for {subs} submissions, "
              f"{total / subs / 2**10:.0f} KiB per submission")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
