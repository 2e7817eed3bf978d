/* kforge-test: task=allreduce_sum_bf16 expect=inputs_modified reason~=peer's */
/* A correct one-shot all-reduce; then rank 0 overwrites the first element of rank 1's x over NVLink. */
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

__global__ static void scribble(__nv_bfloat16 *peer_x) { peer_x[0] = __float2bfloat16(42.0f); }

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *out, int world, int n, const struct kf_comm *comm,
                         cudaStream_t stream)
{
	(void)x;
	struct inputs in;
	in.world = world;
	for (int p = 0; p < world; p++)
		in.x[p] = (const __nv_bfloat16 *)comm->peer[p].buf[0];
	sum_all<<<264, 256, 0, stream>>>(in, out, n);
	if (comm->rank == 0)
		scribble<<<1, 1, 0, stream>>>((__nv_bfloat16 *)comm->peer[1].buf[0]);
	return 0;
}
