#!/usr/bin/env bash
# Create .venv and install the project. Usage: scripts/setup-venv.sh [EXTRAS]
# torch is pinned first so that the models extra takes the CPU wheel instead of pulling
# gigabytes of CUDA packages.
set -euo pipefail
cd "$(dirname "$0")/.."
# pip installs with --no-compile: it would byte-compile all of the about 17,000 installed
# modules one after the other (90 CPU-s with dev,models), and compileall on every core still
# took 80 s on two. The whole test suite imports about 6,700 of them; scripts/test.sh and
# scripts/build-site.sh let Python write each one's bytecode the first time it is imported.
extras="${1:-}"
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --no-compile --upgrade pip
if [[ "$extras" == *models* ]]; then
  .venv/bin/python -m pip install --quiet --no-compile torch==2.13.0
fi
if [[ -n "$extras" ]]; then
  .venv/bin/python -m pip install --quiet --no-compile -e ".[${extras}]"
else
  .venv/bin/python -m pip install --quiet --no-compile -e .
fi
