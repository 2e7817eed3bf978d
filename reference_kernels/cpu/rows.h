/* The row-parallel pieces the CPU references share: a row loop split across OpenMP threads with a scratch buffer
 * per thread, bf16 operands widened to fp32 once, and an output row accumulated by axpys over the rows of a weight
 * (i-k-j order, so the inner loop vectorises). Widened operands go into one block the caller allocates: separate
 * large blocks are handed back to the kernel on free and fault in again on the next call, which the timing sees. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

/* one row of a reference: row index, this thread's scratch, the reference's arguments */
typedef void (*row_fn)(long long row, float *scratch, const void *args);

/* calls fn for every row < rows, chunk rows at a time to whichever thread is free (rows may cost unequal work, as
 * causal ones do), each thread with its own scratch of scratch_floats; 1 when a scratch cannot be allocated */
static inline int for_each_row(long long rows, size_t scratch_floats, int chunk, row_fn fn, const void *args)
{
	int rc = 0;
#pragma omp parallel
	{
		float *scratch = malloc((scratch_floats + 1) * sizeof *scratch);
		if (!scratch) {
#pragma omp atomic write
			rc = 1;
		}
#pragma omp for schedule(dynamic, chunk)
		for (long long row = 0; row < rows; row++)
			if (scratch)
				fn(row, scratch, args);
		free(scratch);
	}
	return rc;
}

/* dst[0..n) = src[0..n) as fp32 */
static inline void widen_row(float *dst, const kf_bf16 *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = kf_bf16_to_float(src[i]);
}

/* dst[0..n) = src[0..n) as fp32, split across threads */
static inline void widen_parallel(float *dst, const kf_bf16 *src, size_t n)
{
#pragma omp parallel for schedule(static)
	for (size_t i = 0; i < n; i++)
		dst[i] = kf_bf16_to_float(src[i]);
}

/* acc[0..N) += sum over k < K of (a[k] * scale) * w[k * ldw + 0..N) */
static inline void axpy_rows(float *acc, const float *a, float scale, const float *w, int N, int K, size_t ldw)
{
	for (int k = 0; k < K; k++) {
		const float *wk = w + (size_t)k * ldw;
		float ak = a[k] * scale;
#pragma omp simd
		for (int j = 0; j < N; j++)
			acc[j] += ak * wk[j];
	}
}

/* s[j] = (q . k_j) * scale for j < keys, k_j = k + j * ldk, each an fp32 dot product of D terms; returns the
 * largest s[j] */
static inline float scores_row(float *s, const float *q, const float *k, size_t ldk, int keys, int D, float scale)
{
	float max = -INFINITY;
	for (int j = 0; j < keys; j++) {
		const float *kj = k + (size_t)j * ldk;
		float dot = 0;
#pragma omp simd reduction(+ : dot)
		for (int d = 0; d < D; d++)
			dot += q[d] * kj[d];
		s[j] = dot * scale;
		max = fmaxf(max, s[j]);
	}
	return max;
}

/* s[j] = exp(s[j] - max) for j < keys; returns their sum, accumulated in double */
static inline double exp_row(float *s, int keys, float max)
{
	double sum = 0;
	for (int j = 0; j < keys; j++)
		sum += s[j] = expf(s[j] - max);
	return sum;
}
