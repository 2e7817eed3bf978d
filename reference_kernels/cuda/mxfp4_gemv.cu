/* Reference kernel for mxfp4_gemv: generic (cuda/generic reduce_with: a block per output row sums
 * W[n, k] * 2^(scales[n, k/32] - 127) * x[k] over k, the packed fp4 weight and its E8M0 block scale decoded per
 * element). */
#include "cuda/generic/ops.cuh"

namespace {
constexpr int BLOCK = 32; /* weights per E8M0 scale */

struct mx_product {
    const __nv_fp4x2_e2m1 *Wq;
    const __nv_fp8_e8m0 *scales;
    const __nv_bfloat16 *x;
    long long K;
    /* i = n * K + k, the weight's element index */
    __device__ float operator()(long long i, long long k) const {
        return kfg::fp4_get(Wq, i) * kfg::e8m0_get(scales, i / BLOCK) * __bfloat162float(x[k]);
    }
};
} /* namespace */

extern "C" int kf_launch(const __nv_fp4x2_e2m1 *Wq, const __nv_fp8_e8m0 *scales, const __nv_bfloat16 *x, float *y,
                         int N, int K, cudaStream_t stream) {
    if (K % BLOCK) return kfg::BAD;
    return kfg::reduce_with(y, mx_product{ Wq, scales, x, K }, N, K, 1, kfg::SUM, stream);
}
