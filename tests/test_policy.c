/* The vendor-library policy (eval/judge/policy.c), decided from what the linker and the compiled object
 * show: what a task that forbids vendor libraries refuses, and what it must let through. The whole path
 * through `kforge submit` is in the hostile corpus (calls_cblas_through_token_pasting,
 * mentions_cblas_after_a_comment_splice). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "eval/judge/policy.h"
#include "tests/support/cli.h"

static struct kf_task forbidding;
static char dir[PATH_MAX];

static void setup(void)
{
	memset(&forbidding, 0, sizeof forbidding);
	strcpy(forbidding.name, "matmul_bf16");
	kf_err err;
	cr_assert_eq(kf_cli_tmpdir(dir, &err), KF_OK, "%s", err.msg);
}

static void teardown(void) { kf_rm_rf(dir); }

TestSuite(policy, .init = setup, .fini = teardown);

Test(policy, names_a_vendor_function_the_link_could_not_find)
{
	char why[256] = "";
	cr_assert(kf_policy_check_link_log(&forbidding,
					   "/usr/bin/ld: /tmp/x.o: in function `kf_launch':\n"
					   "candidate.c:(.text+0x2d): undefined reference to `cblas_sgemm'\n"
					   "collect2: error: ld returned 1 exit status\n",
					   why, sizeof why));
	cr_expect(strstr(why, "cblas_sgemm") && strstr(why, "forbids"), "%s", why);
	cr_expect(kf_policy_check_link_log(&forbidding, "ld.lld: error: undefined symbol: cublasCreate_v2\n", why,
					   sizeof why),
		  "LLVM's linker words it otherwise");
	cr_expect(strstr(why, "cublasCreate_v2"), "%s", why);
}

Test(policy, leaves_other_link_errors_and_the_drivers_tensor_map_as_compile_errors)
{
	char why[256] = "";
	cr_expect(!kf_policy_check_link_log(&forbidding, "x.c:(.text+0x9): undefined reference to `my_helper'\n", why,
					    sizeof why));
	cr_expect(!kf_policy_check_link_log(&forbidding,
					    "x.c:(.text+0x9): undefined reference to `cuTensorMapEncodeTiled'\n", why,
					    sizeof why),
		  "CUtensorMap is the CUDA driver's TMA descriptor, not cuTENSOR");
	cr_expect(!kf_policy_check_link_log(&forbidding, "x.c:4:1: error: expected ';' before '}' token\n", why,
					    sizeof why));
	cr_expect(!kf_policy_check_link_log(&forbidding, NULL, why, sizeof why));
}

Test(policy, lets_vendor_calls_through_where_the_task_allows_them)
{
	char why[256] = "";
	forbidding.vendor_libs_allowed = true;
	cr_expect(!kf_policy_check_link_log(&forbidding, "undefined reference to `cblas_sgemm'\n", why, sizeof why));
}

/* Builds dir/name.so from C text with the host compiler, undefined symbols allowed. */
static void build_so(const char *name, const char *text, char *so, size_t so_len)
{
	char src[PATH_MAX + 32], cmd[3 * PATH_MAX];
	kf_err err;
	snprintf(src, sizeof src, "%s/%s.c", dir, name);
	snprintf(so, so_len, "%s/%s.so", dir, name);
	cr_assert_eq(kf_write_file(src, text, strlen(text), &err), KF_OK, "%s", err.msg);
	snprintf(cmd, sizeof cmd, "cc -shared -fPIC -o '%s' '%s'", so, src);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
}

Test(policy, refuses_an_object_that_imports_a_vendor_function_whatever_its_source_spelled)
{
	char so[PATH_MAX + 32], why[256] = "";
	build_so("pasted", "#define P(a, b) a##b\nvoid P(cublas, Create_v2)(void *);\n"
			   "void f(void) { P(cublas, Create_v2)(0); }\n",
		 so, sizeof so);
	bool bad = false;
	kf_err err;
	cr_assert_eq(kf_policy_check_object(&forbidding, so, &bad, why, sizeof why, &err), KF_OK, "%s", err.msg);
	cr_expect(bad && strstr(why, "cublasCreate_v2"), "%s", why);
}

Test(policy, passes_an_object_whose_own_functions_or_driver_calls_share_a_vendor_prefix)
{
	char so[PATH_MAX + 32], why[256] = "";
	build_so("own", "void cuTensorMapEncodeTiled(void *);\n"
			"int cublas_like_tile(int x) { return x + 1; }\n"
			"/* cublasCreate would be faster */ const char *s = \"cudnnConvolutionForward\";\n"
			"void f(void) { cuTensorMapEncodeTiled(0); }\n",
		 so, sizeof so);
	bool bad = true;
	kf_err err;
	cr_assert_eq(kf_policy_check_object(&forbidding, so, &bad, why, sizeof why, &err), KF_OK, "%s", err.msg);
	cr_expect(!bad, "%s", why);
}

Test(policy, says_so_when_the_object_is_not_elf)
{
	char path[PATH_MAX + 32], why[256] = "";
	snprintf(path, sizeof path, "%s/not.so", dir);
	kf_err err;
	cr_assert_eq(kf_write_file(path, "#!/bin/sh\n", 10, &err), KF_OK, "%s", err.msg);
	bool bad;
	cr_expect_eq(kf_policy_check_object(&forbidding, path, &bad, why, sizeof why, &err), KF_EINTERNAL);
	cr_expect(strstr(err.msg, "not an ELF64"), "%s", err.msg);
}
