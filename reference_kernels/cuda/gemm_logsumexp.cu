/* Reference kernel for gemm_logsumexp: generic (reference_kernels/cuda/generic): the library GEMM with the bias into
 * scratch (reference_kernels/cuda/scratch.cuh), then a log-sum-exp reduction over each row. */
#include "cuda/generic/ops.cuh"
#include "cuda/scratch.cuh"

extern "C" int kf_launch(const float *x, const float *W, const float *b, float *y, int M, int N, int K,
                         cudaStream_t stream) {
    void *buf;
    int rc = kfs::scratch(sizeof(float) * (size_t)M * N, &buf);
    float *z = static_cast<float *>(buf);
    kfg::gemm_desc d;
    d.M = M;
    d.N = N;
    d.K = K;
    d.tb = true;
    if (!rc) rc = kfg::gemm(z, x, W, d, kfg::epi_bias<float>{b}, stream);
    if (!rc) rc = kfg::reduce(y, z, M, N, 1, kfg::LSE, stream);
    return rc;
}
