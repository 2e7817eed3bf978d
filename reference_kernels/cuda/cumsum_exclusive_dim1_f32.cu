/* Reference kernel for cumsum_exclusive_dim1_f32: generic (reference_kernels/cuda/generic), the exclusive sum scan
 * over axis 1 of [B, N, M], fp32 arithmetic. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, float *y, int B, int N, int M, cudaStream_t stream) {
    return kfg::scan(y, x, (const bool *)nullptr, B, N, M, kfg::scan_opts{kfg::SCAN_SUM, true, false}, stream);
}
