/* Runner core (see runner_core.h). Theory of operation:
 *   The judge forks, puts the child in its own process group, unshares namespaces and execs
 *   this program as "jail". The jail forks the namespace's init (pid 1), which forks the runner
 *   (pid 2). The runner drops root, applies rlimits, maps the shared buffers, brings up the
 *   backend, installs its fault handler and the seccomp filter, whose default action is a user
 *   notification; it hands the notification descriptor to init (init takes it with
 *   pidfd_getfd) and closes its own copy. It then serves the judge's calibration calls on its
 *   own no-op function, and only on LOAD loads the candidate (its constructors run under the
 *   filter). Init supervises from outside the candidate's address space: it answers the
 *   loader's one openat() of the candidate with the descriptor the judge opened, ends the
 *   runner on any other notified call and reports that call, any failure of its own set-up,
 *   and finally the runner's wait status and CPU time, on KF_RFD_STATUS, a pipe the runner
 *   does not hold. The memory cap is RLIMIT_DATA; the allocation wrappers below name a failed
 *   allocation. */
#include "sandbox/runner_core.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "sandbox/jail.h"
#include "sandbox/profile_open.h"
#include "sandbox/runner_proto.h"
#include "sandbox/runner_seccomp.h"

#if !defined(__x86_64__)
#error "the runner's fault handler and the supervisor read x86-64 registers and system call numbers"
#endif

/* The name the candidate is dlopen()ed under; the file itself comes from KF_RFD_SO, injected by
 * the supervisor as the result of the loader's openat(). */
#define KF_CANDIDATE_DLNAME "/kforge/candidate.so"
#define KF_RUNNER_NOFILE 64 /* descriptors per GPU of the job: each device's context opens its own */
#define KF_CMD_SPIN_NS 20000000LL /* CPU time spent spinning for a command before poll() */
#define KF_RUNNER_NPROC 1024 /* threads of the unprivileged runner uid */
#define KF_OOM_FIRST "1000"  /* oom_score_adj: the first task the OOM killer picks */

static volatile sig_atomic_t g_phase = KF_PHASE_SETUP;
static volatile sig_atomic_t g_armed; /* allocation failures are reported once set */

static void send_msg(const struct kf_msg *m)
{
	ssize_t n;
	do
		n = write(KF_RFD_REPLY, m, sizeof *m);
	while (n < 0 && errno == EINTR);
}

static void send_text(uint32_t type, int32_t rc, const char *text)
{
	struct kf_msg m;
	memset(&m, 0, sizeof m);
	m.magic = KF_PROTO_MAGIC;
	m.type = type;
	m.rc = rc;
	snprintf(m.text, sizeof m.text, "%s", text ? text : "");
	send_msg(&m);
}

static __attribute__((noreturn)) void die_setup(const char *why)
{
	send_text(KF_MSG_SETUP_ERROR, 0, why);
	_exit(KF_RUNNER_EXIT_SETUP);
}

/* ---- allocation wrappers: the candidate's malloc binds to these (-rdynamic) ---- */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

void kf_runner_report_memory(size_t bytes)
{
	struct kf_msg m;
	memset(&m, 0, sizeof m);
	m.magic = KF_PROTO_MAGIC;
	m.type = KF_MSG_MEMORY;
	m.rc = g_phase;
	m.bytes = bytes;
	send_msg(&m);
	syscall(SYS_exit_group, KF_RUNNER_EXIT_MEMORY);
}

static void *checked(void *p, size_t bytes)
{
	if (!p && bytes && g_armed)
		kf_runner_report_memory(bytes);
	return p;
}

