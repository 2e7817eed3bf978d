/* Standalone check of the generic CUDA op library (reference_kernels/cuda/generic/ops.cuh) against plain fp64 loops
 * on the host: every op family, small shapes, both layouts of the any-axis ops (a row, and a strided middle axis),
 * ragged sizes, the optional operands, and the dtypes that need conversions (bf16, fp8, int8, packed fp4 with e8m0
 * scales, i64 indices, bool masks). One line per check, then a count; exit 0 when every check passes, 1 otherwise.
 * Built and run on the GPU machine by bench/gpu-check.sh --v2cuda (nvcc -Ireference_kernels); no kforge code. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>
#include "cuda/generic/ops.cuh"

namespace {

int g_failed = 0, g_total = 0;
std::mt19937 g_rng(20261127);

void die(const char *what, cudaError_t e) {
    fprintf(stderr, "cuda_generic_check: %s: %s\n", what, cudaGetErrorString(e));
    exit(2);
}

#define CHECK_CUDA(x) \
    do { \
        cudaError_t e_ = (x); \
        if (e_ != cudaSuccess) die(#x, e_); \
    } while (0)

std::vector<float> randn(size_t n, float mean = 0.0f, float std = 1.0f) {
    std::normal_distribution<float> d(mean, std);
    std::vector<float> v(n);
    for (float &x : v) x = d(g_rng);
    return v;
}

/* A device copy of a host vector, freed with the object. */
template <class T> struct dev {
    T *p = nullptr;
    size_t n = 0;
    explicit dev(size_t count) : n(count) { CHECK_CUDA(cudaMalloc(&p, (count ? count : 1) * sizeof(T))); }
    explicit dev(const std::vector<T> &h) : dev(h.size()) {
        CHECK_CUDA(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    ~dev() { cudaFree(p); }
    std::vector<T> get() const {
        std::vector<T> h(n);
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }
    dev(const dev &) = delete;
    dev &operator=(const dev &) = delete;
};

float f(float v) { return v; }
float f(__nv_bfloat16 v) { return __bfloat162float(v); }
float f(long long v) { return (float)v; }
float f(int v) { return (float)v; }
float f(signed char v) { return (float)v; }
float f(__nv_fp8_e4m3 v) { return (float)v; }

/* |got - want| <= atol + rtol |want| everywhere (NaN never passes). */
template <class T>
void expect(const char *name, int rc, const std::vector<T> &got, const std::vector<double> &want, double atol,
            double rtol) {
    ++g_total;
    double worst = 0.0;
    long long bad = -1;
    if (rc == 0 && got.size() == want.size())
        for (size_t i = 0; i < got.size(); ++i) {
            const double e = std::fabs((double)f(got[i]) - want[i]);
            if (!(e <= atol + rtol * std::fabs(want[i]))) {
                bad = (long long)i;
                break;
            }
            worst = std::max(worst, e);
        }
    const bool ok = rc == 0 && got.size() == want.size() && bad < 0;
    g_failed += !ok;
    if (ok)
        printf("  ok   %-52s max_abs %.3g\n", name, worst);
    else if (rc)
        printf("  FAIL %-52s returned %d\n", name, rc);
    else
        printf("  FAIL %-52s [%lld] got %.9g want %.9g\n", name, bad, (double)f(got[bad]), want[bad]);
}

/* The output read only here, after every argument of the call (the op's launch among them) was evaluated:
 * the order of evaluation of a call's arguments is unspecified (GCC takes them right to left). */
template <class T>
void expect(const char *name, int rc, const dev<T> &out, const std::vector<double> &want, double atol, double rtol) {
    expect(name, rc, out.get(), want, atol, rtol);
}

std::vector<__nv_bfloat16> to_bf16(const std::vector<float> &v) {
    std::vector<__nv_bfloat16> o(v.size());
    for (size_t i = 0; i < v.size(); ++i) o[i] = __float2bfloat16(v[i]);
    return o;
}

/* Functors of the checks (a kernel's template argument cannot be a type local to a host function). */
struct sqd { __device__ float operator()(float a, float b) const { return (a - b) * (a - b); } };
struct mx_pre {
    const __nv_fp8_e8m0 *scales;
    int K;
    __device__ float operator()(float v, long long m, long long k) const {
        return v * kfg::e8m0_get(scales, (m * K + k) / 32);
    }
};

struct gelu_d { double operator()(double x) const { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); } };

void check_maps() {
    const size_t n = 100003;
    const std::vector<float> a = randn(n), b = randn(n);
    const std::vector<__nv_bfloat16> ab = to_bf16(a);
    dev<__nv_bfloat16> dab(ab);
    dev<float> da(a), db(b), y(n);
    std::vector<double> want(n);
    for (size_t i = 0; i < n; ++i) want[i] = gelu_d{}((double)__bfloat162float(ab[i]));
    expect("map gelu bf16 -> f32", kfg::map(y.p, dab.p, n, kfg::act::gelu{}, nullptr), y, want, 1e-6, 1e-5);
    for (size_t i = 0; i < n; ++i) want[i] = (double)a[i] * b[i];
    expect("map2 mul f32", kfg::map2(y.p, da.p, db.p, n, kfg::bin::mul{}, nullptr), y, want, 0, 1e-6);
    const long long outer = 3, ch = 7, inner = 11;
    const std::vector<float> v = randn(ch);
    dev<float> dv(v), yc(outer * ch * inner);
    std::vector<double> wc(outer * ch * inner);
    for (long long i = 0; i < outer * ch * inner; ++i) wc[i] = (double)a[i] + v[i / inner % ch];
    expect("map_channel add", kfg::map_channel(yc.p, da.p, dv.p, outer, ch, inner, kfg::bin::add{}, nullptr), yc,
           wc, 0, 1e-6);
    /* int8: round half to even, clamp */
    const std::vector<float> q = { -200.0f, -128.6f, -2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 126.5f, 127.4f, 300.0f };
    const std::vector<double> qw = { -128, -128, -2, -2, -0, 0, 2, 2, 126, 127, 127 };
    dev<float> dq(q);
    dev<signed char> yq(q.size());
    expect("cast f32 -> i8 (ties to even, clamped)", kfg::cast(yq.p, dq.p, q.size(), nullptr), yq, qw, 0, 0);
    dev<__nv_fp8_e4m3> y8(n);
    std::vector<double> w8(n);
    for (size_t i = 0; i < n; ++i) w8[i] = (float)__nv_fp8_e4m3(a[i] * 100.0f);
    kfg::map(y8.p, da.p, n, kfg::act::scale{ 100.0f }, nullptr);
    expect("map to fp8 e4m3 (saturating)", 0, y8, w8, 0, 0);
}

/* Any-axis reference: y[o, i] = red over k of x[o, k, i]. */
double ref_reduce(const std::vector<float> &x, long long o, long long n, long long inner, long long i, kfg::red r) {
    auto at = [&](long long k) { return (double)x[(o * n + k) * inner + i]; };
    double s = 0, m = -INFINITY, mn = INFINITY, p = 1, sq = 0;
    for (long long k = 0; k < n; ++k) {
        s += at(k);
        m = std::max(m, at(k));
        mn = std::min(mn, at(k));
        p *= at(k);
        sq += at(k) * at(k);
    }
    const double mean = s / n;
    double var = 0, lse = 0;
    for (long long k = 0; k < n; ++k) {
        var += (at(k) - mean) * (at(k) - mean);
        lse += std::exp(at(k) - m);
    }
    var /= n;
    switch (r) {
    case kfg::SUM: return s;
    case kfg::MEAN: return mean;
    case kfg::MAX: return m;
    case kfg::MIN: return mn;
    case kfg::PROD: return p;
    case kfg::SUMSQ: return sq;
    case kfg::L2: return std::sqrt(sq);
    case kfg::LSE: return m + std::log(lse);
    case kfg::VAR: return var;
    default: return std::sqrt(var);
    }
}

void check_reductions() {
    static const char *const names[] = { "SUM", "MEAN", "MAX", "MIN", "PROD", "SUMSQ", "L2", "LSE", "VAR", "STD" };
    const long long layouts[2][3] = { { 5, 1000, 1 }, { 4, 37, 9 } };
    for (const auto &L : layouts) {
        const long long outer = L[0], n = L[1], inner = L[2];
        std::vector<float> x = randn(outer * n * inner, 3.0f, 1.0f);
        std::vector<float> xp(x.size());
        std::uniform_real_distribution<float> near1(0.99f, 1.01f);
        for (float &v : xp) v = near1(g_rng);
        dev<float> dx(x), dxp(xp), y(outer * inner);
        for (int r = kfg::SUM; r <= kfg::STD; ++r) {
            const std::vector<float> &src = r == kfg::PROD ? xp : x;
            std::vector<double> want(outer * inner);
            for (long long t = 0; t < outer * inner; ++t)
                want[t] = ref_reduce(src, t / inner, n, inner, t % inner, (kfg::red)r);
            char name[96];
            snprintf(name, sizeof name, "reduce %s (%lld, %lld, %lld)", names[r], outer, n, inner);
            expect(name, kfg::reduce(y.p, r == kfg::PROD ? dxp.p : dx.p, outer, n, inner, (kfg::red)r, nullptr),
                   y, want, 1e-4, 1e-4);
        }
        /* arg-reductions over ties: small integers, first index wins */
        std::uniform_int_distribution<int> small(-3, 3);
        std::vector<float> t(x.size());
        for (float &v : t) v = (float)small(g_rng);
        dev<float> dt(t);
        dev<long long> idx(outer * inner);
        dev<int> idx32(outer * inner);
        for (int a = 0; a < 2; ++a) {
            std::vector<double> want(outer * inner);
            for (long long c = 0; c < outer * inner; ++c) {
                long long best = 0;
                for (long long k = 1; k < n; ++k) {
                    const float v = t[(c / inner * n + k) * inner + c % inner],
                                b = t[(c / inner * n + best) * inner + c % inner];
                    if (a == kfg::ARGMAX ? v > b : v < b) best = k;
                }
                want[c] = (double)best;
            }
            char name[96];
            snprintf(name, sizeof name, "argreduce %s ties i64 (%lld, %lld, %lld)", a ? "ARGMIN" : "ARGMAX", outer, n,
                     inner);
            expect(name, kfg::argreduce(idx.p, dt.p, outer, n, inner, (kfg::arg)a, nullptr), idx, want, 0, 0);
            snprintf(name, sizeof name, "argreduce %s ties i32 (%lld, %lld, %lld)", a ? "ARGMIN" : "ARGMAX", outer, n,
                     inner);
            expect(name, kfg::argreduce(idx32.p, dt.p, outer, n, inner, (kfg::arg)a, nullptr), idx32, want, 0, 0);
        }
        /* scans: sum (inclusive, exclusive, reverse, masked) and max */
        std::vector<unsigned char> m(x.size());
        for (unsigned char &b : m) b = (unsigned char)(g_rng() & 1);
        dev<bool> dm(x.size());
        CHECK_CUDA(cudaMemcpy(dm.p, m.data(), m.size(), cudaMemcpyHostToDevice));
        dev<float> ys(x.size());
        const kfg::scan_opts opts[] = { {}, { kfg::SCAN_SUM, true, false }, { kfg::SCAN_SUM, false, true },
                                        { kfg::SCAN_MAX, true, true } };
        for (int o = 0; o < 4; ++o)
            for (int masked = 0; masked < 2; ++masked) {
                std::vector<double> want(x.size());
                for (long long c = 0; c < outer * inner; ++c) {
                    double run = opts[o].op == kfg::SCAN_MAX ? -INFINITY : 0.0;
                    for (long long p = 0; p < n; ++p) {
                        const long long k = opts[o].reverse ? n - 1 - p : p, i = (c / inner * n + k) * inner + c % inner;
                        const double v = masked && !m[i] ? (opts[o].op == kfg::SCAN_MAX ? -INFINITY : 0.0) : x[i];
                        const double next = opts[o].op == kfg::SCAN_MAX ? std::max(run, v) : run + v;
                        want[i] = opts[o].exclusive ? run : next;
                        run = next;
                    }
                }
                char name[96];
                snprintf(name, sizeof name, "scan %s%s%s%s (%lld, %lld, %lld)", opts[o].op == kfg::SCAN_MAX ? "max" : "sum",
                         opts[o].exclusive ? " exclusive" : "", opts[o].reverse ? " reverse" : "", masked ? " masked" : "",
                         outer, n, inner);
                const int rc = kfg::scan(ys.p, dx.p, masked ? dm.p : (const bool *)nullptr, outer, n, inner, opts[o],
                                         nullptr);
                std::vector<float> got = ys.get();
                for (size_t i = 0; i < got.size(); ++i) /* -inf == -inf: compare as equal */
                    if (std::isinf(want[i]) && got[i] == (float)want[i]) { got[i] = 0; want[i] = 0; }
                expect(name, rc, got, want, 1e-3, 1e-4);
            }
        /* softmax and log-softmax */
        for (int lg = 0; lg < 2; ++lg) {
            std::vector<double> want(x.size());
            for (long long c = 0; c < outer * inner; ++c) {
                const double lse = ref_reduce(x, c / inner, n, inner, c % inner, kfg::LSE);
                for (long long k = 0; k < n; ++k) {
                    const long long i = (c / inner * n + k) * inner + c % inner;
                    want[i] = lg ? x[i] - lse : std::exp(x[i] - lse);
                }
            }
            char name[96];
            snprintf(name, sizeof name, "%s (%lld, %lld, %lld)", lg ? "log_softmax" : "softmax", outer, n, inner);
            expect(name, lg ? kfg::log_softmax(ys.p, dx.p, outer, n, inner, nullptr)
                            : kfg::softmax(ys.p, dx.p, outer, n, inner, nullptr),
                   ys, want, 1e-6, 1e-4);
        }
    }
    const size_t n = 300001;
    const std::vector<float> a = randn(n), b = randn(n);
    dev<float> da(a), db(b), y(1);
    double s = 0, mx = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
        s += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        mx = std::max(mx, (double)a[i]);
    }
    expect("reduce_all2 mean squared error", kfg::reduce_all2(y.p, da.p, db.p, n, sqd{}, 1.0f / n, nullptr), y,
           std::vector<double>{ s / n }, 1e-6, 1e-5);
    expect("reduce_all MAX", kfg::reduce_all(y.p, da.p, n, kfg::MAX, 1.0f, nullptr), y, std::vector<double>{ mx },
           0, 0);
}

