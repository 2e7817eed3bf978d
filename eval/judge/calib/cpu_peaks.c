/* CPU ceilings for speed of light, compiled at run time with the candidates' own flags
 * (-O3 -march=native -fopenmp) so they use the same instructions a candidate can.
 * kf_calib_bandwidth: best streaming rate over a copy, a STREAM triad and a read-only sum (bytes
 *   moved per second, reads + writes), so no one pattern's quirks (write-allocate traffic the
 *   count does not see) set the ceiling too low.
 * kf_calib_fp32_flops: best fused multiply-add rate over all cores (flop/s). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define CALIB_COPY_BYTES (256u << 20) /* far larger than any last-level cache */
#define CALIB_REPS 10
#define CALIB_FMA_ITERS 4000000
/* Native vector width, and independent FMA chains: enough to cover FMA latency x units, few
 * enough that every accumulator stays in a register (16 AVX2 / 32 AVX-512 registers). */
#if defined(__AVX512F__)
#define CALIB_VEC_BYTES 64
#define CALIB_CHAINS 16
#else
#define CALIB_VEC_BYTES 32
#define CALIB_CHAINS 10
#endif

typedef float vfloat __attribute__((vector_size(CALIB_VEC_BYTES)));

double kf_calib_bandwidth(void)
{
	size_t n = CALIB_COPY_BYTES / sizeof(float);
	float *a = aligned_alloc(64, CALIB_COPY_BYTES), *b = aligned_alloc(64, CALIB_COPY_BYTES);
	float *c = aligned_alloc(64, CALIB_COPY_BYTES);
	if (!a || !b || !c)
		return 0;
#pragma omp parallel for schedule(static)
	for (size_t i = 0; i < n; i++) {
		a[i] = 0;
		b[i] = (float)i;
		c[i] = 1;
	}
	double best = 0;
	for (int r = 0; r < CALIB_REPS; r++) {
		double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
		for (size_t i = 0; i < n; i++)
			a[i] = b[i];
		double t = omp_get_wtime() - t0;
		if (t > 0 && 2.0 * CALIB_COPY_BYTES / t > best)
			best = 2.0 * CALIB_COPY_BYTES / t;
		t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
		for (size_t i = 0; i < n; i++)
			a[i] = b[i] + 3.0f * c[i];
		t = omp_get_wtime() - t0;
		if (t > 0 && 3.0 * CALIB_COPY_BYTES / t > best)
			best = 3.0 * CALIB_COPY_BYTES / t;
		float sum = 0;
		t0 = omp_get_wtime();
#pragma omp parallel for schedule(static) reduction(+ : sum)
		for (size_t i = 0; i < n; i++)
			sum += b[i];
		t = omp_get_wtime() - t0;
		if (sum != -1.f && t > 0 && (double)CALIB_COPY_BYTES / t > best)
			best = (double)CALIB_COPY_BYTES / t;
	}
	volatile float sink = a[n / 2];
	(void)sink;
	free(a);
	free(b);
	free(c);
	return best;
}

double kf_calib_fp32_flops(void)
{
	double best = 0;
	for (int r = 0; r < 3; r++) {
		int threads = 1;
		double t0 = omp_get_wtime();
		float sink = 0;
#pragma omp parallel reduction(+ : sink)
		{
#pragma omp single
			threads = omp_get_num_threads();
			vfloat acc[CALIB_CHAINS];
			vfloat m, c;
			for (int k = 0; k < (int)(sizeof m / sizeof m[0]); k++) {
				m[k] = 0.9999f;
				c[k] = 1e-4f;
			}
			for (int j = 0; j < CALIB_CHAINS; j++)
				acc[j] = c * (float)(j + 1);
			for (long i = 0; i < CALIB_FMA_ITERS; i++)
				for (int j = 0; j < CALIB_CHAINS; j++)
					acc[j] = acc[j] * m + c;
			for (int j = 0; j < CALIB_CHAINS; j++)
				sink += acc[j][0];
		}
		double t = omp_get_wtime() - t0;
		double flops = 2.0 * (sizeof(vfloat) / sizeof(float)) * CALIB_CHAINS * (double)CALIB_FMA_ITERS * threads;
		if (sink != 12345.f && t > 0 && flops / t > best)
			best = flops / t;
	}
	return best;
}
