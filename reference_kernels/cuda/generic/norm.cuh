/* Generic op library (see ops.cuh): layer, RMS, group (instance) and batch norms. One block per normalised group
 * (a row, a (sample, group) slice, or a channel across the batch) makes two passes for the statistics (the mean,
 * then the mean squared deviation from it, so an offset like 300 + N(0, 1) keeps its precision) and a third that
 * writes; normalisation with given running statistics is a map. */
#pragma once
#include "cuda/generic/elem.cuh"
#include "cuda/generic/reduce.cuh"

namespace kfg {

/* Optional per-channel operand: the value, or dflt where the pointer is null. */
template <class T> __device__ __forceinline__ float opt(const T *p, long long c, float dflt) {
    return p ? ld(p, c) : dflt;
}

/* Loads element k of a contiguous slice starting at base. */
template <class T> struct slice_load {
    const T *x;
    long long base;
    __device__ float operator()(long long, long long k) const { return ld(x, base + k); }
};

/* x [N, C, spatial], G groups of C/G channels: block b is slice (n, g) = (b / G, b % G), contiguous. */
template <class TY, class TX, class TG, class TB>
__global__ void __launch_bounds__(THREADS)
group_norm_kernel(TY *y, const TX *x, const TG *gamma, const TB *beta, long long groups, long long G,
                  long long cpg, long long spatial, float eps) {
    __shared__ float scratch[WARP];
    const long long len = cpg * spatial;
    for (long long b = blockIdx.x; b < groups; b += gridDim.x) {
        const long long base = b * len, c0 = b % G * cpg;
        const slice_load<TX> load{ x, base };
        const float mean = line_pass<true>(load, 0, 1, len, C_SUM, as_is{}, scratch) / (float)len;
        const float var = line_pass<true>(load, 0, 1, len, C_SUM,
                                          [mean](float v) { return (v - mean) * (v - mean); }, scratch) / (float)len;
        const float rstd = rsqrtf(var + eps);
        for (long long k = threadIdx.x; k < len; k += THREADS) {
            const long long c = c0 + k / spatial;
            st(y, base + k, (ld(x, base + k) - mean) * rstd * opt(gamma, c, 1.0f) + opt(beta, c, 0.0f));
        }
    }
}

template <class TY, class TX, class TG, class TB>
inline int group_norm(TY *y, const TX *x, const TG *gamma, const TB *beta, long long N, long long C,
                      long long spatial, long long G, float eps, cudaStream_t s) {
    if (bad(N, C, spatial) || G <= 0 || C % G) return BAD;
    const long long groups = N * G;
    if (groups == 0 || C == 0 || spatial == 0) return 0;
    group_norm_kernel<<<(unsigned)(groups < MAX_GRID ? groups : MAX_GRID), THREADS, 0, s>>>(y, x, gamma, beta, groups,
                                                                                          G, C / G, spatial, eps);
    return status();
}

template <class TY, class TX, class TG, class TB>
inline int layer_norm(TY *y, const TX *x, const TG *gamma, const TB *beta, long long rows, long long cols, float eps,
                      cudaStream_t s) {
    return group_norm(y, x, gamma, beta, rows, cols, 1, 1, eps, s);
}

template <class TY, class TX, class TG>
__global__ void __launch_bounds__(THREADS)
rms_norm_kernel(TY *y, const TX *x, const TG *gamma, long long rows, long long cols, float eps) {
    __shared__ float scratch[WARP];
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const slice_load<TX> load{ x, r * cols };
        const float ms = line_pass<true>(load, 0, 1, cols, C_SUM, [](float v) { return v * v; }, scratch) / (float)cols;
        const float rstd = rsqrtf(ms + eps);
        for (long long c = threadIdx.x; c < cols; c += THREADS)
            st(y, r * cols + c, ld(x, r * cols + c) * rstd * opt(gamma, c, 1.0f));
    }
}

template <class TY, class TX, class TG>
inline int rms_norm(TY *y, const TX *x, const TG *gamma, long long rows, long long cols, float eps, cudaStream_t s) {
    if (bad(rows, cols)) return BAD;
    if (rows == 0 || cols == 0) return 0;
    rms_norm_kernel<<<(unsigned)(rows < MAX_GRID ? rows : MAX_GRID), THREADS, 0, s>>>(y, x, gamma, rows, cols, eps);
    return status();
}

/* Element k of channel c across the batch: x[k / spatial, c, k % spatial]. */
template <class T> struct channel_load {
    const T *x;
    long long c, C, spatial;
    __device__ float operator()(long long, long long k) const { return ld(x, (k / spatial * C + c) * spatial + k % spatial); }
};

template <class TY, class TX, class TG, class TB>
__global__ void __launch_bounds__(THREADS)
batch_norm_stats_kernel(TY *y, const TX *x, const TG *gamma, const TB *beta, long long N, long long C,
                        long long spatial, float eps) {
    __shared__ float scratch[WARP];
    const long long len = N * spatial;
    for (long long c = blockIdx.x; c < C; c += gridDim.x) {
        const channel_load<TX> load{ x, c, C, spatial };
        const float mean = line_pass<true>(load, 0, 1, len, C_SUM, as_is{}, scratch) / (float)len;
        const float var = line_pass<true>(load, 0, 1, len, C_SUM,
                                          [mean](float v) { return (v - mean) * (v - mean); }, scratch) / (float)len;
        const float a = rsqrtf(var + eps) * opt(gamma, c, 1.0f), b = opt(beta, c, 0.0f);
        for (long long k = threadIdx.x; k < len; k += THREADS) {
            const long long i = (k / spatial * C + c) * spatial + k % spatial;
            st(y, i, (ld(x, i) - mean) * a + b);
        }
    }
}

template <class TY, class TX, class TG, class TB, class TM, class TV>
__global__ void __launch_bounds__(THREADS)
batch_norm_running_kernel(TY *y, const TX *x, const TG *gamma, const TB *beta, const TM *mean, const TV *var,
                          long long total, long long C, long long spatial, float eps) {
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < total; i += (long long)gridDim.x * THREADS) {
        const long long c = i / spatial % C;
        st(y, i, (ld(x, i) - ld(mean, c)) * rsqrtf(ld(var, c) + eps) * opt(gamma, c, 1.0f) + opt(beta, c, 0.0f));
    }
}

/* mean and var both given: the running statistics; both null: the batch's own. */
template <class TY, class TX, class TG, class TB, class TM, class TV>
inline int batch_norm(TY *y, const TX *x, const TG *gamma, const TB *beta, const TM *mean, const TV *var, long long N,
                      long long C, long long spatial, float eps, cudaStream_t s) {
    if (bad(N, C, spatial) || (!mean) != (!var)) return BAD;
    const long long total = N * C * spatial;
    if (total == 0) return 0;
    if (mean)
        batch_norm_running_kernel<<<grid_for(total), THREADS, 0, s>>>(y, x, gamma, beta, mean, var, total, C, spatial,
                                                                     eps);
    else
        batch_norm_stats_kernel<<<(unsigned)(C < MAX_GRID ? C : MAX_GRID), THREADS, 0, s>>>(y, x, gamma, beta, N, C,
                                                                                          spatial, eps);
    return status();
}

} /* namespace kfg */
