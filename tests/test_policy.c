/* The static vendor-library check (eval/judge/policy.c): what a task that forbids vendor libraries refuses,
 * and what it must let through. */
#include <criterion/criterion.h>
#include <string.h>

#include "eval/judge/policy.h"

static struct kf_task forbidding;

static void setup(void)
{
	memset(&forbidding, 0, sizeof forbidding);
	strcpy(forbidding.name, "matmul_bf16");
}

static bool violates(const struct kf_task *t, const char *src, char *why, size_t why_len)
{
	return kf_policy_violation(t, src, strlen(src), why, why_len);
}

Test(policy, refuses_a_cublas_call_where_the_task_forbids_vendor_libraries, .init = setup)
{
	char why[256] = "";
	cr_assert(violates(&forbidding, "void f(void) { cublasHandle_t h; cublasCreate(&h); }", why, sizeof why));
	cr_expect(strstr(why, "cublasHandle_t") != NULL, "the reason names the identifier: %s", why);
}

Test(policy, refuses_cutensor_but_not_the_drivers_tensor_map, .init = setup)
{
	char why[256] = "";
	cr_expect(violates(&forbidding, "cutensorHandle_t h;", why, sizeof why));
	cr_expect(!violates(&forbidding, "CUtensorMap map; cuTensorMapEncodeTiled(&map, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);",
			    why, sizeof why),
		  "CUtensorMap is the CUDA driver's TMA descriptor, not cuTENSOR: %s", why);
}

Test(policy, ignores_vendor_names_in_comments_and_strings, .init = setup)
{
	char why[256] = "";
	cr_expect(!violates(&forbidding, "/* cublas would be faster */ const char *s = \"cudnn\";", why, sizeof why), "%s", why);
}

Test(policy, lets_vendor_calls_through_where_the_task_allows_them, .init = setup)
{
	char why[256] = "";
	forbidding.vendor_libs_allowed = true;
	cr_expect(!violates(&forbidding, "cublasCreate(&h);", why, sizeof why));
}
