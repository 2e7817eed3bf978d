/* Judge-side control of one untrusted runner (see sandbox.h): spawning it into its jail,
 * the command/reply exchange with a watchdog on every wait, the judge's own clock on every
 * exchange, freezing the runner's process tree between exchanges, the calibration on the
 * runner's trusted no-op call before the candidate is loaded, and turning the way a runner
 * ended (a report, a signal, an exit, a timeout) into a verdict with a reason.
 *
 * Once LOAD is sent, everything on the reply pipe may have been written by the candidate: a
 * reply is a claim about its own call at most, never a set-up error, and its timing claim is
 * only ever reported beside the judge's clock. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/text.h"
#include "sandbox/cgroup.h"
#include "sandbox/jail.h"
#include "sandbox/runner_core.h"
#include "sandbox/runner_proto.h"
#include "sandbox/runner_seccomp.h"
#include "sandbox/sandbox.h"

#define KF_RUNNER_LOAD_TIMEOUT_S 20.0 /* loading + kf_init, on top of the call timeout */
#define KF_RUNNER_REAP_TIMEOUT_MS 2000
#define KF_RUNNER_LOG_CAP (1u << 20)  /* stdout+stderr bytes before SIGXFSZ */
#define KF_RUNNER_LOG_KEEP (16u << 10) /* bytes of it kept for the record */
#define KF_FD_PARK 100                 /* descriptors are parked here while being renumbered */
/* How long the judge busy-polls a reply before sleeping in poll(): a sleeper's wake-up would be in the
 * judge's clock. On a CPU the spinning judge takes a core from the candidate's threads, so only briefly;
 * a GPU runner's host threads are idle while the device works, and kernels run for milliseconds. */
static const int64_t reply_spin_ns[KF_BACKEND_COUNT] = { [KF_BACKEND_CPU] = 2000000LL,
							 [KF_BACKEND_CUDA] = 50000000LL };
#define KF_FREEZE_TIMEOUT_NS 1000000000LL /* every runner thread stopped within this, or killed */
#define KF_FREEZE_POLL_NS 20000L       /* pause between looks at the runner's threads */
#define KF_CALIB_P90 0.9
#define KF_X32_SYSCALL_BIT 0x40000000
#define KF_CPU_LIMIT_SLACK 0.99        /* rusage against RLIMIT_CPU: tick-granular accounting */
#define KF_CGROUP_PREFIX "kforge-runner"
#define KF_CGROUP_PIDS_MAX 512          /* tasks (threads included) of one runner's tree */
#define KF_CGROUP_HEADROOM ((size_t)1 << 30) /* the runner's own pages on top of the data cap */
#define KF_CGROUP_CUDA_HOST_BYTES ((size_t)16 << 30) /* a CUDA runner's host memory (the driver's too) */

/* The steps of a runner's start, in order; each mark is the judge's clock when the step ended. */
enum { START_BEGUN, START_LAUNCHED, START_SET_UP, START_CALIBRATED, START_READY, START_MARKS };

struct kf_runner {
	pid_t pid;        /* the jail process; also the process group of the whole tree */
	pid_t runner_pid; /* the runner process (the jail's grandchild), host pid; 0 until found */
	int cmd_fd, reply_fd, status_fd, log_fd;
	double call_timeout_s;
	double cpu_limit_s; /* the runner's RLIMIT_CPU (soft) */
	enum kf_backend backend;
	bool frozen; /* the tree was stopped after the last reply */
	bool loaded; /* LOAD was sent: from here on the reply pipe speaks for the candidate */
	bool ready;  /* answered READY: it takes commands */
	int end_signal; /* the signal the runner died of, once reaped (0: none or unknown) */
	struct kf_runner_calib calib;
	struct kf_cgroup cg; /* its cgroup, where the machine offers them */
	char *output;
	int spare_fd; /* a spare's candidate file (a memfd), until kf_runner_supply fills and seals it; else -1 */
	int64_t start_ns[START_MARKS]; /* the judge's clock at each step of the start (kf_runner_start_steps) */
};

static const char *phase_name(int phase)
{
	switch (phase) {
	case KF_PHASE_LOAD: return "while loading (a constructor)";
	case KF_PHASE_INIT: return "in kf_init";
	case KF_PHASE_LAUNCH: return "in kf_launch";
	default: return "during set-up";
	}
}

/* The runner program sits beside the kforge executable (build/), one level up for programs in
 * build/ subfolders (benchmarks, sanitizer builds), or in <prefix>/libexec/kforge once installed;
 * several GPUs take the multi-GPU runner (sandbox/runner_cuda_multi.c). */
static int runner_path(enum kf_backend b, int world, char *out, size_t len, kf_err *err)
{
	char name[64];
	snprintf(name, sizeof name, "kforge-runner-%s%s", kf_backend_name(b), world > 1 ? "-multi" : "");
	if (kf_libexec_path(name, out, len) == 0 && access(out, X_OK) == 0)
		return KF_OK;
	return kf_errf(err, KF_EINTERNAL,
		       "the %s runner %s is missing beside the kforge executable and in ../libexec/kforge (run make, "
		       "or make install)",
		       kf_backend_name(b), name);
}

/* Reads one whole message before the deadline; *done_ns is the judge's clock when it was
 * complete. The first spin_ns are spent spinning on a non-blocking read, so a reply is seen when
 * it is written, not when the scheduler wakes a sleeper. 0 ok, 1 EOF, 2 timeout, -1 error. */
