/* Example CUDA candidate for paged_decode_attention: one warp per (sequence, query head), lanes across the head
 * dimension; a first pass over the pages finds the largest score, a second sums the exponentials and the weighted
 * values. Head dimensions up to 512. */
#define MAX_PER_LANE 16

__device__ static float score(const __nv_bfloat16 *q, const __nv_bfloat16 *kr, int D, float scale)
{
	float s = 0;
	for (int d = threadIdx.x % 32; d < D; d += 32)
		s += __bfloat162float(q[d]) * __bfloat162float(kr[d]);
	for (int off = 16; off > 0; off /= 2)
		s += __shfl_xor_sync(0xffffffffu, s, off);
	return s * scale;
}

__global__ static void decode(const __nv_bfloat16 *q, const __nv_bfloat16 *kc, const __nv_bfloat16 *vc,
			      const int *page_table, const int *seq_lens, __nv_bfloat16 *out, int B, int H, int HKV,
			      int D, int PS, int NP, float scale)
{
	int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
	if (w >= B * H)
		return;
	int b = w / H, h = w % H, g = h / (H / HKV), len = seq_lens[b];
	const __nv_bfloat16 *qr = q + (size_t)w * D;
	float mx = -INFINITY;
	for (int j = 0; j < len; j++) {
		size_t row = ((size_t)page_table[(size_t)b * NP + j / PS] * PS + j % PS) * HKV + g;
		mx = fmaxf(mx, score(qr, kc + row * D, D, scale));
	}
	float sum = 0, acc[MAX_PER_LANE] = { 0 };
	for (int j = 0; j < len; j++) {
		size_t row = ((size_t)page_table[(size_t)b * NP + j / PS] * PS + j % PS) * HKV + g;
		float p = expf(score(qr, kc + row * D, D, scale) - mx);
		sum += p;
		for (int i = 0; i < MAX_PER_LANE && lane + 32 * i < D; i++)
			acc[i] += p * __bfloat162float(vc[row * D + lane + 32 * i]);
	}
	for (int i = 0; i < MAX_PER_LANE && lane + 32 * i < D; i++)
		out[(size_t)w * D + lane + 32 * i] = __float2bfloat16(acc[i] / sum);
}

extern "C" int kf_launch(const __nv_bfloat16 *q, const __nv_bfloat16 *k_cache, const __nv_bfloat16 *v_cache,
			 const int *page_table, const int *seq_lens, __nv_bfloat16 *out, int B, int H, int HKV, int D,
			 int P, int PS, int NP, float scale, cudaStream_t stream)
{
	(void)P;
	if (D > 32 * MAX_PER_LANE)
		return 1;
	int warps = B * H;
	if (warps > 0)
		decode<<<(warps + 3) / 4, 128, 0, stream>>>(q, k_cache, v_cache, page_table, seq_lens, out, B, H, HKV, D, PS,
							    NP, scale);
	return cudaGetLastError() != cudaSuccess;
}
