/* Reference kernel for cumsum_rows: out[r, c] = sum_{j <= c} x[r, j] (inclusive prefix sum along each row), fp32.
 * One block per row walks it in chunks of THREADS * SLOTS vectors: slot u of thread t holds the VEC consecutive
 * elements at vector u * THREADS + t, so every load and store is a coalesced 16-byte access; each thread scans its
 * vectors in registers, tile/scan.cuh scans the vector totals across the block (slot-major), and a running carry
 * joins the chunks, so x is read once and out written once. Element accesses when cols % 4 != 0 or a pointer is
 * not 16-byte aligned. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/scan.cuh"
#include "tile/vec.cuh"

namespace {

constexpr int THREADS = 256, WARPS = THREADS / kf::WARP;
constexpr int SLOTS = 4;                             /* vectors a thread owns in each chunk */
constexpr int VEC = kf::F32_PER_VEC;
constexpr int CHUNK = THREADS * SLOTS * VEC;

template <bool VEC_IO>
__global__ void __launch_bounds__(THREADS) cumsum_rows(const float *__restrict__ x, float *__restrict__ out, int cols) {
    __shared__ float scratch[SLOTS][WARPS];
    const float *row = x + (long long)blockIdx.x * cols;
    float *orow = out + (long long)blockIdx.x * cols;
    float carry = 0.0f;
    for (int c0 = 0; c0 < cols; c0 += CHUNK) {
        float v[SLOTS][VEC], totals[SLOTS], before[SLOTS], chunk_total;
#pragma unroll
        for (int u = 0; u < SLOTS; ++u) {
            const int first = c0 + (u * THREADS + (int)threadIdx.x) * VEC;
            if (VEC_IO && first < cols) kf::load(v[u], row + first);
            else
#pragma unroll
                for (int e = 0; e < VEC; ++e) v[u][e] = !VEC_IO && first + e < cols ? row[first + e] : 0.0f;
#pragma unroll
            for (int e = 1; e < VEC; ++e) v[u][e] += v[u][e - 1];
            totals[u] = v[u][VEC - 1];
        }
        kf::block_exclusive_scan_slots<SLOTS, WARPS>(before, chunk_total, totals, scratch);
#pragma unroll
        for (int u = 0; u < SLOTS; ++u) {
            const int first = c0 + (u * THREADS + (int)threadIdx.x) * VEC;
#pragma unroll
            for (int e = 0; e < VEC; ++e) v[u][e] += carry + before[u];
            if (VEC_IO) {
                if (first < cols) kf::store(orow + first, v[u]);
            } else {
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    if (first + e < cols) orow[first + e] = v[u][e];
            }
        }
        carry += chunk_total;
    }
}

} /* namespace */

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
    if (kf::bad_shape(rows, cols)) return (int)cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return 0;
    const bool vec_io = cols % VEC == 0 && kf::is_aligned(x, kf::VEC_BYTES) && kf::is_aligned(out, kf::VEC_BYTES);
    if (vec_io) cumsum_rows<true><<<rows, THREADS, 0, stream>>>(x, out, cols);
    else cumsum_rows<false><<<rows, THREADS, 0, stream>>>(x, out, cols);
    return kf::launch_status();
}
