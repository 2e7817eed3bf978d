/* Bulk tensor copies (TMA, sm_90) into 128-byte-swizzled shared tiles, completed on shared-memory mbarriers.
 * Host side: building a 2-D bf16 tensor map through the driver entry point the runtime hands out (no -lcuda).
 * Device side: mbarrier init / arrive / expect-bytes / wait, and the 2-D tile load. */
#pragma once
#include <cuda.h>
#include "common.cuh"

namespace kf {

constexpr int SWIZZLE_BYTES = 128;                     /* widest TMA/wgmma swizzle: one smem row of a tile */
constexpr int SWIZZLE_ATOM_BYTES = 8 * SWIZZLE_BYTES;  /* 8 rows: the span after which the pattern repeats */
constexpr int TMA_STRIDE_ALIGN = 16;                   /* global row pitch and base must be multiples of this */
constexpr unsigned DRIVER_API_VERSION = 12000;         /* cuTensorMapEncodeTiled as introduced in CUDA 12.0 */

typedef CUresult (*encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                    const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                    CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

inline encode_tiled_fn tensor_map_encoder() {
    static encode_tiled_fn fn = [] {
        void *p = nullptr;
        cudaDriverEntryPointQueryResult found;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, DRIVER_API_VERSION, cudaEnableDefault,
                                             &found) != cudaSuccess || found != cudaDriverEntryPointSuccess)
            p = nullptr;
        return (encode_tiled_fn)p;
    }();
    return fn;
}

/* A rows x cols row-major bf16 matrix read in boxes of box_rows x box_cols, 128-byte swizzle, zeros outside.
 * box_cols * 2 must be at most SWIZZLE_BYTES; false when the driver refuses (pitch, alignment, no entry point). */
inline bool make_tensor_map_bf16(CUtensorMap *dst, const __nv_bfloat16 *base, long long rows, long long cols,
                                 int box_rows, int box_cols) {
    const encode_tiled_fn encode = tensor_map_encoder();
    if (!encode) return false;
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t pitch[1] = {(cuuint64_t)cols * sizeof(__nv_bfloat16)};
    const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    const cuuint32_t unit_steps[2] = {1, 1};
    return encode(dst, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)base, dims, pitch, box, unit_steps,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

__device__ __forceinline__ uint32_t smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

/* count: arrivals that complete a phase (expect-bytes arrivals included). */
__device__ __forceinline__ void mbar_init(uint64_t *bar, int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count));
}

/* Makes initialised barriers visible to the copy engine before any thread uses them. */
__device__ __forceinline__ void mbar_init_fence() {
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t *bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}

/* One arrival that also tells the barrier how many bytes the copies it waits for will deliver. */
__device__ __forceinline__ void mbar_arrive_expect_bytes(uint64_t *bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
                 ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}

/* Blocks until the phase with this parity has completed. */
__device__ __forceinline__ void mbar_wait(uint64_t *bar, int parity) {
    uint32_t done = 0;
    while (!done) {
        asm volatile("{\n .reg .pred p;\n"
                     " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
    }
}

/* dst (shared, 1024-byte aligned) <- the box whose top-left is (row, col); completes on bar. */
__device__ __forceinline__ void tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, int row, int col) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n"
                 ::"r"(smem_addr(dst)), "l"((uint64_t)map), "r"(col), "r"(row), "r"(smem_addr(bar))
                 : "memory");
}

} /* namespace kf */
