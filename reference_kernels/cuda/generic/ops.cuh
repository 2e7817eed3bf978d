/* The generic CUDA op library: straightforward kernels per op family, any element type of task format v2, fp32
 * arithmetic and accumulation, for CUDA references of tasks that have no hand-tuned one (a task's reference is a few
 * calls, like an oracle on reference_kernels/oracle/ops.h). Correct on every shape first, reasonably fast second:
 * one thread per output element or one block per row, coalesced where the layout allows; the hand-tuned kernels of
 * reference_kernels/tile/ stay the fast path (a bf16 GEMM should call kf::gemm from tile/gemm.cuh).
 *
 * Include it as "cuda/generic/ops.cuh" (the judge compiles trusted kernels with -I reference_kernels). Everything is
 * inline or a template in namespace kfg, so several references can be linked into one program.
 *
 * Conventions:
 *  - element types T: float, __half, __nv_bfloat16, __nv_fp8_e4m3, __nv_fp8_e5m2, signed char (i8), unsigned char
 *    (u8), bool, int (i32), long long (i64); kfg::to_f / kfg::from_f convert (from_f rounds to nearest even, fp8
 *    saturates to the largest finite value, integers round and clamp to their range, bool is v != 0);
 *  - destination first, then sources, then sizes, then the stream; every launcher returns 0 or the CUDA error its
 *    launches left (a kf_launch returns it as is), and rejects negative sizes with cudaErrorInvalidValue;
 *  - "any axis" means the contiguous tensor viewed as [outer, n, inner] with the axis of length n in the middle
 *    (outer = product of the dimensions before it, inner = after), so an axis-1 op of x [B, N, M] is
 *    (outer, n, inner) = (B, N, M) and a row op of x [R, C] is (R, C, 1);
 *  - Op, Epi and Pre are functors with a const __device__ operator() (plain structs: no extended lambdas in the
 *    judge's nvcc flags), passed by value, so they may carry device pointers and scalars;
 *  - pointers marked "may be null" skip that operand.
 *
 * Worked example, a reference for instance_norm (x, y [N, C, H, W] fp32, scalar eps):
 *     #include "cuda/generic/ops.cuh"
 *     extern "C" int kf_launch(const float *x, float *y, int N, int C, int H, int W, float eps, cudaStream_t s) {
 *         return kfg::group_norm(y, x, (const float *)nullptr, (const float *)nullptr, N, C, (long long)H * W,
 *                                C, eps, s);
 *     }
 */
#pragma once
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_fp4.h>
#include <stdint.h>

