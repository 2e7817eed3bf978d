/* Row reductions: a value per thread reduced over a warp (shuffles) or over a whole block (shuffles, then one
 * shared word per warp). Every thread receives the result.
 * Destination first: block_reduce<op_max>(dst, src, scratch). */
#pragma once
#include "common.cuh"

namespace kf {

struct op_sum {
    static __device__ __forceinline__ float identity() { return 0.0f; }
    static __device__ __forceinline__ float apply(float a, float b) { return a + b; }
};

struct op_max {
    static __device__ __forceinline__ float identity() { return -INFINITY; }
    static __device__ __forceinline__ float apply(float a, float b) { return fmaxf(a, b); }
};

constexpr unsigned FULL_MASK = 0xffffffffu;

template <class Op>
__device__ __forceinline__ void warp_reduce(float &dst, float src) {
#pragma unroll
    for (int offset = WARP / 2; offset > 0; offset /= 2) src = Op::apply(src, __shfl_xor_sync(FULL_MASK, src, offset));
    dst = src;
}

/* scratch: WARP floats of shared memory; free again when this returns, so calls can follow each other. */
template <class Op>
__device__ __forceinline__ void block_reduce(float &dst, float src, float *scratch) {
    const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP, warps = blockDim.x / WARP;
    warp_reduce<Op>(src, src);
    if (lane == 0) scratch[warp] = src;
    __syncthreads();
    warp_reduce<Op>(dst, lane < warps ? scratch[lane] : Op::identity());
    __syncthreads();
}

} /* namespace kf */
