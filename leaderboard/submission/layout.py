"""The layout of a submission folder ``submissions/<id>/``, declared once.

Every module that reads, checks, writes or moves a submission's files takes the names,
the owners and the limits from here: the validator (stray files), the pull-request check
(what a pull request may carry), the scorer (what it writes, and where), ``runs
add/push/pull``, publishing and ``baselines run``::

    submissions/<id>/metadata.yaml                         the submitter's
    submissions/<id>/manifest.txt                          the submitter's (`score`, `runs push`)
    submissions/<id>/runs/<task id>/<role>.trec[.gz]       the submitter's
    submissions/<id>/runs/<task id>/predictions.tsv[.gz]   PI-Indic T4, likewise
    submissions/<id>/results.json                          the scorer's
    submissions/<id>/per-query.json.gz                     the scorer's
    submissions/<id>/explain/                              CI's, after the merge
    submissions/<id>/kept.json                             CI's, after the merge

Who writes an entry decides what a pull request may do with it (:class:`Writer`):

* the **submitter**'s entries are what a pull request carries and CI reads;
* the **scorer**'s may be carried only byte-identical to what CI computes from the
  submitter's files (CI compares them and never reads them);
* **CI**'s are written after the merge; a pull request never adds, changes nor deletes
  them. A submitter's own scoring (`leaderboard score`, `baselines run`) therefore keeps
  them apart, in the run store's cache where every reader finds them by content
  (:func:`in_folder`), removes what the folder holds of them that CI did not write there
  for this submission (another's, copied with its folder; a stray file), and leaves a
  folder that is ready to commit.

The store may keep an entry instead of the folder (:attr:`Entry.stored`): the run files,
the per-query scores and the explorer's files. This module only declares; it reads and
writes nothing, so that a module changing a folder as one transaction can sit beside it
and take the entries from here.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from enum import Enum
from pathlib import PurePath
from typing import Literal

from leaderboard.core.config import data_dir_option

# Where submission folders live, in the repository and in every store.
SUBMISSIONS_DIR = "submissions"
# The branch a submission is merged into, as a local check takes it: `ci pr-check` run by
# hand and `validate` (the workflows name the repository's own default branch).
DEFAULT_BRANCH = "main"

METADATA_NAME = "metadata.yaml"
MANIFEST_NAME = "manifest.txt"
RUNS_DIR = "runs"
RESULTS_NAME = "results.json"
PER_QUERY_NAME = "per-query.json.gz"
EXPLAIN_DIR = "explain"
# Written by publishing when it keeps a merged submission's results.json on an earlier data
# revision (its runs do not fit the pinned one): what it was tried with (submission/kept.py).
KEPT_NAME = "kept.json"

# Run files under runs/<task id>/, named <role><suffix>; PI-Indic T4 predictions.tsv[.gz].
RUN_SUFFIXES = (".trec", ".trec.gz", ".txt", ".txt.gz", ".run", ".run.gz")
PREDICTION_SUFFIXES = (".tsv", ".tsv.gz")

# Limits on a submission's run files wherever they are (a pull request, the run store,
# the submitter's dataset), measured on the stored bytes (a gzipped run counts at its
# compressed size). The per-file limit keeps every file far below GitHub's 100 MB push
# limit; the per-submission limit bounds CI time. Measured with gzipped runs of random
# scores at full depth: FollowTable WQT (both roles, 1000 documents per query) is
# 13.6 MiB, the 288 PI-Indic T1-T3 runs (150 x 150) 48.8 MiB together, so a submission
# covering every task needs about 90 MiB.
MAX_FILE_BYTES = 25 * 1024 * 1024
MAX_SUBMISSION_BYTES = 128 * 1024 * 1024
MAX_FILES = 1000
# A path inside a submission folder (runs/<task id>/<file> is under 60 characters), and
# one part of it in bytes: what file systems hold (a longer name failed `ci pr-check`
# with "File name too long" as it wrote the file out).
MAX_PATH_CHARS = 300
MAX_NAME_BYTES = 255
# A manifest of MAX_FILES lines of about 130 characters, with room for comments.
MAX_MANIFEST_BYTES = 256 * 1024
MAX_METADATA_BYTES = 64 * 1024
# Bounds on the explorer's files, far above a submission of every task (708 files, the
# largest 0.3 MB of JSON), so a damaged explanation manifest cannot make a reader fetch
# without end.
MAX_EXPLAIN_FILES = 10_000
MAX_EXPLAIN_FILE_BYTES = 64 * 1024 * 1024
# Bounds on what results.json names by size (the content of the per-query file and the
# explanation manifest's bytes) and on the content of all the explanation files that
# manifest lists, far above a submission of every task (the committed bm25s, 304 tasks:
# 2.2 MB of per-query JSON, a manifest of 0.22 MB listing 708 files of 28.9 MB of JSON):
# a store streaming without Content-Length got 1 GiB of a declared size into the cache,
# then into memory.
MAX_PER_QUERY_BYTES = 64 * 1024 * 1024
MAX_EXPLAIN_MANIFEST_BYTES = 8 * 1024 * 1024
MAX_EXPLAIN_TOTAL_BYTES = 256 * 1024 * 1024
# A results file (a submission's results.json, a reported file under results/reported/),
# refused unread above this: a submission of all 313 tasks writes 0.15 MB (the committed
# ones 0.14 MB), the largest reported file is 0.84 MB; pydantic's reading takes about
# three times the file's size in memory (a 300 MB results.json took validate 0.7 GB).
MAX_RESULTS_BYTES = 16 * 1024 * 1024


class Writer(Enum):
    """Who writes an entry, and so what a pull request may do with it."""

    SUBMITTER = "the submitter"
    SCORER = "the scorer"
    CI = "CI after the merge"


@dataclass(frozen=True)
class Entry:
    """One entry at the top of a submission folder."""

    name: str
    kind: Literal["file", "folder"]
    writer: Writer
    what: str
    # The run store may keep it (its files, for a folder) instead of the folder.
    stored: bool = False

    def holds(self, rel: str) -> bool:
        """Whether ``rel`` (a path inside the submission folder) is this entry or in it."""
        return rel == self.name if self.kind == "file" else rel.startswith(self.name + "/")


ENTRIES: tuple[Entry, ...] = (
    Entry(METADATA_NAME, "file", Writer.SUBMITTER,
          "the model and how its runs were produced"),
    Entry(MANIFEST_NAME, "file", Writer.SUBMITTER,
          "every run file by SHA-256, size and path (`leaderboard score` writes it)"),
    Entry(RUNS_DIR, "folder", Writer.SUBMITTER,
          "the run files: runs/<task id>/<role>.trec[.gz], predictions.tsv[.gz] for T4",
          stored=True),
    Entry(RESULTS_NAME, "file", Writer.SCORER,
          "every score but the per-query ones"),
    Entry(PER_QUERY_NAME, "file", Writer.SCORER,
          "the per-query scores, named in results.json by size and SHA-256", stored=True),
    Entry(EXPLAIN_DIR, "folder", Writer.CI,
          "the query explorer's files, named in results.json by their manifest",
          stored=True),
    Entry(KEPT_NAME, "file", Writer.CI,
          "only while publishing keeps results.json on an earlier data revision: why, and "
          "what it was tried with"),
)
ROOT_ENTRIES = tuple(e.name for e in ENTRIES)

# The one wording of each rule, for the validator and the pull-request check alike.
STRAY_FILE = (f"unexpected file: a submission holds {METADATA_NAME}, {MANIFEST_NAME} and "
              f"{RUNS_DIR}/<task id>/<role>.trec[.gz] only")
CI_FILES = ("the explorer's files are written by CI after the merge; leave them out of "
            "the pull request")
# The same of publishing's record of a submission kept on an earlier data revision.
CI_KEPT = (f"{KEPT_NAME} is written by CI after the merge, when publishing keeps a "
           "submission on an earlier data revision; leave it out of the pull request")
# What missing or stale explanation files of a merged submission are told: CI's, which
# `score` would write into the run store's cache (explain_writers.placement), not here.
REWRITTEN_AFTER_MERGE = ("they are CI's: the publish run (`leaderboard ci score-pending`, "
                         "in a checkout of the default branch) writes them anew, and a pull "
                         "request may not change them")
# What a symbolic link in a submission folder is told, before what to do instead: it
# is never followed, here or in CI.
NO_LINKS = "symbolic links are not allowed in a submission"
# What a FIFO, a socket or a device in a submission folder is told (a link is told to
# commit the file itself): `validate` and every command that changes the folder say it.
NOT_PLAIN = "a submission holds plain files and folders only"


def left_to_ci(entry_: Entry) -> str:
    """What a pull request that changes one of CI's entries is told."""
    return CI_KEPT if entry_.name == KEPT_NAME else CI_FILES


