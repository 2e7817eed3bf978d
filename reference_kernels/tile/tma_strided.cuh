/* Bulk tensor copies of strided bf16 views (sm_90), beside tma.cuh's contiguous matrices: a 2-D matrix whose row
 * pitch exceeds its width (a column block of a wider matrix), and 4-D views {d0, d1, d2, d3} (d0 contiguous, the
 * others at 16-byte-multiple strides that grow with the dimension) for attention operands stored [B][H][L][D] or
 * packed [B][L][heads][D]. Boxes are 128-byte swizzled; TMA zero-fills what lies outside the view. */
#pragma once
#include "tma.cuh"

namespace kf {

constexpr int TMA_4D = 4;

/* A rows x cols bf16 matrix whose rows start pitch elements apart (pitch >= cols, pitch * 2 a multiple of 16). */
inline bool make_tensor_map_bf16_pitched(CUtensorMap *dst, const __nv_bfloat16 *base, long long rows, long long cols,
                                         long long pitch, int box_rows, int box_cols) {
    const encode_tiled_fn encode = tensor_map_encoder();
    if (!encode) return false;
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t pitch_bytes[1] = {(cuuint64_t)pitch * sizeof(__nv_bfloat16)};
    const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    const cuuint32_t unit_steps[2] = {1, 1};
    return encode(dst, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)base, dims, pitch_bytes, box, unit_steps,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/* dims: elements along d0..d3; strides: elements between consecutive indices of d1..d3, non-decreasing; box: per box
 * along d0..d3 (box[0] * 2 bytes at most SWIZZLE_BYTES). False when the driver refuses. */
inline bool make_tensor_map_bf16_4d(CUtensorMap *dst, const __nv_bfloat16 *base, const long long (&dims)[TMA_4D],
                                    const long long (&strides)[TMA_4D - 1], const int (&box)[TMA_4D]) {
    const encode_tiled_fn encode = tensor_map_encoder();
    if (!encode) return false;
    cuuint64_t size[TMA_4D], pitch[TMA_4D - 1];
    cuuint32_t box_elems[TMA_4D], unit_steps[TMA_4D];
    for (int i = 0; i < TMA_4D; ++i) {
        size[i] = (cuuint64_t)dims[i];
        box_elems[i] = (cuuint32_t)box[i];
        unit_steps[i] = 1;
    }
    for (int i = 0; i < TMA_4D - 1; ++i) pitch[i] = (cuuint64_t)strides[i] * sizeof(__nv_bfloat16);
    return encode(dst, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, TMA_4D, (void *)base, size, pitch, box_elems, unit_steps,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/* dst (shared, 1024-byte aligned) <- the box at coordinates (c0, c1, c2, c3); completes on bar. */
__device__ __forceinline__ void tma_load_4d(void *dst, const CUtensorMap *map, uint64_t *bar, int c0, int c1, int c2,
                                            int c3) {
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6];\n"
                 ::"r"(smem_addr(dst)), "l"((uint64_t)map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(smem_addr(bar))
                 : "memory");
}

} /* namespace kf */
