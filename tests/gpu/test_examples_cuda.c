/* The bundled CUDA example kernels (examples/cuda/<task>.cu, every file in the directory), judged through
 * `kforge submit --backend cuda`: each must get ok with its timing and speed-of-light numbers filled in and
 * recorded (tests/support/corpus.h). Each judging test skips itself without a GPU. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "tests/support/corpus.h"

/* The slowest examples are plain kernels for the big tasks (a WMMA decoder layer, scalar attention)
 * timed at their bench shapes after a cold nvcc compile. */
#define EXAMPLE_LIMIT_S 180.0
#define EXAMPLES_DIR "examples/cuda"
#define EXAMPLE_EXT ".cu"

static const struct kf_corpus examples = {
	.dir = EXAMPLES_DIR,
	.ext = EXAMPLE_EXT,
	.backend = "cuda",
	.call_timeout_s = "5",
};

/* The test's private directory and latest kforge outputs; freed by fini, so a failed assertion leaks nothing. */
static struct kf_corpus_run run;

static void make_run(void)
{
	kf_corpus_run_init(&run);
}

static void clean_up(void)
{
	kf_corpus_run_free(&run);
}

TestSuite(examples_cuda, .init = make_run, .fini = clean_up);

/* One parameter per file examples/cuda/<task>.cu, read from the directory, so an example added by
 * anyone is judged without editing this file. A listing error becomes a parameter that fails with it. */
struct example_param {
	char task[KF_NAME_MAX];
	char error[KF_ERR_MSG_MAX];
};

static void free_example_params(struct criterion_test_params *ctp)
{
	cr_free(ctp->params);
}

static int by_task(const void *a, const void *b)
{
	return strcmp(((const struct example_param *)a)->task, ((const struct example_param *)b)->task);
}

ParameterizedTestParameters(examples_cuda, every_example_is_judged_ok)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/%s", kf_home(), EXAMPLES_DIR);
	size_t n = 0, cap = 0, ext_len = strlen(EXAMPLE_EXT);
	DIR *d = opendir(dir);
	for (const struct dirent *e; d && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		cap += len > ext_len && !strcmp(e->d_name + len - ext_len, EXAMPLE_EXT);
	}
	struct example_param *p = cr_calloc(cap ? cap : 1, sizeof *p);
	if (d)
		rewinddir(d);
	for (const struct dirent *e; d && n < cap && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len > ext_len && !strcmp(e->d_name + len - ext_len, EXAMPLE_EXT) && len - ext_len < KF_NAME_MAX)
			snprintf(p[n++].task, KF_NAME_MAX, "%.*s", (int)(len - ext_len), e->d_name);
	}
	if (d)
		closedir(d);
	if (n == 0) {
		snprintf(p[0].error, sizeof p[0].error, "no %s files in %s", EXAMPLE_EXT, dir);
		n = 1;
	}
	qsort(p, n, sizeof *p, by_task);
	return cr_make_param_array(struct example_param, p, n, free_example_params);
}

ParameterizedTest(struct example_param *p, examples_cuda, every_example_is_judged_ok,
		  .timeout = KF_CORPUS_TEST_TIMEOUT_S)
{
	cr_assert(!p->error[0], "%s", p->error);
	kf_corpus_require_gpu();
	kf_corpus_judge_correct(&run, &examples, p->task, EXAMPLE_LIMIT_S);
	kf_corpus_expect_timed_ok(&run, p->task, KF_CORPUS_CUDA_SOL_FRACTION_MAX);
}

/* Needs no GPU: every example is named after a task that has a CUDA reference to be judged against. */
Test(examples_cuda, every_example_names_a_task_with_a_cuda_reference)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/%s", kf_home(), EXAMPLES_DIR);
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "cannot open %s", dir);
	size_t n = 0, ext_len = strlen(EXAMPLE_EXT);
	for (const struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len <= ext_len || strcmp(e->d_name + len - ext_len, EXAMPLE_EXT))
			continue;
		char task[KF_NAME_MAX];
		snprintf(task, sizeof task, "%.*s", (int)(len - ext_len), e->d_name);
		struct kf_task *t = NULL;
		kf_err err;
		cr_expect_eq(kf_task_find(NULL, task, &t, &err), KF_OK, "%s/%s: %s", dir, e->d_name, err.msg);
		if (t)
			cr_expect_not_null(t->reference[KF_BACKEND_CUDA], "%s/%s: task %s has no CUDA reference", dir,
					   e->d_name, task);
		kf_task_free(t);
		n++;
	}
	closedir(d);
	cr_expect_gt(n, 0, "no examples in %s", dir);
}

