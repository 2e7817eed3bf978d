/* The bundled CUDA example kernels (examples/cuda/<task>.cu), judged through `kforge submit --backend
 * cuda`: each must get ok with its timing and speed-of-light numbers filled in and recorded
 * (tests/support/corpus.h). Each test skips itself without a GPU. */
#include <criterion/criterion.h>

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
