/* kforge-test: task=vector_add expect=out_of_bounds reason~=past */
/* Works in tiles of 16 and writes the last tile whole, so on ragged shapes up to 15 elements land
 * past the end of out: inside the slack of the end alignment, before the guard page, where only
 * the patterned canary sees them. */
#define KF_TILE 16

int kf_launch(const float *x, const float *y, float *out, int n)
{
	int whole = (n + KF_TILE - 1) / KF_TILE * KF_TILE;
	for (int i = 0; i < whole; i++)
		out[i] = i < n ? x[i] + y[i] : 0.0f;
	return 0;
}
