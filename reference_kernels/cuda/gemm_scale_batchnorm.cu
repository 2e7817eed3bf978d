/* Reference kernel for gemm_scale_batchnorm: generic (reference_kernels/cuda/generic): the library GEMM with bias and
 * scale in its epilogue into y, then batch norm with the batch's statistics in place (rows are the batch, features
 * the channels). */
#include "cuda/generic/ops.cuh"

namespace {

struct bias_scale {
    const float *b, *scale;
    __device__ float operator()(float acc, long long, long long n) const { return (acc + b[n]) * scale[n]; }
};

} /* namespace */

extern "C" int kf_launch(const float *x, const float *W, const float *b, const float *scale, const float *gamma,
                         const float *beta, float *y, int M, int N, int K, float eps, cudaStream_t stream) {
    kfg::gemm_desc d;
    d.M = M;
    d.N = N;
    d.K = K;
    d.tb = true;
    int rc = kfg::gemm(y, x, W, d, bias_scale{b, scale}, stream);
    if (!rc)
        rc = kfg::batch_norm(y, y, gamma, beta, (const float *)nullptr, (const float *)nullptr, M, N, 1, eps, stream);
    return rc;
}
