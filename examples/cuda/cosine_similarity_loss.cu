/* Cosine-similarity loss: one warp per row leaves 1 - cos in the workspace (4*B bytes), then one block averages
 * the B values in a fixed order. */
#define WARPS 8

__global__ static void row_terms(const float *p, const float *t, float *terms, int B, int D)
{
	int row = blockIdx.x * WARPS + threadIdx.x / 32, lane = threadIdx.x % 32;
	if (row >= B)
		return;
	float dot = 0, pp = 0, tt = 0;
	for (int k = lane; k < D; k += 32) {
		float a = p[(size_t)row * D + k], b = t[(size_t)row * D + k];
		dot += a * b;
		pp += a * a;
		tt += b * b;
	}
	for (int off = 16; off; off /= 2) {
		dot += __shfl_down_sync(0xffffffffu, dot, off);
		pp += __shfl_down_sync(0xffffffffu, pp, off);
		tt += __shfl_down_sync(0xffffffffu, tt, off);
	}
	if (lane == 0)
		terms[row] = 1.0f - dot / sqrtf(pp * tt);
}

__global__ static void average(const float *terms, float *loss, int B)
{
	__shared__ float part[256];
	float s = 0;
	for (int i = threadIdx.x; i < B; i += 256)
		s += terms[i];
	part[threadIdx.x] = s;
	__syncthreads();
	for (int w = 128; w; w /= 2) {
		if (threadIdx.x < w)
			part[threadIdx.x] += part[threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		loss[0] = part[0] / B;
}

extern "C" int kf_launch(const float *pred, const float *target, float *loss, int B, int D, void *workspace,
			 cudaStream_t stream)
{
	float *terms = (float *)workspace;
	row_terms<<<(B + WARPS - 1) / WARPS, WARPS * 32, 0, stream>>>(pred, target, terms, B, D);
	average<<<1, 256, 0, stream>>>(terms, loss, B);
	return cudaGetLastError() != cudaSuccess;
}
