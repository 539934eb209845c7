"""What the site shows: the pages, sections and views every benchmark declares.

The shapes (:class:`Column`, :class:`View`, :class:`Section`, :class:`Page`) live in
:mod:`leaderboard.benchmarks.views` and each benchmark's pages in its own module under
:mod:`leaderboard.benchmarks`; this module collects them in declaration order and keeps
the names the site, the standings and the tests import from here.

Nothing here reads results; :mod:`leaderboard.publish.site.board` fills the views with rows.
"""

from __future__ import annotations

from functools import cache

from leaderboard.benchmarks import BENCHMARKS, declared, reported_only_prefixes
from leaderboard.benchmarks.followtable import (  # noqa: F401 - re-exported
    FOLLOWTABLE_CONSTRAINT_NAMES,
    FT_PAPER_AVERAGE,
    FT_PAPER_NFR,
)
from leaderboard.benchmarks.pi_indic import (  # noqa: F401 - re-exported
    PI_FULL_KINDS,
    PI_FULL_PREFIX,
    PI_FULL_T4_METRICS,
    PI_KINDS,
    PI_RETRIEVAL_METRICS,
    PI_T4_METRICS,
    PI_VAL_PREFIX,
)
from leaderboard.benchmarks.views import (  # noqa: F401 - re-exported
    AveragePolicy,
    Chart,
    Column,
    HomeColumn,
    Page,
    Section,
    View,
    anchor_of,
)

# Task ids outside the registry that the site still shows, in reported-only places.
REPORTED_ONLY_PREFIXES = reported_only_prefixes()


@cache
def site_pages() -> tuple[Page, ...]:
    return tuple(page for b in declared() for page in b.pages())


def all_views() -> dict[str, View]:
    return {v.id: v for page in site_pages() for v in page.views}


# The overview's columns: each benchmark's primary metric, averaged over its collections,
# languages or datasets, and the page each links to.
HOME_COLUMNS = tuple(col for b in BENCHMARKS for col, _ in b.home())
HOME_LINKS = {col.id: page for b in BENCHMARKS for col, page in b.home()}
