/* Jail building blocks shared by the compile jail (in kforge) and the runner (its own binary):
 * entering fresh namespaces, dropping root to an unprivileged uid, applying rlimits, closing
 * stray descriptors and building a scrubbed environment. */
#ifndef KF_JAIL_H
#define KF_JAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define KF_JAIL_NOBODY_UID 65534 /* the uid root drops to inside a jail */

struct kf_jail_limits {
	double cpu_s;         /* RLIMIT_CPU (soft; hard = soft + 1 s) */
	size_t data_bytes;    /* RLIMIT_DATA; 0 = leave */
	size_t fsize_bytes;   /* RLIMIT_FSIZE */
	long nofile;          /* RLIMIT_NOFILE */
	long nproc;           /* RLIMIT_NPROC (only binding for non-root uids) */
};

/* unshare() of user (when not root), network, mount, ipc and (if pid_ns) pid namespaces.
 * Returns a bit mask of what was entered; records nothing on failure: where namespaces are
 * not available, the jail goes on with its other layers (rlimits, seccomp, privilege drop). */
int kf_jail_unshare(bool pid_ns);
#define KF_JAIL_NS_USER 1
#define KF_JAIL_NS_NET 2
#define KF_JAIL_NS_MNT 4
#define KF_JAIL_NS_IPC 8
#define KF_JAIL_NS_PID 16
/* When running as root: drop supplementary groups and become KF_JAIL_NOBODY_UID. -1 on failure. */
int kf_jail_drop_root(void);
/* Applies the limits. -1 (errno set) on failure. */
int kf_jail_set_limits(const struct kf_jail_limits *l);
/* Closes every descriptor >= first. */
void kf_jail_close_from(int first);

#endif
