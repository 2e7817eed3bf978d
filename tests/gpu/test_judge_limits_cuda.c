/* The CUDA judge against a candidate that attacks the measurement rather than the answer, through
 * `kforge submit --backend cuda`: a runner whose write() was hooked to under-report every time 3x
 * is timed by the judge's own clock, so its speedup stays within noise of the same kernel's without
 * the hook, judged in the same database. Skips itself without a GPU. */
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

static char tmpdir[PATH_MAX];

static void make_dir(void)
{
	kf_err err;
	cr_assert_eq(kf_cli_tmpdir(tmpdir, &err), KF_OK, "%s", err.msg);
}

static void remove_dir(void) { kf_rm_rf(tmpdir); }

TestSuite(judge_limits_cuda, .init = make_dir, .fini = remove_dir, .timeout = KF_CORPUS_TEST_TIMEOUT_S);

static void submit(const char *kernel, struct kf_cli_result *r)
{
	char db[PATH_MAX + 16];
	snprintf(db, sizeof db, "%s/kforge.db", tmpdir);
	const char *args[] = { "submit", "--backend", "cuda", "--task", TWIN_TASK, "--db", db, "--json", kernel, NULL };
	kf_err err;
	cr_assert_eq(kf_cli_run(args, NULL, SUBMIT_LIMIT_S, r, &err), KF_OK, "%s", err.msg);
	cr_assert_not(r->timed_out, "kforge submit %s ran past %.0f s", kernel, SUBMIT_LIMIT_S);
}

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
	}
	kf_cli_result_free(&honest);
	kf_cli_result_free(&forged);
}
