/* Inclusive row prefix sums with one warp per row: the warp walks the row 32 elements at a time, scans
 * each piece with shuffles (Hillis-Steele) and carries the running total into the next piece. */
#define WARPS 8
#define WARP 32

__global__ static void cumsum_rows(const float *x, float *out, int rows, int cols)
{
	int row = blockIdx.x * WARPS + threadIdx.x / WARP, lane = threadIdx.x % WARP;
	if (row >= rows)
		return;
	const float *r = x + (size_t)row * cols;
	float *o = out + (size_t)row * cols;
	float carry = 0.f;
	for (int c0 = 0; c0 < cols; c0 += WARP) {
		int c = c0 + lane;
		float v = c < cols ? r[c] : 0.f;
		for (int off = 1; off < WARP; off *= 2) {
			float before = __shfl_up_sync(0xffffffffu, v, off);
			if (lane >= off)
				v += before;
		}
		if (c < cols)
			o[c] = carry + v;
		carry += __shfl_sync(0xffffffffu, v, WARP - 1);
	}
}

extern "C" int kf_launch(const float *x, float *out, int rows, int cols, cudaStream_t stream)
{
	cumsum_rows<<<(rows + WARPS - 1) / WARPS, WARPS * WARP, 0, stream>>>(x, out, rows, cols);
	return cudaGetLastError() != cudaSuccess;
}
