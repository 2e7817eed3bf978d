/* A judge session (eval/judge.h): consecutive evaluations of one task reuse the trusted kernels and
 * buffers, nothing of one candidate carries over to the next, and another task rebuilds the session. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "db/store.h"
#include "eval/judge.h"
#include "tests/support/cli.h"

#define MAX_KERNEL (256u << 10)
#define QUICK_TIMING_S 0.2

/* vector_add that is right everywhere but drops the last element at the bench shape. */
static const char *const tail_bug =
	"int kf_launch(const float *x, const float *y, float *out, int n) {\n"
	"  int m = n > 1000000 ? n - 1 : n;\n"
	"  for (int i = 0; i < m; i++) out[i] = x[i] + y[i];\n"
	"  if (m < n) out[n - 1] = 0;\n"
	"  return 0;\n}\n";

static struct kf_task *tasks[2];
static struct kf_peaks peaks;
static struct kf_judge_session *session;
static struct kf_store *store;
static char tmpdir[4096];

static void setup(void)
{
	kf_err err;
	cr_assert_eq(kf_task_find(NULL, "vector_add", &tasks[0], &err), KF_OK, "%s", err.msg);
	cr_assert_eq(kf_task_find(NULL, "relu_bf16", &tasks[1], &err), KF_OK, "%s", err.msg);
	char db[4200];
	cr_assert_eq(kf_cli_tmpdir(tmpdir, &err), KF_OK, "%s", err.msg);
	snprintf(db, sizeof db, "%s/kforge.db", tmpdir);
	cr_assert_eq(kf_store_open(db, &store, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(kf_sol_peaks(store, KF_BACKEND_CPU, 0, &peaks, &err), KF_OK, "%s", err.msg);
	session = kf_judge_session_new();
}

static void teardown(void)
{
	kf_judge_session_free(session);
	kf_task_free(tasks[0]);
	kf_task_free(tasks[1]);
	kf_sol_peaks_free(&peaks);
	kf_store_close(store);
	kf_rm_rf(tmpdir);
}

TestSuite(judge_session, .init = setup, .fini = teardown, .timeout = 300);

static cJSON *judge(const struct kf_task *t, const char *src, size_t len)
{
	struct kf_judge_opts o;
	kf_judge_opts_default(&o);
	o.session = session;
	o.timing_budget_s = QUICK_TIMING_S;
	cJSON *res;
	kf_err err;
	cr_assert_eq(kf_judge_evaluate(t, &peaks, src, len, &o, &res, &err), KF_OK, "%s", err.msg);
	return res;
}

static cJSON *judge_example(const struct kf_task *t)
{
	char path[4096], *src;
	size_t len;
	kf_err err;
	snprintf(path, sizeof path, "%s/examples/cpu/%s.c", kf_home(), t->name);
	cr_assert_eq(kf_read_file(path, MAX_KERNEL, &src, &len, &err), KF_OK, "%s", err.msg);
	cJSON *res = judge(t, src, len);
	free(src);
	return res;
}

static const char *verdict(const cJSON *res) { return cJSON_GetStringValue(cJSON_GetObjectItem(res, "verdict")); }

static bool reused(const cJSON *res)
{
	return cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "reference"), "reused"));
}

Test(judge_session, reuses_the_task_state_but_judges_each_candidate_afresh)
{
	cJSON *first = judge_example(tasks[0]);
	cr_assert_str_eq(verdict(first), "ok", "%s", cJSON_GetStringValue(cJSON_GetObjectItem(first, "reason")));
	cr_expect_not(reused(first), "a new session has nothing to reuse");
	cJSON *bad = judge(tasks[0], tail_bug, strlen(tail_bug));
	cr_expect(reused(bad), "the second evaluation of the task should reuse the session");
	cr_expect_str_eq(verdict(bad), "wrong_answer", "%s", cJSON_GetStringValue(cJSON_GetObjectItem(bad, "reason")));
	cJSON *again = judge_example(tasks[0]);
	cr_expect_str_eq(verdict(again), "ok", "a wrong candidate must not spoil the next: %s",
			 cJSON_GetStringValue(cJSON_GetObjectItem(again, "reason")));
	cJSON_Delete(first);
	cJSON_Delete(bad);
	cJSON_Delete(again);
}

Test(judge_session, rebuilds_itself_for_another_task)
{
	cJSON *a = judge_example(tasks[0]);
	cJSON *b = judge_example(tasks[1]);
	cr_expect_str_eq(verdict(b), "ok", "%s", cJSON_GetStringValue(cJSON_GetObjectItem(b, "reason")));
	cr_expect_not(reused(b), "a session built for vector_add cannot serve relu_bf16");
	cJSON_Delete(a);
	cJSON_Delete(b);
}
