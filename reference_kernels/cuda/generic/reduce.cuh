/* Generic op library (see ops.cuh): reductions, arg-reductions, scans and softmax over any axis of a contiguous
 * tensor viewed as [outer, n, inner]. A row (inner == 1) gets a block (or, for scans, a warp) that strides over it;
 * a strided axis (inner > 1) gets one thread per (outer, inner) column, whose loads are coalesced across the
 * columns. Whole-tensor reductions (losses) go through a fixed set of per-block partials, so they are deterministic. */
#pragma once
#include <climits>
#include "cuda/generic/elem.cuh"

namespace kfg {

enum red { SUM, MEAN, MAX, MIN, PROD, SUMSQ, L2, LSE, VAR, STD };
enum arg { ARGMAX, ARGMIN };
enum scan_op { SCAN_SUM, SCAN_PROD, SCAN_MAX, SCAN_MIN };

struct scan_opts {
    scan_op op = SCAN_SUM;
    bool exclusive = false;
    bool reverse = false;
};

/* The combining operator of a pass. */
enum comb { C_SUM, C_MAX, C_MIN, C_PROD };

__device__ __forceinline__ float comb_identity(comb c) {
    return c == C_SUM ? 0.0f : c == C_PROD ? 1.0f : c == C_MAX ? -INFINITY : INFINITY;
}

__device__ __forceinline__ float comb_apply(comb c, float a, float b) {
    return c == C_SUM ? a + b : c == C_PROD ? a * b : c == C_MAX ? fmaxf(a, b) : fminf(a, b);
}

constexpr unsigned FULL = 0xffffffffu;
constexpr int WARP = 32;

/* Every thread of the block receives the combination of every thread's v. scratch: WARP floats of shared memory,
 * free again on return. */
__device__ __forceinline__ float block_combine(comb c, float v, float *scratch) {
    const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP, warps = (blockDim.x + WARP - 1) / WARP;
#pragma unroll
    for (int off = WARP / 2; off > 0; off /= 2) v = comb_apply(c, v, __shfl_xor_sync(FULL, v, off));
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    float r = comb_identity(c);
    for (int w = 0; w < warps; ++w) r = comb_apply(c, r, scratch[w]);
    __syncthreads();
    return r;
}

__device__ __forceinline__ float block_sum(float v, float *scratch) { return block_combine(C_SUM, v, scratch); }
__device__ __forceinline__ float block_max(float v, float *scratch) { return block_combine(C_MAX, v, scratch); }

/* One pass over a line of n values at base + k * stride: by the whole block when BLOCK, else by this thread. */
template <bool BLOCK, class L, class F>
__device__ __forceinline__ float line_pass(const L &load, long long base, long long stride, long long n, comb c, F f,
                                           float *scratch) {
    float acc = comb_identity(c);
    for (long long k = BLOCK ? threadIdx.x : 0; k < n; k += BLOCK ? blockDim.x : 1)
        acc = comb_apply(c, acc, f(load(base + k * stride, k)));
    return BLOCK ? block_combine(c, acc, scratch) : acc;
}

struct as_is { __device__ float operator()(float v) const { return v; } };

template <bool BLOCK, class L>
__device__ float reduce_line(const L &load, long long base, long long stride, long long n, red r, float *scratch) {
    switch (r) {
    case MAX: return line_pass<BLOCK>(load, base, stride, n, C_MAX, as_is{}, scratch);
    case MIN: return line_pass<BLOCK>(load, base, stride, n, C_MIN, as_is{}, scratch);
    case PROD: return line_pass<BLOCK>(load, base, stride, n, C_PROD, as_is{}, scratch);
    case SUMSQ:
    case L2: {
        const float s = line_pass<BLOCK>(load, base, stride, n, C_SUM, [](float v) { return v * v; }, scratch);
        return r == L2 ? sqrtf(s) : s;
    }
    case LSE: {
        const float m = line_pass<BLOCK>(load, base, stride, n, C_MAX, as_is{}, scratch);
        if (m == -INFINITY || m != m) return m;
        const float s = line_pass<BLOCK>(load, base, stride, n, C_SUM, [m](float v) { return expf(v - m); }, scratch);
        return m + logf(s);
    }
    case VAR:
    case STD: {
        if (n == 0) return 0.0f;
        const float mean = line_pass<BLOCK>(load, base, stride, n, C_SUM, as_is{}, scratch) / (float)n;
        const float sq = line_pass<BLOCK>(load, base, stride, n, C_SUM,
                                          [mean](float v) { return (v - mean) * (v - mean); }, scratch);
        return r == STD ? sqrtf(sq / (float)n) : sq / (float)n;
    }
    case MEAN: return n ? line_pass<BLOCK>(load, base, stride, n, C_SUM, as_is{}, scratch) / (float)n : 0.0f;
    default: return line_pass<BLOCK>(load, base, stride, n, C_SUM, as_is{}, scratch);
    }
}

/* Loaders: the value at flat index i, k its position along the axis. */
template <class T> struct load1 {
    const T *x;
    __device__ float operator()(long long i, long long) const { return ld(x, i); }
};
template <class T, class Pre> struct load_pre {
    const T *x;
    Pre pre;
    __device__ float operator()(long long i, long long k) const { return pre(ld(x, i), k); }
};
template <class TA, class TB, class Pre2> struct load2 {
    const TA *a;
    const TB *b;
    Pre2 pre;
    __device__ float operator()(long long i, long long) const { return pre(ld(a, i), ld(b, i)); }
};

template <class TY, class L>
__global__ void __launch_bounds__(THREADS) reduce_rows_kernel(TY *y, L load, long long rows, long long n, red r) {
    __shared__ float scratch[WARP];
    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const float v = reduce_line<true>(load, row * n, 1, n, r, scratch);
        if (threadIdx.x == 0) st(y, row, v);
    }
}

