/* Example candidate for gru_cell (cpu backend): per (batch row, hidden unit), its six gate dot products, then the
 * update written as h + (1 - z) * (n - h). Submit with: kforge submit --task gru_cell examples/cpu/gru_cell.c */
#include <math.h>
#include <stddef.h>

int kf_launch(const float *x, const float *h, const float *W_ih, const float *W_hh, const float *b_ih, const float *b_hh,
	      float *h_out, int B, int I, int Hd)
{
#pragma omp parallel for collapse(2)
	for (int b = 0; b < B; b++)
		for (int j = 0; j < Hd; j++) {
			float gi[3], gh[3];
			for (int q = 0; q < 3; q++) {
				size_t row = (size_t)q * Hd + j;
				gi[q] = b_ih[row];
				gh[q] = b_hh[row];
				for (int i = 0; i < I; i++)
					gi[q] += x[(size_t)b * I + i] * W_ih[row * I + i];
				for (int i = 0; i < Hd; i++)
					gh[q] += h[(size_t)b * Hd + i] * W_hh[row * Hd + i];
			}
			float r = 1.0f / (1.0f + expf(-(gi[0] + gh[0]))), z = 1.0f / (1.0f + expf(-(gi[1] + gh[1])));
			float n = tanhf(gi[2] + r * gh[2]), hp = h[(size_t)b * Hd + j];
			h_out[(size_t)b * Hd + j] = hp + (1.0f - z) * (n - hp);
		}
	return 0;
}
