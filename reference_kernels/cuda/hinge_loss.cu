/* Reference kernel for hinge_loss: generic (cuda/generic reduce_all2: per-block partial sums of
 * max(0, 1 - pred * target) in a fixed order, then their mean). */
#include "cuda/generic/ops.cuh"

namespace {
struct hinge {
    __device__ float operator()(float p, float t) const { return fmaxf(0.0f, 1.0f - p * t); }
};
} /* namespace */

extern "C" int kf_launch(const float *pred, const float *target, float *loss, int B, cudaStream_t stream) {
    if (B <= 0) return kfg::BAD;
    return kfg::reduce_all2(loss, pred, target, B, hinge{}, 1.0f / (float)B, stream);
}