template <class TY, class L>
__global__ void __launch_bounds__(THREADS)
reduce_cols_kernel(TY *y, L load, long long outer, long long n, long long inner, red r) {
    for (long long t = blockIdx.x * (long long)THREADS + threadIdx.x; t < outer * inner;
         t += (long long)gridDim.x * THREADS) {
        const long long o = t / inner, i = t % inner;
        st(y, t, reduce_line<false>(load, o * n * inner + i, inner, n, r, nullptr));
    }
}

template <class TY, class L>
inline int reduce_with(TY *y, const L &load, long long outer, long long n, long long inner, red r, cudaStream_t s) {
    if (bad(outer, n, inner)) return BAD;
    if (outer == 0 || inner == 0) return 0;
    if (inner == 1)
        reduce_rows_kernel<<<(unsigned)(outer < MAX_GRID ? outer : MAX_GRID), THREADS, 0, s>>>(y, load, outer, n, r);
    else
        reduce_cols_kernel<<<grid_for(outer * inner), THREADS, 0, s>>>(y, load, outer, n, inner, r);
    return status();
}

template <class TY, class TX>
inline int reduce(TY *y, const TX *x, long long outer, long long n, long long inner, red r, cudaStream_t s) {
    return reduce_with(y, load1<TX>{ x }, outer, n, inner, r, s);
}

template <class TY, class TX, class Pre>
inline int reduce_map(TY *y, const TX *x, long long outer, long long n, long long inner, red r, Pre pre,
                      cudaStream_t s) {
    return reduce_with(y, load_pre<TX, Pre>{ x, pre }, outer, n, inner, r, s);
}

template <class TY, class TA, class TB, class Pre2>
inline int reduce2(TY *y, const TA *a, const TB *b, long long outer, long long n, long long inner, red r, Pre2 pre,
                   cudaStream_t s) {
    return reduce_with(y, load2<TA, TB, Pre2>{ a, b, pre }, outer, n, inner, r, s);
}

/* ---- whole-tensor reductions ---- */

constexpr int PARTIALS = 1024; /* blocks of the first pass, at most */

namespace {
__device__ float g_partials[PARTIALS];
}

