/* Reference kernel for cross_entropy_mean_bf16: generic (reference_kernels/cuda/generic), each row's log-sum-exp
 * (max-shifted) into the workspace, then a deterministic sum of lse[r] - logits[r, targets[r]] scaled by 1/rows. */
#include "cuda/generic/ops.cuh"

namespace {

struct row_loss {
    const float *lse;
    const __nv_bfloat16 *logits;
    const int *targets;
    long long classes;
    __device__ float operator()(long long r, long long) const {
        return lse[r] - __bfloat162float(logits[r * classes + targets[r]]);
    }
};

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *logits, const int *targets, float *loss, int rows, int classes,
                         void *workspace, cudaStream_t stream) {
    float *lse = static_cast<float *>(workspace);
    int rc = kfg::reduce(lse, logits, rows, classes, 1, kfg::LSE, stream);
    if (rc == 0)
        rc = kfg::reduce_all_with(loss, row_loss{lse, logits, targets, classes}, rows, kfg::SUM,
                                  rows ? 1.0f / (float)rows : 0.0f, stream);
    return rc;
}
