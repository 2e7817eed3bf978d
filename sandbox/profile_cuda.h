/* The CUDA runner's profiler (sandbox/profile_cuda.c): CUPTI's range profiler and launch callbacks,
 * set up before the seccomp filter, used only in a profiled run (eval/judge/profile.h). */
#ifndef KF_PROFILE_CUDA_H
#define KF_PROFILE_CUDA_H

#include <stddef.h>

#include "eval/tasks/abi.h"

/* Before the filter, with the runner's context current: loads CUPTI and configures it. A failure
 * is not the runner's: the profiled calls then say why in their report ("unavailable"). */
void kf_profile_cuda_setup(int device);
/* One profiled call of kf_launch (replayed once per profiler pass) and its report line on stdout.
 * Returns 0 with the candidate's return code in *rc, or -1 with why on a device error. */
int kf_profile_cuda_call(kf_shim_call_fn fn, void *const *bufs, const long long *ints, void *stream, int *rc,
			 char *why, size_t why_len);

#endif
