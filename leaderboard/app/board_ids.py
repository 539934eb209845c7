"""The ids and model names the board holds besides a submission's own: the reference
models', the model registry's and the other submissions', read where a command needs them.

The reference models are declared in ``reference_models/models.yaml`` and the registry's
models in ``leaderboard/publish/reported/data/models.yaml``, both above the submission
layer (:mod:`leaderboard.submission.ids` holds the rules,
:func:`~leaderboard.submission.ids.lookalike_problem` and
:func:`~leaderboard.submission.ids.name_lookalike_problem`, but cannot read the
declarations): `validate`, `ci pr-check`, its trusted comment job and `build` read them
here.
"""

from __future__ import annotations

from collections.abc import Mapping

from leaderboard.publish.models import default_registry
from leaderboard.submission.ids import REFERENCE_MODEL
from reference_models.spec import load_model_specs


def reference_ids() -> frozenset[str]:
    """The declared reference models' ids (``reference_models/models.yaml``): kept for the
    runs `baselines run` makes, changed by the repository's bot, and counted, not
    declared, in their Size figures."""
    return frozenset(load_model_specs())


def taken_ids(submissions: Mapping[str, str] | None = None) -> dict[str, str]:
    """The ids a new submission's may not look like
    (:func:`~leaderboard.submission.ids.lookalike_problem`), each with whose it is: the
    reference models' and ``submissions`` (id: whose, e.g. "a submission on the base
    branch"), a submission's naming it where both hold an id."""
    return dict.fromkeys(reference_ids(), REFERENCE_MODEL) | dict(submissions or {})


def taken_names(submissions: Mapping[str, str] | None = None) -> dict[str, str]:
    """The model names a new submission's may not look like
    (:func:`~leaderboard.submission.ids.name_lookalike_problem`), each with whose it is:
    the reference models' (``reference_models/models.yaml``), every name and alias of the
    model registry, by which rows join a listed model's line, and ``submissions`` (name:
    whose, e.g. "the name of the submission bm25s on the base branch"), which name it
    where two hold a name; the reference models' first, the registry's next."""
    taken = {spec.name: f"the name of the reference model {model_id} "
                        "(reference_models/models.yaml)"
             for model_id, spec in load_model_specs().items()}
    for record in default_registry().records:
        for name in (record.name, *record.aliases, record.id):
            taken.setdefault(name, f"a name of the model {record.id} in the model registry "
                                   "(leaderboard/publish/reported/data/models.yaml)")
    return taken | dict(submissions or {})
