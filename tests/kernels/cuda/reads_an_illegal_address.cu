/* kforge-test: task=vector_add expect=runtime_error reason~=illegal */
/* Writes far outside any allocation. */
__global__ static void wild(float *out) { out[(size_t)1 << 40] = 1; }

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	(void)x, (void)y, (void)n;
	wild<<<1, 1, 0, stream>>>(out);
	return 0;
}
