/* The runner's seccomp allowlist (DESIGN.md §7). Anything not listed, and any system call
 * through a foreign ABI (i386 int 0x80, x32), becomes a user notification to the namespace's
 * init, outside the candidate's address space: it answers the loader's one open of the
 * candidate and ends the runner on anything else, naming the call to the judge. Backends add
 * the calls their driver needs. */
#ifndef KF_RUNNER_SECCOMP_H
#define KF_RUNNER_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Installs the filter on every thread (TSYNC). self is the runner's pid (tgkill may only
 * target the runner itself). refuse_uncounted_maps: mmap with MAP_SHARED or MAP_GROWSDOWN fails
 * with EPERM (such mappings escape RLIMIT_DATA). Returns 0 with *listener the notification
 * descriptor (the caller hands it to the supervisor and closes it), or -1 with `why` filled. */
int kf_runner_seccomp_install(pid_t self, const int *extra_allow, int n_extra, bool refuse_uncounted_maps,
			      int *listener, char *why, size_t why_len);

/* Name of a system call number on this architecture ("openat"), or "syscall <n>". */
const char *kf_syscall_name(int nr, char *buf, size_t len);

#endif
