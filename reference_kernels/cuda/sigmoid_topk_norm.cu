/* Reference kernel for sigmoid_topk_norm: generic (one warp per token, K rounds of a warp arg-max of sigmoid + bias
 * ranked after the previous choice, reference_kernels/cuda/topk_route.cuh; lane 0 normalises the chosen scores). */
#include "cuda/topk_route.cuh"
#include "cuda/generic/ops.cuh"

namespace {

constexpr int MAX_K = 64;

__device__ __forceinline__ float sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }

struct biased_score {
    const float *row, *bias;
    __device__ float operator()(int e) const { return sigmoid(row[e]) + bias[e]; }
};

struct keep {
    int *ids;
    __device__ void operator()(int j, int e, float) const { ids[j] = e; }
};

__global__ void __launch_bounds__(kfr::WARPS * kfr::WARP) route(const float *logits, const float *bias, float *w, int *idx,
                                                                 int T, int E, int K, float rsf) {
    const long long t = (long long)blockIdx.x * kfr::WARPS + threadIdx.x / kfr::WARP;
    if (t >= T) return;
    int ids[MAX_K];
    const float *row = logits + t * E;
    kfr::select_topk(biased_score{row, bias}, E, K, keep{ids});
    if (threadIdx.x % kfr::WARP) return;
    float sum = 0.0f;
    for (int j = 0; j < K; ++j) sum += sigmoid(row[ids[j]]);
    for (int j = 0; j < K; ++j) {
        w[t * K + j] = sigmoid(row[ids[j]]) / sum * rsf;
        idx[t * K + j] = ids[j];
    }
}

} /* namespace */

extern "C" int kf_launch(const float *logits, const float *bias, float *w, int *idx, int T, int E, int K, float rsf,
                         cudaStream_t stream) {
    if (K > MAX_K || K > E) return kfg::BAD;
    if (T == 0) return 0;
    route<<<(unsigned)((T + kfr::WARPS - 1) / kfr::WARPS), kfr::WARPS * kfr::WARP, 0, stream>>>(logits, bias, w, idx, T,
                                                                                                 E, K, rsf);
    return kfg::status();
}
