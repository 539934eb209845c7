#!/usr/bin/env bash
# Create .venv and install the project. Usage: scripts/setup-venv.sh [EXTRAS]
# torch is pinned first so that the models extra takes the CPU wheel instead of pulling
# gigabytes of CUDA packages.
set -euo pipefail
cd "$(dirname "$0")/.."
# pip byte-compiles every installed module one after the other (about 17,000 files with
# dev,models: 90 CPU-s); compileall does it afterwards on every core (about 60 s wall on
# two). The project's own modules are compiled too: where PYTHONDONTWRITEBYTECODE is set
# (as on the development hosts), Python never writes them, and every process would
# compile them again.
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
# Exit status 1 only names files that cannot compile, which pip skips too (one of torch's
# is Python 2); anything else fails the import that needs it, loudly.
.venv/bin/python -m compileall -qq -j 0 .venv/lib/python3*/site-packages leaderboard \
  reference_models tests benchmarks || true
