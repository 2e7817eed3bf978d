/* A runner's cgroup (sandbox/cgroup.c) on the machine the tests run on: where cgroups are offered,
 * the group caps tasks and memory, an OOM kill inside it is seen, and removing it leaves nothing;
 * where they are not, nothing is created and nothing fails. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/cgroup.h"

#define SMALL_MEM ((size_t)64 << 20)
#define TOUCH_BYTES ((size_t)256 << 20)
#define FEW_PIDS 8
#define MANY_THREADS 64
#define PAGE 4096

static struct kf_cgroup cg;

static void clean_up(void)
{
	kf_cgroup_remove(&cg);
}

TestSuite(cgroup, .fini = clean_up);

static void make_group(const char *what, size_t mem, long pids)
{
	char name[64], why[PATH_MAX + 128];
	snprintf(name, sizeof name, "kforge-test-%s-%d", what, (int)getpid());
	int rc = kf_cgroup_create(&cg, name, mem, pids, why, sizeof why);
	cr_assert_geq(rc, 0, "%s", why);
	if (rc == 0)
		cr_skip_test("this machine offers kforge no cgroups");
}

/* Runs fn in a child moved into the group; returns its wait status. */
static int in_group(int (*fn)(void))
{
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (kf_cgroup_enter(&cg) != 0)
			_exit(100);
		_exit(fn());
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

static int touch_too_much(void)
{
	volatile char *p = malloc(TOUCH_BYTES); /* volatile: every page must really be touched */
	if (!p)
		return 2;
	for (size_t i = 0; i < TOUCH_BYTES; i += PAGE)
		p[i] = 1;
	return 0;
}

static void *idle(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static int start_many_threads(void)
{
	for (int i = 0; i < MANY_THREADS; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, idle, NULL) != 0)
			return 3;
	}
	return 0;
}

Test(cgroup, kills_a_task_over_its_memory_cap_and_says_it_was_the_oom_killer)
{
	make_group("mem", SMALL_MEM, FEW_PIDS * 8);
	int st = in_group(touch_too_much);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status %#x: not killed", st);
	cr_expect(kf_cgroup_oom_killed(&cg));
}

Test(cgroup, refuses_tasks_past_pids_max)
{
	make_group("pids", TOUCH_BYTES * 4, FEW_PIDS);
	int st = in_group(start_many_threads);
	cr_assert(WIFEXITED(st), "status %#x", st);
	cr_expect_eq(WEXITSTATUS(st), 3, "thread creation never failed (exit %d)", WEXITSTATUS(st));
	cr_expect_not(kf_cgroup_oom_killed(&cg));
}

Test(cgroup, is_gone_after_removal)
{
	make_group("rm", SMALL_MEM, FEW_PIDS);
	char mem[PATH_MAX];
	snprintf(mem, sizeof mem, "%s", cg.mem);
	kf_cgroup_remove(&cg);
	struct stat sb;
	cr_expect_neq(stat(mem, &sb), 0, "%s is still there", mem);
}
