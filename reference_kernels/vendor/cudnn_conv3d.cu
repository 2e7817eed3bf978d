/* Vendor baseline for conv3d_5d: cudnnConvolutionForward on 5-D NCDHW fp32 tensors (kernel 3, stride 1, padding 1,
 * FMA math), the algorithm cuDNN's heuristics rank first. */
#include "vendor/cudnn_common.cuh"

extern "C" int kf_launch(const float *x, const float *wt, float *y, int N, int C, int D, int H, int W, int O,
                         cudaStream_t stream) {
    cudnnHandle_t h = kfv::cudnn(stream);
    if (!h) return 1;
    const int xd[5] = { N, C, D, H, W }, yd[5] = { N, O, D, H, W }, wd[5] = { O, C, 3, 3, 3 };
    const int pad[3] = { 1, 1, 1 }, stride[3] = { 1, 1, 1 }, dil[3] = { 1, 1, 1 };
    kfv::descs d;
    KFV_OK(kfv::tensor(&d.x, 5, xd));
    KFV_OK(kfv::tensor(&d.y, 5, yd));
    KFV_OK(kfv::filter(&d.w, 5, wd));
    KFV_OK(kfv::convolution(&d.conv, 3, pad, stride, dil, 1));
    cudnnConvolutionFwdAlgo_t algo;
    size_t ws = 0;
    if (kfv::pick_forward(h, d, &algo, &ws)) return 1;
    void *buf = kfv::scratch(ws);
    if (ws && !buf) return 1;
    const float one = 1.0f, zero = 0.0f;
    return (int)cudnnConvolutionForward(h, &one, d.x, x, d.w, wt, d.conv, algo, buf, ws, &zero, d.y, y);
}
