/* Example CUDA candidate for conv_transpose1d_f32: the gather form, one thread per output q: tap k contributes when
 * q + P - k*DIL is a non-negative multiple of S whose quotient i is below L. */
#define THREADS 256

__global__ static void conv_t1d(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ y,
				long long total, int C, int L, int O, int OL, int K, int S, int P, int DIL)
{
	long long t = blockIdx.x * (long long)THREADS + threadIdx.x;
	if (t >= total)
		return;
	int q = (int)(t % OL), o = (int)(t / OL % O);
	long long n = t / ((long long)OL * O);
	float acc = 0;
	for (int k = 0; k < K; k++) {
		int s = q + P - k * DIL;
		if (s < 0 || s % S)
			continue;
		int i = s / S;
		if (i >= L)
			continue;
		for (int c = 0; c < C; c++)
			acc += x[(n * C + c) * L + i] * w[((long long)c * O + o) * K + k];
	}
	y[t] = acc;
}

extern "C" int kf_launch(const float *x, const float *w, float *y, int N, int C, int L, int O, int K, int S, int P,
			 int OP, int DIL, cudaStream_t stream)
{
	int OL = (L - 1) * S - 2 * P + DIL * (K - 1) + OP + 1;
	long long total = (long long)N * O * OL;

	if (total <= 0)
		return 0;
	unsigned blocks = (unsigned)((total + THREADS - 1) / THREADS);
	conv_t1d<<<blocks, THREADS, 0, stream>>>(x, w, y, total, C, L, O, OL, K, S, P, DIL);
	return cudaGetLastError() != cudaSuccess;
}