void *malloc(size_t n) { return checked(__libc_malloc(n), n); }
void *calloc(size_t n, size_t s) { return checked(__libc_calloc(n, s), n * s); }
void *realloc(void *p, size_t n) { return checked(__libc_realloc(p, n), n); }
void free(void *p) { __libc_free(p); }
void *aligned_alloc(size_t a, size_t n) { return checked(__libc_memalign(a, n), n); }
void *memalign(size_t a, size_t n) { return checked(__libc_memalign(a, n), n); }
int posix_memalign(void **out, size_t a, size_t n)
{
	if (a < sizeof(void *) || (a & (a - 1)))
		return EINVAL;
	void *p = checked(__libc_memalign(a, n), n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

/* ---- the runner proper (pid 2 of the namespace) ---- */

struct runner_args {
	size_t shm_bytes, shm_ro_bytes;
	int device;
	int world; /* GPUs of a multi-GPU job (1: one); see kf_runner_world */
	bool vendor_libs;
	struct kf_jail_limits lim;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CPU time this thread has spent (it stands still while the judge has the tree stopped). */
static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The next command. The command pipe is non-blocking and the runner spins on it for a while of
 * its own CPU time before sleeping in poll(): the judge starts its clock, thaws the tree and writes
 * the command, so a thread asleep in read() would add a second wake-up (about 0.2 ms on a virtual
 * CPU) to every timed call. */
static int read_cmd(struct kf_cmd *c)
{
	size_t got = 0;
	int64_t spin_end = thread_cpu_ns() + KF_CMD_SPIN_NS;
	while (got < sizeof *c) {
		ssize_t n = read(KF_RFD_CMD, (char *)c + got, sizeof *c - got);
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			return -1;
		if (errno == EAGAIN && thread_cpu_ns() >= spin_end) {
			struct pollfd p = { .fd = KF_RFD_CMD, .events = POLLIN };
			poll(&p, 1, -1);
		}
	}
	return c->magic == KF_PROTO_MAGIC ? 0 : -1;
}

/* The runner's own call for the judge's calibration: no work, through the same path. */
static int null_call(void *const *bufs, const long long *ints, void *stream)
{
	(void)bufs, (void)ints, (void)stream;
	return 0;
}

/* Answers commands with `call` until the pipe ends (0) or, when load_ends is set, a LOAD
 * arrives (1). */
static int serve(const struct kf_runner_backend *be, void *state, char *base, size_t bytes,
		 kf_shim_call_fn call, bool load_ends)
{
	struct kf_cmd c;
	char why[KF_PROTO_TEXT_MAX];
	while (read_cmd(&c) == 0) {
		struct kf_msg m;
		memset(&m, 0, sizeof m);
		m.magic = KF_PROTO_MAGIC;
		m.nonce = c.nonce;
		if (c.type == KF_CMD_LOAD && load_ends)
			return 1;
		if (c.type == KF_CMD_PING) {
			m.type = KF_MSG_PONG;
			send_msg(&m);
			continue;
		}
		void *bufs[KF_PROTO_MAX_BUFS] = { 0 };
		long long ints[KF_PROTO_MAX_INTS] = { 0 };
		if (c.type != KF_CMD_CALL || c.nbufs > KF_PROTO_MAX_BUFS || c.nints > KF_PROTO_MAX_INTS)
			die_setup("malformed command from the judge");
		for (uint32_t i = 0; i < c.nbufs; i++) {
			if (c.buf_off[i] >= bytes)
				die_setup("buffer offset outside the shared area");
			bufs[i] = base + c.buf_off[i];
		}
		for (uint32_t i = 0; i < c.nints; i++)
			ints[i] = c.ints[i];
		if (!load_ends)
			g_phase = KF_PHASE_LAUNCH;
		int rc = 0;
		int64_t device_ns = -1;
		int64_t t0 = now_ns();
		int ok = be->call(state, call, bufs, ints, &rc, &device_ns, why, sizeof why);
		int64_t t1 = now_ns();
		if (ok != 0) {
			/* A poisoned device context is never reused: report and end. */
			send_text(load_ends ? KF_MSG_SETUP_ERROR : KF_MSG_DEVICE_ERROR, rc, why);
			_exit(KF_RUNNER_EXIT_SETUP);
		}
		m.type = KF_MSG_DONE;
		m.rc = rc;
		m.ns = device_ns >= 0 ? device_ns : t1 - t0;
		send_msg(&m);
	}
	return 0;
}

/* ---- SIGSEGV/SIGBUS: say where the fault was, then die of the signal ---- */

static uintptr_t g_area_base;
static size_t g_area_bytes;
#define KF_PF_WRITE 2 /* x86 page-fault error code: the access was a write */
#define KF_ALTSTACK_BYTES (64 * 1024)

static void on_fault(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	/* Only faults the kernel raised carry an address; a raise() of the signal is just a crash. */
	if (si->si_code > 0) {
		uintptr_t a = (uintptr_t)si->si_addr;
		struct kf_msg m;
		memset(&m, 0, sizeof m);
		m.magic = KF_PROTO_MAGIC;
		m.type = KF_MSG_FAULT;
		m.rc = a >= g_area_base && a - g_area_base < g_area_bytes;
		m.bytes = (uint64_t)(a - g_area_base);
		m.sysno = (uc->uc_mcontext.gregs[REG_ERR] & KF_PF_WRITE) != 0;
		m.ns = sig;
		send_msg(&m);
	}
	/* Back to the default action: the faulting instruction runs again and the process dies of
	 * the signal (a raised one is raised again), so the wait status names it. */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	if (si->si_code <= 0)
		syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
}

static int install_fault_handler(void)
{
	static char altstack[KF_ALTSTACK_BYTES];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack };
	if (sigaltstack(&ss, NULL) != 0)
		return -1;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) != 0 || sigaction(SIGBUS, &sa, NULL) != 0)
		return -1;
	return 0;
}

