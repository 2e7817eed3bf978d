/* Reference kernel for fp8_dequant_block: generic (one thread per 4 consecutive elements of a row, 128 divides K so
 * the four share a block scale; kfg's conversions). The four codes are one 4-byte load when q is 4-byte aligned,
 * four byte loads otherwise (the judge places a tensor's end, so its start can sit at any byte). */
#include "cuda/generic/ops.cuh"

namespace {

constexpr int BLOCK = 128, VEC = 4;

template <bool VECTOR>
__global__ void __launch_bounds__(kfg::THREADS) dequant(__nv_bfloat16 *y, const __nv_fp8_e4m3 *q, const float *s,
                                                        int M, int K) {
    const long long quads = (long long)M * K / VEC, kb = K / BLOCK;
    for (long long t = blockIdx.x * (long long)kfg::THREADS + threadIdx.x; t < quads;
         t += (long long)gridDim.x * kfg::THREADS) {
        const long long i = t * VEC, m = i / K, k = i % K;
        const float scale = s[(m / BLOCK) * kb + k / BLOCK];
        const unsigned char *b = reinterpret_cast<const unsigned char *>(q) + i;
        uchar4 c;
        if (VECTOR) c = reinterpret_cast<const uchar4 *>(q)[t];
        else c = make_uchar4(b[0], b[1], b[2], b[3]);
        const unsigned char codes[VEC] = { c.x, c.y, c.z, c.w };
#pragma unroll
        for (int j = 0; j < VEC; ++j) {
            __nv_fp8_e4m3 v;
            v.__x = codes[j];
            y[i + j] = __float2bfloat16_rn(kfg::to_f(v) * scale);
        }
    }
}

} /* namespace */

extern "C" int kf_launch(const __nv_fp8_e4m3 *q, const float *s, __nv_bfloat16 *y, int M, int K, cudaStream_t stream) {
    const long long quads = (long long)M * K / VEC;
    if (quads == 0) return 0;
    if ((uintptr_t)q % sizeof(uchar4) == 0)
        dequant<true><<<kfg::grid_for(quads), kfg::THREADS, 0, stream>>>(y, q, s, M, K);
    else
        dequant<false><<<kfg::grid_for(quads), kfg::THREADS, 0, stream>>>(y, q, s, M, K);
    return kfg::status();
}
