/* Multi-GPU judging (level 4, docs/multi-gpu.md) on a machine with at least 2 GPUs: every level-4 example gets
 * ok on 2 GPUs with its timing, speed of light and NVLink figures recorded, and each hostile kernel of
 * tests/kernels/cuda_multi/ its verdict (the skipped rank, the early read, the deadlock, the write into a peer's
 * inputs, the copy left running, NVLink multicast), through `kforge submit --backend cuda` (every GPU by default). Each test skips
 * itself with fewer than 2 GPUs. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "tests/support/corpus.h"

#define NVIDIA_GPUS_DIR "/proc/driver/nvidia/gpus" /* one entry per GPU the driver sees */

/* One entry per file tests/kernels/cuda_multi/<name>.cu; the test is named after the file. */
#define HOSTILE_MULTI_KERNELS(X)                                                                             \
	X(deadlocks)                                                                                         \
	X(leaves_a_copy_running)                                                                             \
	X(reads_a_peer_output_early)                                                                         \
	X(skips_a_rank)                                                                                      \
	X(uses_nvlink_multicast)                                                                             \
	X(writes_a_peer_input)

#define HOSTILE_NAME(name) #name,
static const char *const listed[] = { HOSTILE_MULTI_KERNELS(HOSTILE_NAME) };

static const struct kf_corpus hostile = {
	.dir = "tests/kernels/cuda_multi",
	.ext = ".cu",
	.backend = "cuda",
	.call_timeout_s = "5",
	.names = listed,
	.n_names = sizeof listed / sizeof listed[0],
};

/* One entry per level-4 task, each with examples/cuda_multi/<task>.cu: beside examples/cuda/ (the single-GPU
 * examples, whose suite lists that folder), as these need 2 GPUs. */
#define MULTI_EXAMPLES(X)                                                                                    \
	X(allgather_matmul_bf16)                                                                             \
	X(allreduce_sum_bf16)                                                                                \
	X(matmul_reducescatter_bf16)                                                                         \
	X(reducescatter_sum_bf16)

static const char *const example_names[] = { MULTI_EXAMPLES(HOSTILE_NAME) };

static const struct kf_corpus examples = {
	.dir = "examples/cuda_multi",
	.ext = ".cu",
	.backend = "cuda",
	.names = example_names,
	.n_names = sizeof example_names / sizeof example_names[0],
};

static struct kf_corpus_run run;

static void make_run(void) { kf_corpus_run_init(&run); }
static void clean_up(void) { kf_corpus_run_free(&run); }

TestSuite(multi_gpu, .init = make_run, .fini = clean_up);

/* The GPU count (at least 2, else the test is skipped): a job takes every visible GPU, at most 8. */
static int require_two_gpus(void)
{
	kf_corpus_require_gpu();
	int n = 0;
	DIR *d = opendir(NVIDIA_GPUS_DIR);
	for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	if (n < 2)
		cr_skip_test("%d GPU(s) in " NVIDIA_GPUS_DIR ": the multi-GPU tests need 2", n);
	return n < 8 ? n : 8;
}

/* An example: ok on every GPU, timed, recorded under the job's machine ("... x N") with its NVLink figures. */
static void judge_example(const char *task)
{
	int n = require_two_gpus();
	kf_corpus_judge_correct(&run, &examples, task, KF_CORPUS_MAX_LIMIT_S);
	kf_corpus_expect_timed_ok(&run, task, KF_CORPUS_CUDA_SOL_FRACTION_MAX);
	const cJSON *r = run.submit.json;
	double gpus = 0, sent = 0, achieved = 0;
	cr_expect(kf_cli_json_num(r, "gpus", &gpus) && gpus == n, "%s: gpus %g, %d GPUs here", task, gpus, n);
	const cJSON *machine = cJSON_GetObjectItem(r, "machine");
	const char *device = kf_cli_json_str(machine, "device");
	char suffix[16];
	snprintf(suffix, sizeof suffix, " x %d", n);
	cr_expect(device && strstr(device, suffix), "%s: machine.device %s", task, device ? device : "(none)");
	const cJSON *multi = cJSON_GetObjectItem(machine, "multi_gpu");
	cr_expect(kf_cli_json_num(multi, "peer_copy_bytes_s", &sent) && sent > 0, "%s: measured peer bandwidth", task);
	const cJSON *nv = cJSON_GetObjectItem(r, "nvlink");
	cr_expect(kf_cli_json_num(nv, "bytes_per_gpu", &sent) && sent > 0, "%s: nvlink.bytes_per_gpu", task);
	cr_expect(kf_cli_json_num(nv, "candidate_bytes_s", &achieved) && achieved > 0, "%s: nvlink.candidate_bytes_s", task);
}

#define EXAMPLE_TEST(task)                                                                                   \
	Test(multi_gpu, task##_example_is_ok, .timeout = KF_CORPUS_TEST_TIMEOUT_S) { judge_example(#task); }
MULTI_EXAMPLES(EXAMPLE_TEST)

#define HOSTILE_TEST(name)                                                                                   \
	Test(multi_gpu, name, .timeout = KF_CORPUS_TEST_TIMEOUT_S)                                           \
	{                                                                                                    \
		require_two_gpus();                                                                          \
		kf_corpus_judge(&run, &hostile, #name);                                                      \
	}
HOSTILE_MULTI_KERNELS(HOSTILE_TEST)

/* The work left running on a side stream is in the judge's clock: 3 ms idled per call are in time_ms. */
Test(multi_gpu, a_copy_left_running_is_charged_to_the_candidate, .timeout = KF_CORPUS_TEST_TIMEOUT_S)
{
	require_two_gpus();
	kf_corpus_judge(&run, &hostile, "leaves_a_copy_running");
	double t = 0;
	cr_expect(kf_cli_json_num(run.submit.json, "time_ms", &t) && t >= 2.5, "time_ms %g: the hidden 3 ms is charged", t);
}

/* Needs no GPU: a kernel or example added without a test fails everywhere. */
Test(multi_gpu, every_kernel_file_has_a_test_and_a_well_formed_header)
{
	kf_corpus_expect_listing_matches_dir(&examples);
	kf_corpus_expect_listing_matches_dir(&hostile);
	for (size_t i = 0; i < hostile.n_names; i++) {
		struct kf_corpus_spec spec;
		kf_corpus_load_spec(&hostile, hostile.names[i], &spec);
		cr_expect_str_eq(spec.task, "allreduce_sum_bf16", "%s", hostile.names[i]);
	}
}