def entry(name: str) -> Entry:
    return next(e for e in ENTRIES if e.name == name)


def entry_of(rel: str) -> Entry | None:
    """The entry a path inside a submission folder belongs to (None: a stray file)."""
    return next((e for e in ENTRIES if e.holds(rel)), None)


def written_by(writer: Writer) -> tuple[Entry, ...]:
    return tuple(e for e in ENTRIES if e.writer is writer)


def in_folder(entry_: Entry, *, after_merge: bool) -> bool:
    """Whether scoring writes ``entry_`` into the folder: CI's entries only after the
    merge (publishing); a submitter's scoring keeps them in the store's cache, so the
    folder it leaves is what a pull request may carry."""
    return entry_.writer is not Writer.CI or after_merge


def folder_path(sub_id: str, rel: str = "") -> str:
    """``submissions/<id>/<rel>``, the path from the repository's root."""
    return f"{SUBMISSIONS_DIR}/{sub_id}" + (f"/{rel}" if rel else "")


def score_command(folder: PurePath | str, data_dir: PurePath | str | None = None) -> str:
    """`leaderboard score FOLDER`, which writes the scorer's entries of ``folder`` again,
    as a message tells it: ``folder`` as whoever reads the message names it (the path
    given on the command line, which may lie outside any ``submissions/``; the
    repository's ``submissions/<id>`` in the pull-request check, not its work copy),
    quoted for a shell; with ``--data-dir DATA_DIR`` where the message's command read
    the data there (scored with the default folder, the scores would be computed on other
    data, or on none)."""
    return f"`leaderboard score {shlex.quote(str(folder))}{data_dir_option(data_dir)}`"


def listing(sub_id: str = "<id>") -> list[tuple[str, str]]:
    """Each entry as the guide lists it: its path and who writes it, what it is."""
    return [(folder_path(sub_id, e.name + ("/" if e.kind == "folder" else "")),
             f"{e.writer.value}: {e.what}") for e in ENTRIES]
