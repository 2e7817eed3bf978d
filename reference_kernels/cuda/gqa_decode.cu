/* Reference kernel for gqa_decode: generic (reference_kernels/cuda/generic): the library's dense attention with one
 * query row, one warp per (sequence, query head) over all L keys (no split along L, so far from the bandwidth bound). */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v, __nv_bfloat16 *out,
                         int B, int H, int HKV, int L, int D, float scale, cudaStream_t stream) {
    kfg::attn_desc a;
    a.B = B;
    a.H = H;
    a.HKV = HKV;
    a.Sq = 1;
    a.Skv = L;
    a.D = D;
    a.Dv = D;
    a.scale = scale;
    return kfg::attention(out, q, k, v, a, stream);
}