void check_norms() {
    const long long N = 3, C = 6, S = 50, G = 2;
    const std::vector<float> x = randn(N * C * S, 300.0f, 1.0f), g = randn(C), bta = randn(C), rm = randn(C);
    std::vector<float> rv = randn(C);
    for (float &v : rv) v = std::fabs(v) + 0.5f;
    dev<float> dx(x), dg(g), db(bta), dm(rm), dv(rv), y(x.size());
    const float eps = 1e-5f;
    /* group norm, G groups of C/G channels, affine */
    std::vector<double> want(x.size());
    for (long long n = 0; n < N; ++n)
        for (long long gr = 0; gr < G; ++gr) {
            const long long len = C / G * S, base = (n * G + gr) * len;
            double mean = 0, var = 0;
            for (long long k = 0; k < len; ++k) mean += x[base + k];
            mean /= len;
            for (long long k = 0; k < len; ++k) var += (x[base + k] - mean) * (x[base + k] - mean);
            var /= len;
            for (long long k = 0; k < len; ++k) {
                const long long c = gr * (C / G) + k / S;
                want[base + k] = (x[base + k] - mean) / std::sqrt(var + eps) * g[c] + bta[c];
            }
        }
    expect("group_norm G=2, mean 300, affine", kfg::group_norm(y.p, dx.p, dg.p, db.p, N, C, S, G, eps, nullptr),
           y, want, 1e-3, 1e-3);
    /* layer norm over rows of C*S, no affine */
    for (long long n = 0; n < N; ++n) {
        const long long len = C * S;
        double mean = 0, var = 0;
        for (long long k = 0; k < len; ++k) mean += x[n * len + k];
        mean /= len;
        for (long long k = 0; k < len; ++k) var += (x[n * len + k] - mean) * (x[n * len + k] - mean);
        var /= len;
        for (long long k = 0; k < len; ++k) want[n * len + k] = (x[n * len + k] - mean) / std::sqrt(var + eps);
    }
    expect("layer_norm no affine", kfg::layer_norm(y.p, dx.p, (const float *)nullptr, (const float *)nullptr, N, C * S,
                                                   eps, nullptr),
           y, want, 1e-3, 1e-3);
    /* RMS norm over rows of S with gamma [S]: reuse the first S entries of x as gamma */
    for (long long r = 0; r < N * C; ++r) {
        double ms = 0;
        for (long long k = 0; k < S; ++k) ms += (double)x[r * S + k] * x[r * S + k];
        ms /= S;
        for (long long k = 0; k < S; ++k) want[r * S + k] = x[r * S + k] / std::sqrt(ms + eps) * x[k];
    }
    expect("rms_norm with gamma", kfg::rms_norm(y.p, dx.p, dx.p, N * C, S, eps, nullptr), y, want, 1e-3, 1e-4);
    /* batch norm, running statistics */
    for (long long i = 0; i < N * C * S; ++i) {
        const long long c = i / S % C;
        want[i] = (x[i] - rm[c]) / std::sqrt(rv[c] + eps) * g[c] + bta[c];
    }
    expect("batch_norm running stats", kfg::batch_norm(y.p, dx.p, dg.p, db.p, dm.p, dv.p, N, C, S, eps, nullptr),
           y, want, 1e-3, 1e-4);
    /* batch norm, batch statistics */
    for (long long c = 0; c < C; ++c) {
        double mean = 0, var = 0;
        for (long long n = 0; n < N; ++n)
            for (long long s = 0; s < S; ++s) mean += x[(n * C + c) * S + s];
        mean /= N * S;
        for (long long n = 0; n < N; ++n)
            for (long long s = 0; s < S; ++s) var += std::pow(x[(n * C + c) * S + s] - mean, 2);
        var /= N * S;
        for (long long n = 0; n < N; ++n)
            for (long long s = 0; s < S; ++s)
                want[(n * C + c) * S + s] = (x[(n * C + c) * S + s] - mean) / std::sqrt(var + eps);
    }
    expect("batch_norm batch stats", kfg::batch_norm(y.p, dx.p, (const float *)nullptr, (const float *)nullptr,
                                                     (const float *)nullptr, (const float *)nullptr, N, C, S, eps,
                                                     nullptr),
           y, want, 1e-3, 1e-3);
}

