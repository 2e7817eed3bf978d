/* Example candidate for swiglu_up (cpu backend): both weights transposed to fp32 once, then two dot products per
 * output; rows split across OpenMP threads.
 * Submit with: kforge submit --task swiglu_up examples/cpu/swiglu_up.c */
#include <math.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *X, const kf_bf16 *Wg, const kf_bf16 *Wu, kf_bf16 *H, int M, int N, int K)
{
	size_t kn = (size_t)K * N;
	float *gt = malloc((2 * kn + 1) * sizeof *gt);
	if (!gt)
		return 1;
	float *ut = gt + kn;
#pragma omp parallel
	{
#pragma omp for
		for (int j = 0; j < N; j++)
			for (int k = 0; k < K; k++) {
				gt[(size_t)j * K + k] = kf_bf16_to_float(Wg[(size_t)k * N + j]);
				ut[(size_t)j * K + k] = kf_bf16_to_float(Wu[(size_t)k * N + j]);
			}
#pragma omp for
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				float g = 0, u = 0;
				for (int k = 0; k < K; k++) {
					float a = kf_bf16_to_float(X[(size_t)i * K + k]);
					g += a * gt[(size_t)j * K + k];
					u += a * ut[(size_t)j * K + k];
				}
				H[(size_t)i * N + j] = kf_float_to_bf16(g / (1.0f + expf(-g)) * u);
			}
	}
	free(gt);
	return 0;
}
