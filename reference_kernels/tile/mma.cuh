/* Register tiles of 16x16 for warp-level tensor-core MMA (mma.sync m16n8k16, bf16 in, fp32 accumulate):
 * rt_a (A operand, row-major source), rt_b (B operand from a row-major [K][N] source), rt_acc (fp32 result).
 * Loads come from shared memory through ldmatrix; rows there must start on 16-byte boundaries. */
#pragma once
#include "common.cuh"

namespace kf {

struct rt_a { uint32_t r[4]; };   /* 16x16 bf16: rows 0-7/8-15 x cols 0-7/8-15, two bf16 per register */
struct rt_b { uint32_t r[4]; };   /* 16(k)x16(n) bf16: n 0-7 in r[0..1], n 8-15 in r[2..3] */
struct rt_acc { float d[8]; };    /* 16x16 fp32: n 0-7 in d[0..3], n 8-15 in d[4..7] */

__device__ __forceinline__ void zero(rt_acc &dst) {
#pragma unroll
    for (int i = 0; i < 8; ++i) dst.d[i] = 0.0f;
}

/* Lane l points at row l%16, column 8*(l/16) of the 16x16 tile: the four 8x8 quarters in operand order. */
__device__ __forceinline__ const __nv_bfloat16 *ldmatrix_row(const __nv_bfloat16 *tile, int ld) {
    const int lane = threadIdx.x % WARP;
    return tile + (lane % TILE) * ld + (lane / TILE) * (TILE / 2);
}

/* src: top-left of a 16x16 row-major bf16 tile in shared memory, ld elements per row. */
__device__ __forceinline__ void load(rt_a &dst, const __nv_bfloat16 *src, int ld) {
    const uint32_t addr = (uint32_t)__cvta_generic_to_shared(ldmatrix_row(src, ld));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(dst.r[0]), "=r"(dst.r[1]), "=r"(dst.r[2]), "=r"(dst.r[3]) : "r"(addr));
}

/* src: top-left of a 16(k)x16(n) row-major bf16 tile in shared memory; transposed on the way in. */
__device__ __forceinline__ void load(rt_b &dst, const __nv_bfloat16 *src, int ld) {
    const uint32_t addr = (uint32_t)__cvta_generic_to_shared(ldmatrix_row(src, ld));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(dst.r[0]), "=r"(dst.r[1]), "=r"(dst.r[2]), "=r"(dst.r[3]) : "r"(addr));
}

/* dst += a @ b */
__device__ __forceinline__ void mma_ab(rt_acc &dst, const rt_a &a, const rt_b &b) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
        float *d = dst.d + 4 * half;
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[2 * half]), "r"(b.r[2 * half + 1]));
    }
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

} /* namespace kf */
