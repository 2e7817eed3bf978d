/* Reference kernel for matrix_scalar_f32: generic (reference_kernels/cuda/generic), the elementwise map with the
 * library's scale functor, one thread per element. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const float *A, float *C, int M, int N, float s, cudaStream_t stream) {
    return kfg::map(C, A, (long long)M * N, kfg::act::scale{s}, stream);
}
