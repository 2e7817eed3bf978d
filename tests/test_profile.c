/* Profiles (eval/judge/profile.c) with the real CPU runner: a kernel is profiled in a runner of its
 * own at the benchmark shape and gets a bound, the compiler's loop report and the counters this
 * machine offers (or why not); a kernel that crashes or does not build in the profiled run gets an
 * error, never kforge's own failure; profiles are stored with their evaluation and read back. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "common/sha256.h"
#include "eval/judge/profile.h"

#define TEST_TIMEOUT_S 300

static struct kf_task *task;
static struct kf_peaks peaks;
static struct kf_profile_opts opts;
static char tmpdir[PATH_MAX];

static void setup(void)
{
	kf_err err;
	cr_assert_eq(kf_task_find(NULL, "vector_add", &task, &err), KF_OK, "%s", err.msg);
	memset(&peaks, 0, sizeof peaks);
	peaks.bw_bytes_s = 20e9;
	for (int d = 0; d < KF_DTYPE_COUNT; d++)
		peaks.flops_s[d] = 100e9;
	kf_profile_opts_default(&opts);
	opts.seed = 11;
}

static void teardown(void)
{
	kf_task_free(task);
	if (tmpdir[0])
		kf_rm_rf(tmpdir);
}

TestSuite(profile, .init = setup, .fini = teardown, .timeout = TEST_TIMEOUT_S);

static cJSON *profile_of(const char *source, const char *judge_result)
{
	cJSON *jr = judge_result ? cJSON_Parse(judge_result) : NULL, *p = NULL;
	kf_err err;
	cr_assert_eq(kf_profile_candidate(task, &peaks, source, strlen(source), jr, &opts, &p, &err), KF_OK, "%s", err.msg);
	cr_assert_not_null(p);
	cJSON_Delete(jr);
	return p;
}

static const char *str(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(o, key));
}

Test(profile, profiles_a_kernel_in_its_own_runner_at_the_benchmark_shape)
{
	const char *src = "int kf_launch(const float *x, const float *y, float *out, int n)\n{\n"
			  "\tfor (int i = 0; i < n; i++)\n\t\tout[i] = x[i] + y[i];\n\treturn 0;\n}\n";
	/* 16M elements, 12 bytes each, in 100 ms: 2 GB/s of 20, a tenth of the bandwidth. */
	cJSON *p = profile_of(src, "{\"verdict\":\"ok\",\"time_ms\":100.0}");
	cr_expect_null(cJSON_GetObjectItem(p, "error"), "%s", str(p, "error"));
	cr_expect_str_eq(str(p, "backend"), "cpu");
	cr_expect(strstr(str(p, "shape"), "n=16777216"), "%s", str(p, "shape"));
	const cJSON *m = cJSON_GetObjectItem(p, "metrics"), *u = cJSON_GetObjectItem(p, "unavailable");
	cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(m, "bw_pct")), 10.066, 0.01);
	cr_expect_str_eq(str(p, "bound"), "latency");
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(m, "vector_loops")), 1, "the compiler vectorised the loop");
	/* The task clock is counted from outside the jail, or the profile says why it could not be. */
	cr_expect(cJSON_GetObjectItem(m, "cores_used") || cJSON_GetObjectItem(u, "counters"));
	cr_expect(cJSON_GetObjectItem(m, "ipc") || cJSON_GetObjectItem(u, "hardware_counters") ||
		  cJSON_GetObjectItem(u, "counters"));
	cr_expect_gt(cJSON_GetArraySize(cJSON_GetObjectItem(p, "key")), 0);
	cJSON_Delete(p);
}

Test(profile, a_kernel_that_crashes_in_the_profiled_run_gets_an_error_not_a_failure)
{
	cJSON *p = profile_of("int kf_launch(const float *x, const float *y, float *out, int n)\n{\n"
			      "\t(void)x, (void)y, (void)out, (void)n;\n\t*(volatile int *)16 = 1;\n\treturn 0;\n}\n",
			      NULL);
	cr_expect(str(p, "error") && strstr(str(p, "error"), "died"), "%s", str(p, "error"));
	cr_expect_null(cJSON_GetObjectItem(p, "bound"), "nothing to quote");
	cJSON_Delete(p);
	p = profile_of("int kf_launch(void) { return 0 }\n", NULL);
	cr_expect(str(p, "error") && strstr(str(p, "error"), "does not build"), "%s", str(p, "error"));
	cJSON_Delete(p);
}

Test(profile, is_stored_with_its_evaluation_and_read_back)
{
	kf_err err;
	char db[PATH_MAX];
	cr_assert_eq(kf_mkdtemp("/tmp", "kforge-profile-", tmpdir, sizeof tmpdir, &err), KF_OK, "%s", err.msg);
	snprintf(db, sizeof db, "%s/kforge.db", tmpdir);
	struct kf_store *s;
	cr_assert_eq(kf_store_open(db, &s, &err), KF_OK, "%s", err.msg);
	const char *src = "int kf_launch(void) { return 0; }\n";
	char hash[KF_SHA256_HEX_LEN];
	kf_sha256_hex(src, strlen(src), hash);
	cr_assert_eq(kf_store_put_task(s, task->name, task->spec_hash, task->spec_text, &err), KF_OK, "%s", err.msg);
	struct kf_candidate_rec rec = { task->name, task->spec_hash, "cpu", "submit", "tester", NULL, src, hash, 0 };
	int64_t cand = 0, first = 0, second = 0, latest = 0;
	cr_assert_eq(kf_store_add_candidate(s, &rec, &cand, &err), KF_OK, "%s", err.msg);
	cJSON *result = cJSON_Parse("{\"verdict\":\"ok\",\"reason\":\"passed\"}");
	cr_assert_eq(kf_store_add_evaluation(s, cand, result, &first, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(kf_store_add_evaluation(s, cand, result, &second, &err), KF_OK, "%s", err.msg);
	cJSON *p = cJSON_Parse("{\"backend\":\"cpu\",\"bound\":\"memory\",\"metrics\":{\"bw_pct\":80}}"), *got = NULL;
	cr_assert_eq(kf_profile_put(s, second, p, 1.5, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(kf_profile_get(s, first, &got, &err), KF_OK, "%s", err.msg);
	cr_expect_null(got, "the first evaluation was never profiled");
	cr_assert_eq(kf_profile_latest(s, cand, &latest, &got, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(latest, second);
	cr_assert_not_null(got);
	cr_expect_str_eq(str(got, "bound"), "memory");
	cJSON_Delete(got);
	cJSON *shown = NULL;
	cr_assert_eq(kf_store_get_candidate(s, cand, &shown, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(kf_profile_attach(s, shown, &err), KF_OK, "%s", err.msg);
	const cJSON *evals = cJSON_GetObjectItem(shown, "evaluations");
	cr_expect_null(cJSON_GetObjectItem(cJSON_GetArrayItem(evals, 0), "profile"));
	cr_expect_str_eq(str(cJSON_GetObjectItem(cJSON_GetArrayItem(evals, 1), "profile"), "bound"), "memory");
	cJSON_Delete(shown);
	cJSON_Delete(p);
	cJSON_Delete(result);
	kf_store_close(s);
}
