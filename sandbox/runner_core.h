/* The runner program's backend-independent core: the process tree inside the jail
 * (jail -> namespace init -> runner), privilege drop and rlimits, the fault reporter, the
 * seccomp filter and its supervisor (the namespace init), loading the candidate and the
 * command loop. A backend (CPU, CUDA) supplies
 * only what differs, through this small table of hooks. */
#ifndef KF_RUNNER_CORE_H
#define KF_RUNNER_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eval/tasks/abi.h"

struct kf_runner_backend {
	const char *name;
	const int *extra_syscalls; /* allowed on top of the base list */
	int n_extra;
	/* Caps the data segment (RLIMIT_DATA) with the memory limit; a GPU backend leaves host
	 * memory alone (the driver maps a lot) and caps device allocations itself. */
	bool cap_host_data;
	/* Lets the candidate make the mappings RLIMIT_DATA does not count, shared and grows-down ones
	 * (refused with EPERM otherwise): a GPU driver maps shared memory during calls, and a GPU
	 * backend leaves host memory to cgroups anyway. */
	bool allow_uncounted_maps;
	/* Before the filter: bring up whatever needs files and many syscalls (a CUDA context, and
	 * the vendor libraries when the kernel may call them). mem_cap is the memory limit in bytes. */
	int (*setup)(void **state, int device, size_t mem_cap, bool vendor_libs, char *why, size_t why_len);
	/* Maps the shared area (and the read-only inputs ro_fd, ro_bytes, when ro_bytes > 0) and
	 * returns the base address of the buffers kernels use, and how many bytes they span
	 * (NULL + why on failure). */
	void *(*map_buffers)(void *state, int shm_fd, size_t shm_bytes, int ro_fd, size_t ro_bytes,
			     size_t *area_bytes, char *why, size_t why_len);
	/* Runs one call of the candidate; returns 0 when the call could be made (its own return
	 * code in *rc; *device_ns the device's own timing of it, or -1 to use the host clock), -1
	 * with why when the backend failed (a sticky device error, say). */
	int (*call)(void *state, kf_shim_call_fn fn, void *const *bufs, const long long *ints, int *rc,
		    int64_t *device_ns, char *why, size_t why_len);
};

/* The multi-GPU runner's GPU count (argv's optional WORLD; 1 for every other runner): rank r > 0's
 * shared buffers are descriptor KF_RFD_FIRST_FREE + r - 1, open until map_buffers closes them. */
#define KF_RUNNER_MAX_WORLD 8
int kf_runner_world(void);

/* Exit codes of the runner process when it ends itself (the judge prefers the messages). */
#define KF_RUNNER_EXIT_MEMORY 98
#define KF_RUNNER_EXIT_SETUP 99

/* Reports an allocation refused by the memory cap and ends the process (async-signal-safe). */
void kf_runner_report_memory(size_t bytes);

/* Set from the runner's command line before setup: a profiled run (eval/judge/profile.h), whose
 * backend may bring up a profiler before the filter. */
extern bool kf_runner_profile;
/* True while the judge's calibration calls run the runner's own no-op (before LOAD). */
extern bool kf_runner_calibrating;

int kf_runner_main(int argc, char **argv, const struct kf_runner_backend *be);

#endif
