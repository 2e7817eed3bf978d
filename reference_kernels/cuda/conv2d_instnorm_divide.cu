/* Reference kernel for conv2d_instnorm_divide: generic (reference_kernels/cuda/generic): the convolution into y, then
 * instance norm in place (group norm, one channel a group) and the division as a map. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, const float *w, const float *cb, float *y, int N, int C, int H, int W, int O,
                         float eps, float divisor, cudaStream_t stream) {
    const long long in[2] = {H, W}, plane = (long long)(H - 2) * (W - 2);
    int rc = kfg::conv(y, x, w, cb, N, C, O, 1, kfg::make_window(2, in, 3, 1, 0), kfg::no_epi{}, stream);
    if (!rc)
        rc = kfg::group_norm(y, y, (const float *)nullptr, (const float *)nullptr, N, O, plane, O, eps, stream);
    if (!rc) rc = kfg::map(y, y, (long long)N * O * plane, kfg::act::scale{1.0f / divisor}, stream);
    return rc;
}
