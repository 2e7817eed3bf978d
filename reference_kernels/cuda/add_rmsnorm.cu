/* Reference kernel for add_rmsnorm: generic (one block per row: the fp32 sum s written as h while its squares are
 * summed, kfg::block_sum, then y from s recomputed). */
#include "cuda/generic/ops.cuh"

namespace {

__global__ void __launch_bounds__(kfg::THREADS) add_rms(const __nv_bfloat16 *x, const __nv_bfloat16 *res,
                                                        const __nv_bfloat16 *gamma, __nv_bfloat16 *h,
                                                        __nv_bfloat16 *y, int cols, float eps) {
    __shared__ float scratch[kfg::WARP];
    const long long base = (long long)blockIdx.x * cols;
    float ss = 0.0f;
    for (int c = threadIdx.x; c < cols; c += kfg::THREADS) {
        const float s = __bfloat162float(x[base + c]) + __bfloat162float(res[base + c]);
        h[base + c] = __float2bfloat16_rn(s);
        ss += s * s;
    }
    const float rstd = rsqrtf(kfg::block_sum(ss, scratch) / cols + eps);
    for (int c = threadIdx.x; c < cols; c += kfg::THREADS) {
        const float s = __bfloat162float(x[base + c]) + __bfloat162float(res[base + c]);
        y[base + c] = __float2bfloat16_rn(s * rstd * __bfloat162float(gamma[c]));
    }
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *res, const __nv_bfloat16 *gamma,
                         __nv_bfloat16 *h, __nv_bfloat16 *y, int rows, int cols, float eps, cudaStream_t stream) {
    if (rows == 0) return 0;
    add_rms<<<rows, kfg::THREADS, 0, stream>>>(x, res, gamma, h, y, cols, eps);
    return kfg::status();
}
