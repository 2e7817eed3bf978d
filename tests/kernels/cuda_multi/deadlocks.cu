/* kforge-test: task=allreduce_sum_bf16 expect=timeout reason~=deadlocks limit_s=120 */
/* Every rank waits for a flag in its own signal region that no peer ever sets. */
__global__ static void wait_for_a_peer(volatile unsigned *flag)
{
	while (*flag == 0)
		__nanosleep(1000);
}

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *out, int world, int n, const struct kf_comm *comm,
                         cudaStream_t stream)
{
	(void)x, (void)out, (void)world, (void)n;
	wait_for_a_peer<<<1, 1, 0, stream>>>((volatile unsigned *)comm->peer[comm->rank].signals);
	return 0;
}
