/* Reference kernel for index_select_rows: generic (cuda/generic gather_rows, one thread per output element). */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, const int *perm, float *y, int N, int D, cudaStream_t stream) {
    return kfg::gather_rows(y, x, perm, N, D, stream);
}
