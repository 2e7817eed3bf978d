/* Reference kernel for rotary_embedding_bf16 (rotate-half / GPT-NeoX form): for token t, head h and i < P,
 *   out[t, h, i]     = x[t, h, i] cos[t, i] - x[t, h, i + P] sin[t, i]
 *   out[t, h, i + P] = x[t, h, i + P] cos[t, i] + x[t, h, i] sin[t, i]
 * x and out bf16 [T, H, 2P], cos and sin fp32 [T, P], fp32 arithmetic. Each thread rotates 8 pairs with 16-byte
 * accesses (P % 8 == 0, aligned pointers); consecutive threads walk a token's heads, so cos and sin come from
 * cache after the first head. One pair per thread otherwise. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/vec.cuh"

namespace {

typedef __nv_bfloat16 bf16;

constexpr int THREADS = 256;
constexpr int VEC = kf::BF16_PER_VEC;             /* pairs per thread on the vector path */

constexpr int F32_VECS = VEC / kf::F32_PER_VEC;   /* float4 loads of cos (and of sin) per thread */

/* Pairs i0 .. i0+7 of one head: 16-byte loads and stores. */
__device__ __forceinline__ void rotate_vec(bf16 *o, const bf16 *xr, const float *c, const float *s, int P, int i0) {
    float lo[VEC], hi[VEC], cs[F32_VECS][kf::F32_PER_VEC], sn[F32_VECS][kf::F32_PER_VEC];
    kf::load(lo, xr + i0);
    kf::load(hi, xr + P + i0);
#pragma unroll
    for (int q = 0; q < F32_VECS; ++q) {
        kf::load(cs[q], c + i0 + q * kf::F32_PER_VEC);
        kf::load(sn[q], s + i0 + q * kf::F32_PER_VEC);
    }
    float new_lo[VEC], new_hi[VEC];
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
        const float ce = cs[e / kf::F32_PER_VEC][e % kf::F32_PER_VEC];
        const float se = sn[e / kf::F32_PER_VEC][e % kf::F32_PER_VEC];
        new_lo[e] = lo[e] * ce - hi[e] * se;
        new_hi[e] = hi[e] * ce + lo[e] * se;
    }
    kf::store(o + i0, new_lo);
    kf::store(o + P + i0, new_hi);
}

__device__ __forceinline__ void rotate_one(bf16 *o, const bf16 *xr, const float *c, const float *s, int P, int i) {
    const float lo = __bfloat162float(xr[i]), hi = __bfloat162float(xr[P + i]);
    o[i] = __float2bfloat16_rn(lo * c[i] - hi * s[i]);
    o[P + i] = __float2bfloat16_rn(hi * c[i] + lo * s[i]);
}

/* One item: VEC pairs (VEC_IO) or one pair of row t * H + h; consecutive items walk a row, then the next head. */
template <bool VEC_IO>
__global__ void __launch_bounds__(THREADS)
rotary(const bf16 *__restrict__ x, const float *__restrict__ cosv, const float *__restrict__ sinv,
       bf16 *__restrict__ out, int H, int P, long long items) {
    constexpr int PER = VEC_IO ? VEC : 1;
    const long long item = (long long)blockIdx.x * THREADS + threadIdx.x;
    if (item >= items) return;
    const int chunks = P / PER;
    const long long row = item / chunks, t = row / H;
    const int i0 = (int)(item % chunks) * PER;
    const float *c = cosv + t * P, *s = sinv + t * P;
    if (VEC_IO) rotate_vec(out + row * 2 * P, x + row * 2 * P, c, s, P, i0);
    else rotate_one(out + row * 2 * P, x + row * 2 * P, c, s, P, i0);
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *x, const float *cos_table, const float *sin_table, __nv_bfloat16 *out,
                         int T, int H, int P, cudaStream_t stream) {
    if (kf::bad_shape(T, H, P)) return (int)cudaErrorInvalidValue;
    if (T == 0 || H == 0 || P == 0) return 0;
    const bool vec_io = P % VEC == 0 && kf::is_aligned(x, kf::VEC_BYTES) && kf::is_aligned(out, kf::VEC_BYTES) &&
                        kf::is_aligned(cos_table, kf::VEC_BYTES) && kf::is_aligned(sin_table, kf::VEC_BYTES);
    const long long items = (long long)T * H * (vec_io ? P / VEC : P);
    const unsigned blocks = (unsigned)kf::ceil_div(items, THREADS);
    if (vec_io) rotary<true><<<blocks, THREADS, 0, stream>>>(x, cos_table, sin_table, out, H, P, items);
    else rotary<false><<<blocks, THREADS, 0, stream>>>(x, cos_table, sin_table, out, H, P, items);
    return kf::launch_status();
}
