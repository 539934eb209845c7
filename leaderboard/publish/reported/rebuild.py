"""Regenerate every reported results file under ``results/reported/``.

The outputs are committed; CI regenerates them and compares bytes, so everything here must be
deterministic (no timestamps, sorted inputs, canonical JSON via ``write_results``).
"""

from __future__ import annotations

from pathlib import Path

from leaderboard.publish.reported.mteb import import_mteb
from leaderboard.publish.reported.papers import DATA_DIR as TRANSCRIPTIONS_DIR
from leaderboard.publish.reported.papers import PAPER_SOURCES, load_paper_results
from leaderboard.publish.reported.pi_indic_results import import_pi_indic_results
from leaderboard.submission.results import write_results

MTEB_RESULTS_FILE = "mteb-results.json"
PI_INDIC_RESULTS_FILE = "pi-indic-results.json"


def build_all_reported(data_dir: Path, out_dir: Path) -> list[Path]:
    """Write the paper, PI-Indic-results and MTEB-results files; return their paths.

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
    written: list[Path] = []
    for name, results in files.items():
        path = out_dir / name
        write_results(path, results)
        written.append(path)
    return written
