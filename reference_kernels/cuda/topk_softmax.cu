/* Reference kernel for topk_softmax: generic (one warp per token, K rounds of a warp arg-max ranked after the previous
 * choice, reference_kernels/cuda/topk_route.cuh; the softmax of the K logits from registers of lane 0). */
#include "cuda/topk_route.cuh"
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *logits, float *w, int *idx, int T, int E, int K, cudaStream_t stream) {
    if (K > kfr::MAX_K || K > E) return kfg::BAD;
    if (T == 0) return 0;
    kfr::topk_softmax<<<(unsigned)((T + kfr::WARPS - 1) / kfr::WARPS), kfr::WARPS * kfr::WARP, 0, stream>>>(logits, w,
                                                                                                        idx, T, E, K);
    return kfg::status();
}
