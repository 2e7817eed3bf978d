/* Reference kernel for masked_softmax: out[b, r, :] = softmax of x[b, r, :] / 8 over the columns with mask[r, c] != 0,
 * 0 elsewhere (all 0 in a row with nothing unmasked); x, out bf16 [batch, rows, cols], mask i32 [rows, cols].
 * One block per mask row and slice of 8 batch entries (the mask is read once, kept as bits; re-reading it per entry
 * would come from HBM once x's stream evicts it), rows up to 8192 in registers with the next entry's row in flight;
 * longer rows stream three times from memory. */
#include "tile/reduce.cuh"
#include "tile/rows.cuh"

namespace {

typedef __nv_bfloat16 bf16;
constexpr int STREAM_THREADS = 256;
constexpr int VPT = 4;                               /* 16-byte vectors per thread held in registers */
constexpr int BATCH_SLICE = 8;                       /* batch entries per block: one mask read serves them all */
constexpr long long MAX_GRID_Y = 65535;
constexpr float SCALE_LOG2 = 0.125f * 1.4426950408889634f;   /* the 1/8 scale, in base-2 exponent units */
constexpr int I32_PER_VEC = kf::VEC_BYTES / (int)sizeof(int);
static_assert(VPT * kf::BF16_PER_VEC <= 32, "a thread's mask bits fit one word");

/* Bit VEC*u + e: element e of slot u is unmasked (and inside the row). */
template <int THREADS, bool VEC_IO>
__device__ __forceinline__ unsigned mask_bits(const int *mask_row, int cols) {
    constexpr int VEC = kf::BF16_PER_VEC;
    unsigned bits = 0;
#pragma unroll
    for (int u = 0; u < VPT; ++u) {
        const int c0 = kf::row_frag_col<THREADS, VEC, VEC_IO>(u, 0);
        if (VEC_IO && c0 < cols) {
#pragma unroll
            for (int q = 0; q < VEC / I32_PER_VEC; ++q) {
                const int4 m = __ldg(reinterpret_cast<const int4 *>(mask_row + c0) + q);
                const int b = VEC * u + I32_PER_VEC * q;
                bits |= (unsigned)(m.x != 0) << b | (unsigned)(m.y != 0) << (b + 1) | (unsigned)(m.z != 0) << (b + 2) |
                        (unsigned)(m.w != 0) << (b + 3);
            }
        } else if (!VEC_IO) {
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                const int c = kf::row_frag_col<THREADS, VEC, false>(u, e);
                if (c < cols && mask_row[c]) bits |= 1u << (VEC * u + e);
            }
        }
    }
    return bits;
}

/* The row's raw 16-byte vectors, in flight until widened (VEC_IO rows only). */
template <int THREADS>
__device__ __forceinline__ void fetch(uint4 (&raw)[VPT], const bf16 *row, int cols) {
#pragma unroll
    for (int u = 0; u < VPT; ++u) {
        const int c0 = kf::row_frag_col<THREADS, kf::BF16_PER_VEC, true>(u, 0);
        raw[u] = c0 < cols ? __ldg(reinterpret_cast<const uint4 *>(row + c0)) : make_uint4(0, 0, 0, 0);
    }
}

/* Softmax of one row held in a (scaled logits, masked entries -inf), written to dst. */
template <int THREADS, bool VEC_IO>
__device__ __forceinline__ void softmax_row(kf::row_frag<bf16, THREADS, VPT> &a, bf16 *dst, int cols,
                                            float *scratch) {
    float mx = -INFINITY, sum = 0.0f;
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < kf::BF16_PER_VEC; ++e) mx = fmaxf(mx, a.v[u][e]);
    kf::block_reduce<kf::op_max>(mx, mx, scratch);
    const float base = mx == -INFINITY ? 0.0f : mx;   /* nothing unmasked: every exp2 below is 0 */
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < kf::BF16_PER_VEC; ++e) sum += a.v[u][e] = exp2f(a.v[u][e] - base);
    kf::block_reduce<kf::op_sum>(sum, sum, scratch);
    const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < kf::BF16_PER_VEC; ++e) a.v[u][e] *= inv;
    kf::store_row<VEC_IO>(dst, a, cols);
}

