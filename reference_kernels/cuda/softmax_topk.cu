/* Reference kernel for softmax_topk: per row of x (bf16 [rows, cols]) the k entries of softmax(x) ranked first (larger
 * x, then smaller column) as f32 probabilities and i32 columns; an entry ranks by one 32-bit key. Fast path (k <= 32,
 * cols <= 4096, 16-byte rows): a persistent grid of warps, a row per warp in registers, the next row already on its
 * way into shared memory (bulk copy); the k-th largest lane maximum bounds the top k from below, so only the few
 * entries at or above it are gathered and ranked by counting. Other rows: a block per row (rows up to 8192 in
 * registers), longer rows re-read memory each round (tile/reduce_arg.cuh). */
#include "tile/reduce.cuh"
#include "tile/reduce_arg.cuh"
#include "tile/rows.cuh"
#include "tile/tma.cuh"
#include <algorithm>

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

/* ---- fast path: one warp per row, the warp's next row already on its way into shared memory ---- */
constexpr int ROW_WARPS = 16;                            /* warps per block, each streaming its own rows */
constexpr int CAND_CAP = 2 * kf::WARP;                   /* gathered candidates a warp ranks, two per lane */
constexpr int MAX_CHUNKS = 16;                           /* 16-byte vectors per lane: rows up to 4096 columns */
constexpr unsigned BF16_NEG_INF_PAIR = 0xff80ff80u;      /* what a lane holds past the row's end */
constexpr unsigned BF16_HIGH = 0xffff0000u;

__device__ __forceinline__ float bf16_lo(unsigned pair) { return __uint_as_float(pair << 16); }
__device__ __forceinline__ float bf16_hi(unsigned pair) { return __uint_as_float(pair & BF16_HIGH); }

/* Element e (< 8) of a 16-byte vector of bf16, widened. */
__device__ __forceinline__ float vec_elem(const uint4 &v, int e) {
    const unsigned w = e < 2 ? v.x : e < 4 ? v.y : e < 6 ? v.z : v.w;
    return e % 2 ? bf16_hi(w) : bf16_lo(w);
}

__device__ __forceinline__ __nv_bfloat162 as_bf162(unsigned w) { return *reinterpret_cast<__nv_bfloat162 *>(&w); }

/* The larger of each half over the vector's four pairs: its maximum is one of the two. */
__device__ __forceinline__ __nv_bfloat162 vec_max2(const uint4 &v) {
    return __hmax2(__hmax2(as_bf162(v.x), as_bf162(v.y)), __hmax2(as_bf162(v.z), as_bf162(v.w)));
}

/* Order-preserving key of a value alone (column bits 0), for ranking lane maxima. */
__device__ __forceinline__ unsigned value_key(float v) { return make_key(v, (int)KEY_COL_MASK); }

/* Output `at` of a row: the probability of the key's entry, exp(v - max) / sum, and its column. */
__device__ __forceinline__ void emit_key(float *out_v, int *out_i, int at, unsigned key, float m_log2, float inv_sum) {
    out_v[at] = kf::exp2_fast(fmaf(key_value(key), kf::LOG2E, -m_log2)) * inv_sum;
    out_i[at] = key_col(key);
}

/* Appends the entries of vector j of this lane (q) that are at least floor_v to the warp's list. */
__device__ __forceinline__ void gather(const uint4 &q, int j, float floor_v, unsigned *cand, int *n_cand) {
    if (j < 0) return;
    const int c0 = (j * kf::WARP + (int)(threadIdx.x % kf::WARP)) * kf::BF16_PER_VEC;
#pragma unroll
    for (int e = 0; e < kf::BF16_PER_VEC; ++e) {
        const float val = vec_elem(q, e);
        if (val >= floor_v) {
            const int at = atomicAdd(n_cand, 1);
            if (at < CAND_CAP) cand[at] = make_key(val, c0 + e);
        }
    }
}

/* Vector j of this lane's part of the row, or none (j < 0): a re-read that the L2 cache still holds. */
__device__ __forceinline__ uint4 reread(const uint4 *lane_row, int j) {
    return j < 0 ? make_uint4(0u, 0u, 0u, 0u) : __ldg(lane_row + j * kf::WARP);
}

/* The next vector index set in mask (removed from it), or -1. */
__device__ __forceinline__ int take_bit(unsigned &mask) {
    const int j = __ffs(mask) - 1;
    mask &= mask - 1;
    return j;
}

/* One row (xr), held by the warp in v; valid: this lane's vectors inside the row; cand and n_cand: the warp's
 * list in shared memory. */
