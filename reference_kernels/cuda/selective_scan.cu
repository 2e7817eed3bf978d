/* Reference kernel for selective_scan (Mamba): h = exp(delta A) h + delta Bm u, y = Cm . h per channel over time;
 * u, delta, y bf16 [B, L, Dm], A f32 [Dm, N], Bm, Cm bf16 [B, L, N]. One block per (batch, 32 channels): lane =
 * channel, 16 warps each own states n = w, w + 16, ...; 16-step chunks staged in shared memory (the next chunk in
 * flight), partial outputs summed over warps there. Bound by the exp per state and step. */
#include "tile/common.cuh"

namespace {

typedef __nv_bfloat16 bf16;
constexpr int CH = kf::WARP;                 /* channels per block, one per lane */
constexpr int GROUPS = 16;                   /* warps, each a strided share of the states */
constexpr int THREADS = GROUPS * kf::WARP;
constexpr int T = 16;                        /* time steps per chunk */
constexpr int SMALL_N = 16, MAX_N = 64;
constexpr float LOG2E = 1.4426950408889634f;
constexpr int UD_PER_THREAD = T * CH / THREADS;   /* u and delta values each thread stages per chunk */
static_assert(T * CH % THREADS == 0, "whole u/delta values per thread");

/* One chunk of inputs on its way from global memory to shared memory. */
template <int NMAX> struct chunk_regs {
    static constexpr int BC_PER_THREAD = (T * NMAX + THREADS - 1) / THREADS;
    bf16 u[UD_PER_THREAD], dt[UD_PER_THREAD], b[BC_PER_THREAD], c[BC_PER_THREAD];
};

template <int NMAX>
__device__ __forceinline__ void fetch(chunk_regs<NMAX> &r, const bf16 *u, const bf16 *delta, const bf16 *Bm,
                                      const bf16 *Cm, long long seq, int t0, int L, int d0, int Dm, int N) {
    const bf16 zero = __float2bfloat16(0.0f);
#pragma unroll
    for (int j = 0; j < UD_PER_THREAD; ++j) {
        const int i = threadIdx.x + j * THREADS, t = i / CH, c = i % CH;
        const bool in = t0 + t < L && d0 + c < Dm;
        const long long at = (seq + t0 + t) * Dm + d0 + c;
        r.u[j] = in ? u[at] : zero;
        r.dt[j] = in ? delta[at] : zero;
    }
#pragma unroll
    for (int j = 0; j < chunk_regs<NMAX>::BC_PER_THREAD; ++j) {
        const int i = threadIdx.x + j * THREADS, t = i / NMAX, n = i % NMAX;
        const bool in = i < T * NMAX && t0 + t < L && n < N;
        const long long at = (seq + t0 + t) * N + n;
        r.b[j] = in ? Bm[at] : zero;
        r.c[j] = in ? Cm[at] : zero;
    }
}

template <int NMAX>
struct scan_smem {
    float u[T][CH], dt[T][CH], b[T][NMAX], c[T][NMAX], part[GROUPS][T][CH + 1];
};

template <int NMAX>
__device__ __forceinline__ void stage(scan_smem<NMAX> &sm, const chunk_regs<NMAX> &r) {
#pragma unroll
    for (int j = 0; j < UD_PER_THREAD; ++j) {
        const int i = threadIdx.x + j * THREADS;
        sm.u[i / CH][i % CH] = __bfloat162float(r.u[j]);
        sm.dt[i / CH][i % CH] = __bfloat162float(r.dt[j]);
    }
#pragma unroll
    for (int j = 0; j < chunk_regs<NMAX>::BC_PER_THREAD; ++j) {
        const int i = threadIdx.x + j * THREADS;
        if (i < T * NMAX) {
            sm.b[i / NMAX][i % NMAX] = __bfloat162float(r.b[j]);
            sm.c[i / NMAX][i % NMAX] = __bfloat162float(r.c[j]);
        }
    }
}

template <int NMAX>
__global__ void __launch_bounds__(THREADS)
scan(const bf16 *u, const bf16 *delta, const float *A, const bf16 *Bm, const bf16 *Cm, bf16 *y, int L, int Dm, int N) {
    constexpr int PER = NMAX / GROUPS;       /* states per thread */
    __shared__ scan_smem<NMAX> sm;
    const int lane = threadIdx.x % kf::WARP, w = threadIdx.x / kf::WARP, d0 = blockIdx.x * CH, b = blockIdx.y;
    const int d = d0 + lane;
    float a2[PER], h[PER];
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        const int n = w + GROUPS * j;
        a2[j] = d < Dm && n < N ? A[(long long)d * N + n] * LOG2E : 0.0f;   /* padding states stay 0 */
        h[j] = 0.0f;
    }
    const long long seq = (long long)b * L;
    chunk_regs<NMAX> next;
    fetch(next, u, delta, Bm, Cm, seq, 0, L, d0, Dm, N);
    for (int t0 = 0; t0 < L; t0 += T) {
        __syncthreads();                     /* the previous chunk's partials have been summed */
        stage(sm, next);
        __syncthreads();
        if (t0 + T < L) fetch(next, u, delta, Bm, Cm, seq, t0 + T, L, d0, Dm, N);
#pragma unroll 4
        for (int t = 0; t < T; ++t) {
            const float dt = sm.dt[t][lane], du = dt * sm.u[t][lane];
            float part = 0.0f;
#pragma unroll
            for (int j = 0; j < PER; ++j) {
                const int n = w + GROUPS * j;
                h[j] = exp2f(dt * a2[j]) * h[j] + du * sm.b[t][n];
                part += sm.c[t][n] * h[j];
            }
            sm.part[w][t][lane] = part;
        }
        __syncthreads();
        for (int i = threadIdx.x; i < T * CH; i += THREADS) {
            const int t = i / CH, c = i % CH;
            float s = 0.0f;
#pragma unroll
            for (int g = 0; g < GROUPS; ++g) s += sm.part[g][t][c];
            if (t0 + t < L && d0 + c < Dm) y[(seq + t0 + t) * Dm + d0 + c] = __float2bfloat16_rn(s);
        }
    }
}

} /* namespace */

extern "C" int kf_launch(const bf16 *u, const bf16 *delta, const float *A, const bf16 *Bm, const bf16 *Cm, bf16 *y,
                         int B, int L, int Dm, int N, cudaStream_t stream) {
    if (kf::bad_shape(B, L, Dm) || N < 1 || N > MAX_N) return (int)cudaErrorInvalidValue;
    if (B == 0 || L == 0 || Dm == 0) return 0;
    const dim3 grid((unsigned)kf::ceil_div(Dm, CH), (unsigned)B);
    if (N <= SMALL_N) scan<SMALL_N><<<grid, THREADS, 0, stream>>>(u, delta, A, Bm, Cm, y, L, Dm, N);
    else scan<MAX_N><<<grid, THREADS, 0, stream>>>(u, delta, A, Bm, Cm, y, L, Dm, N);
    return kf::launch_status();
}
