#!/usr/bin/env bash
# Builds bench/cuda_refcheck.cu with the four CUDA reference kernels (each compiled on its own with
# -Dkf_launch=kf_ref_<task>, so their entry points don't clash) and runs it on the GPU; the table it prints last
# is the one in docs/reference-kernels.md. Not part of the Makefile.
# Usage: bash bench/cuda_refcheck.sh [--build-only | --run-only] [--sanitize] [checker args: --quick --no-fork --task T]
# KF_REFCHECK_DIR: where to build (default .gpu/refcheck).
set -euo pipefail
cd "$(dirname "$0")/.."

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
BUILD_DIR=${KF_REFCHECK_DIR:-.gpu/refcheck}
ARCH=-gencode=arch=compute_90a,code=sm_90a
TASKS="vector_add softmax_rows layernorm_bf16 matmul_bf16"

build=1 run=1 sanitize=0
args=()
for a in "$@"; do
    case $a in
        --build-only) run=0 ;;
        --run-only) build=0 ;;
        --sanitize) sanitize=1 ;;
        *) args+=("$a") ;;
    esac
done

if [ $build = 1 ]; then
    mkdir -p "$BUILD_DIR"
    for t in $TASKS; do
        "$NVCC" -O3 -std=c++17 $ARCH -Ireference_kernels -Dkf_launch=kf_ref_$t -c reference_kernels/cuda/$t.cu -o "$BUILD_DIR/$t.o" &
    done
    wait
    "$NVCC" -O3 -std=c++17 $ARCH bench/cuda_refcheck.cu $(for t in $TASKS; do echo "$BUILD_DIR/$t.o"; done) \
        -lcublas -o "$BUILD_DIR/cuda_refcheck"
    echo "built $BUILD_DIR/cuda_refcheck"
fi
[ $run = 1 ] || exit 0

if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,power.limit --format=csv
fi
if command -v cuobjdump >/dev/null; then
    echo "HGMMA instructions in matmul_bf16: $(cuobjdump --dump-sass "$BUILD_DIR/matmul_bf16.o" | grep -c HGMMA)"
fi
SANITIZE_TIMEOUT_S=240
sanitize_rc=0
if [ $sanitize = 1 ]; then
    timeout $SANITIZE_TIMEOUT_S compute-sanitizer --tool memcheck --error-exitcode 1 \
        "$BUILD_DIR/cuda_refcheck" --quick --no-fork || sanitize_rc=$?
    echo "compute-sanitizer memcheck (small shapes): exit $sanitize_rc"
fi
check_rc=0
"$BUILD_DIR/cuda_refcheck" ${args[@]+"${args[@]}"} || check_rc=$?
[ $check_rc = 0 ] && [ $sanitize_rc = 0 ]
