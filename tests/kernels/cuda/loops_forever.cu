/* kforge-test: task=vector_add expect=timeout limit_s=120 */
/* Never finishes: the watchdog kills the runner and the GPU must be usable afterwards. */
__global__ static void spin(volatile int *flag) { while (*flag == 0) { } }

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	(void)y, (void)n;
	(void)x;
	spin<<<1, 1, 0, stream>>>((volatile int *)out);
	return 0;
}