namespace kfg {

/* ------------------------------------------------------------------------------------------------------------------
 * Element conversions (device).
 *   float to_f(T v);                 T from_f<T>(float v);
 *   float fp4_get(const __nv_fp4x2_e2m1 *p, long long i)     element i of a packed fp4 array (even i: low nibble)
 *   float e8m0_get(const __nv_fp8_e8m0 *p, long long i)      2^(code - 127)
 *   signed char round_i8(float v)                              round half to even, clamp to [-128, 127]
 * ---------------------------------------------------------------------------------------------------------------- */

/* ------------------------------------------------------------------------------------------------------------------
 * Elementwise maps. Op: float operator()(float) const (map), (float, float) const (map2), (float, float, float)
 * const (map3); y may alias a source of the same type.
 *   map(y, x, n, op, s)              y[i] = op(x[i])
 *   map2(y, a, b, n, op, s)          y[i] = op(a[i], b[i])
 *   map3(y, a, b, c, n, op, s)       y[i] = op(a[i], b[i], c[i])
 *   map_channel(y, x, v, outer, n, inner, op, s)   y[o, k, i] = op(x[o, k, i], v[k]) (bias, per-channel scale)
 *   generate(y, n, gen, s)           y[i] = gen(i) (Gen: float operator()(long long) const; gathers, combines)
 *   cast(y, x, n, s)                 y[i] = from_f(to_f(x[i]))
 *   fill(y, value, n, s)
 * Activations (functors in kfg::act): relu, relu6, leaky_relu{slope}, elu{alpha}, selu, gelu (erf), gelu_tanh,
 * silu, sigmoid, tanh_, softplus{beta, threshold}, softsign, hardsigmoid, hardswish, hardtanh{lo, hi}, mish,
 * exp_, log_, abs_, neg, square, sqrt_, rsqrt_, scale{a} (a*x), affine{a, b} (a*x + b), clamp{lo, hi};
 * binary (kfg::bin): add, sub, mul, div, max_, min_, pow_.
 * ---------------------------------------------------------------------------------------------------------------- */

/* ------------------------------------------------------------------------------------------------------------------
 * Reductions over any axis, fp32 accumulation.
 *   enum red { SUM, MEAN, MAX, MIN, PROD, SUMSQ, L2, LSE, VAR, STD }  (VAR/STD: population, two passes)
 *   reduce(y, x, outer, n, inner, red, s)            y[o, i] = red over k of x[o, k, i]  (n == 0: identity, MEAN 0)
 *   reduce_map(y, x, outer, n, inner, red, pre, s)   the same over pre(x[o, k, i], k)   (Pre: (float, long long))
 *   reduce2(y, a, b, outer, n, inner, red, pre2, s)  over pre2(a[...], b[...])           (Pre2: (float, float))
 *   reduce_with(y, load, outer, n, inner, red, s)    over load(flat index o*n*inner + k*inner + i, k): any
 *                                                      number of operands (Load: float operator()(long long,
 *                                                      long long) const)
 *   reduce_all(y, x, count, red, scale, s)           y[0] = scale * red over all count values (losses): SUM, MEAN,
 *                                                      MAX, MIN, PROD, SUMSQ or L2; per-block partials in a fixed
 *                                                      order, so the result is the same every run
 *   reduce_all2(y, a, b, count, pre2, scale, s)      y[0] = scale * sum of pre2(a[i], b[i])
 *   enum arg { ARGMAX, ARGMIN }
 *   argreduce(idx, x, outer, n, inner, arg, s)       idx[o, i] = the first k of the max (min); idx: int or long long;
 *                                                      NaN compares as in torch (a NaN wins)
 * ---------------------------------------------------------------------------------------------------------------- */

/* ------------------------------------------------------------------------------------------------------------------
 * Scans over any axis, fp32 running value.
 *   enum scan_op { SCAN_SUM, SCAN_PROD, SCAN_MAX, SCAN_MIN }
 *   struct scan_opts { scan_op op = SCAN_SUM; bool exclusive = false; bool reverse = false; };
 *   scan(y, x, mask, outer, n, inner, opts, s)       y[o, k, i] = op over j <= k (j < k exclusive; j >= k reverse)
 *                                                      of x[o, j, i], j with mask[o, j, i] only (mask: const bool *,
 *                                                      may be null)
 * ---------------------------------------------------------------------------------------------------------------- */

/* ------------------------------------------------------------------------------------------------------------------
 * Softmax over any axis.
 *   softmax(y, x, outer, n, inner, s)                y = exp(x - max) / sum
 *   log_softmax(y, x, outer, n, inner, s)            y = x - max - log(sum exp(x - max))
 * ---------------------------------------------------------------------------------------------------------------- */

/* ------------------------------------------------------------------------------------------------------------------
 * Norms; gamma, beta, mean, var may be null (gamma 1, beta 0). Statistics in fp32, two passes (mean, then the mean
 * squared deviation), population variance.
 *   layer_norm(y, x, gamma, beta, rows, cols, eps, s)           over each row; gamma, beta [cols]
 *   rms_norm(y, x, gamma, rows, cols, eps, s)                   y = x / sqrt(mean(x^2) + eps) * gamma
 *   group_norm(y, x, gamma, beta, N, C, spatial, G, eps, s)     x [N, C, spatial]; G groups of C/G channels;
 *                                                                 gamma, beta [C]; instance norm is G = C
 *   batch_norm(y, x, gamma, beta, mean, var, N, C, spatial, eps, s)
 *                                                                 per channel c of x [N, C, spatial]: running
 *                                                                 statistics when mean and var are given, else
 *                                                                 the batch's own over N x spatial
 * ---------------------------------------------------------------------------------------------------------------- */

/* ------------------------------------------------------------------------------------------------------------------
 * Convolution and pooling, direct (one thread per output element), NC + 1-3 spatial dimensions, row-major.
 *   struct window { int nd; long long in[3]; int k[3], stride[3], pad[3], dilation[3], out_pad[3]; };
 *     window_out(w, d): output extent of spatial dim d  ((in + 2 pad - dil (k - 1) - 1) / stride + 1)
 *     window_out_t(w, d): transposed ((in - 1) stride - 2 pad + dil (k - 1) + out_pad + 1)
 *     make_window(nd, in, k, stride, pad, dilation = 1): every dim alike; fields may be set one by one afterwards
 *   conv(y, x, w, bias, N, C, O, G, win, epi, s)       y[n, o, p] = epi(sum_{c < C/G, q} w[o, c, q] x[n, g C/G + c,
 *                                                         p stride - pad + q dil] + bias[o], o); w [O, C/G, k...];
 *                                                         bias may be null; epi: (float, long long channel) ->
 *                                                         float, kfg::no_epi for none
 *   conv_transpose(y, x, w, bias, N, C, O, G, win, epi, s)  the adjoint of conv (PyTorch ConvTranspose): w [C, O/G,
 *                                                         k...]; output extent window_out_t
 *   enum pool_op { POOL_MAX, POOL_AVG, POOL_AVG_COUNT_PAD }
 *   pool(y, x, NC, win, pool_op, s)                    max ignores padding; POOL_AVG divides by the in-bounds count,
 *                                                         POOL_AVG_COUNT_PAD by the window size
 * ---------------------------------------------------------------------------------------------------------------- */

/* ------------------------------------------------------------------------------------------------------------------
 * GEMM, any element types, fp32 accumulation, 64x64 shared-memory tiles, 4x4 outputs per thread.
 *   struct gemm_desc { int M, N, K; bool ta = false, tb = false; long long batch = 1;
 *                      long long stride_a = -1, stride_b = -1, stride_c = -1;   (-1: M*K, K*N, M*N; 0: broadcast)
 *                      float alpha = 1; };
 *   gemm(C, A, B, desc, epi, s)     C[b, m, n] = epi(alpha * sum_k A[b](m, k) B[b](k, n), m, n) with
 *                                   A(m, k) = ta ? A[k, m] : A[m, k] ([M, K] row-major, or [K, M]) and
 *                                   B(k, n) = tb ? B[n, k] : B[k, n]; Epi: (float acc, long long m, long long n),
 *                                   kfg::no_epi2 for none; kfg::epi_bias{bias} adds bias[n]
 *   Pre-op on operands: gemm_pre(C, A, B, desc, pre_a, pre_b, epi, s) applies pre_a(v, m, k) and pre_b(v, k, n) to
 *   each operand value as loaded (zero points, block scales: dequantise on the fly); kfg::no_pre for none
 * ---------------------------------------------------------------------------------------------------------------- */

/* ------------------------------------------------------------------------------------------------------------------
 * Attention, one block per (batch, head, query row), online softmax over the keys in fp32.
 *   struct attn_desc { int B, H, HKV, Sq, Skv, D, Dv; float scale; bool causal; }   (HKV 0: H; Dv 0: D; D <= 512)
 *   attention(O, Q, K, V, desc, s)     Q, O [B, H, Sq, D (Dv)], K, V [B, HKV, Skv, D (Dv)];
 *                                      O[b, h, i] = softmax_j(scale Q[b, h, i] . K[b, h / (H / HKV), j]) V[...];
 *                                      causal keeps j <= i + Skv - Sq; rows with no key get 0
 *   attention_paged(O, Q, Kc, Vc, page_table, seq_lens, desc, page_size, pages_per_seq, s)
 *                                      K, V [P, page_size, HKV, D] pages; page_table [B, pages_per_seq];
 *                                      seq_lens [B] (int) or null for Skv
 * ---------------------------------------------------------------------------------------------------------------- */

/* ------------------------------------------------------------------------------------------------------------------
 * Quantisation, gathers and segments.
 *   quantize(q, x, scale, n, block, s)          q[i] = from_f(x[i] / scale[i / block]) (scale: any float type or
 *                                               e8m0; null: 1); q of any type but packed fp4; i8 rounds half to
 *                                               even and clamps
 *   dequantize(y, q, scale, n, block, s)        y[i] = to_f(q[i]) * scale[i / block]; q may be packed fp4
 *   gather_rows(y, x, idx, rows, cols, s)       y[r, :] = x[idx[r], :] (idx int or long long)
 *   segment_reduce(y, x, offsets, S, cols, red, s)  y[s, :] = red of x[t, :] over offsets[s] <= t < offsets[s + 1]
 *                                                    (SUM, MEAN, MAX, MIN; empty segment: 0)
 * ---------------------------------------------------------------------------------------------------------------- */

} /* namespace kfg */

#include "cuda/generic/elem.cuh"
#include "cuda/generic/map.cuh"
#include "cuda/generic/reduce.cuh"
#include "cuda/generic/norm.cuh"
#include "cuda/generic/conv.cuh"
#include "cuda/generic/gemm.cuh"
#include "cuda/generic/attention.cuh"
#include "cuda/generic/quant.cuh"
