/* Example CUDA candidate for sigmoid_topk_norm: one thread per token, K passes of a linear arg-max over the keys,
 * each pass skipping what earlier passes chose (a 256-bit mask; E <= 256 here). */
#define MAX_E 256

__global__ static void route(const float *logits, const float *bias, float *w, int *idx, int T, int E, int K, float rsf)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= T)
		return;
	unsigned taken[MAX_E / 32] = { 0 };
	const float *row = logits + (size_t)t * E;
	float sum = 0;
	for (int j = 0; j < K; j++) {
		int best = -1;
		float best_key = 0;
		for (int e = 0; e < E; e++) {
			if (taken[e / 32] >> (e % 32) & 1u)
				continue;
			float key = 1.0f / (1.0f + expf(-row[e])) + bias[e];
			if (best < 0 || key > best_key) {
				best = e;
				best_key = key;
			}
		}
		taken[best / 32] |= 1u << (best % 32);
		idx[(size_t)t * K + j] = best;
		w[(size_t)t * K + j] = 1.0f / (1.0f + expf(-row[best]));
		sum += w[(size_t)t * K + j];
	}
	for (int j = 0; j < K; j++)
		w[(size_t)t * K + j] = w[(size_t)t * K + j] / sum * rsf;
}

extern "C" int kf_launch(const float *logits, const float *bias, float *w, int *idx, int T, int E, int K, float rsf,
			 cudaStream_t stream)
{
	if (E > MAX_E)
		return 1;
	if (T > 0)
		route<<<(T + 127) / 128, 128, 0, stream>>>(logits, bias, w, idx, T, E, K, rsf);
	return cudaGetLastError() != cudaSuccess;
}
