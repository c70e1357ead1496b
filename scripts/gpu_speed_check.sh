#!/usr/bin/env bash
# The GPU half of issue 38's measurements, in one command on a lent GPU machine (about 3 minutes):
#
#   1. `tsattn profile fit --device cuda`: a training step of each default estimator by part, with
#      device time, kernel launches and host-device syncs (docs/results/speed/profile_fit/);
#   2. the CUDA test that a training epoch waits for the device once (tests/test_training_loop_speed.py);
#   3. with BASELINE and DATA: default TSClassifier fits of two UEA sets on the GPU, this code against
#      the earlier code in BASELINE, interleaved in the same run (`tsattn bench fit-time --baseline`).
#
# Usage, from the repository root:  scripts/gpu_speed_check.sh OUT [BASELINE DATA]
#   OUT       folder for the results: tables.md, summary.json and everything in gpu_speed_check.tar.gz
#   BASELINE  a folder holding the earlier tsattn/ package, e.g. made on a machine with git by
#             `mkdir -p .gpu_check/base && git archive a1d3370 tsattn | tar -x -C .gpu_check/base`
#   DATA      a TSATTN_DATA_DIR holding uea/BasicMotions_TRAIN.ts and uea/ArticularyWordRecognition_TRAIN.ts
#             (e.g. `mkdir -p .gpu_check/data/uea && cp ../shared/datasets/uea/{BasicMotions,ArticularyWordRecognition}_TRAIN.ts .gpu_check/data/uea/`)
# Carry .gpu_check when the folder is git-ignored; .gpu_check/ is not ignored by the repository.
set -uo pipefail
out=${1:?usage: scripts/gpu_speed_check.sh OUT [BASELINE DATA]}
base=${2:-}
data=${3:-}
work=$(mktemp -d)
mkdir -p "$out"
start=$(date +%s)
python3 -c "import torch; print(torch.__version__, torch.cuda.get_device_name())" | tee "$work/device.txt"
python3 -m tsattn profile fit --device cuda --no-full-fit --steps 100 --warmup-steps 100 \
    --out "$work/profile_fit" 2>&1 | tail -n 60
python3 -m pytest -q -p no:cacheprovider tests/test_training_loop_speed.py -k cuda \
    >"$work/cuda_sync_test.log" 2>&1
echo "CUDA sync test: exit $? ($(tail -n 1 "$work/cuda_sync_test.log"))"
if [ -n "$base" ] && [ -n "$data" ]; then
    TSATTN_DATA_DIR="$data" python3 -m tsattn bench fit-time --datasets BasicMotions \
        ArticularyWordRecognition --baseline "$base" --repeats 1 --param device=cuda \
        --out "$work/fit_time" 2>&1 | tail -n 20
    cp "$work/fit_time/summary.json" "$out/summary.json" 2>/dev/null
fi
cp "$work/profile_fit/tables.md" "$out/tables.md" 2>/dev/null
tar -czf "$out/gpu_speed_check.tar.gz" -C "$work" .
echo "wrote $out/tables.md, $out/summary.json and $out/gpu_speed_check.tar.gz in $(( $(date +%s) - start )) s"
