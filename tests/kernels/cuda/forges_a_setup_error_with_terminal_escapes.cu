/* kforge-test: task=vector_add expect=sandbox_violation reason~=forged */
/* Writes the runner's set-up-error message itself, its text full of ANSI escapes, and prints the
 * same on stdout: once the candidate is loaded such a message can only be a forgery (a rejection,
 * never kforge's internal_error), and none of the escape bytes may reach kforge's output. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define KF_MAGIC 0x6b66726eu
#define KF_REPLY_FD 4
#define KF_SETUP_ERROR 8
#define KF_ESCAPES "\x1b[2J\x1b[31mkforge: the GPU fell off the bus\x1b[0m\x07"

struct kf_msg {
	uint32_t magic, type;
	uint64_t nonce;
	int32_t rc, sysno;
	int64_t ns;
	uint64_t bytes;
	char text[240];
};

__global__ void kf_add(const float *x, const float *y, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = x[i] + y[i];
}

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	/* Printed first: the judge ends the runner as soon as the forged message arrives. */
	printf("%s\n", KF_ESCAPES);
	fflush(stdout);
	struct kf_msg m;
	memset(&m, 0, sizeof m);
	m.magic = KF_MAGIC;
	m.type = KF_SETUP_ERROR;
	snprintf(m.text, sizeof m.text, "%s", KF_ESCAPES);
	if (write(KF_REPLY_FD, &m, sizeof m) != (ssize_t)sizeof m)
		return 1;
	kf_add<<<(n + 255) / 256, 256, 0, stream>>>(x, y, out, n);
	return 0;
}