void check_conv_pool() {
    /* 1-D grouped conv: stride 2, padding 2, dilation 2, bias */
    const long long N = 2, C = 4, O = 6, G = 2, L = 23, K = 3;
    const std::vector<float> x = randn(N * C * L), w = randn(O * (C / G) * K), b = randn(O);
    long long in[1] = { L };
    kfg::window win = kfg::make_window(1, in, (int)K, 2, 2, 2);
    const long long Lo = kfg::window_out(win, 0);
    dev<float> dx(x), dw(w), db(b), y(N * O * Lo);
    std::vector<double> want(N * O * Lo);
    for (long long n = 0; n < N; ++n)
        for (long long o = 0; o < O; ++o)
            for (long long p = 0; p < Lo; ++p) {
                double s = b[o];
                const long long g = o / (O / G);
                for (long long c = 0; c < C / G; ++c)
                    for (long long q = 0; q < K; ++q) {
                        const long long i = p * 2 - 2 + q * 2;
                        if (i >= 0 && i < L) s += (double)w[(o * (C / G) + c) * K + q] * x[(n * C + g * (C / G) + c) * L + i];
                    }
                want[(n * O + o) * Lo + p] = s;
            }
    expect("conv 1-D groups 2 stride 2 pad 2 dil 2 bias", kfg::conv(y.p, dx.p, dw.p, db.p, N, C, O, G, win,
                                                                  kfg::no_epi{}, nullptr),
           y, want, 1e-5, 1e-5);
    /* transposed 2-D: stride 2, padding 1, output padding 1, kernel 3, w [C, O, 3, 3] */
    const long long H = 5, W = 4, Ct = 3, Ot = 2;
    const std::vector<float> xt = randn(N * Ct * H * W), wt = randn(Ct * Ot * 9);
    long long in2[2] = { H, W };
    kfg::window wt_win = kfg::make_window(2, in2, 3, 2, 1);
    wt_win.out_pad[0] = wt_win.out_pad[1] = 1;
    const long long OH = kfg::window_out_t(wt_win, 0), OW = kfg::window_out_t(wt_win, 1);
    std::vector<double> wantt(N * Ot * OH * OW, 0.0);
    for (long long n = 0; n < N; ++n)
        for (long long c = 0; c < Ct; ++c)
            for (long long i = 0; i < H; ++i)
                for (long long j = 0; j < W; ++j)
                    for (long long o = 0; o < Ot; ++o)
                        for (long long a = 0; a < 3; ++a)
                            for (long long e = 0; e < 3; ++e) {
                                const long long p = i * 2 - 1 + a, q = j * 2 - 1 + e;
                                if (p >= 0 && p < OH && q >= 0 && q < OW)
                                    wantt[((n * Ot + o) * OH + p) * OW + q] +=
                                        (double)xt[((n * Ct + c) * H + i) * W + j] * wt[((c * Ot + o) * 3 + a) * 3 + e];
                            }
    dev<float> dxt(xt), dwt(wt), yt(wantt.size());
    expect("conv_transpose 2-D stride 2 pad 1 out_pad 1",
           kfg::conv_transpose(yt.p, dxt.p, dwt.p, (const float *)nullptr, N, Ct, Ot, 1, wt_win, kfg::no_epi{}, nullptr),
           yt, wantt, 1e-5, 1e-5);
    /* pooling 2-D, kernel 3 stride 2 padding 1: max, average of the in-bounds values, average over the window */
    const long long PH = kfg::window_out(wt_win, 0), PW = kfg::window_out(wt_win, 1);
    dev<float> yp(N * Ct * PH * PW);
    for (int op = kfg::POOL_MAX; op <= kfg::POOL_AVG_COUNT_PAD; ++op) {
        std::vector<double> wantp(N * Ct * PH * PW);
        for (long long nc = 0; nc < N * Ct; ++nc)
            for (long long i = 0; i < PH; ++i)
                for (long long j = 0; j < PW; ++j) {
                    double m = -INFINITY, s = 0;
                    int cnt = 0;
                    for (int a = 0; a < 3; ++a)
                        for (int e = 0; e < 3; ++e) {
                            const long long r = i * 2 - 1 + a, c = j * 2 - 1 + e;
                            if (r < 0 || r >= H || c < 0 || c >= W) continue;
                            const double v = xt[(nc * H + r) * W + c];
                            m = std::max(m, v);
                            s += v;
                            ++cnt;
                        }
                    wantp[(nc * PH + i) * PW + j] = op == kfg::POOL_MAX ? m : op == kfg::POOL_AVG ? s / cnt : s / 9;
                }
        static const char *const names[] = { "pool max", "pool avg", "pool avg count_pad" };
        expect(names[op], kfg::pool(yp.p, dxt.p, N * Ct, wt_win, (kfg::pool_op)op, nullptr), yp, wantp, 1e-6,
               1e-6);
    }
}

