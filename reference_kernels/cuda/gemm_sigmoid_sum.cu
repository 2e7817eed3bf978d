/* Reference kernel for gemm_sigmoid_sum: generic (reference_kernels/cuda/generic): the library GEMM with bias and
 * sigmoid in its epilogue into scratch (reference_kernels/cuda/scratch.cuh), then a sum over each row. */
#include "cuda/generic/ops.cuh"
#include "cuda/scratch.cuh"

namespace {

struct bias_sigmoid {
    const float *b;
    __device__ float operator()(float acc, long long, long long n) const { return kfg::act::sigmoid{}(acc + b[n]); }
};

} /* namespace */

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
    if (!rc) rc = kfg::gemm(z, x, W, d, bias_sigmoid{b}, stream);
    if (!rc) rc = kfg::reduce(y, z, M, N, 1, kfg::SUM, stream);
    return rc;
}
