/* Reference kernel for diag_matmul_f32: generic (reference_kernels/cuda/generic), the library's per-channel map
 * C[i, j] = B[i, j] * diag[i] (outer 1, axis N, inner M), one thread per element. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *diag, const float *B, float *C, int N, int M, cudaStream_t stream) {
    return kfg::map_channel(C, B, diag, 1, N, M, kfg::bin::mul{}, stream);
}
