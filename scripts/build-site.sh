#!/usr/bin/env bash
# Quickstart 1: set up, then build the leaderboard site offline from the committed results.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-venv.sh
unset PYTHONDONTWRITEBYTECODE  # bytecode written at first import (setup-venv.sh compiled none)
.venv/bin/leaderboard build --out site/build
echo "Site built in site/build/ (open site/build/index.html, or: .venv/bin/python -m http.server -d site/build)"
