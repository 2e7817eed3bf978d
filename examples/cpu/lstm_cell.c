/* Example candidate for lstm_cell (cpu backend): per (batch row, hidden unit), its four gate dot products computed
 * together, then the update. Submit with: kforge submit --task lstm_cell examples/cpu/lstm_cell.c */
#include <math.h>
#include <stddef.h>

static float sigmoidf(float v)
{
	return 1.0f / (1.0f + expf(-v));
}

int kf_launch(const float *x, const float *h, const float *c, const float *W_ih, const float *W_hh, const float *b_ih,
	      const float *b_hh, float *h_out, float *c_out, int B, int I, int Hd)
{
#pragma omp parallel for collapse(2)
	for (int b = 0; b < B; b++)
		for (int j = 0; j < Hd; j++) {
			float g[4];
			for (int q = 0; q < 4; q++) {
				size_t row = (size_t)q * Hd + j;
				float acc = b_ih[row] + b_hh[row];
				for (int i = 0; i < I; i++)
					acc += x[(size_t)b * I + i] * W_ih[row * I + i];
				for (int i = 0; i < Hd; i++)
					acc += h[(size_t)b * Hd + i] * W_hh[row * Hd + i];
				g[q] = acc;
			}
			float cn = sigmoidf(g[1]) * c[(size_t)b * Hd + j] + sigmoidf(g[0]) * tanhf(g[2]);
			c_out[(size_t)b * Hd + j] = cn;
			h_out[(size_t)b * Hd + j] = sigmoidf(g[3]) * tanhf(cn);
		}
	return 0;
}
