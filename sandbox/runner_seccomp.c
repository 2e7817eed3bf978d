/* The runner's seccomp filter (see runner_seccomp.h). */
#include "sandbox/runner_seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Calls a kernel needs after the runner is set up: memory, signals, time, threads, pipes. */
static const int base_allow[] = {
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(writev), SCMP_SYS(close), SCMP_SYS(fstat), SCMP_SYS(newfstatat),
	SCMP_SYS(lseek), SCMP_SYS(mprotect), SCMP_SYS(munmap), SCMP_SYS(brk),
	SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn),
	SCMP_SYS(sigaltstack), SCMP_SYS(sched_yield), SCMP_SYS(nanosleep), SCMP_SYS(clock_nanosleep),
	SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday), SCMP_SYS(getpid), SCMP_SYS(gettid),
	SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(futex), SCMP_SYS(restart_syscall),
	SCMP_SYS(set_robust_list), SCMP_SYS(rseq), SCMP_SYS(sched_getaffinity), SCMP_SYS(getrandom),
	SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(fcntl),
};

const char *kf_syscall_name(int nr, char *buf, size_t len)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
	if (name) {
		snprintf(buf, len, "%s", name);
		free(name);
	} else {
		snprintf(buf, len, "syscall %d", nr);
	}
	return buf;
}

/* mmap with either flag escapes RLIMIT_DATA (shared memory is not the process's data, a
 * grows-down mapping counts as stack); MAP_SHARED_VALIDATE carries MAP_SHARED's bit. */
#define KF_UNCOUNTED_MAP_FLAGS (MAP_SHARED | MAP_GROWSDOWN)

static int add_mmap_rules(scmp_filter_ctx ctx, bool refuse_uncounted)
{
	if (!refuse_uncounted)
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 0);
	int r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
				 SCMP_A3(SCMP_CMP_MASKED_EQ, KF_UNCOUNTED_MAP_FLAGS, 0));
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mmap), 1,
				     SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_SHARED, MAP_SHARED));
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mmap), 1,
				     SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_GROWSDOWN, MAP_GROWSDOWN));
	return r;
}

int kf_runner_seccomp_install(pid_t self, const int *extra_allow, int n_extra, bool refuse_uncounted_maps,
			      int *listener, char *why, size_t why_len)
{
	int rc = -1, notify = -1;
	*listener = -1;
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_NOTIFY);
	if (!ctx) {
		snprintf(why, why_len, "seccomp_init failed");
		return -1;
	}
	/* Foreign ABIs reach the supervisor too, which names them. */
	int r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_NOTIFY);
	for (size_t i = 0; i < sizeof base_allow / sizeof base_allow[0] && r == 0; i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, base_allow[i], 0);
	for (int i = 0; i < n_extra && r == 0; i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, extra_allow[i], 0);
	if (r == 0)
		r = add_mmap_rules(ctx, refuse_uncounted_maps);
	/* Threads yes (OpenMP, driver threads), new processes no. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
	/* clone3 hides its flags behind a pointer: make libc fall back to clone. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	/* Signal handlers are the candidate's business, except SIGSYS (a candidate has no use for
	 * it): touching that one is reported. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigaction), 1,
				     SCMP_A0(SCMP_CMP_NE, SIGSYS));
	/* raise()/abort() on itself is a crash, not a violation; signals to anyone else are. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
				     SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
	/* Reading limits is harmless (pthread sizes stacks from them); setting them is not. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, SCMP_A2(SCMP_CMP_EQ, 0));
	if (r == 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (r != 0) {
		snprintf(why, why_len, "building the seccomp filter failed: %s", strerror(-r));
		goto out;
	}
	r = seccomp_load(ctx);
	if (r != 0) {
		snprintf(why, why_len, "loading the seccomp filter failed: %s", strerror(-r));
		goto out;
	}
	notify = seccomp_notify_fd(ctx);
	/* A copy of our own; the context's is closed below whether or not releasing it did, so
	 * exactly one descriptor of the listener is left, and the caller hands it on. */
	*listener = notify >= 0 ? fcntl(notify, F_DUPFD_CLOEXEC, 0) : -1;
	if (*listener < 0) {
		snprintf(why, why_len, "the seccomp filter has no notification descriptor: %s",
			 strerror(notify < 0 ? -notify : errno));
		goto out;
	}
	rc = 0;
out:
	seccomp_release(ctx);
	if (notify >= 0)
		close(notify);
	return rc;
}
