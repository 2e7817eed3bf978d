/* The agent's rows in the store (the tables of migration 2 in db/store.c): runs and their tasks,
 * requests planned before they are sent, every HTTP attempt, each reply with its tokens, latency,
 * cost and extraction outcome, and the link from a request to the candidate its code became.
 * Candidates and evaluations themselves go through db/store.h. All of the agent's SQL is here;
 * every write is one BEGIN IMMEDIATE transaction. Never sees an API key. */
#ifndef KF_RECORD_H
#define KF_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include <cJSON.h>

#include "db/store.h"
#include "eval/tasks/task.h"

struct kf_record_run {
	int64_t id;
	char provider[16], backend[16], status[16];
	char *model, *base_url, *stop_reason;
	cJSON *config;
};

int kf_record_create_run(struct kf_store *s, const struct kf_record_run *run, struct kf_task *const *tasks, int n,
			 int64_t *id_out, kf_err *err);
/* KF_EINPUT "no run with id N" when it does not exist. */
int kf_record_load_run(struct kf_store *s, int64_t id, struct kf_record_run *out, kf_err *err);
void kf_record_run_free(struct kf_record_run *r);
/* The run's tasks, parsed from the spec text stored with the run (the same task even if its file
 * has changed since). */
int kf_record_run_tasks(struct kf_store *s, int64_t run_id, struct kf_task ***tasks, int *n, kf_err *err);
/* Sets status and stop reason; config and base_url are replaced when non-NULL. */
int kf_record_update_run(struct kf_store *s, int64_t id, const char *status, const char *stop_reason,
			 const cJSON *config, const char *base_url, kf_err *err);

enum kf_request_status { KF_REQ_PENDING, KF_REQ_DONE, KF_REQ_FAILED };

struct kf_record_request {
	int64_t id;
	char task[KF_NAME_MAX];
	int round, slot;
	enum kf_request_status status;
	char outcome[32];
	int attempts;
	int64_t candidate_id, parent_id; /* 0 when none */
	char *messages;                  /* pending requests only */
	char *reply;                     /* done requests with code but no candidate yet (a crash in between) */
};

/* Every request of the run, ordered by id. */
int kf_record_load_requests(struct kf_store *s, int64_t run_id, struct kf_record_request **rows, int *n,
			    kf_err *err);
void kf_record_requests_free(struct kf_record_request *rows, int n);

/* Plans one round of a task: n pending requests (slots 0..n-1) in one transaction. parents[i] is 0
 * for a fresh sample. ids_out gets the new ids. */
int kf_record_plan_round(struct kf_store *s, int64_t run_id, const char *task, int round, int n,
			 const int64_t *parents, cJSON *const *messages, const char *model, const cJSON *params,
			 int64_t *ids_out, kf_err *err);

struct kf_record_attempt {
	int attempt;
	long http_status;      /* 0: none */
	const char *error;     /* NULL: none */
	double latency_ms;
	double retry_after_s;  /* < 0: none */
	double retry_in_s;     /* < 0: not retried */
};
int kf_record_add_attempt(struct kf_store *s, int64_t request_id, const struct kf_record_attempt *a, kf_err *err);

struct kf_record_reply {
	enum kf_request_status status; /* done or failed */
	const char *outcome;
	long http_status;
	int attempts;
	const char *response;          /* raw body, may be NULL */
	size_t response_len;
	const char *reply;             /* extracted text, may be NULL */
	const char *finish_reason;     /* may be NULL or empty */
	int64_t tokens_in, tokens_out, tokens_reasoning; /* < 0: unknown */
	double latency_ms;
	double cost_usd;               /* NAN: unknown */
	const char *error;             /* may be NULL */
};
int kf_record_finish_request(struct kf_store *s, int64_t id, const struct kf_record_reply *r, kf_err *err);
int kf_record_link_candidate(struct kf_store *s, int64_t request_id, int64_t candidate_id, kf_err *err);

/* A candidate of this run and task with this source, or *id = 0. */
int kf_record_find_candidate(struct kf_store *s, int64_t run_id, const char *task, const char *source_hash,
			     int64_t *id, kf_err *err);

struct kf_record_candidate {
	int64_t id;
	char task[KF_NAME_MAX];
	bool evaluated;
	char verdict[32];
	double sol_fraction, time_ms, speedup; /* NAN when not timed */
};
/* The run's candidates with their latest evaluation, ordered by id. */
int kf_record_load_candidates(struct kf_store *s, int64_t run_id, struct kf_record_candidate **rows, int *n,
			      kf_err *err);
int kf_record_candidate_source(struct kf_store *s, int64_t id, char **source, size_t *len, kf_err *err);
/* The latest evaluation's stored result object; *result NULL when there is none. */
int kf_record_latest_result(struct kf_store *s, int64_t candidate_id, cJSON **result, kf_err *err);

struct kf_record_task_totals {
	int requests, failed, no_code;
	int64_t tokens_in, tokens_out;
	double cost_usd;        /* NAN when unknown: a reply has no price, or no request has a cost at all */
};
/* The distinct errors of the run's failed requests, most frequent first (at most `max`). */
#define KF_RECORD_ERROR_MAX 256
struct kf_record_failure {
	char error[KF_RECORD_ERROR_MAX];
	int count;
};
int kf_record_failures(struct kf_store *s, int64_t run_id, int max, struct kf_record_failure **rows, int *n,
		       kf_err *err);

/* Totals over the finished requests of one task of a run (task NULL: the whole run). */
int kf_record_totals(struct kf_store *s, int64_t run_id, const char *task, struct kf_record_task_totals *out,
		     kf_err *err);

#endif
