/* Example candidate for paged_kv_gather (cpu backend): plain loops. Submit with:
 * kforge submit --task paged_kv_gather examples/cpu/paged_kv_gather.c */
#include <stddef.h>
#include <string.h>

int kf_launch(const float *kv, const int32_t *page_table, float *out, int B, int NP, int P, int PS, int D)
{
	(void)P;
	for (int b = 0; b < B; b++)
		for (int p = 0; p < NP; p++)
			memcpy(out + ((size_t)b * NP + p) * PS * D, kv + (size_t)page_table[(size_t)b * NP + p] * PS * D,
			       sizeof *out * (size_t)PS * D);
	return 0;
}
