/* Arg-max reductions over a warp or a block: (value, index) pairs, the larger value winning and, between equal
 * values, the smaller index, so the result is the first maximal element whatever the reduction order.
 * Every thread receives the result. Destination first: block_argmax(dst_v, dst_i, v, i, scratch). */
#pragma once
#include <climits>
#include "common.cuh"
#include "reduce.cuh"

namespace kf {

constexpr int ARGMAX_NONE = INT_MAX;   /* index of the identity element (value -inf): loses every tie */

__device__ __forceinline__ bool argmax_better(float v, int i, float best_v, int best_i) {
    return v > best_v || (v == best_v && i < best_i);
}

__device__ __forceinline__ void warp_argmax(float &v, int &i) {
#pragma unroll
    for (int offset = WARP / 2; offset > 0; offset /= 2) {
        const float ov = __shfl_xor_sync(FULL_MASK, v, offset);
        const int oi = __shfl_xor_sync(FULL_MASK, i, offset);
        if (argmax_better(ov, oi, v, i)) { v = ov; i = oi; }
    }
}

struct argmax_scratch { float v[WARP]; int i[WARP]; };

/* scratch: shared; free again when this returns. */
__device__ __forceinline__ void block_argmax(float &dst_v, int &dst_i, float v, int i, argmax_scratch &scratch) {
    const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP, warps = blockDim.x / WARP;
    warp_argmax(v, i);
    if (lane == 0) { scratch.v[warp] = v; scratch.i[warp] = i; }
    __syncthreads();
    v = lane < warps ? scratch.v[lane] : -INFINITY;
    i = lane < warps ? scratch.i[lane] : ARGMAX_NONE;
    warp_argmax(v, i);
    dst_v = v;
    dst_i = i;
    __syncthreads();
}

} /* namespace kf */