void check_gemm() {
    const int M = 70, N = 45, K = 33, batch = 2;
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            const std::vector<float> a = randn((size_t)batch * M * K), b = randn((size_t)K * N), bias = randn(N);
            const std::vector<__nv_bfloat16> ab = to_bf16(a);
            dev<__nv_bfloat16> da(ab), c((size_t)batch * M * N);
            dev<float> db(b), dbias(bias);
            kfg::gemm_desc d;
            d.M = M, d.N = N, d.K = K, d.ta = ta, d.tb = tb, d.batch = batch, d.stride_b = 0, d.alpha = 0.5f;
            std::vector<double> want((size_t)batch * M * N);
            for (int bt = 0; bt < batch; ++bt)
                for (int m = 0; m < M; ++m)
                    for (int n = 0; n < N; ++n) {
                        double s = 0;
                        for (int k = 0; k < K; ++k) {
                            const double av = __bfloat162float(ab[(size_t)bt * M * K + (ta ? (size_t)k * M + m : (size_t)m * K + k)]);
                            const double bv = b[tb ? (size_t)n * K + k : (size_t)k * N + n];
                            s += av * bv;
                        }
                        want[((size_t)bt * M + m) * N + n] = 0.5 * s + bias[n];
                    }
            char name[96];
            snprintf(name, sizeof name, "gemm bf16 x f32 -> bf16 ta=%d tb=%d batch 2, B broadcast, bias", ta, tb);
            expect(name, kfg::gemm(c.p, da.p, db.p, d, kfg::epi_bias<float>{ dbias.p }, nullptr), c, want, 2e-2,
                   1e-2);
        }
    /* packed fp4 weights with e8m0 block scales of 32, dequantised by a pre-op */
    const int Mq = 9, Kq = 64, Nq = 5;
    std::vector<unsigned char> q((size_t)Mq * Kq / 2), sc((size_t)Mq * Kq / 32);
    for (unsigned char &v : q) v = (unsigned char)(g_rng() & 0xff);
    for (unsigned char &v : sc) v = (unsigned char)(120 + g_rng() % 12);
    const std::vector<float> bq = randn((size_t)Kq * Nq);
    const float mag[8] = { 0, 0.5f, 1, 1.5f, 2, 3, 4, 6 };
    std::vector<double> want((size_t)Mq * Nq);
    for (int m = 0; m < Mq; ++m)
        for (int n = 0; n < Nq; ++n) {
            double s = 0;
            for (int k = 0; k < Kq; ++k) {
                const size_t e = (size_t)m * Kq + k;
                const unsigned nib = e % 2 ? q[e / 2] >> 4 : q[e / 2] & 15;
                const double w = (nib & 8 ? -1 : 1) * mag[nib & 7] * std::ldexp(1.0, (int)sc[e / 32] - 127);
                s += w * bq[(size_t)k * Nq + n];
            }
            want[(size_t)m * Nq + n] = s;
        }
    dev<__nv_fp4x2_e2m1> dq(q.size());
    dev<__nv_fp8_e8m0> dsc(sc.size());
    CHECK_CUDA(cudaMemcpy(dq.p, q.data(), q.size(), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dsc.p, sc.data(), sc.size(), cudaMemcpyHostToDevice));
    dev<float> dbq(bq), cq((size_t)Mq * Nq);
    kfg::gemm_desc d;
    d.M = Mq, d.N = Nq, d.K = Kq;
    expect("gemm_pre fp4 x e8m0 scales (MX dequantised on the fly)",
           kfg::gemm_pre(cq.p, dq.p, dbq.p, d, mx_pre{ dsc.p, Kq }, kfg::no_pre{}, kfg::no_epi2{}, nullptr), cq,
           want, 1e-4, 1e-4);
    /* the same weights dequantised into memory */
    dev<float> wq((size_t)Mq * Kq);
    std::vector<double> wdq((size_t)Mq * Kq);
    for (size_t e = 0; e < wdq.size(); ++e) {
        const unsigned nib = e % 2 ? q[e / 2] >> 4 : q[e / 2] & 15;
        wdq[e] = (nib & 8 ? -1 : 1) * mag[nib & 7] * std::ldexp(1.0, (int)sc[e / 32] - 127);
    }
    expect("dequantize fp4 with e8m0 blocks of 32", kfg::dequantize(wq.p, dq.p, dsc.p, (long long)wdq.size(), 32, nullptr),
           wq, wdq, 0, 0);
    /* int8 quantisation with a float scale per block of 4 */
    const std::vector<float> xs = randn(40, 0.0f, 50.0f), scale = { 0.5f, 1, 2, 0.25f, 4, 1, 1, 3, 0.75f, 1 };
    dev<float> dxs(xs), dscale(scale);
    dev<signed char> yq(xs.size());
    std::vector<double> wq8(xs.size());
    for (size_t i = 0; i < xs.size(); ++i)
        wq8[i] = std::max(-128.0, std::min(127.0, (double)std::nearbyint(xs[i] / scale[i / 4])));
    expect("quantize f32 -> i8, scale per block of 4", kfg::quantize(yq.p, dxs.p, dscale.p, (long long)xs.size(), 4, nullptr),
           yq, wq8, 0, 0);
}

