/* Elementwise maps over a bf16 vector: y[i] = Op::apply(x[i]) in fp32, rounded once to bf16. Each thread moves
 * MAP_UNROLL 16-byte vectors with every load issued before the first use; the n % 8 tail goes to the first
 * threads. Pointers not both 16-byte aligned take the scalar kernel. Destination first: map_bf16<Op>(y, x, n). */
#pragma once
#include "common.cuh"
#include "vec.cuh"

namespace kf {

constexpr int MAP_THREADS = 256;
constexpr int MAP_UNROLL = 4;                     /* independent 16-byte loads in flight per thread */
constexpr long long MAP_PER_BLOCK = (long long)MAP_THREADS * MAP_UNROLL;   /* vectors (or scalars) per block */

template <class Op>
__global__ void __launch_bounds__(MAP_THREADS)
map_bf16_vec(__nv_bfloat16 *__restrict__ y, const __nv_bfloat16 *__restrict__ x, long long n) {
    const long long vectors = n / BF16_PER_VEC;
    const long long first = blockIdx.x * MAP_PER_BLOCK + threadIdx.x;
    float v[MAP_UNROLL][BF16_PER_VEC];
#pragma unroll
    for (int u = 0; u < MAP_UNROLL; ++u)
        if (first + u * MAP_THREADS < vectors) load(v[u], x + (first + u * MAP_THREADS) * BF16_PER_VEC);
#pragma unroll
    for (int u = 0; u < MAP_UNROLL; ++u) {
        const long long i = first + u * MAP_THREADS;
        if (i >= vectors) continue;
#pragma unroll
        for (int e = 0; e < BF16_PER_VEC; ++e) v[u][e] = Op::apply(v[u][e]);
        store(y + i * BF16_PER_VEC, v[u]);
    }
    const long long tail = vectors * BF16_PER_VEC + first;
    if (blockIdx.x == 0 && tail < n) y[tail] = __float2bfloat16_rn(Op::apply(__bfloat162float(x[tail])));
}

template <class Op>
__global__ void __launch_bounds__(MAP_THREADS)
map_bf16_scalar(__nv_bfloat16 *__restrict__ y, const __nv_bfloat16 *__restrict__ x, long long n) {
    const long long first = blockIdx.x * MAP_PER_BLOCK + threadIdx.x;
#pragma unroll
    for (int u = 0; u < MAP_UNROLL; ++u) {
        const long long i = first + u * MAP_THREADS;
        if (i < n) y[i] = __float2bfloat16_rn(Op::apply(__bfloat162float(x[i])));
    }
}

/* Enqueues y = Op(x) on stream; returns what kf_launch returns. */
template <class Op>
inline int map_bf16(__nv_bfloat16 *y, const __nv_bfloat16 *x, long long n, cudaStream_t stream) {
    if (bad_shape(n)) return (int)cudaErrorInvalidValue;
    if (n == 0) return 0;
    if (is_aligned(x, VEC_BYTES) && is_aligned(y, VEC_BYTES)) {
        const long long blocks = ceil_div(ceil_div(n, BF16_PER_VEC), MAP_PER_BLOCK);
        map_bf16_vec<Op><<<(unsigned)blocks, MAP_THREADS, 0, stream>>>(y, x, n);
    } else {
        map_bf16_scalar<Op><<<(unsigned)ceil_div(n, MAP_PER_BLOCK), MAP_THREADS, 0, stream>>>(y, x, n);
    }
    return launch_status();
}

} /* namespace kf */