/* A task with a vendor baseline times it beside the candidate and the reference: matmul_bf16's
 * cuBLAS column is filled, its samples counted, and the GPU clocks were sampled during the loop. */
Test(examples_cuda, matmul_bf16_is_timed_beside_its_cublas_baseline, .timeout = KF_CORPUS_TEST_TIMEOUT_S)
{
	kf_corpus_require_gpu();
	kf_corpus_judge_correct(&run, &examples, "matmul_bf16", EXAMPLE_LIMIT_S);
	const cJSON *r = run.submit.json;
	double vendor = 0, n = 0, samples = 0, sm_min = 0;
	cr_assert(kf_cli_json_num(r, "vendor_time_ms", &vendor) && vendor > 0, "vendor_time_ms missing: %s",
		  cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "warnings")));
	const cJSON *timing = cJSON_GetObjectItem(r, "timing");
	cr_assert(kf_cli_json_num(cJSON_GetObjectItem(timing, "vendor"), "n", &n) && n >= 3,
		  "the vendor side has %g timed samples", n);
	const cJSON *clocks = cJSON_GetObjectItem(timing, "clocks_mhz");
	cr_expect(kf_cli_json_num(clocks, "samples", &samples) && samples >= n, "clocks sampled %g times in %g iterations",
		  samples, n);
	cr_expect(kf_cli_json_num(clocks, "sm_min", &sm_min) && sm_min > 0, "no SM clock read during the loop");
}

/* The candidate is built as SASS for the very device that judged it: the compile flags name the
 * compute capability the machine record reports (sm_90a on an H100). */
Test(examples_cuda, the_candidate_is_built_for_the_devices_compute_capability, .timeout = KF_CORPUS_TEST_TIMEOUT_S)
{
	kf_corpus_require_gpu();
	kf_corpus_judge_correct(&run, &examples, "vector_add", EXAMPLE_LIMIT_S);
	const cJSON *r = run.submit.json;
	double cc = 0;
	cr_assert(kf_cli_json_num(cJSON_GetObjectItem(r, "machine"), "compute_capability", &cc) && cc > 0,
		  "the machine record has no compute capability");
	char want[32];
	snprintf(want, sizeof want, "code=sm_%d", (int)cc);
	const char *flags = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "compile"), "flags"));
	cr_assert_not_null(flags, "no compile flags recorded");
	cr_expect_not_null(strstr(flags, want), "built with %s, the device is compute capability %d", flags, (int)cc);
}

/* Where a task allows vendor libraries, a candidate may call cuBLAS: it is linked and cuBLAS is
 * loaded before the runner's filter, so the call runs and is judged like any other. The probe task
 * (bench/fidelity) is matmul_bf16 with cuBLAS allowed; the candidate one cublasGemmEx. */
Test(examples_cuda, a_candidate_may_call_cublas_where_the_task_allows_it, .timeout = KF_CORPUS_TEST_TIMEOUT_S)
{
	kf_corpus_require_gpu();
	char tasks[PATH_MAX], kernel[PATH_MAX], env_tasks[PATH_MAX + 16], env_db[PATH_MAX + 16];
	snprintf(tasks, sizeof tasks, "%s/bench/fidelity/tasks", kf_home());
	snprintf(kernel, sizeof kernel, "%s/bench/fidelity/cublas_gemm.cu", kf_home());
	snprintf(env_tasks, sizeof env_tasks, "KFORGE_TASKS=%s", tasks);
	snprintf(env_db, sizeof env_db, "KFORGE_DB=%s", run.db);
	const char *const args[] = { "submit", "--backend", "cuda", "--task", "matmul_bf16_cublas", "--json", kernel, NULL };
	const char *const env[] = { env_tasks, env_db, NULL };
	kf_cli_result_free(&run.submit);
	kf_err err;
	cr_assert_eq(kf_cli_run(args, env, EXAMPLE_LIMIT_S, &run.submit, &err), KF_OK, "%s", err.msg);
	const char *verdict = kf_cli_json_str(run.submit.json, "verdict");
	cr_assert(verdict && !strcmp(verdict, "ok"), "verdict %s: %s (stderr: %s)", verdict ? verdict : "(none)",
		  kf_cli_json_str(run.submit.json, "reason"), run.submit.err);
}
