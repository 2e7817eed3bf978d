/* The runner's seccomp allowlist (DESIGN.md §7). Anything not listed traps into the runner's
 * SIGSYS handler, which names the call to the judge and ends the process; changing the SIGSYS
 * handler kills the process outright. Backends add the calls their driver needs. */
#ifndef KF_RUNNER_SECCOMP_H
#define KF_RUNNER_SECCOMP_H

#include <stddef.h>
#include <sys/types.h>

/* Installs the filter on every thread (TSYNC). self is the runner's pid (tgkill may only
 * target the runner itself). Returns 0, or -1 with `why` filled. */
int kf_runner_seccomp_install(pid_t self, const int *extra_allow, int n_extra, char *why, size_t why_len);

/* Name of a system call number on this architecture ("openat"), or "syscall <n>". */
const char *kf_syscall_name(int nr, char *buf, size_t len);

#endif
