#!/usr/bin/env bash
# Create .venv and install the project. Usage: scripts/setup-venv.sh [EXTRAS]
# torch is pinned first (scripts/install-torch.sh) so that the models extra takes the
# CPU wheel instead of pulling gigabytes of CUDA packages (TORCH_BUILD=cuda takes PyPI's
# CUDA build; the GPU runner's workflow installs it from the hashed requirements/gpu.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
# Bytecode. pip installs with --no-compile: it would compile all of the about 17,000
# installed modules one after the other (90 CPU-s with dev,models), and compileall on
# every core still took 80 s on two. The test suite imports about 6,500 of them. Only the
# packages it imports most of are compiled here (torch on the spare core while pip
# installs the rest); scripts/test.sh and scripts/build-site.sh let Python write every
# other module's bytecode the first time it is imported.
extras="${1:-}"
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --no-compile --upgrade pip
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
compiling=""
if [[ "$extras" == *models* ]]; then
  bash scripts/install-torch.sh .venv/bin/python --quiet --no-compile
  # Exit status 1 only names files that cannot compile (one of torch's is Python 2).
  { .venv/bin/python -m compileall -qq -j 0 "$site/torch" || true; } &
  compiling=$!
fi
if [[ -n "$extras" ]]; then
  .venv/bin/python -m pip install --quiet --no-compile -e ".[${extras}]"
else
  .venv/bin/python -m pip install --quiet --no-compile -e .
fi
if [[ -n "$compiling" ]]; then
  wait "$compiling"
  packages=()
  for name in mteb sentence_transformers peft polars datasets playwright; do
    if [[ -d "$site/$name" ]]; then packages+=("$site/$name"); fi
  done
  if ((${#packages[@]})); then .venv/bin/python -m compileall -qq -j 0 "${packages[@]}" || true; fi
fi
