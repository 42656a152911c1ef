#!/usr/bin/env bash
# The conformance reports of the GPU machine: NVIDIA's OpenCL on the H100 and PoCL 5.0, one
# report directory each under OUT_DIR, then the categories x drivers matrix (conformance/README.md).
# Run in the checkout on that machine: bash tools/gpu_conformance.sh OUT_DIR [COMMIT]
# (the copy there may have no .git: pass the commit being tested).
set -uo pipefail
out=${1:?usage: bash tools/gpu_conformance.sh OUT_DIR [COMMIT]}
commit=${2:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
source tools/gpu_env.sh
# That machine has 128 GiB: let BU-20 allocate up to 2 GiB near max_mem_alloc_size.
export SYCL_OCL_CONFORMANCE_MAX_ALLOC_MB=${SYCL_OCL_CONFORMANCE_MAX_ALLOC_MB:-2048}
python3 -m conformance --list-devices
status=0
python3 -m conformance --device 'NVIDIA' --commit-hash "$commit" --report-dir "$out/nvidia-h100" || status=1
python3 -m conformance --device 'Portable Computing Language' --commit-hash "$commit" \
    --report-dir "$out/pocl-5.0" || status=1
python3 -m conformance.matrix "$out"
exit $status
