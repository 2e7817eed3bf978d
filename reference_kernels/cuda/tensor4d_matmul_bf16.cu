/* Reference kernel for tensor4d_matmul_bf16: generic (reference_kernels/cuda/generic), the library's GEMM with the
 * leading three axes folded into rows ([B*I*J, L] x [L, K]), fp32 accumulation, bf16 out. */
#include "cuda/generic/ops.cuh"

extern "C" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *W, __nv_bfloat16 *C, int B, int I, int J, int L,
                         int K, cudaStream_t stream) {
    kfg::gemm_desc d;
    d.M = B * I * J;
    d.N = K;
    d.K = L;
    return kfg::gemm(C, A, W, d, kfg::no_epi2{}, stream);
}
