/* Transpose through 32x32 shared-memory tiles (one padding column, so the column-wise read has no
 * bank conflicts): a 32x8 block reads its tile row-wise and writes it column-wise, 4 rows per thread. */
#define TILE 32
#define ROWS_PER_PASS 8

__global__ static void transpose(const float *x, float *out, int rows, int cols)
{
	__shared__ float tile[TILE][TILE + 1];
	int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
	for (int i = threadIdx.y; i < TILE; i += ROWS_PER_PASS) {
		int r = r0 + i, c = c0 + threadIdx.x;
		if (r < rows && c < cols)
			tile[i][threadIdx.x] = x[(size_t)r * cols + c];
	}
	__syncthreads();
	for (int i = threadIdx.y; i < TILE; i += ROWS_PER_PASS) {
		int c = c0 + i, r = r0 + threadIdx.x; /* out row c, out column r */
		if (c < cols && r < rows)
			out[(size_t)c * rows + r] = tile[threadIdx.x][i];
	}
}

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream)
{
	dim3 block(TILE, ROWS_PER_PASS), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
	transpose<<<grid, block, 0, stream>>>(x, out, rows, cols);
	return cudaGetLastError() != cudaSuccess;
}
