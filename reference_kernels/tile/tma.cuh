/* Bulk tensor copies (TMA, sm_90) between global bf16 tensors and shared tiles, completed on shared-memory mbarriers.
 * Host side: tensor maps of any rank up to 5 (dim 0 contiguous, the others at 16-byte-multiple strides), built
 * through the driver entry point the runtime hands out (no -lcuda), with the usual 2-D, pitched and batched shapes
 * named. Device side: mbarrier init / arrive / expect-bytes / wait, loads of rank 2-4, and the stores back. */
#pragma once
#include <cuda.h>
#include "common.cuh"

namespace kf {

constexpr int SWIZZLE_BYTES = 128;                     /* widest TMA/wgmma swizzle: one smem row of a tile */
constexpr int SWIZZLE_ATOM_BYTES = 8 * SWIZZLE_BYTES;  /* 8 rows: the span after which the pattern repeats */
constexpr int SWIZZLE_CHUNKS = SWIZZLE_BYTES / VEC_BYTES;  /* 16-byte chunks in a swizzled row */
constexpr int TMA_STRIDE_ALIGN = 16;                   /* global row pitch and base must be multiples of this */
constexpr int TMA_MAX_RANK = 5;
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

/* A rank-R bf16 view: dims[0] contiguous, strides[i] elements between consecutive indices of dim i + 1, boxes of
 * box[i] elements along dim i. Swizzled boxes are 128-byte swizzled (box[0] * 2 at most SWIZZLE_BYTES); elements
 * outside the view read as zero and are not written. False when the driver refuses (pitch or base not 16-byte
 * aligned, no entry point). */
template <int R>
inline bool make_tensor_map_bf16(CUtensorMap *dst, const __nv_bfloat16 *base, const long long (&dims)[R],
                                 const long long (&strides)[R - 1], const int (&box)[R], bool swizzle = true) {
    static_assert(R >= 2 && R <= TMA_MAX_RANK, "TMA tensors have rank 2 to 5");
    const encode_tiled_fn encode = tensor_map_encoder();
    if (!encode) return false;
    cuuint64_t size[R], pitch[R - 1];
    cuuint32_t box_elems[R], unit_steps[R];
    for (int i = 0; i < R; ++i) {
        size[i] = (cuuint64_t)dims[i];
        box_elems[i] = (cuuint32_t)box[i];
        unit_steps[i] = 1;
    }
    for (int i = 0; i < R - 1; ++i) pitch[i] = (cuuint64_t)strides[i] * sizeof(__nv_bfloat16);
    return encode(dst, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, R, (void *)base, size, pitch, box_elems, unit_steps,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/* A rows x cols bf16 matrix whose rows start pitch elements apart (pitch >= cols), in box_rows x box_cols boxes. */
inline bool make_tensor_map_bf16_pitched(CUtensorMap *dst, const __nv_bfloat16 *base, long long rows, long long cols,
                                         long long pitch, int box_rows, int box_cols) {
    return make_tensor_map_bf16<2>(dst, base, {cols, rows}, {pitch}, {box_cols, box_rows});
}

/* A contiguous row-major rows x cols matrix. */
inline bool make_tensor_map_bf16(CUtensorMap *dst, const __nv_bfloat16 *base, long long rows, long long cols,
                                 int box_rows, int box_cols) {
    return make_tensor_map_bf16_pitched(dst, base, rows, cols, cols, box_rows, box_cols);
}

/* batch matrices of rows x cols, row pitch `pitch`, one after another (batch_stride elements apart); each box lies
 * in one matrix, so zero fill stops at every matrix edge. */
inline bool make_tensor_map_bf16_batched(CUtensorMap *dst, const __nv_bfloat16 *base, long long batch, long long rows,
                                         long long cols, long long pitch, long long batch_stride, int box_rows,
                                         int box_cols) {
    return make_tensor_map_bf16<3>(dst, base, {cols, rows, batch}, {pitch, batch_stride}, {box_cols, box_rows, 1});
}

/* Byte offset of 16-byte chunk `chunk` of row `row` in a tile of 128-byte rows under the 128-byte swizzle (TMA's
 * SWIZZLE_128B): the chunk index XORed with the row's place in its 8-row atom, so the 8 rows an ldmatrix reads at one
 * logical chunk sit in 8 different banks. */
__host__ __device__ constexpr int swizzle128(int row, int chunk) {
    return row * SWIZZLE_BYTES + (chunk ^ row % SWIZZLE_CHUNKS) * VEC_BYTES;
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

/* Shared memory written by ordinary stores, next read by the copy engine or the tensor cores: each writing thread
 * fences before the barrier that hands the tile over. */
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

/* dst (shared, 1024-byte aligned when swizzled) <- the box whose top-left is (row, col); completes on bar. */
__device__ __forceinline__ void tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, int row, int col) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n"
                 ::"r"(smem_addr(dst)), "l"((uint64_t)map), "r"(col), "r"(row), "r"(smem_addr(bar))
                 : "memory");
}

/* The box at (row, col) of matrix `batch` of a batched map. */
__device__ __forceinline__ void tma_load_3d(void *dst, const CUtensorMap *map, uint64_t *bar, int batch, int row,
                                            int col) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4}], [%5];\n"
                 ::"r"(smem_addr(dst)), "l"((uint64_t)map), "r"(col), "r"(row), "r"(batch), "r"(smem_addr(bar))
                 : "memory");
}

/* An L2 policy that keeps what it tags: data many blocks re-read (a shared operand) outlives streamed outputs. */
__device__ __forceinline__ uint64_t l2_evict_last_policy() {
    uint64_t p;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(p));
    return p;
}

/* tma_load_3d with an L2 cache policy (from l2_evict_last_policy). */
__device__ __forceinline__ void tma_load_3d_hint(void *dst, const CUtensorMap *map, uint64_t *bar, int batch, int row,
                                                 int col, uint64_t policy) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
                 " [%0], [%1, {%2, %3, %4}], [%5], %6;\n"
                 ::"r"(smem_addr(dst)), "l"((uint64_t)map), "r"(col), "r"(row), "r"(batch), "r"(smem_addr(bar)),
                 "l"(policy)
                 : "memory");
}

/* The box at coordinates (c0, c1, c2, c3), c0 along the contiguous dimension. */
__device__ __forceinline__ void tma_load_4d(void *dst, const CUtensorMap *map, uint64_t *bar, int c0, int c1, int c2,
                                            int c3) {
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6];\n"
                 ::"r"(smem_addr(dst)), "l"((uint64_t)map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(smem_addr(bar))
                 : "memory");
}

/* The box at (row, col) of matrix `batch` <- src (shared; written by this thread's ordinary stores only after
 * fence_proxy_async). Stores leave in bulk groups: tma_store_commit closes one, tma_store_wait_read<N> waits until
 * at most N groups still read shared memory (so their sources may be rewritten), and a block must not exit with
 * groups still reading. */
__device__ __forceinline__ void tma_store_3d(const CUtensorMap *map, const void *src, int batch, int row, int col) {
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\n"
                 ::"l"((uint64_t)map), "r"(col), "r"(row), "r"(batch), "r"(smem_addr(src))
                 : "memory");
}

__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }

template <int N> __device__ __forceinline__ void tma_store_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

} /* namespace kf */
