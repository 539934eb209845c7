"""Inputs a person types into a dispatched workflow, checked before anything uses them.

``baselines.yml`` takes model ids from the ``workflow_dispatch`` form and turns each into
``submissions/<id>/`` and a branch name, then ``git add``s that folder: an id like ``..``
or ``.`` would stage the whole repository. An id must therefore be a whole-string match of
the submission id shape *and* a model declared in ``reference_models/models.yaml``.
"""

from __future__ import annotations

from collections.abc import Iterable

from leaderboard.submission.ids import id_problem


def check_model_ids(ids: Iterable[str], declared: Iterable[str]) -> list[str]:
    """Problems with the dispatched model ids (empty when every id may be run)."""
    known = set(declared)
    problems: list[str] = []
    seen: set[str] = set()
    words = list(ids)
    if not words:
        problems.append("no model id given")
    for word in words:
        if id_problem(word):
            problems.append(f"{word!r} is not a model id ({id_problem(word)})")
        elif word not in known:
            problems.append(f"{word!r} is not declared in reference_models/models.yaml "
                            "(see `leaderboard baselines list`)")
        elif word in seen:
            problems.append(f"{word!r} is given twice")
        seen.add(word)
    return problems
