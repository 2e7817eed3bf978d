/* Example CUDA candidate for cummax_rows_f32: one warp per row walks it in chunks of 32; a shuffle max-scan within the
 * chunk, then the max with the carry of the chunks before it. */
#define WARPS 8

__global__ static void row_cummax(const float *__restrict__ x, float *__restrict__ y, int rows, int cols)
{
	int lane = threadIdx.x % 32;
	long long r = blockIdx.x * (long long)WARPS + threadIdx.x / 32;
	if (r >= rows)
		return;
	const float *xr = x + r * cols;
	float *yr = y + r * cols;
	float carry = -INFINITY;
	for (int c0 = 0; c0 < cols; c0 += 32) {
		int c = c0 + lane;
		float v = c < cols ? xr[c] : -INFINITY;
		for (int off = 1; off < 32; off *= 2) {
			float o = __shfl_up_sync(0xffffffffu, v, off);
			if (lane >= off)
				v = fmaxf(v, o);
		}
		v = fmaxf(v, carry);
		if (c < cols)
			yr[c] = v;
		carry = __shfl_sync(0xffffffffu, v, 31);
	}
}

extern "C" int kf_launch(const float *x, float *y, int rows, int cols, cudaStream_t stream)
{
	if (rows == 0 || cols == 0)
		return 0;
	row_cummax<<<(rows + WARPS - 1) / WARPS, WARPS * 32, 0, stream>>>(x, y, rows, cols);
	return cudaGetLastError() != cudaSuccess;
}
