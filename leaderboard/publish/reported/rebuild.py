"""Regenerate every reported results file under ``results/reported/``.

The outputs are committed; CI regenerates them and compares bytes, so everything here must be
deterministic (no timestamps, sorted inputs, canonical JSON via ``write_results``).
"""

from __future__ import annotations

from pathlib import Path

from leaderboard.core.errors import FollowBoardError
from leaderboard.publish.output_folder import updated_folder
from leaderboard.publish.reported.mteb import import_mteb
from leaderboard.publish.reported.papers import DATA_DIR as TRANSCRIPTIONS_DIR
from leaderboard.publish.reported.papers import PAPER_SOURCES, load_paper_results
from leaderboard.publish.reported.pi_indic_results import import_pi_indic_results
from leaderboard.submission.results import write_results

MTEB_RESULTS_FILE = "mteb-results.json"
PI_INDIC_RESULTS_FILE = "pi-indic-results.json"


class ReportedFolderError(FollowBoardError, ValueError):
    """The folder the reported files go to cannot be one (a file is in its place)."""


def build_all_reported(data_dir: Path, out_dir: Path) -> list[Path]:
    """Write the paper, PI-Indic-results and MTEB-results files, all of them or none;
    return their paths.

    ``data_dir`` is the benchmark data directory (``$LEADERBOARD_DATA``) holding
    ``mteb-results/`` and ``pi-indic/results/``; the paper transcriptions ship with the
    package.
    """
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    # Every source is read before any file is written: a wrong --data-dir (no PI-Indic or
    # MTEB results there) used to leave the paper files rewritten and stop at the first
    # missing folder.
    files = {json_name: load_paper_results(yaml_name, TRANSCRIPTIONS_DIR)
             for yaml_name, json_name in PAPER_SOURCES.items()}
    files[PI_INDIC_RESULTS_FILE] = import_pi_indic_results(data_dir / "pi-indic" / "results")
    files[MTEB_RESULTS_FILE] = import_mteb(data_dir / "mteb-results", pinned_copy=True)
    # Written into a copy of the folder that replaces it as one: a run killed between two
    # files left some old and some new, which `git add -A` then committed as a release.
    with updated_folder(out_dir, ReportedFolderError) as staging:
        for name, results in files.items():
            write_results(staging / name, results)
    return [out_dir / name for name in files]
