/* Reference kernel for argmax_rows: idx[r] = the first c with x[r, c] = max_c x[r, c], bf16 in, int32 out. One block
 * per row streams it once (tile/rows.cuh: 16-byte loads, the next ones in flight, when cols % 8 == 0 and x is
 * aligned). Each thread reduces a vector as a tree, then merges it into its best (value, column); tile/reduce_arg.cuh
 * merges the threads. Every merge prefers the smaller column on equal values, so ties resolve to the first index
 * whatever the order of the reduction. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/reduce_arg.cuh"
#include "tile/rows.cuh"

namespace {

typedef __nv_bfloat16 bf16;

constexpr int THREADS = 256;
constexpr int VEC = kf::BF16_PER_VEC;

template <bool VEC_IO>
__global__ void __launch_bounds__(THREADS) argmax_rows(const bf16 *__restrict__ x, int *__restrict__ idx, int cols) {
    __shared__ kf::argmax_scratch scratch;
    float best = -INFINITY;
    int at = kf::ARGMAX_NONE;
    const bf16 *row = x + (long long)blockIdx.x * cols;
    if (VEC_IO) {
        kf::row_for_each_vec<THREADS>(row, cols, (int)threadIdx.x, [&](const float (&v)[VEC], int c0) {
            float bv[VEC];
            int bi[VEC];
#pragma unroll
            for (int e = 0; e < VEC; ++e) { bv[e] = v[e]; bi[e] = c0 + e; }
#pragma unroll
            for (int w = VEC / 2; w > 0; w /= 2)
#pragma unroll
                for (int e = 0; e < w; ++e)
                    if (kf::argmax_better(bv[e + w], bi[e + w], bv[e], bi[e])) { bv[e] = bv[e + w]; bi[e] = bi[e + w]; }
            if (kf::argmax_better(bv[0], bi[0], best, at)) { best = bv[0]; at = bi[0]; }
        });
    } else {
        kf::row_for_each<THREADS, false>(row, cols, [&](float v, int c) {
            if (kf::argmax_better(v, c, best, at)) { best = v; at = c; }
        });
    }
    kf::block_argmax(best, at, best, at, scratch);
    if (threadIdx.x == 0) idx[blockIdx.x] = at;
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *x, int *idx, int rows, int cols, cudaStream_t stream) {
    if (kf::bad_shape(rows, cols)) return (int)cudaErrorInvalidValue;
    if (rows == 0) return 0;
    if (kf::row_vec_ok<bf16>(x, cols)) argmax_rows<true><<<rows, THREADS, 0, stream>>>(x, idx, cols);
    else argmax_rows<false><<<rows, THREADS, 0, stream>>>(x, idx, cols);
    return kf::launch_status();
}
