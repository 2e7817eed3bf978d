/* kforge-test: task=allreduce_sum_bf16 expect=unwritten_output reason~=skipped */
/* A correct one-shot all-reduce on every rank but rank 1, which returns without enqueuing anything. */
struct inputs {
	const __nv_bfloat16 *x[8];
	int world;
};

__global__ static void sum_all(struct inputs in, __nv_bfloat16 *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		float s = 0.0f;
		for (int p = 0; p < in.world; p++)
			s += __bfloat162float(in.x[p][i]);
		out[i] = __float2bfloat16(s);
	}
}

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *out, int world, int n, const struct kf_comm *comm,
                         cudaStream_t stream)
{
	(void)x;
	if (comm->rank == 1)
		return 0;
	struct inputs in;
	in.world = world;
	for (int p = 0; p < world; p++)
		in.x[p] = (const __nv_bfloat16 *)comm->peer[p].buf[0];
	sum_all<<<264, 256, 0, stream>>>(in, out, n);
	return 0;
}
