/* Example candidate for reducescatter_sum_bf16 (level 4): rank r reads chunk r of every rank's x straight
 * from the peers' memory over NVLink, two bf16 at a time where the chunk allows, and writes the fp32 sum. The
 * inputs are all in place when the job starts, so no rank waits for another. */

struct sources {
	const __nv_bfloat16 *chunk[8];
	int world;
};

__global__ static void sum_chunk(struct sources s, __nv_bfloat16 *out, int c)
{
	const int stride = gridDim.x * blockDim.x;
	const int pairs = ((size_t)out & 3u) == 0 && ((size_t)s.chunk[0] & 3u) == 0 ? c / 2 : 0;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += stride) {
		float2 acc = make_float2(0.0f, 0.0f);
		for (int p = 0; p < s.world; p++) {
			float2 v = __bfloat1622float2(((const __nv_bfloat162 *)s.chunk[p])[i]);
			acc.x += v.x;
			acc.y += v.y;
		}
		((__nv_bfloat162 *)out)[i] = __floats2bfloat162_rn(acc.x, acc.y);
	}
	for (int i = 2 * pairs + blockIdx.x * blockDim.x + threadIdx.x; i < c; i += stride) {
		float acc = 0.0f;
		for (int p = 0; p < s.world; p++)
			acc += __bfloat162float(s.chunk[p][i]);
		out[i] = __float2bfloat16(acc);
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *out, int world, int c, const struct kf_comm *comm,
                         cudaStream_t stream)
{
	(void)x;
	struct sources s;
	s.world = world;
	for (int p = 0; p < world; p++)
		s.chunk[p] = (const __nv_bfloat16 *)comm->peer[p].buf[0] + (size_t)comm->rank * c;
	int blocks = (c / 2 + 255) / 256;
	sum_chunk<<<blocks < 1 ? 1 : blocks > 1056 ? 1056 : blocks, 256, 0, stream>>>(s, out, c);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
