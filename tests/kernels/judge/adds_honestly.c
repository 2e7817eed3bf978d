/* A plain single-threaded vector_add: the honest twin that the forged-time test puts behind the
 * hooks_the_runners_write.inc prelude (single-threaded, so the machine's load moves it little). */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
