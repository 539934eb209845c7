"""Every benchmark the leaderboard knows, one declaration each, in registry order.

To add a benchmark: write a module here declaring a :class:`Benchmark` (its tasks, each
naming its reader's layout, and its upstream source), a ``<benchmark>_views`` module with
its site pages and home columns, and list it in :data:`BENCHMARKS`. The registry, the data
loader, ``data pull``, the site and the paper importer read this tuple through
:func:`declared` and the functions below.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from leaderboard.benchmarks.declaration import Benchmark
from leaderboard.benchmarks.followir import FOLLOWIR
from leaderboard.benchmarks.followtable import FOLLOWTABLE
from leaderboard.benchmarks.mfollowir import MFOLLOWIR, MFOLLOWIR_CL
from leaderboard.benchmarks.pi_indic import PI_INDIC

if TYPE_CHECKING:  # built only where the site is (each benchmark's _views module)
    from leaderboard.benchmarks.views import HomeColumn, Page, View

BENCHMARKS: tuple[Benchmark, ...] = (FOLLOWIR, MFOLLOWIR, MFOLLOWIR_CL, FOLLOWTABLE, PI_INDIC)

__all__ = ["BENCHMARKS", "Benchmark", "all_views", "benchmark_of", "declared", "home_columns",
           "reported_only_prefixes", "site_pages"]


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


@cache
def site_pages() -> tuple[Page, ...]:
    """Every benchmark's site pages, in declaration order."""
    return tuple(page for b in declared() for page in b.pages())


def all_views() -> dict[str, View]:
    """Every leaderboard view by id, in declaration order."""
    return {v.id: v for page in site_pages() for v in page.views}


def home_columns() -> tuple[tuple[HomeColumn, str], ...]:
    """The home page's columns (each benchmark's primary metric, averaged over its
    collections, languages or datasets) with the page each links to."""
    return tuple(column for b in declared() for column in b.home())
