"""``submissions/<id>/kept.json``: a merged submission publishing kept on an earlier data
revision, and what it was tried with.

After the registry's pin moves, publishing (`leaderboard ci score-pending`) rescores every
merged submission of that data on the new revision. One whose runs do not fit it (a query
the revision dropped, T4 pair ids it no longer has) cannot be rescored: its results.json is
kept as it was, on the earlier revision. That outcome follows from three things only: the
submission's inputs (metadata.yaml and the run files, by SHA-256), the revisions the
registry pins for its tasks, and the scorer's version. Without a record of them, every
later push tried it again, failed alike and warned alike. CI writes this record when it
keeps a submission (:func:`write_kept`), and publishing tries the submission again only when
one of the three differs from it (:func:`read_kept` and :class:`Trial`'s equality); a
scoring after the merge that succeeds removes it (:func:`leaderboard.submission.pipeline.
score_submission`). A pull request never carries it (the layout's CI entries).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from leaderboard.core.fileio import atomic_write_text
from leaderboard.submission.layout import KEPT_NAME
from leaderboard.submission.transaction import change_folder

KEPT_FORMAT = "followboard-kept/1"
# A record is a few hundred bytes per run file; read none larger.
MAX_KEPT_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Trial:
    """What decides whether a merged submission scores on the pinned data: two trials
    that are equal end alike."""

    inputs_sha256: dict[str, str]   # as results.json records them (manifest.input_digests)
    pinned: dict[str, str]          # task -> repository@revision the registry pins
    scorer: str                     # "followboard <version>", as produced_by names it


class KeptRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    format: str = KEPT_FORMAT
    why: str                        # what a reader of the file is told
    kept_on: dict[str, str]         # task -> the revision its results.json stays on
    inputs_sha256: dict[str, str]
    pinned: dict[str, str]
    scorer: str

    @property
    def trial(self) -> Trial:
        return Trial(dict(self.inputs_sha256), dict(self.pinned), self.scorer)


def kept_text(trial: Trial, kept_on: dict[str, str]) -> str:
    """The record of a submission kept on ``kept_on`` (task -> recorded revision) when
    tried as ``trial``, as the file holds it."""
    record = KeptRecord(
        why=("Publishing could not rescore this submission on the data revision the "
             "registry pins (its runs do not fit it) and kept its results.json on the "
             "earlier revision. It is tried again only when its metadata.yaml or run "
             "files, the pinned revision of one of its tasks or the scorer's version "
             "differ from those below; a successful scoring removes this file."),
        kept_on=dict(sorted(kept_on.items())), inputs_sha256=trial.inputs_sha256,
        pinned=dict(sorted(trial.pinned.items())), scorer=trial.scorer)
    return json.dumps(record.model_dump(mode="json"), indent=1, ensure_ascii=False) + "\n"


def write_kept(folder: Path, trial: Trial, kept_on: dict[str, str]) -> None:
    """Write ``folder``'s record (:func:`kept_text`), as one change of the folder
    (:func:`leaderboard.submission.transaction.change_folder`, whose ChangeError says why
    it could not be made)."""
    with change_folder(folder) as change:
        atomic_write_text(change.folder / KEPT_NAME, kept_text(trial, kept_on))
        change.commit()


def read_kept(folder: Path) -> KeptRecord | None:
    """``folder``'s record, or None where there is none that can be read (a link, a file
    too large, not the record's JSON, another format): then the submission is tried
    again, as it was before such records existed."""
    path = folder / KEPT_NAME
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_KEPT_BYTES:
            return None
        record = KeptRecord.model_validate_json(path.read_bytes())
    except (OSError, ValidationError):
        return None
    return record if record.format == KEPT_FORMAT else None