template <class L>
__global__ void __launch_bounds__(THREADS) reduce_all_partials(L load, long long count, comb c, bool square) {
    __shared__ float scratch[WARP];
    float acc = comb_identity(c);
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < count; i += (long long)gridDim.x * THREADS) {
        const float v = load(i, i);
        acc = comb_apply(c, acc, square ? v * v : v);
    }
    acc = block_combine(c, acc, scratch);
    if (threadIdx.x == 0) g_partials[blockIdx.x] = acc;
}

template <class TY>
__global__ void __launch_bounds__(THREADS) reduce_all_final(TY *y, int parts, comb c, float scale, bool root) {
    __shared__ float scratch[WARP];
    float acc = comb_identity(c);
    for (int i = threadIdx.x; i < parts; i += THREADS) acc = comb_apply(c, acc, g_partials[i]);
    acc = block_combine(c, acc, scratch);
    if (threadIdx.x == 0) st(y, 0, scale * (root ? sqrtf(acc) : acc));
}

/* r: SUM, MEAN, MAX, MIN, PROD, SUMSQ or L2; y[0] = scale * r (MEAN: scale / count * the sum). */
template <class TY, class L>
inline int reduce_all_with(TY *y, const L &load, long long count, red r, float scale, cudaStream_t s) {
    if (bad(count)) return BAD;
    if (r == LSE || r == VAR || r == STD) return BAD;
    const comb c = r == MAX ? C_MAX : r == MIN ? C_MIN : r == PROD ? C_PROD : C_SUM;
    if (r == MEAN) scale = count ? scale / (float)count : 0.0f;
    long long blocks = (count + THREADS - 1) / THREADS;
    blocks = blocks < 1 ? 1 : blocks > PARTIALS ? PARTIALS : blocks;
    reduce_all_partials<<<(unsigned)blocks, THREADS, 0, s>>>(load, count, c, r == SUMSQ || r == L2);
    reduce_all_final<<<1, THREADS, 0, s>>>(y, (int)blocks, c, scale, r == L2);
    return status();
}

template <class TY, class TX>
inline int reduce_all(TY *y, const TX *x, long long count, red r, float scale, cudaStream_t s) {
    return reduce_all_with(y, load1<TX>{ x }, count, r, scale, s);
}

/* y[0] = scale * sum over i of pre2(a[i], b[i]). */
template <class TY, class TA, class TB, class Pre2>
inline int reduce_all2(TY *y, const TA *a, const TB *b, long long count, Pre2 pre, float scale, cudaStream_t s) {
    return reduce_all_with(y, load2<TA, TB, Pre2>{ a, b, pre }, count, SUM, scale, s);
}

/* ---- arg-reductions ---- */

__device__ __forceinline__ bool arg_better(bool mx, float v, long long i, float bv, long long bi) {
    const bool vn = v != v, bn = bv != bv;
    if (vn || bn) return vn && (!bn || i < bi);
    if (v == bv) return i < bi;
    return mx ? v > bv : v < bv;
}

template <bool BLOCK, class TX>
__device__ long long arg_line(const TX *x, long long base, long long stride, long long n, bool mx, float *sv,
                              long long *si) {
    float bv = mx ? -INFINITY : INFINITY;
    long long bi = LLONG_MAX;
    for (long long k = BLOCK ? threadIdx.x : 0; k < n; k += BLOCK ? blockDim.x : 1) {
        const float v = ld(x, base + k * stride);
        if (arg_better(mx, v, k, bv, bi)) { bv = v; bi = k; }
    }
    if constexpr (BLOCK) {
#pragma unroll
        for (int off = WARP / 2; off > 0; off /= 2) {
            const float ov = __shfl_xor_sync(FULL, bv, off);
            const long long oi = __shfl_xor_sync(FULL, bi, off);
            if (arg_better(mx, ov, oi, bv, bi)) { bv = ov; bi = oi; }
        }
        const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP, warps = (blockDim.x + WARP - 1) / WARP;
        if (lane == 0) { sv[warp] = bv; si[warp] = bi; }
        __syncthreads();
        for (int w = 0; w < warps; ++w)
            if (arg_better(mx, sv[w], si[w], bv, bi)) { bv = sv[w]; bi = si[w]; }
        __syncthreads();
    }
    return bi == LLONG_MAX ? 0 : bi;
}

