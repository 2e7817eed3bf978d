/* Code extraction from model replies (agent/extract.c): the last block in the backend's language
 * wins, a block defining kf_launch beats a later snippet, and replies without usable code (none,
 * empty, several files, cut off, wrong language) are named outcomes rather than candidates. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "agent/extract.h"

static struct kf_extract x;

static void release(void)
{
	kf_extract_free(&x);
}

TestSuite(agent_extract, .fini = release);

static void extract(const char *reply, enum kf_backend b)
{
	kf_extract_free(&x);
	kf_extract_code(reply, b, &x);
}

Test(agent_extract, takes_the_only_c_block_of_a_reply)
{
	extract("Here you go:\n\n```c\nint kf_launch(void) { return 0; }\n```\nEnjoy.\n", KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_CODE, "%s", x.detail);
	cr_assert_str_eq(x.code, "int kf_launch(void) { return 0; }\n");
}

Test(agent_extract, takes_the_last_block_when_the_model_revises_its_kernel)
{
	extract("First try:\n```c\nint kf_launch(void) { return 1; }\n```\nBetter:\n```c\nint kf_launch(void) { return 2; }\n```\n",
		KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_CODE);
	cr_assert(strstr(x.code, "return 2"), "took %s", x.code);
}

Test(agent_extract, prefers_the_block_that_defines_kf_launch_over_a_later_snippet)
{
	extract("```c\nint kf_launch(const float *x, float *y, int n) { return 0; }\n```\n"
		"Build it with:\n```c\n/* compile with -O3 */\n```\n",
		KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_CODE);
	cr_assert(strstr(x.code, "kf_launch"), "took %s", x.code);
}

Test(agent_extract, prefers_the_kernel_over_a_later_example_usage_block_that_calls_kf_launch)
{
	extract("```c\n#include \"kforge.h\"\nint kf_launch(const float *x, float *y, int n)\n{\n\tfor (int i = 0; i < n; i++)"
		" y[i] = x[i];\n\treturn 0;\n}\n```\n\nExample usage:\n```c\nfloat x[4], y[4];\n"
		"kf_launch(x, y, 4); /* copies x */\n```\n",
		KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_CODE, "%s", x.detail);
	cr_assert(strstr(x.code, "return 0"), "took the usage block: %s", x.code);
	cr_assert(!strncmp(x.detail, "block 1 of 2 ", strlen("block 1 of 2 ")), "%s", x.detail);
}

Test(agent_extract, a_declaration_or_a_call_in_a_comment_is_no_definition)
{
	extract("```cuda\nextern \"C\" int kf_launch(const float *x, float *y, int n)\n/* the entry */ {\n\treturn 0;\n}\n```\n"
		"```cuda\nextern \"C\" int kf_launch(const float *x, float *y, int n);\n// kf_launch(x, y, n) { }\n```\n",
		KF_BACKEND_CUDA);
	cr_assert_eq(x.outcome, KF_EXTRACT_CODE, "%s", x.detail);
	cr_assert(strstr(x.code, "return 0"), "took the declaration: %s", x.code);
}

Test(agent_extract, ignores_blocks_in_other_languages_when_a_c_block_exists)
{
	extract("```python\nprint('hi')\n```\n```c\nint kf_launch(void) { return 0; }\n```\n```bash\nmake\n```\n",
		KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_CODE);
	cr_assert(strstr(x.code, "kf_launch"));
}

Test(agent_extract, records_a_reply_without_any_code)
{
	extract("I cannot help with that.", KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_NO_CODE);
	cr_assert_null(x.code);
	cr_assert_str_eq(kf_extract_outcome_name(x.outcome), "no_code");
}

Test(agent_extract, records_an_empty_block)
{
	extract("```c\n```\n", KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_EMPTY_BLOCK);
	extract("```c\n   \n\n```\n", KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_EMPTY_BLOCK);
	cr_assert_null(x.code);
}

Test(agent_extract, records_a_kernel_split_over_files_named_in_the_info_strings)
{
	extract("```c kernel.c\nint kf_launch(void) { return helper(); }\n```\n```c helpers.h\nint helper(void);\n```\n",
		KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_CONFLICTING_FILES);
	cr_assert(strstr(x.detail, "kernel.c") && strstr(x.detail, "helpers.h"), "%s", x.detail);
	cr_assert_null(x.code);
}

Test(agent_extract, records_a_kernel_split_over_files_named_in_first_line_comments)
{
	extract("```c\n// file: kernel.c\nint kf_launch(void) { return 0; }\n```\n"
		"```c\n/* util.c */\nint util(void) { return 1; }\n```\n",
		KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_CONFLICTING_FILES, "%s", x.detail);
}

Test(agent_extract, accepts_two_versions_of_the_same_named_file)
{
	extract("```c title=\"kernel.c\"\nint kf_launch(void) { return 1; }\n```\n"
		"```c title=\"kernel.c\"\nint kf_launch(void) { return 2; }\n```\n",
		KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_CODE, "%s", x.detail);
	cr_assert(strstr(x.code, "return 2"));
}

Test(agent_extract, records_a_block_cut_off_before_its_closing_fence)
{
	extract("Here:\n```c\nint kf_launch(const float *x, float *y, int n)\n{\n\tfor (int i = 0; i < n;", KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_UNTERMINATED_BLOCK);
	cr_assert_null(x.code);
}

Test(agent_extract, records_code_only_in_another_language)
{
	extract("```python\nimport torch\n```\n", KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_WRONG_LANGUAGE);
	extract("```c\nint kf_launch(void) { return 0; }\n```\n", KF_BACKEND_CUDA);
	cr_assert_eq(x.outcome, KF_EXTRACT_WRONG_LANGUAGE, "a c block is not a CUDA kernel");
}

Test(agent_extract, accepts_cuda_and_cpp_fences_on_the_cuda_backend)
{
	static const char *const langs[] = { "cuda", "cu", "c++", "cpp", "CUDA" };
	for (size_t i = 0; i < sizeof langs / sizeof langs[0]; i++) {
		char reply[256];
		snprintf(reply, sizeof reply, "```%s\nextern \"C\" int kf_launch(cudaStream_t s) { return 0; }\n```\n", langs[i]);
		extract(reply, KF_BACKEND_CUDA);
		cr_assert_eq(x.outcome, KF_EXTRACT_CODE, "fence %s: %s", langs[i], x.detail);
	}
}

Test(agent_extract, falls_back_to_an_untagged_block)
{
	extract("```\nint kf_launch(void) { return 0; }\n```\n", KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_CODE);
	cr_assert(strstr(x.code, "kf_launch"));
}

Test(agent_extract, keeps_shorter_fences_and_tildes_inside_a_longer_fence)
{
	extract("````c\nint kf_launch(void)\n{\n\t/* ``` is not a fence here */\n\treturn 0;\n}\n````\n", KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_CODE, "%s", x.detail);
	cr_assert(strstr(x.code, "return 0;"), "took %s", x.code);
	extract("~~~c\nint kf_launch(void) { return 3; }\n~~~\n", KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_CODE);
	cr_assert(strstr(x.code, "return 3"));
}

Test(agent_extract, handles_a_null_or_empty_reply)
{
	extract(NULL, KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_NO_CODE);
	extract("", KF_BACKEND_CPU);
	cr_assert_eq(x.outcome, KF_EXTRACT_NO_CODE);
}
