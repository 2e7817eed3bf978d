/* Example CUDA candidate for fp8_dequant_block: one thread per element. */
#define BLOCK 128

__global__ static void dequant(const __nv_fp8_e4m3 *q, const float *s, __nv_bfloat16 *y, int M, int K)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)M * K)
		return;
	size_t m = i / K, k = i % K;
	y[i] = __float2bfloat16((float)q[i] * s[(m / BLOCK) * (K / BLOCK) + k / BLOCK]);
}

extern "C" int kf_launch(const __nv_fp8_e4m3 *q, const float *s, __nv_bfloat16 *y, int M, int K, cudaStream_t stream)
{
	size_t n = (size_t)M * K;
	if (n)
		dequant<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(q, s, y, M, K);
	return cudaGetLastError() != cudaSuccess;
}
