/* Example CUDA candidate for var_dim1_f32: one thread per output (b, m) runs Welford's update down its column (safe at
 * a large mean); a warp reads 32 neighbouring floats per step. */
#define THREADS 256

__global__ static void columns(const float *__restrict__ x, float *__restrict__ y, int B, int N, int M)
{
	long long col = blockIdx.x * (long long)THREADS + threadIdx.x;
	if (col >= (long long)B * M)
		return;
	long long b = col / M, m = col % M;
	const long long base = b * N * M + m;
	float mean = 0, m2 = 0;
	for (int n = 0; n < N; n++) {
		float v = x[base + (long long)n * M], d = v - mean;
		mean += d / (float)(n + 1);
		m2 += d * (v - mean);
	}
	y[col] = m2 / (float)N;
}

extern "C" int kf_launch(const float *x, float *y, int B, int N, int M, cudaStream_t stream)
{
	long long cols = (long long)B * M;
	if (cols == 0)
		return 0;
	columns<<<(unsigned)((cols + THREADS - 1) / THREADS), THREADS, 0, stream>>>(x, y, B, N, M);
	return cudaGetLastError() != cudaSuccess;
}
