/* kforge-test: task=vector_add expect=unwritten_output */
/* Processes n rounded down to a multiple of 8, as a careless vectorised kernel would; ragged shapes expose it. */
#define KF_VEC 8

int kf_launch(const float *x, const float *y, float *out, int n)
{
	int body = n - n % KF_VEC;
	for (int i = 0; i < body; i++)
		out[i] = x[i] + y[i];
	return 0;
}
