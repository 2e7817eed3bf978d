/* Reference kernel for flash_attention: O = softmax(Q K^T / sqrt(D)) V per head, Q and O [B][H][L][D], K and V
 * [B][HKV][L][D] (query head h reads KV head h / (H / HKV)), bf16 in and out, fp32 softmax.
 * The flash attention of tile/flash.cuh: wgmma with TMA-fed K/V for D = 64 and 128, mma.sync for any other D. */
#include "tile/flash.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *Q, const __nv_bfloat16 *K, const __nv_bfloat16 *V, __nv_bfloat16 *O,
                         int B, int H, int HKV, int L, int D, cudaStream_t stream) {
    const long long head = (long long)L * D;
    kf::attn_args a = {};
    a.q = kf::attn_view{Q, H * head, head, D, H, 0};
    a.k = kf::attn_view{K, HKV * head, head, D, HKV, 0};
    a.v = kf::attn_view{V, HKV * head, head, D, HKV, 0};
    a.o = O;
    a.o_stride_b = H * head;
    a.o_stride_h = head;
    a.o_stride_l = D;
    a.B = B;
    a.H = H;
    a.HKV = HKV;
    a.L = L;
    a.D = D;
    a.causal = false;
    return kf::flash_attention(a, stream);
}