/* The runner's end of its two pipes to init, during set-up only. */
struct init_link {
	int up, down; /* runner -> init, init -> runner */
};

/* Messages on the runner -> init pipe: here is the listener (its descriptor number), and the
 * next openat is the loader's. Init answers each with one byte: 1 done, 0 failed (it then
 * reports why on the status pipe and ends the runner). */
enum { KF_LINK_LISTENER = 'F', KF_LINK_LOADING = 'L' };

struct link_msg {
	char what;
	int fd;
};

static int ask_init(const struct init_link *l, char what, int fd)
{
	struct link_msg m = { what, fd };
	char ok = 0;
	if (write(l->up, &m, sizeof m) != (ssize_t)sizeof m || read(l->down, &ok, 1) != 1)
		return -1;
	return ok == 1 ? 0 : -1;
}

static __attribute__((noreturn)) void die_errno(const char *step)
{
	char why[KF_PROTO_TEXT_MAX];
	snprintf(why, sizeof why, "%s: %s", step, strerror(errno));
	die_setup(why);
}

static __attribute__((noreturn)) void run_runner(const struct kf_runner_backend *be, const struct runner_args *a,
						   const struct init_link *link)
{
	char why[KF_PROTO_TEXT_MAX];
	/* When its cgroup runs out of memory, the OOM killer takes the runner, never the jail or
	 * the supervisor that report how it ended. Before the uid changes: /proc/self is then
	 * root's. */
	int oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (oom < 0 || write(oom, KF_OOM_FIRST, strlen(KF_OOM_FIRST)) != (ssize_t)strlen(KF_OOM_FIRST))
		die_errno("raising the runner's oom_score_adj");
	close(oom);
	/* A uid of its own: RLIMIT_NPROC and every other per-uid count are this runner's alone. */
	if (kf_jail_drop_root_to(kf_jail_fresh_uid()) != 0)
		die_errno("dropping root privileges to a fresh uid");
	if (fcntl(KF_RFD_CMD, F_SETFL, O_NONBLOCK) != 0) /* read_cmd spins on it */
		die_errno("making the command pipe non-blocking");
	struct kf_jail_limits lim = a->lim;
	if (!be->cap_host_data)
		lim.data_bytes = 0;
	if (kf_jail_set_limits(&lim) != 0)
		die_errno("applying resource limits");
	void *state = NULL;
	if (be->setup && be->setup(&state, a->device, a->lim.data_bytes, a->vendor_libs, why, sizeof why) != 0)
		die_setup(why);
	size_t area_bytes = 0;
	char *base = be->map_buffers(state, KF_RFD_SHM, a->shm_bytes, KF_RFD_SHM_RO, a->shm_ro_bytes, &area_bytes,
				     why, sizeof why);
	if (!base)
		die_setup(why);
	close(KF_RFD_SHM);
	close(KF_RFD_SHM_RO);
	g_area_base = (uintptr_t)base;
	g_area_bytes = area_bytes;
	if (install_fault_handler() != 0)
		die_errno("installing the fault handler");
	int listener = -1;
	if (kf_runner_seccomp_install(getpid(), be->extra_syscalls, be->n_extra, !be->allow_uncounted_maps, &listener,
				      why, sizeof why) != 0)
		die_setup(why);
	/* Init takes its own copy; ours goes before anything of the candidate exists, so the
	 * candidate can never answer its own notifications. */
	if (ask_init(link, KF_LINK_LISTENER, listener) != 0)
		die_setup("the namespace init could not take the seccomp listener (see its report)");
	close(listener);

	/* Trusted until LOAD: the judge times null calls through the backend's own call path. */
	struct kf_msg done;
	memset(&done, 0, sizeof done);
	done.magic = KF_PROTO_MAGIC;
	done.type = KF_MSG_SETUP_DONE;
	done.bytes = (uint64_t)(uintptr_t)base;
	send_msg(&done);
	kf_runner_calibrating = true;
	if (serve(be, state, base, area_bytes, null_call, true) != 1)
		_exit(0);
	kf_runner_calibrating = false;

	if (ask_init(link, KF_LINK_LOADING, -1) != 0)
		die_setup("the namespace init did not acknowledge the load");
	close(link->up);
	close(link->down);
	g_armed = 1;
	g_phase = KF_PHASE_LOAD;
	void *so = dlopen(KF_CANDIDATE_DLNAME, RTLD_NOW | RTLD_LOCAL);
	if (!so) {
		const char *e = dlerror();
		send_text(KF_MSG_LOAD_ERROR, 0, e ? e : "dlopen failed");
		_exit(KF_RUNNER_EXIT_SETUP);
	}
	kf_shim_call_fn call = (kf_shim_call_fn)dlsym(so, KF_SHIM_CALL_SYMBOL);
	kf_shim_init_fn init = (kf_shim_init_fn)dlsym(so, KF_SHIM_INIT_SYMBOL);
	if (!call || !init) {
		send_text(KF_MSG_LOAD_ERROR, 0, "the shared object lacks the generated shim");
		_exit(KF_RUNNER_EXIT_SETUP);
	}
	g_phase = KF_PHASE_INIT;
	int rc = init();
	if (rc != 0) {
		send_text(KF_MSG_INIT_FAILED, rc, "kf_init returned non-zero");
		_exit(0);
	}
	send_text(KF_MSG_READY, 0, NULL);
	serve(be, state, base, area_bytes, call, false);
	_exit(0);
}