void check_attention() {
    const int B = 2, H = 4, HKV = 2, Sq = 5, Skv = 19, D = 64, Dv = 32, PS = 4;
    const std::vector<float> q = randn((size_t)B * H * Sq * D), k = randn((size_t)B * HKV * Skv * D),
                             v = randn((size_t)B * HKV * Skv * Dv);
    const float scale = 0.125f;
    for (int causal = 0; causal < 2; ++causal) {
        std::vector<double> want((size_t)B * H * Sq * Dv, 0.0);
        for (int b = 0; b < B; ++b)
            for (int h = 0; h < H; ++h)
                for (int i = 0; i < Sq; ++i) {
                    const int hk = h / (H / HKV), last = causal ? i + Skv - Sq : Skv - 1;
                    std::vector<double> s(Skv, -INFINITY);
                    double m = -INFINITY, z = 0;
                    for (int j = 0; j <= last; ++j) {
                        double dot = 0;
                        for (int c = 0; c < D; ++c)
                            dot += (double)q[(((size_t)b * H + h) * Sq + i) * D + c] * k[(((size_t)b * HKV + hk) * Skv + j) * D + c];
                        s[j] = scale * dot;
                        m = std::max(m, s[j]);
                    }
                    for (int j = 0; j <= last; ++j) z += std::exp(s[j] - m);
                    for (int j = 0; j <= last; ++j)
                        for (int c = 0; c < Dv; ++c)
                            want[(((size_t)b * H + h) * Sq + i) * Dv + c] +=
                                std::exp(s[j] - m) / z * v[(((size_t)b * HKV + hk) * Skv + j) * Dv + c];
                }
        kfg::attn_desc a;
        a.B = B, a.H = H, a.HKV = HKV, a.Sq = Sq, a.Skv = Skv, a.D = D, a.Dv = Dv, a.scale = scale, a.causal = causal;
        dev<float> dq(q), dk(k), dv(v), o(want.size());
        expect(causal ? "attention causal GQA Sq < Skv, Dv != D" : "attention GQA Sq < Skv, Dv != D",
               kfg::attention(o.p, dq.p, dk.p, dv.p, a, nullptr), o, want, 1e-5, 1e-4);
        /* the same keys in pages of PS tokens [P, PS, HKV, D], placed in reverse order */
        const int pages = (Skv + PS - 1) / PS, P = B * pages;
        std::vector<float> kp((size_t)P * PS * HKV * D, 0.0f), vp((size_t)P * PS * HKV * Dv, 0.0f);
        std::vector<int> table((size_t)B * pages);
        for (int b = 0; b < B; ++b)
            for (int pg = 0; pg < pages; ++pg) table[(size_t)b * pages + pg] = P - 1 - (b * pages + pg);
        for (int b = 0; b < B; ++b)
            for (int hk = 0; hk < HKV; ++hk)
                for (int j = 0; j < Skv; ++j) {
                    const size_t row = ((size_t)table[(size_t)b * pages + j / PS] * PS + j % PS) * HKV + hk;
                    for (int c = 0; c < D; ++c) kp[row * D + c] = k[(((size_t)b * HKV + hk) * Skv + j) * D + c];
                    for (int c = 0; c < Dv; ++c) vp[row * Dv + c] = v[(((size_t)b * HKV + hk) * Skv + j) * Dv + c];
                }
        dev<float> dkp(kp), dvp(vp);
        dev<int> dtable(table);
        expect(causal ? "attention_paged causal (reversed pages)" : "attention_paged (reversed pages)",
               kfg::attention_paged(o.p, dq.p, dkp.p, dvp.p, dtable.p, (const int *)nullptr, a, PS, pages, nullptr),
               o, want, 1e-5, 1e-4);
    }
}

