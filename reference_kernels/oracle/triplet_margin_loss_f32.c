/* fp64 oracle for triplet_margin_loss_f32: the two eps-shifted differences, their row L2 norms from the op library,
 * then the mean hinge. */
#include <math.h>
#include <stdlib.h>
#include "oracle/ops.c"

#define PAIRWISE_EPS 1e-6 /* PyTorch's pairwise_distance default */

int kf_oracle(const double *anchor, const double *positive, const double *negative, double *loss, int B, int D,
	      double margin)
{
	size_t n = (size_t)B * D;
	double *diff = calloc(n ? n : 1, sizeof *diff); /* calloc: gcc cannot see that the loops fill it */
	double *dp = malloc(sizeof *dp * (size_t)B), *dn = malloc(sizeof *dn * (size_t)B);
	if (diff && dp && dn) {
		for (size_t i = 0; i < n; i++)
			diff[i] = anchor[i] - positive[i] + PAIRWISE_EPS;
		kf_op_reduce(KF_OP_L2, B, D, 1, diff, dp);
		for (size_t i = 0; i < n; i++)
			diff[i] = anchor[i] - negative[i] + PAIRWISE_EPS;
		kf_op_reduce(KF_OP_L2, B, D, 1, diff, dn);
		loss[0] = 0;
		for (int b = 0; b < B; b++)
			loss[0] += fmax(dp[b] - dn[b] + margin, 0) / B;
	}
	int rc = diff && dp && dn ? 0 : 1;
	free(diff);
	free(dp);
	free(dn);
	return rc;
}
