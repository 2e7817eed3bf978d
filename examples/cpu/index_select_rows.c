/* Example candidate for index_select_rows (cpu backend): plain loops. Submit with:
 * kforge submit --task index_select_rows examples/cpu/index_select_rows.c */
#include <stddef.h>
#include <string.h>

int kf_launch(const float *x, const int32_t *perm, float *y, int N, int D)
{
	for (int i = 0; i < N; i++)
		memcpy(y + (size_t)i * D, x + (size_t)perm[i] * D, sizeof *y * (size_t)D);
	return 0;
}