static int g_world = 1;

int kf_runner_world(void) { return g_world; }

/* ---- pid 1 of the namespace: the supervisor ---- */

static void init_report(const struct kf_init_report *r)
{
	ssize_t n;
	do
		n = write(KF_RFD_STATUS, r, sizeof *r);
	while (n < 0 && errno == EINTR);
}

static void init_report_setup(const char *step, int err)
{
	struct kf_init_report r;
	kf_init_setup_report(&r, step, err);
	init_report(&r);
}

struct supervisor {
	pid_t child;
	int pidfd, listener, up, down;
	bool loading;   /* the runner said its next openat is the loader's */
	bool so_given;  /* ... and it was answered */
	bool violated;  /* reported once; the runner is being killed */
};

static void end_runner(struct supervisor *s)
{
	kill(s->child, SIGKILL);
	if (s->listener >= 0)
		close(s->listener);
	s->listener = -1;
}

static void fail_setup(struct supervisor *s, const char *step, int err)
{
	init_report_setup(step, err);
	s->violated = true;
	end_runner(s);
}

/* One message from the runner on the set-up pipe; EOF closes it. */
static void on_link(struct supervisor *s)
{
	struct link_msg m;
	ssize_t n = read(s->up, &m, sizeof m);
	if (n != (ssize_t)sizeof m) {
		close(s->up);
		close(s->down);
		s->up = s->down = -1;
		return;
	}
	char ok = 1;
	if (m.what == KF_LINK_LISTENER && s->listener < 0) {
		s->listener = pidfd_getfd(s->pidfd, m.fd, 0);
		if (s->listener < 0) {
			ok = 0;
			fail_setup(s, "pidfd_getfd of the runner's seccomp listener", errno);
		}
	} else if (m.what == KF_LINK_LOADING && s->listener >= 0) {
		s->loading = true;
	} else {
		ok = 0;
		fail_setup(s, "the runner's set-up messages came out of order", EPROTO);
	}
	if (write(s->down, &ok, 1) != 1)
		fail_setup(s, "acknowledging the runner", errno);
}

