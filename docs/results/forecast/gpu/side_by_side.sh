#!/usr/bin/env bash
# Issue 52 item 3 on a lent GPU machine: today's default TSForecaster and neuralforecast's PatchTST,
# iTransformer, DLinear and NHITS on TEST in ONE run of one commit, the peers at the default's step
# rule (--peer-steps auto), 3 seeds each, the five local long-horizon sets at every horizon.
# Resumable: it goes on from docs/results/forecast/side_by_side/ (the CPU's rows, or an earlier
# lease's), skipping every finished fit; its results.csv and config.json then replace that folder's.
#
# Usage, from the repository root (a copy without .git is fine):
#   TSATTN_SOURCE_COMMIT=<the clean commit this copy is> \
#     docs/results/forecast/gpu/side_by_side.sh OUT WHEELS DATA [SECONDS]
#   OUT      receives results.csv, config.json, results.md, run.log, gpu.csv, device.txt
#   WHEELS   the wheels the machine lacks: neuralforecast 3.3.0, coreforecast, utilsforecast
#            (the H200 image of 2026-11-28 has Lightning 2.6.6, torchmetrics and safetensors)
#   DATA     a TSATTN_DATA_DIR holding forecasting/{ETTh1,ETTh2,ETTm1,exchange_rate,national_illness}.csv
#   SECONDS  wall-clock budget of the benchmark (default 540); it is stopped with SIGINT at the
#            end, its run recorded "interrupted", and the next call resumes it
# The run record (config.json) keeps the claimed commit as source_commit beside the package's
# digest; scripts/readme_tables.py accepts the rows only when that commit's package has that digest.
# Environment: JOBS (fits at once, default 14), DEVICE (default cuda), EXTRA (more bench options,
# e.g. --param max_steps=20 --peer-steps 20 to rehearse on a CPU; a later --datasets, --peers or
# an empty --attentions / --baselines replaces the grid's: the lease of 2026-11-28 ran
# EXTRA="--datasets illness exchange_rate --peers patchtst itransformer nhits --attentions --baselines"),
# FROM (the folder resumed, default docs/results/forecast/side_by_side).
set -uo pipefail
out=${1:?usage: side_by_side.sh OUT WHEELS DATA [SECONDS]}
whl=${2:?WHEELS}
data=${3:?DATA}
budget=${4:-540}
jobs=${JOBS:-14}
device=${DEVICE:-cuda}
extra=${EXTRA:-}
from=${FROM:-docs/results/forecast/side_by_side}
here=$(cd "$(dirname "$0")" && pwd)
[ -n "${TSATTN_SOURCE_COMMIT:-}" ] || git rev-parse HEAD >/dev/null 2>&1 ||
    echo "warning: no .git and no TSATTN_SOURCE_COMMIT: the rows cannot feed a README table" >&2
start=$(date +%s)
res=$(mktemp -d)/side_by_side
mkdir -p "$out" "$res"
cp "$from/results.csv" "$from/config.json" "$res/" 2>/dev/null || echo "starting a new folder"
site=$(mktemp -d)/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" \
    "$whl"/*.whl || echo "wheels did not install: the peers will be skipped"
bash "$here/ray_stub.sh" "$site"
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" TSATTN_DATA_DIR="$data" PYTHONUNBUFFERED=1
export TSATTN_SOURCE_COMMIT="${TSATTN_SOURCE_COMMIT:-}"
{
    date -u
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1
    nproc
    python3 -c "import torch, neuralforecast, pytorch_lightning as pl; print('torch', torch.__version__, 'neuralforecast', neuralforecast.__version__, 'lightning', pl.__version__)" 2>&1 | tail -n 1
} | tee "$out/device.txt"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -l 5 >"$out/gpu.csv" 2>&1 &
fi
(while sleep 20; do cp "$res/results.csv" "$res/config.json" "$out/" 2>/dev/null; done) &
left=$(( budget - ($(date +%s) - start) ))
# longest fits first (ETTm1's peers forecast 11k windows); seeds 0-2 of the default and the peers
timeout -s INT "$left" python3 -m tsattn bench forecast --split test --device "$device" \
    --n-jobs "$jobs" -q --out "$res" --datasets ETTm1 ETTh1 ETTh2 exchange_rate illness \
    --seeds 0 1 2 --peer-steps auto $extra 2>&1 |
    grep -v -E "GPU available|TPU available|LOCAL_RANK|HPU available|^\s*$" | tee -a "$out/run.log"
kill %1 %2 2>/dev/null
cp "$res/results.csv" "$res/config.json" "$res/results.md" "$out/" 2>/dev/null
echo "done in $(( $(date +%s) - start )) s: $(($(wc -l <"$res/results.csv") - 1)) rows"
