/* Verdict names (see verdict.h). */
#include "sandbox/verdict.h"

#include <string.h>

static const char *const names[KF_V_COUNT] = {
	[KF_V_OK] = "ok",
	[KF_V_COMPILE_ERROR] = "compile_error",
	[KF_V_COMPILE_TIMEOUT] = "compile_timeout",
	[KF_V_LINK_ERROR] = "link_error",
	[KF_V_RUNTIME_ERROR] = "runtime_error",
	[KF_V_TIMEOUT] = "timeout",
	[KF_V_CPU_TIMEOUT] = "cpu_timeout",
	[KF_V_MEMORY_LIMIT] = "memory_limit",
	[KF_V_CRASH] = "crash",
	[KF_V_SANDBOX_VIOLATION] = "sandbox_violation",
	[KF_V_WRONG_ANSWER] = "wrong_answer",
	[KF_V_TRIVIAL_OUTPUT] = "trivial_output",
	[KF_V_INPUTS_MODIFIED] = "inputs_modified",
	[KF_V_UNWRITTEN_OUTPUT] = "unwritten_output",
	[KF_V_NONDETERMINISTIC] = "nondeterministic",
	[KF_V_FASTER_THAN_LIGHT] = "faster_than_light",
	[KF_V_POLICY_VIOLATION] = "policy_violation",
	[KF_V_OUT_OF_BOUNDS] = "out_of_bounds",
	[KF_V_INTERNAL_ERROR] = "internal_error",
};

const char *kf_verdict_name(enum kf_verdict v)
{
	return (v >= 0 && v < KF_V_COUNT) ? names[v] : "internal_error";
}

int kf_verdict_parse(const char *name, enum kf_verdict *out)
{
	for (int i = 0; i < KF_V_COUNT; i++) {
		if (!strcmp(names[i], name)) {
			*out = (enum kf_verdict)i;
			return 0;
		}
	}
	return -1;
}
