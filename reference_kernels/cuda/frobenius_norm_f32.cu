/* Reference kernel for frobenius_norm_f32: generic (reference_kernels/cuda/generic), one deterministic whole-tensor
 * L2 norm into the 4-byte workspace, then an elementwise map dividing by it (the functor carries the workspace
 * pointer). */
#include "cuda/generic/ops.cuh"

namespace {

struct divide_by {
    const float *norm;
    __device__ float operator()(float v) const { return v / *norm; }
};

} /* namespace */

extern "C" int kf_launch(const float *x, float *y, int B, int D, void *workspace, cudaStream_t stream) {
    float *norm = static_cast<float *>(workspace);
    const long long n = (long long)B * D;
    int rc = kfg::reduce_all(norm, x, n, kfg::L2, 1.0f, stream);
    if (rc == 0) rc = kfg::map(y, x, n, divide_by{norm}, stream);
    return rc;
}
