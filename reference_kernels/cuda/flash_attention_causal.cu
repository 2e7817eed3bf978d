/* Reference kernel for flash_attention_causal: O = softmax(Q K^T / sqrt(D) + causal mask) V per head (query i sees
 * keys j <= i), Q and O [B][H][L][D], K and V [B][HKV][L][D] (query head h reads KV head h / (H / HKV)), bf16 in and
 * out, fp32 softmax. The flash attention of tile/flash.cuh; causal blocks stop at their diagonal tile. */
#include "tile/flash.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *Q, const __nv_bfloat16 *K, const __nv_bfloat16 *V, __nv_bfloat16 *O,
                         int B, int H, int HKV, int L, int D, cudaStream_t stream) {
    return kf::flash_attention_dense(Q, K, V, O, B, H, HKV, L, D, true, stream);
}
