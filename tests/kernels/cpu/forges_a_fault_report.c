/* kforge-test: task=vector_add expect=sandbox_violation reason~=forged */
/* Computes honestly, then on its third call writes the runner's own fault report (KF_MSG_FAULT, a
 * write "inside a guard") on the reply pipe and returns normally. The runner's handler reports a
 * fault only just before it dies of it; a report from a runner that lives on is the candidate's. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define KF_REPLY_FD 4
#define KF_MAGIC 0x6b66726eu
#define KF_MSG_FAULT 11

struct kf_msg {
	uint32_t magic, type;
	uint64_t nonce;
	int32_t rc, sysno;
	int64_t ns;
	uint64_t bytes;
	char text[240];
};

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	static int calls;
	if (++calls < 3)
		return 0;
	struct kf_msg m;
	memset(&m, 0, sizeof m);
	m.magic = KF_MAGIC;
	m.type = KF_MSG_FAULT;
	m.rc = 1;          /* the address is known */
	m.sysno = 1;       /* a write */
	m.bytes = 1 << 20; /* somewhere in the buffer area */
	if (write(KF_REPLY_FD, &m, sizeof m) != (ssize_t)sizeof m)
		return 1;
	return 0;
}
