#!/usr/bin/env bash
# Reference fidelity (issue 16.3), on the GPU machine: the judge's ref_time_ms for every single-GPU task with
# a CUDA reference beside a standalone timing of the same reference object in the same run
# (bench/ref_fidelity.py says how), and their ratio; target: every task within 3%. Exit 0 when all are.
# Usage: bash bench/ref_fidelity.sh [--tasks a,b] [--from DIR] [--probe] [--iters N] [--label L]
#   --from DIR  the judge's results of bench/judge_examples.sh --out DIR (ok ones), instead of new submissions
#   KF_BIN   the directory holding kforge and its runners (default build; ref_so is looked for there and in
#            build/bench), KF_LIBS the library path for kforge's programs alone, OUT the log directory.
# build/bench/ref_time is built here with nvcc when missing (bench/gpu-bundle.sh builds it ahead).
set -u
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/kforge-ref-fidelity}
bin=${KF_BIN:-build}
mkdir -p "$out" build/bench
export KFORGE_HOME=${KFORGE_HOME:-$PWD} KFORGE_CACHE=${KFORGE_CACHE:-/tmp/kforge-cache}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
find_tool() { for d in "$bin" build build/bench; do [ -x "$d/$1" ] && { echo "$d/$1"; return; }; done; }
if [ -z "$(find_tool ref_time)" ]; then
	"$NVCC" -O2 -std=c++17 -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_80,code=compute_80 \
		bench/ref_time.cu -o build/bench/ref_time -ldl || exit 3
fi
ref_so=$(find_tool ref_so) ref_time=$(find_tool ref_time)
[ -n "$ref_so" ] || { echo "ref_fidelity: no ref_so (make bench)" >&2; exit 3; }
python3 -u bench/ref_fidelity.py "$out" "$bin/kforge" "$ref_so" "$ref_time" "$@"
