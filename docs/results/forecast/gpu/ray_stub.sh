#!/usr/bin/env bash
# Writes an import-only stand-in for `ray` into the folder $1 (put on PYTHONPATH after it).
#
# Why: neuralforecast imports ray at module level for its Auto* tuners, which the peers of
# `tsattn bench forecast` never use (they train PatchTST, iTransformer, DLinear and NHITS directly).
# The lent GPU machines cannot fetch packages and ray's wheel (79 MB) is larger than what may be
# carried there (64 MiB), so this stand-in lets `import neuralforecast` succeed; anything that
# actually calls ray raises. It is used on the device machine only, never by tsattn or its tests.
set -euo pipefail
site=${1:?usage: ray_stub.sh SITE_DIR}
mkdir -p "$site/ray/tune/integration" "$site/ray/tune/search"
cat >"$site/ray/_unavailable.py" <<'PY'
"""Import-only stand-in for ray (docs/results/forecast/gpu/ray_stub.sh): using it raises."""


class Unavailable:
    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ray is not installed here (an import-only stand-in)")

    def __getattr__(self, name):
        raise RuntimeError(f"ray is not installed here (ray...{name})")
PY
printf 'from ray import air, tune  # noqa: F401\n' >"$site/ray/__init__.py"
printf 'from ray._unavailable import Unavailable\nRunConfig = Unavailable\n' >"$site/ray/air.py"
printf 'from ray._unavailable import Unavailable\n\n\ndef __getattr__(name):\n    return Unavailable()\n' >"$site/ray/tune/__init__.py"
: >"$site/ray/tune/integration/__init__.py"
printf 'from ray._unavailable import Unavailable as TuneReportCallback  # noqa: F401\n' >"$site/ray/tune/integration/pytorch_lightning.py"
: >"$site/ray/tune/search/__init__.py"
printf 'from ray._unavailable import Unavailable as BasicVariantGenerator  # noqa: F401\n' >"$site/ray/tune/search/basic_variant.py"
