/* Example CUDA candidate for maxpool1d_f16: one thread per output compares its in-range taps with __hgt and keeps
 * the largest half (exact). */
#define THREADS 256

__global__ static void maxpool(const __half *__restrict__ x, __half *__restrict__ y, long long rows, int L, int OL,
			       int K, int S, int P, int DIL)
{
	long long t = blockIdx.x * (long long)THREADS + threadIdx.x;
	if (t >= rows * OL)
		return;
	const __half *xr = x + t / OL * L;
	int start = (int)(t % OL) * S - P;
	__half best = __ushort_as_half(0xfc00); /* -inf */
	for (int k = 0; k < K; k++) {
		int at = start + k * DIL;
		if (at >= 0 && at < L && __hgt(xr[at], best))
			best = xr[at];
	}
	y[t] = best;
}

extern "C" int kf_launch(const __half *x, __half *y, int N, int C, int L, int K, int S, int P, int DIL,
			 cudaStream_t stream)
{
	int OL = (L + 2 * P - DIL * (K - 1) - 1) / S + 1;
	long long total = (long long)N * C * OL;
	if (total <= 0)
		return 0;
	maxpool<<<(unsigned)((total + THREADS - 1) / THREADS), THREADS, 0, stream>>>(x, y, (long long)N * C, L, OL, K, S,
										  P, DIL);
	return cudaGetLastError() != cudaSuccess;
}
