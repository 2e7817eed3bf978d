/* Example CUDA candidate for silu_mul_fp8_quant: one thread per output pair (two consecutive columns), encoded with
 * the __nv_fp8_e4m3 constructor (round to nearest even, saturating). */

__global__ static void silu_mul_fp8(const __nv_bfloat16 *x, const float *scale, __nv_fp8_e4m3 *q, int M, int N)
{
	long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x, pairs = ((long long)N + 1) / 2;
	if (p >= (long long)M * pairs)
		return;
	int m = p / pairs, n0 = (int)(p % pairs) * 2;
	float inv = 1.0f / scale[0];
	for (int n = n0; n < n0 + 2 && n < N; n++) {
		float g = __bfloat162float(x[(size_t)m * 2 * N + n]), u = __bfloat162float(x[(size_t)m * 2 * N + N + n]);
		q[(size_t)m * N + n] = __nv_fp8_e4m3(g / (1.0f + expf(-g)) * u * inv);
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *x, const float *scale, __nv_fp8_e4m3 *q, int M, int N, cudaStream_t stream)
{
	long long total = (long long)M * ((N + 1) / 2);
	if (total)
		silu_mul_fp8<<<(unsigned)((total + 255) / 256), 256, 0, stream>>>(x, scale, q, M, N);
	return cudaGetLastError() != cudaSuccess;
}
