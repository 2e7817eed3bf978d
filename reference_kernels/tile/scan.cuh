/* Prefix sums (fp32) over a warp, and over a block whose threads each hold SLOTS values ordered slot-major (slot 0
 * of threads 0..n-1, then slot 1, ...), the order in which coalesced 16-byte loads leave a chunk of a row.
 * Destination first: block_exclusive_scan_slots(dst, total, src, scratch). */
#pragma once
#include "common.cuh"
#include "reduce.cuh"

namespace kf {

__device__ __forceinline__ void warp_inclusive_scan(float &dst, float src) {
    const int lane = threadIdx.x % WARP;
#pragma unroll
    for (int offset = 1; offset < WARP; offset *= 2) {
        const float before = __shfl_up_sync(FULL_MASK, src, offset);
        if (lane >= offset) src += before;
    }
    dst = src;
}

/* dst[u] = the sum of every value in slots before u plus slot u's values in threads before this one; total = the
 * sum of everything. Every thread adds the same terms in the same order, so all agree on total. scratch: SLOTS x
 * WARPS floats of shared memory, free again when this returns. */
template <int SLOTS, int WARPS>
__device__ __forceinline__ void block_exclusive_scan_slots(float (&dst)[SLOTS], float &total, const float (&src)[SLOTS],
                                                           float (*scratch)[WARPS]) {
    const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    float lane_before[SLOTS];
#pragma unroll
    for (int u = 0; u < SLOTS; ++u) {
        float inclusive;
        warp_inclusive_scan(inclusive, src[u]);
        lane_before[u] = __shfl_up_sync(FULL_MASK, inclusive, 1);   /* exact, unlike inclusive - src */
        if (lane == 0) lane_before[u] = 0.0f;
        if (lane == WARP - 1) scratch[u][warp] = inclusive;
    }
    __syncthreads();
    total = 0.0f;
#pragma unroll
    for (int u = 0; u < SLOTS; ++u) {
        float slot = 0.0f, warps_before = 0.0f;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
            if (w == warp) warps_before = slot;
            slot += scratch[u][w];
        }
        dst[u] = total + warps_before + lane_before[u];
        total += slot;
    }
    __syncthreads();
}

} /* namespace kf */
