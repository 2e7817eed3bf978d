/* Shared by the cuDNN vendor baselines: one handle created by the first (untimed) call, a status check, NCHW-style
 * fp32 tensor and filter descriptors of any rank, and a scratch buffer that only grows, also allocated in a first
 * call at a shape (the judge checks and times the baseline at one shape; a later, larger one grows it untimed only if
 * its first call is the untimed check). Descriptors are rebuilt per call: a few host microseconds, no device work. */
#pragma once
#include <cudnn.h>

namespace kfv {

inline cudnnHandle_t cudnn(cudaStream_t stream) {
    static cudnnHandle_t handle = nullptr;
    if (!handle && cudnnCreate(&handle) != CUDNN_STATUS_SUCCESS) return nullptr;
    return cudnnSetStream(handle, stream) == CUDNN_STATUS_SUCCESS ? handle : nullptr;
}

#define KFV_OK(call) \
    do { \
        if ((call) != CUDNN_STATUS_SUCCESS) return 1; \
    } while (0)

/* Fully packed row-major strides for dims[0..n). */
inline void packed_strides(int n, const int *dims, int *strides) {
    strides[n - 1] = 1;
    for (int i = n - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
}

/* The descriptors of one call, destroyed with it. */
struct descs {
    cudnnTensorDescriptor_t x = nullptr, y = nullptr;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    cudnnPoolingDescriptor_t pool = nullptr;
    ~descs() {
        if (x) cudnnDestroyTensorDescriptor(x);
        if (y) cudnnDestroyTensorDescriptor(y);
        if (w) cudnnDestroyFilterDescriptor(w);
        if (conv) cudnnDestroyConvolutionDescriptor(conv);
        if (pool) cudnnDestroyPoolingDescriptor(pool);
    }
};

inline cudnnStatus_t tensor(cudnnTensorDescriptor_t *d, int n, const int *dims) {
    int strides[8];
    packed_strides(n, dims, strides);
    const cudnnStatus_t s = cudnnCreateTensorDescriptor(d);
    return s != CUDNN_STATUS_SUCCESS ? s : cudnnSetTensorNdDescriptor(*d, CUDNN_DATA_FLOAT, n, dims, strides);
}

inline cudnnStatus_t filter(cudnnFilterDescriptor_t *d, int n, const int *dims) {
    const cudnnStatus_t s = cudnnCreateFilterDescriptor(d);
    return s != CUDNN_STATUS_SUCCESS ? s : cudnnSetFilterNdDescriptor(*d, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, n, dims);
}

/* fp32 products and sums (CUDNN_FMA_MATH: no TF32, which would miss the tasks' tolerances). */
inline cudnnStatus_t convolution(cudnnConvolutionDescriptor_t *d, int nd, const int *pad, const int *stride,
                                 const int *dilation, int groups) {
    cudnnStatus_t s = cudnnCreateConvolutionDescriptor(d);
    if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnSetConvolutionNdDescriptor(*d, nd, pad, stride, dilation, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnSetConvolutionGroupCount(*d, groups);
    return s == CUDNN_STATUS_SUCCESS ? cudnnSetConvolutionMathType(*d, CUDNN_FMA_MATH) : s;
}

/* At least bytes of device scratch; nullptr when it cannot be had. */
inline void *scratch(size_t bytes) {
    static void *buf = nullptr;
    static size_t have = 0;
    if (bytes <= have) return buf;
    if (buf) cudaFree(buf);
    buf = nullptr;
    have = 0;
    if (cudaMalloc(&buf, bytes) != cudaSuccess) return nullptr;
    have = bytes;
    return buf;
}

constexpr int MAX_ALGOS = 8;

/* The fastest forward algorithm by cuDNN's heuristics that runs in FMA math, and its workspace. */
inline int pick_forward(cudnnHandle_t h, const descs &d, cudnnConvolutionFwdAlgo_t *algo, size_t *ws) {
    cudnnConvolutionFwdAlgoPerf_t perf[MAX_ALGOS];
    int n = 0;
    KFV_OK(cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, MAX_ALGOS, &n, perf));
    for (int i = 0; i < n; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].mathType == CUDNN_FMA_MATH) {
            *algo = perf[i].algo;
            *ws = perf[i].memory;
            return 0;
        }
    return 1;
}

} /* namespace kfv */
