"""Write leaderboard/core/data/pi_indic_t4_negatives.json: PI-Indic T4's hard negatives,
mined from each language's instructions under the data folder.

The package ships them so that a process reading T4's data from its files does not mine
them again (leaderboard.core.data.pi_indic, `kept_t4_negatives`). Run it only when the
pinned PI-Indic revision changes: the pair set is what submitted predictions name.

    .venv/bin/python scripts/pi-indic-t4-negatives.py [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROG = Path(__file__).name
sys.path.insert(0, str(REPO))

from leaderboard.benchmarks.registry import all_tasks  # noqa: E402
from leaderboard.core.data.pi_indic import T4_NEGATIVES_FILE, t4_negatives_table  # noqa: E402
from leaderboard.core.errors import FollowBoardError  # noqa: E402
from leaderboard.core.fileio import atomic_write_text  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=Path(
        os.environ.get("LEADERBOARD_DATA", REPO.parent / "shared" / "data")),
        help="benchmark data directory (default: $LEADERBOARD_DATA, else ../shared/data)")
    args = parser.parse_args(argv)
    try:
        table = t4_negatives_table(all_tasks().values(), args.data_dir)
    except FollowBoardError as exc:  # missing or unreadable data: its message says it all
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    # One line a language, so that a change shows as the languages it touches.
    head = json.dumps({k: v for k, v in table.items() if k != "languages"})[:-1]
    languages = ",\n".join(f"{json.dumps(lang)}: {json.dumps(entry, separators=(',', ':'))}"
                            for lang, entry in table["languages"].items())
    atomic_write_text(T4_NEGATIVES_FILE, f'{head}, "languages": {{\n{languages}\n}}}}\n')
    print(f"wrote {T4_NEGATIVES_FILE}: {len(table['languages'])} languages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
