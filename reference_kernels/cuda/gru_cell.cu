/* Reference kernel for gru_cell: generic (reference_kernels/cuda/generic): both gate GEMMs (biases in their epilogues)
 * into scratch (reference_kernels/cuda/scratch.cuh), then one thread per (row, unit) for the update. */
#include "cuda/generic/ops.cuh"
#include "cuda/scratch.cuh"

namespace {

__device__ __forceinline__ float sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }

__global__ void __launch_bounds__(kfg::THREADS) cell(const float *gi, const float *gh, const float *h, float *h_out,
                                                     long long B, long long Hd) {
    for (long long t = blockIdx.x * (long long)kfg::THREADS + threadIdx.x; t < B * Hd;
         t += (long long)gridDim.x * kfg::THREADS) {
        const long long b = t / Hd, j = t % Hd, row = b * 3 * Hd;
        const float r = sigmoid(gi[row + j] + gh[row + j]), z = sigmoid(gi[row + Hd + j] + gh[row + Hd + j]);
        const float n = tanhf(gi[row + 2 * Hd + j] + r * gh[row + 2 * Hd + j]);
        h_out[t] = (1.0f - z) * n + z * h[t];
    }
}

} /* namespace */

extern "C" int kf_launch(const float *x, const float *h, const float *W_ih, const float *W_hh, const float *b_ih,
                         const float *b_hh, float *h_out, int B, int I, int Hd, cudaStream_t stream) {
    const size_t gates = (size_t)B * 3 * Hd, region = kfs::region(sizeof(float) * gates);
    void *buf;
    int rc = kfs::scratch(2 * region, &buf);
    float *gi = static_cast<float *>(buf), *gh = reinterpret_cast<float *>(static_cast<char *>(buf) + region);
    kfg::gemm_desc d;
    d.M = B;
    d.N = 3 * Hd;
    d.K = I;
    d.tb = true;
    if (!rc) rc = kfg::gemm(gi, x, W_ih, d, kfg::epi_bias<float>{b_ih}, stream);
    d.K = Hd;
    if (!rc) rc = kfg::gemm(gh, h, W_hh, d, kfg::epi_bias<float>{b_hh}, stream);
    if (!rc && B > 0 && Hd > 0) {
        cell<<<kfg::grid_for((long long)B * Hd), kfg::THREADS, 0, stream>>>(gi, gh, h, h_out, B, Hd);
        rc = kfg::status();
    }
    return rc;
}
