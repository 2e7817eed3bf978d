/* Quantised linear: exact int32 sums of (x - zp) * w over 16 x 16 shared-memory tiles, scaled to fp32 once. */
#define TILE 16

__global__ static void qlinear(const unsigned char *x, const signed char *w, float *y, int M, int N, int K, int zp,
			       float scale)
{
	__shared__ int xs[TILE][TILE + 1], ws[TILE][TILE + 1];
	int m = blockIdx.y * TILE + threadIdx.y, n = blockIdx.x * TILE + threadIdx.x;
	int wn = blockIdx.x * TILE + threadIdx.y;
	int acc = 0;
	for (int k0 = 0; k0 < K; k0 += TILE) {
		int k = k0 + threadIdx.x;
		xs[threadIdx.y][threadIdx.x] = m < M && k < K ? (int)x[(size_t)m * K + k] - zp : 0;
		ws[threadIdx.y][threadIdx.x] = wn < N && k < K ? (int)w[(size_t)wn * K + k] : 0;
		__syncthreads();
		for (int kk = 0; kk < TILE; kk++)
			acc += xs[threadIdx.y][kk] * ws[threadIdx.x][kk];
		__syncthreads();
	}
	if (m < M && n < N)
		y[(size_t)m * N + n] = scale * (float)acc;
}

extern "C" int kf_launch(const unsigned char *x, const signed char *w, float *y, int M, int N, int K, int zp,
			 float scale, cudaStream_t stream)
{
	dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE), block(TILE, TILE);
	qlinear<<<grid, block, 0, stream>>>(x, w, y, M, N, K, zp, scale);
	return cudaGetLastError() != cudaSuccess;
}
