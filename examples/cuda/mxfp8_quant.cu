/* Example CUDA candidate for mxfp8_quant: one thread per 32-element block, the shared exponent from frexpf. */
#define BLOCK 32

__global__ static void mxfp8(const float *x, __nv_fp8_e4m3 *q, unsigned char *scale, long long blocks)
{
	long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (b >= blocks)
		return;
	const float *xb = x + b * BLOCK;
	float amax = 0;
	for (int i = 0; i < BLOCK; i++)
		amax = fmaxf(amax, fabsf(xb[i]));
	int e = -127;
	if (amax > 0) {
		int ex;
		frexpf(amax, &ex);
		e = ex - 1 - 8;
		if (e < -127)
			e = -127;
	}
	scale[b] = (unsigned char)(e + 127);
	for (int i = 0; i < BLOCK; i++)
		q[b * BLOCK + i] = __nv_fp8_e4m3(amax > 0 ? ldexpf(xb[i], -e) : 0.0f);
}

extern "C" int kf_launch(const float *x, __nv_fp8_e4m3 *q, unsigned char *scale, int M, int K, cudaStream_t stream)
{
	long long blocks = (long long)M * (K / BLOCK);
	if (blocks)
		mxfp8<<<(unsigned)((blocks + 127) / 128), 128, 0, stream>>>(x, q, scale, blocks);
	return cudaGetLastError() != cudaSuccess;
}