template <int THREADS, bool VEC_IO>
__global__ void __launch_bounds__(THREADS)
masked_softmax_regs(const bf16 *x, const int *mask, bf16 *out, int batch, int rows, int cols) {
    __shared__ float scratch[kf::WARP];
    constexpr int VEC = kf::BF16_PER_VEC;
    const int r = blockIdx.x, b0 = blockIdx.y * BATCH_SLICE, b1 = min(batch, b0 + BATCH_SLICE);
    const unsigned keep = mask_bits<THREADS, VEC_IO>(mask + (long long)r * cols, cols);
    const long long pitch = (long long)rows * cols;   /* between batch entries */
    kf::row_frag<bf16, THREADS, VPT> a;
    uint4 raw[VPT];
    if (VEC_IO) fetch<THREADS>(raw, x + b0 * pitch + (long long)r * cols, cols);
    for (int b = b0; b < b1; ++b) {
        const long long off = b * pitch + (long long)r * cols;
        if (VEC_IO) {
#pragma unroll
            for (int u = 0; u < VPT; ++u) {
                const __nv_bfloat162 *pairs = reinterpret_cast<const __nv_bfloat162 *>(&raw[u]);
#pragma unroll
                for (int e = 0; e < VEC / 2; ++e) {
                    const float2 f = __bfloat1622float2(pairs[e]);
                    a.v[u][2 * e] = f.x;
                    a.v[u][2 * e + 1] = f.y;
                }
            }
            if (b + 1 < b1) fetch<THREADS>(raw, x + off + pitch, cols);   /* the next entry loads meanwhile */
        } else {
            kf::load_row<false>(a, x + off, cols, 0.0f);
        }
#pragma unroll
        for (int u = 0; u < VPT; ++u)
#pragma unroll
            for (int e = 0; e < VEC; ++e) a.v[u][e] = keep >> (VEC * u + e) & 1u ? a.v[u][e] * SCALE_LOG2 : -INFINITY;
        softmax_row<THREADS, VEC_IO>(a, out + off, cols, scratch);
    }
}

__device__ __forceinline__ float masked_logit(const bf16 *x, const int *mask, long long off, int c) {
    return mask[c] ? __bfloat162float(x[off + c]) * SCALE_LOG2 : -INFINITY;
}

/* Rows too long for registers: max, sum, then the writes, each a coalesced pass; one block per (batch, row). */
__global__ void __launch_bounds__(STREAM_THREADS)
masked_softmax_stream(const bf16 *x, const int *mask, bf16 *out, int rows, int cols) {
    __shared__ float scratch[kf::WARP];
    const long long off = (long long)blockIdx.x * cols;
    const int *m = mask + (long long)(blockIdx.x % rows) * cols;
    float mx = -INFINITY, sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += STREAM_THREADS) mx = fmaxf(mx, masked_logit(x, m, off, c));
    kf::block_reduce<kf::op_max>(mx, mx, scratch);
    const float base = mx == -INFINITY ? 0.0f : mx;
    for (int c = threadIdx.x; c < cols; c += STREAM_THREADS) sum += exp2f(masked_logit(x, m, off, c) - base);
    kf::block_reduce<kf::op_sum>(sum, sum, scratch);
    const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
    for (int c = threadIdx.x; c < cols; c += STREAM_THREADS)
        out[off + c] = __float2bfloat16_rn(exp2f(masked_logit(x, m, off, c) - base) * inv);
}

template <int THREADS>
void launch_regs(bool vec, const bf16 *x, const int *mask, bf16 *out, int batch, int rows, int cols,
                 cudaStream_t stream) {
    const dim3 grid((unsigned)rows, (unsigned)kf::ceil_div(batch, BATCH_SLICE));
    if (vec) masked_softmax_regs<THREADS, true><<<grid, THREADS, 0, stream>>>(x, mask, out, batch, rows, cols);
    else masked_softmax_regs<THREADS, false><<<grid, THREADS, 0, stream>>>(x, mask, out, batch, rows, cols);
}

} /* namespace */

extern "C" int kf_launch(const bf16 *x, const int *mask, bf16 *out, int batch, int rows, int cols,
                         cudaStream_t stream) {
    if (kf::bad_shape(batch, rows, cols)) return (int)cudaErrorInvalidValue;
    if (batch == 0 || rows == 0 || cols == 0) return 0;
    const bool vec = kf::row_vec_ok<bf16>(x, cols) && kf::row_vec_ok<bf16>(out, cols) &&
                     kf::is_aligned(mask, kf::VEC_BYTES);
    /* as few threads per row as hold it in VPT vectors each: several loads in flight per thread, cheap reductions */
    const int per_thread = VPT * kf::BF16_PER_VEC;
    const bool slices_fit = kf::ceil_div(batch, BATCH_SLICE) <= MAX_GRID_Y;
    if (!slices_fit || cols > 256 * per_thread)
        masked_softmax_stream<<<(unsigned)((long long)batch * rows), STREAM_THREADS, 0, stream>>>(x, mask, out, rows,
                                                                                                    cols);
    else if (cols <= 64 * per_thread) launch_regs<64>(vec, x, mask, out, batch, rows, cols, stream);
    else if (cols <= 128 * per_thread) launch_regs<128>(vec, x, mask, out, batch, rows, cols, stream);
    else launch_regs<256>(vec, x, mask, out, batch, rows, cols, stream);
    return kf::launch_status();
}
