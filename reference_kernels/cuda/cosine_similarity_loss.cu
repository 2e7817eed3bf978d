/* Reference kernel for cosine_similarity_loss: generic (cuda/generic block sums and reduce_all). One block per row
 * forms <p, t>, |p|^2 and |t|^2 in one pass and leaves 1 - cos in the workspace (one float per row); a
 * deterministic whole-tensor mean of those B values gives the loss. */
#include "cuda/generic/ops.cuh"

namespace {

__global__ void __launch_bounds__(kfg::THREADS)
row_cosine(const float *__restrict__ p, const float *__restrict__ t, float *__restrict__ out, int D) {
    __shared__ float scratch[kfg::WARP];
    const float *pr = p + (long long)blockIdx.x * D, *tr = t + (long long)blockIdx.x * D;
    float dot = 0.0f, pp = 0.0f, tt = 0.0f;
    for (int k = threadIdx.x; k < D; k += kfg::THREADS) {
        const float a = pr[k], b = tr[k];
        dot = fmaf(a, b, dot);
        pp = fmaf(a, a, pp);
        tt = fmaf(b, b, tt);
    }
    dot = kfg::block_sum(dot, scratch);
    pp = kfg::block_sum(pp, scratch);
    tt = kfg::block_sum(tt, scratch);
    if (threadIdx.x == 0) out[blockIdx.x] = 1.0f - dot / (sqrtf(pp) * sqrtf(tt));
}

} /* namespace */

extern "C" int kf_launch(const float *pred, const float *target, float *loss, int B, int D, void *workspace,
                         cudaStream_t stream) {
    if (B <= 0 || D < 0) return kfg::BAD;
    float *per_row = static_cast<float *>(workspace);
    row_cosine<<<B, kfg::THREADS, 0, stream>>>(pred, target, per_row, D);
    return kfg::reduce_all(loss, (const float *)per_row, B, kfg::MEAN, 1.0f, stream);
}
