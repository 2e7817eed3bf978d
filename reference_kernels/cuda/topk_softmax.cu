/* Reference kernel for topk_softmax: generic (one warp per token, K rounds of a warp arg-max ranked after the previous
 * choice, reference_kernels/cuda/topk_route.cuh; the softmax of the K logits from registers of lane 0). */
#include "cuda/topk_route.cuh"
#include "cuda/generic/ops.cuh"

namespace {

constexpr int MAX_K = 64; /* lane 0 keeps the chosen logits in local memory */

struct logit_key {
    const float *row;
    __device__ float operator()(int e) const { return row[e]; }
};

struct keep {
    float *vals;
    int *ids;
    __device__ void operator()(int j, int e, float v) const {
        vals[j] = v;
        ids[j] = e;
    }
};

__global__ void __launch_bounds__(kfr::WARPS * kfr::WARP) route(const float *logits, float *w, int *idx, int T, int E,
                                                                 int K) {
    const long long t = (long long)blockIdx.x * kfr::WARPS + threadIdx.x / kfr::WARP;
    if (t >= T) return;
    float vals[MAX_K];
    int ids[MAX_K];
    kfr::select_topk(logit_key{logits + t * E}, E, K, keep{vals, ids});
    if (threadIdx.x % kfr::WARP) return;
    float sum = 0.0f;
    for (int j = 0; j < K; ++j) sum += expf(vals[j] - vals[0]);
    for (int j = 0; j < K; ++j) {
        w[t * K + j] = expf(vals[j] - vals[0]) / sum;
        idx[t * K + j] = ids[j];
    }
}

} /* namespace */

extern "C" int kf_launch(const float *logits, float *w, int *idx, int T, int E, int K, cudaStream_t stream) {
    if (K > MAX_K || K > E) return kfg::BAD;
    if (T == 0) return 0;
    route<<<(unsigned)((T + kfr::WARPS - 1) / kfr::WARPS), kfr::WARPS * kfr::WARP, 0, stream>>>(logits, w, idx, T, E, K);
    return kfg::status();
}
