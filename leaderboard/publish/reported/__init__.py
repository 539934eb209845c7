"""Reported leaderboard rows: published figures, each row citing where it comes from.

Sources: the benchmark papers' tables (hand transcriptions in ``data/*.yaml``, see
:mod:`.papers`), the PI-Indic-Align authors' result files (:mod:`.pi_indic_results`) and
MTEB's public results repository (:mod:`.mteb`). None of them has per-query scores, so
reported rows are never significance-tested; they are context next to verified rows.
"""

from leaderboard.publish.reported.rebuild import build_all_reported
from leaderboard.publish.reported.mteb import import_mteb
from leaderboard.publish.reported.papers import check_averages, load_paper_results, load_transcription
from leaderboard.publish.reported.pi_indic_results import import_pi_indic_results

__all__ = ["build_all_reported", "check_averages", "import_mteb", "import_pi_indic_results",
           "load_paper_results", "load_transcription"]
