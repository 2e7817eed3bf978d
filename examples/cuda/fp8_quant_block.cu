/* Example CUDA candidate for fp8_quant_block: one 128-thread block per group, the amax through shared memory. */
#define GROUP 128

__global__ static void quant(const __nv_bfloat16 *x, __nv_fp8_e4m3 *q, float *s)
{
	__shared__ float amax[GROUP];
	size_t i = (size_t)blockIdx.x * GROUP + threadIdx.x;
	float v = __bfloat162float(x[i]);
	amax[threadIdx.x] = fabsf(v);
	__syncthreads();
	for (int half = GROUP / 2; half > 0; half /= 2) {
		if (threadIdx.x < half)
			amax[threadIdx.x] = fmaxf(amax[threadIdx.x], amax[threadIdx.x + half]);
		__syncthreads();
	}
	float scale = amax[0] > 0 ? __fdiv_rn(amax[0], 448.0f) : 1.0f;
	if (threadIdx.x == 0)
		s[blockIdx.x] = scale;
	q[i] = __nv_fp8_e4m3(__fdiv_rn(v, scale));
}

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_fp8_e4m3 *q, float *s, int M, int K, cudaStream_t stream)
{
	long long groups = (long long)M * (K / GROUP);
	if (groups)
		quant<<<(unsigned)groups, GROUP, 0, stream>>>(x, q, s);
	return cudaGetLastError() != cudaSuccess;
}