template <int CHUNKS>
__device__ __forceinline__ void topk_row(const uint4 (&v)[CHUNKS], unsigned valid, const bf16 *xr, float *out_v,
                                         int *out_i, int cols, int k, unsigned *cand, int *n_cand) {
    const int lane = threadIdx.x % kf::WARP;
    __nv_bfloat162 chunk_max[CHUNKS], lane_max2;
#pragma unroll
    for (int j = 0; j < CHUNKS; ++j) {
        chunk_max[j] = vec_max2(v[j]);
        lane_max2 = j ? __hmax2(lane_max2, chunk_max[j]) : chunk_max[j];
    }
    /* lane maxima made distinct by the lane number, so that each has one rank */
    const unsigned mine = value_key(fmaxf(__low2float(lane_max2), __high2float(lane_max2))) | (unsigned)lane;
    const float mx = key_value(__reduce_max_sync(kf::FULL_MASK, mine));
    const float m_log2 = mx * kf::LOG2E;

    /* every top-k entry is at least the k-th largest lane maximum (k lanes hold one that large) */
    unsigned rest = mine, tau = 0;
    for (int r = 0; r < k; ++r) {
        tau = __reduce_max_sync(kf::FULL_MASK, rest);
        if (rest == tau) rest = 0;
    }
    const float floor_v = key_value(tau);
    const __nv_bfloat162 floor2 = __float2bfloat162_rn(floor_v);   /* exact: floor_v is a bf16 value */
    unsigned flagged = 0;                                /* this lane's vectors holding an entry >= floor_v */
#pragma unroll
    for (int j = 0; j < CHUNKS; ++j)
        if (!__hblt2(chunk_max[j], floor2)) flagged |= 1u << j;
    flagged &= valid;
    /* most lanes flag none, a few one or two: those two are re-read now and gathered after the sum below */
    const uint4 *lane_row = reinterpret_cast<const uint4 *>(xr) + lane;
    const int j1 = take_bit(flagged), j2 = take_bit(flagged);
    const uint4 q1 = reread(lane_row, j1), q2 = reread(lane_row, j2);
    if (lane == 0) *n_cand = 0;                          /* the last row's count was read before this row's sync */

    /* widened again here rather than kept from above: 128 live floats would cost the occupancy */
    float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int j = 0; j < CHUNKS; ++j) {
        const unsigned w[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            part[q] += kf::exp2_fast(fmaf(bf16_lo(w[q]), kf::LOG2E, -m_log2));
            part[q] += kf::exp2_fast(fmaf(bf16_hi(w[q]), kf::LOG2E, -m_log2));
        }
    }
    float sum = (part[0] + part[1]) + (part[2] + part[3]);
    kf::warp_reduce<kf::op_sum>(sum, sum);
    const float inv_sum = __frcp_rn(sum);

    __syncwarp();                                        /* the list starts empty */
    gather(q1, j1, floor_v, cand, n_cand);
    gather(q2, j2, floor_v, cand, n_cand);
    for (int j = take_bit(flagged); j >= 0; j = take_bit(flagged))
        gather(reread(lane_row, j), j, floor_v, cand, n_cand);
    __syncwarp();
    const int total = *n_cand;
    if (total <= CAND_CAP) {                             /* keys are distinct: a candidate's rank is how many beat it */
        const unsigned c0 = lane < total ? cand[lane] : 0u;
        const unsigned c1 = lane + kf::WARP < total ? cand[lane + kf::WARP] : 0u;
        int r0 = 0, r1 = 0;
        for (int j = 0; j < total; ++j) {
            const unsigned c = cand[j];
            r0 += c > c0;
            r1 += c > c1;
        }
        if (c0 && r0 < k) emit_key(out_v, out_i, r0, c0, m_log2, inv_sum);
        if (c1 && r1 < k) emit_key(out_v, out_i, r1, c1, m_log2, inv_sum);
        return;
    }
    unsigned prev = ~0u;                                 /* heavy ties: rank every entry, re-read from cache */
    for (int r = 0; r < k; ++r) {
        unsigned best = 0;
        for (int c = lane; c < cols; c += kf::WARP) {
            const unsigned key = make_key(__bfloat162float(xr[c]), c);
            best = max(best, key < prev ? key : 0u);
        }
        prev = __reduce_max_sync(kf::FULL_MASK, best);
        if (lane == 0) emit_key(out_v, out_i, r, prev, m_log2, inv_sum);
    }
}

/* dst (shared, 16-byte aligned) <- bytes (a multiple of 16) from src (global, 16-byte aligned); completes on bar. */
__device__ __forceinline__ void bulk_load(void *dst, const void *src, unsigned bytes, uint64_t *bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
                 ::"r"(kf::smem_addr(dst)), "l"(src), "r"(bytes), "r"(kf::smem_addr(bar)) : "memory");
}

template <int CHUNKS> constexpr int row_smem_bytes() { return ROW_WARPS * CHUNKS * kf::WARP * kf::VEC_BYTES; }

/* A persistent grid: warp w of the grid ranks rows w, w + W, w + 2W, ... (W warps in all). As soon as its lanes
 * hold a row, one bulk copy brings the next into the warp's shared buffer, so the loads in flight do not wait for
 * the ranking. The buffer's tail past a short row stays -inf from the start. */
