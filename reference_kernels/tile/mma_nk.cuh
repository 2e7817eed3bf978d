/* B operand of mma.sync m16n8k16 from a K-major source: a 16(n)x16(k) row-major bf16 tile, as B^T (or an [N][K]
 * weight matrix) is stored. Fills the same rt_b registers as mma.cuh's load from a [K][N] tile, without the
 * transpose: lanes 0-7 / 8-15 / 16-23 / 24-31 address the quarters (n 0-7, k 0-7), (n 0-7, k 8-15),
 * (n 8-15, k 0-7), (n 8-15, k 8-15). Rows must start on 16-byte boundaries. */
#pragma once
#include "mma.cuh"
#include "reduce.cuh"

namespace kf {

/* src: top-left of the 16(n)x16(k) tile in shared memory, ld elements per row. */
__device__ __forceinline__ void load_nk(rt_b &dst, const __nv_bfloat16 *src, int ld) {
    const int lane = threadIdx.x % WARP, quarter = lane / 8;
    const __nv_bfloat16 *row = src + (lane % 8 + 8 * (quarter / 2)) * ld + 8 * (quarter % 2);
    const uint32_t addr = (uint32_t)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(dst.r[0]), "=r"(dst.r[1]), "=r"(dst.r[2]), "=r"(dst.r[3]) : "r"(addr));
}

} /* namespace kf */
