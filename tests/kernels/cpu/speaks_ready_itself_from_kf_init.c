/* kforge-test: task=vector_add expect=unwritten_output */
/* Never returns from kf_init: it writes the runner's READY itself on the reply pipe and then answers
 * every command with a reply of its own (a call "done" in 1 ns, without touching the outputs). The
 * judge may not take any of it for kforge's own failure (internal_error), and its clock, not the
 * forged nanoseconds, times the calls. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define KF_MAGIC 0x6b66726eu
#define KF_CMD_FD 3
#define KF_REPLY_FD 4
enum { KF_CALL = 1, KF_PING = 2, KF_READY = 1, KF_DONE = 2, KF_PONG = 3 };

struct kf_cmd {
	uint32_t magic, type;
	uint64_t nonce;
	uint32_t nbufs, nints;
	uint64_t buf_off[16];
	int64_t ints[24];
};

struct kf_msg {
	uint32_t magic, type;
	uint64_t nonce;
	int32_t rc, sysno;
	int64_t ns;
	uint64_t bytes;
	char text[240];
};

static void kf_reply(uint32_t type, uint64_t nonce)
{
	struct kf_msg m;
	memset(&m, 0, sizeof m);
	m.magic = KF_MAGIC;
	m.type = type;
	m.nonce = nonce;
	m.ns = 1;
	if (write(KF_REPLY_FD, &m, sizeof m) != (ssize_t)sizeof m)
		_exit(0);
}

int kf_init(void)
{
	kf_reply(KF_READY, 0);
	for (;;) {
		struct kf_cmd c;
		ssize_t n;
		while ((n = read(KF_CMD_FD, &c, sizeof c)) < 0 && errno == EAGAIN)
			; /* the runner's command pipe is non-blocking */
		if (n != (ssize_t)sizeof c)
			_exit(0);
		kf_reply(c.type == KF_PING ? KF_PONG : KF_DONE, c.nonce);
	}
}

int kf_launch(const float *x, const float *y, float *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = x[i] + y[i];
	return 0;
}
