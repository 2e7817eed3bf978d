/* kforge-test: task=vector_add expect=unwritten_output */
/* Writes nothing and hopes the output buffer still holds the last correct answer. */
extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	(void)x, (void)y, (void)out, (void)n, (void)stream;
	return 0;
}
