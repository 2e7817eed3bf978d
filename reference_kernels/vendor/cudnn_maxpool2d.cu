/* Vendor baseline for maxpool2d: cudnnPoolingForward, max over 3 x 3 windows, stride 2, padding 1 (padding never
 * chosen), NCHW fp32. */
#include "vendor/cudnn_common.cuh"

extern "C" int kf_launch(const float *x, float *y, int N, int C, int H, int W, cudaStream_t stream) {
    cudnnHandle_t h = kfv::cudnn(stream);
    if (!h) return 1;
    const int xd[4] = { N, C, H, W }, yd[4] = { N, C, (H - 1) / 2 + 1, (W - 1) / 2 + 1 };
    kfv::descs d;
    KFV_OK(kfv::tensor(&d.x, 4, xd));
    KFV_OK(kfv::tensor(&d.y, 4, yd));
    KFV_OK(cudnnCreatePoolingDescriptor(&d.pool));
    KFV_OK(cudnnSetPooling2dDescriptor(d.pool, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 3, 3, 1, 1, 2, 2));
    const float one = 1.0f, zero = 0.0f;
    return (int)cudnnPoolingForward(h, d.pool, &one, d.x, x, &zero, d.y, y);
}
