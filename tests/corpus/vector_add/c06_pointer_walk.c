/* kforge-corpus: task=vector_add intended=correct */
/* Pointer walk. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	const float *a = x, *b = y;
	float *o = out;
	while (n-- > 0)
		*o++ = *a++ + *b++;
	return 0;
}