/* A profiled run (kf_runner_profile) may open what CUPTI's profiler reads while it replays a call
 * (sandbox/profile_open.h says what). Never timed and never judged, it still gets no other file of the
 * machine: the supervisor reads the path out of the runner, decides on it in its own view (the same mount
 * and pid namespaces), opens it itself and hands the descriptor over as the call's result, so what was
 * checked is what was opened (the runner's memory may change in between). Anything else gets EACCES,
 * and CUPTI reports the metric unavailable. */
static void profile_open(struct supervisor *s, const struct seccomp_notif *req)
{
	struct seccomp_notif_resp resp = { .id = req->id, .error = -EACCES };
	char path[PATH_MAX], real[PATH_MAX];
	/* Two pieces split at a page boundary: a read stops at an element it cannot do whole, and the path
	 * may end right before an unmapped page. */
	uintptr_t at = (uintptr_t)req->data.args[1], page = (uintptr_t)sysconf(_SC_PAGESIZE);
	size_t first = page - at % page < sizeof path - 1 ? page - at % page : sizeof path - 1;
	struct iovec local = { path, sizeof path - 1 };
	struct iovec remote[2] = { { (void *)at, first }, { (void *)(at + first), sizeof path - 1 - first } };
	ssize_t n = process_vm_readv((pid_t)req->pid, &local, 1, remote, remote[1].iov_len ? 2 : 1, 0);
	int flags = (int)req->data.args[2], fd = -1;
	if (n > 0) {
		path[n] = 0;
		/* The read is only meaningful while the call still waits (the pid not reused). */
		if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) == 0 && memchr(path, 0, (size_t)n) &&
		    kf_profile_open_path(path, (pid_t)req->pid, flags, real, sizeof real))
			fd = open(real, (flags & (O_ACCMODE | O_NONBLOCK | O_DIRECTORY)) | O_CLOEXEC | O_NOCTTY);
	}
	if (fd >= 0) {
		struct seccomp_notif_addfd add = {
			.id = req->id,
			.flags = SECCOMP_ADDFD_FLAG_SEND,
			.srcfd = (uint32_t)fd,
			.newfd_flags = (uint32_t)(flags & O_CLOEXEC),
		};
		bool sent = ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) >= 0;
		close(fd);
		if (sent)
			return;
	}
	ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp); /* fails only when the caller went away */
}

/* One notified system call: the loader's open of the candidate is answered with the judge's
 * descriptor, atomically as the call's result; in a profiled run, the profiler's opens are brokered
 * (profile_open) and every other call is refused with EACCES; anything else ends the runner and is
 * reported. */
