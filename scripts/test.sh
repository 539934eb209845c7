#!/usr/bin/env bash
# Quickstart 2: set up everything (system packages, Node tools, Python env) and run the
# whole test suite. LEADERBOARD_DATA defaults to ../shared/data beside the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
export LEADERBOARD_DATA="${LEADERBOARD_DATA:-../shared/data}"
# The system packages install beside the Python environment: neither needs the other,
# and on a fresh machine apt-get and pip each wait on downloads and the disk.
bash scripts/install-system-deps.sh &
system=$!
bash scripts/setup-venv.sh dev,models
wait "$system"
if [[ -f package-lock.json ]]; then npm ci --silent --no-audit --no-fund; fi
# A module setup-venv.sh did not compile has its bytecode written the first time it is
# imported; where the environment forbids that, every process would compile it again.
unset PYTHONDONTWRITEBYTECODE
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# One worker per CPU; --dist loadscope keeps each test module on one worker, so a module's
# expensive fixtures (the built site, Chromium, the committed runs scored) are built once.
# Skip the slowest tests with: bash scripts/test.sh -m "not slow"
.venv/bin/python -m pytest -q -n auto --dist loadscope "$@"
