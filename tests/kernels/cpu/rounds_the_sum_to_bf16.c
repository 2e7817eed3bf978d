/* kforge-test: task=vector_add expect=wrong_answer */
/* Rounds every sum to bfloat16 (8 significant bits) as a "faster" lower-precision path would;
 * the fp32 tolerance must catch it. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = kf_bf16_to_float(kf_float_to_bf16(x[i] + y[i]));
	return 0;
}
