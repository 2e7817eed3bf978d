/* Compiling a candidate ahead of its judge (agent/worker.h's compile processes): the compile
 * request kf_judge_evaluate makes for the same candidate, sent through the same compile jail, so
 * the result lands in the compile cache under the key the judge looks up and the judge's own
 * compile of it is a cache hit. Nothing is judged or stored here. */
#ifndef KF_COMPILE_AHEAD_H
#define KF_COMPILE_AHEAD_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "eval/tasks/task.h"

/* Compiles source for task t on backend b, for the device architecture arch (kf_area_arch; 0 on
 * the CPU). *compiled is false when the judge will not compile it at all (a policy violation is
 * rejected before any compile), *cached when the cache already held it; *ms is the wall time.
 * An error only for kforge's own failures (no compiler, no disk), as kf_compile's. */
int kf_compile_ahead(const struct kf_task *t, enum kf_backend b, int arch, const char *source, size_t len,
		     bool *compiled, bool *cached, double *ms, kf_err *err);

#endif
