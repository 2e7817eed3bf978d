/* Top-k routing by warp (the CUDA references of topk_softmax, moe_topk_ffn and sigmoid_topk_norm): one warp per token selects its K
 * experts in K rounds; round j takes the best-ranked expert ranked after round j-1's choice, ranking by key
 * descending and, on equal keys, by index ascending, so nothing needs marking and ties keep the smaller index. */
#pragma once
#include <cuda_runtime.h>
#include <math.h>

namespace kfr {

constexpr int WARP = 32, WARPS = 8;
constexpr unsigned FULL = 0xffffffffu;

/* a ranks before b */
__device__ __forceinline__ bool before(float ka, int ia, float kb, int ib) { return ka > kb || (ka == kb && ia < ib); }

/* Key(e) for e < E is key(row, e); choice j of the token is written through emit(j, e, key). */
template <class Key, class Emit>
__device__ void select_topk(const Key &key, int E, int K, const Emit &emit) {
    const int lane = threadIdx.x % WARP;
    float prev_k = INFINITY;
    int prev_i = -1;
    for (int j = 0; j < K; ++j) {
        float best_k = -INFINITY;
        int best_i = E; /* none yet: ranks after everything */
        for (int e = lane; e < E; e += WARP) {
            const float k = key(e);
            if (before(prev_k, prev_i, k, e) && (best_i == E || before(k, e, best_k, best_i))) {
                best_k = k;
                best_i = e;
            }
        }
        for (int off = WARP / 2; off > 0; off /= 2) {
            const float ok = __shfl_xor_sync(FULL, best_k, off);
            const int oi = __shfl_xor_sync(FULL, best_i, off);
            if (oi != E && (best_i == E || before(ok, oi, best_k, best_i))) {
                best_k = ok;
                best_i = oi;
            }
        }
        emit(j, best_i, best_k);
        prev_k = best_k;
        prev_i = best_i;
    }
}

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

/* Each token's top-K logits (one warp per token, WARPS tokens a block) and the softmax over those K: w[t, j] and
 * idx[t, j] in rank order. K <= MAX_K. */
__global__ void __launch_bounds__(WARPS * WARP) topk_softmax(const float *logits, float *w, int *idx, int T, int E,
                                                             int K) {
    const long long t = (long long)blockIdx.x * WARPS + threadIdx.x / WARP;
    if (t >= T) return;
    float vals[MAX_K];
    int ids[MAX_K];
    select_topk(logit_key{logits + t * E}, E, K, keep{vals, ids});
    if (threadIdx.x % WARP) return;
    float sum = 0.0f;
    for (int j = 0; j < K; ++j) sum += expf(vals[j] - vals[0]);
    for (int j = 0; j < K; ++j) {
        w[t * K + j] = expf(vals[j] - vals[0]) / sum;
        idx[t * K + j] = ids[j];
    }
}

} /* namespace kfr */
