/* The CUDA judge's timing through `kforge submit --backend cuda`, against its two known failures:
 * a runner whose write() was hooked to under-report every time 3x is timed by the judge's own clock
 * (its speedup stays within noise of the same kernel's without the hook, in the same database), and
 * a second evaluation of the same example in one database is timed once, with no drift warning.
 * Skips itself without a GPU. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "common/fs.h"
#include "tests/support/cli.h"
#include "tests/support/corpus.h"

#define FORGING_PRELUDE "tests/kernels/judge/hooks_the_runners_write.inc"
#define HONEST_TWIN "examples/cuda/matmul_bf16.cu"
#define TWIN_TASK "matmul_bf16"
/* A GPU timing of the same kernel moves by a few percent between submissions; believed, the forged
 * claims would show as a 3x speedup. */
#define FORGED_OVER_HONEST_MAX 1.25
#define SUBMIT_LIMIT_S 180.0
/* Measured three times (the old units bug) the phase took about 3x as long. */
#define PHASE_RATIO_MAX 1.6

static char tmpdir[PATH_MAX];

static void make_dir(void)
{
	kf_err err;
	cr_assert_eq(kf_cli_tmpdir(tmpdir, &err), KF_OK, "%s", err.msg);
}

static void remove_dir(void) { kf_rm_rf(tmpdir); }

TestSuite(judge_limits_cuda, .init = make_dir, .fini = remove_dir, .timeout = KF_CORPUS_TEST_TIMEOUT_S);

static void submit_to(const char *task, const char *kernel, struct kf_cli_result *r)
{
	char db[PATH_MAX + 16];
	snprintf(db, sizeof db, "%s/kforge.db", tmpdir);
	const char *args[] = { "submit", "--backend", "cuda", "--task", task, "--db", db, "--json", kernel, NULL };
	kf_err err;
	cr_assert_eq(kf_cli_run(args, NULL, SUBMIT_LIMIT_S, r, &err), KF_OK, "%s", err.msg);
	cr_assert_not(r->timed_out, "kforge submit %s ran past %.0f s", kernel, SUBMIT_LIMIT_S);
}

static void submit(const char *kernel, struct kf_cli_result *r) { submit_to(TWIN_TASK, kernel, r); }

static double num(const cJSON *o, const char *key)
{
	double v = -1;
	kf_cli_json_num(o, key, &v);
	return v;
}

Test(judge_limits_cuda, times_a_runner_that_under_reports_by_its_own_clock)
{
	kf_corpus_require_gpu();
	char forger[PATH_MAX + 16], honest_path[PATH_MAX];
	snprintf(forger, sizeof forger, "%s/forger.cu", tmpdir);
	snprintf(honest_path, sizeof honest_path, "%s/%s", kf_home(), HONEST_TWIN);
	kf_err err;
	cr_assert_eq(kf_cli_join_kernel(FORGING_PRELUDE, HONEST_TWIN, forger, &err), KF_OK, "%s", err.msg);
	struct kf_cli_result honest, forged;
	submit(honest_path, &honest);
	submit(forger, &forged);
	const char *hv = kf_cli_json_str(honest.json, "verdict"), *fv = kf_cli_json_str(forged.json, "verdict");
	cr_assert(hv && !strcmp(hv, "ok"), "the honest twin got %s: %s", hv ? hv : "no verdict", honest.err);
	cr_assert(fv, "no verdict for the forger: %s", forged.err);
	if (strcmp(fv, "ok") == 0) {
		double h = num(honest.json, "speedup"), f = num(forged.json, "speedup");
		cr_log_info("honest %.4f ms (speedup %.3f), forger %.4f ms (speedup %.3f)", num(honest.json, "time_ms"), h,
			    num(forged.json, "time_ms"), f);
		cr_expect(f > 0 && f < h * FORGED_OVER_HONEST_MAX, "the forger's speedup is %.3g against %.3g honestly", f,
			  h);
		const cJSON *cand = cJSON_GetObjectItem(cJSON_GetObjectItem(forged.json, "timing"), "candidate");
		cr_expect(num(cand, "charged_ns") > 0 || num(cand, "claims_rejected") > 0,
			  "the forged claims were believed: nothing charged, nothing rejected");
		/* A charge stands only when every measurement, in new runner processes each, was charged. */
		double again = num(cJSON_GetObjectItem(forged.json, "timing"), "remeasured_charged");
		cr_expect(num(cand, "charged_ns") <= 0 || again == 2,
			  "charged %g ns after %g re-measurements in new runners (the forger is charged in each: 2)",
			  num(cand, "charged_ns"), again);
	}
	kf_cli_result_free(&honest);
	kf_cli_result_free(&forged);
}

Test(judge_limits_cuda, times_a_second_evaluation_in_one_database_once)
{
	kf_corpus_require_gpu();
	char example[PATH_MAX];
	snprintf(example, sizeof example, "%s/examples/cuda/vector_add.cu", kf_home());
	struct kf_cli_result first, again;
	submit_to("vector_add", example, &first);
	submit_to("vector_add", example, &again);
	const char *v1 = kf_cli_json_str(first.json, "verdict"), *v2 = kf_cli_json_str(again.json, "verdict");
	cr_assert(v1 && v2 && !strcmp(v1, "ok") && !strcmp(v2, "ok"), "verdicts %s, %s: %s", v1 ? v1 : "none",
		  v2 ? v2 : "none", again.err);
	const cJSON *timing = cJSON_GetObjectItem(again.json, "timing");
	cr_expect_eq(num(timing, "remeasured"), 0, "the second evaluation was measured again %g times",
		     num(timing, "remeasured"));
	char *w = cJSON_PrintUnformatted(cJSON_GetObjectItem(again.json, "warnings"));
	cr_expect(w == NULL || strstr(w, "slower than its best") == NULL, "a drift warning: %s", w);
	free(w);
	double t1 = num(cJSON_GetObjectItem(first.json, "phases"), "timing_ms"),
	       t2 = num(cJSON_GetObjectItem(again.json, "phases"), "timing_ms");
	cr_log_info("timing phase: first %.0f ms, second %.0f ms", t1, t2);
	cr_expect(t1 > 0 && t2 > 0 && t2 < PHASE_RATIO_MAX * t1, "the second timing phase took %.0f ms against %.0f ms",
		  t2, t1);
	kf_cli_result_free(&first);
	kf_cli_result_free(&again);
}