static void on_notification(struct supervisor *s)
{
	struct seccomp_notif req;
	memset(&req, 0, sizeof req); /* the kernel refuses a receive buffer that is not zeroed */
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
		return; /* the caller went away (killed, or interrupted by a signal and retrying) */
	if (s->violated)
		return;
	if (s->loading && !s->so_given && req.data.arch == AUDIT_ARCH_X86_64 && req.data.nr == SYS_openat &&
	    (req.data.args[2] & O_ACCMODE) == O_RDONLY) {
		struct seccomp_notif_addfd add = {
			.id = req.id,
			.flags = SECCOMP_ADDFD_FLAG_SEND,
			.srcfd = KF_RFD_SO,
			.newfd_flags = O_CLOEXEC,
		};
		s->so_given = true;
		if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0)
			fail_setup(s, "handing the candidate to the loader (SECCOMP_IOCTL_NOTIF_ADDFD)", errno);
		close(KF_RFD_SO);
		return;
	}
	if (kf_runner_profile && s->so_given && req.data.arch == AUDIT_ARCH_X86_64 && req.data.nr == SYS_openat) {
		profile_open(s, &req);
		return;
	}
	if (kf_runner_profile && s->so_given && req.data.arch == AUDIT_ARCH_X86_64 &&
	    (req.data.nr == SYS_stat || req.data.nr == SYS_lstat || req.data.nr == SYS_access)) {
		/* What newfstatat, allowed to every runner, tells already (CUPTI's profiler calls stat next). */
		struct seccomp_notif_resp go = { .id = req.id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE };
		ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &go);
		return;
	}
	if (kf_runner_profile && s->so_given && req.data.arch == AUDIT_ARCH_X86_64) {
		/* A profiled run gives no verdict (the judged run did): any other call is refused, not run,
		 * and the profiler, which tries more of the machine than a kernel needs (it unlinks its
		 * temporary files, among others), carries on or reports a metric unavailable. */
		struct seccomp_notif_resp no = { .id = req.id, .error = -EACCES };
		ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &no);
		return;
	}
	s->violated = true;
	end_runner(s);
	struct kf_init_report r;
	memset(&r, 0, sizeof r);
	r.magic = KF_PROTO_MAGIC;
	r.type = KF_INIT_VIOLATION;
	r.sysno = req.data.nr;
	r.arch = req.data.arch;
	init_report(&r);
}

static __attribute__((noreturn)) void supervise(struct supervisor *s)
{
	s->pidfd = pidfd_open(s->child, 0);
	if (s->pidfd < 0)
		fail_setup(s, "pidfd_open of the runner", errno);
	for (;;) {
		struct pollfd p[3] = {
			{ .fd = s->pidfd, .events = POLLIN },
			{ .fd = s->up, .events = POLLIN },
			{ .fd = s->listener, .events = POLLIN },
		};
		if (s->pidfd < 0)
			break;
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			fail_setup(s, "poll in the supervisor", errno);
			break;
		}
		if (p[2].revents & POLLIN)
			on_notification(s);
		else if (p[2].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			close(s->listener); /* no task is left under the filter */
			s->listener = -1;
		}
		if (p[1].revents)
			on_link(s);
		if (p[0].revents)
			break;
	}
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	int status = 0;
	pid_t w;
	do
		w = wait4(s->child, &status, 0, &ru);
	while (w < 0 && errno == EINTR);
	struct kf_init_report r;
	memset(&r, 0, sizeof r);
	r.magic = KF_PROTO_MAGIC;
	r.type = KF_INIT_ENDED;
	r.status = w == s->child ? status : -1;
	r.cpu_ns = ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
		   ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
	init_report(&r);
	_exit(0);
}

