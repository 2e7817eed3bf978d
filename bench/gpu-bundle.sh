#!/usr/bin/env bash
# Builds kforge here and gathers what the GPU machine lacks into .gpu/ (git-ignored): the
# binaries and every shared library they load that is not part of glibc, the GCC runtime or
# the CUDA install there (cJSON, Criterion and their dependencies are missing on it). A device call
# carries at most 64 MiB with the tree: carry [".gpu/bin", ".gpu/lib", ".gpu/checkers.tar.xz"] (the
# checkers' build folders stay here, packed into the archive) and run bench/gpu-check.sh there.
set -euo pipefail
cd "$(dirname "$0")/.."
# KF_BUNDLE_TARGETS narrows what is built (e.g. while one benchmark is being rewritten).
make -s ${KF_BUNDLE_TARGETS:-all bench build/kforge-tests build/kforge-gpu-tests} >/dev/null
rm -rf .gpu/bin .gpu/lib && mkdir -p .gpu/bin .gpu/lib
cp build/kforge build/kforge-runner-cpu build/kforge-runner-cuda build/libkforge-cuda.so build/kforge-tests \
	build/kforge-gpu-tests .gpu/bin/
cp build/bench/* .gpu/bin/ 2>/dev/null || true
cp build/kforge-runner-cuda-multi .gpu/bin/ # the multi-GPU runner (level 4, docs/multi-gpu.md)
rm -f .gpu/bin/*.d
strip --strip-unneeded .gpu/bin/* # a third of the size; nothing of kforge reads its own symbols
skip='linux-vdso|ld-linux|libc\.so|libresolv|libnss|libutil|libanl|libm\.so|libdl\.so|libpthread|librt\.so|libgcc_s|libstdc\+\+|libgomp|libcuda\.so|libcudart|libnvidia'
for f in .gpu/bin/*; do
	ldd "$f" 2>/dev/null | awk '/=> \// {print $3}' | grep -Ev "$skip" || true
done | sort -u | while read -r lib; do cp -L "$lib" .gpu/lib/; done
# The standalone reference checkers (nvcc builds; skip with KF_BUNDLE_NO_CHECKERS=1).
if [ -z "${KF_BUNDLE_NO_CHECKERS:-}" ]; then
	for check in refcheck suitecheck fusioncheck; do
		bash bench/cuda_$check.sh --build-only >/dev/null
	done
	# 36 MB of folders, 2 MB packed (each ref.so repeats its ref.o); gpu-check.sh unpacks it.
	tar cJf .gpu/checkers.tar.xz -C .gpu refcheck suitecheck fusioncheck
fi
# The standalone timer of bench/ref_fidelity.sh (nvcc; it shares no code with the judge).
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$NVCC" -O2 -std=c++17 -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_80,code=compute_80 \
	bench/ref_time.cu -o .gpu/bin/ref_time -ldl
# The generic op library's own check (gpu-check.sh --v2cuda; kforge's code is not in it).
"$NVCC" -O2 -std=c++17 -gencode=arch=compute_90,code=sm_90 -Ireference_kernels bench/cuda_generic_check.cu \
	-o .gpu/bin/cuda_generic_check
du -sh .gpu/bin .gpu/lib
