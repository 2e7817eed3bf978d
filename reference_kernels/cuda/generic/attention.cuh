/* Generic op library (see ops.cuh): scaled-dot-product attention, one warp per (batch, head, query row). Each lane
 * holds D / 32 of the query and Dv / 32 of the output; per key, a warp sum gives the score and an online softmax
 * (running max and sum, fp32) rescales the output. Keys come from a dense [B, HKV, Skv, D] tensor or from pages. */
#pragma once
#include "cuda/generic/elem.cuh"
#include "cuda/generic/reduce.cuh"

namespace kfg {

constexpr int ATTN_MAX_D = 512;                  /* head dimensions up to this */
constexpr int ATTN_PER_LANE = ATTN_MAX_D / WARP;
constexpr int ATTN_WARPS = 4;

struct attn_desc {
    int B = 0, H = 0, HKV = 0, Sq = 0, Skv = 0, D = 0, Dv = 0;   /* HKV 0: H; Dv 0: D */
    float scale = 1.0f;
    bool causal = false;
};

/* Row of key j for (b, kv head hk), in elements: dense layout. */
struct dense_rows {
    long long HKV, Skv;
    __device__ long long row(long long b, long long hk, long long j) const { return (b * HKV + hk) * Skv + j; }
    __device__ long long len(long long) const { return Skv; }
};

/* Pages [P, page_size, HKV, D]; page_table [B, pages_per_seq]; seq_lens [B] or null (every sequence Skv long). */
struct paged_rows {
    const int *page_table, *seq_lens;
    long long HKV, Skv, page_size, pages_per_seq;
    __device__ long long row(long long b, long long hk, long long j) const {
        const long long page = page_table[b * pages_per_seq + j / page_size];
        return (page * page_size + j % page_size) * HKV + hk;
    }
    __device__ long long len(long long b) const { return seq_lens ? seq_lens[b] : Skv; }
};

template <class TO, class TQ, class TK, class TV, class Rows>
__global__ void __launch_bounds__(ATTN_WARPS * WARP)
attention_kernel(TO *O, const TQ *Q, const TK *K, const TV *V, attn_desc d, Rows rows) {
    const int lane = threadIdx.x % WARP;
    const long long total = (long long)d.B * d.H * d.Sq;
    const long long warps = (long long)gridDim.x * ATTN_WARPS;
    for (long long q = blockIdx.x * (long long)ATTN_WARPS + threadIdx.x / WARP; q < total; q += warps) {
        const long long i = q % d.Sq, h = q / d.Sq % d.H, b = q / ((long long)d.Sq * d.H);
        const long long hk = h / (d.H / d.HKV), skv = rows.len(b);
        float qv[ATTN_PER_LANE], acc[ATTN_PER_LANE];
#pragma unroll
        for (int u = 0; u < ATTN_PER_LANE; ++u) {
            const int c = lane + u * WARP;
            qv[u] = c < d.D ? ld(Q, q * d.D + c) * d.scale : 0.0f;
            acc[u] = 0.0f;
        }
        /* causal: the last query row sees every key, so row i sees keys j <= i + skv - Sq */
        const long long last = d.causal ? i + skv - d.Sq : skv - 1;
        float m = -INFINITY, sum = 0.0f;
        for (long long j = 0; j <= last && j < skv; ++j) {
            const long long r = rows.row(b, hk, j);
            float part = 0.0f;
#pragma unroll
            for (int u = 0; u < ATTN_PER_LANE; ++u) {
                const int c = lane + u * WARP;
                if (c < d.D) part = fmaf(qv[u], ld(K, r * d.D + c), part);
            }
#pragma unroll
            for (int off = WARP / 2; off > 0; off /= 2) part += __shfl_xor_sync(FULL, part, off);
            const float m_new = fmaxf(m, part), keep = expf(m - m_new), p = expf(part - m_new);
            sum = sum * keep + p;
#pragma unroll
            for (int u = 0; u < ATTN_PER_LANE; ++u) {
                const int c = lane + u * WARP;
                if (c < d.Dv) acc[u] = fmaf(p, ld(V, r * d.Dv + c), acc[u] * keep);
            }
            m = m_new;
        }
        const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
#pragma unroll
        for (int u = 0; u < ATTN_PER_LANE; ++u) {
            const int c = lane + u * WARP;
            if (c < d.Dv) st(O, q * d.Dv + c, acc[u] * inv);
        }
    }
}

inline bool attn_normalize(attn_desc &d) {
    if (!d.HKV) d.HKV = d.H;
    if (!d.Dv) d.Dv = d.D;
    return d.B >= 0 && d.H >= 0 && d.HKV > 0 && d.Sq >= 0 && d.Skv >= 0 && d.D > 0 && d.D <= ATTN_MAX_D &&
           d.Dv > 0 && d.Dv <= ATTN_MAX_D && d.H % d.HKV == 0;
}

template <class TO, class TQ, class TK, class TV, class Rows>
inline int attention_rows(TO *O, const TQ *Q, const TK *K, const TV *V, attn_desc d, Rows rows, cudaStream_t s) {
    const long long total = (long long)d.B * d.H * d.Sq;
    if (total == 0) return 0;
    const long long blocks = (total + ATTN_WARPS - 1) / ATTN_WARPS;
    attention_kernel<<<(unsigned)(blocks < MAX_GRID ? blocks : MAX_GRID), ATTN_WARPS * WARP, 0, s>>>(O, Q, K, V, d,
                                                                                                    rows);
    return status();
}

/* Q, O [B, H, Sq, D (Dv)]; K, V [B, HKV, Skv, D (Dv)]. */
template <class TO, class TQ, class TK, class TV>
inline int attention(TO *O, const TQ *Q, const TK *K, const TV *V, attn_desc d, cudaStream_t s) {
    if (!attn_normalize(d)) return BAD;
    return attention_rows(O, Q, K, V, d, dense_rows{ d.HKV, d.Skv }, s);
}

/* K, V pages [P, page_size, HKV, D (Dv)]; page_table [B, pages_per_seq]; seq_lens [B] or null (Skv each). */
template <class TO, class TQ, class TK, class TV>
inline int attention_paged(TO *O, const TQ *Q, const TK *K, const TV *V, const int *page_table, const int *seq_lens,
                           attn_desc d, long long page_size, long long pages_per_seq, cudaStream_t s) {
    if (!attn_normalize(d) || page_size < 1 || pages_per_seq < 0) return BAD;
    return attention_rows(O, Q, K, V, d, paged_rows{ page_table, seq_lens, d.HKV, d.Skv, page_size, pages_per_seq }, s);
}

} /* namespace kfg */