static __attribute__((noreturn)) void run_ns_init(const struct kf_runner_backend *be, const struct runner_args *a)
{
	/* pid 1 follows the jail process down; the kernel then ends the whole namespace. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* A /proc that matches the new pid namespace: the CUDA driver looks itself up there and
	 * fails to initialise against the host's view. Without privileges in the namespace (kforge
	 * not run as root) this fails and the host's view stays, which the CPU runner never reads. */
	mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	int up[2], down[2];
	if (pipe2(up, O_CLOEXEC) != 0 || pipe2(down, O_CLOEXEC) != 0) {
		init_report_setup("pipe2 for the runner's set-up link", errno);
		_exit(KF_RUNNER_EXIT_SETUP);
	}
	pid_t child = fork();
	if (child < 0) {
		init_report_setup("fork of the runner", errno);
		_exit(KF_RUNNER_EXIT_SETUP);
	}
	if (child == 0) {
		close(KF_RFD_STATUS);
		close(KF_RFD_SO); /* init hands it to the loader */
		close(up[0]);
		close(down[1]);
		struct init_link link = { up[1], down[0] };
		run_runner(be, a, &link);
	}
	/* Drop every descriptor but the status pipe (so the judge sees EOF when the runner dies)
	 * and the candidate's file (for the loader's open). */
	for (int fd = 0; fd < KF_RFD_FIRST_FREE + a->world - 1; fd++)
		if (fd != KF_RFD_STATUS && fd != KF_RFD_SO)
			close(fd);
	close(up[1]);
	close(down[0]);
	struct supervisor s = { .child = child, .pidfd = -1, .listener = -1, .up = up[0], .down = down[1] };
	supervise(&s);
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = (size_t)v;
	return 0;
}

bool kf_runner_profile, kf_runner_calibrating;

/* argv: jail SHM_BYTES SHM_RO_BYTES CPU_S DATA_BYTES FSIZE_BYTES DEVICE FLAGS [WORLD] (FLAGS: 1 vendor
 * libraries, KF_RUNNER_FLAG_PROFILE a profiled run); with WORLD > 1 (the multi-GPU runner) rank r > 0's
 * buffers are descriptor KF_RFD_FIRST_FREE + r - 1. */
int kf_runner_main(int argc, char **argv, const struct kf_runner_backend *be)
{
	struct runner_args a;
	memset(&a, 0, sizeof a);
	size_t cpu_s = 0, device = 0, vendor = 0, world = 1;
	if ((argc != 9 && argc != 10) || strcmp(argv[1], "jail") != 0 || parse_size(argv[2], &a.shm_bytes) ||
	    parse_size(argv[3], &a.shm_ro_bytes) || parse_size(argv[4], &cpu_s) ||
	    parse_size(argv[5], &a.lim.data_bytes) || parse_size(argv[6], &a.lim.fsize_bytes) ||
	    parse_size(argv[7], &device) || parse_size(argv[8], &vendor) || vendor > (1 | KF_RUNNER_FLAG_PROFILE) ||
	    (argc == 10 && (parse_size(argv[9], &world) || world < 1 || world > KF_RUNNER_MAX_WORLD))) {
		fprintf(stderr, "%s: internal program of kforge (%s runner); not for direct use\n", argv[0], be->name);
		return 2;
	}
	a.world = (int)world;
	g_world = a.world;
	a.lim.cpu_s = (double)cpu_s;
	a.device = (int)device;
	a.vendor_libs = (vendor & 1) != 0;
	kf_runner_profile = (vendor & KF_RUNNER_FLAG_PROFILE) != 0;
	a.lim.nofile = KF_RUNNER_NOFILE * a.world;
	a.lim.nproc = KF_RUNNER_NPROC;
	pid_t init = fork();
	if (init < 0)
		die_errno("fork of the namespace init");
	if (init == 0)
		run_ns_init(be, &a);
	for (int fd = KF_RFD_CMD; fd < KF_RFD_FIRST_FREE + a.world - 1; fd++)
		close(fd);
	int status;
	while (waitpid(init, &status, 0) < 0 && errno == EINTR)
		;
	return 0;
}
