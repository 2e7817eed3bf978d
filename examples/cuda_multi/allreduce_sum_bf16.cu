/* Example candidate for allreduce_sum_bf16 (level 4): a two-shot all-reduce. Shot one: rank r sums its own
 * chunk of the vector from every rank's x (peer loads) into its out. A barrier: each rank adds 1 to a counter
 * in every peer's signal region (system-scope atomics over NVLink) and waits for world-1 arrivals in its own.
 * Shot two: rank r copies every peer's finished chunk from the peer's out into its own. Each element is summed
 * once, by its owner, so every rank ends with the same bits. */

struct ranks {
	const __nv_bfloat16 *x[8];
	const __nv_bfloat16 *out[8];
	unsigned *counter[8];
	int rank, world;
};

__global__ static void reduce_chunk(struct ranks k, __nv_bfloat16 *out, int lo, int hi)
{
	for (int i = lo + blockIdx.x * blockDim.x + threadIdx.x; i < hi; i += gridDim.x * blockDim.x) {
		float s = 0.0f;
		for (int p = 0; p < k.world; p++)
			s += __bfloat162float(k.x[p][i]);
		out[i] = __float2bfloat16(s);
	}
}

__global__ static void arrive_and_wait(struct ranks k)
{
	if (threadIdx.x != 0)
		return;
	__threadfence_system(); /* shot one's writes reach every GPU before a peer hears of them */
	for (int p = 0; p < k.world; p++)
		if (p != k.rank)
			atomicAdd_system(k.counter[p], 1u);
	while (atomicAdd_system(k.counter[k.rank], 0u) < (unsigned)(k.world - 1))
		__nanosleep(64);
	__threadfence_system();
}

__global__ static void gather_chunks(struct ranks k, __nv_bfloat16 *out, int chunk, int n)
{
	for (int p = 0; p < k.world; p++) {
		if (p == k.rank)
			continue;
		int lo = p * chunk < n ? p * chunk : n, hi = lo + chunk < n ? lo + chunk : n;
		for (int i = lo + blockIdx.x * blockDim.x + threadIdx.x; i < hi; i += gridDim.x * blockDim.x)
			out[i] = k.out[p][i];
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
		k.counter[p] = (unsigned *)comm->peer[p].signals;
	}
	const int chunk = (n + world - 1) / world;
	const int lo = k.rank * chunk < n ? k.rank * chunk : n, hi = lo + chunk < n ? lo + chunk : n;
	reduce_chunk<<<264, 256, 0, stream>>>(k, out, lo, hi);
	arrive_and_wait<<<1, 32, 0, stream>>>(k);
	gather_chunks<<<264, 256, 0, stream>>>(k, out, chunk, n);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
