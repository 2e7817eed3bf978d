/* kforge-test: task=vector_add expect=runtime_error reason~=cudaError */
/* Executes __trap(): a sticky error that poisons the context. */
__global__ static void boom(float *out) { out[0] = 1; __trap(); }

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	(void)x, (void)y, (void)n;
	boom<<<1, 1, 0, stream>>>(out);
	return 0;
}
