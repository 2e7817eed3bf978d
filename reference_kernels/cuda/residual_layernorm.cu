/* Reference kernel for residual_layernorm: h = x + res (bf16), y = layernorm(x + res) * gamma + beta (bf16), over the
 * last dimension of [rows, cols]; fp32 two-pass statistics (mean, then mean squared deviation), eps 1e-5.
 * One block per row, of 64 to 256 threads as the row needs. Rows of up to 8192 columns stay in registers (tile/rows.cuh
 * fragments, 4 per thread: one read of x and res, one write of h and y, 16-byte accesses when the pitch allows);
 * longer rows stream three times. */
#include "tile/norm.cuh"
#include "tile/reduce.cuh"
#include "tile/rows.cuh"

namespace {

typedef __nv_bfloat16 bf16;
constexpr int STREAM_THREADS = 256;
constexpr int VPT = 4;                     /* 16-byte vectors per thread held in registers */
constexpr float LN_EPS = 1e-5f;

template <int THREADS, bool VEC_IO>
__global__ void __launch_bounds__(THREADS)
resln_regs(const bf16 *x, const bf16 *res, const bf16 *gamma, const bf16 *beta, bf16 *h, bf16 *y, int cols) {
    __shared__ float scratch[kf::WARP];
    typedef kf::row_frag<bf16, THREADS, VPT> frag;
    const long long off = (long long)blockIdx.x * cols;
    frag a, b;
    kf::load_row<VEC_IO>(a, x + off, cols, 0.0f);
    kf::load_row<VEC_IO>(b, res + off, cols, 0.0f);
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < frag::VEC; ++e) a.v[u][e] += b.v[u][e];
    kf::store_row<VEC_IO>(h + off, a, cols);
    float mean, rstd;
    kf::frag_mean_rstd<VEC_IO>(mean, rstd, a, cols, LN_EPS, scratch);
    kf::load_row<VEC_IO>(b, gamma, cols, 0.0f);
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < frag::VEC; ++e) a.v[u][e] = (a.v[u][e] - mean) * rstd * b.v[u][e];
    kf::load_row<VEC_IO>(b, beta, cols, 0.0f);
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < frag::VEC; ++e) a.v[u][e] += b.v[u][e];
    kf::store_row<VEC_IO>(y + off, a, cols);
}

/* Rows too long for registers: sum, squared deviations, then the writes, each a coalesced pass. */
__global__ void __launch_bounds__(STREAM_THREADS)
resln_stream(const bf16 *x, const bf16 *res, const bf16 *gamma, const bf16 *beta, bf16 *h, bf16 *y, int cols) {
    __shared__ float scratch[kf::WARP];
    const long long off = (long long)blockIdx.x * cols;
    float sum = 0.0f, sq = 0.0f;
    for (int c = threadIdx.x; c < cols; c += STREAM_THREADS) sum += __bfloat162float(x[off + c]) + __bfloat162float(res[off + c]);
    kf::block_reduce<kf::op_sum>(sum, sum, scratch);
    const float mean = sum / (float)cols;
    for (int c = threadIdx.x; c < cols; c += STREAM_THREADS) {
        const float d = __bfloat162float(x[off + c]) + __bfloat162float(res[off + c]) - mean;
        sq += d * d;
    }
    kf::block_reduce<kf::op_sum>(sq, sq, scratch);
    const float rstd = rsqrtf(sq / (float)cols + LN_EPS);
    for (int c = threadIdx.x; c < cols; c += STREAM_THREADS) {
        const float v = __bfloat162float(x[off + c]) + __bfloat162float(res[off + c]);
        h[off + c] = __float2bfloat16_rn(v);
        y[off + c] = __float2bfloat16_rn((v - mean) * rstd * __bfloat162float(gamma[c]) + __bfloat162float(beta[c]));
    }
}

template <int THREADS>
void launch_regs(bool vec, const bf16 *x, const bf16 *res, const bf16 *gamma, const bf16 *beta, bf16 *h, bf16 *y,
                 int rows, int cols, cudaStream_t stream) {
    if (vec) resln_regs<THREADS, true><<<rows, THREADS, 0, stream>>>(x, res, gamma, beta, h, y, cols);
    else resln_regs<THREADS, false><<<rows, THREADS, 0, stream>>>(x, res, gamma, beta, h, y, cols);
}

} /* namespace */

extern "C" int kf_launch(const bf16 *x, const bf16 *res, const bf16 *gamma, const bf16 *beta, bf16 *h, bf16 *y,
                         int rows, int cols, cudaStream_t stream) {
    if (kf::bad_shape(rows, cols)) return (int)cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return 0;
    const bool vec = kf::row_vec_ok<bf16>(x, cols) && kf::row_vec_ok<bf16>(res, cols) &&
                     kf::row_vec_ok<bf16>(gamma, cols) && kf::row_vec_ok<bf16>(beta, cols) &&
                     kf::row_vec_ok<bf16>(h, cols) && kf::row_vec_ok<bf16>(y, cols);
    /* as few threads per row as hold it in VPT vectors each: several loads in flight per thread, cheap reductions */
    const int per_thread = VPT * kf::BF16_PER_VEC;
    if (cols <= 64 * per_thread) launch_regs<64>(vec, x, res, gamma, beta, h, y, rows, cols, stream);
    else if (cols <= 128 * per_thread) launch_regs<128>(vec, x, res, gamma, beta, h, y, rows, cols, stream);
    else if (cols <= 256 * per_thread) launch_regs<256>(vec, x, res, gamma, beta, h, y, rows, cols, stream);
    else resln_stream<<<rows, STREAM_THREADS, 0, stream>>>(x, res, gamma, beta, h, y, cols);
    return kf::launch_status();
}