static int read_msg(int fd, struct kf_msg *m, int64_t spin_ns, int64_t deadline_ns, int64_t *done_ns)
{
	size_t got = 0;
	int64_t spin_end = kf_now_ns() + spin_ns;
	while (got < sizeof *m) {
		ssize_t n = read(fd, (char *)m + got, sizeof *m - got);
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0)
			return 1;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -1;
		int64_t now = kf_now_ns();
		if (now >= deadline_ns)
			return 2;
		if (now < spin_end) {
			sched_yield();
			continue;
		}
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int pr = poll(&p, 1, (int)((deadline_ns - now) / 1000000 + 1));
		if (pr < 0 && errno != EINTR)
			return -1;
	}
	*done_ns = kf_now_ns();
	return 0;
}

static void kill_tree(struct kf_runner *r)
{
	if (r->pid > 0)
		kill(-r->pid, SIGKILL);
}

/* Lets the whole tree run again (before a command, and before reaping: the namespace init
 * must be running to report how the runner ended). The judge's clock is already running when a
 * command follows: from the thaw on, the candidate can run, and inputs are in place. */
static void thaw(struct kf_runner *r)
{
	if (r->frozen && r->pid > 0)
		kill(-r->pid, SIGCONT);
	r->frozen = false;
}

/* The fields of a /proc stat file after "pid (comm)" (comm may hold anything, so they follow the
 * last ')'), read into buf; NULL when the process or thread is gone. */
static const char *stat_fields(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return strrchr(buf, ')');
}

/* The parent of process pid, from /proc/<pid>/stat ("pid (comm) state ppid ..."); 0 if unknown. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	const char *p = stat_fields(path, buf, sizeof buf);
	char state;
	int ppid = 0;
	if (!p || sscanf(p + 1, " %c %d", &state, &ppid) != 2)
		return 0;
	return (pid_t)ppid;
}

/* The only child of pid (jail and init each have one): from /proc/<pid>/task/<pid>/children, or,
 * on a kernel without that file, by looking for it among all processes. 0 if none. */
