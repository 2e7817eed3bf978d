/* Reference kernel for gemm_softmax: generic (reference_kernels/cuda/generic): the library GEMM with the bias into y,
 * then the row softmax in place. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, const float *W, const float *b, float *y, int M, int N, int K,
                         cudaStream_t stream) {
    kfg::gemm_desc d;
    d.M = M;
    d.N = N;
    d.K = K;
    d.tb = true;
    int rc = kfg::gemm(y, x, W, d, kfg::epi_bias<float>{b}, stream);
    if (!rc) rc = kfg::softmax(y, y, M, N, 1, stream);
    return rc;
}
