/* Example CUDA candidate for gqa_decode: one warp per (sequence, query head) with the keys split across the lanes
 * (key j to lane j % 32): each lane keeps its own online softmax and a full-width accumulator, and the 32 partial
 * results are merged by shuffles at the end. Head dimensions up to 256. */
#define MAX_D 256

__global__ static void decode(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v,
			      __nv_bfloat16 *out, int B, int H, int HKV, int L, int D, float scale)
{
	int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
	if (w >= B * H)
		return;
	int b = w / H, g = w % H / (H / HKV);
	const __nv_bfloat16 *qr = q + (size_t)w * D;
	size_t kv = ((size_t)b * HKV + g) * L * D;
	float mx = -INFINITY, sum = 0, acc[MAX_D];
	for (int d = 0; d < D; d++)
		acc[d] = 0;
	for (int j = lane; j < L; j += 32) {
		float s = 0;
		for (int d = 0; d < D; d++)
			s += __bfloat162float(qr[d]) * __bfloat162float(k[kv + (size_t)j * D + d]);
		s *= scale;
		float nm = fmaxf(mx, s), corr = expf(mx - nm), p = expf(s - nm);
		sum = sum * corr + p;
		for (int d = 0; d < D; d++)
			acc[d] = acc[d] * corr + p * __bfloat162float(v[kv + (size_t)j * D + d]);
		mx = nm;
	}
	float gmx = mx;
	for (int off = 16; off > 0; off /= 2)
		gmx = fmaxf(gmx, __shfl_xor_sync(0xffffffffu, gmx, off));
	float corr = mx == -INFINITY ? 0.0f : expf(mx - gmx), gsum = sum * corr;
	for (int off = 16; off > 0; off /= 2)
		gsum += __shfl_xor_sync(0xffffffffu, gsum, off);
	for (int d = 0; d < D; d++) {
		float a = acc[d] * corr;
		for (int off = 16; off > 0; off /= 2)
			a += __shfl_xor_sync(0xffffffffu, a, off);
		if (lane == 0)
			out[(size_t)w * D + d] = __float2bfloat16(a / gsum);
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v, __nv_bfloat16 *out,
			 int B, int H, int HKV, int L, int D, float scale, cudaStream_t stream)
{
	if (D > MAX_D)
		return 1;
	int warps = B * H;
	if (warps > 0)
		decode<<<(warps + 3) / 4, 128, 0, stream>>>(q, k, v, out, B, H, HKV, L, D, scale);
	return cudaGetLastError() != cudaSuccess;
}
