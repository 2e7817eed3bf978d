/* Example CUDA candidate for conv1d_f32: one thread per output (n, o, i); the weights of output channel o are read
 * through the read-only cache (every thread of a block shares o when OL >= 256), the inputs directly. */
#define THREADS 256

__global__ static void conv1d(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ y,
			      long long total, int C, int L, int O, int OL, int K, int S, int P, int DIL)
{
	long long t = blockIdx.x * (long long)THREADS + threadIdx.x;
	if (t >= total)
		return;
	int i = (int)(t % OL), o = (int)(t / OL % O);
	long long n = t / ((long long)OL * O);
	float acc = 0;
	for (int c = 0; c < C; c++) {
		const float *xr = x + (n * C + c) * L;
		const float *wr = w + ((long long)o * C + c) * K;
		for (int k = 0; k < K; k++) {
			int at = i * S - P + k * DIL;
			if (at >= 0 && at < L)
				acc += __ldg(wr + k) * xr[at];
		}
	}
	y[t] = acc;
}

extern "C" int kf_launch(const float *x, const float *w, float *y, int N, int C, int L, int O, int K, int S, int P,
			 int DIL, cudaStream_t stream)
{
	int OL = (L + 2 * P - DIL * (K - 1) - 1) / S + 1;
	long long total = (long long)N * O * OL;

	if (total <= 0)
		return 0;
	unsigned blocks = (unsigned)((total + THREADS - 1) / THREADS);
	conv1d<<<blocks, THREADS, 0, stream>>>(x, w, y, total, C, L, O, OL, K, S, P, DIL);
	return cudaGetLastError() != cudaSuccess;
}
