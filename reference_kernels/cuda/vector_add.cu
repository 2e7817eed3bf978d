/* Reference kernel for vector_add: out = x + y over n fp32 elements.
 * Each thread moves UNROLL 16-byte vectors, all loads issued before the first add; the n % 4 tail goes to the
 * first threads. Pointers not all 16-byte aligned take the scalar kernel. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/vec.cuh"

namespace {

constexpr int THREADS = 256;
constexpr int UNROLL = 4;                          /* independent 16-byte loads in flight per thread and operand */
constexpr int VEC = kf::F32_PER_VEC;
constexpr long long PER_BLOCK = (long long)THREADS * UNROLL;   /* vectors (or scalars) per block */

__global__ void __launch_bounds__(THREADS)
add_vec(const float *__restrict__ x, const float *__restrict__ y, float *__restrict__ out, long long n) {
    const long long vectors = n / VEC;
    const long long first = blockIdx.x * PER_BLOCK + threadIdx.x;
    float a[UNROLL][VEC], b[UNROLL][VEC];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
        const long long v = first + u * THREADS;
        if (v < vectors) {
            kf::load(a[u], x + v * VEC);
            kf::load(b[u], y + v * VEC);
        }
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
        const long long v = first + u * THREADS;
        if (v >= vectors) continue;
#pragma unroll
        for (int e = 0; e < VEC; ++e) a[u][e] += b[u][e];
        kf::store(out + v * VEC, a[u]);
    }
    const long long tail = vectors * VEC + first;
    if (blockIdx.x == 0 && tail < n) out[tail] = x[tail] + y[tail];
}

__global__ void __launch_bounds__(THREADS)
add_scalar(const float *__restrict__ x, const float *__restrict__ y, float *__restrict__ out, long long n) {
    const long long first = blockIdx.x * PER_BLOCK + threadIdx.x;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
        const long long i = first + u * THREADS;
        if (i < n) out[i] = x[i] + y[i];
    }
}

} /* namespace */

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream) {
    if (kf::bad_shape(n)) return (int)cudaErrorInvalidValue;
    if (n == 0) return 0;
    const bool vec = kf::is_aligned(x, kf::VEC_BYTES) && kf::is_aligned(y, kf::VEC_BYTES) &&
                     kf::is_aligned(out, kf::VEC_BYTES);
    if (vec) {
        const long long blocks = kf::ceil_div(kf::ceil_div(n, VEC), PER_BLOCK);
        add_vec<<<(unsigned)blocks, THREADS, 0, stream>>>(x, y, out, n);
    } else {
        add_scalar<<<(unsigned)kf::ceil_div(n, PER_BLOCK), THREADS, 0, stream>>>(x, y, out, n);
    }
    return kf::launch_status();
}
