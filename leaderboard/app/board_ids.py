"""The ids the board holds besides a submission's own: the reference models' and the other
submissions', read where a command needs them.

The reference models are declared in ``reference_models/models.yaml``, which sits above
the submission layer (:mod:`leaderboard.submission.ids` holds the rule,
:func:`~leaderboard.submission.ids.lookalike_problem`, but cannot read the declaration):
`validate`, `ci pr-check`, its trusted comment job and `build` read them here.
"""

from __future__ import annotations

from collections.abc import Mapping

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
