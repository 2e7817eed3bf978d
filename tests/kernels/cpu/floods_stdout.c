/* kforge-test: task=vector_add expect=crash reason~=output */
/* Writes 8 GiB to stdout on its first call, ignoring write errors, then computes the right answer:
 * only an output cap that ends the runner stops it. */
#include <string.h>
#include <unistd.h>

#define KF_FLOOD_BYTES ((size_t)8 << 30)
#define KF_FLOOD_CHUNK ((size_t)1 << 20)

static char kf_chunk[KF_FLOOD_CHUNK];
static int kf_flooded;

int kf_launch(const float *x, const float *y, float *out, int n)
{
	if (!kf_flooded) {
		kf_flooded = 1;
		memset(kf_chunk, 'A', sizeof kf_chunk);
		for (size_t done = 0; done < KF_FLOOD_BYTES; done += KF_FLOOD_CHUNK) {
			ssize_t w = write(STDOUT_FILENO, kf_chunk, sizeof kf_chunk);
			(void)w;
		}
	}
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
