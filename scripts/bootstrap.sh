#!/usr/bin/env bash
# Sets up the project environment .venv and installs tsattn into it; never asks, never touches
# the system Python (PEP 668: Debian's and Ubuntu's refuse `pip install` outside an environment).
#   bash scripts/bootstrap.sh        # the library and its command line
#   bash scripts/bootstrap.sh test   # plus the test, sktime, optuna, statsmodels, dask, bench
#                                    # (matplotlib) and docs (sphinx) extras
# then run everything with .venv/bin/python (no activation needed).
#
# Which environment .venv is:
#   - an existing .venv (a folder or a link) whose python runs: reused as it is;
#   - else, inside an activated virtual environment (VIRTUAL_ENV) or conda environment other than
#     base (CONDA_PREFIX): .venv becomes a link to it, so nothing is installed twice;
#   - else a new venv made with $PYTHON (default python3). Where python3 has no venv/ensurepip
#     (Debian without python3-venv) it falls back to uv, to the system pip, or to virtualenv,
#     and says what to install when none of them is there.
# An installed torch (CPU or CUDA build) is kept as it is. Without one, torch==2.13.0 is installed:
# on the project's machines that is a local CPU build (a plain `pip install torch` would pull several
# GB of CUDA packages); elsewhere pip takes it from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
ENV=.venv
PY=${PYTHON:-python3}
say() { echo "bootstrap: $*"; }
die() { echo "bootstrap: error: $*" >&2; exit 1; }
works() { [ -x "$1/bin/python" ] && "$1/bin/python" -c "import sys" >/dev/null 2>&1; }

make_venv() {
  command -v "$PY" >/dev/null 2>&1 || die "no '$PY' on PATH. Install Python >= 3.10 (Debian: \
apt install python3 python3-venv), or set PYTHON=/path/to/python3, or activate an environment."
  "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
    || die "$("$PY" -V 2>&1) is too old: tsattn needs Python >= 3.10. Set PYTHON=/path/to/python3.10+."
  say "creating $ENV with $("$PY" -V 2>&1) ($(command -v "$PY"))"
  local log; log=$(mktemp)
  if "$PY" -m venv "$ENV" >"$log" 2>&1; then rm -f "$log"; return; fi
  rm -rf "$ENV"
  say "'$PY -m venv $ENV' failed; it said:"; sed 's/^/    /' "$log" >&2; rm -f "$log"
  say "trying uv, the system pip and virtualenv instead"
  if command -v uv >/dev/null 2>&1 && uv venv --seed --python "$(command -v "$PY")" "$ENV" >/dev/null 2>&1; then
    say "created $ENV with uv"; return
  fi
  rm -rf "$ENV"
  if "$PY" -m pip --version >/dev/null 2>&1 && "$PY" -m venv --without-pip "$ENV" >/dev/null 2>&1 \
     && "$PY" -m pip --python "$ENV/bin/python" install --disable-pip-version-check -q pip >/dev/null 2>&1; then
    say "created $ENV without ensurepip; pip installed into it by the system pip"; return
  fi
  rm -rf "$ENV"
  if "$PY" -m virtualenv --version >/dev/null 2>&1 && "$PY" -m virtualenv -q "$ENV" >/dev/null 2>&1; then
    say "created $ENV with virtualenv"; return
  fi
  rm -rf "$ENV"
  die "cannot create a virtual environment: $PY has no working venv/ensurepip, and neither uv, \
pip nor virtualenv could stand in. Fix one of: 'sudo apt install python3-venv' (Debian/Ubuntu), \
install uv (https://docs.astral.sh/uv/), or create and activate an environment yourself \
(conda, virtualenv) and rerun this script."
}

active=""
if [ -n "${VIRTUAL_ENV:-}" ] && works "$VIRTUAL_ENV"; then
  active=$VIRTUAL_ENV
elif [ -n "${CONDA_PREFIX:-}" ] && [ "${CONDA_DEFAULT_ENV:-}" != base ] && works "$CONDA_PREFIX"; then
  active=$CONDA_PREFIX  # conda's base environment is left alone: a venv is made from its python
fi
if works "$ENV"; then
  if [ -n "$active" ] && [ -L "$ENV" ] && [ "$(cd "$ENV" && pwd -P)" != "$(cd "$active" && pwd -P)" ]; then
    ln -sfn "$active" "$ENV"; say "$ENV now links to the active environment $active"
  elif [ -n "$active" ] && [ ! -L "$ENV" ] && [ "$(cd "$ENV" && pwd -P)" != "$(cd "$active" && pwd -P)" ]; then
    say "reusing the project's $ENV (not the active $active; delete $ENV to use that one)"
  else
    say "reusing $ENV"
  fi
elif [ -n "$active" ]; then
  rm -rf "$ENV"; ln -s "$active" "$ENV"; say "$ENV links to the active environment $active"
else
  rm -rf "$ENV"; make_venv
fi

VPY=$ENV/bin/python
if ! "$VPY" -m pip --version >/dev/null 2>&1; then
  "$VPY" -m ensurepip -q >/dev/null 2>&1 || die "$ENV ($(cd "$ENV" && pwd -P)) has no pip; \
install pip into it (e.g. '$VPY -m ensurepip' or 'conda install pip') and rerun."
fi
if ! "$VPY" -c "import torch" >/dev/null 2>&1; then
  say "no torch found; installing torch==2.13.0"
  "$VPY" -m pip install --disable-pip-version-check -q "torch==2.13.0"
fi
extras=""
if [ "${1:-}" = "test" ]; then extras="[test,sktime,tune,stats,dask,bench,docs]"; fi
"$VPY" -m pip install --disable-pip-version-check -q -e ".${extras}"
"$VPY" -c "import sys, torch, tsattn; print(f'bootstrap: tsattn {tsattn.__version__} in {sys.prefix}, torch {torch.__version__}, cuda available: {torch.cuda.is_available()}')"
