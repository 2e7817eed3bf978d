/* Top-k routing by warp (the CUDA references of topk_softmax and sigmoid_topk_norm): one warp per token selects its K
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

} /* namespace kfr */
