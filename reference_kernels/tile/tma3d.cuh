/* Bulk tensor copies (TMA) of 3-D bf16 tensors [batch][rows][cols] into 128-byte-swizzled shared tiles: each box
 * is box_rows x box_cols of one batch entry, and the copy engine zero-fills whatever lies outside that entry, so
 * ragged tiles never read a neighbouring matrix. Builds on tma.cuh (encoder, mbarriers). */
#pragma once
#include "tma.cuh"

namespace kf {

/* False when the driver refuses (pitch or base not 16-byte aligned, no entry point). */
inline bool make_tensor_map_bf16_3d(CUtensorMap *dst, const __nv_bfloat16 *base, long long batch, long long rows,
                                    long long cols, int box_rows, int box_cols) {
    const encode_tiled_fn encode = tensor_map_encoder();
    if (!encode) return false;
    const cuuint64_t dims[3] = {(cuuint64_t)cols, (cuuint64_t)rows, (cuuint64_t)batch};
    const cuuint64_t pitch[2] = {(cuuint64_t)cols * sizeof(__nv_bfloat16),
                                 (cuuint64_t)(rows * cols) * sizeof(__nv_bfloat16)};
    const cuuint32_t box[3] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows, 1};
    const cuuint32_t unit_steps[3] = {1, 1, 1};
    return encode(dst, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, (void *)base, dims, pitch, box, unit_steps,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/* dst (shared, 1024-byte aligned) <- the box whose top-left is (row, col) of matrix `batch`; completes on bar. */
__device__ __forceinline__ void tma_load_3d(void *dst, const CUtensorMap *map, uint64_t *bar, int batch, int row,
                                            int col) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4}], [%5];\n"
                 ::"r"(smem_addr(dst)), "l"((uint64_t)map), "r"(col), "r"(row), "r"(batch), "r"(smem_addr(bar))
                 : "memory");
}

} /* namespace kf */
