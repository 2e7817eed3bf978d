/* Vendor baseline for conv2d_general: cudnnConvolutionForward (NCHW fp32, groups, strides and padding from the
 * symbols, FMA math), the algorithm cuDNN's heuristics rank first. */
#include "vendor/cudnn_common.cuh"

extern "C" int kf_launch(const float *x, const float *w, float *y, int N, int C, int H, int W, int O, int G, int KH,
                         int KW, int SH, int SW, int PH, int PW, cudaStream_t stream) {
    cudnnHandle_t h = kfv::cudnn(stream);
    if (!h) return 1;
    const int OH = (H + 2 * PH - KH) / SH + 1, OW = (W + 2 * PW - KW) / SW + 1;
    const int xd[4] = { N, C, H, W }, yd[4] = { N, O, OH, OW }, wd[4] = { O, C / G, KH, KW };
    const int pad[2] = { PH, PW }, stride[2] = { SH, SW }, dil[2] = { 1, 1 };
    kfv::descs d;
    KFV_OK(kfv::tensor(&d.x, 4, xd));
    KFV_OK(kfv::tensor(&d.y, 4, yd));
    KFV_OK(kfv::filter(&d.w, 4, wd));
    KFV_OK(kfv::convolution(&d.conv, 2, pad, stride, dil, G));
    cudnnConvolutionFwdAlgo_t algo;
    size_t ws = 0;
    if (kfv::pick_forward(h, d, &algo, &ws)) return 1;
    void *buf = kfv::scratch(ws);
    if (ws && !buf) return 1;
    const float one = 1.0f, zero = 0.0f;
    return (int)cudnnConvolutionForward(h, &one, d.x, x, d.w, w, d.conv, algo, buf, ws, &zero, d.y, y);
}
