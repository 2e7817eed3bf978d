/* The vendor-library policy (DESIGN.md §4, §8 #11): where a task forbids vendor libraries, a candidate
 * may not call into them. Decided from what the compiler and linker saw, not from the source text:
 * where the task forbids them the vendor libraries are not linked, so a call is an undefined
 * reference the link step names (the link refuses undefined symbols); an object that links is checked
 * again for imported vendor symbols. A comment, a string, a macro or a line splice cannot hide a call
 * or fake one; a name pasted together with ## is seen whole. */
#ifndef KF_POLICY_H
#define KF_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "eval/tasks/task.h"
#include "sandbox/sandbox.h"

/* Reads the ELF object at so_path (the compiled candidate); *violates is true, with why naming the
 * imported symbol, when it imports a vendor library's function and the task forbids them. Fails
 * (KF_EINTERNAL) only when the object cannot be read as ELF64. */
int kf_policy_check_object(const struct kf_task *t, const char *so_path, bool *violates, char *why, size_t why_len,
			   kf_err *err);

/* With a failed compile or link step's log: true, with why naming the symbol, when the link failed on an undefined
 * reference to a vendor library's function and the task forbids them (GNU ld and LLVM lld wording). */
bool kf_policy_check_link_log(const struct kf_task *t, const char *log, char *why, size_t why_len);

/* A compile step's outcome as the judge reports it: *verdict is policy_violation (why names the vendor
 * function) by either check above, else the compile's own verdict (why its reason), else ok. */
int kf_policy_verdict(const struct kf_task *t, const struct kf_compile_res *cres, enum kf_verdict *verdict, char *why,
		      size_t why_len, kf_err *err);

#endif
