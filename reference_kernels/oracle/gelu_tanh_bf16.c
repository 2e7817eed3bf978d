/* fp64 oracle for gelu_tanh_bf16: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
#include <math.h>

int kf_oracle(const double *x, double *y, int n)
{
	const double pi = 3.14159265358979323846;
	for (int i = 0; i < n; i++)
		y[i] = 0.5 * x[i] * (1 + tanh(sqrt(2 / pi) * (x[i] + 0.044715 * x[i] * x[i] * x[i])));
	return 0;
}
