#!/usr/bin/env bash
# Install torch==2.13.0 into the environment of PYTHON, before anything that depends on
# torch. Usage: [TORCH_BUILD=cpu|cuda] scripts/install-torch.sh PYTHON [PIP OPTIONS...]
# cpu (the default): PyPI's Linux wheel of torch is the CUDA build, which pulls gigabytes
# of NVIDIA packages onto machines that will never use them. A wheel pip reaches without
# an index (a find-links folder, as on the project's development and CI machines, which
# have no other way to PyTorch's files) is taken as it is; otherwise PyTorch's own CPU
# index, whose 2.13.0+cpu sorts above PyPI's 2.13.0. cuda: PyPI's wheel, for a GPU
# machine (the GPU runner's workflow installs the same torch from requirements/gpu.txt,
# with hashes). torch's own dependencies come with the project's install that follows.
set -euo pipefail
python="$1"
shift
case "${TORCH_BUILD:-cpu}" in
  cuda) "$python" -m pip install "$@" torch==2.13.0 ;;
  cpu)
    if ! "$python" -m pip install --no-index --no-deps "$@" torch==2.13.0 2>/dev/null; then
      "$python" -m pip install --extra-index-url https://download.pytorch.org/whl/cpu "$@" torch==2.13.0
    fi ;;
  *) echo "install-torch.sh: TORCH_BUILD must be cpu or cuda, not '${TORCH_BUILD}'" >&2; exit 2 ;;
esac
