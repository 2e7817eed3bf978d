/* Reference kernel for fp8_dequant_block: generic (one thread per 4 consecutive elements of a row, 128 divides K so
 * the four share a block scale; kfg's conversions). */
#include "cuda/generic/ops.cuh"

namespace {

constexpr int BLOCK = 128, VEC = 4;

__global__ void __launch_bounds__(kfg::THREADS) dequant(__nv_bfloat16 *y, const __nv_fp8_e4m3 *q, const float *s,
                                                        int M, int K) {
    const long long quads = (long long)M * K / VEC, kb = K / BLOCK;
    for (long long t = blockIdx.x * (long long)kfg::THREADS + threadIdx.x; t < quads;
         t += (long long)gridDim.x * kfg::THREADS) {
        const long long i = t * VEC, m = i / K, k = i % K;
        const float scale = s[(m / BLOCK) * kb + k / BLOCK];
        const uchar4 c = reinterpret_cast<const uchar4 *>(q)[t];
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
    dequant<<<kfg::grid_for(quads), kfg::THREADS, 0, stream>>>(y, q, s, M, K);
    return kfg::status();
}
