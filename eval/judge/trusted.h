/* Trusted kernels: a task's reference, its fp64 oracle and its vendor baseline, compiled through
 * the same jail and cache as candidates (with reference_kernels/ as their include directory, for
 * the tile layer) and, except the vendor baseline, loaded into the judge's own process. Shared by
 * the judge and the verifiers. */
#ifndef KF_TRUSTED_H
#define KF_TRUSTED_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <cJSON.h>

#include "common/err.h"
#include "eval/tasks/abi.h"
#include "eval/tasks/task.h"

struct kf_trusted {
	void *so;
	kf_shim_call_fn call;
	char path[PATH_MAX]; /* the compiled shared object */
};

/* Compiles the kernel at rel (relative to kf_home()) into so_path, for backend b's device number
 * `device`; record, when given, gets source, compile_cached and compile_ms. A trusted kernel that
 * does not build is kforge's error. */
int kf_trusted_compile(enum kf_backend b, int device, const char *rel, const char *header, const char *shim,
		       bool vendor_libs, char *so_path, size_t so_len, cJSON *record, kf_err *err);

/* The task's reference for backend b (entry kf_shim_call) and its oracle (kf_oracle_call), each
 * compiled with its generated header and loaded; ref_record as in kf_trusted_compile. */
int kf_trusted_load_pair(const struct kf_task *t, enum kf_backend b, int device, struct kf_trusted *ref,
			 struct kf_trusted *oracle, cJSON *ref_record, kf_err *err);

void kf_trusted_unload(struct kf_trusted *k);

#endif
