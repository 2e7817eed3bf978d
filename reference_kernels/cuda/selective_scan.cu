/* Reference kernel for selective_scan (Mamba): h = exp(delta A) h + delta Bm u, y = Cm . h per channel over time;
 * u, delta, y bf16 [B, L, Dm], A f32 [Dm, N], Bm, Cm bf16 [B, L, N]. Bound by the special-function unit (one exp per
 * state and step). SG threads per channel run NS states each; chunks of T steps (64, or 32 for 64 states) staged in
 * shared memory as fp32 (double-buffered, next chunk's loads in flight), each chunk unrolled with its outputs in
 * registers, then summed over the channel's threads. */
#include "tile/common.cuh"

namespace {

typedef __nv_bfloat16 bf16;
constexpr int THREADS = 128;
constexpr int SMALL_N = 16, MAX_N = 64;
constexpr int VEC_CH = 4;                    /* channels per 8-byte load of u or delta */

template <int NP, int SG> struct cfg {
    /* time steps per chunk: 64 halves the per-chunk costs (barrier, staging, the sum over SG) against 32, where the
     * registers allow it (16 states: 0.170 ms against 0.189 ms at the bench shape); 64 states would spill */
    static constexpr int T = NP <= SMALL_N ? 64 : 32;
    static constexpr int NS = NP / SG;               /* states per thread */
    static constexpr int CH = THREADS / SG;          /* channels per block */
    static constexpr int UD_PER_THREAD = T * CH / THREADS;
    static constexpr int BC_PER_THREAD = T * NP / THREADS;
    static constexpr int STATE_VEC = NS % 4 == 0 ? 4 : 2;   /* states per shared load of Bm or Cm */
    static_assert(NS % STATE_VEC == 0 && T * CH % (THREADS * VEC_CH) == 0 && T * NP % THREADS == 0, "tiling");
};

template <int N> __device__ __forceinline__ void load_states(float *dst, const float *src) {
    if (N == 4) *reinterpret_cast<float4 *>(dst) = *reinterpret_cast<const float4 *>(src);
    else *reinterpret_cast<float2 *>(dst) = *reinterpret_cast<const float2 *>(src);
}

template <int NP, int SG> struct chunk_smem {
    float2 du[cfg<NP, SG>::T][cfg<NP, SG>::CH];    /* (delta, u) */
    float b[cfg<NP, SG>::T][NP], c[cfg<NP, SG>::T][NP];
};

template <int NP, int SG> struct scan_smem {
    chunk_smem<NP, SG> in[2];
    float part[2][cfg<NP, SG>::T][cfg<NP, SG>::CH][SG];   /* each thread's share of y, summed over SG after the chunk */
};

/* One chunk of inputs on its way from global memory to shared memory. */
template <int NP, int SG> struct chunk_regs {
    bf16 u[cfg<NP, SG>::UD_PER_THREAD], dt[cfg<NP, SG>::UD_PER_THREAD];
    bf16 b[cfg<NP, SG>::BC_PER_THREAD], c[cfg<NP, SG>::BC_PER_THREAD];
};

/* Element i of the chunk's T x CH block of u / delta: time step and channel. With VEC, VEC_CH channels per load. */
template <int NP, int SG, bool VEC>
__device__ __forceinline__ void ud_index(int j, int &t, int &ch) {
    constexpr int CH = cfg<NP, SG>::CH;
    const int i = VEC ? (threadIdx.x + (j / VEC_CH) * THREADS) * VEC_CH + j % VEC_CH : threadIdx.x + j * THREADS;
    t = i / CH;
    ch = i % CH;
}

template <int NP, int SG, bool VEC>
__device__ __forceinline__ void fetch(chunk_regs<NP, SG> &r, const bf16 *u, const bf16 *delta, const bf16 *Bm,
                                      const bf16 *Cm, long long seq, int t0, int L, int d0, int Dm, int N) {
    using c = cfg<NP, SG>;
    const bf16 zero = __float2bfloat16(0.0f);
#pragma unroll
    for (int j = 0; j < c::UD_PER_THREAD; j += VEC ? VEC_CH : 1) {
        int t, ch;
        ud_index<NP, SG, VEC>(j, t, ch);
        const bool in = t0 + t < L && d0 + ch < Dm;
        const long long at = (seq + t0 + t) * Dm + d0 + ch;
        if (VEC) {   /* Dm % VEC_CH == 0: a load is wholly inside Dm or wholly past it */
            const uint2 zu = make_uint2(0, 0);
            const uint2 vu = in ? __ldg(reinterpret_cast<const uint2 *>(u + at)) : zu;
            const uint2 vd = in ? __ldg(reinterpret_cast<const uint2 *>(delta + at)) : zu;
            const bf16 *pu = reinterpret_cast<const bf16 *>(&vu), *pd = reinterpret_cast<const bf16 *>(&vd);
#pragma unroll
            for (int e = 0; e < VEC_CH; ++e) {
                r.u[j + e] = pu[e];
                r.dt[j + e] = pd[e];
            }
        } else {
            r.u[j] = in ? u[at] : zero;
            r.dt[j] = in ? delta[at] : zero;
        }
    }
#pragma unroll
    for (int j = 0; j < c::BC_PER_THREAD; ++j) {
        const int i = threadIdx.x + j * THREADS, t = i / NP, n = i % NP;
        const bool in = t0 + t < L && n < N;
        const long long at = (seq + t0 + t) * N + n;
        r.b[j] = in ? Bm[at] : zero;
        r.c[j] = in ? Cm[at] : zero;
    }
}

template <int NP, int SG, bool VEC>
__device__ __forceinline__ void stage(chunk_smem<NP, SG> &sm, const chunk_regs<NP, SG> &r) {
    using c = cfg<NP, SG>;
#pragma unroll
    for (int j = 0; j < c::UD_PER_THREAD; ++j) {
        int t, ch;
        ud_index<NP, SG, VEC>(j, t, ch);
        sm.du[t][ch] = make_float2(__bfloat162float(r.dt[j]), __bfloat162float(r.u[j]));
    }
#pragma unroll
    for (int j = 0; j < c::BC_PER_THREAD; ++j) {
        const int i = threadIdx.x + j * THREADS;
        sm.b[i / NP][i % NP] = __bfloat162float(r.b[j]);
        sm.c[i / NP][i % NP] = __bfloat162float(r.c[j]);
    }
}

template <int NP, int SG, bool VEC>
__global__ void __launch_bounds__(THREADS)
scan(const bf16 *u, const bf16 *delta, const float *A, const bf16 *Bm, const bf16 *Cm, bf16 *y, int L, int Dm, int N) {
    using c = cfg<NP, SG>;
    constexpr int NS = c::NS, CH = c::CH, T = c::T;
    extern __shared__ __align__(16) uint8_t raw[];
    scan_smem<NP, SG> &sm = *reinterpret_cast<scan_smem<NP, SG> *>(raw);
    const int ch = threadIdx.x / SG, sg = threadIdx.x % SG, d0 = blockIdx.x * CH, d = d0 + ch;
    const int n0 = sg * NS;
    float a2[NS], h[NS];
#pragma unroll
    for (int j = 0; j < NS; ++j) {
        const int n = n0 + j;
        a2[j] = d < Dm && n < N ? A[(long long)d * N + n] * kf::LOG2E : 0.0f;   /* padding states stay 0 */
        h[j] = 0.0f;
    }
    const long long seq = (long long)blockIdx.y * L;
    chunk_regs<NP, SG> next;
    fetch<NP, SG, VEC>(next, u, delta, Bm, Cm, seq, 0, L, d0, Dm, N);
    stage<NP, SG, VEC>(sm.in[0], next);
    __syncthreads();

    for (int t0 = 0, ci = 0; t0 < L; t0 += T, ++ci) {
        const chunk_smem<NP, SG> &in = sm.in[ci % 2];
        float(*part)[CH][SG] = sm.part[ci % 2];
        const bool more = t0 + T < L;
        if (more) fetch<NP, SG, VEC>(next, u, delta, Bm, Cm, seq, t0 + T, L, d0, Dm, N);
        /* the whole chunk unrolled, its outputs kept in registers: no shared-memory store sits between one step's
         * loads and the next step's, so they are all hoisted and only h's FMAs are serial */
        float y_part[T];
#pragma unroll
        for (int t = 0; t < T; ++t) {
            const float2 du = in.du[t][ch];
            const float x = du.x * du.y;
            float bv[NS], cv[NS];
#pragma unroll
            for (int j = 0; j < NS; j += c::STATE_VEC) {
                load_states<c::STATE_VEC>(&bv[j], &in.b[t][n0 + j]);
                load_states<c::STATE_VEC>(&cv[j], &in.c[t][n0 + j]);
            }
            float acc = 0.0f;
#pragma unroll
            for (int j = 0; j < NS; ++j) {
                h[j] = fmaf(kf::exp2_fast(du.x * a2[j]), h[j], x * bv[j]);
                acc = fmaf(cv[j], h[j], acc);
            }
            y_part[t] = acc;
        }
#pragma unroll
        for (int t = 0; t < T; ++t) part[t][ch][sg] = y_part[t];
        if (more) stage<NP, SG, VEC>(sm.in[(ci + 1) % 2], next);
        __syncthreads();
        for (int i = threadIdx.x; i < T * CH; i += THREADS) {
            const int t = i / CH, cc = i % CH;
            float s = 0.0f;
#pragma unroll
            for (int g = 0; g < SG; ++g) s += part[t][cc][g];
            if (t0 + t < L && d0 + cc < Dm) y[(seq + t0 + t) * Dm + d0 + cc] = __float2bfloat16_rn(s);
        }
    }
}

template <int NP, int SG, bool VEC>
int launch(const bf16 *u, const bf16 *delta, const float *A, const bf16 *Bm, const bf16 *Cm, bf16 *y, int B, int L,
           int Dm, int N, cudaStream_t stream) {
    constexpr int BYTES = (int)sizeof(scan_smem<NP, SG>);
    const cudaError_t e = cudaFuncSetAttribute(scan<NP, SG, VEC>, cudaFuncAttributeMaxDynamicSharedMemorySize, BYTES);
    if (e != cudaSuccess) return (int)e;
    const dim3 grid((unsigned)kf::ceil_div(Dm, cfg<NP, SG>::CH), (unsigned)B);
    scan<NP, SG, VEC><<<grid, THREADS, BYTES, stream>>>(u, delta, A, Bm, Cm, y, L, Dm, N);
    return kf::launch_status();
}

/* States per thread: 4 (16 states over 4 threads) keeps 32 channels per block and two blocks per SM at the bench
 * shape; 64 states go 16 per thread. */
constexpr int SPLIT = 4;

template <int NP>
int launch(const bf16 *u, const bf16 *delta, const float *A, const bf16 *Bm, const bf16 *Cm, bf16 *y, int B, int L,
           int Dm, int N, cudaStream_t stream) {
    const bool vec = Dm % VEC_CH == 0 && kf::is_aligned(u, VEC_CH * sizeof(bf16)) &&
                     kf::is_aligned(delta, VEC_CH * sizeof(bf16));
    return vec ? launch<NP, SPLIT, true>(u, delta, A, Bm, Cm, y, B, L, Dm, N, stream)
               : launch<NP, SPLIT, false>(u, delta, A, Bm, Cm, y, B, L, Dm, N, stream);
}

} /* namespace */

extern "C" int kf_launch(const bf16 *u, const bf16 *delta, const float *A, const bf16 *Bm, const bf16 *Cm, bf16 *y,
                         int B, int L, int Dm, int N, cudaStream_t stream) {
    if (kf::bad_shape(B, L, Dm) || N < 1 || N > MAX_N) return (int)cudaErrorInvalidValue;
    if (B == 0 || L == 0 || Dm == 0) return 0;
    return N <= SMALL_N ? launch<SMALL_N>(u, delta, A, Bm, Cm, y, B, L, Dm, N, stream)
                        : launch<MAX_N>(u, delta, A, Bm, Cm, y, B, L, Dm, N, stream);
}
