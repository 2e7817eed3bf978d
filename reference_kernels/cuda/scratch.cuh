/* Device scratch for the CUDA references of the level-2/3 fusions that need an intermediate tensor (a convolution's
 * output before its pooling, a normalised activation before its GEMM): one grow-only buffer per reference, set up by
 * the first (untimed) call at the bench shape and regrown only when a larger shape comes (cudaFree waits for the
 * device). A reference gets at most the task's few bench-shape intermediates, well under the runner's device cap. */
#pragma once
#include <cuda_runtime.h>
#include <stddef.h>

namespace kfs {

constexpr size_t ALIGN = 256; /* bytes; each region starts aligned for vector loads */

constexpr size_t region(size_t bytes) { return (bytes + ALIGN - 1) / ALIGN * ALIGN; }

/* A buffer of at least `bytes` in *out; 0 or the CUDA error. Not thread-safe: a runner calls one kernel at a time. */
inline int scratch(size_t bytes, void **out) {
    static void *buf = nullptr;
    static size_t have = 0;
    if (bytes > have) {
        const cudaError_t freed = cudaFree(buf);
        buf = nullptr;
        have = 0;
        if (freed != cudaSuccess) return (int)freed;
        const cudaError_t got = cudaMalloc(&buf, bytes);
        if (got != cudaSuccess) return (int)got;
        have = bytes;
    }
    *out = buf;
    return 0;
}

} /* namespace kfs */
