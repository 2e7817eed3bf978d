/* Jail building blocks (see jail.h). Runs in freshly forked children: only async-signal-safe
 * work after fork, no allocation. */
#include "sandbox/jail.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int write_proc(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

int kf_jail_enter(bool pid_ns, const char **step)
{
	int entered = 0;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int base = CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | (pid_ns ? CLONE_NEWPID : 0);
	if (uid != 0) {
		*step = "unshare of the user, network, mount, ipc and pid namespaces";
		if (unshare(CLONE_NEWUSER | base) != 0)
			return -1;
		char map[64];
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
		*step = "writing the user namespace's setgroups, uid_map and gid_map";
		if (write_proc("/proc/self/setgroups", "deny") != 0 || write_proc("/proc/self/uid_map", map) != 0)
			return -1;
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
		if (write_proc("/proc/self/gid_map", map) != 0)
			return -1;
		entered = KF_JAIL_NS_USER | KF_JAIL_NS_NET | KF_JAIL_NS_MNT | KF_JAIL_NS_IPC;
	} else {
		*step = "unshare of the network, mount, ipc and pid namespaces";
		if (unshare(base) != 0)
			return -1;
		entered = KF_JAIL_NS_NET | KF_JAIL_NS_MNT | KF_JAIL_NS_IPC;
	}
	if (pid_ns)
		entered |= KF_JAIL_NS_PID;
	/* Mount changes made inside must never propagate back to the host. */
	*step = "making the mount namespace private";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return -1;
	*step = NULL;
	return entered;
}

int kf_jail_drop_root_to(uid_t uid)
{
	if (geteuid() != 0)
		return 0;
	if (setgroups(0, NULL) != 0)
		return -1;
	if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) != 0)
		return -1;
	if (setresuid(uid, uid, uid) != 0)
		return -1;
	return 0;
}

uid_t kf_jail_fresh_uid(void)
{
	const uint32_t span = KF_JAIL_UID_END - KF_JAIL_UID_MIN;
	/* Rejection sampling below the largest multiple of span keeps the draw uniform. */
	const uint32_t limit = UINT32_MAX - UINT32_MAX % span;
	uint32_t r;
	do {
		if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			r = (uint32_t)ts.tv_nsec * 2654435761u ^ (uint32_t)getpid() << 16;
			break;
		}
	} while (r >= limit);
	return (uid_t)(KF_JAIL_UID_MIN + r % span);
}

static int set_one(int res, rlim_t soft, rlim_t hard)
{
	struct rlimit rl = { soft, hard };
	return setrlimit(res, &rl);
}

int kf_jail_set_limits(const struct kf_jail_limits *l)
{
	if (l->cpu_s > 0) {
		rlim_t s = (rlim_t)(l->cpu_s + 0.999);
		if (set_one(RLIMIT_CPU, s, s + 1) != 0)
			return -1;
	}
	if (l->data_bytes && set_one(RLIMIT_DATA, l->data_bytes, l->data_bytes) != 0)
		return -1;
	if (set_one(RLIMIT_FSIZE, l->fsize_bytes, l->fsize_bytes) != 0)
		return -1;
	if (l->nofile > 0 && set_one(RLIMIT_NOFILE, (rlim_t)l->nofile, (rlim_t)l->nofile) != 0)
		return -1;
	if (l->nproc > 0 && set_one(RLIMIT_NPROC, (rlim_t)l->nproc, (rlim_t)l->nproc) != 0)
		return -1;
	return set_one(RLIMIT_CORE, 0, 0);
}

void kf_jail_close_from(int first)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)first, ~0u, 0) == 0)
		return;
#endif
	for (int fd = first; fd < 4096; fd++)
		close(fd);
}
