/* CPU reference for swiglu_up: H = silu(X @ Wg) * (X @ Wu). Wg and Wu are widened to fp32 once; each row keeps two
 * fp32 accumulator rows (gate and up) filled by axpys over rows of the weights, combined and rounded once at the end.
 * Rows split across OpenMP threads. */
#include <math.h>
#include <stdlib.h>

int kf_launch(const kf_bf16 *X, const kf_bf16 *Wg, const kf_bf16 *Wu, kf_bf16 *H, int M, int N, int K)
{
	size_t kn = (size_t)K * N;
	float *wg = malloc((2 * kn + 1) * sizeof *wg);
	if (!wg)
		return 1;
	float *wu = wg + kn;
	int rc = 0;
#pragma omp parallel
	{
#pragma omp for schedule(static)
		for (size_t i = 0; i < kn; i++) {
			wg[i] = kf_bf16_to_float(Wg[i]);
			wu[i] = kf_bf16_to_float(Wu[i]);
		}
		float *g = malloc((2 * (size_t)N + 1) * sizeof *g);
		if (!g) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for schedule(static)
		for (int i = 0; i < M; i++) {
			if (!g)
				continue;
			float *u = g + N;
			for (int j = 0; j < N; j++)
				g[j] = u[j] = 0;
			for (int k = 0; k < K; k++) {
				float a = kf_bf16_to_float(X[(size_t)i * K + k]);
				const float *gk = wg + (size_t)k * N, *uk = wu + (size_t)k * N;
#pragma omp simd
				for (int j = 0; j < N; j++) {
					g[j] += a * gk[j];
					u[j] += a * uk[j];
				}
			}
			for (int j = 0; j < N; j++)
				H[(size_t)i * N + j] = kf_float_to_bf16(g[j] / (1.0f + expf(-g[j])) * u[j]);
		}
		free(g);
	}
	free(wg);
	return rc;
}
