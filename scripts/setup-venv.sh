#!/usr/bin/env bash
# Create .venv and install the project. Usage: scripts/setup-venv.sh [EXTRAS]
# torch is pinned first so that the models extra takes the CPU wheel instead of pulling
# gigabytes of CUDA packages.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
if [[ "$extras" == *models* ]]; then
  .venv/bin/python -m pip install --quiet torch==2.13.0
fi
if [[ -n "$extras" ]]; then
  .venv/bin/python -m pip install --quiet -e ".[${extras}]"
else
  .venv/bin/python -m pip install --quiet -e .
fi
