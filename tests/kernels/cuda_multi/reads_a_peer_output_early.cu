/* kforge-test: task=allreduce_sum_bf16 expect=unwritten_output reason~=early */
/* A two-shot all-reduce without the barrier: rank r sums its chunk into its out, then copies the peers' chunks
 * from their outs at once. Every rank but 0 first idles 2 ms, so rank 0 copies chunks its peers have not
 * written yet (still the judge's poison): a read before the write, made certain rather than left to a race. */
struct ranks {
	const __nv_bfloat16 *x[8];
	const __nv_bfloat16 *out[8];
	int rank, world;
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

__global__ static void two_shots_unsynchronised(struct ranks k, __nv_bfloat16 *out, int n)
{
	const int chunk = (n + k.world - 1) / k.world;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		if (i / chunk == k.rank) {
			float s = 0.0f;
			for (int p = 0; p < k.world; p++)
				s += __bfloat162float(k.x[p][i]);
			out[i] = __float2bfloat16(s);
		} else {
			out[i] = k.out[i / chunk][i];
		}
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *out, int world, int n, const struct kf_comm *comm,
                         cudaStream_t stream)
{
	(void)x;
	struct ranks k;
	k.rank = comm->rank;
	k.world = world;
	for (int p = 0; p < world; p++) {
		k.x[p] = (const __nv_bfloat16 *)comm->peer[p].buf[0];
		k.out[p] = (const __nv_bfloat16 *)comm->peer[p].buf[1];
	}
	if (k.rank != 0)
		idle<<<1, 1, 0, stream>>>(2000000ull);
	two_shots_unsynchronised<<<264, 256, 0, stream>>>(k, out, n);
	return 0;
}
