/* Output checks (see compare.h). */
#include "eval/judge/compare.h"

#include <math.h>
#include <string.h>

#include "eval/judge/compare_rule.h"
#include "eval/tasks/tensor.h"

static void cmp_start(struct kf_cmp *out)
{
	memset(out, 0, sizeof *out);
	out->first_bad = -1;
}

static void cmp_add(struct kf_cmp *out, int64_t i, double g, double w, struct kf_tolerance tol)
{
	struct kf_cmp_elem e;
	bool ok = kf_cmp_rule(g, w, tol.atol, tol.rtol, &e);
	out->max_abs = fmax(out->max_abs, e.abs_err);
	out->max_rel = fmax(out->max_rel, e.rel_err);
	out->margin = fmax(out->margin, e.margin);
	if (!ok && out->n_bad++ == 0) {
		out->first_bad = i;
		out->got = g;
		out->want = w;
	}
}

void kf_compare(enum kf_dtype d, const void *got, const double *want, int64_t n, struct kf_tolerance tol,
		struct kf_cmp *out)
{
	cmp_start(out);
	for (int64_t i = 0; i < n; i++)
		cmp_add(out, i, kf_tensor_get(d, got, i), want[i], tol);
	out->pass = out->n_bad == 0;
}

void kf_compare_typed(enum kf_dtype d, const void *got, const void *want, int64_t n, struct kf_tolerance tol,
		      struct kf_cmp *out)
{
	cmp_start(out);
	for (int64_t i = 0; i < n; i++)
		cmp_add(out, i, kf_tensor_get(d, got, i), kf_tensor_get(d, want, i), tol);
	out->pass = out->n_bad == 0;
}

static bool want_all_within(const double *want, int64_t n, double value, struct kf_tolerance tol)
{
	for (int64_t i = 0; i < n; i++)
		if (!(fabs(want[i] - value) <= tol.atol + tol.rtol * fabs(want[i])))
			return false;
	return true;
}

enum kf_trivial kf_trivial_output(enum kf_dtype d, const void *got, const double *want, int64_t n,
				  struct kf_tolerance tol, const void *const *inputs, const enum kf_dtype *in_dtypes,
				  const int64_t *in_n, int n_inputs, int *copied_input)
{
	if (n == 0)
		return KF_TRIVIAL_NONE;
	double first = kf_tensor_get(d, got, 0);
	bool constant = !isnan(first);
	for (int64_t i = 1; i < n && constant; i++)
		constant = kf_tensor_get(d, got, i) == first;
	if (constant && !want_all_within(want, n, first, tol))
		return first == 0 ? KF_TRIVIAL_ZERO : (n > 1 ? KF_TRIVIAL_CONSTANT : KF_TRIVIAL_NONE);
	size_t bytes = (size_t)n * kf_dtype_size(d);
	for (int i = 0; i < n_inputs; i++) {
		if (in_dtypes[i] != d || in_n[i] != n || memcmp(inputs[i], got, bytes) != 0)
			continue;
		/* A copy is trivial only when the right answer is not (near) that input. */
		struct kf_cmp c;
		kf_compare(d, inputs[i], want, n, tol, &c);
		if (!c.pass) {
			*copied_input = i;
			return KF_TRIVIAL_COPY;
		}
	}
	return KF_TRIVIAL_NONE;
}
