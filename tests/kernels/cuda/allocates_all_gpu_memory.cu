/* kforge-test: task=vector_add expect=memory_limit */
/* Grabs every byte of device memory it can. */
extern "C" int kf_init(void)
{
	size_t free_b = 0, total = 0;
	cudaMemGetInfo(&free_b, &total);
	void *p;
	return cudaMalloc(&p, free_b) != cudaSuccess;
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	(void)x, (void)y, (void)out, (void)n, (void)stream;
	return 0;
}
