/* Reference kernel for l2_norm_rows_bf16: generic (reference_kernels/cuda/generic), each row's L2 norm into the
 * workspace (one float per row), then the per-row division as a per-channel map over [1, rows, cols], bf16 out. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *y, int rows, int cols, void *workspace,
                         cudaStream_t stream) {
    float *norms = static_cast<float *>(workspace);
    int rc = kfg::reduce(norms, x, rows, cols, 1, kfg::L2, stream);
    if (rc == 0) rc = kfg::map_channel(y, x, norms, 1, rows, cols, kfg::bin::div{}, stream);
    return rc;
}
