/* The hostile CUDA kernel corpus (tests/kernels/cuda/), judged through `kforge submit --backend cuda`
 * with the same checks as the CPU corpus (tests/support/corpus.h): verdict, reason, exit code, time
 * limit, the record in the database, no leaked secret. Each test skips itself without a GPU. */
#include <criterion/criterion.h>

#include "tests/support/corpus.h"

/* One entry per file tests/kernels/cuda/<name>.cu; the test is named after the file. */
#define HOSTILE_CUDA_KERNELS(X)                                                                              \
	X(allocates_all_gpu_memory)                                                                          \
	X(caches_by_content)                                                                                 \
	X(caches_by_pointer)                                                                                 \
	X(calls_cublas)                                                                                      \
	X(execs)                                                                                             \
	X(exits_after_returning_with_a_nonblocking_command_pipe)                                             \
	X(finishes_in_a_host_thread)                                                                         \
	X(forges_a_reply)                                                                                    \
	X(forges_a_setup_error_with_terminal_escapes)                                                        \
	X(forks)                                                                                             \
	X(forks_in_a_constructor)                                                                            \
	X(kills_itself_with_sigkill)                                                                         \
	X(loops_forever)                                                                                     \
	X(opens_a_file)                                                                                      \
	X(opens_a_file_in_a_constructor)                                                                     \
	X(opens_a_socket_in_a_constructor)                                                                   \
	X(overwrites_the_runners_write_then_opens_a_socket)                                                  \
	X(pins_inputs_in_l2)                                                                                 \
	X(reads_a_previous_output)                                                                           \
	X(reads_an_illegal_address)                                                                          \
	X(skips_timed_iterations)                                                                            \
	X(synchronizes_its_stream)                                                                           \
	X(traps)                                                                                             \
	X(trashes_the_runner_state)                                                                          \
	X(works_on_a_side_stream)                                                                            \
	X(writes_an_input)                                                                                   \
	X(writes_half_the_output)                                                                            \
	X(writes_past_its_workspace)                                                                         \
	X(writes_whole_tiles_past_the_end)

#define HOSTILE_NAME(name) #name,
static const char *const listed[] = { HOSTILE_CUDA_KERNELS(HOSTILE_NAME) };

/* A hung kernel costs the call timeout, not kforge's default. */
static const struct kf_corpus corpus = {
	.dir = "tests/kernels/cuda",
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

TestSuite(hostile_cuda, .init = make_run, .fini = clean_up);

#define HOSTILE_TEST(name)                                                                                   \
	Test(hostile_cuda, name, .timeout = KF_CORPUS_TEST_TIMEOUT_S)                                        \
	{                                                                                                    \
		kf_corpus_require_gpu();                                                                     \
		kf_corpus_judge(&run, &corpus, #name);                                                       \
	}
HOSTILE_CUDA_KERNELS(HOSTILE_TEST)

/* Needs no GPU: it reads files only, so a kernel added without a test fails everywhere. */
Test(hostile_cuda, every_kernel_file_has_a_test_and_a_well_formed_header)
{
	kf_corpus_expect_listing_matches_dir(&corpus);
	for (size_t i = 0; i < corpus.n_names; i++) {
		struct kf_corpus_spec spec;
		kf_corpus_load_spec(&corpus, corpus.names[i], &spec);
	}
}
