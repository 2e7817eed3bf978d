/* Verdicts: one per evaluation, a short stable identifier (DESIGN.md §7) plus a sentence.
 * The names are a contract with users' scripts and the database: never rename them. */
#ifndef KF_VERDICT_H
#define KF_VERDICT_H

enum kf_verdict {
	KF_V_OK,
	KF_V_COMPILE_ERROR,
	KF_V_COMPILE_TIMEOUT,
	KF_V_LINK_ERROR,
	KF_V_RUNTIME_ERROR,
	KF_V_TIMEOUT,
	KF_V_CPU_TIMEOUT,
	KF_V_MEMORY_LIMIT,
	KF_V_CRASH,
	KF_V_SANDBOX_VIOLATION,
	KF_V_WRONG_ANSWER,
	KF_V_TRIVIAL_OUTPUT,
	KF_V_INPUTS_MODIFIED,
	KF_V_UNWRITTEN_OUTPUT,
	KF_V_NONDETERMINISTIC,
	KF_V_FASTER_THAN_LIGHT,
	KF_V_POLICY_VIOLATION,
	KF_V_OUT_OF_BOUNDS, /* wrote or read outside its buffers (a guard page or canary) */
	KF_V_INTERNAL_ERROR,
	KF_V_COUNT
};

const char *kf_verdict_name(enum kf_verdict v);
/* Returns 0 and sets *out when name is a verdict name, -1 otherwise. */
int kf_verdict_parse(const char *name, enum kf_verdict *out);

#endif
