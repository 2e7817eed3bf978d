/* The sandbox's one public header, used by eval/ (DESIGN.md §3, §7).
 *
 * Compile jail: the compiler runs in a child with no network, a private temp dir as its
 * only writable place, a minimal read-only view of the file system (/usr and the compiler's
 * libraries; no /etc, no /home), CPU/file-size/process rlimits, a wall timeout and a cap on
 * the log. Results are cached by content hash.
 *
 * Runner jail: one untrusted process per evaluation (fork + exec of a small runner binary)
 * in new network/mount/pid/ipc namespaces (user too when not root), with its own uid, its own
 * cgroup where the machine offers one (pids.max, a memory cap), a scrubbed environment, only its
 * pipes and the shared buffer fds open, rlimits (no RLIMIT_AS), a seccomp allowlist installed
 * before the candidate is loaded whose every other call is a user notification to the
 * namespace's init (a supervisor outside the candidate's address space that names the call and
 * ends the runner), and a watchdog that kills the whole process tree on timeout. Any isolation
 * step that cannot be set up is kforge's internal error, never a run without it (fail closed).
 * The judge talks to it over pipes, times every exchange on its own clock, stops the runner's
 * whole tree from each reply to the next command, and shares input/output buffers through
 * memfds. Nothing the runner says after the candidate is loaded is believed beyond a claim about
 * the call: a set-up error or any other unexpected message then is a forgery. */
#ifndef KF_SANDBOX_H
#define KF_SANDBOX_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"
#include "eval/tasks/task.h"
#include "sandbox/verdict.h"

#define KF_COMPILE_LOG_MAX (64 * 1024) /* bytes of compiler output kept */
#define KF_GPU_UUID_MAX 48 /* "GPU-" and 32 hex digits in 8-4-4-4-12 groups, as nvidia-smi -L prints it */

struct kf_compile_req {
	enum kf_backend backend;
	const char *source;      /* candidate (or reference/oracle) source text */
	size_t source_len;
	const char *header;      /* force-included header text (kf_task.h) */
	const char *shim;        /* shim source compiled and linked with the candidate */
	double timeout_s;        /* wall limit for the whole compile; 0 = default */
	const char *include_dir; /* trusted kernels only: a directory of shared headers, mounted
				    read-only at /include in the jail (NULL for candidates) */
	bool vendor_libs;        /* link the vendor libraries (cuBLAS) the task allows */
	int cuda_arch;           /* CUDA: the device's compute capability (major*10 + minor), built
				    as SASS for exactly that target; 0 = KF_CUDA_DEFAULT_ARCH */
	const char *const *report_flags; /* NULL-terminated, added to the compile step: flags that only
				    make the compiler report (the profiler's -fopt-info); NULL: none */
};

#define KF_CUDA_DEFAULT_ARCH 90 /* Hopper (H100, H200): where kforge is run and tested */

struct kf_compile_res {
	enum kf_verdict verdict;  /* KF_V_OK, KF_V_COMPILE_ERROR, KF_V_COMPILE_TIMEOUT, KF_V_LINK_ERROR */
	char reason[512];
	char so_path[PATH_MAX];   /* the shared object in the cache (verdict ok) */
	char *log;                /* compiler output, capped at KF_COMPILE_LOG_MAX */
	char flags[512];          /* the full compiler command line used */
	char compiler[256];       /* compiler identity (path + version) */
	char key[65];             /* cache key */
	bool cached;
	double ms;                /* wall time of this call, cached or not */
};

/* Compiles (or finds in the cache). Returns KF_OK when a result (any verdict) was produced;
 * an error only for kforge's own failures (no compiler, no disk). */
int kf_compile(const struct kf_compile_req *req, struct kf_compile_res *res, kf_err *err);
void kf_compile_res_free(struct kf_compile_res *res);

/* ---- runner ---- */

#define KF_RUNNER_MAX_BUFS KF_MAX_TENSORS
#define KF_RUNNER_MAX_INTS KF_MAX_SYMBOLS

struct kf_runner_opts {
	enum kf_backend backend;
	const char *so_path;      /* candidate shared object (kf_shim_call inside); NULL: a spare
				     (kf_runner_supply) */
	int shm_fd;               /* the judge's shared area (a memfd): the buffers on the CPU, the
				     device-memory handle on CUDA; the runner maps it */
	size_t shm_bytes;
	int shm_ro_fd;            /* CPU: the inputs, mapped read-only by the runner (a sealed memfd);
				     -1 when unused */
	size_t shm_ro_bytes;      /* 0 when unused */
	int device;               /* GPU ordinal (CUDA) */
	/* CUDA, one GPU: the device's UUID (kf_area_ops.uuid) or "". When set, the runner's environment
	 * makes that GPU the only one it sees (CUDA_VISIBLE_DEVICES), as device 0: its cuInit touches no
	 * other GPU (where another judge may be timing), and no candidate reaches one. */
	char visible_gpu[KF_GPU_UUID_MAX];
	double call_timeout_s;    /* wall limit per call (watchdog) */
	double cpu_limit_s;       /* RLIMIT_CPU for the whole runner */
	size_t mem_limit_bytes;   /* data-segment cap (RLIMIT_DATA), never RLIMIT_AS */
	bool vendor_libs;         /* load the vendor libraries (cuBLAS) before the filter, for a
				     kernel allowed to call them */
	bool profile;             /* a profiled run (eval/judge/profile.h): on CUDA the runner brings
				     up CUPTI before the filter and reports each call's metrics on its
				     output; never used for a verdict or a time */
	int world;                /* CUDA, several GPUs (docs/multi-gpu.md): 0 or 1 for one; otherwise the
				     multi-GPU runner drives devices device..device+world-1, rank 0's
				     buffers are shm_fd and rank r's rank_fds[r-1], each of shm_bytes */
	const int *rank_fds;
};

