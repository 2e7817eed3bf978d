/* Reference kernel for group_norm_bf16: generic (reference_kernels/cuda/generic), the library's group norm over x
 * viewed as [N, C, H*W], fp32 statistics, bf16 affine. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *x, const __nv_bfloat16 *gamma, const __nv_bfloat16 *beta,
                         __nv_bfloat16 *y, int N, int C, int H, int W, int G, float eps, cudaStream_t stream) {
    return kfg::group_norm(y, x, gamma, beta, N, C, (long long)H * W, G, eps, stream);
}