static pid_t only_child(pid_t pid)
{
	char path[64], line[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	FILE *f = fopen(path, "re");
	if (f) {
		pid_t c = 0;
		if (fgets(line, sizeof line, f))
			c = (pid_t)strtol(line, NULL, 10);
		fclose(f);
		return c;
	}
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	pid_t c = 0;
	struct dirent *e;
	while (!c && (e = readdir(d))) {
		char *end;
		long candidate = strtol(e->d_name, &end, 10);
		if (*end == '\0' && candidate > 0 && parent_of((pid_t)candidate) == pid)
			c = (pid_t)candidate;
	}
	closedir(d);
	return c;
}

/* The runner is the jail's grandchild (jail -> namespace init -> runner); it cannot fork. */
static pid_t runner_pid(struct kf_runner *r)
{
	if (r->runner_pid <= 0 && r->pid > 0) {
		pid_t init = only_child(r->pid);
		if (init > 0)
			r->runner_pid = only_child(init);
	}
	return r->runner_pid;
}

pid_t kf_runner_pid(struct kf_runner *r)
{
	return r ? runner_pid(r) : 0;
}

/* The state letter of thread tid of process pid (R, S, T, ...), read from /proc; 0 when it is gone. */
static char thread_state(pid_t pid, const char *tid)
{
	char path[96], buf[512];
	snprintf(path, sizeof path, "/proc/%d/task/%s/stat", (int)pid, tid);
	const char *p = stat_fields(path, buf, sizeof buf);
	if (!p)
		return 0;
	return p[1] == ' ' ? p[2] : '?';
}

/* 1 when every thread of the process is stopped or gone, 0 when one still runs. */
static int all_threads_stopped(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return 1; /* the process is gone: nothing of it runs */
	int stopped = 1;
	struct dirent *e;
	while (stopped && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char st = thread_state(pid, e->d_name);
		if (st && st != 'T' && st != 't' && st != 'Z' && st != 'X')
			stopped = 0;
	}
	closedir(d);
	return stopped;
}

/* Stops the whole tree and waits until every thread of the runner is seen stopped, so nothing
 * of the candidate runs until the next command. -1 when it did not stop in time. */
static int freeze(struct kf_runner *r)
{
	if (r->pid <= 0)
		return 0;
	kill(-r->pid, SIGSTOP);
	r->frozen = true;
	pid_t rp = runner_pid(r);
	if (rp <= 0)
		return 0; /* no runner left to stop */
	int64_t deadline = kf_now_ns() + KF_FREEZE_TIMEOUT_NS;
	while (!all_threads_stopped(rp)) {
		if (kf_now_ns() >= deadline)
			return -1;
		struct timespec pause = { .tv_nsec = KF_FREEZE_POLL_NS };
		nanosleep(&pause, NULL);
	}
	return 0;
}

/* Kills the whole tree and reaps the jail process, our only child. */
static void kill_and_wait(struct kf_runner *r)
{
	kill_tree(r);
	thaw(r);
	if (r->pid > 0) {
		while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
			;
		r->pid = -1;
	}
}

/* What the namespace init (or the jail, before exec) reported on the status pipe. */
struct ending {
	bool ended;        /* the runner was reaped: status, cpu_ns */
	int status;
	int64_t cpu_ns;
	bool violation;    /* the filter refused sysno (arch) and init ended the runner */
	int sysno;
	uint32_t arch;
	bool setup_error;  /* a step of the jail or the supervision failed: text, err */
	int err;
	char text[KF_PROTO_TEXT_MAX];
};

/* Reads the init's reports until it is gone (EOF) or the reap timeout, then kills and reaps the
 * tree. The first violation and the first set-up error are kept. */
static void reap(struct kf_runner *r, struct ending *e)
{
	memset(e, 0, sizeof *e);
	thaw(r);
	int64_t deadline = kf_now_ns() + (int64_t)KF_RUNNER_REAP_TIMEOUT_MS * 1000000;
	while (r->status_fd >= 0) {
		int64_t left = deadline - kf_now_ns();
		struct pollfd p = { .fd = r->status_fd, .events = POLLIN };
		if (left <= 0 || poll(&p, 1, (int)(left / 1000000 + 1)) <= 0)
			break;
		struct kf_init_report rep;
		if (read(r->status_fd, &rep, sizeof rep) != (ssize_t)sizeof rep || rep.magic != KF_PROTO_MAGIC)
			break;
		rep.text[sizeof rep.text - 1] = '\0';
		if (rep.type == KF_INIT_ENDED) {
			e->ended = true;
			e->status = rep.status;
			e->cpu_ns = rep.cpu_ns;
			break; /* the init's last word */
		} else if (rep.type == KF_INIT_VIOLATION && !e->violation) {
			e->violation = true;
			e->sysno = rep.sysno;
			e->arch = rep.arch;
		} else if (rep.type == KF_INIT_SETUP_ERROR && !e->setup_error) {
			e->setup_error = true;
			e->err = rep.err;
			snprintf(e->text, sizeof e->text, "%s", rep.text);
		}
	}
	kill_and_wait(r);
}

static void died(struct kf_call_result *res, enum kf_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void died(struct kf_call_result *res, enum kf_verdict v, const char *fmt, ...)
{
	res->status = KF_CALL_DIED;
	res->verdict = v;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->reason, sizeof res->reason, fmt, ap);
	va_end(ap);
	/* Reasons quote runner-supplied text: printable, valid UTF-8, whatever the runner sent. */
	kf_text_sanitize_str(res->reason, sizeof res->reason);
}

/* A runner that sent something other than the reply awaited. Before LOAD only the runner's own
 * code runs, so its set-up error is believed; after LOAD the pipe speaks for the candidate and
 * a set-up error (or anything else unexpected) is a forgery. */
static void classify_msg(const struct kf_runner *r, const struct kf_msg *m, int phase, struct kf_call_result *res)
{
	if (!r->loaded) {
		if (m->type == KF_MSG_SETUP_ERROR)
			died(res, KF_V_INTERNAL_ERROR, "the runner could not set up its jail: %.200s", m->text);
		else
			died(res, KF_V_INTERNAL_ERROR, "the runner sent message %u during set-up", m->type);
		return;
	}
	switch (m->type) {
	case KF_MSG_MEMORY:
		died(res, KF_V_MEMORY_LIMIT, "an allocation of %llu bytes %s exceeded the runner's memory cap",
		     (unsigned long long)m->bytes, phase_name(m->rc));
		break;
	case KF_MSG_LOAD_ERROR:
		died(res, KF_V_RUNTIME_ERROR, "the candidate could not be run: %.200s", m->text);
		break;
	case KF_MSG_DEVICE_ERROR:
		died(res, KF_V_RUNTIME_ERROR, "%.300s", m->text);
		break;
	case KF_MSG_INIT_FAILED:
		died(res, KF_V_RUNTIME_ERROR, "kf_init returned %d", m->rc);
		break;
	default:
		died(res, KF_V_SANDBOX_VIOLATION, "the candidate forged a runner message (type %u) %s", m->type,
		     phase_name(phase));
	}
}

/* Names a refused system call: one of this ABI by name, one through another ABI by what it was. */
static void name_violation(const struct ending *e, char *out, size_t len)
{
	char name[64];
	if (e->arch == AUDIT_ARCH_I386)
		snprintf(out, len, "a system call through a foreign ABI (i386 int 0x80, number %d)", e->sysno);
	else if (e->arch != AUDIT_ARCH_X86_64)
		snprintf(out, len, "a system call through a foreign ABI (architecture 0x%x, number %d)", e->arch,
			 e->sysno);
	else if (e->sysno & KF_X32_SYSCALL_BIT)
		snprintf(out, len, "a system call through a foreign ABI (x32, number %d)",
			 e->sysno & ~KF_X32_SYSCALL_BIT);
	else
		snprintf(out, len, "forbidden system call %s", kf_syscall_name(e->sysno, name, sizeof name));
}

/* A runner that ended without a report on the reply pipe: what the init saw says how. Before
 * LOAD that is kforge's own failure, never the candidate's. */
static void classify_status(struct kf_runner *r, int phase, struct kf_call_result *res)
{
	struct ending e;
	reap(r, &e);
	char what[160];
	if (e.setup_error) {
		died(res, KF_V_INTERNAL_ERROR, "the runner's jail could not be set up: %s: %s", e.text, strerror(e.err));
		return;
	}
	if (e.violation) {
		name_violation(&e, what, sizeof what);
		if (r->loaded)
			died(res, KF_V_SANDBOX_VIOLATION, "%s %s", what, phase_name(phase));
		else
			died(res, KF_V_INTERNAL_ERROR, "the runner's own set-up made %s", what);
		return;
	}
	bool oom = kf_cgroup_oom_killed(&r->cg);
	if (!e.ended && !oom) {
		died(res, r->loaded ? KF_V_CRASH : KF_V_INTERNAL_ERROR, "the runner vanished %s without a status",
		     phase_name(phase));
		return;
	}
	int st = e.ended ? e.status : 0;
	r->end_signal = e.ended && WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	if (!r->loaded) {
		if (!e.ended)
			died(res, KF_V_INTERNAL_ERROR, "the runner's tree was killed by the OOM killer during set-up");
		else if (WIFSIGNALED(st))
			died(res, KF_V_INTERNAL_ERROR, "the runner was killed by SIG%s during set-up",
			     sigabbrev_np(WTERMSIG(st)));
		else
			died(res, KF_V_INTERNAL_ERROR, "the runner exited with status %d during set-up",
			     WIFEXITED(st) ? WEXITSTATUS(st) : st);
		return;
	}
	if (oom && (!e.ended || (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL))) {
		died(res, KF_V_MEMORY_LIMIT, "the runner ran out of its cgroup's memory %s (killed by the OOM killer)",
		     phase_name(phase));
		return;
	}
	if (WIFSIGNALED(st)) {
		int sig = WTERMSIG(st);
		/* The kernel's CPU limit sends SIGXCPU at the soft limit and SIGKILL at the hard one;
		 * either signal before the limit was reached was raised by the candidate itself. */
		bool cpu_spent = (double)e.cpu_ns >= r->cpu_limit_s * 1e9 * KF_CPU_LIMIT_SLACK;
		if ((sig == SIGXCPU || sig == SIGKILL) && cpu_spent)
			died(res, KF_V_CPU_TIMEOUT, "the runner used up its CPU time limit of %.0f s %s (%s)",
			     r->cpu_limit_s, phase_name(phase), sigabbrev_np(sig));
		else if (sig == SIGXFSZ)
			died(res, KF_V_CRASH, "the candidate wrote more than %u bytes to stdout/stderr (output limit)",
			     KF_RUNNER_LOG_CAP);
		else
			died(res, KF_V_CRASH, "killed by signal SIG%s %s", sigabbrev_np(sig), phase_name(phase));
	} else if (WIFEXITED(st)) {
		died(res, KF_V_CRASH, "the process exited with status %d %s instead of returning", WEXITSTATUS(st),
		     phase_name(phase));
	} else {
		died(res, KF_V_CRASH, "the runner ended %s", phase_name(phase));
	}
}

/* The runner's fault handler said where it faulted; how it ended is read as usual. A forged
 * report only turns the evaluation into a crash. */
static void classify_fault(struct kf_runner *r, const struct kf_msg *m, int phase, struct kf_call_result *res)
{
	classify_status(r, phase, res);
	if (r->end_signal != SIGSEGV && r->end_signal != SIGBUS) {
		/* The runner's handler reports a fault and then dies of it; a report from a runner that did
		 * not is the candidate's, and so is the write that sent it. */
		died(res, KF_V_SANDBOX_VIOLATION, "the candidate forged a runner message (a fault report, then %s) %s",
		     r->end_signal ? sigabbrev_np(r->end_signal) : "no fault", phase_name(phase));
		return;
	}
	res->status = KF_CALL_DIED;
	res->verdict = KF_V_CRASH;
	res->fault_known = m->rc == 1;
	res->fault_off = m->bytes;
	res->fault_write = m->sysno == 1;
	if (res->fault_known) {
		size_t len = strlen(res->reason);
		snprintf(res->reason + len, sizeof res->reason - len, " (a %s at byte %llu of the shared buffer area)",
			 res->fault_write ? "write" : "read", (unsigned long long)res->fault_off);
	}
}

/* Waits for the reply to a command; fills res when the runner died or misbehaved. *done_ns is
 * the judge's clock when the reply was complete. */
static int await(struct kf_runner *r, uint64_t nonce, uint32_t want, int phase, double timeout_s,
		 struct kf_msg *m, int64_t *done_ns, struct kf_call_result *res)
{
	int64_t deadline = kf_now_ns() + (int64_t)(timeout_s * 1e9);
	int rc = read_msg(r->reply_fd, m, reply_spin_ns[r->backend], deadline, done_ns);
	if (rc != 0)
		*done_ns = kf_now_ns();
	if (rc == 2) {
		kill_tree(r);
		kill_and_wait(r);
		died(res, r->loaded ? KF_V_TIMEOUT : KF_V_INTERNAL_ERROR,
		     "no answer %s within %.1f s (wall-clock limit); the process tree was killed", phase_name(phase),
		     timeout_s);
		return -1;
	}
	if (rc != 0) {
		classify_status(r, phase, res);
		return -1;
	}
	if (m->magic != KF_PROTO_MAGIC) {
		kill_tree(r);
		kill_and_wait(r);
		died(res, r->loaded ? KF_V_SANDBOX_VIOLATION : KF_V_INTERNAL_ERROR,
		     "the result channel was tampered with (bad message) %s", phase_name(phase));
		return -1;
	}
	if (m->type == KF_MSG_FAULT && r->loaded) {
		classify_fault(r, m, phase, res);
		return -1;
	}
	if (m->type != want) {
		classify_msg(r, m, phase, res);
		kill_tree(r);
		kill_and_wait(r);
		return -1;
	}
	if (m->nonce != nonce) {
		kill_tree(r);
		kill_and_wait(r);
		died(res, r->loaded ? KF_V_SANDBOX_VIOLATION : KF_V_INTERNAL_ERROR,
		     "the result channel was tampered with (forged reply) %s", phase_name(phase));
		return -1;
	}
	return 0;
}

static int park(int fd) { return fcntl(fd, F_DUPFD_CLOEXEC, KF_FD_PARK); }

/* In the jail process before exec: a step that failed, reported on the status pipe (the judge
 * reads it as kforge's own failure, internal_error), then the end. */
static __attribute__((noreturn)) void jail_fail(int status_fd, const char *step)
{
	struct kf_init_report rep;
	kf_init_setup_report(&rep, step, errno);
	ssize_t n = write(status_fd, &rep, sizeof rep);
	(void)n; /* nothing more to do: the judge reads EOF either way */
	_exit(KF_RUNNER_EXIT_SETUP);
}

static __attribute__((noreturn)) void exec_jail(const char *runner, char *const argv[], char *const envp[],
						  const struct kf_cgroup *cg, int devnull, int log, int cmd, int reply, int shm,
						  int so, int status, int shm_ro, const int *rank_fds, int n_rank_fds)
{
	int src[] = { park(devnull), park(log),    park(log), park(cmd),   park(reply),
		      park(shm),     park(so),     park(status), park(shm_ro) };
	_Static_assert(sizeof src / sizeof src[0] == KF_RFD_FIRST_FREE, "one source per runner descriptor");
	int ranks[KF_RUNNER_MAX_WORLD];
	for (int i = 0; i < n_rank_fds; i++) /* the multi-GPU runner's ranks 1.. (kf_runner_world) */
		ranks[i] = park(rank_fds[i]);
	for (int fd = 0; fd < (int)(sizeof src / sizeof src[0]); fd++)
		if (src[fd] < 0 || dup2(src[fd], fd) < 0)
			jail_fail(status, "renumbering the runner's descriptors");
	for (int i = 0; i < n_rank_fds; i++)
		if (ranks[i] < 0 || dup2(ranks[i], KF_RFD_FIRST_FREE + i) < 0)
			jail_fail(KF_RFD_STATUS, "renumbering the ranks' buffer descriptors");
	kf_jail_close_from(KF_RFD_FIRST_FREE + n_rank_fds);
	/* If kforge dies, the jail dies, and with it the namespace (see runner_core.c). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
		jail_fail(KF_RFD_STATUS, "prctl(PR_SET_PDEATHSIG)");
	if (setpgid(0, 0) != 0)
		jail_fail(KF_RFD_STATUS, "setpgid");
	/* The runner must not inherit kforge's ignored SIGPIPE. */
	signal(SIGPIPE, SIG_DFL);
	if (kf_cgroup_enter(cg) != 0)
		jail_fail(KF_RFD_STATUS, "joining the runner's cgroup");
	const char *step = NULL;
	if (kf_jail_enter(true, &step) < 0)
		jail_fail(KF_RFD_STATUS, step);
	execve(runner, argv, envp);
	jail_fail(KF_RFD_STATUS, "execve of the runner");
}

/* A runner that dies leaves a broken pipe: kforge must see EPIPE, never die of SIGPIPE. Set for
 * any program linking the library (tests, benchmarks) unless it chose a handler itself. */
static void ignore_sigpipe(void)
{
	struct sigaction old;
	if (sigaction(SIGPIPE, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
		signal(SIGPIPE, SIG_IGN);
}

/* The runner's own cgroup, where the machine offers them: its tasks and memory bounded by the
 * kernel. Offered but impossible to set up is kforge's failure (fail closed). */
static int make_cgroup(struct kf_runner *r, const struct kf_runner_opts *o, kf_err *err)
{
	char why[PATH_MAX + 128];
	size_t mem = o->backend == KF_BACKEND_CUDA ? KF_CGROUP_CUDA_HOST_BYTES
						   : o->mem_limit_bytes + o->shm_bytes + o->shm_ro_bytes + KF_CGROUP_HEADROOM;
	if (kf_cgroup_create(&r->cg, KF_CGROUP_PREFIX, mem, KF_CGROUP_PIDS_MAX, why, sizeof why) < 0)
		return kf_errf(err, KF_EINTERNAL, "%s", why);
	return KF_OK;
}

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U /* Linux 6.3: an executable memfd, said outright (older kernels refuse the flag) */
#endif
/* Largest candidate a spare runner takes (a compiled kernel is a few MB at most). */
#define KF_SPARE_SO_MAX ((off_t)1 << 30)

/* A spare's candidate file: an empty memfd the runner receives now and the judge fills later
 * (kf_runner_supply), kept in r->spare_fd; returns the runner's copy, or -1 with errno. */
static int spare_file(struct kf_runner *r)
{
	const unsigned flags = MFD_CLOEXEC | MFD_ALLOW_SEALING;
	int fd = memfd_create("kforge-candidate", flags | MFD_EXEC);
	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("kforge-candidate", flags);
	if (fd < 0)
		return -1;
	r->spare_fd = fd;
	return fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

int kf_runner_supply(struct kf_runner *r, const char *so_path, kf_err *err)
{
	if (r->spare_fd < 0)
		return kf_errf(err, KF_EINTERNAL, "a runner that is not a spare was given a candidate");
	int src = open(so_path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (src < 0 || fstat(src, &st) != 0 || st.st_size > KF_SPARE_SO_MAX) {
		kf_errno(err, KF_EINTERNAL, "cannot read %s for a spare runner", so_path);
		goto fail;
	}
	for (off_t at = 0; at < st.st_size;) {
		ssize_t n = sendfile(r->spare_fd, src, &at, (size_t)(st.st_size - at));
		if (n <= 0 && !(n < 0 && errno == EINTR)) {
			kf_errno(err, KF_EINTERNAL, "cannot copy %s into a spare runner's candidate file", so_path);
			goto fail;
		}
	}
	/* The runner's descriptor shares this file position, and the loader reads from it. Sealed before
	 * LOAD: nothing, the candidate included, changes what was loaded afterwards. */
	const int seals = F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL;
	if (lseek(r->spare_fd, 0, SEEK_SET) != 0 || fcntl(r->spare_fd, F_ADD_SEALS, seals) != 0) {
		kf_errno(err, KF_EINTERNAL, "cannot rewind and seal a spare runner's candidate file");
		goto fail;
	}
	close(src);
	close(r->spare_fd);
	r->spare_fd = -1;
	return KF_OK;
fail:
	if (src >= 0)
		close(src);
	return err->code;
}

int kf_runner_launch(const struct kf_runner_opts *o, struct kf_runner **out, kf_err *err)
{
	*out = NULL;
	ignore_sigpipe();
	char path[PATH_MAX];
	int world = o->world > 1 ? o->world : 1;
	if (world > KF_RUNNER_MAX_WORLD)
		return kf_errf(err, KF_EINTERNAL, "a runner drives at most %d GPUs, not %d", KF_RUNNER_MAX_WORLD, world);
	if (runner_path(o->backend, world, path, sizeof path, err) != KF_OK)
		return err->code;
	struct kf_runner *r = kf_xcalloc(1, sizeof *r);
	r->start_ns[START_BEGUN] = kf_now_ns();
	r->pid = -1;
	r->cmd_fd = r->reply_fd = r->status_fd = r->log_fd = -1;
	r->call_timeout_s = o->call_timeout_s;
	r->backend = o->backend;
	int cmd[2] = { -1, -1 }, reply[2] = { -1, -1 }, status[2] = { -1, -1 };
	int so = -1, devnull = -1;
	bool have_ro = o->shm_ro_bytes > 0 && o->shm_ro_fd >= 0;

	r->spare_fd = -1;
	r->log_fd = memfd_create("kforge-output", MFD_CLOEXEC);
	if (r->log_fd < 0) {
		kf_errno(err, KF_EINTERNAL, "cannot create the runner's output file");
		goto fail;
	}
	so = o->so_path ? open(o->so_path, O_RDONLY | O_CLOEXEC) : spare_file(r);
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (so < 0 || devnull < 0) {
		const char *what = so >= 0 ? "/dev/null" : o->so_path ? o->so_path : "a spare runner's candidate file";
		kf_errno(err, KF_EINTERNAL, "cannot open %s", what);
		goto fail;
	}
	/* The judge's end of the reply pipe is non-blocking: it spins on it (read_msg). */
	if (pipe2(cmd, O_CLOEXEC) || pipe2(reply, O_CLOEXEC) || pipe2(status, O_CLOEXEC) ||
	    fcntl(reply[0], F_SETFL, O_NONBLOCK) != 0) {
		kf_errno(err, KF_EINTERNAL, "cannot create the runner's pipes");
		goto fail;
	}
	char a_shm[32], a_ro[32], a_cpu[32], a_data[32], a_fsize[32], a_dev[16], a_vendor[4], a_world[16];
	snprintf(a_world, sizeof a_world, "%d", world);
	snprintf(a_shm, sizeof a_shm, "%zu", o->shm_bytes);
	snprintf(a_ro, sizeof a_ro, "%zu", have_ro ? o->shm_ro_bytes : 0);
	/* One visible GPU is device 0 in the runner's numbering. */
	snprintf(a_dev, sizeof a_dev, "%d", world == 1 && o->visible_gpu[0] ? 0 : o->device);
	char visible[sizeof "CUDA_VISIBLE_DEVICES=" + KF_GPU_UUID_MAX];
	snprintf(visible, sizeof visible, "CUDA_VISIBLE_DEVICES=%s", o->visible_gpu);
	char *envp[] = { "PATH=/usr/bin:/bin", "LANG=C", "CUDA_CACHE_DISABLE=1",
			 world == 1 && o->visible_gpu[0] ? visible : NULL, NULL };
	r->cpu_limit_s = o->cpu_limit_s > 1 ? ceil(o->cpu_limit_s) : 1;
	snprintf(a_cpu, sizeof a_cpu, "%.0f", r->cpu_limit_s);
	snprintf(a_data, sizeof a_data, "%zu", o->mem_limit_bytes);
	snprintf(a_fsize, sizeof a_fsize, "%u", KF_RUNNER_LOG_CAP);
	snprintf(a_vendor, sizeof a_vendor, "%d", (o->vendor_libs ? 1 : 0) | (o->profile ? KF_RUNNER_FLAG_PROFILE : 0));
	char *argv[] = { path, "jail", a_shm, a_ro, a_cpu, a_data, a_fsize, a_dev, a_vendor, world > 1 ? a_world : NULL,
			 NULL };
	if (make_cgroup(r, o, err) != KF_OK)
		goto fail;
	r->pid = fork();
	if (r->pid < 0) {
		kf_errno(err, KF_EINTERNAL, "cannot fork the runner");
		goto fail;
	}
	if (r->pid == 0)
		exec_jail(path, argv, envp, &r->cg, devnull, r->log_fd, cmd[0], reply[1], o->shm_fd, so, status[1],
			  have_ro ? o->shm_ro_fd : devnull, o->rank_fds, world - 1);
	/* Also from the parent, so no window exists where the child is outside its group. */
	setpgid(r->pid, r->pid);
	close(cmd[0]);
	close(reply[1]);
	close(status[1]);
	close(so);
	close(devnull);
	r->cmd_fd = cmd[1];
	r->reply_fd = reply[0];
	r->status_fd = status[0];
	r->start_ns[START_LAUNCHED] = kf_now_ns();
	*out = r;
	return KF_OK;
fail:
	if (so >= 0)
		close(so);
	if (devnull >= 0)
		close(devnull);
	for (int i = 0; i < 2; i++) {
		if (cmd[i] >= 0) close(cmd[i]);
		if (reply[i] >= 0) close(reply[i]);
		if (status[i] >= 0) close(status[i]);
	}
	kf_runner_stop(r);
	return KF_EINTERNAL;
}

static uint64_t fresh_nonce(void)
{
	uint64_t n = 0;
	while (n == 0)
		if (getrandom(&n, sizeof n, 0) != (ssize_t)sizeof n)
			n = (uint64_t)kf_now_ns();
	return n;
}

/* One exchange: thaw, start the clock, write the command, read the reply, stop the clock, freeze.
 * A write to a runner that died fails with EPIPE (SIGPIPE is ignored): the reply side then reads
 * EOF and the wait status says how it died. 0 with the reply in m, or -1 with res filled. */
static int exchange(struct kf_runner *r, const struct kf_cmd *c, uint32_t want, int phase, double timeout_s,
		    struct kf_msg *m, struct kf_call_result *res)
{
	if (r->pid <= 0) {
		died(res, KF_V_INTERNAL_ERROR, "the runner is not running");
		return -1;
	}
	/* Started before the thaw: a candidate that kept its threads busy while the judge waited for the
	 * runner to be back on a CPU did untimed work on the inputs already in place. */
	int64_t t0 = kf_now_ns();
	thaw(r);
	ssize_t n;
	do
		n = write(r->cmd_fd, c, sizeof *c);
	while (n < 0 && errno == EINTR);
	int64_t t1 = 0;
	int rc = await(r, c->nonce, want, phase, timeout_s, m, &t1, res);
	res->wall_ns = t1 - t0;
	if (rc != 0)
		return -1;
	if (freeze(r) != 0) {
		kill_tree(r);
		kill_and_wait(r);
		died(res, r->loaded ? KF_V_TIMEOUT : KF_V_INTERNAL_ERROR,
		     "the runner did not stop within %.1f s of replying %s; the process tree was killed",
		     (double)KF_FREEZE_TIMEOUT_NS / 1e9, phase_name(phase));
		return -1;
	}
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t quantile(int64_t *v, int n, double q)
{
	qsort(v, (size_t)n, sizeof *v, cmp_i64);
	int i = (int)(q * (n - 1) + 0.5);
	return v[i];
}

/* Null calls on the runner's own no-op function, before anything of the candidate exists. */
static int calibrate(struct kf_runner *r, struct kf_call_result *res)
{
	int64_t wall[KF_RUNNER_CALIB_CALLS], gap[KF_RUNNER_CALIB_CALLS];
	for (int i = 0; i < KF_RUNNER_CALIB_CALLS; i++) {
		struct kf_cmd c;
		memset(&c, 0, sizeof c);
		c.magic = KF_PROTO_MAGIC;
		c.type = KF_CMD_CALL;
		c.nonce = fresh_nonce();
		struct kf_msg m;
		if (exchange(r, &c, KF_MSG_DONE, KF_PHASE_SETUP, KF_RUNNER_LOAD_TIMEOUT_S, &m, res) != 0)
			return -1;
		wall[i] = res->wall_ns;
		gap[i] = res->wall_ns - m.ns;
	}
	r->calib.n = KF_RUNNER_CALIB_CALLS;
	r->calib.wall_median_ns = quantile(wall, KF_RUNNER_CALIB_CALLS, 0.5);
	r->calib.wall_p90_ns = quantile(wall, KF_RUNNER_CALIB_CALLS, KF_CALIB_P90);
	r->calib.gap_median_ns = quantile(gap, KF_RUNNER_CALIB_CALLS, 0.5);
	r->calib.gap_p90_ns = quantile(gap, KF_RUNNER_CALIB_CALLS, KF_CALIB_P90);
	return 0;
}

int kf_runner_ready(struct kf_runner **rp, struct kf_call_result *res, kf_err *err)
{
	struct kf_runner *r = *rp;
	memset(res, 0, sizeof *res);
	if (r->ready) /* kept from an earlier evaluation */
		return KF_OK;
	if (r->spare_fd >= 0)
		return kf_errf(err, KF_EINTERNAL, "a spare runner was made ready before it was given a candidate");
	struct kf_msg m;
	int64_t t = 0;
	struct kf_cmd load;
	memset(&load, 0, sizeof load);
	load.magic = KF_PROTO_MAGIC;
	load.type = KF_CMD_LOAD;
	if (await(r, 0, KF_MSG_SETUP_DONE, KF_PHASE_SETUP, KF_RUNNER_LOAD_TIMEOUT_S, &m, &t, res) != 0)
		goto failed;
	r->start_ns[START_SET_UP] = t;
	if (freeze(r) != 0) {
		died(res, KF_V_INTERNAL_ERROR, "the runner did not stop within %.1f s during set-up",
		     (double)KF_FREEZE_TIMEOUT_NS / 1e9);
		goto failed;
	}
	if (calibrate(r, res) != 0)
		goto failed;
	r->start_ns[START_CALIBRATED] = kf_now_ns();
	/* From here on the reply pipe may be written by the candidate. */
	r->loaded = true;
	memset(res, 0, sizeof *res);
	if (exchange(r, &load, KF_MSG_READY, KF_PHASE_LOAD, KF_RUNNER_LOAD_TIMEOUT_S + r->call_timeout_s, &m, res) ==
	    0) {
		memset(res, 0, sizeof *res);
		r->ready = true;
		r->start_ns[START_READY] = kf_now_ns();
		return KF_OK;
	}
failed:
	kf_runner_stop(r);
	*rp = NULL;
	if (res->verdict == KF_V_INTERNAL_ERROR)
		return kf_errf(err, KF_EINTERNAL, "%s", res->reason);
	return KF_OK;
}

int kf_runner_calibration(const struct kf_runner *r, struct kf_runner_calib *out)
{
	if (!r || !r->ready || r->calib.n < KF_RUNNER_CALIB_CALLS)
		return KF_EINTERNAL;
	*out = r->calib;
	return KF_OK;
}

int kf_runner_start_steps(const struct kf_runner *r, struct kf_runner_start_steps *out)
{
	if (!r || !r->ready)
		return KF_EINTERNAL;
	double *step[] = { &out->launch_ms, &out->setup_ms, &out->calibrate_ms, &out->load_ms };
	_Static_assert(sizeof step / sizeof step[0] == START_MARKS - 1, "one step between two marks");
	for (int k = 0; k < START_MARKS - 1; k++)
		*step[k] = kf_ns_to_ms(r->start_ns[k + 1] - r->start_ns[k]);
	return KF_OK;
}

int kf_runner_start(const struct kf_runner_opts *o, struct kf_runner **out, struct kf_call_result *res,
		    kf_err *err)
{
	memset(res, 0, sizeof *res);
	if (kf_runner_launch(o, out, err) != KF_OK)
		return err->code;
	return kf_runner_ready(out, res, err);
}

int kf_runner_call(struct kf_runner *r, const size_t *buf_off, int nbufs, const long long *ints, int nints,
		   struct kf_call_result *res, kf_err *err)
{
	memset(res, 0, sizeof *res);
	if (nbufs > KF_PROTO_MAX_BUFS || nints > KF_PROTO_MAX_INTS)
		return kf_errf(err, KF_EINTERNAL, "too many buffers or shape values for one call");
	struct kf_cmd c;
	memset(&c, 0, sizeof c);
	c.magic = KF_PROTO_MAGIC;
	c.type = KF_CMD_CALL;
	c.nonce = fresh_nonce();
	c.nbufs = (uint32_t)nbufs;
	c.nints = (uint32_t)nints;
	for (int i = 0; i < nbufs; i++)
		c.buf_off[i] = buf_off[i];
	for (int i = 0; i < nints; i++)
		c.ints[i] = ints[i];
	struct kf_msg m;
	if (exchange(r, &c, KF_MSG_DONE, KF_PHASE_LAUNCH, r->call_timeout_s, &m, res) != 0)
		return res->verdict == KF_V_INTERNAL_ERROR ? kf_errf(err, KF_EINTERNAL, "%s", res->reason) : KF_OK;
	res->rc = m.rc;
	res->runner_ns = m.ns;
	res->status = m.rc == 0 ? KF_CALL_OK : KF_CALL_FAILED;
	return KF_OK;
}

int kf_runner_ping(struct kf_runner *r, int64_t *wall_ns, kf_err *err)
{
	struct kf_cmd c;
	memset(&c, 0, sizeof c);
	c.magic = KF_PROTO_MAGIC;
	c.type = KF_CMD_PING;
	c.nonce = fresh_nonce();
	struct kf_msg m;
	struct kf_call_result res;
	memset(&res, 0, sizeof res);
	if (exchange(r, &c, KF_MSG_PONG, KF_PHASE_LAUNCH, r->call_timeout_s, &m, &res) != 0)
		return kf_errf(err, KF_EINTERNAL, "runner ping failed: %s", res.reason);
	*wall_ns = res.wall_ns;
	return KF_OK;
}

const char *kf_runner_output(struct kf_runner *r)
{
	if (r->output)
		return r->output;
	kf_buf raw = KF_BUF_INIT, clean = KF_BUF_INIT;
	char chunk[4096];
	off_t off = 0;
	while (r->log_fd >= 0 && raw.len < KF_RUNNER_LOG_KEEP) {
		ssize_t n = pread(r->log_fd, chunk, sizeof chunk, off);
		if (n <= 0)
			break;
		kf_buf_add(&raw, chunk, (size_t)n);
		off += n;
	}
	/* The candidate's bytes, escaped: valid UTF-8 without terminal controls, capped. */
	kf_text_sanitize_max(raw.data ? raw.data : "", raw.len, KF_RUNNER_LOG_KEEP, &clean);
	kf_buf_add(&clean, "", 0); /* terminated even when nothing was kept */
	kf_buf_free(&raw);
	r->output = kf_buf_detach(&clean);
	return r->output;
}

/* Killed, not asked to quit: its state is of no further use, and a GPU runner's context teardown
 * (tens of ms) then happens in the background instead of on the judge's time. Only the jail
 * process, which holds no device state, is waited for. */
void kf_runner_stop(struct kf_runner *r)
{
	if (!r)
		return;
	kill_and_wait(r);
	kf_cgroup_remove(&r->cg);
	if (r->cmd_fd >= 0) close(r->cmd_fd);
	if (r->reply_fd >= 0) close(r->reply_fd);
	if (r->status_fd >= 0) close(r->status_fd);
	if (r->log_fd >= 0) close(r->log_fd);
	if (r->spare_fd >= 0) close(r->spare_fd);
	free(r->output);
	free(r);
}
