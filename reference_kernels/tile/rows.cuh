/* Row access for row-wise kernels over fp32 or bf16 rows, values widened to fp32:
 *  - row_for_each_vec<LANES>(row, cols, lane, f): LANES threads (a block, or a warp) stream a row once in 16-byte
 *    vectors, ROW_UNROLL per thread, the next ROW_UNROLL issued before f(values, first_col) runs on the current
 *    ones; needs cols % VEC == 0 and a 16-byte aligned row (row_vec_ok checks both);
 *  - row_for_each<THREADS, VEC_IO>(row, cols, f): one block per row, f(value, col) per element; vectors as above
 *    when VEC_IO, coalesced scalars otherwise;
 *  - row_frag<T, THREADS, VPT>: a row of up to THREADS * VPT * VEC elements held in registers between passes,
 *    with load_row / store_row (missing columns filled with a caller's value), row_frag_col, and load_slot for
 *    one slot's worth of a per-column vector (a norm's gamma) in the same layout;
 *  - launch_row_cached<T, SMALL_VPT_MAX, LARGE_VPT>(cols, vec_io, launch): the smallest row_frag shape that holds a
 *    row, for a block-per-row kernel that keeps its row in registers. */
#pragma once
#include <type_traits>
#include "common.cuh"
#include "vec.cuh"

namespace kf {

constexpr int ROW_UNROLL = 4;

template <class T> struct elems_per_vec { static constexpr int value = VEC_BYTES / (int)sizeof(T); };

__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ void from_f32(float &dst, float v) { dst = v; }
__device__ __forceinline__ void from_f32(__nv_bfloat16 &dst, float v) { dst = __float2bfloat16_rn(v); }

template <class T> inline bool row_vec_ok(const void *p, long long cols) {
    return cols % elems_per_vec<T>::value == 0 && is_aligned(p, VEC_BYTES);
}

__device__ __forceinline__ void widen(float (&dst)[F32_PER_VEC], uint4 raw) {
    dst[0] = __uint_as_float(raw.x); dst[1] = __uint_as_float(raw.y);
    dst[2] = __uint_as_float(raw.z); dst[3] = __uint_as_float(raw.w);
}

__device__ __forceinline__ void widen(float (&dst)[BF16_PER_VEC], uint4 raw) {
    const __nv_bfloat162 *pairs = reinterpret_cast<const __nv_bfloat162 *>(&raw);
#pragma unroll
    for (int i = 0; i < BF16_PER_VEC / 2; ++i) {
        const float2 f = __bfloat1622float2(pairs[i]);
        dst[2 * i] = f.x;
        dst[2 * i + 1] = f.y;
    }
}

template <int LANES, class T, class F>
__device__ __forceinline__ void row_for_each_vec(const T *__restrict__ row, int cols, int lane, F &&f) {
    constexpr int VEC = elems_per_vec<T>::value, STEP = LANES * ROW_UNROLL;
    const int vectors = cols / VEC;
    const uint4 *src = reinterpret_cast<const uint4 *>(row);
    uint4 cur[ROW_UNROLL], next[ROW_UNROLL];
#pragma unroll
    for (int u = 0; u < ROW_UNROLL; ++u)
        if (lane + u * LANES < vectors) cur[u] = __ldg(src + lane + u * LANES);
    for (int base = lane; base < vectors; base += STEP) {
#pragma unroll
        for (int u = 0; u < ROW_UNROLL; ++u)
            if (base + STEP + u * LANES < vectors) next[u] = __ldg(src + base + STEP + u * LANES);
#pragma unroll
        for (int u = 0; u < ROW_UNROLL; ++u)
            if (base + u * LANES < vectors) {
                float v[VEC];
                widen(v, cur[u]);
                f(v, (base + u * LANES) * VEC);
            }
#pragma unroll
        for (int u = 0; u < ROW_UNROLL; ++u) cur[u] = next[u];
    }
}

template <int THREADS, bool VEC_IO, class T, class F>
__device__ __forceinline__ void row_for_each(const T *__restrict__ row, int cols, F &&f) {
    constexpr int VEC = elems_per_vec<T>::value;
    if (VEC_IO) {
        row_for_each_vec<THREADS>(row, cols, (int)threadIdx.x, [&](const float (&v)[VEC], int c0) {
#pragma unroll
            for (int e = 0; e < VEC; ++e) f(v[e], c0 + e);
        });
    } else {
        for (int base = threadIdx.x; base < cols; base += THREADS * ROW_UNROLL) {
            float v[ROW_UNROLL];
#pragma unroll
            for (int u = 0; u < ROW_UNROLL; ++u)
                if (base + u * THREADS < cols) v[u] = to_f32(row[base + u * THREADS]);
#pragma unroll
            for (int u = 0; u < ROW_UNROLL; ++u)
                if (base + u * THREADS < cols) f(v[u], base + u * THREADS);
        }
    }
}

template <class T, int THREADS, int VPT> struct row_frag {
    static constexpr int VEC = elems_per_vec<T>::value;
    static constexpr int MAX_COLS = THREADS * VPT * VEC;
    float v[VPT][VEC];
};

/* Column of element e in slot u: whole vectors per thread when VEC_IO, else a strided layout; both coalesced. */
template <int THREADS, int VEC, bool VEC_IO>
__device__ __forceinline__ int row_frag_col(int u, int e) {
    return VEC_IO ? (u * THREADS + (int)threadIdx.x) * VEC + e : (u * VEC + e) * THREADS + (int)threadIdx.x;
}

template <bool VEC_IO, class T, int THREADS, int VPT>
__device__ __forceinline__ void load_row(row_frag<T, THREADS, VPT> &dst, const T *__restrict__ row, int cols,
                                         float fill) {
    constexpr int VEC = row_frag<T, THREADS, VPT>::VEC;
#pragma unroll
    for (int u = 0; u < VPT; ++u) {
        if (VEC_IO && row_frag_col<THREADS, VEC, true>(u, 0) < cols) {
            load(dst.v[u], row + row_frag_col<THREADS, VEC, true>(u, 0));
        } else {
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                const int c = row_frag_col<THREADS, VEC, VEC_IO>(u, e);
                dst.v[u][e] = !VEC_IO && c < cols ? to_f32(row[c]) : fill;
            }
        }
    }
}

