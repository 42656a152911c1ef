#!/usr/bin/env bash
# Build a SPIR-V module from OpenCL C with Debian's clang and SPIR-V LLVM translator
# (apt-get install clang-15 llvm-spirv-15): OpenCL C -> LLVM bitcode for spir64 -> SPIR-V.
#   bash tools/build_spirv.sh tests/data/il_kernels.cl tests/data/il_kernels.spv
# tests/test_kernel_il.py rebuilds tests/data/il_kernels.spv this way and checks the
# committed file is what its source gives.
set -euo pipefail
source=$1
output=$2
CLANG=${CLANG:-clang-15}
LLVM_SPIRV=${LLVM_SPIRV:-llvm-spirv-15}
bitcode=$(mktemp --suffix=.bc)
trap 'rm -f "$bitcode"' EXIT
# -fno-discard-value-names keeps the parameters' names (OpName), which messages show.
"$CLANG" -cl-std=CL1.2 -target spir64-unknown-unknown -Xclang -finclude-default-header \
    -O2 -fno-discard-value-names -emit-llvm -c "$source" -o "$bitcode"
"$LLVM_SPIRV" "$bitcode" -o "$output"
