/* The bundled CUDA example kernels (examples/cuda/<task>.cu), judged through `kforge submit --backend
 * cuda`: each must get ok with its timing and speed-of-light numbers filled in and recorded
 * (tests/support/corpus.h). Each test skips itself without a GPU. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "common/fs.h"
#include "tests/support/corpus.h"

/* One entry per file examples/cuda/<task>.cu; the test is named after the task. */
#define CUDA_EXAMPLES(X)                                                                                     \
	X(layernorm_bf16)                                                                                    \
	X(matmul_bf16)                                                                                       \
	X(softmax_rows)                                                                                      \
	X(vector_add)

/* The matmul example is a plain tiled kernel timed at 4096^3, after a cold nvcc compile. */
#define EXAMPLE_LIMIT_S 120.0

#define EXAMPLE_NAME(task) #task,
static const char *const listed[] = { CUDA_EXAMPLES(EXAMPLE_NAME) };

static const struct kf_corpus examples = {
	.dir = "examples/cuda",
	.ext = ".cu",
	.backend = "cuda",
	.call_timeout_s = "5",
	.names = listed,
	.n_names = sizeof listed / sizeof listed[0],
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

#define EXAMPLE_TEST(task)                                                                                   \
	Test(examples_cuda, task, .timeout = KF_CORPUS_TEST_TIMEOUT_S)                                       \
	{                                                                                                    \
		kf_corpus_require_gpu();                                                                     \
		kf_corpus_judge_correct(&run, &examples, #task, EXAMPLE_LIMIT_S);                            \
		kf_corpus_expect_timed_ok(&run, #task, KF_CORPUS_CUDA_SOL_FRACTION_MAX);                     \
	}
CUDA_EXAMPLES(EXAMPLE_TEST)

/* Needs no GPU: it reads the directory only, so an example added without a test fails everywhere. */
Test(examples_cuda, every_example_file_has_a_test)
{
	kf_corpus_expect_listing_matches_dir(&examples);
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
