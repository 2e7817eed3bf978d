/* kforge-test: task=cosine_similarity_loss expect=out_of_bounds reason~=workspace */
/* A correct cosine-similarity loss that also writes one float past the end of its 4*B-byte workspace (a sum it
 * keeps after the per-row terms): the judge's canary after the workspace catches it, like any tensor's. */
__global__ static void row_terms(const float *p, const float *t, float *terms, int B, int D)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= B)
		return;
	float dot = 0, pp = 0, tt = 0;
	for (int k = 0; k < D; k++) {
		float a = p[(size_t)row * D + k], b = t[(size_t)row * D + k];
		dot += a * b;
		pp += a * a;
		tt += b * b;
	}
	terms[row] = 1.0f - dot / sqrtf(pp * tt);
}

__global__ static void average(float *terms, float *loss, int B)
{
	float s = 0;
	for (int i = 0; i < B; i++)
		s += terms[i];
	terms[B] = s; /* one past the end */
	loss[0] = s / B;
}

extern "C" int kf_launch(const float *pred, const float *target, float *loss, int B, int D, void *workspace,
			 cudaStream_t stream)
{
	float *terms = (float *)workspace;
	row_terms<<<(B + 127) / 128, 128, 0, stream>>>(pred, target, terms, B, D);
	average<<<1, 1, 0, stream>>>(terms, loss, B);
	return cudaGetLastError() != cudaSuccess;
}
