/* The GPU stays usable after hostile kernels: a hung kernel (killed by the watchdog) and sticky
 * CUDA errors (which poison the runner's context) must not spoil the next candidate. All in one
 * test, in this order, so the result does not depend on how Criterion orders or forks tests. */
#include <criterion/criterion.h>

#include "tests/support/corpus.h"

/* Three hostile kernels, then a correct one, each judged once. */
#define USABLE_TEST_TIMEOUT_S (4 * KF_CORPUS_TEST_TIMEOUT_S)
#define CORRECT_LIMIT_S KF_CORPUS_DEFAULT_LIMIT_S

/* A hung kernel costs the call timeout, not kforge's default. */
static const struct kf_corpus hostile = {
	.dir = "tests/kernels/cuda",
	.ext = ".cu",
	.backend = "cuda",
	.call_timeout_s = "5",
};

static const struct kf_corpus examples = {
	.dir = "examples/cuda",
	.ext = ".cu",
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

TestSuite(gpu_after_hostile, .init = make_run, .fini = clean_up);

Test(gpu_after_hostile, a_correct_kernel_gets_ok_after_a_hang_a_trap_and_an_illegal_address,
     .timeout = USABLE_TEST_TIMEOUT_S)
{
	kf_corpus_require_gpu();
	kf_corpus_judge(&run, &hostile, "loops_forever");
	kf_corpus_judge(&run, &hostile, "traps");
	kf_corpus_judge(&run, &hostile, "reads_an_illegal_address");
	kf_corpus_judge_correct(&run, &examples, "vector_add", CORRECT_LIMIT_S);
	kf_corpus_expect_timed_ok(&run, "vector_add after the hostile kernels", KF_CORPUS_CUDA_SOL_FRACTION_MAX);
}
