"""Which qrels a FollowIR-style standard metric was computed against, in its metric key.

FollowIR and mFollowIR score two runs per query, one with the original instruction and one
with the altered ("changed") instruction, each against its own qrels. The leaderboard's keys
say so: ``original/AP@1000`` is the original-instruction run against the original qrels,
``altered/AP@1000`` the altered run against the altered qrels. Verified rows and mteb >= 2
files are computed that way.

mteb 1.x loaded the two qrels the wrong way round (mteb 1.12.75,
``AbsTaskInstructionRetrieval.py`` lines 112-113): what its files label
``individual.original`` is the original-instruction run scored against the *changed* qrels,
and ``individual.changed`` the altered run scored against the *original* qrels. p-MRR, which
compares the two runs' rankings of the changed documents, is unaffected. The FollowIR
paper's Table 2 was produced the same way (its standard metrics match mteb 1.x files, not
mteb 2.x ones). Such figures get keys of their own, so no column, sort or average ever puts
them beside figures computed against the right qrels:

* ``original-run@changed-qrels/<metric>`` (the source's label: "original");
* ``altered-run@original-qrels/<metric>`` (the source's label: "changed").
"""

from __future__ import annotations

SWAPPED_ORIGINAL = "original-run@changed-qrels"
SWAPPED_ALTERED = "altered-run@original-qrels"

# The role prefix a source's label ends up under, by whether the source swapped the qrels.
_LABEL_TO_PREFIX = {
    (False, "original"): "original", (False, "altered"): "altered",
    (True, "original"): SWAPPED_ORIGINAL, (True, "altered"): SWAPPED_ALTERED,
}


def relabel(role: str, metric: str, qrels_swapped: bool) -> str:
    """The key of a standard metric that a source labels ``role`` ("original"/"altered")."""
    try:
        prefix = _LABEL_TO_PREFIX[(qrels_swapped, role)]
    except KeyError:
        raise ValueError(f"unknown instruction role {role!r}") from None
    return f"{prefix}/{metric}"


def mteb_swaps_qrels(mteb_version: str) -> bool:
    """mteb 1.x (and older) scored each run against the other run's qrels.

    Raises ValueError when the version does not start with a number."""
    major = mteb_version.split(".", 1)[0]
    if not major.isdigit():
        raise ValueError(f"mteb_version {mteb_version!r} does not start with a number")
    return int(major) < 2
