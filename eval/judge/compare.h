/* Output checks of one trial: the tolerance comparison (|got - want| <= atol + rtol*|want|,
 * NaN/Inf only where the reference has them), error statistics, and the trivial-output guard
 * (all zeros, a constant, a copy of an input, while the reference is none of these). */
#ifndef KF_COMPARE_H
#define KF_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "eval/tasks/task.h"

struct kf_cmp {
	bool pass;
	int64_t n_bad;
	int64_t first_bad;   /* -1 when none */
	double got, want;    /* at first_bad */
	double max_abs, max_rel; /* over finite pairs */
	double margin;       /* max over elements of |got-want| / (atol + rtol|want|): < 1 passes */
};

void kf_compare(enum kf_dtype d, const void *got, const double *want, int64_t n, struct kf_tolerance tol,
		struct kf_cmp *out);
/* The same with the expected values in the output's own dtype (a reference kernel's output). */
void kf_compare_typed(enum kf_dtype d, const void *got, const void *want, int64_t n, struct kf_tolerance tol,
		      struct kf_cmp *out);

enum kf_trivial { KF_TRIVIAL_NONE, KF_TRIVIAL_ZERO, KF_TRIVIAL_CONSTANT, KF_TRIVIAL_COPY };
/* inputs[i] (with dtypes and counts) are checked as copy sources. */
enum kf_trivial kf_trivial_output(enum kf_dtype d, const void *got, const double *want, int64_t n,
				  struct kf_tolerance tol, const void *const *inputs, const enum kf_dtype *in_dtypes,
				  const int64_t *in_n, int n_inputs, int *copied_input);

#endif
