/* fp64 oracle for cross_entropy_rows:
 * loss[r] = max_r + log(sum_c exp(logits[r, c] - max_r)) - logits[r, targets[r]]. */
#include <math.h>
#include <stddef.h>

int kf_oracle(const double *logits, const double *targets, double *loss, int rows, int classes)
{
	for (int r = 0; r < rows; r++) {
		const double *lr = logits + (size_t)r * classes;
		double max = lr[0], sum = 0;
		for (int c = 1; c < classes; c++)
			max = fmax(max, lr[c]);
		for (int c = 0; c < classes; c++)
			sum += exp(lr[c] - max);
		loss[r] = max + log(sum) - lr[(int)targets[r]];
	}
	return 0;
}
