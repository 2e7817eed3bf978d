/* Reference kernel for gemm_groupnorm_swish: generic (reference_kernels/cuda/generic): the library GEMM with the bias
 * into y, group norm in place (rows as samples, features as channels), then swish as a map in place. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, const float *W, const float *b, const float *gamma, const float *beta,
                         float *y, int M, int N, int K, int G, float eps, cudaStream_t stream) {
    kfg::gemm_desc d;
    d.M = M;
    d.N = N;
    d.K = K;
    d.tb = true;
    int rc = kfg::gemm(y, x, W, d, kfg::epi_bias<float>{b}, stream);
    if (!rc) rc = kfg::group_norm(y, y, gamma, beta, M, N, 1, G, eps, stream);
    if (!rc) rc = kfg::map(y, y, (long long)M * N, kfg::act::silu{}, stream);
    return rc;
}
