/* Which files a profiled run may open (sandbox/runner_core.c brokers its openat calls): what CUPTI's
 * profiler reads while it replays a call, and nothing else of the machine. */
#ifndef KF_PROFILE_OPEN_H
#define KF_PROFILE_OPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Whether `path`, opened with `flags` by process `caller` (a pid in the jail's pid namespace, whose
 * /proc the supervisor sees), may be opened for it; when it may, out gets the path the supervisor opens
 * in its place: /proc/self and /proc/thread-self rewritten to the caller's pid, anything else resolved
 * (symbolic links, "..") and checked where it leads. */
bool kf_profile_open_path(const char *path, pid_t caller, int flags, char *out, size_t len);

#endif