template <class TI, class TX>
__global__ void __launch_bounds__(THREADS) arg_rows_kernel(TI *idx, const TX *x, long long rows, long long n, bool mx) {
    __shared__ float sv[WARP];
    __shared__ long long si[WARP];
    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const long long k = arg_line<true>(x, row * n, 1, n, mx, sv, si);
        if (threadIdx.x == 0) idx[row] = (TI)k;
    }
}

template <class TI, class TX>
__global__ void __launch_bounds__(THREADS)
arg_cols_kernel(TI *idx, const TX *x, long long outer, long long n, long long inner, bool mx) {
    for (long long t = blockIdx.x * (long long)THREADS + threadIdx.x; t < outer * inner;
         t += (long long)gridDim.x * THREADS)
        idx[t] = (TI)arg_line<false>(x, t / inner * n * inner + t % inner, inner, n, mx, nullptr, nullptr);
}

/* idx: int or long long. */
template <class TI, class TX>
inline int argreduce(TI *idx, const TX *x, long long outer, long long n, long long inner, arg a, cudaStream_t s) {
    if (bad(outer, n, inner)) return BAD;
    if (outer == 0 || inner == 0) return 0;
    if (inner == 1)
        arg_rows_kernel<<<(unsigned)(outer < MAX_GRID ? outer : MAX_GRID), THREADS, 0, s>>>(idx, x, outer, n,
                                                                                          a == ARGMAX);
    else
        arg_cols_kernel<<<grid_for(outer * inner), THREADS, 0, s>>>(idx, x, outer, n, inner, a == ARGMAX);
    return status();
}

/* ---- scans ---- */

__device__ __forceinline__ comb scan_comb(scan_op op) {
    return op == SCAN_PROD ? C_PROD : op == SCAN_MAX ? C_MAX : op == SCAN_MIN ? C_MIN : C_SUM;
}

/* One warp per row (inner == 1): WARP values at a time, a shuffle scan and a carry between chunks. */
template <class TY, class TX>
__global__ void __launch_bounds__(THREADS)
scan_rows_kernel(TY *y, const TX *x, const bool *mask, long long rows, long long n, scan_opts o) {
    const comb c = scan_comb(o.op);
    const int lane = threadIdx.x % WARP;
    const long long warps = (long long)gridDim.x * (THREADS / WARP);
    for (long long row = blockIdx.x * (long long)(THREADS / WARP) + threadIdx.x / WARP; row < rows; row += warps) {
        float carry = comb_identity(c);
        for (long long k0 = 0; k0 < n; k0 += WARP) {
            const long long pos = k0 + lane, k = o.reverse ? n - 1 - pos : pos, i = row * n + k;
            float v = comb_identity(c);
            if (pos < n && (!mask || mask[i])) v = ld(x, i);
            float inc = v;
#pragma unroll
            for (int off = 1; off < WARP; off *= 2) {
                const float before = __shfl_up_sync(FULL, inc, off);
                if (lane >= off) inc = comb_apply(c, before, inc);
            }
            float exc = __shfl_up_sync(FULL, inc, 1);
            if (lane == 0) exc = comb_identity(c);
            if (pos < n) st(y, i, comb_apply(c, carry, o.exclusive ? exc : inc));
            carry = comb_apply(c, carry, __shfl_sync(FULL, inc, WARP - 1));
        }
    }
}

