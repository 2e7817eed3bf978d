/* Judge workers (DESIGN.md §3, §12): processes that judge candidates for `kforge run`, one
 * evaluation at a time each, so the run loop never waits for a judge. One worker per GPU on the
 * cuda backend, --workers of them on the CPU. The orchestrator talks to a worker over two pipes
 * with a small protocol that a worker on another machine could speak as well: every message is a
 * frame, the JSON text's length in decimal digits, a newline, then the JSON text.
 *   request: {"id": N, "task": "name", "source": "...", "seed": S, "seeds": n, "call_timeout_s": x,
 *             "timing_budget_s": y, "deadline_s": z}
 *   reply:   {"id": N, "result": {...the judge's result object...}}  or  {"id": N, "error": "..."}
 * A worker judges with kf_judge_evaluate and keeps a judge session between evaluations (so a
 * task's trusted kernels stay loaded); it reads the machine's history from its own connection to
 * the database and never writes the run's records: the orchestrator alone stores requests,
 * candidates and evaluations. A worker whose orchestrator dies is killed with it.
 * Compile processes (--compile-jobs, forked workers only) work ahead of the judges: every job
 * handed to the pool is queued, compiled by the next free compile process into the compile cache
 * (agent/compile_ahead.h), and given to the next free judge, which then finds its compile done.
 * A judge takes the oldest compiled job of the task it judged last (its session is ready: a GPU
 * judge rebuilds it for another task, which costs more than a candidate), else the oldest compiled
 * job; the oldest queued job waits at most 20 s for that preference. When none is compiled and no
 * compile process is free it takes the oldest job not yet compiling (its own task's first) and
 * compiles it itself, so it never sits idle while a compile it could have had waits for a slot. It
 * waits only for a compile already running.
 *   compile request: {"id": N, "task": "name", "source": "..."}
 *   compile reply:   {"id": N, "compiled": b, "cached": b, "ms": x}  or  {"id": N, "error": "..."} */
#ifndef KF_WORKER_H
#define KF_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "agent/http.h"
#include "eval/judge/sol.h"
#include "eval/tasks/task.h"

#define KF_WORKER_MAX 256 /* judges and compile processes together */

struct kf_worker_setup {
	enum kf_backend backend;
	const int *devices;            /* one worker per entry: its GPU ordinal (ignored on the CPU) */
	int n;
	struct kf_task *const *tasks;  /* the tasks a request may name */
	int n_tasks;
	const char *db_path;           /* the worker's own read connection; NULL or "": none */
	const struct kf_peaks *peaks;  /* NULL: each worker reads its device's peaks from the store at its first job */
	/* NULL: each worker is a forked copy of this process. Else each is this command (argv,
	 * NULL-terminated) with the request pipe as its stdin and the reply pipe as its stdout, e.g.
	 * `srun ... kforge run --serve-worker ...` on a cluster; the fields above are then its own. */
	const char *const *command;
	/* Compile processes ahead of the judges; 0: each judge compiles its own. Forked workers only
	 * (a command's worker may not share this machine's compile cache); at most KF_WORKER_MAX - n. */
	int compile_jobs;
};

struct kf_worker_job {
	int64_t id;                    /* handed back with the reply (the candidate's id) */
	const char *task;
	const char *source;
	size_t len;
	uint64_t seed;
	int n_seeds;
	double call_timeout_s, timing_budget_s, deadline_s;
};

/* What came back for a job: a result (owned by the callee), an error of kforge's own, or the
 * news that the worker died before answering (died: result and error NULL). */
struct kf_worker_reply {
	int worker;
	int64_t id;
	cJSON *result;
	const char *error;
	bool died;
};

typedef void (*kf_worker_reply_fn)(void *ctx, struct kf_worker_reply *r);

struct kf_worker_pool;

/* Starts the workers. A forked one: call it before this process starts OpenMP threads, a CUDA context or HTTP
 * transfers: each worker is a copy of it, and none of those survive the copy. Workers sit in their own process group, so a Ctrl-C meant for kforge
 * never reaches a candidate being judged. */
int kf_worker_pool_start(const struct kf_worker_setup *s, struct kf_worker_pool **out, kf_err *err);
/* Ends every worker: an idle one finishes cleanly on end of input, a busy one is killed. */
void kf_worker_pool_stop(struct kf_worker_pool *p);

/* Judges (compile processes are not counted). */
int kf_worker_pool_size(const struct kf_worker_pool *p);
int kf_worker_pool_alive(const struct kf_worker_pool *p);
int kf_worker_pool_busy(const struct kf_worker_pool *p);
/* Queues a job (task and source are copied); it goes to a compile process and a judge as they
 * come free, oldest job (lowest id) first, except that a free judge first takes the oldest job of the
 * task it judged last (its session is ready; see above). Its reply, or the news that its judge died,
 * comes through kf_worker_pool_read. */
int kf_worker_pool_submit(struct kf_worker_pool *p, const struct kf_worker_job *job, kf_err *err);
/* Jobs queued and not yet with a judge. */
int kf_worker_pool_queued(const struct kf_worker_pool *p);
/* The descriptors to watch (every live judge's and compile process's reply pipe), for
 * kf_http_step_fds; returns how many. */
int kf_worker_pool_fds(const struct kf_worker_pool *p, struct kf_http_fd *fds, int *workers, int max);
/* Reads what process w (an index from kf_worker_pool_fds) has sent without blocking, hands each
 * complete judge reply (or a judge's death) to fn, and passes queued jobs on to whoever came free. */
int kf_worker_pool_read(struct kf_worker_pool *p, int w, kf_worker_reply_fn fn, void *ctx, kf_err *err);
/* Seconds each judge has spent judging so far (busy time), into busy_s[0..size). */
void kf_worker_pool_busy_time(const struct kf_worker_pool *p, double *busy_s);
/* What the compile processes did: jobs compiled ahead, and their seconds of compiling in all. */
void kf_worker_pool_compiled(const struct kf_worker_pool *p, int *jobs, double *busy_s);

/* The worker's side: reads requests from in_fd and writes replies to out_fd until end of input.
 * Returns KF_OK at end of input. */
int kf_worker_serve(int in_fd, int out_fd, enum kf_backend backend, int device, struct kf_task *const *tasks,
		    int n_tasks, const char *db_path, const struct kf_peaks *peaks, kf_err *err);
/* A compile process's side: compiles each request for every architecture in archs[0..n_archs)
 * (kf_area_arch of the judges' devices) until end of input. */
int kf_worker_serve_compiles(int in_fd, int out_fd, enum kf_backend backend, const int *archs, int n_archs,
			     struct kf_task *const *tasks, int n_tasks, kf_err *err);

#endif
