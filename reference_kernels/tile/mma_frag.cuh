/* Fragment moves for mma.sync attention-style kernels (see mma.cuh, mma_nk.cuh): an A operand from a [K][M] source
 * (the transpose of what is stored), an fp32 accumulator repacked as the A operand of the next product
 * (P = softmax(S) feeding P @ V), where each accumulator element sits, and reductions over an accumulator's rows
 * (each row of a 16x16 tile lives in the 4 lanes of a quad). */
#pragma once
#include "mma_nk.cuh"

namespace kf {

constexpr int QUAD = 4;   /* lanes that share the rows of an mma accumulator */

/* src: top-left of a 16(k)x16(m) row-major tile, i.e. A^T; transposed on the way in. Quarter j of rt_a
 * (m 8*(j%2).., k 8*(j/2)..) comes from rows k 8*(j/2).. and columns m 8*(j%2).. of src. */
__device__ __forceinline__ void load_trans(rt_a &dst, const __nv_bfloat16 *src, int ld) {
    const int lane = threadIdx.x % WARP, j = lane / 8;
    const __nv_bfloat16 *row = src + (8 * (j / 2) + lane % 8) * ld + 8 * (j % 2);
    const uint32_t addr = (uint32_t)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(dst.r[0]), "=r"(dst.r[1]), "=r"(dst.r[2]), "=r"(dst.r[3]) : "r"(addr));
}

/* The accumulator's layout is the A operand's: rows lane/4 (+8), columns 2*(lane%4) (+8), rounded to bf16. */
__device__ __forceinline__ void to_a(rt_a &dst, const rt_acc &src) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const __nv_bfloat162 v = __floats2bfloat162_rn(src.d[2 * i], src.d[2 * i + 1]);
        dst.r[i] = *reinterpret_cast<const uint32_t *>(&v);
    }
}

/* Accumulator element i sits at row lane/4 + 8*acc_row_half(i), column acc_col(i) of its 16x16 tile (wgmma
 * accumulators follow the same pattern per warp, with columns continuing past 16). */
__device__ __forceinline__ int acc_row_half(int i) { return (i / 2) % 2; }
__device__ __forceinline__ int acc_col(int i) { return 8 * (i / 4) + 2 * (threadIdx.x % QUAD) + i % 2; }

/* Combines a per-lane partial over the quad that holds one accumulator row. */
template <class Op>
__device__ __forceinline__ float quad_reduce(float v) {
    v = Op::apply(v, __shfl_xor_sync(FULL_MASK, v, 1));
    return Op::apply(v, __shfl_xor_sync(FULL_MASK, v, 2));
}

} /* namespace kf */
