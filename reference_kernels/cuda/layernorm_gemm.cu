/* Reference kernel for layernorm_gemm: generic (reference_kernels/cuda/generic): layer norm into scratch
 * (reference_kernels/cuda/scratch.cuh), then the library GEMM with the bias in its epilogue. */
#include "cuda/generic/ops.cuh"
#include "cuda/scratch.cuh"

extern "C" int kf_launch(const float *x, const float *gamma, const float *beta, const float *W, const float *b,
                         float *y, int M, int N, int K, float eps, cudaStream_t stream) {
    void *buf;
    int rc = kfs::scratch(sizeof(float) * (size_t)M * K, &buf);
    float *xn = static_cast<float *>(buf);
    if (!rc) rc = kfg::layer_norm(xn, x, gamma, beta, M, K, eps, stream);
    kfg::gemm_desc d;
    d.M = M;
    d.N = N;
    d.K = K;
    d.tb = true;
    if (!rc) rc = kfg::gemm(y, xn, W, d, kfg::epi_bias<float>{b}, stream);
    return rc;
}
