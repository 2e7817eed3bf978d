/* The judge worker pool's scheduling (agent/worker.c), driven directly with real CPU judges: a free
 * judge takes the oldest queued job of the task it judged last before older jobs of other tasks (its
 * session, trusted kernels and drawn inputs, stays up), and with no task of its own queued it takes
 * the oldest job. */
#include <criterion/criterion.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/worker.h"
#include "common/fs.h"
#include "tests/support/cli.h"

#define TEST_TIMEOUT_S 300
#define POLL_MS 1000
#define SOURCE_MAX (1u << 20)
#define JOBS 4

struct order {
	int64_t id[JOBS];
	int n;
	bool failed;
	char why[256];
};

static void on_reply(void *ctx, struct kf_worker_reply *r)
{
	struct order *o = ctx;
	if (r->died || r->error || o->n >= JOBS) {
		o->failed = true;
		snprintf(o->why, sizeof o->why, "job %lld: %s", (long long)r->id,
			 r->died ? "its judge died" : r->error ? r->error : "one reply too many");
	}
	else
		o->id[o->n++] = r->id;
	cJSON_Delete(r->result);
}

static char *example(const char *task)
{
	char path[PATH_MAX], *text = NULL;
	size_t len;
	snprintf(path, sizeof path, "%s/examples/cpu/%s.c", kf_home(), task);
	kf_err err = { 0 };
	cr_assert_eq(kf_read_file(path, SOURCE_MAX, &text, &len, &err), KF_OK, "%s", err.msg);
	return text;
}

/* Judges jobs (tasks[i], in id order i + 1) on one CPU judge without compile processes and returns the
 * order their verdicts came back in, which with one judge is the order it took them. */
static struct order judge_in_order(const char *const *names, int n_jobs)
{
	struct kf_task *tasks[JOBS];
	int n_tasks = 0;
	kf_err err = { 0 };
	for (int i = 0; i < n_jobs; i++) {
		bool seen = false;
		for (int k = 0; k < n_tasks; k++)
			seen = seen || !strcmp(tasks[k]->name, names[i]);
		if (!seen)
			cr_assert_eq(kf_task_find(NULL, names[i], &tasks[n_tasks++], &err), KF_OK, "%s", err.msg);
	}
	/* The worker measures the machine's peaks into this database at its first job. */
	char dir[PATH_MAX], db[PATH_MAX + 16];
	cr_assert_eq(kf_cli_tmpdir(dir, &err), KF_OK, "%s", err.msg);
	snprintf(db, sizeof db, "%s/kforge.db", dir);
	const int device = 0;
	struct kf_worker_setup setup = { .backend = KF_BACKEND_CPU, .devices = &device, .n = 1, .tasks = tasks,
					 .n_tasks = n_tasks, .db_path = db };
	struct kf_worker_pool *pool = NULL;
	cr_assert_eq(kf_worker_pool_start(&setup, &pool, &err), KF_OK, "%s", err.msg);
	char *sources[JOBS];
	for (int i = 0; i < n_jobs; i++) {
		sources[i] = example(names[i]);
		struct kf_worker_job job = { .id = i + 1, .task = names[i], .source = sources[i],
					     .len = strlen(sources[i]), .seed = 7, .n_seeds = 1, .call_timeout_s = 10,
					     .timing_budget_s = 0.2, .deadline_s = 120 };
		cr_assert_eq(kf_worker_pool_submit(pool, &job, &err), KF_OK, "%s", err.msg);
	}
	struct order o = { 0 };
	while (o.n < n_jobs && !o.failed) {
		struct kf_http_fd fds[KF_WORKER_MAX];
		int workers[KF_WORKER_MAX];
		int n = kf_worker_pool_fds(pool, fds, workers, KF_WORKER_MAX);
		struct pollfd pfd[KF_WORKER_MAX];
		for (int i = 0; i < n; i++)
			pfd[i] = (struct pollfd){ .fd = fds[i].fd, .events = POLLIN };
		cr_assert_geq(poll(pfd, (nfds_t)n, POLL_MS), 0);
		for (int i = 0; i < n; i++)
			if (pfd[i].revents)
				cr_assert_eq(kf_worker_pool_read(pool, workers[i], on_reply, &o, &err), KF_OK, "%s", err.msg);
	}
	kf_worker_pool_stop(pool);
	for (int i = 0; i < n_jobs; i++)
		free(sources[i]);
	for (int k = 0; k < n_tasks; k++)
		kf_task_free(tasks[k]);
	kf_rm_rf(dir);
	cr_assert_not(o.failed, "%s", o.why);
	return o;
}

Test(worker_pool, a_free_judge_takes_its_own_tasks_later_job_before_an_older_job_of_another_task,
     .timeout = TEST_TIMEOUT_S)
{
	/* Job 1 goes out at once; 2 (relu) and 3 (vector_add) queue behind it. */
	const char *names[] = { "vector_add", "relu_bf16", "vector_add" };
	struct order o = judge_in_order(names, 3);
	cr_expect_eq(o.id[0], 1);
	cr_expect_eq(o.id[1], 3, "after a vector_add the judge took job %lld, not the queued vector_add (3)",
		     (long long)o.id[1]);
	cr_expect_eq(o.id[2], 2);
}

Test(worker_pool, with_no_job_of_its_task_queued_a_judge_takes_the_oldest_job, .timeout = TEST_TIMEOUT_S)
{
	const char *names[] = { "vector_add", "relu_bf16", "sum_rows", "relu_bf16" };
	struct order o = judge_in_order(names, 4);
	/* 1, then the oldest (2, relu), then relu's own later job (4), then 3. */
	cr_expect_eq(o.id[0], 1);
	cr_expect_eq(o.id[1], 2);
	cr_expect_eq(o.id[2], 4);
	cr_expect_eq(o.id[3], 3);
}