template <class TY, class TX>
__global__ void __launch_bounds__(THREADS)
scan_cols_kernel(TY *y, const TX *x, const bool *mask, long long outer, long long n, long long inner, scan_opts o) {
    const comb c = scan_comb(o.op);
    for (long long t = blockIdx.x * (long long)THREADS + threadIdx.x; t < outer * inner;
         t += (long long)gridDim.x * THREADS) {
        const long long base = t / inner * n * inner + t % inner;
        float run = comb_identity(c);
        for (long long pos = 0; pos < n; ++pos) {
            const long long i = base + (o.reverse ? n - 1 - pos : pos) * inner;
            const float v = !mask || mask[i] ? ld(x, i) : comb_identity(c);
            const float next = comb_apply(c, run, v);
            st(y, i, o.exclusive ? run : next);
            run = next;
        }
    }
}

/* mask: may be null. */
template <class TY, class TX>
inline int scan(TY *y, const TX *x, const bool *mask, long long outer, long long n, long long inner, scan_opts o,
                cudaStream_t s) {
    if (bad(outer, n, inner)) return BAD;
    if (outer == 0 || inner == 0 || n == 0) return 0;
    if (inner == 1) {
        const long long blocks = (outer + THREADS / WARP - 1) / (THREADS / WARP);
        scan_rows_kernel<<<(unsigned)(blocks < MAX_GRID ? blocks : MAX_GRID), THREADS, 0, s>>>(y, x, mask, outer, n, o);
    } else {
        scan_cols_kernel<<<grid_for(outer * inner), THREADS, 0, s>>>(y, x, mask, outer, n, inner, o);
    }
    return status();
}

/* ---- softmax ---- */

template <bool BLOCK, class TY, class TX>
__device__ void softmax_line(TY *y, const TX *x, long long base, long long stride, long long n, bool log_out,
                             float *scratch) {
    const load1<TX> load{ x };
    const float m = line_pass<BLOCK>(load, base, stride, n, C_MAX, as_is{}, scratch);
    const float sum = line_pass<BLOCK>(load, base, stride, n, C_SUM, [m](float v) { return expf(v - m); }, scratch);
    const float lse = m + logf(sum), inv = 1.0f / sum;
    for (long long k = BLOCK ? threadIdx.x : 0; k < n; k += BLOCK ? blockDim.x : 1) {
        const long long i = base + k * stride;
        const float v = ld(x, i);
        st(y, i, log_out ? v - lse : expf(v - m) * inv);
    }
}

template <class TY, class TX>
__global__ void __launch_bounds__(THREADS)
softmax_rows_kernel(TY *y, const TX *x, long long rows, long long n, bool log_out) {
    __shared__ float scratch[WARP];
    for (long long row = blockIdx.x; row < rows; row += gridDim.x)
        softmax_line<true>(y, x, row * n, 1, n, log_out, scratch);
}

template <class TY, class TX>
__global__ void __launch_bounds__(THREADS)
softmax_cols_kernel(TY *y, const TX *x, long long outer, long long n, long long inner, bool log_out) {
    for (long long t = blockIdx.x * (long long)THREADS + threadIdx.x; t < outer * inner;
         t += (long long)gridDim.x * THREADS)
        softmax_line<false>(y, x, t / inner * n * inner + t % inner, inner, n, log_out, nullptr);
}

template <class TY, class TX>
inline int softmax_any(TY *y, const TX *x, long long outer, long long n, long long inner, bool log_out,
                       cudaStream_t s) {
    if (bad(outer, n, inner)) return BAD;
    if (outer == 0 || inner == 0 || n == 0) return 0;
    if (inner == 1)
        softmax_rows_kernel<<<(unsigned)(outer < MAX_GRID ? outer : MAX_GRID), THREADS, 0, s>>>(y, x, outer, n,
                                                                                              log_out);
    else
        softmax_cols_kernel<<<grid_for(outer * inner), THREADS, 0, s>>>(y, x, outer, n, inner, log_out);
    return status();
}

template <class TY, class TX>
inline int softmax(TY *y, const TX *x, long long outer, long long n, long long inner, cudaStream_t s) {
    return softmax_any(y, x, outer, n, inner, false, s);
}

template <class TY, class TX>
inline int log_softmax(TY *y, const TX *x, long long outer, long long n, long long inner, cudaStream_t s) {
    return softmax_any(y, x, outer, n, inner, true, s);
}

} /* namespace kfg */
