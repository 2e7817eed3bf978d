/* Jail building blocks shared by the compile jail (in kforge) and the runner (its own binary):
 * entering fresh namespaces, dropping root to an unprivileged uid, applying rlimits, closing
 * stray descriptors and building a scrubbed environment. */
#ifndef KF_JAIL_H
#define KF_JAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Fresh jail uids are drawn from [KF_JAIL_UID_MIN, KF_JAIL_UID_END): far above the ids
 * distributions give system and login users and systemd's dynamic users (all below 65536),
 * and below 2^31, so no tool mistakes one for -1 or a negative id. 2^30 - 2^16 values: k jails
 * at once share a uid with probability about k^2 / 2^31. */
#define KF_JAIL_UID_MIN 0x40000000u
#define KF_JAIL_UID_END 0x7fff0000u

struct kf_jail_limits {
	double cpu_s;         /* RLIMIT_CPU (soft; hard = soft + 1 s) */
	size_t data_bytes;    /* RLIMIT_DATA; 0 = leave */
	size_t fsize_bytes;   /* RLIMIT_FSIZE */
	long nofile;          /* RLIMIT_NOFILE */
	long nproc;           /* RLIMIT_NPROC (only binding for non-root uids) */
};

/* unshare() of user (when not root), network, mount, ipc and (if pid_ns) pid namespaces, and
 * the mount namespace made private. Returns a bit mask of what was entered, or -1 with errno
 * set and *step naming what failed: a jail that must fail closed reports it. */
int kf_jail_enter(bool pid_ns, const char **step);
#define KF_JAIL_NS_USER 1
#define KF_JAIL_NS_NET 2
#define KF_JAIL_NS_MNT 4
#define KF_JAIL_NS_IPC 8
#define KF_JAIL_NS_PID 16
/* A uid (and gid, the same number) for one jail only, drawn uniformly from
 * [KF_JAIL_UID_MIN, KF_JAIL_UID_END) with getrandom(): no file on the host belongs to it, and
 * RLIMIT_NPROC, which the kernel counts per uid, becomes a limit of that one jail. Never fails
 * (falls back to the clock and pid if getrandom is unavailable). Async-signal-safe. */
uid_t kf_jail_fresh_uid(void);
/* When running as root: drop supplementary groups (setgroups(0)), then setresgid and setresuid
 * to uid (gid = uid). Not root (a user namespace maps only the caller's own uid): nothing to
 * do, returns 0. -1 with errno set on failure. */
int kf_jail_drop_root_to(uid_t uid);
/* Applies the limits. -1 (errno set) on failure. */
int kf_jail_set_limits(const struct kf_jail_limits *l);
/* Closes every descriptor >= first. */
void kf_jail_close_from(int first);

#endif
