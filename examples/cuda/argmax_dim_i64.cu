/* argmax over dim 1 of x [B, N, M]: a block owns 32 columns of one batch; its 8 warps each scan every 8th row,
 * then warp 0 merges the 8 partial winners in row order (earlier rows first, so ties keep the smallest n). */
#define COLS 32
#define ROWS 8

__global__ static void argmax_cols(const float *x, long long *idx, int N, int M)
{
	__shared__ float best_v[ROWS][COLS];
	__shared__ int best_n[ROWS][COLS];
	int m = blockIdx.x * COLS + threadIdx.x, b = blockIdx.y;
	float bv = -INFINITY;
	int bn = -1;
	if (m < M)
		for (int n = threadIdx.y; n < N; n += ROWS) {
			float v = x[((size_t)b * N + n) * M + m];
			if (bn < 0 || v > bv) {
				bv = v;
				bn = n;
			}
		}
	best_v[threadIdx.y][threadIdx.x] = bv;
	best_n[threadIdx.y][threadIdx.x] = bn;
	__syncthreads();
	if (threadIdx.y != 0 || m >= M)
		return;
	for (int r = 1; r < ROWS; r++) {
		int n = best_n[r][threadIdx.x];
		float v = best_v[r][threadIdx.x];
		if (n >= 0 && (bn < 0 || v > bv || (v == bv && n < bn))) {
			bv = v;
			bn = n;
		}
	}
	idx[(size_t)b * M + m] = bn < 0 ? 0 : bn;
}

extern "C" int kf_launch(const float *x, long long *idx, int B, int N, int M, cudaStream_t stream)
{
	dim3 grid((M + COLS - 1) / COLS, B), block(COLS, ROWS);
	argmax_cols<<<grid, block, 0, stream>>>(x, idx, N, M);
	return cudaGetLastError() != cudaSuccess;
}
