/* The judge <-> runner wire protocol: fixed-size binary messages on two pipes (commands in,
 * replies out), and the namespace init's reports on a third (KF_RFD_STATUS). Every message is
 * smaller than PIPE_BUF, so a write is atomic. Once the candidate is loaded the reply pipe is
 * the candidate's to write: the judge takes a reply as a claim about the call at most (its
 * clock is its own, outputs are read from shared memory by the judge itself). The status pipe
 * is written only by the namespace init, which never runs candidate code. */
#ifndef KF_RUNNER_PROTO_H
#define KF_RUNNER_PROTO_H

#include <stdint.h>
#include <string.h>

#define KF_PROTO_MAGIC 0x6b66726eu /* "kfrn" */
#define KF_PROTO_MAX_BUFS 16 /* KF_MAX_TENSORS */
#define KF_PROTO_MAX_INTS 24 /* KF_MAX_SYMBOLS shape symbols, then up to KF_MAX_SCALARS scalar parameters */
#define KF_PROTO_TEXT_MAX 240

/* File descriptors the runner finds already open at exec. */
enum kf_runner_fd {
	KF_RFD_CMD = 3,    /* commands from the judge (read end) */
	KF_RFD_REPLY = 4,  /* replies to the judge (write end) */
	KF_RFD_SHM = 5,    /* shared buffers (memfd) */
	KF_RFD_SO = 6,     /* the candidate shared object, opened read-only by the judge */
	KF_RFD_STATUS = 7, /* the namespace init writes the runner's wait status here */
	KF_RFD_SHM_RO = 8, /* read-only inputs (a sealed memfd), or /dev/null when unused */
	KF_RFD_FIRST_FREE = 9,
};

/* The runner's FLAGS argument: bit 0 loads the vendor libraries; this bit makes a profiled run. */
#define KF_RUNNER_FLAG_PROFILE 2

/* A runner is ended by killing it. Until LOAD, CALL runs the runner's own no-op function through
 * the backend's call path: the judge calibrates its clock on that trusted code. */
enum kf_cmd_type { KF_CMD_CALL = 1, KF_CMD_PING = 2, KF_CMD_LOAD = 3 };

enum kf_msg_type {
	KF_MSG_READY = 1,      /* loaded, kf_init done */
	KF_MSG_DONE = 2,       /* kf_launch returned rc after ns nanoseconds */
	KF_MSG_PONG = 3,
	KF_MSG_MEMORY = 5,     /* an allocation of `bytes` failed under the memory cap */
	KF_MSG_LOAD_ERROR = 6, /* dlopen/dlsym failed; text says why */
	KF_MSG_INIT_FAILED = 7,/* kf_init returned rc */
	KF_MSG_SETUP_ERROR = 8,/* the runner could not set up its jail; text says why (kforge's fault) */
	KF_MSG_DEVICE_ERROR = 9,/* the device failed during a call (a sticky CUDA error); text names it */
	KF_MSG_SETUP_DONE = 10,/* jail and filter in place, nothing loaded: calibration calls now */
	KF_MSG_FAULT = 11,     /* SIGSEGV/SIGBUS at `bytes` past the area base (rc: 1 if inside the area),
				  sysno: 1 for a write */
};

/* What the runner was doing; reported with violations. */
enum kf_runner_phase { KF_PHASE_SETUP = 0, KF_PHASE_LOAD = 1, KF_PHASE_INIT = 2, KF_PHASE_LAUNCH = 3 };

struct kf_cmd {
	uint32_t magic, type;
	uint64_t nonce;
	uint32_t nbufs, nints;
	uint64_t buf_off[KF_PROTO_MAX_BUFS];
	int64_t ints[KF_PROTO_MAX_INTS];
};

struct kf_msg {
	uint32_t magic, type;
	uint64_t nonce;
	int32_t rc;
	int32_t sysno;
	int64_t ns;
	uint64_t bytes;
	char text[KF_PROTO_TEXT_MAX];
};

/* What the namespace init reports on KF_RFD_STATUS: zero or more of VIOLATION and SETUP_ERROR,
 * then ENDED once the runner is reaped. */
enum kf_init_report_type {
	KF_INIT_ENDED = 1,       /* status: wait4's status; cpu_ns: the runner's user + system time */
	KF_INIT_VIOLATION = 2,   /* a system call the filter refused: sysno, arch (AUDIT_ARCH_*) */
	KF_INIT_SETUP_ERROR = 3, /* the supervision could not be set up: text names the step, err the errno */
};

struct kf_init_report {
	uint32_t magic, type;
	int32_t status, sysno;
	uint32_t arch;
	int32_t err;
	int64_t cpu_ns;
	char text[KF_PROTO_TEXT_MAX];
};

/* A set-up failure as the jail process or the namespace's init reports it (async-signal-safe). */
static inline void kf_init_setup_report(struct kf_init_report *r, const char *step, int err)
{
	memset(r, 0, sizeof *r);
	r->magic = KF_PROTO_MAGIC;
	r->type = KF_INIT_SETUP_ERROR;
	r->err = err;
	size_t n = strlen(step);
	if (n >= sizeof r->text)
		n = sizeof r->text - 1;
	memcpy(r->text, step, n);
}

_Static_assert(sizeof(struct kf_init_report) <= 512, "init reports must stay atomic pipe writes");
_Static_assert(sizeof(struct kf_msg) <= 512, "replies must stay atomic pipe writes");
_Static_assert(sizeof(struct kf_cmd) <= 512, "commands must stay atomic pipe writes");

#endif
