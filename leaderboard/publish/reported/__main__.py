"""``python -m leaderboard.publish.reported [OUT_DIR]``: regenerate results/reported/*.json."""

from __future__ import annotations

import sys
from pathlib import Path

from leaderboard.core.data.base import resolve_data_dir
from leaderboard.publish.models import ModelRegistryError
from leaderboard.publish.reported.rebuild import ReportedFolderError, build_all_reported
from leaderboard.publish.reported.mteb import MtebImportError
from leaderboard.publish.reported.papers import TranscriptionError
from leaderboard.publish.reported.pi_indic_results import PiIndicResultsError


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out_dir = Path(args[0]) if args else Path("results/reported")
    try:
        paths = build_all_reported(resolve_data_dir(), out_dir)
    except (MtebImportError, TranscriptionError, PiIndicResultsError, ModelRegistryError,
            ReportedFolderError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for path in paths:
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
