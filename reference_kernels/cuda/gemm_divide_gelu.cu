/* Reference kernel for gemm_divide_gelu: generic (reference_kernels/cuda/generic), the library GEMM with bias, division
 * and GELU in its epilogue. */
#include "cuda/generic/ops.cuh"

namespace {

struct divide_gelu {
    const float *b;
    float divisor;
    __device__ float operator()(float acc, long long, long long n) const {
        return kfg::act::gelu{}((acc + b[n]) / divisor);
    }
};

} /* namespace */

extern "C" int kf_launch(const float *x, const float *W, const float *b, float *y, int M, int N, int K, float divisor,
                         cudaStream_t stream) {
    kfg::gemm_desc d;
    d.M = M;
    d.N = N;
    d.K = K;
    d.tb = true;
    return kfg::gemm(y, x, W, d, divide_gelu{b, divisor}, stream);
}
