/* Example CUDA candidate for mxfp4_scalesearch: one thread per 32-element block; candidate exponents tried from the
 * largest down, a strictly smaller error needed to move (so ties stay with the larger). */
#define BLOCK 32

__device__ static float fp4_round(float v, unsigned *code)
{
	const float mid[7] = { 0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f };
	const float val[8] = { 0, 0.5f, 1, 1.5f, 2, 3, 4, 6 };
	float a = fabsf(v);
	unsigned c = 0;
	for (int j = 0; j < 7; j++)
		c += (j % 2 == 0) ? (a > mid[j]) : (a >= mid[j]);
	*code = c | (signbit(v) ? 8u : 0u);
	return signbit(v) ? -val[c] : val[c];
}

__global__ static void search(const float *x, unsigned char *q, unsigned char *scale, float *err, long long blocks)
{
	long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (b >= blocks)
		return;
	const float *xb = x + b * BLOCK;
	float amax = 0;
	for (int i = 0; i < BLOCK; i++)
		amax = fmaxf(amax, fabsf(xb[i]));
	int best = -127;
	double best_err = 0;
	unsigned code;
	if (amax > 0) {
		int ex;
		frexpf(amax, &ex);
		int e0 = ex - 3;
		best_err = INFINITY;
		for (int e = e0 + 1; e >= e0 - 1; e--) {
			if (e < -127 || e > 127)
				continue;
			double sum = 0;
			for (int i = 0; i < BLOCK; i++) {
				double d = (double)xb[i] - ldexp((double)fp4_round(ldexpf(xb[i], -e), &code), e);
				sum += d * d;
			}
			if (sum < best_err) {
				best_err = sum;
				best = e;
			}
		}
	}
	scale[b] = (unsigned char)(best + 127);
	err[b] = (float)best_err;
	for (int i = 0; i < BLOCK; i += 2) {
		unsigned lo = 0, hi = 0;
		if (amax > 0) {
			fp4_round(ldexpf(xb[i], -best), &lo);
			fp4_round(ldexpf(xb[i + 1], -best), &hi);
		}
		q[(b * BLOCK + i) / 2] = (unsigned char)(lo | hi << 4);
	}
}

extern "C" int kf_launch(const float *x, unsigned char *q, unsigned char *scale, float *err, int M, int K,
			 cudaStream_t stream)
{
	long long blocks = (long long)M * (K / BLOCK);
	if (blocks)
		search<<<(unsigned)((blocks + 127) / 128), 128, 0, stream>>>(x, q, scale, err, blocks);
	return cudaGetLastError() != cudaSuccess;
}
