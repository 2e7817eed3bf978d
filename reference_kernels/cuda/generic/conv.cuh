/* Generic op library (see ops.cuh): direct N-d convolution, transposed convolution and pooling over NC + 1-3 spatial
 * dimensions, one thread per output element. A window of nd < 3 dimensions is padded to 3 with trivial ones
 * (extent 1, kernel 1, stride 1, no padding), which leaves every offset of a row-major tensor unchanged, so one
 * kernel serves 1-, 2- and 3-D. */
#pragma once
#include "cuda/generic/elem.cuh"

namespace kfg {

constexpr int MAX_SPATIAL = 3;

struct window {
    int nd;
    long long in[MAX_SPATIAL];
    int k[MAX_SPATIAL], stride[MAX_SPATIAL], pad[MAX_SPATIAL], dilation[MAX_SPATIAL], out_pad[MAX_SPATIAL];
};

/* Every one of the nd dimensions alike; out_pad 0. in: the nd input extents. */
inline window make_window(int nd, const long long *in, int k, int stride, int pad, int dilation = 1) {
    window w{};
    w.nd = nd;
    for (int d = 0; d < MAX_SPATIAL; ++d) {
        const bool used = d < nd;
        w.in[d] = used ? in[d] : 1;
        w.k[d] = used ? k : 1;
        w.stride[d] = used ? stride : 1;
        w.pad[d] = used ? pad : 0;
        w.dilation[d] = used ? dilation : 1;
        w.out_pad[d] = 0;
    }
    return w;
}

__host__ __device__ inline long long window_out(const window &w, int d) {
    return (w.in[d] + 2LL * w.pad[d] - (long long)w.dilation[d] * (w.k[d] - 1) - 1) / w.stride[d] + 1;
}

__host__ __device__ inline long long window_out_t(const window &w, int d) {
    return (w.in[d] - 1) * w.stride[d] - 2LL * w.pad[d] + (long long)w.dilation[d] * (w.k[d] - 1) + w.out_pad[d] + 1;
}

inline bool window_ok(const window &w) {
    if (w.nd < 1 || w.nd > MAX_SPATIAL) return false;
    for (int d = 0; d < MAX_SPATIAL; ++d)
        if (w.in[d] < 0 || w.k[d] < 1 || w.stride[d] < 1 || w.pad[d] < 0 || w.dilation[d] < 1 || w.out_pad[d] < 0)
            return false;
    return true;
}

struct no_epi { __device__ float operator()(float v, long long) const { return v; } };

template <class TY, class TX, class TW, class TB, class Epi>
__global__ void __launch_bounds__(THREADS)
conv_kernel(TY *y, const TX *x, const TW *w, const TB *bias, long long N, long long C, long long O, long long G,
            window win, long long o0, long long o1, long long o2, Epi epi) {
    const long long total = N * O * o0 * o1 * o2, cpg = C / G, opg = O / G;
    const long long in0 = win.in[0], in1 = win.in[1], in2 = win.in[2];
    for (long long t = blockIdx.x * (long long)THREADS + threadIdx.x; t < total; t += (long long)gridDim.x * THREADS) {
        const long long p2 = t % o2, p1 = t / o2 % o1, p0 = t / (o2 * o1) % o0, o = t / (o2 * o1 * o0) % O,
                        n = t / (o2 * o1 * o0 * O);
        const long long g = o / opg;
        float acc = 0.0f;
        for (long long c = 0; c < cpg; ++c) {
            const TX *xc = x + (n * C + g * cpg + c) * in0 * in1 * in2;
            const TW *wc = w + (o * cpg + c) * win.k[0] * win.k[1] * win.k[2];
            for (int a = 0; a < win.k[0]; ++a) {
                const long long i0 = p0 * win.stride[0] - win.pad[0] + (long long)a * win.dilation[0];
                if (i0 < 0 || i0 >= in0) continue;
                for (int b = 0; b < win.k[1]; ++b) {
                    const long long i1 = p1 * win.stride[1] - win.pad[1] + (long long)b * win.dilation[1];
                    if (i1 < 0 || i1 >= in1) continue;
                    for (int e = 0; e < win.k[2]; ++e) {
                        const long long i2 = p2 * win.stride[2] - win.pad[2] + (long long)e * win.dilation[2];
                        if (i2 < 0 || i2 >= in2) continue;
                        acc = fmaf(ld(wc, ((long long)a * win.k[1] + b) * win.k[2] + e), ld(xc, (i0 * in1 + i1) * in2 + i2),
                                   acc);
                    }
                }
            }
        }
        if (bias) acc += ld(bias, o);
        st(y, t, epi(acc, o));
    }
}

/* bias: may be null. */
template <class TY, class TX, class TW, class TB, class Epi>
inline int conv(TY *y, const TX *x, const TW *w, const TB *bias, long long N, long long C, long long O, long long G,
                const window &win, Epi epi, cudaStream_t s) {
    if (bad(N, C, O) || G < 1 || C % G || O % G || !window_ok(win)) return BAD;
    const long long o0 = window_out(win, 0), o1 = window_out(win, 1), o2 = window_out(win, 2);
    if (o0 < 0 || o1 < 0 || o2 < 0) return BAD;
    const long long total = N * O * o0 * o1 * o2;
    if (total == 0) return 0;
    conv_kernel<<<grid_for(total), THREADS, 0, s>>>(y, x, w, bias, N, C, O, G, win, o0, o1, o2, epi);
    return status();
}

/* The adjoint: output position p takes input position i where p = i * stride - pad + q * dil for a kernel tap q. */
template <class TY, class TX, class TW, class TB, class Epi>
__global__ void __launch_bounds__(THREADS)
conv_t_kernel(TY *y, const TX *x, const TW *w, const TB *bias, long long N, long long C, long long O, long long G,
              window win, long long o0, long long o1, long long o2, Epi epi) {
    const long long total = N * O * o0 * o1 * o2, cpg = C / G, opg = O / G;
    const long long in0 = win.in[0], in1 = win.in[1], in2 = win.in[2];
    for (long long t = blockIdx.x * (long long)THREADS + threadIdx.x; t < total; t += (long long)gridDim.x * THREADS) {
        const long long p2 = t % o2, p1 = t / o2 % o1, p0 = t / (o2 * o1) % o0, o = t / (o2 * o1 * o0) % O,
                        n = t / (o2 * o1 * o0 * O);
        const long long g = o / opg, og = o % opg;
        float acc = 0.0f;
        for (long long c = 0; c < cpg; ++c) {
            const long long ci = g * cpg + c;
            const TX *xc = x + (n * C + ci) * in0 * in1 * in2;
            const TW *wc = w + (ci * opg + og) * win.k[0] * win.k[1] * win.k[2];
            for (int a = 0; a < win.k[0]; ++a) {
                const long long r0 = p0 + win.pad[0] - (long long)a * win.dilation[0];
                if (r0 < 0 || r0 % win.stride[0] || r0 / win.stride[0] >= in0) continue;
                for (int b = 0; b < win.k[1]; ++b) {
                    const long long r1 = p1 + win.pad[1] - (long long)b * win.dilation[1];
                    if (r1 < 0 || r1 % win.stride[1] || r1 / win.stride[1] >= in1) continue;
                    for (int e = 0; e < win.k[2]; ++e) {
                        const long long r2 = p2 + win.pad[2] - (long long)e * win.dilation[2];
                        if (r2 < 0 || r2 % win.stride[2] || r2 / win.stride[2] >= in2) continue;
                        const long long xi = (r0 / win.stride[0] * in1 + r1 / win.stride[1]) * in2 + r2 / win.stride[2];
                        acc = fmaf(ld(wc, ((long long)a * win.k[1] + b) * win.k[2] + e), ld(xc, xi), acc);
                    }
                }
            }
        }
        if (bias) acc += ld(bias, o);
        st(y, t, epi(acc, o));
    }
}

/* w [C, O/G, k...] (PyTorch's ConvTranspose layout); bias: may be null. */
template <class TY, class TX, class TW, class TB, class Epi>
inline int conv_transpose(TY *y, const TX *x, const TW *w, const TB *bias, long long N, long long C, long long O,
                          long long G, const window &win, Epi epi, cudaStream_t s) {
    if (bad(N, C, O) || G < 1 || C % G || O % G || !window_ok(win)) return BAD;
    const long long o0 = window_out_t(win, 0), o1 = window_out_t(win, 1), o2 = window_out_t(win, 2);
    if (o0 < 0 || o1 < 0 || o2 < 0) return BAD;
    const long long total = N * O * o0 * o1 * o2;
    if (total == 0) return 0;
    conv_t_kernel<<<grid_for(total), THREADS, 0, s>>>(y, x, w, bias, N, C, O, G, win, o0, o1, o2, epi);
    return status();
}

enum pool_op { POOL_MAX, POOL_AVG, POOL_AVG_COUNT_PAD };

template <class TY, class TX>
__global__ void __launch_bounds__(THREADS)
pool_kernel(TY *y, const TX *x, long long NC, window win, long long o0, long long o1, long long o2, pool_op op) {
    const long long total = NC * o0 * o1 * o2;
    const long long in0 = win.in[0], in1 = win.in[1], in2 = win.in[2];
    for (long long t = blockIdx.x * (long long)THREADS + threadIdx.x; t < total; t += (long long)gridDim.x * THREADS) {
        const long long p2 = t % o2, p1 = t / o2 % o1, p0 = t / (o2 * o1) % o0, nc = t / (o2 * o1 * o0);
        const TX *xc = x + nc * in0 * in1 * in2;
        float acc = op == POOL_MAX ? -INFINITY : 0.0f;
        long long count = 0;
        for (int a = 0; a < win.k[0]; ++a) {
            const long long i0 = p0 * win.stride[0] - win.pad[0] + (long long)a * win.dilation[0];
            if (i0 < 0 || i0 >= in0) continue;
            for (int b = 0; b < win.k[1]; ++b) {
                const long long i1 = p1 * win.stride[1] - win.pad[1] + (long long)b * win.dilation[1];
                if (i1 < 0 || i1 >= in1) continue;
                for (int e = 0; e < win.k[2]; ++e) {
                    const long long i2 = p2 * win.stride[2] - win.pad[2] + (long long)e * win.dilation[2];
                    if (i2 < 0 || i2 >= in2) continue;
                    const float v = ld(xc, (i0 * in1 + i1) * in2 + i2);
                    acc = op == POOL_MAX ? fmaxf(acc, v) : acc + v;
                    ++count;
                }
            }
        }
        if (op == POOL_AVG) acc = count ? acc / (float)count : 0.0f;
        if (op == POOL_AVG_COUNT_PAD) acc /= (float)win.k[0] * win.k[1] * win.k[2];
        st(y, t, acc);
    }
}

/* x [NC, in...] -> y [NC, window_out...]. */
template <class TY, class TX>
inline int pool(TY *y, const TX *x, long long NC, const window &win, pool_op op, cudaStream_t s) {
    if (bad(NC) || !window_ok(win)) return BAD;
    const long long o0 = window_out(win, 0), o1 = window_out(win, 1), o2 = window_out(win, 2);
    if (o0 < 0 || o1 < 0 || o2 < 0) return BAD;
    const long long total = NC * o0 * o1 * o2;
    if (total == 0) return 0;
    pool_kernel<<<grid_for(total), THREADS, 0, s>>>(y, x, NC, win, o0, o1, o2, op);
    return status();
}

} /* namespace kfg */
