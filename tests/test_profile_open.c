/* What a profiled run may open (sandbox/profile_open.h): the files CUPTI's profiler reads, resolved
 * where they lead, and nothing else of the machine, whatever path leads there. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sandbox/profile_open.h"

#define CALLER 4242

static bool may(const char *path, int flags, char *out)
{
	return kf_profile_open_path(path, CALLER, flags, out, PATH_MAX);
}

Test(profile_open, the_callers_own_proc_entries_are_its_own_not_the_supervisors)
{
	char out[PATH_MAX];
	cr_assert(may("/proc/self/status", O_RDONLY, out));
	cr_expect_str_eq(out, "/proc/4242/status");
	cr_assert(may("/proc/thread-self/comm", O_RDONLY, out));
	cr_expect_str_eq(out, "/proc/4242/comm");
	cr_assert(may("/proc/self/exe", O_RDONLY | O_CLOEXEC, out), "the link is opened as named, not resolved");
	cr_expect_str_eq(out, "/proc/4242/exe");
	cr_expect(may("/proc/4242/task/4243/comm", O_RDONLY, out));
}

Test(profile_open, other_proc_entries_and_writes_are_refused)
{
	char out[PATH_MAX];
	cr_expect_not(may("/proc/self/environ", O_RDONLY, out), "the environment may hold keys");
	cr_expect_not(may("/proc/self/mem", O_RDONLY, out));
	cr_expect_not(may("/proc/self/status", O_RDWR, out));
	cr_expect_not(may("/proc/self/../1/environ", O_RDONLY, out), "a '..' out of the caller's entries");
	cr_expect_not(may("/proc/self/task/1/../../environ", O_RDONLY, out));
}

Test(profile_open, system_facts_are_readable_but_not_writable)
{
	char out[PATH_MAX];
	cr_expect(may("/proc/cpuinfo", O_RDONLY, out));
	cr_expect_str_eq(out, "/proc/cpuinfo");
	cr_expect(may("/proc/sys/kernel/osrelease", O_RDONLY, out));
	cr_expect_not(may("/proc/sys/kernel/osrelease", O_WRONLY, out));
	cr_expect_not(may("/proc/cpuinfo", O_RDONLY | O_CREAT, out));
}

Test(profile_open, the_machines_other_files_are_refused_whatever_the_path)
{
	char out[PATH_MAX];
	cr_expect_not(may("/etc/passwd", O_RDONLY, out));
	cr_expect_not(may("etc/passwd", O_RDONLY, out), "a relative path");
	cr_expect_not(may("/sys/../etc/passwd", O_RDONLY, out), "resolved before it is checked");
	cr_expect_not(may("/dev/null", O_RDWR, out));
	cr_expect_not(may("/tmp/x", O_WRONLY | O_CREAT, out));
}

Test(profile_open, a_link_under_an_allowed_root_is_judged_where_it_leads)
{
	/* /sys/class/net/lo is a symbolic link into /sys/devices/virtual: allowed where it leads. */
	char out[PATH_MAX];
	if (access("/sys/class/net/lo", F_OK) != 0)
		cr_skip_test("no /sys/class/net/lo here");
	cr_assert(may("/sys/class/net/lo", O_RDONLY | O_DIRECTORY, out));
	cr_expect_str_eq(out, "/sys/devices/virtual/net/lo");
}
