/* Example CUDA candidate for int4_awq_gemm: one thread per output, the weight codes unpacked a byte (two K values) at a
 * time with the group's zero point and scale. Correct for any shape; not fast. */
#define GROUP 128

__global__ static void awq_gemm(const __nv_bfloat16 *x, const unsigned char *qw, const __nv_bfloat16 *scales,
				const unsigned char *zeros, __nv_bfloat16 *y, int M, int N, int K)
{
	int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y, groups = K / GROUP;
	if (n >= N)
		return;
	float acc = 0;
	for (int g = 0; g < groups; g++) {
		float s = __bfloat162float(scales[(size_t)n * groups + g]), z = zeros[(size_t)n * groups + g], part = 0;
		for (int k = g * GROUP; k < (g + 1) * GROUP; k += 2) {
			unsigned char byte = qw[((size_t)n * K + k) / 2];
			part += __bfloat162float(x[(size_t)m * K + k]) * ((float)(byte & 15) - z) +
				__bfloat162float(x[(size_t)m * K + k + 1]) * ((float)(byte >> 4) - z);
		}
		acc += part * s;
	}
	y[(size_t)m * N + n] = __float2bfloat16(acc);
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const unsigned char *qw, const __nv_bfloat16 *scales,
			 const unsigned char *zeros, __nv_bfloat16 *y, int M, int N, int K, cudaStream_t stream)
{
	dim3 grid((N + 127) / 128, M);
	awq_gemm<<<grid, 128, 0, stream>>>(x, qw, scales, zeros, y, M, N, K);
	return cudaGetLastError() != cudaSuccess;
}
