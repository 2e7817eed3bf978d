/* Reference kernel for conv1d_depthwise: causal depthwise 1-D convolution, fp32,
 * y[n, c, t] = sum_{k < W} w[c, k] * x[n, c, t - (W - 1) + k], with x taken as 0 before t = 0.
 * Each block owns SEG outputs of one (n, c) row: it stages the SEG + W - 1 inputs they need (halo included) and
 * the W taps in shared memory with coalesced loads, then each thread forms ITEMS outputs THREADS apart, so shared
 * reads and global writes are conflict-free and coalesced. Filters wider than MAX_HALO + 1 taps read x directly. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"

namespace {

constexpr int THREADS = 256, ITEMS = 8;
constexpr int SEG = THREADS * ITEMS;                  /* outputs per block */
constexpr int MAX_HALO = 4096;                        /* staged inputs before the segment: W - 1 at most this */

__global__ void __launch_bounds__(THREADS)
conv_staged(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ y, int C, int L, int W,
            int segs) {
    extern __shared__ float smem[];
    float *taps = smem, *window = smem + W;           /* window[j] = x[t0 - (W - 1) + j] */
    const long long row = blockIdx.x / segs;
    const int t0 = (blockIdx.x % segs) * SEG, halo = W - 1;
    const float *xr = x + row * L;
    const float *wr = w + (row % C) * W;
    for (int k = threadIdx.x; k < W; k += THREADS) taps[k] = wr[k];
    for (int j = threadIdx.x; j < SEG + halo; j += THREADS) {
        const int t = t0 - halo + j;
        window[j] = t >= 0 && t < L ? xr[t] : 0.0f;
    }
    __syncthreads();
    float acc[ITEMS] = {};
    for (int k = 0; k < W; ++k) {
        const float tap = taps[k];
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) acc[i] = fmaf(tap, window[threadIdx.x + i * THREADS + k], acc[i]);
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int t = t0 + threadIdx.x + i * THREADS;
        if (t < L) y[row * L + t] = acc[i];
    }
}

/* Filters too wide to stage: every tap straight from global memory (L1 serves the overlap). */
__global__ void __launch_bounds__(THREADS)
conv_direct(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ y, int C, int L, int W,
            long long total) {
    const long long i = (long long)blockIdx.x * THREADS + threadIdx.x;
    if (i >= total) return;
    const long long row = i / L;
    const int t = (int)(i % L);
    const float *xr = x + row * L, *wr = w + (row % C) * W;
    float acc = 0.0f;
    for (int k = t < W - 1 ? W - 1 - t : 0; k < W; ++k) acc = fmaf(wr[k], xr[t - (W - 1) + k], acc);
    y[i] = acc;
}

} /* namespace */

extern "C" int kf_launch(const float *x, const float *w, float *y, int N, int C, int L, int W, cudaStream_t stream) {
    if (kf::bad_shape(N, C, L) || kf::bad_shape(W)) return (int)cudaErrorInvalidValue;
    if (N == 0 || C == 0 || L == 0) return 0;
    const long long rows = (long long)N * C;
    if (W - 1 <= MAX_HALO) {
        const int segs = (int)kf::ceil_div(L, SEG);
        const size_t smem = (size_t)(W + SEG + W - 1) * sizeof(float);
        conv_staged<<<(unsigned)(rows * segs), THREADS, smem, stream>>>(x, w, y, C, L, W, segs);
    } else {
        conv_direct<<<(unsigned)kf::ceil_div(rows * L, THREADS), THREADS, 0, stream>>>(x, w, y, C, L, W, rows * L);
    }
    return kf::launch_status();
}
