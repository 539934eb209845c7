#!/usr/bin/env bash
# Quickstart 2: set up everything (system packages, Node tools, Python env) and run the
# whole test suite. LEADERBOARD_DATA defaults to ../shared/data beside the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
export LEADERBOARD_DATA="${LEADERBOARD_DATA:-../shared/data}"
bash scripts/install-system-deps.sh
if [[ -f package-lock.json ]]; then npm ci --silent --no-audit --no-fund; fi
bash scripts/setup-venv.sh dev,models
# Each module's bytecode is written the first time it is imported (setup-venv.sh compiles
# none); where the environment forbids it, every process would compile its imports again.
unset PYTHONDONTWRITEBYTECODE
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# One worker per CPU; --dist loadscope keeps each test module on one worker, so a module's
# expensive fixtures (the built site, Chromium, the committed runs scored) are built once.
# Skip the slowest tests with: bash scripts/test.sh -m "not slow"
.venv/bin/python -m pytest -q -n auto --dist loadscope "$@"
