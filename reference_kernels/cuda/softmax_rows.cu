/* Reference kernel for softmax_rows: out[r, :] = exp(x[r, :] - max) / sum exp(x[r, :] - max), fp32.
 * One block per row; rows of up to CACHED_MAX_COLS stay in registers between the max, sum and write steps (one read,
 * one write of DRAM), 16-byte accesses when cols % 4 == 0 and pointers are aligned. Longer rows: an online
 * max-and-sum pass, then a write pass. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/reduce.cuh"
#include "tile/vec.cuh"

namespace {

constexpr int VEC = kf::F32_PER_VEC;
constexpr int SMALL_THREADS = 256, LARGE_THREADS = 1024;
constexpr int LARGE_VPT = 8;
constexpr int CACHED_MAX_COLS = LARGE_THREADS * LARGE_VPT * VEC;

/* Element e of a thread's slot u: vector layout when VEC_IO, else a strided scalar layout; both coalesced. */
template <int THREADS, bool VEC_IO>
__device__ __forceinline__ int col_of(int u, int e) {
    return VEC_IO ? (u * THREADS + (int)threadIdx.x) * VEC + e : (u * VEC + e) * THREADS + (int)threadIdx.x;
}

template <int THREADS, int VPT, bool VEC_IO>
__global__ void __launch_bounds__(THREADS)
softmax_cached(const float *__restrict__ x, float *__restrict__ out, int cols) {
    __shared__ float scratch[kf::WARP];
    const float *xr = x + (long long)blockIdx.x * cols;
    float *outr = out + (long long)blockIdx.x * cols;
    float v[VPT][VEC];
#pragma unroll
    for (int u = 0; u < VPT; ++u) {
        if (VEC_IO) {
            if (col_of<THREADS, true>(u, 0) < cols) {
                kf::load(v[u], xr + col_of<THREADS, true>(u, 0));
            } else {
#pragma unroll
                for (int e = 0; e < VEC; ++e) v[u][e] = -INFINITY;
            }
        } else {
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                const int c = col_of<THREADS, false>(u, e);
                v[u][e] = c < cols ? xr[c] : -INFINITY;
            }
        }
    }
    float row_max = -INFINITY;
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < VEC; ++e) row_max = fmaxf(row_max, v[u][e]);
    kf::block_reduce<kf::op_max>(row_max, row_max, scratch);

    float row_sum = 0.0f;
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
            v[u][e] = expf(v[u][e] - row_max);
            row_sum += v[u][e];
        }
    kf::block_reduce<kf::op_sum>(row_sum, row_sum, scratch);
    const float inv = 1.0f / row_sum;

#pragma unroll
    for (int u = 0; u < VPT; ++u) {
#pragma unroll
        for (int e = 0; e < VEC; ++e) v[u][e] *= inv;
        if (VEC_IO) {
            if (col_of<THREADS, true>(u, 0) < cols) kf::store(outr + col_of<THREADS, true>(u, 0), v[u]);
        } else {
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                const int c = col_of<THREADS, false>(u, e);
                if (c < cols) outr[c] = v[u][e];
            }
        }
    }
}

/* Rows too long for registers: running max with a rescaled running sum, merged across the block, then a write pass. */
__global__ void __launch_bounds__(LARGE_THREADS)
softmax_online(const float *__restrict__ x, float *__restrict__ out, int cols) {
    __shared__ float scratch[kf::WARP];
    const float *xr = x + (long long)blockIdx.x * cols;
    float *outr = out + (long long)blockIdx.x * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += LARGE_THREADS) {
        const float v = xr[c];
        if (v > m) {
            s = s * expf(m - v) + 1.0f;
            m = v;
        } else {
            s += expf(v - m);
        }
    }
    float row_max, row_sum;
    kf::block_reduce<kf::op_max>(row_max, m, scratch);
    kf::block_reduce<kf::op_sum>(row_sum, s * expf(m - row_max), scratch);
    const float inv = 1.0f / row_sum;
    for (int c = threadIdx.x; c < cols; c += LARGE_THREADS) outr[c] = expf(xr[c] - row_max) * inv;
}

template <int THREADS, int VPT>
void launch_cached(const float *x, float *out, int rows, int cols, bool vec_io, cudaStream_t stream) {
    if (vec_io) softmax_cached<THREADS, VPT, true><<<rows, THREADS, 0, stream>>>(x, out, cols);
    else softmax_cached<THREADS, VPT, false><<<rows, THREADS, 0, stream>>>(x, out, cols);
}

} /* namespace */

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
    if (kf::bad_shape(rows, cols)) return (int)cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return 0;
    const bool vec_io = cols % VEC == 0 && kf::is_aligned(x, kf::VEC_BYTES) && kf::is_aligned(out, kf::VEC_BYTES);
    const int per_slot = SMALL_THREADS * VEC;
    if (cols <= 1 * per_slot) launch_cached<SMALL_THREADS, 1>(x, out, rows, cols, vec_io, stream);
    else if (cols <= 2 * per_slot) launch_cached<SMALL_THREADS, 2>(x, out, rows, cols, vec_io, stream);
    else if (cols <= 4 * per_slot) launch_cached<SMALL_THREADS, 4>(x, out, rows, cols, vec_io, stream);
    else if (cols <= 8 * per_slot) launch_cached<SMALL_THREADS, 8>(x, out, rows, cols, vec_io, stream);
    else if (cols <= CACHED_MAX_COLS) launch_cached<LARGE_THREADS, LARGE_VPT>(x, out, rows, cols, vec_io, stream);
    else softmax_online<<<rows, LARGE_THREADS, 0, stream>>>(x, out, cols);
    return kf::launch_status();
}
