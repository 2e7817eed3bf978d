/* kforge-test: task=vector_add expect=timeout */
/* Spins forever on the first call: the watchdog must kill it on wall time. */
int kf_launch(const float *x, const float *y, float *out, int n)
{
	volatile unsigned long spins = 0;
	for (;;)
		spins++;
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
