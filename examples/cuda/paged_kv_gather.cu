/* Paged-KV gather: a block per output token row (b, j); the page is looked up once, the row copied with float4
 * moves when D is a multiple of 4. */
#define THREADS 128

__global__ static void gather_pages(const float *kv, const int *page_table, float *out, int NP, int PS, int D)
{
	int row = blockIdx.x, tokens = NP * PS, b = row / tokens, j = row % tokens;
	const float *src = kv + ((size_t)page_table[(size_t)b * NP + j / PS] * PS + j % PS) * D;
	float *dst = out + (size_t)row * D;
	if (D % 4 == 0 && (size_t)src % 16 == 0 && (size_t)dst % 16 == 0)
		for (int c = threadIdx.x; c < D / 4; c += THREADS)
			((float4 *)dst)[c] = ((const float4 *)src)[c];
	else
		for (int c = threadIdx.x; c < D; c += THREADS)
			dst[c] = src[c];
}

extern "C" int kf_launch(const float *kv, const int *page_table, float *out, int B, int NP, int P, int PS, int D,
			 cudaStream_t stream)
{
	(void)P;
	gather_pages<<<B * NP * PS, THREADS, 0, stream>>>(kv, page_table, out, NP, PS, D);
	return cudaGetLastError() != cudaSuccess;
}
