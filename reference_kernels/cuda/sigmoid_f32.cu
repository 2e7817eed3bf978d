/* Reference kernel for sigmoid_f32: generic (reference_kernels/cuda/generic), the elementwise map with the
 * library's sigmoid functor, fp32 inside, one thread per element. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *x, float *y, int N, cudaStream_t stream) {
    return kfg::map(y, x, N, kfg::act::sigmoid{}, stream);
}
