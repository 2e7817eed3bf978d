/* Reference kernel for softmax_topk: per row of x (bf16 [rows, cols]), the k entries of softmax(x) ranked first
 * (larger x first, equal x: smaller column first) as probabilities (f32 vals) and columns (i32 idx).
 * One block per row; rows up to 8192 in registers, each entry a 32-bit key ordered by value then column, selection
 * by k rounds of a key maximum (redux.sync): per-warp top-k lists merged by one warp for k <= 32, block-wide rounds
 * above; longer rows re-read memory each round with float compares (tile/reduce_arg.cuh's tie rule). */
#include "tile/reduce.cuh"
#include "tile/reduce_arg.cuh"
#include "tile/rows.cuh"

namespace {

typedef __nv_bfloat16 bf16;
constexpr int STREAM_THREADS = 256;
constexpr int VPT = 4;                     /* 16-byte vectors per thread held in registers */
constexpr int MAX_WARP_K = 32;             /* k handled by per-warp lists merged by one warp */

/* (v, c) ranks after (pv, pc): a smaller value, or the same value at a larger column. */
__device__ __forceinline__ bool ranks_after(float v, int c, float pv, int pc) { return v < pv || (v == pv && c > pc); }

__device__ __forceinline__ void consider(float v, int c, float pv, int pc, float &best_v, int &best_c) {
    if (ranks_after(v, c, pv, pc) && kf::argmax_better(v, c, best_v, best_c)) {
        best_v = v;
        best_c = c;
    }
}

__device__ __forceinline__ void emit(float *vals, int *idx, long long at, float v, int c, float mx, float inv_sum) {
    vals[at] = expf(v - mx) * inv_sum;
    idx[at] = c;
}

/* Rows held in registers have fewer than 2^16 columns, so an entry's rank fits one 32-bit key: the bf16 value's bits
 * made order-preserving (negatives flipped, -0 as +0) above 0xffff - column. A larger key ranks first; 0 (padding)
 * ranks after every entry. One unsigned max then does what consider() does with floats. */
constexpr unsigned KEY_COL_MASK = 0xffffu;
constexpr unsigned BF16_SIGN = 0x8000u;

__device__ __forceinline__ unsigned make_key(float v, int c) {
    unsigned b = __float_as_uint(v) >> 16;          /* exact: v holds a bf16 value */
    if (b == BF16_SIGN) b = 0;
    const unsigned ord = b & BF16_SIGN ? ~b & KEY_COL_MASK : b | BF16_SIGN;
    return ord << 16 | (KEY_COL_MASK - (unsigned)c);
}

__device__ __forceinline__ float key_value(unsigned key) {
    const unsigned ord = key >> 16, b = ord & BF16_SIGN ? ord & ~BF16_SIGN : ~ord & KEY_COL_MASK;
    return __uint_as_float(b << 16);
}

__device__ __forceinline__ int key_col(unsigned key) { return (int)(KEY_COL_MASK - (key & KEY_COL_MASK)); }

/* The best of this thread's keys ranked after prev (smaller), 0 when none. */
template <int N>
__device__ __forceinline__ unsigned best_below(const unsigned (&keys)[N], unsigned prev) {
    unsigned best = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) best = max(best, keys[i] < prev ? keys[i] : 0u);
    return best;
}

/* Every thread gets the block's largest key; scratch is free again on return. */
__device__ __forceinline__ unsigned block_max_key(unsigned key, unsigned *scratch) {
    const int lane = threadIdx.x % kf::WARP, warp = threadIdx.x / kf::WARP, warps = blockDim.x / kf::WARP;
    key = __reduce_max_sync(kf::FULL_MASK, key);
    if (lane == 0) scratch[warp] = key;
    __syncthreads();
    key = __reduce_max_sync(kf::FULL_MASK, lane < warps ? scratch[lane] : 0u);
    __syncthreads();
    return key;
}

template <int THREADS, bool VEC_IO>
__global__ void __launch_bounds__(THREADS) topk_regs(const bf16 *x, float *vals, int *idx, int cols, int k) {
    constexpr int WARPS = THREADS / kf::WARP, VEC = kf::BF16_PER_VEC;
    __shared__ float scratch[kf::WARP];
    __shared__ unsigned key_scratch[kf::WARP];
    __shared__ unsigned cand[WARPS * MAX_WARP_K];
    const int lane = threadIdx.x % kf::WARP, warp = threadIdx.x / kf::WARP;
    kf::row_frag<bf16, THREADS, VPT> a;
    kf::load_row<VEC_IO>(a, x + (long long)blockIdx.x * cols, cols, -INFINITY);
    float mx = -INFINITY, sum = 0.0f;
    unsigned keys[VPT * VEC];
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
            const int c = kf::row_frag_col<THREADS, VEC, VEC_IO>(u, e);
            keys[VEC * u + e] = c < cols ? make_key(a.v[u][e], c) : 0u;
            mx = fmaxf(mx, a.v[u][e]);
        }
    kf::block_reduce<kf::op_max>(mx, mx, scratch);