template <bool VEC_IO, class T, int THREADS, int VPT>
__device__ __forceinline__ void store_row(T *__restrict__ row, const row_frag<T, THREADS, VPT> &src, int cols) {
    constexpr int VEC = row_frag<T, THREADS, VPT>::VEC;
#pragma unroll
    for (int u = 0; u < VPT; ++u) {
        if (VEC_IO) {
            const int c0 = row_frag_col<THREADS, VEC, true>(u, 0);
            if (c0 < cols) store(row + c0, src.v[u]);
        } else {
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                const int c = row_frag_col<THREADS, VEC, false>(u, e);
                if (c < cols) from_f32(row[c], src.v[u][e]);
            }
        }
    }
}

/* Slot u's VEC elements of a per-column vector (a norm's gamma or beta) in row_frag's layout, 0 past cols. */
template <bool VEC_IO, int THREADS, int VEC, class T>
__device__ __forceinline__ void load_slot(float (&dst)[VEC], const T *__restrict__ vec, int u, int cols) {
    if (VEC_IO && row_frag_col<THREADS, VEC, true>(u, 0) < cols) {
        load(dst, vec + row_frag_col<THREADS, VEC, true>(u, 0));
    } else {
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
            const int c = row_frag_col<THREADS, VEC, VEC_IO>(u, e);
            dst[e] = !VEC_IO && c < cols ? to_f32(vec[c]) : 0.0f;
        }
    }
}

/* The shapes a cached row kernel launches at, smallest first: ROW_SMALL_THREADS threads holding 1, 2, 4 ...
 * SMALL_VPT_MAX vectors each (small rows keep many blocks per SM), then ROW_LARGE_THREADS threads holding LARGE_VPT. */
constexpr int ROW_SMALL_THREADS = 256, ROW_LARGE_THREADS = 1024;

template <int N> using int_c = std::integral_constant<int, N>;

template <int THREADS, int VPT, class L> inline void launch_row_shape(bool vec_io, L &launch) {
    if (vec_io) launch(int_c<THREADS>{}, int_c<VPT>{}, std::true_type{});
    else launch(int_c<THREADS>{}, int_c<VPT>{}, std::false_type{});
}

template <class T, int SMALL_VPT_MAX, int LARGE_VPT, int VPT, class L>
inline bool launch_row_cached_from(int cols, bool vec_io, L &launch) {
    constexpr int VEC = elems_per_vec<T>::value;
    if constexpr (VPT <= SMALL_VPT_MAX) {
        if (cols > ROW_SMALL_THREADS * VPT * VEC)
            return launch_row_cached_from<T, SMALL_VPT_MAX, LARGE_VPT, 2 * VPT>(cols, vec_io, launch);
        launch_row_shape<ROW_SMALL_THREADS, VPT>(vec_io, launch);
    } else {
        if (cols > ROW_LARGE_THREADS * LARGE_VPT * VEC) return false;
        launch_row_shape<ROW_LARGE_THREADS, LARGE_VPT>(vec_io, launch);
    }
    return true;
}

/* Calls launch(threads, vpt, vec_io) with the smallest shape whose row_frag<T, threads, vpt> holds cols columns, the
 * three as integral constants (decltype(x)::value) so launch can instantiate its kernel; false when the row is longer
 * than the largest shape (the caller streams it). */
template <class T, int SMALL_VPT_MAX, int LARGE_VPT, class L>
inline bool launch_row_cached(int cols, bool vec_io, L &&launch) {
    return launch_row_cached_from<T, SMALL_VPT_MAX, LARGE_VPT, 1>(cols, vec_io, launch);
}

} /* namespace kf */
