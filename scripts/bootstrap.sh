#!/usr/bin/env bash
# Installs tsattn and what it needs into the current Python environment.
#   bash scripts/bootstrap.sh        # the library and its command line
#   bash scripts/bootstrap.sh test   # plus the test, sktime, optuna and statsmodels extras
# An installed torch (CPU or CUDA build) is kept as it is. Without one, torch==2.13.0 is installed:
# on the project's machines that is a local CPU build (a plain `pip install torch` would pull several
# GB of CUDA packages); elsewhere pip takes it from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c "import torch" >/dev/null 2>&1; then
  echo "bootstrap: no torch found; installing torch==2.13.0"
  "$PY" -m pip install --disable-pip-version-check -q "torch==2.13.0"
fi
extras=""
if [ "${1:-}" = "test" ]; then extras="[test,sktime,tune,stats]"; fi
"$PY" -m pip install --disable-pip-version-check -q -e ".${extras}"
"$PY" -c "import torch, tsattn; print(f'bootstrap: tsattn {tsattn.__version__}, torch {torch.__version__}, cuda available: {torch.cuda.is_available()}')"
