/* Reference kernel for transpose_f32: out[c, r] = x[r, c] for a row-major [rows, cols] fp32 matrix (exact).
 * 64x64 tiles through shared memory padded by one word, so both the row-wise write and the column-wise read are
 * conflict-free; every global access is a warp-wide 128-byte row segment. Edge tiles check bounds, full tiles
 * do not. The tile grid is one-dimensional, so any rows x cols fits. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"

namespace {

constexpr int TILE_DIM = 64;
constexpr int THREADS_X = kf::WARP, THREADS_Y = 8;           /* a warp per tile row, 8 rows at a time */
constexpr int ROWS_PER_THREAD = TILE_DIM / THREADS_Y;
constexpr int COLS_PER_THREAD = TILE_DIM / THREADS_X;

__global__ void __launch_bounds__(THREADS_X * THREADS_Y)
transpose(const float *__restrict__ x, float *__restrict__ out, int rows, int cols, int tiles_c) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    const long long r0 = (long long)(blockIdx.x / tiles_c) * TILE_DIM;
    const long long c0 = (long long)(blockIdx.x % tiles_c) * TILE_DIM;
    const bool full = r0 + TILE_DIM <= rows && c0 + TILE_DIM <= cols;
#pragma unroll
    for (int i = 0; i < ROWS_PER_THREAD; ++i)
#pragma unroll
        for (int j = 0; j < COLS_PER_THREAD; ++j) {
            const int tr = threadIdx.y + i * THREADS_Y, tc = threadIdx.x + j * THREADS_X;
            if (full || (r0 + tr < rows && c0 + tc < cols)) tile[tr][tc] = x[(r0 + tr) * cols + c0 + tc];
        }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ROWS_PER_THREAD; ++i)
#pragma unroll
        for (int j = 0; j < COLS_PER_THREAD; ++j) {
            const int tc = threadIdx.y + i * THREADS_Y, tr = threadIdx.x + j * THREADS_X;   /* out row tc, col tr */
            if (full || (c0 + tc < cols && r0 + tr < rows)) out[(c0 + tc) * rows + r0 + tr] = tile[tr][tc];
        }
}

} /* namespace */

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
    if (kf::bad_shape(rows, cols)) return (int)cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return 0;
    const int tiles_c = (int)kf::ceil_div(cols, TILE_DIM);
    const unsigned tiles = (unsigned)(kf::ceil_div(rows, TILE_DIM) * tiles_c);
    transpose<<<tiles, dim3(THREADS_X, THREADS_Y), 0, stream>>>(x, out, rows, cols, tiles_c);
    return kf::launch_status();
}