template <int CHUNKS>
__global__ void __launch_bounds__(ROW_WARPS * kf::WARP, 1)
topk_warp(const bf16 *x, float *vals, int *idx, int rows, int cols, int k) {
    constexpr int BUF = CHUNKS * kf::WARP;               /* 16-byte vectors per row buffer */
    extern __shared__ __align__(kf::VEC_BYTES) uint4 rowbuf[];
    __shared__ uint64_t full[ROW_WARPS];
    __shared__ unsigned cand[ROW_WARPS][CAND_CAP];
    __shared__ int n_cand[ROW_WARPS];
    const int warp = threadIdx.x / kf::WARP, lane = threadIdx.x % kf::WARP;
    const long long stride = (long long)gridDim.x * ROW_WARPS;
    const unsigned row_bytes = (unsigned)cols * sizeof(bf16);
    const int vecs = cols / kf::BF16_PER_VEC;
    uint4 *buf = rowbuf + warp * BUF;
    unsigned valid = 0;
#pragma unroll
    for (int j = 0; j < CHUNKS; ++j) {
        const int at = j * kf::WARP + lane;
        if (at < vecs) valid |= 1u << j;
        else buf[at] = make_uint4(BF16_NEG_INF_PAIR, BF16_NEG_INF_PAIR, BF16_NEG_INF_PAIR, BF16_NEG_INF_PAIR);
    }
    long long row = (long long)blockIdx.x * ROW_WARPS + warp;
    if (lane == 0) {
        kf::mbar_init(&full[warp], 1);
        kf::mbar_init_fence();
        if (row < rows) {
            kf::mbar_arrive_expect_bytes(&full[warp], row_bytes);
            bulk_load(buf, x + row * cols, row_bytes, &full[warp]);
        }
    }
    __syncwarp();
    for (int phase = 0; row < rows; phase ^= 1, row += stride) {
        kf::mbar_wait(&full[warp], phase);
        uint4 v[CHUNKS];
#pragma unroll
        for (int j = 0; j < CHUNKS; ++j) v[j] = buf[j * kf::WARP + lane];
        __syncwarp();                                    /* every lane has its part: the buffer takes the next row */
        if (lane == 0 && row + stride < rows) {
            kf::fence_proxy_async();
            kf::mbar_arrive_expect_bytes(&full[warp], row_bytes);
            bulk_load(buf, x + (row + stride) * cols, row_bytes, &full[warp]);
        }
        topk_row(v, valid, x + row * cols, vals + row * k, idx + row * k, cols, k, cand[warp], &n_cand[warp]);
    }
}

template <int CHUNKS> int launch_warp(const bf16 *x, float *vals, int *idx, int rows, int cols, int k,
                                      cudaStream_t stream) {
    constexpr int SMEM = row_smem_bytes<CHUNKS>();
    int dev = 0, sms = 0, per_sm = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(topk_warp<CHUNKS>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, topk_warp<CHUNKS>, ROW_WARPS * kf::WARP, SMEM);
    if (e != cudaSuccess) return (int)e;
    const long long blocks = std::min<long long>(kf::ceil_div(rows, ROW_WARPS), (long long)sms * std::max(per_sm, 1));
    topk_warp<CHUNKS><<<(unsigned)blocks, ROW_WARPS * kf::WARP, SMEM, stream>>>(x, vals, idx, rows, cols, k);
    return kf::launch_status();
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
    constexpr int WARP_COLS = kf::WARP * kf::BF16_PER_VEC;   /* columns per 16-byte vector of every lane */
    if (vec && k <= kf::WARP && cols <= MAX_CHUNKS * WARP_COLS) {
        if (cols <= MAX_CHUNKS / 4 * WARP_COLS) return launch_warp<MAX_CHUNKS / 4>(x, vals, idx, rows, cols, k, stream);
        if (cols <= MAX_CHUNKS / 2 * WARP_COLS) return launch_warp<MAX_CHUNKS / 2>(x, vals, idx, rows, cols, k, stream);
        return launch_warp<MAX_CHUNKS>(x, vals, idx, rows, cols, k, stream);
    }
    /* as few threads per row as hold it in VPT vectors each: several loads in flight per thread, cheap reductions */
    const int per_thread = VPT * kf::BF16_PER_VEC;
    if (cols <= 64 * per_thread) launch_regs<64>(vec, x, vals, idx, rows, cols, k, stream);
    else if (cols <= 128 * per_thread) launch_regs<128>(vec, x, vals, idx, rows, cols, k, stream);
    else if (cols <= 256 * per_thread) launch_regs<256>(vec, x, vals, idx, rows, cols, k, stream);
    else topk_stream<<<rows, STREAM_THREADS, 0, stream>>>(x, vals, idx, cols, k);
    return kf::launch_status();
}