void check_gathers() {
    const long long rows = 7, cols = 13, T = 20, S = 5;
    const std::vector<float> x = randn(T * cols);
    const std::vector<long long> idx = { 19, 0, 3, 3, 7, 12, 1 };
    const std::vector<int> offsets = { 0, 4, 4, 9, 15, 20 };
    dev<float> dx(x), y(rows * cols), ys(S * cols);
    dev<long long> didx(idx);
    dev<int> doff(offsets);
    std::vector<double> want(rows * cols);
    for (long long r = 0; r < rows; ++r)
        for (long long c = 0; c < cols; ++c) want[r * cols + c] = x[idx[r] * cols + c];
    expect("gather_rows i64 indices", kfg::gather_rows(y.p, dx.p, didx.p, rows, cols, nullptr), y, want, 0, 0);
    for (int r : { (int)kfg::SUM, (int)kfg::MEAN, (int)kfg::MAX }) {
        std::vector<double> ws(S * cols);
        for (long long s = 0; s < S; ++s)
            for (long long c = 0; c < cols; ++c) {
                double acc = r == kfg::MAX ? -INFINITY : 0;
                for (int t = offsets[s]; t < offsets[s + 1]; ++t)
                    acc = r == kfg::MAX ? std::max(acc, (double)x[t * cols + c]) : acc + x[t * cols + c];
                const int len = offsets[s + 1] - offsets[s];
                ws[s * cols + c] = len == 0 ? 0.0 : r == kfg::MEAN ? acc / len : acc;
            }
        static const char *const names[] = { "segment_reduce SUM (an empty segment)", "segment_reduce MEAN",
                                             "segment_reduce MAX" };
        expect(names[r == kfg::SUM ? 0 : r == kfg::MEAN ? 1 : 2],
               kfg::segment_reduce(ys.p, dx.p, doff.p, S, cols, (kfg::red)r, nullptr), ys, ws, 1e-6, 1e-6);
    }
}

} /* namespace */

int main() {
    const std::pair<const char *, std::function<void()>> families[] = {
        { "maps", check_maps },       { "reductions, scans, softmax", check_reductions },
        { "norms", check_norms },     { "convolution and pooling", check_conv_pool },
        { "gemm and quantisation", check_gemm }, { "attention", check_attention },
        { "gathers and segments", check_gathers },
    };
    for (const auto &fam : families) {
        printf("== %s\n", fam.first);
        fam.second();
        CHECK_CUDA(cudaDeviceSynchronize());
    }
    printf("generic op library: %d of %d checks passed\n", g_total - g_failed, g_total);
    return g_failed ? 1 : 0;
}