#pragma unroll
    for (int u = 0; u < VPT; ++u)
#pragma unroll
        for (int e = 0; e < VEC; ++e) sum += expf(a.v[u][e] - mx);
    kf::block_reduce<kf::op_sum>(sum, sum, scratch);
    const float inv_sum = 1.0f / sum;
    const long long row_k = (long long)blockIdx.x * k;
    unsigned prev = ~0u;
    if (k > MAX_WARP_K) {
        for (int j = 0; j < k; ++j) {
            prev = block_max_key(best_below(keys, prev), key_scratch);
            if (threadIdx.x == 0) emit(vals, idx, row_k + j, key_value(prev), key_col(prev), mx, inv_sum);
        }
        return;
    }
    /* each warp's own top k (a warp with fewer entries lists 0s, which never win below) */
    for (int j = 0; j < k; ++j) {
        prev = __reduce_max_sync(kf::FULL_MASK, best_below(keys, prev));
        if (lane == 0) cand[warp * MAX_WARP_K + j] = prev;
    }
    __syncthreads();
    if (warp != 0) return;
    unsigned mine[WARPS * MAX_WARP_K / kf::WARP];
#pragma unroll
    for (int i = 0; i < WARPS * MAX_WARP_K / kf::WARP; ++i) {
        const int at = lane + i * kf::WARP;
        mine[i] = at % MAX_WARP_K < k ? cand[at] : 0u;
    }
    prev = ~0u;
    for (int j = 0; j < k; ++j) {
        prev = __reduce_max_sync(kf::FULL_MASK, best_below(mine, prev));
        if (lane == 0) emit(vals, idx, row_k + j, key_value(prev), key_col(prev), mx, inv_sum);
    }
}

__global__ void __launch_bounds__(STREAM_THREADS) topk_stream(const bf16 *x, float *vals, int *idx, int cols, int k) {
    __shared__ float scratch[kf::WARP];
    __shared__ kf::argmax_scratch arg_scratch;
    const bf16 *row = x + (long long)blockIdx.x * cols;
    float mx = -INFINITY, sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += STREAM_THREADS) mx = fmaxf(mx, __bfloat162float(row[c]));
    kf::block_reduce<kf::op_max>(mx, mx, scratch);
    for (int c = threadIdx.x; c < cols; c += STREAM_THREADS) sum += expf(__bfloat162float(row[c]) - mx);
    kf::block_reduce<kf::op_sum>(sum, sum, scratch);
    const float inv_sum = 1.0f / sum;
    float pv = INFINITY;
    int pc = -1;
    for (int j = 0; j < k; ++j) {
        float best_v = -INFINITY;
        int best_c = kf::ARGMAX_NONE;
        for (int c = threadIdx.x; c < cols; c += STREAM_THREADS)
            consider(__bfloat162float(row[c]), c, pv, pc, best_v, best_c);
        kf::block_argmax(pv, pc, best_v, best_c, arg_scratch);
        if (threadIdx.x == 0) emit(vals, idx, (long long)blockIdx.x * k + j, pv, pc, mx, inv_sum);
    }
}

template <int THREADS>
void launch_regs(bool vec, const bf16 *x, float *vals, int *idx, int rows, int cols, int k, cudaStream_t stream) {
    if (vec) topk_regs<THREADS, true><<<rows, THREADS, 0, stream>>>(x, vals, idx, cols, k);
    else topk_regs<THREADS, false><<<rows, THREADS, 0, stream>>>(x, vals, idx, cols, k);
}

} /* namespace */

extern "C" int kf_launch(const bf16 *x, float *vals, int *idx, int rows, int cols, int k, cudaStream_t stream) {
    if (kf::bad_shape(rows, cols, k) || k > cols) return (int)cudaErrorInvalidValue;
    if (rows == 0 || k == 0) return 0;
    const bool vec = kf::row_vec_ok<bf16>(x, cols);
    /* as few threads per row as hold it in VPT vectors each: several loads in flight per thread, cheap reductions */
    const int per_thread = VPT * kf::BF16_PER_VEC;
    if (cols <= 64 * per_thread) launch_regs<64>(vec, x, vals, idx, rows, cols, k, stream);
    else if (cols <= 128 * per_thread) launch_regs<128>(vec, x, vals, idx, rows, cols, k, stream);
    else if (cols <= 256 * per_thread) launch_regs<256>(vec, x, vals, idx, rows, cols, k, stream);
    else topk_stream<<<rows, STREAM_THREADS, 0, stream>>>(x, vals, idx, cols, k);
    return kf::launch_status();
}
