"""A submission's model facts (``type``, ``parameters``, ``instruction_trained`` in its
metadata.yaml) held to the board's, as `validate` and `ci pr-check` check them.

A model is one line on the board with one type, size and instruction training
(:mod:`leaderboard.publish.models`). For a model the model registry lists, the board shows
the registry's facts whoever submits it: a submission stating others is accepted and
warned, at their lines, that its line shows the registry's. For a model the registry does
not list, the line shows the facts of the row it is drawn from, so a submission joining
such a model (by its very name, as :func:`leaderboard.submission.ids.name_lookalike_problem`
lets it) must state the same facts as the model's other rows: one that states others is
refused, naming both values, as that model would have two identities.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from leaderboard.core.report import Report
from leaderboard.publish.models import fact_clashes, fact_text, registry_differences
from leaderboard.submission.layout import METADATA_NAME
from leaderboard.submission.metadata import key_line
from leaderboard.submission.pipeline import models_beside
from leaderboard.submission.results import ModelInfo, Source, SystemResult

REGISTRY_FILE = "leaderboard/publish/reported/data/models.yaml"


def submitted_row(sub_id: str, model: ModelInfo) -> SystemResult:
    """A submission's row as its model resolves on the board (no scores)."""
    return SystemResult(system_id=sub_id, provenance="verified",
                        source=Source(kind="scored"), model=model, tasks={})


def rows_beside(root: Path) -> list[tuple[SystemResult, str]]:
    """The submissions beside ``root`` as rows, each with whose it is
    (:func:`leaderboard.submission.pipeline.models_beside`)."""
    return [(submitted_row(sub_id, model), f"the submission {sub_id} beside it in {root.parent}")
            for sub_id, model in models_beside(root).items()]


def check_model_facts(root: Path, sub_id: str, model: ModelInfo,
                      others: Iterable[tuple[SystemResult, str]], report: Report) -> None:
    """Report, at their lines of ``root``'s metadata.yaml, the facts of submission
    ``sub_id``'s ``model`` the board will not show (a warning: the registry lists the
    model) or that give a model another identity than one of ``others`` states (an error;
    each a row with whose it is, e.g. "the submission old-model on the base branch")."""
    system = submitted_row(sub_id, model)
    display = f"{sub_id}/{METADATA_NAME}"
    path = root / METADATA_NAME
    listed = registry_differences(system)
    if listed is not None:
        record, differences = listed
        for d in differences:
            report.add(display, key_line(path, ("model", d.field)),
                       f"{d.field}: {fact_text(d.own)}; the board shows the model "
                       f"registry's for {record.name} in its place, "
                       f"{fact_text(d.other, 'none given')} "
                       f"({REGISTRY_FILE}): state that, or open an issue if the registry is "
                       "wrong", severity="warning")
        return
    rows = list(others)
    whose = {id(row): who for row, who in rows}
    told: set[str] = set()
    for other, d in fact_clashes(system, [row for row, _ in rows]):
        if d.field in told:  # the first row that states otherwise is named
            continue
        told.add(d.field)
        report.add(display, key_line(path, ("model", d.field)),
                   f"{d.field}: {fact_text(d.own)}, but {whose[id(other)]} gives "
                   f"{fact_text(d.other, 'none')} for {other.model.name!r}, the model this "
                   f"name joins on the board, which shows one {d.field}: state the same, or "
                   "choose another name (or ask the maintainers to list the model in the "
                   "model registry)")
