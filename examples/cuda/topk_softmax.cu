/* Example CUDA candidate for topk_softmax: one thread per token keeps a sorted list of its K best logits (insertion; a
 * strictly larger logit moves ahead, so earlier experts win ties). Correct for K <= 64; not fast. */
#define MAX_K 64

__global__ static void route(const float *logits, float *w, int *idx, int T, int E, int K)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= T)
		return;
	float val[MAX_K];
	int id[MAX_K], n = 0;
	const float *row = logits + (size_t)t * E;
	for (int e = 0; e < E; e++) {
		int p = n;
		while (p > 0 && row[e] > val[p - 1])
			p--;
		if (p >= K)
			continue;
		for (int q = (n < K ? n : K - 1); q > p; q--) {
			val[q] = val[q - 1];
			id[q] = id[q - 1];
		}
		val[p] = row[e];
		id[p] = e;
		if (n < K)
			n++;
	}
	float sum = 0;
	for (int j = 0; j < K; j++)
		sum += expf(val[j] - val[0]);
	for (int j = 0; j < K; j++) {
		w[(size_t)t * K + j] = expf(val[j] - val[0]) / sum;
		idx[(size_t)t * K + j] = id[j];
	}
}

extern "C" int kf_launch(const float *logits, float *w, int *idx, int T, int E, int K, cudaStream_t stream)
{
	if (K > MAX_K)
		return 1;
	if (T > 0)
		route<<<(T + 127) / 128, 128, 0, stream>>>(logits, w, idx, T, E, K);
	return cudaGetLastError() != cudaSuccess;
}
