/* kforge-test: task=allreduce_sum_bf16 expect=ok */
/* Its timed stream gets nothing: every rank idles 3 ms on a stream of its own, then sums into a buffer of its own
 * and copies the result into out there, still running when kf_launch returns. The runner's synchronisation of every
 * device makes the copy land before the judge looks, and the judge's clock charges the time the claim left out
 * (test_multi_gpu.c checks time_ms). */
struct inputs {
	const __nv_bfloat16 *x[8];
	int world;
};

__global__ static void idle(unsigned long long ns)
{
	unsigned long long t0, t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do {
		__nanosleep(1000);
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	} while (t - t0 < ns);
}

__global__ static void sum_all(struct inputs in, __nv_bfloat16 *dst, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		float s = 0.0f;
		for (int p = 0; p < in.world; p++)
			s += __bfloat162float(in.x[p][i]);
		dst[i] = __float2bfloat16(s);
	}
}

static cudaStream_t g_side[8];
static __nv_bfloat16 *g_staging[8];
static int g_staged[8];

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *out, int world, int n, const struct kf_comm *comm,
                         cudaStream_t stream)
{
	(void)x, (void)stream;
	const int r = comm->rank;
	if (!g_side[r] && cudaStreamCreateWithFlags(&g_side[r], cudaStreamNonBlocking) != cudaSuccess)
		return 1;
	if (g_staged[r] < n) {
		if (g_staging[r])
			cudaFree(g_staging[r]);
		if (cudaMalloc((void **)&g_staging[r], (size_t)n * sizeof(__nv_bfloat16)) != cudaSuccess)
			return 1;
		g_staged[r] = n;
	}
	struct inputs in;
	in.world = world;
	for (int p = 0; p < world; p++)
		in.x[p] = (const __nv_bfloat16 *)comm->peer[p].buf[0];
	idle<<<1, 1, 0, g_side[r]>>>(3000000ull);
	sum_all<<<264, 256, 0, g_side[r]>>>(in, g_staging[r], n);
	cudaMemcpyAsync(out, g_staging[r], (size_t)n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToDevice, g_side[r]);
	return 0;
}
