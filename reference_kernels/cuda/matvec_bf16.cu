/* Reference kernel for matvec_bf16: y[M] = A[M,K] @ x[K], bf16 in, fp32 accumulation and output. One warp per row
 * streams it with tile/rows.cuh (16-byte loads of A, the next ones in flight while the current ones meet x, which
 * comes from L1/L2, reused by every warp), then a warp sum. Registers capped so MIN_BLOCKS blocks share an SM and
 * the rows run in few waves. Element loads when K % 8 != 0 or a pointer is not 16-byte aligned. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/reduce.cuh"
#include "tile/rows.cuh"
#include "tile/vec.cuh"

namespace {

typedef __nv_bfloat16 bf16;

constexpr int THREADS = 256, MIN_BLOCKS = 4, ROWS_PER_BLOCK = THREADS / kf::WARP;
constexpr int VEC = kf::BF16_PER_VEC;

template <bool VEC_IO>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
matvec(const bf16 *__restrict__ A, const bf16 *__restrict__ x, float *__restrict__ y, int M, int K) {
    const long long row = (long long)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / kf::WARP;
    const int lane = threadIdx.x % kf::WARP;
    if (row >= M) return;
    const bf16 *a = A + row * K;
    float acc = 0.0f;
    if (VEC_IO) {
        kf::row_for_each_vec<kf::WARP>(a, K, lane, [&](const float (&v)[VEC], int k0) {
            float xv[VEC];
            kf::load(xv, x + k0);
#pragma unroll
            for (int e = 0; e < VEC; ++e) acc = fmaf(v[e], xv[e], acc);
        });
    } else {
        for (int k = lane; k < K; k += kf::WARP) acc = fmaf(__bfloat162float(a[k]), __bfloat162float(x[k]), acc);
    }
    kf::warp_reduce<kf::op_sum>(acc, acc);
    if (lane == 0) y[row] = acc;
}

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *x, float *y, int M, int K, cudaStream_t stream) {
    if (kf::bad_shape(M, K)) return (int)cudaErrorInvalidValue;
    if (M == 0) return 0;
    const unsigned blocks = (unsigned)kf::ceil_div(M, ROWS_PER_BLOCK);
    if (kf::row_vec_ok<bf16>(A, K) && kf::is_aligned(x, kf::VEC_BYTES))
        matvec<true><<<blocks, THREADS, 0, stream>>>(A, x, y, M, K);
    else
        matvec<false><<<blocks, THREADS, 0, stream>>>(A, x, y, M, K);
    return kf::launch_status();
}
