/* kforge-test: task=vector_add expect=compile_error reason~=rejected */
/* Includes /dev/zero with the digraph spelling of '#' (%:include), which a scan for "#include" misses:
 * given the device, cc1 reads zeros until the host's memory runs out. The compile jail has no device
 * but /dev/null, and an address-space limit besides, so the compile fails at once. */
%:include "/dev/zero"

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
