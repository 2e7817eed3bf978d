/* Vendor baseline for conv_transpose2d: a transposed convolution is the data gradient of the convolution it
 * inverts, so cudnnConvolutionBackwardData with x as the gradient of a C-channel output, w [C, O, 4, 4] as that
 * convolution's filter, and y the O-channel input gradient (stride 2, padding 1, FMA math). */
#include "vendor/cudnn_common.cuh"

extern "C" int kf_launch(const float *x, const float *w, float *y, int N, int C, int H, int W, int O,
                         cudaStream_t stream) {
    cudnnHandle_t h = kfv::cudnn(stream);
    if (!h) return 1;
    const int dyd[4] = { N, C, H, W }, dxd[4] = { N, O, 2 * H, 2 * W }, wd[4] = { C, O, 4, 4 };
    const int pad[2] = { 1, 1 }, stride[2] = { 2, 2 }, dil[2] = { 1, 1 };
    kfv::descs d;
    KFV_OK(kfv::tensor(&d.x, 4, dyd));
    KFV_OK(kfv::tensor(&d.y, 4, dxd));
    KFV_OK(kfv::filter(&d.w, 4, wd));
    KFV_OK(kfv::convolution(&d.conv, 2, pad, stride, dil, 1));
    cudnnConvolutionBwdDataAlgoPerf_t perf[kfv::MAX_ALGOS];
    int n = 0;
    KFV_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.x, d.conv, d.y, kfv::MAX_ALGOS, &n, perf));
    int pick = -1;
    for (int i = 0; i < n && pick < 0; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].mathType == CUDNN_FMA_MATH) pick = i;
    if (pick < 0) return 1;
    void *buf = kfv::scratch(perf[pick].memory);
    if (perf[pick].memory && !buf) return 1;
    const float one = 1.0f, zero = 0.0f;
    return (int)cudnnConvolutionBackwardData(h, &one, d.w, w, d.x, x, d.conv, perf[pick].algo, buf,
                                             perf[pick].memory, &zero, d.y, y);
}
