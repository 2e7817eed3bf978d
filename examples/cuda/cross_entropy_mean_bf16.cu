/* Example CUDA candidate for cross_entropy_mean_bf16: one warp per row, each lane an online log-sum-exp over its
 * strided share (running max and rescaled sum), merged across lanes by shuffles; lane 0 adds the row's loss / rows to
 * a double accumulator in the workspace (zeroed first) and a one-thread kernel stores it. */
#define WARPS 8

__global__ static void zero(double *total)
{
	*total = 0;
}

__global__ static void rows_ce(const __nv_bfloat16 *__restrict__ z, const int *__restrict__ targets, int rows,
			       int classes, double inv_rows, double *total)
{
	int lane = threadIdx.x % 32;
	long long r = blockIdx.x * (long long)WARPS + threadIdx.x / 32;
	if (r >= rows)
		return;
	const __nv_bfloat16 *zr = z + r * classes;
	float m = -INFINITY, s = 0;
	for (int c = lane; c < classes; c += 32) {
		float v = __bfloat162float(zr[c]);
		float nm = fmaxf(m, v);
		s = s * __expf(m - nm) + __expf(v - nm);
		m = nm;
	}
	for (int off = 16; off > 0; off /= 2) {
		float om = __shfl_xor_sync(0xffffffffu, m, off), os = __shfl_xor_sync(0xffffffffu, s, off);
		float nm = fmaxf(m, om);
		s = (m == -INFINITY ? 0.0f : s * __expf(m - nm)) + (om == -INFINITY ? 0.0f : os * __expf(om - nm));
		m = nm;
	}
	if (lane == 0)
		atomicAdd(total, ((double)m + log((double)s) - __bfloat162float(zr[targets[r]])) * inv_rows);
}

__global__ static void finish(float *loss, const double *total)
{
	loss[0] = (float)*total;
}

extern "C" int kf_launch(const __nv_bfloat16 *logits, const int *targets, float *loss, int rows, int classes,
			 void *workspace, cudaStream_t stream)
{
	double *total = (double *)workspace; /* 8*rows bytes, at least one double */
	zero<<<1, 1, 0, stream>>>(total);
	if (rows > 0)
		rows_ce<<<(rows + WARPS - 1) / WARPS, WARPS * 32, 0, stream>>>(logits, targets, rows, classes, 1.0 / rows,
										  total);
	finish<<<1, 1, 0, stream>>>(loss, total);
	return cudaGetLastError() != cudaSuccess;
}
