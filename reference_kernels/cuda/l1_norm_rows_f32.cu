/* Reference kernel for l1_norm_rows_f32: generic (reference_kernels/cuda/generic), each row's sum of |x| into the
 * workspace (one float per row), then the per-row division as a per-channel map over [1, rows, cols]. */
#include "cuda/generic/ops.cuh"

namespace {

struct absval {
    __device__ float operator()(float v, long long) const { return fabsf(v); }
};

} /* namespace */

extern "C" int kf_launch(const float *x, float *y, int rows, int cols, void *workspace, cudaStream_t stream) {
    float *sums = static_cast<float *>(workspace);
    int rc = kfg::reduce_map(sums, x, rows, cols, 1, kfg::SUM, absval{}, stream);
    if (rc == 0) rc = kfg::map_channel(y, x, sums, 1, rows, cols, kfg::bin::div{}, stream);
    return rc;
}
