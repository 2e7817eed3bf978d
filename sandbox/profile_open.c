/* Which files a profiled run may open (see profile_open.h). The list comes from the paths in CUPTI's and
 * NVIDIA's profiler libraries (CUDA 13.0): the driver's device nodes and files, the CUDA install, the PCI
 * and NUMA topology under /sys, a few system facts under /proc, the caller's own /proc entries. Reading
 * the machine's other files (a database, keys) stays out of reach, in a profiled run as in a judged one. */
#include "sandbox/profile_open.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prefixes of resolved paths; only the device nodes may be opened for writing. */
static const char *const roots[] = { "/dev/nvidia", "/dev/urandom", "/dev/random", "/usr/local/cuda/",
				     "/usr/local/cuda-", "/proc/driver/nvidia/", "/proc/cpuinfo", "/proc/meminfo",
				     "/proc/sys/kernel/osrelease", "/proc/sys/vm/mmap_min_addr", "/sys/devices/",
				     "/sys/bus/pci/", "/sys/class/", "/sys/module/nvidia" };
#define DEVICE_NODES "/dev/nvidia"

/* A process's own entries that CUPTI reads: /proc/PID/LEAF or /proc/PID/task/TID/LEAF. */
static const char *const own_leaves[] = { "status", "stat", "maps", "comm", "exe" };

static bool digits(const char **p)
{
	const char *s = *p;
	while (**p >= '0' && **p <= '9')
		(*p)++;
	return *p > s;
}

static bool own_entry(const char *path)
{
	const char *p = path;
	if (strncmp(p, "/proc/", 6))
		return false;
	p += 6;
	if (!digits(&p) || *p++ != '/')
		return false;
	if (!strncmp(p, "task/", 5)) {
		p += 5;
		if (!digits(&p) || *p++ != '/')
			return false;
	}
	for (size_t i = 0; i < sizeof own_leaves / sizeof own_leaves[0]; i++)
		if (!strcmp(p, own_leaves[i]))
			return true;
	return false;
}

bool kf_profile_open_path(const char *path, pid_t caller, int flags, char *out, size_t len)
{
	char own[PATH_MAX];
	bool writes = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND));
	if (path[0] != '/')
		return false;
	const char *rest = !strncmp(path, "/proc/self/", 11)	    ? path + 11
			   : !strncmp(path, "/proc/thread-self/", 18) ? path + 18
								      : NULL;
	if (rest) {
		if ((size_t)snprintf(own, sizeof own, "/proc/%d/%s", (int)caller, rest) >= sizeof own)
			return false;
		path = own;
	}
	/* The caller's own entries are magic links (exe) or files: opened as named, never resolved. */
	if (own_entry(path)) {
		if (writes || strlen(path) >= len)
			return false;
		strcpy(out, path);
		return true;
	}
	char real[PATH_MAX];
	if (!realpath(path, real) || strlen(real) >= len)
		return false;
	bool device = !strncmp(real, DEVICE_NODES, strlen(DEVICE_NODES));
	if (writes && (!device || (flags & (O_CREAT | O_TRUNC | O_APPEND))))
		return false;
	for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
		if (!strncmp(real, roots[i], strlen(roots[i]))) {
			strcpy(out, real);
			return true;
		}
	return false;
}
