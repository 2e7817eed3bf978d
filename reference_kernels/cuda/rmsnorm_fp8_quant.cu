/* Reference kernel for rmsnorm_fp8_quant: generic (one block per row: the sum of squares by kfg::block_sum, then each
 * value normalised, scaled and converted with kfg's saturating E4M3 conversion). */
#include "cuda/generic/ops.cuh"

namespace {

__global__ void __launch_bounds__(kfg::THREADS) rms_quant(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma,
                                                          const float *scale, __nv_fp8_e4m3 *q, int cols, float eps) {
    __shared__ float scratch[kfg::WARP];
    const long long base = (long long)blockIdx.x * cols;
    float ss = 0.0f;
    for (int c = threadIdx.x; c < cols; c += kfg::THREADS) {
        const float v = __bfloat162float(x[base + c]);
        ss += v * v;
    }
    const float rstd = rsqrtf(kfg::block_sum(ss, scratch) / cols + eps), s = scale[0];
    for (int c = threadIdx.x; c < cols; c += kfg::THREADS)
        q[base + c] = kfg::from_f<__nv_fp8_e4m3>(__bfloat162float(x[base + c]) * rstd * __bfloat162float(gamma[c]) / s);
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma, const float *scale, __nv_fp8_e4m3 *q,
                         int rows, int cols, float eps, cudaStream_t stream) {
    if (rows == 0) return 0;
    rms_quant<<<rows, kfg::THREADS, 0, stream>>>(x, gamma, scale, q, cols, eps);
    return kfg::status();
}
