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
 * candidates and evaluations. A worker whose orchestrator dies is killed with it. */
#ifndef KF_WORKER_H
#define KF_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "agent/http.h"
#include "eval/judge/sol.h"
#include "eval/tasks/task.h"

#define KF_WORKER_MAX 256

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

int kf_worker_pool_size(const struct kf_worker_pool *p);
int kf_worker_pool_alive(const struct kf_worker_pool *p);
int kf_worker_pool_busy(const struct kf_worker_pool *p);
/* An idle worker, preferring one that judged `task` last (its session is ready); -1 when none. */
int kf_worker_pool_idle(const struct kf_worker_pool *p, const char *task);
/* Sends a job to idle worker w. A worker found dead is reported through the next read, not here. */
int kf_worker_pool_send(struct kf_worker_pool *p, int w, const struct kf_worker_job *job, kf_err *err);
/* The descriptors to watch (every live worker's reply pipe), for kf_http_step_fds; returns how many. */
int kf_worker_pool_fds(const struct kf_worker_pool *p, struct kf_http_fd *fds, int *workers, int max);
/* Reads what worker w has sent without blocking and hands each complete reply (or its death) to fn. */
int kf_worker_pool_read(struct kf_worker_pool *p, int w, kf_worker_reply_fn fn, void *ctx, kf_err *err);
/* Seconds each worker has spent judging so far (busy time), into busy_s[0..size). */
void kf_worker_pool_busy_time(const struct kf_worker_pool *p, double *busy_s);

/* The worker's side: reads requests from in_fd and writes replies to out_fd until end of input.
 * Returns KF_OK at end of input. */
int kf_worker_serve(int in_fd, int out_fd, enum kf_backend backend, int device, struct kf_task *const *tasks,
		    int n_tasks, const char *db_path, const struct kf_peaks *peaks, kf_err *err);

#endif
