/* kforge-test: task=vector_add expect=timeout limit_s=120 */
/* Never finishes: the watchdog kills the runner and the GPU must be usable afterwards. */
__global__ static void spin(float *out)
{
	while (clock64() > 0) /* the cycle counter never goes back to zero */
		;
	out[0] = 0;
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	(void)x, (void)y, (void)n;
	spin<<<1, 1, 0, stream>>>(out);
	return 0;
}
