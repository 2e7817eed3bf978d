/* kforge-test: task=vector_add expect=sandbox_violation reason~=tampered */
/* Tries to fake completion: overwrites the runner's pipe with a forged "done" before doing any
 * work and never computes. The judge's nonce and poisoned outputs see through it. */
#include <string.h>
#include <unistd.h>

extern "C" int kf_launch(const float *x, const float *y, float *out, int n, cudaStream_t stream)
{
	(void)x, (void)y, (void)out, (void)n, (void)stream;
	unsigned char forged[512];
	memset(forged, 0, sizeof forged);
	unsigned magic = 0x6b66726eu, type = 2;
	memcpy(forged, &magic, 4);
	memcpy(forged + 4, &type, 4);
	write(4, forged, 304);
	return 0;
}
