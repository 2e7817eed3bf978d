/* Reference kernel for paged_decode_attention: generic (reference_kernels/cuda/generic): the library's paged attention,
 * one warp per (sequence, query head) with an online softmax over the sequence's own length. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *q, const __nv_bfloat16 *k_cache, const __nv_bfloat16 *v_cache,
                         const int *page_table, const int *seq_lens, __nv_bfloat16 *out, int B, int H, int HKV, int D,
                         int P, int PS, int NP, float scale, cudaStream_t stream) {
    (void)P;
    kfg::attn_desc a;
    a.B = B;
    a.H = H;
    a.HKV = HKV;
    a.Sq = 1;
    a.Skv = NP * PS;
    a.D = D;
    a.Dv = D;
    a.scale = scale;
    return kfg::attention_paged(out, q, k_cache, v_cache, page_table, seq_lens, a, PS, NP, stream);
}
