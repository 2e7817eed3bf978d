/* Reference kernel for long_conv: y[b, c, t] = sum_{s<=t} k[c, s] x[b, c, t - s], computed directly; x, y bf16
 * [B, C, L], k f32 [C, L]. One block per (channel, 512 outputs), longest prefixes first; taps and the matching window
 * of x go through shared memory 512 at a time (the window padded one word in 8: conflict-free), each thread slides a
 * 15-value register window over x for its 8 outputs, one shared load per 8 FMAs. */
#include "tile/common.cuh"

namespace {

typedef __nv_bfloat16 bf16;
constexpr int OUT_PER_THREAD = 8;
constexpr int THREADS = 64;
constexpr int T_OUT = THREADS * OUT_PER_THREAD;    /* outputs per block */
constexpr int S_TILE = 512;                        /* taps per shared-memory tile */
constexpr int WINDOW = T_OUT + S_TILE - 1;         /* x values one tap tile touches */
constexpr int PAD_SHIFT = 3;                       /* one padding word after every 8 */
constexpr int STEP = OUT_PER_THREAD;               /* taps per register-window step */
static_assert(S_TILE % STEP == 0, "whole steps per tap tile");

__device__ __forceinline__ int padded(int i) { return i + (i >> PAD_SHIFT); }

__global__ void __launch_bounds__(THREADS) long_conv(const bf16 *x, const float *k, bf16 *y, int B, int C, int L) {
    __shared__ float sk[S_TILE];
    __shared__ float sx[WINDOW + (WINDOW >> PAD_SHIFT) + 1];
    const int c = blockIdx.y, n_t = (int)kf::ceil_div(L, T_OUT);
    const int t0 = (n_t - 1 - (int)blockIdx.x) * T_OUT;
    const int mine = OUT_PER_THREAD * threadIdx.x;    /* first output of this thread, relative to t0 */
    const float *kc = k + (long long)c * L;
    for (int b = 0; b < B; ++b) {
        const bf16 *xr = x + ((long long)b * C + c) * L;
        float acc[OUT_PER_THREAD] = {};
        for (int s0 = 0; s0 < min(L, t0 + T_OUT); s0 += S_TILE) {
            __syncthreads();
            for (int i = threadIdx.x; i < S_TILE; i += THREADS) sk[i] = s0 + i < L ? kc[s0 + i] : 0.0f;
            const int p0 = t0 - s0 - (S_TILE - 1);     /* x position of window entry 0 */
            for (int i = threadIdx.x; i < WINDOW; i += THREADS) {
                const int p = p0 + i;
                sx[padded(i)] = p >= 0 && p < L ? __bfloat162float(xr[p]) : 0.0f;
            }
            __syncthreads();
            /* output mine + o at tap ss reads window entry mine + o + S_TILE - 1 - ss; for the taps
             * ss = q, ..., q + 7 that is xw[o - j + 7] with xw[m] = entry mine + S_TILE - 8 - q + m */
            float xw[2 * STEP - 1];
#pragma unroll
            for (int m = STEP; m < 2 * STEP - 1; ++m) xw[m] = sx[padded(mine + S_TILE - STEP + m)];
            for (int q = 0; q < S_TILE; q += STEP) {
#pragma unroll
                for (int m = 0; m < STEP; ++m) xw[m] = sx[padded(mine + S_TILE - STEP - q + m)];
#pragma unroll
                for (int j = 0; j < STEP; ++j) {
                    const float kv = sk[q + j];
#pragma unroll
                    for (int o = 0; o < OUT_PER_THREAD; ++o) acc[o] += kv * xw[o - j + STEP - 1];
                }
#pragma unroll
                for (int m = STEP; m < 2 * STEP - 1; ++m) xw[m] = xw[m - STEP];
            }
        }
        bf16 *yr = y + ((long long)b * C + c) * L;
#pragma unroll
        for (int o = 0; o < OUT_PER_THREAD; ++o)
            if (t0 + mine + o < L) yr[t0 + mine + o] = __float2bfloat16_rn(acc[o]);
    }
}

} /* namespace */

extern "C" int kf_launch(const bf16 *x, const float *k, bf16 *y, int B, int C, int L, cudaStream_t stream) {
    if (kf::bad_shape(B, C, L)) return (int)cudaErrorInvalidValue;
    if (B == 0 || C == 0 || L == 0) return 0;
    const dim3 grid((unsigned)kf::ceil_div(L, T_OUT), (unsigned)C);
    long_conv<<<grid, THREADS, 0, stream>>>(x, k, y, B, C, L);
    return kf::launch_status();
}
