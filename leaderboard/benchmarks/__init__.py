"""Every benchmark the leaderboard knows, one declaration each, in registry order.

To add a benchmark: write a module here declaring a :class:`Benchmark` (its tasks, reader,
upstream source, pages and home columns) and list it in :data:`BENCHMARKS`. The registry,
the data loader, ``data pull``, the site layout and the paper importer read this tuple.
"""

from __future__ import annotations

from leaderboard.benchmarks.declaration import Benchmark, reader_name_of
from leaderboard.benchmarks.followir import FOLLOWIR
from leaderboard.benchmarks.followtable import FOLLOWTABLE
from leaderboard.benchmarks.mfollowir import MFOLLOWIR, MFOLLOWIR_CL
from leaderboard.benchmarks.pi_indic import PI_INDIC

BENCHMARKS: tuple[Benchmark, ...] = (FOLLOWIR, MFOLLOWIR, MFOLLOWIR_CL, FOLLOWTABLE, PI_INDIC)

__all__ = ["BENCHMARKS", "Benchmark", "benchmark_of", "declared", "reader_name_of",
           "reported_only_prefixes"]


def declared() -> tuple[Benchmark, ...]:
    """The declarations, read at call time (so a test can declare one more)."""
    return BENCHMARKS


def benchmark_of(benchmark_id: str) -> Benchmark:
    """The declaration with this id (a task's ``benchmark``)."""
    for b in BENCHMARKS:
        if b.id == benchmark_id:
            return b
    raise KeyError(f"no benchmark declaration {benchmark_id!r}; declared: "
                   + ", ".join(b.id for b in BENCHMARKS))


def reported_only_prefixes() -> tuple[str, ...]:
    """Task-id prefixes of figures a paper reports that no scored task uses."""
    return tuple(p for b in BENCHMARKS for p in b.reported_only_prefixes)
