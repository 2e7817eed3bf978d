/* Register tiles of 16x16 for warp-level MMA (mma.sync m16n8k16, bf16 in, fp32 accumulate): rt_a, rt_b, rt_acc,
 * loaded from shared memory by ldmatrix (rows on 16-byte boundaries): A row-major or transposed, B from [K][N] or
 * K-major [N][K]; an accumulator repacked as the next product's A operand (P feeding P @ V), where each accumulator
 * element sits, and reductions over an accumulator row (the 4 lanes of a quad). */
#pragma once
#include "common.cuh"
#include "reduce.cuh"

namespace kf {

struct rt_a { uint32_t r[4]; };   /* 16x16 bf16: rows 0-7/8-15 x cols 0-7/8-15, two bf16 per register */
struct rt_b { uint32_t r[4]; };   /* 16(k)x16(n) bf16: n 0-7 in r[0..1], n 8-15 in r[2..3] */
struct rt_acc { float d[8]; };    /* 16x16 fp32: n 0-7 in d[0..3], n 8-15 in d[4..7] */

__device__ __forceinline__ void zero(rt_acc &dst) {
#pragma unroll
    for (int i = 0; i < 8; ++i) dst.d[i] = 0.0f;
}

/* ldmatrix x4 (and its transposing form) from this lane's row address in shared memory: the loaders below, and
 * callers that place each lane's row themselves (swizzled tiles). */
__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

__device__ __forceinline__ void ldsm_x4_trans(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

/* Lane l points at row l%16, column 8*(l/16) of the 16x16 tile: the four 8x8 quarters in operand order. */
__device__ __forceinline__ const __nv_bfloat16 *ldmatrix_row(const __nv_bfloat16 *tile, int ld) {
    const int lane = threadIdx.x % WARP;
    return tile + (lane % TILE) * ld + (lane / TILE) * (TILE / 2);
}

/* src: top-left of a 16x16 row-major bf16 tile in shared memory, ld elements per row. */
__device__ __forceinline__ void load(rt_a &dst, const __nv_bfloat16 *src, int ld) {
    ldsm_x4(dst.r, (uint32_t)__cvta_generic_to_shared(ldmatrix_row(src, ld)));
}

/* src: top-left of a 16(k)x16(n) row-major bf16 tile in shared memory; transposed on the way in. */
__device__ __forceinline__ void load(rt_b &dst, const __nv_bfloat16 *src, int ld) {
    ldsm_x4_trans(dst.r, (uint32_t)__cvta_generic_to_shared(ldmatrix_row(src, ld)));
}

/* src: top-left of the 16(n)x16(k) tile in shared memory, ld elements per row. Lanes 0-7 / 8-15 / 16-23 / 24-31
 * address the quarters (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15): the registers of load()
 * from a [K][N] tile, without the transpose. */
__device__ __forceinline__ void load_nk(rt_b &dst, const __nv_bfloat16 *src, int ld) {
    const int lane = threadIdx.x % WARP, quarter = lane / 8;
    const __nv_bfloat16 *row = src + (lane % 8 + 8 * (quarter / 2)) * ld + 8 * (quarter % 2);
    ldsm_x4(dst.r, (uint32_t)__cvta_generic_to_shared(row));
}

/* src: top-left of a 16(k)x16(m) row-major tile, i.e. Aᵀ; transposed on the way in. Quarter j of rt_a
 * (m 8*(j%2).., k 8*(j/2)..) comes from rows k 8*(j/2).. and columns m 8*(j%2).. of src. */
__device__ __forceinline__ void load_trans(rt_a &dst, const __nv_bfloat16 *src, int ld) {
    const int lane = threadIdx.x % WARP, j = lane / 8;
    const __nv_bfloat16 *row = src + (8 * (j / 2) + lane % 8) * ld + 8 * (j % 2);
    ldsm_x4_trans(dst.r, (uint32_t)__cvta_generic_to_shared(row));
}

/* dst += a @ b for columns 8*half .. 8*half + 7 of the tile only (d[4*half .. 4*half + 3]). */
__device__ __forceinline__ void mma_ab_half(rt_acc &dst, const rt_a &a, const rt_b &b, int half) {
    float *d = dst.d + 4 * half;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[2 * half]), "r"(b.r[2 * half + 1]));
}

/* dst += a @ b */
__device__ __forceinline__ void mma_ab(rt_acc &dst, const rt_a &a, const rt_b &b) {
    mma_ab_half(dst, a, b, 0);
    mma_ab_half(dst, a, b, 1);
}

/* Writes the tile whose top-left is (row0, col0) of a rows x cols row-major bf16 matrix, skipping what lies outside. */
__device__ __forceinline__ void store(__nv_bfloat16 *dst, const rt_acc &src, long long row0, long long col0,
                                      long long rows, long long cols) {
    const int lane = threadIdx.x % WARP;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const long long r = row0 + lane / 4 + 8 * ((i / 2) % 2);
        const long long c = col0 + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
        if (r < rows && c < cols) dst[r * cols + c] = __float2bfloat16_rn(src.d[i]);
    }
}

constexpr int QUAD = 4;   /* lanes that share the rows of an mma accumulator */

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
