/* Reference kernel for triplet_margin_loss_f32: generic (reference_kernels/cuda/generic), two row reductions of the
 * squared eps-shifted differences into the workspace (one float per row each), then a deterministic sum of the
 * hinges scaled by 1/B. */
#include "cuda/generic/ops.cuh"

namespace {

constexpr float PAIRWISE_EPS = 1e-6f; /* PyTorch's pairwise_distance default */

struct shifted_sq {
    __device__ float operator()(float a, float b) const {
        const float d = a - b + PAIRWISE_EPS;
        return d * d;
    }
};

struct hinge {
    float margin;
    __device__ float operator()(float sp, float sn) const { return fmaxf(sqrtf(sp) - sqrtf(sn) + margin, 0.0f); }
};

} /* namespace */

extern "C" int kf_launch(const float *anchor, const float *positive, const float *negative, float *loss, int B, int D,
                         float margin, void *workspace, cudaStream_t stream) {
    float *sp = static_cast<float *>(workspace), *sn = sp + B;
    int rc = kfg::reduce2(sp, anchor, positive, B, D, 1, kfg::SUM, shifted_sq{}, stream);
    if (rc == 0) rc = kfg::reduce2(sn, anchor, negative, B, D, 1, kfg::SUM, shifted_sq{}, stream);
    if (rc == 0) rc = kfg::reduce_all2(loss, sp, sn, B, hinge{margin}, B ? 1.0f / (float)B : 0.0f, stream);
    return rc;
}
