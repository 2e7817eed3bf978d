/* A cgroup of one runner, where the machine offers cgroups: a cap on its tasks (pids.max) and on
 * its memory, so a candidate's threads and shared or grows-down mappings are bounded by the
 * kernel whatever rlimits miss, and an OOM kill inside it can be told from other deaths.
 * cgroup v2 (the GPU machines) when kforge's own cgroup delegates the memory and pids
 * controllers to its children; else cgroup v1 (separate memory and pids hierarchies). Where
 * neither is offered (not root, no controllers), nothing is used and the runner keeps its other
 * bounds (RLIMIT_DATA, the seccomp mmap rules, its own uid's RLIMIT_NPROC). */
#ifndef KF_CGROUP_H
#define KF_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct kf_cgroup {
	int version;           /* 0 none, 1 or 2 */
	char mem[PATH_MAX];    /* the group's directory in the memory hierarchy (v2: the group) */
	char pids[PATH_MAX];   /* the group's directory in the pids hierarchy (v2: the same) */
};

/* Creates the group `name` below kforge's own and sets its limits. Returns 1 when created, 0 when
 * the machine offers no cgroups (cg->version 0), -1 when they are offered but a step failed (why
 * names it and the errno; nothing is left behind). */
int kf_cgroup_create(struct kf_cgroup *cg, const char *name, size_t mem_bytes, long pids_max, char *why,
		     size_t why_len);
/* Moves the calling process into the group (a freshly forked child, before exec). -1 with errno
 * set on failure. */
int kf_cgroup_enter(const struct kf_cgroup *cg);
/* Whether the kernel's OOM killer killed a task of the group. */
bool kf_cgroup_oom_killed(const struct kf_cgroup *cg);
/* Removes the group once its tasks are gone (waits a little for the kernel to release them). */
void kf_cgroup_remove(struct kf_cgroup *cg);

#endif
