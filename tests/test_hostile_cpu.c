/* The hostile and broken CPU kernel corpus (tests/kernels/cpu/), judged through `kforge submit`.
 * Each kernel's first line names its task and the verdict it must get; one test per kernel submits
 * it and checks the verdict, the reason, the exit code, that kforge finished in time without
 * crashing, that the evaluation was recorded, and that no secret (the host's password file, a
 * canary planted in kforge's environment) leaked into anything kforge printed (tests/support/corpus.h). */
#include <criterion/criterion.h>

#include "tests/support/corpus.h"

/* One entry per file tests/kernels/cpu/<name>.c; the test is named after the file. */
#define HOSTILE_KERNELS(X)                                                                                   \
	X(allocates_64_gib)                                                                                  \
	X(allocates_in_chunks_until_oom)                                                                     \
	X(blocks_sigsys_then_opens_a_socket)                                                                 \
	X(calls_an_undefined_function)                                                                       \
	X(calls_cblas_through_a_weak_symbol)                                                                 \
	X(calls_cblas_through_token_pasting)                                                                 \
	X(calls_ptrace)                                                                                      \
	X(calls_through_int_0x80)                                                                            \
	X(calls_through_the_x32_abi)                                                                         \
	X(copies_an_input)                                                                                   \
	X(cuts_corners_on_the_benchmark_shape)                                                               \
	X(defines_a_huge_initialised_array)                                                                  \
	X(dereferences_null)                                                                                 \
	X(execs_a_shell)                                                                                     \
	X(execs_in_a_constructor)                                                                            \
	X(exits_after_returning_with_a_nonblocking_command_pipe)                                             \
	X(exits_inside_kf_launch)                                                                            \
	X(finishes_in_a_thread_after_returning)                                                              \
	X(floods_stdout)                                                                                     \
	X(forges_a_fault_report)                                                                             \
	X(forges_a_setup_error_with_terminal_escapes)                                                        \
	X(forges_an_input_it_zeroed)                                                                         \
	X(forks_a_child)                                                                                     \
	X(forks_in_a_constructor)                                                                            \
	X(has_a_syntax_error)                                                                                \
	X(has_no_entry_point)                                                                                \
	X(has_wrong_parameter_types)                                                                         \
	X(ignores_the_ragged_tail)                                                                           \
	X(incbins_etc_passwd)                                                                                \
	X(incbins_in_upper_case)                                                                             \
	X(includes_by_line_splice)                                                                           \
	X(includes_dev_zero_by_digraph)                                                                      \
	X(includes_etc_passwd)                                                                               \
	X(includes_itself_forever)                                                                           \
	X(includes_proc_self_environ)                                                                        \
	X(is_correct_and_writes_to_stderr)                                                                   \
	X(is_correct_with_openmp)                                                                            \
	X(is_nondeterministic_except_at_n_1)                                                                 \
	X(kills_its_parent)                                                                                  \
	X(kills_its_parent_in_a_constructor)                                                                 \
	X(kills_itself_with_sigkill)                                                                         \
	X(loops_forever)                                                                                     \
	X(madvise_removes_its_inputs)                                                                        \
	X(matmul_accumulates_in_bf16)                                                                        \
	X(mentions_cblas_after_a_comment_splice)                                                             \
	X(misnames_the_entry_point)                                                                          \
	X(mprotects_its_inputs_writable)                                                                     \
	X(opens_a_file_in_a_constructor)                                                                     \
	X(opens_a_socket)                                                                                    \
	X(opens_a_socket_in_a_constructor)                                                                   \
	X(opens_etc_passwd)                                                                                  \
	X(overwrites_the_runners_write_then_opens_a_socket)                                                  \
	X(prints_a_fake_verdict)                                                                             \
	X(raises_sigsegv)                                                                                    \
	X(raises_sigsys)                                                                                     \
	X(reads_the_environment)                                                                             \
	X(replaces_the_sigsys_handler)                                                                       \
	X(replays_its_last_output)                                                                           \
	X(returns_an_error_code)                                                                             \
	X(rounds_the_sum_to_bf16)                                                                            \
	X(skips_work_after_three_calls)                                                                      \
	X(sleeps_forever)                                                                                    \
	X(softmax_without_max_subtraction)                                                                   \
	X(speaks_ready_itself_from_kf_init)                                                                  \
	X(starts_2000_threads)                                                                               \
	X(touches_6_gib_of_shared_anonymous_memory)                                                          \
	X(writes_all_zeros)                                                                                  \
	X(writes_half_the_output)                                                                            \
	X(writes_into_the_guard_page)                                                                        \
	X(writes_nan)                                                                                        \
	X(writes_one_element_before_the_output)                                                              \
	X(writes_one_infinity)                                                                               \
	X(writes_one_tile_past_the_end)                                                                      \
	X(zeroes_an_input_after_computing)                                                                   \
	X(zeroes_an_input_then_copies_the_other)

#define HOSTILE_NAME(name) #name,
static const char *const listed[] = { HOSTILE_KERNELS(HOSTILE_NAME) };

static const struct kf_corpus corpus = {
	.dir = "tests/kernels/cpu",
	.ext = ".c",
	.backend = "cpu",
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

TestSuite(hostile_cpu, .init = make_run, .fini = clean_up);

#define HOSTILE_TEST(name)                                                                                   \
	Test(hostile_cpu, name, .timeout = KF_CORPUS_TEST_TIMEOUT_S)                                         \
	{                                                                                                    \
		kf_corpus_judge(&run, &corpus, #name);                                                       \
	}
HOSTILE_KERNELS(HOSTILE_TEST)

Test(hostile_cpu, every_kernel_file_has_a_test_and_a_well_formed_header)
{
	kf_corpus_expect_listing_matches_dir(&corpus);
	for (size_t i = 0; i < corpus.n_names; i++) {
		struct kf_corpus_spec spec;
		kf_corpus_load_spec(&corpus, corpus.names[i], &spec);
	}
}

Test(hostile_cpu, header_parser_rejects_what_it_cannot_check)
{
	static const char *const bad[] = {
		"/* kforge-test: task=vector_add */\n",
		"/* kforge-test: expect=ok */\n",
		"/* kforge-test: task=vector_add expect=passed */\n",
		"/* kforge-test: task=vector_add expect=ok colour=red */\n",
		"/* kforge-test: task=vector_add expect=ok limit_s=forever */\n",
		"/* kforge-test: task=vector_add expect=ok reason~= */\n",
		"/* kforge-tests: task=vector_add expect=ok */\n",
		"// kforge-test: task=vector_add expect=ok\n",
	};
	struct kf_corpus_spec spec;
	kf_err err;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_expect_neq(kf_corpus_parse_header("t.c", bad[i], &spec, &err), KF_OK, "accepted: %s", bad[i]);
	const char *good = "/* kforge-test: task=softmax_rows expect=crash reason~=out limit_s=90 */\n";
	cr_assert_eq(kf_corpus_parse_header("t.c", good, &spec, &err), KF_OK, "%s", err.msg);
	cr_expect_str_eq(spec.task, "softmax_rows");
	cr_expect_str_eq(spec.expect, "crash");
	cr_expect_str_eq(spec.reason, "out");
	cr_expect_float_eq(spec.limit_s, 90.0, 1e-9);
}
