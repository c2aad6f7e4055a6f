#!/usr/bin/env bash
# Install the CPU build of torch 2.13.0 that the smoke tests run, never a CUDA build.
# On plain PyPI `torch==2.13.0` is the CUDA build plus ~19 nvidia wheels (several GB); the CPU build
# is `2.13.0+cpu`, served by the PyTorch CPU index or a local wheel cache (pip's find-links).
# Without either, torch is left out: the tests that need it skip and say why.
set -uo pipefail
python=${1:?usage: install_cpu_torch.sh PYTHON}
pip=("$python" -m pip --disable-pip-version-check -q)
index=https://download.pytorch.org/whl/cpu
if "$python" -c 'import torch, sys; sys.exit(torch.__version__ != "2.13.0+cpu")' 2>/dev/null; then
  exit 0
fi
if "$python" -c "import urllib.request as u; u.urlopen('$index/torch/', timeout=5)" 2>/dev/null; then
  echo "note: installing torch 2.13.0+cpu from the PyTorch CPU index (about 200 MB)"
  "${pip[@]}" install 'torch==2.13.0+cpu' --extra-index-url "$index" && exit 0
fi
if "${pip[@]}" install --only-binary :all: 'torch==2.13.0+cpu' 2>/dev/null; then
  exit 0
fi
echo "note: no CPU build of torch 2.13.0 reachable ($index, or a local wheel cache);" \
  "the torch smoke tests will skip. To run them: $python -m pip install torch==2.13.0+cpu --index-url $index" >&2
exit 0
