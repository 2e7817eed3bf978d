/* Example CUDA candidate for cumsum_reverse_f32: one warp per row walks it from the end in chunks of 32; lane l
 * holds column end - l, so an ordinary shuffle prefix sum over the lanes is the suffix sum, plus the carry of the
 * chunks already done. */
#define WARPS 8

__global__ static void row_suffix_sum(const float *__restrict__ x, float *__restrict__ y, int rows, int cols)
{
	int lane = threadIdx.x % 32;
	long long r = blockIdx.x * (long long)WARPS + threadIdx.x / 32;
	if (r >= rows)
		return;
	const float *xr = x + r * cols;
	float *yr = y + r * cols;
	float carry = 0;
	for (int end = cols - 1; end >= 0; end -= 32) {
		int c = end - lane;
		float v = c >= 0 ? xr[c] : 0.0f;
		for (int off = 1; off < 32; off *= 2) {
			float o = __shfl_up_sync(0xffffffffu, v, off);
			if (lane >= off)
				v += o;
		}
		v += carry;
		if (c >= 0)
			yr[c] = v;
		carry = __shfl_sync(0xffffffffu, v, 31);
	}
}

extern "C" int kf_launch(const float *x, float *y, int rows, int cols, cudaStream_t stream)
{
	if (rows == 0 || cols == 0)
		return 0;
	row_suffix_sum<<<(rows + WARPS - 1) / WARPS, WARPS * 32, 0, stream>>>(x, y, rows, cols);
	return cudaGetLastError() != cudaSuccess;
}
