#!/usr/bin/env bash
# Issue 35 item 8 on a lent GPU machine, in one command: the default TSForecaster and the
# neuralforecast peers on TEST for the five local long-horizon sets (every horizon) with
# --device cuda, many fits at once, writing docs/results/forecast/gpu/'s files.
#
# Usage, from the repository root:  docs/results/forecast/gpu/device_run.sh OUT WHEELS DATA [SECONDS]
#   OUT      folder that receives results.csv, config.json, results.md, run.log, gpu.csv (GPU use
#            sampled every 5 s), device.txt and everything in forecast_gpu.tar.gz
#   WHEELS   folder of the wheels the machine lacks (neuralforecast, coreforecast, utilsforecast)
#   DATA     a TSATTN_DATA_DIR holding forecasting/{ETTh1,ETTh2,ETTm1,exchange_rate,national_illness}.csv
#   SECONDS  wall-clock budget of the benchmark commands (default 540): each is stopped at its
#            share and a rerun resumes it
# Environment: DEVICE (default cuda), JOBS (fits at once, default 14), EXTRA (more bench options,
# e.g. a short --param max_steps=20 --peer-steps 20 to rehearse the script on a CPU), RESUME (a
# folder holding an earlier run's results.csv and config.json, e.g. docs/results/forecast/gpu:
# its finished fits are skipped, so a later lease goes on where the last one stopped).
set -uo pipefail
out=${1:?usage: device_run.sh OUT WHEELS DATA [SECONDS]}
whl=${2:?WHEELS}
data=${3:?DATA}
budget=${4:-540}
device=${DEVICE:-cuda}
jobs=${JOBS:-14}
extra=${EXTRA:-}
start=$(date +%s)
here=$(cd "$(dirname "$0")" && pwd)
res=$(mktemp -d)/forecast_gpu
mkdir -p "$out" "$res"
if [ -n "${RESUME:-}" ]; then cp "$RESUME/results.csv" "$RESUME/config.json" "$res/"; fi
site=$(mktemp -d)/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$site" "$whl"/*.whl || echo "wheels did not install: the peers will be skipped"
bash "$here/ray_stub.sh" "$site"
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" TSATTN_DATA_DIR="$data" PYTHONUNBUFFERED=1
{
    date -u
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1
    nproc
    python3 -c "import sys, torch, numpy, pandas, sklearn; print(sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'numpy', numpy.__version__, 'pandas', pandas.__version__, 'sklearn', sklearn.__version__)"
    python3 -c "import neuralforecast, pytorch_lightning; print('neuralforecast', neuralforecast.__version__, 'lightning', pytorch_lightning.__version__)" 2>&1 | tail -n 1
    git rev-parse HEAD 2>/dev/null || echo "commit: see the README"
} | tee "$out/device.txt"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -l 5 >"$out/gpu.csv" 2>&1 &
fi
(while sleep 20; do cp "$res/results.csv" "$out/results.csv" 2>/dev/null; done) &
left() { echo $(( budget - ($(date +%s) - start) )); }
bench() {  # stopped with SIGINT at the end of the budget: the finished fits stay in results.csv
    local t; t=$(left)
    if [ "$t" -lt 20 ]; then echo "no time left for: $*"; return; fi
    echo "== $(date -u +%T) bench forecast $* (budget ${t}s)"
    timeout -s INT "$t" python3 -m tsattn bench forecast --split test --device "$device" \
        --n-jobs "$jobs" -q --out "$res" "$@" $extra 2>&1 | grep -v -E "GPU available|TPU available|LOCAL_RANK|HPU available|^\s*$"
}
# longest fits first (ETTm1's peers forecast 11k windows): the short ones fill in behind them
bench --datasets ETTm1 ETTh1 ETTh2 exchange_rate illness --seeds 0 1 2 --peer-seeds 0 2>&1 | tee -a "$out/run.log"
# then the peers' second seed while time is left, the small sets first
bench --datasets illness exchange_rate ETTh2 ETTh1 ETTm1 --attentions --seeds 1 2>&1 | tee -a "$out/run.log"
kill %1 %2 2>/dev/null
cp "$res/results.csv" "$res/config.json" "$res/results.md" "$out/" 2>/dev/null
tar -czf "$out/forecast_gpu.tar.gz" -C "$(dirname "$res")" forecast_gpu
echo "done in $(( $(date +%s) - start )) s: $(($(wc -l <"$res/results.csv") - 1)) rows"
