/* The elementwise tolerance rule of the output checks, shared by the host comparison
 * (compare.c) and the device one (gpu/cuda_kernels.cu), so both judge every element alike:
 * |got - want| <= atol + rtol*|want|; a NaN or infinite expected value must be matched exactly;
 * a non-finite result where the expected value is finite always fails. */
#ifndef KF_COMPARE_RULE_H
#define KF_COMPARE_RULE_H

#include <math.h>
#include <stdbool.h>

#ifdef __CUDACC__
#define KF_HOST_DEVICE __host__ __device__
#else
#define KF_HOST_DEVICE
#endif

/* What one element contributes to the statistics of a comparison (all >= 0, +inf possible). */
struct kf_cmp_elem {
	double abs_err, rel_err, margin;
};

/* True when got passes for want; *e gets the element's contribution to max abs/rel error and margin. */
static inline KF_HOST_DEVICE bool kf_cmp_rule(double got, double want, double atol, double rtol,
					      struct kf_cmp_elem *e)
{
	e->abs_err = e->rel_err = e->margin = 0;
	if (isnan(want) || isinf(want)) {
		bool ok = isnan(want) ? isnan(got) : got == want;
		if (!ok && !isfinite(got))
			e->margin = INFINITY;
		return ok;
	}
	if (!isfinite(got)) {
		e->margin = INFINITY;
		return false;
	}
	double diff = fabs(got - want), bound = atol + rtol * fabs(want);
	e->abs_err = diff;
	e->rel_err = want != 0 ? diff / fabs(want) : 0;
	e->margin = bound > 0 ? diff / bound : (diff > 0 ? INFINITY : 0);
	return diff <= bound;
}

#endif
