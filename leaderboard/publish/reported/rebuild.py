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
    written: list[Path] = []
    for yaml_name, json_name in PAPER_SOURCES.items():
        path = out_dir / json_name
        write_results(path, load_paper_results(yaml_name, TRANSCRIPTIONS_DIR))
        written.append(path)
    path = out_dir / PI_INDIC_RESULTS_FILE
    write_results(path, import_pi_indic_results(data_dir / "pi-indic" / "results"))
    written.append(path)
    path = out_dir / MTEB_RESULTS_FILE
    write_results(path, import_mteb(data_dir / "mteb-results"))
    written.append(path)
    return written
