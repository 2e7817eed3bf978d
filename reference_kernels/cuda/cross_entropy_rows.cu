/* Reference kernel for cross_entropy_rows: loss[r] = logsumexp_c(logits[r, c]) - logits[r, targets[r]], bf16 logits,
 * int32 targets, fp32 losses. One block per row reads the logits once (tile/rows.cuh, the next vectors in flight
 * while the current ones are reduced). Each thread keeps an online (max m, sum of exp(x - m)) pair, updated once
 * per 16-byte vector: the vector's max first, one rescale if m grows, then eight independent exponentials, so no
 * exp overflows and the dependency chain stays short. The block merges the pairs (max, then rescaled sum), and
 * loss = (max - x_target) + log(sum). A target outside [0, classes) gives NaN. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/reduce.cuh"
#include "tile/rows.cuh"

namespace {

typedef __nv_bfloat16 bf16;

constexpr int THREADS = 256;
constexpr int VEC = kf::BF16_PER_VEC;
constexpr float LOG2E = 1.4426950408889634f;

/* exp(d) for d <= 0 through the hardware base-2 exponential (2 ulp). */
__device__ __forceinline__ float exp_le0(float d) { return exp2f(d * LOG2E); }

struct online_lse {
    float m = -INFINITY, s = 0.0f;
    __device__ void add(float v) {
        if (v > m) {
            s = s * exp_le0(m - v) + 1.0f;
            m = v;
        } else {
            s += exp_le0(v - m);
        }
    }
    __device__ void add(const float (&v)[VEC]) {
        float vmax = v[0];
#pragma unroll
        for (int e = 1; e < VEC; ++e) vmax = fmaxf(vmax, v[e]);
        if (vmax > m) {
            s *= exp_le0(m - vmax);
            m = vmax;
        }
        float part = 0.0f;
#pragma unroll
        for (int e = 0; e < VEC; ++e) part += exp_le0(v[e] - m);
        s += part;
    }
};

template <bool VEC_IO>
__global__ void __launch_bounds__(THREADS)
cross_entropy(const bf16 *__restrict__ logits, const int *__restrict__ targets, float *__restrict__ loss, int classes) {
    __shared__ float scratch[kf::WARP];
    const bf16 *row = logits + (long long)blockIdx.x * classes;
    online_lse acc;
    if (VEC_IO)
        kf::row_for_each_vec<THREADS>(row, classes, (int)threadIdx.x, [&](const float (&v)[VEC], int) { acc.add(v); });
    else kf::row_for_each<THREADS, false>(row, classes, [&](float v, int) { acc.add(v); });
    float row_max, row_sum;
    kf::block_reduce<kf::op_max>(row_max, acc.m, scratch);
    kf::block_reduce<kf::op_sum>(row_sum, acc.m == -INFINITY ? 0.0f : acc.s * exp_le0(acc.m - row_max), scratch);
    if (threadIdx.x != 0) return;
    const int t = targets[blockIdx.x];
    loss[blockIdx.x] = t >= 0 && t < classes ? (row_max - __bfloat162float(row[t])) + logf(row_sum) : NAN;
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *logits, const int *targets, float *loss, int rows, int classes,
                         cudaStream_t stream) {
    if (kf::bad_shape(rows, classes)) return (int)cudaErrorInvalidValue;
    if (rows == 0) return 0;
    if (kf::row_vec_ok<bf16>(logits, classes))
        cross_entropy<true><<<rows, THREADS, 0, stream>>>(logits, targets, loss, classes);
    else
        cross_entropy<false><<<rows, THREADS, 0, stream>>>(logits, targets, loss, classes);
    return kf::launch_status();
}
