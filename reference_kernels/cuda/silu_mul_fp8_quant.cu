/* Reference kernel for silu_mul_fp8_quant: generic (one thread per output element, kfg's SiLU and saturating E4M3
 * conversion). */
#include "cuda/generic/ops.cuh"

namespace {

__global__ void __launch_bounds__(kfg::THREADS) silu_mul_quant(const __nv_bfloat16 *x, const float *scale,
                                                               __nv_fp8_e4m3 *q, long long M, long long N) {
    const float s = scale[0];
    for (long long t = blockIdx.x * (long long)kfg::THREADS + threadIdx.x; t < M * N;
         t += (long long)gridDim.x * kfg::THREADS) {
        const long long m = t / N, n = t % N;
        const float g = __bfloat162float(x[m * 2 * N + n]), u = __bfloat162float(x[m * 2 * N + N + n]);
        q[t] = kfg::from_f<__nv_fp8_e4m3>(kfg::act::silu{}(g) * u / s);
    }
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *x, const float *scale, __nv_fp8_e4m3 *q, int M, int N,
                         cudaStream_t stream) {
    const long long total = (long long)M * N;
    if (total == 0) return 0;
    silu_mul_quant<<<kfg::grid_for(total), kfg::THREADS, 0, stream>>>(x, scale, q, M, N);
    return kfg::status();
}
