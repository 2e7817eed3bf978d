/* Example CUDA candidate for nvfp4_gemm: one thread per output; each 16-element block's dot product of decoded codes in
 * fp32, then both E4M3 block scales. Correct for any shape; far from the tensor cores. */
#define BLOCK 16

__device__ static float e2m1(unsigned nibble)
{
	const float val[8] = { 0, 0.5f, 1, 1.5f, 2, 3, 4, 6 };
	return nibble & 8 ? -val[nibble & 7] : val[nibble & 7];
}

__global__ static void nvfp4_gemm(const unsigned char *Aq, const __nv_fp8_e4m3 *sa, const unsigned char *Bq,
				  const __nv_fp8_e4m3 *sb, __nv_bfloat16 *C, int M, int N, int K, float alpha)
{
	int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y, blocks = K / BLOCK;
	if (n >= N)
		return;
	float acc = 0;
	for (int b = 0; b < blocks; b++) {
		float part = 0;
		for (int i = 0; i < BLOCK / 2; i++) {
			unsigned a = Aq[((size_t)m * K + b * BLOCK) / 2 + i], w = Bq[((size_t)n * K + b * BLOCK) / 2 + i];
			part += e2m1(a & 15) * e2m1(w & 15) + e2m1(a >> 4) * e2m1(w >> 4);
		}
		acc += part * (float)sa[(size_t)m * blocks + b] * (float)sb[(size_t)n * blocks + b];
	}
	C[(size_t)m * N + n] = __float2bfloat16(alpha * acc);
}

extern "C" int kf_launch(const __nv_fp4x2_e2m1 *Aq, const __nv_fp8_e4m3 *sa, const __nv_fp4x2_e2m1 *Bq,
			 const __nv_fp8_e4m3 *sb, __nv_bfloat16 *C, int M, int N, int K, float alpha, cudaStream_t stream)
{
	dim3 grid((N + 127) / 128, M);
	nvfp4_gemm<<<grid, 128, 0, stream>>>((const unsigned char *)Aq, sa, (const unsigned char *)Bq, sb, C, M, N, K, alpha);
	return cudaGetLastError() != cudaSuccess;
}
