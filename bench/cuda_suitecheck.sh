#!/usr/bin/env bash
# Builds bench/cuda_suitecheck.cu (linked with kforge's own task loader, sampler and comparison from build/libkforge.a)
# and, for every task, its CUDA reference exactly as kforge builds a candidate (generated kf_task.h force-included,
# generated shim, -cudart shared) plus its fp64 oracle; then runs the checker on the GPU. The table it prints last is
# the one in docs/task-suite.md. Build where kforge builds (cJSON, libkforge.a); run on the GPU machine.
# Usage: bash bench/cuda_suitecheck.sh [--build-only | --run-only] [--sanitize] [--level N] [TASK...]
#   default tasks: every task of level N (default 1) that has a CUDA reference, after the copy-bandwidth row (the
#   build also builds every reference on the generic op library, of any level: cuda_suitecheck --list-generic).
# KF_SUITECHECK_DIR: where to build (default .gpu/suitecheck).
set -euo pipefail
cd "$(dirname "$0")/.."
export KFORGE_HOME=$PWD

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
BUILD_DIR=${KF_SUITECHECK_DIR:-.gpu/suitecheck}
ARCH=-gencode=arch=compute_90a,code=sm_90a
CUDA_FLAGS="-O3 -std=c++17 -Xcompiler -fPIC $ARCH -Ireference_kernels"
CJSON_LIB=${CJSON_LIB:-/usr/lib/x86_64-linux-gnu/libcjson.so.1}
JOBS=${JOBS:-$(nproc)}
SANITIZE_TIMEOUT_S=480

build=1 run=1 sanitize=0 level=1
tasks=()
while [ $# -gt 0 ]; do
    case $1 in
        --build-only) run=0 ;;
        --run-only) build=0 ;;
        --sanitize) sanitize=1 ;;
        --level) level=$2; shift ;;
        *) tasks+=("$1") ;;
    esac
    shift
done
checker=$BUILD_DIR/cuda_suitecheck

build_task() {   # generated ABI, then ref.so and oracle.so, as kforge's compile jail builds them
    local t=$1 dir=$BUILD_DIR/$1 ref oracle vendor
    read -r ref oracle vendor < <("$checker" --emit-abi "$dir" "$t")
    "$NVCC" $CUDA_FLAGS -include "$dir/kf_task.h" -c "$ref" -o "$dir/ref.o"
    "$NVCC" $CUDA_FLAGS -include "$dir/kf_task.h" -c "$dir/shim.cu" -o "$dir/shim.o"
    "$NVCC" -shared -cudart shared -Xlinker --no-undefined -o "$dir/ref.so" "$dir/ref.o" "$dir/shim.o"
    cc -std=c17 -O2 -shared -fPIC -Wall -Wextra -Werror -Ireference_kernels -include "$dir/kf_oracle.h" -o "$dir/oracle.so" \
        "$oracle" "$dir/oracle_shim.c" -lm
    if [ -n "$vendor" ]; then   # a vendor baseline of reference_kernels/vendor/, linked as the judge links it
        "$NVCC" $CUDA_FLAGS -include "$dir/kf_task.h" -c "$vendor" -o "$dir/vendor.o"
        "$NVCC" -shared -cudart shared -Xlinker --no-undefined -o "$dir/vendor.so" "$dir/vendor.o" "$dir/shim.o" \
            -lcublas -lcublasLt -lcudnn
    fi
    echo "built $t"
}

if [ $build = 1 ]; then
    make build/libkforge.a >/dev/null
    mkdir -p "$BUILD_DIR"
    "$NVCC" -O3 -std=c++17 $ARCH -I. -cudart shared bench/cuda_suitecheck.cu build/libkforge.a -lcublas -lcjson \
        -ldl -lpthread -Xlinker -rpath='$ORIGIN' -o "$checker"
    cp -L "$CJSON_LIB" "$BUILD_DIR/"          # the GPU machine has no cJSON
    # by default level N's references and every generic one (gpu-check.sh --v2cuda runs those by name)
    [ ${#tasks[@]} -gt 0 ] || mapfile -t tasks < <({ "$checker" --list "$level"; "$checker" --list-generic; } | sort -u)
    pids=()
    for t in "${tasks[@]}"; do
        build_task "$t" &
        pids+=($!)
        if [ ${#pids[@]} -ge "$JOBS" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
    done
    for p in "${pids[@]}"; do wait "$p"; done
    echo "built $checker and ${#tasks[@]} references"
fi
[ $run = 1 ] || exit 0

[ ${#tasks[@]} -gt 0 ] || mapfile -t tasks < <("$checker" --list "$level")
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,power.limit --format=csv
fi
if command -v cuobjdump >/dev/null; then
    for t in "${tasks[@]}"; do
        n=$(cuobjdump --dump-sass "$BUILD_DIR/$t/ref.o" 2>/dev/null | grep -c HGMMA || true)
        [ "$n" = 0 ] || echo "HGMMA instructions in $t: $n"
    done
fi
sanitize_rc=0
if [ $sanitize = 1 ]; then
    timeout $SANITIZE_TIMEOUT_S compute-sanitizer --tool memcheck --error-exitcode 1 \
        "$checker" --dir "$BUILD_DIR" --quick --no-fork "${tasks[@]}" || sanitize_rc=$?
    echo "compute-sanitizer memcheck (small shapes): exit $sanitize_rc"
fi
check_rc=0
"$checker" --dir "$BUILD_DIR" ceilings "${tasks[@]}" || check_rc=$?
[ $check_rc = 0 ] && [ $sanitize_rc = 0 ]