enum kf_call_status {
	KF_CALL_OK,       /* kf_launch returned 0 */
	KF_CALL_FAILED,   /* kf_launch returned non-zero (rc) */
	KF_CALL_DIED,     /* the runner is gone; verdict and reason say why */
};

struct kf_call_result {
	enum kf_call_status status;
	int rc;
	int64_t runner_ns;    /* the runner's own claim about the call (untrusted) */
	int64_t wall_ns;      /* the judge's clock: from just before the command is written to the
				 moment the reply is read (busy-polled at first, so wake-up latency
				 does not inflate it) */
	enum kf_verdict verdict; /* when DIED: timeout, cpu_timeout, crash, sandbox_violation, ... */
	char reason[512];
	/* When DIED of SIGSEGV/SIGBUS: the runner's own fault handler (installed before the candidate
	 * loads) reported an address inside the shared buffer area, at fault_off bytes past the
	 * area's base; fault_write tells a write from a read. Only ever grounds for a rejection. */
	bool fault_known;
	uint64_t fault_off;
	bool fault_write;
};

/* The judge's clock on null calls made before the candidate was loaded: the runner's own no-op
 * function through the backend's call path, same protocol, same thaw and freeze (trusted). */
struct kf_runner_calib {
	int n;                    /* null calls measured (>= KF_RUNNER_CALIB_CALLS) */
	int64_t wall_median_ns, wall_p90_ns; /* the judge's clock per call */
	int64_t gap_median_ns, gap_p90_ns;   /* wall_ns - runner_ns per call */
};

#define KF_RUNNER_CALIB_CALLS 16

struct kf_runner;

/* Starts a runner, loads the candidate, runs its kf_init. On a candidate failure during
 * start-up (a constructor that breaks the rules, say), returns KF_OK with *out NULL and
 * `died` filled; errors are kforge's own. */
int kf_runner_start(const struct kf_runner_opts *o, struct kf_runner **out,
		    struct kf_call_result *died, kf_err *err);
/* The same in two halves, so several runners (candidate, reference, vendor baseline) start at
 * once: launch spawns and returns; ready waits for the runner's READY, and on a start-up failure
 * stops it, sets *r to NULL and fills died. */
int kf_runner_launch(const struct kf_runner_opts *o, struct kf_runner **out, kf_err *err);
/* A spare: launched with so_path NULL, it sets itself up (jail, device, buffers) before any candidate
 * exists; kf_runner_supply then copies the candidate (a file) into it, sealed, before kf_runner_ready
 * loads it. A judge starts the next candidate's runner this way while it waits for that candidate. */
int kf_runner_supply(struct kf_runner *r, const char *so_path, kf_err *err);
/* Waits for the runner's set-up, calibrates (kf_runner_calibration), then has it load the
 * candidate and waits for READY. */
int kf_runner_ready(struct kf_runner **r, struct kf_call_result *died, kf_err *err);
/* The calibration made by kf_runner_ready (r must be ready). */
int kf_runner_calibration(const struct kf_runner *r, struct kf_runner_calib *out);
/* Where a runner's start went, by the judge's clock: launch (its cgroup, the fork), set-up (exec, jail,
 * and on a GPU the device context and the buffers' mapping, until its SETUP_DONE is read), calibration,
 * and load (LOAD to READY: the candidate's constructors and kf_init). A spare's set-up also holds the
 * wait for its candidate. */
struct kf_runner_start_steps {
	double launch_ms, setup_ms, calibrate_ms, load_ms;
};
/* Fills out for a ready runner (else KF_EINTERNAL). */
int kf_runner_start_steps(const struct kf_runner *r, struct kf_runner_start_steps *out);
/* Runs kf_launch once on buffers at the given offsets into the shared area. Between calls (from
 * the reply to the next command) the runner's whole process tree is stopped. */
int kf_runner_call(struct kf_runner *r, const size_t *buf_off, int nbufs, const long long *ints,
		   int nints, struct kf_call_result *res, kf_err *err);
/* Round trip through the runner's command loop (candidate-controlled once it is loaded). */
int kf_runner_ping(struct kf_runner *r, int64_t *wall_ns, kf_err *err);
/* Captured stdout/stderr of the runner (capped), for the record, as valid UTF-8 with control
 * characters other than \n and \t escaped as \xNN. Valid until stop. */
const char *kf_runner_output(struct kf_runner *r);
/* The runner process's pid (host namespace), for the profiler's counters; 0 when unknown. */
pid_t kf_runner_pid(struct kf_runner *r);
/* Kills the runner's process tree and frees r (NULL is fine). */
void kf_runner_stop(struct kf_runner *r);

#endif
