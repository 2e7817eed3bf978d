/* Reference kernel for cumsum_reverse_f32: generic (reference_kernels/cuda/generic), the inclusive sum scan from
 * the end of each row, fp32 arithmetic. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, float *y, int rows, int cols, cudaStream_t stream) {
    return kfg::scan(y, x, (const bool *)nullptr, rows, cols, 1, kfg::scan_opts{kfg::SCAN_SUM, false, true}, stream);
}
