/* Reference kernel for rms_norm_channel_f32: generic (reference_kernels/cuda/generic), the mean square over the
 * channel axis (outer N, inner H*W) into the workspace (one float per pixel), then a one-thread-per-element kernel
 * scaling by its reciprocal root. */
#include "cuda/generic/ops.cuh"

namespace {

constexpr int THREADS = 256;

struct squared {
    __device__ float operator()(float v, long long) const { return v * v; }
};

__global__ void __launch_bounds__(THREADS)
scale_by_rms(float *y, const float *x, const float *ms, long long total, long long C, long long plane, float eps) {
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < total; i += (long long)gridDim.x * THREADS)
        y[i] = x[i] * rsqrtf(ms[i / (C * plane) * plane + i % plane] + eps);
}

} /* namespace */

extern "C" int kf_launch(const float *x, float *y, int N, int C, int H, int W, float eps, void *workspace,
                         cudaStream_t stream) {
    float *ms = static_cast<float *>(workspace);
    const long long plane = (long long)H * W, total = (long long)N * C * plane;
    int rc = kfg::reduce_map(ms, x, N, C, plane, kfg::MEAN, squared{}, stream);
    if (rc != 0 || total == 0) return rc;
    scale_by_rms<<<kfg::grid_for(total), THREADS, 0, stream>>>(y, x, ms, total, C, plane, eps);
    return kfg::status();
}
