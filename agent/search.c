/* The run loop (see agent.h). State lives in the store first and in memory second: a request is
 * planned (written, pending) before it is sent, its reply is written the moment it arrives, the
 * candidate its code becomes is written before it is judged, and its evaluation is written when
 * the judge returns. Resuming is loading: pending requests are sent again, unjudged candidates
 * are judged, and a round is planned once the previous one is finished and judged. Before a
 * refinement round is planned, and once at the end, the run's candidates are ranked (eval/rank/rank.h:
 * weak verifiers on the correct ones, votes stored, one label model over the run), so the parents
 * and the reported kernel are the top trusted correct candidates.
 *
 * One loop, no threads: plan rounds, send requests up to the concurrency, hand unjudged candidates
 * to the judge workers' queue (agent/worker.h: processes, one per GPU or --workers on the CPU, with
 * compile processes ahead of them), then wait in kf_http_step_fds for whichever comes first: a
 * reply, a retry falling due, a verdict or a finished compile. So
 * the HTTP side reads, retries and times out stalls while candidates are judged, and a reply is
 * stored the moment it has arrived. A judge supplied by the caller (tests) runs in this process
 * instead, one candidate between polls, after pushing every request in flight onto the wire. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/diversity.h"
#include "agent/extract.h"
#include "agent/llm_judge.h"
#include "agent/prompt.h"
#include "agent/rank.h"
#include "agent/record.h"
#include "common/clock.h"
#include "common/rng.h"
#include "common/sha256.h"
#include "eval/judge/judge.h"
#include "eval/judge/profile.h"

#define TICK_MS 1000               /* the longest the loop waits without a progress tick */
#define SLURM_ARGV_MAX 32
#define WORKER_DEATHS_MAX 2        /* a candidate whose judging killed this many workers is an internal error */
#define FLUSH_BEFORE_JUDGE_MS 200  /* bound on pushing requests out before judging blocks the loop */
#define NS_PER_S 1e9
#define SECONDS_PER_MINUTE 60.0
#define STOP_REASON_MAX 128
#define SUBMITTER_MAX 320
/* Of a response refused as oversized, what the record keeps: enough to see what the server sent,
 * not tens of megabytes of it (the size is in the error). */
#define OVERSIZED_KEPT_BYTES (64u << 10)

struct run;

struct req {
	struct run *run;
	int64_t id;
	int task;
	int round, slot;
	enum kf_request_status status;
	bool in_flight;
	int attempts;
	int64_t candidate_id;
	char *messages; /* JSON text; kept while the request is unfinished */
};

struct cand {
	int64_t id;
	int task;
	bool evaluated;
	char verdict[32];
	double sol_fraction;
	bool trusted;      /* by the latest ranking */
	double p_correct;  /* NAN: not scored */
	bool judging;      /* with a judge worker now */
	int deaths;        /* judge workers that died judging it */
};

struct task_state {
	struct kf_task *t;
	int round; /* highest round planned, 0 before the first */
	bool done;
};

struct run {
	const struct kf_agent_run_args *a;
	struct kf_store *s;
	struct kf_agent_config cfg;
	const struct kf_provider *prov;
	struct kf_agent_judge judge;
	bool inline_judge;       /* the caller's judge, run in this process */
	struct kf_worker_pool *pool; /* otherwise: the judge workers */
	struct kf_llm_judge llm; /* the optional LLM-judge verifier (cfg.llm_judge_model) */
	int ranked_judged;       /* judged candidates at the last ranking; -1: never ranked */
	struct kf_peaks peaks;
	int64_t id;
	struct task_state *tasks;
	int n_tasks;
	struct kf_task **owned; /* a resumed run's tasks, parsed from the store */
	int n_owned;
	struct req **reqs;      /* pointers: callbacks hold them while the array grows */
	int n_reqs, cap_reqs;
	struct cand *cands;
	int n_cands, cap_cands;
	struct kf_http *http;
	kf_buf url;
	char *headers[KF_HTTP_HEADERS_MAX + 1];
	cJSON *params;          /* sampling parameters, stored with every request */
	char submitter[SUBMITTER_MAX];
	int in_flight;
	int64_t tokens;
	double cost_usd;
	int64_t started_ns;
	bool stop_soft, stop_hard;
	char stop_reason[STOP_REASON_MAX];
	volatile sig_atomic_t *stop;
	int rc;                 /* first failure of kforge's own, raised inside a callback */
	kf_err *err;
};

/* ---- progress ---- */

static void progress(const struct run *r, struct kf_agent_progress *p)
{
	memset(p, 0, sizeof *p);
	p->n_tasks = r->n_tasks;
	p->best_sol = NAN;
	int planned = 0;
	for (int i = 0; i < r->n_tasks; i++) {
		p->tasks_done += r->tasks[i].done;
		if (!r->tasks[i].done)
			planned += (r->cfg.rounds - r->tasks[i].round) * r->cfg.samples;
	}
	for (int i = 0; i < r->n_reqs; i++) {
		p->requests_done += r->reqs[i]->status != KF_REQ_PENDING;
		planned++;
	}
	p->requests_planned = planned;
	p->in_flight = r->in_flight;
	for (int i = 0; i < r->n_cands; i++) {
		const struct cand *c = &r->cands[i];
		if (!c->evaluated)
			continue;
		p->evaluated++;
		bool ok = !strcmp(c->verdict, "ok");
		p->ok += ok;
		p->failed += !ok;
		if (ok && !isnan(c->sol_fraction) && (isnan(p->best_sol) || c->sol_fraction > p->best_sol))
			p->best_sol = c->sol_fraction;
	}
	p->tokens = r->tokens;
	p->cost_usd = r->cfg.price_known ? r->cost_usd : NAN;
}

static void emit(const struct run *r, struct kf_agent_event *e)
{
	const struct kf_agent_observer *o = r->a->observer;
	if (!o || !o->on_event)
		return;
	progress(r, &e->progress);
	o->on_event(o->ctx, e);
}

static void emit_simple(const struct run *r, enum kf_agent_event_kind kind, int task, const char *what)
{
	struct kf_agent_event e = { .kind = kind, .task = task >= 0 ? r->tasks[task].t->name : NULL, .what = what,
				    .sol_fraction = NAN, .retry_in_s = -1 };
	emit(r, &e);
}

/* Keeps the first of kforge's own failures raised where it cannot be returned (callbacks). */
static void raise_error(struct run *r, const kf_err *e)
{
	if (r->rc != KF_OK)
		return;
	r->rc = e->code;
	*r->err = *e;
}

/* ---- in-memory state ---- */

static int task_index(const struct run *r, const char *name)
{
	for (int i = 0; i < r->n_tasks; i++)
		if (!strcmp(r->tasks[i].t->name, name))
			return i;
	return -1;
}

static struct req *add_req(struct run *r, int64_t id, int task, int round, int slot)
{
	r->reqs = kf_xgrow(r->reqs, r->n_reqs, &r->cap_reqs, sizeof *r->reqs);
	struct req *q = kf_xcalloc(1, sizeof *q);
	*q = (struct req){ .run = r, .id = id, .task = task, .round = round, .slot = slot, .status = KF_REQ_PENDING };
	r->reqs[r->n_reqs++] = q;
	return q;
}

static struct cand *find_cand(struct run *r, int64_t id)
{
	for (int i = 0; i < r->n_cands; i++)
		if (r->cands[i].id == id)
			return &r->cands[i];
	return NULL;
}

static struct cand *add_cand(struct run *r, int64_t id, int task)
{
	r->cands = kf_xgrow(r->cands, r->n_cands, &r->cap_cands, sizeof *r->cands);
	struct cand *c = &r->cands[r->n_cands++];
	*c = (struct cand){ .id = id, .task = task, .sol_fraction = NAN, .p_correct = NAN };
	return c;
}

/* ---- replies ---- */

/* The candidate for this code: the run's existing one with the same source (judged once), or a new
 * one. The request is linked to it either way. */
static int attach_candidate(struct run *r, struct req *q, const char *code, kf_err *err)
{
	const struct kf_task *t = r->tasks[q->task].t;
	char hash[KF_SHA256_HEX_LEN];
	kf_sha256_hex(code, strlen(code), hash);
	int64_t id = 0;
	int rc = kf_record_find_candidate(r->s, r->id, t->name, hash, &id, err);
	if (rc == KF_OK && !id) {
		struct kf_candidate_rec rec = { t->name, t->spec_hash, kf_backend_name(r->cfg.backend), "agent",
						r->submitter, NULL, code, hash, r->id };
		if ((rc = kf_store_add_candidate(r->s, &rec, &id, err)) == KF_OK && !find_cand(r, id))
			add_cand(r, id, q->task);
	}
	if (rc == KF_OK)
		rc = kf_record_link_candidate(r->s, q->id, id, err);
	if (rc == KF_OK)
		q->candidate_id = id;
	return rc;
}

static bool on_body(void *user, const char *body, size_t len)
{
	struct req *q = user;
	struct kf_llm_reply reply = { 0 };
	kf_err err;
	bool ok = q->run->prov->parse(body, len, &reply, &err) == KF_OK;
	kf_llm_reply_free(&reply);
	return ok;
}

static void on_attempt(void *user, const struct kf_http_attempt *a)
{
	struct req *q = user;
	struct run *r = q->run;
	kf_err err;
	q->attempts = a->attempt;
	struct kf_record_attempt rec = { a->attempt, a->status, a->error, a->latency_ms, a->retry_after_s, a->retry_in_s };
	if (kf_record_add_attempt(r->s, q->id, &rec, &err) != KF_OK)
		raise_error(r, &err);
	if (!a->error)
		return;
	struct kf_agent_event e = { .kind = KF_AGENT_EV_ATTEMPT, .task = r->tasks[q->task].t->name, .round = q->round,
				    .slot = q->slot, .request_id = q->id, .what = a->retry_in_s >= 0 ? "retry" : "gave_up",
				    .detail = a->error, .sol_fraction = NAN, .retry_in_s = a->retry_in_s,
				    .attempt = a->attempt, .max_attempts = r->cfg.http.max_attempts };
	emit(r, &e);
}

/* "HTTP 401: <the provider's error message>" when the body carries one. */
static void failure_message(const struct kf_http_response *resp, char *out, size_t len)
{
	cJSON *body = resp->body_len ? cJSON_ParseWithLength(resp->body, resp->body_len) : NULL;
	const char *msg = kf_provider_error_message(body);
	if (resp->result == KF_HTTP_STATUS && msg)
		snprintf(out, len, "HTTP %ld: %s", resp->status, msg);
	else
		snprintf(out, len, "%s", resp->error);
	cJSON_Delete(body);
}

static void account(struct run *r, const struct kf_llm_reply *reply, double cost)
{
	r->tokens += (reply->tokens_in > 0 ? reply->tokens_in : 0) + (reply->tokens_out > 0 ? reply->tokens_out : 0);
	if (!isnan(cost))
		r->cost_usd += cost;
}

static void on_done(void *user, struct kf_http_response *resp)
{
	struct req *q = user;
	struct run *r = q->run;
	struct kf_llm_reply reply = { .tokens_in = -1, .tokens_out = -1, .tokens_reasoning = -1 };
	struct kf_extract x = { 0 };
	char error[KF_ERR_MSG_MAX] = "";
	kf_err err;
	q->in_flight = false;
	r->in_flight--;
	struct kf_record_reply rec = { .status = KF_REQ_FAILED, .outcome = kf_http_result_name(resp->result),
				       .http_status = resp->status, .attempts = resp->attempts, .response = resp->body,
				       .response_len = resp->body_len, .tokens_in = -1, .tokens_out = -1,
				       .tokens_reasoning = -1, .latency_ms = resp->latency_ms, .cost_usd = NAN,
				       .error = error };
	if (resp->result == KF_HTTP_TOO_LARGE && rec.response_len > OVERSIZED_KEPT_BYTES) {
		rec.response_len = OVERSIZED_KEPT_BYTES;
		snprintf(error, sizeof error, "%s; the record keeps its first %u bytes", resp->error, OVERSIZED_KEPT_BYTES);
	} else if (resp->result != KF_HTTP_OK) {
		failure_message(resp, error, sizeof error);
	} else if (r->prov->parse(resp->body, resp->body_len, &reply, &err) != KF_OK) {
		rec.outcome = kf_http_result_name(KF_HTTP_MALFORMED);
		snprintf(error, sizeof error, "%s", err.msg);
	} else {
		rec.status = KF_REQ_DONE;
		rec.reply = reply.text;
		rec.finish_reason = reply.finish_reason;
		rec.tokens_in = reply.tokens_in;
		rec.tokens_out = reply.tokens_out;
		rec.tokens_reasoning = reply.tokens_reasoning;
		if (r->cfg.price_known)
			rec.cost_usd = kf_price_cost(&r->cfg.price, reply.tokens_in, reply.tokens_out);
		kf_extract_code(reply.text, r->cfg.backend, &x);
		rec.outcome = kf_extract_outcome_name(x.outcome);
		if (x.outcome != KF_EXTRACT_CODE)
			snprintf(error, sizeof error, "%s", x.detail);
		account(r, &reply, rec.cost_usd);
	}
	if (kf_record_finish_request(r->s, q->id, &rec, &err) != KF_OK) {
		raise_error(r, &err);
		goto out;
	}
	q->status = rec.status;
	free(q->messages);
	q->messages = NULL;
	if (x.outcome == KF_EXTRACT_CODE && rec.status == KF_REQ_DONE && attach_candidate(r, q, x.code, &err) != KF_OK)
		raise_error(r, &err);
	struct kf_agent_event e = { .kind = KF_AGENT_EV_REQUEST, .task = r->tasks[q->task].t->name, .round = q->round,
				    .slot = q->slot, .request_id = q->id, .candidate_id = q->candidate_id,
				    .what = rec.outcome, .detail = error[0] ? error : x.detail, .sol_fraction = NAN,
				    .retry_in_s = -1 };
	emit(r, &e);
out:
	kf_extract_free(&x);
	kf_llm_reply_free(&reply);
	free(resp->body);
}

/* ---- sending ---- */

static int send_request(struct run *r, struct req *q, kf_err *err)
{
	cJSON *messages = cJSON_Parse(q->messages);
	if (!cJSON_IsArray(messages)) {
		cJSON_Delete(messages);
		return kf_errf(err, KF_EINTERNAL, "request %lld: the stored messages are not a JSON list", (long long)q->id);
	}
	cJSON *body = r->prov->body(&r->cfg.params, messages);
	char *text = cJSON_PrintUnformatted(body);
	struct kf_http_request hr = { .url = r->url.data, .headers = (const char *const *)r->headers, .body = text,
				      .body_len = strlen(text), .user = q, .first_attempt = q->attempts,
				      .secret = r->cfg.api_key };
	int rc = kf_http_submit(r->http, &hr, err);
	if (rc == KF_OK) {
		q->in_flight = true;
		r->in_flight++;
	}
	free(text);
	cJSON_Delete(body);
	cJSON_Delete(messages);
	return rc;
}

/* The next request to send: earliest task first, then round, then slot, so tasks finish in order. */
static struct req *next_to_send(struct run *r)
{
	struct req *best = NULL;
	for (int i = 0; i < r->n_reqs; i++) {
		struct req *q = r->reqs[i];
		if (q->status != KF_REQ_PENDING || q->in_flight)
			continue;
		if (!best || q->task < best->task || (q->task == best->task && (q->round < best->round ||
				(q->round == best->round && q->slot < best->slot))))
			best = q;
	}
	return best;
}

static int launch(struct run *r, kf_err *err)
{
	struct req *q;
	while (r->in_flight < r->cfg.concurrency && (q = next_to_send(r)))
		if (send_request(r, q, err) != KF_OK)
			return err->code;
	return KF_OK;
}

/* ---- judging ---- */

static struct cand *next_to_judge(struct run *r)
{
	for (int i = 0; i < r->n_cands; i++)
		if (!r->cands[i].evaluated && !r->cands[i].judging)
			return &r->cands[i];
	return NULL;
}

static bool judging_any(const struct run *r)
{
	for (int i = 0; i < r->n_cands; i++)
		if (r->cands[i].judging)
			return true;
	return false;
}

/* The judge's seed for a candidate: from the run's seed and the candidate, so --seed reproduces. */
static uint64_t judge_seed(const struct run *r, const struct cand *c)
{
	uint64_t mix = r->cfg.seed ^ (uint64_t)c->id;
	return kf_splitmix64(&mix) % KF_SEED_LIMIT;
}

/* Stores a verdict (or kforge's own failure to reach one, as internal_error) the moment it is
 * known; takes result. */
static int store_verdict(struct run *r, struct cand *c, cJSON *result, const char *error, kf_err *err)
{
	const struct kf_task *t = r->tasks[c->task].t;
	if (!result) {
		result = cJSON_CreateObject();
		cJSON_AddStringToObject(result, "verdict", "internal_error");
		cJSON_AddStringToObject(result, "reason", error);
	}
	int64_t eval_id = 0;
	int rc = kf_store_add_evaluation(r->s, c->id, result, &eval_id, err);
	if (rc == KF_OK) {
		c->evaluated = true;
		snprintf(c->verdict, sizeof c->verdict, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(result, "verdict")));
		const cJSON *sol = cJSON_GetObjectItemCaseSensitive(result, "sol_fraction");
		c->sol_fraction = cJSON_IsNumber(sol) ? sol->valuedouble : NAN;
		struct kf_agent_event e = { .kind = KF_AGENT_EV_EVALUATED, .task = t->name, .candidate_id = c->id,
					    .what = c->verdict,
					    .detail = cJSON_GetStringValue(cJSON_GetObjectItem(result, "reason")),
					    .sol_fraction = c->sol_fraction, .retry_in_s = -1 };
		emit(r, &e);
	}
	cJSON_Delete(result);
	return rc;
}

/* The caller's judge, in this process. */
static int judge_inline(struct run *r, struct cand *c, kf_err *err)
{
	const struct kf_task *t = r->tasks[c->task].t;
	char *source = NULL;
	size_t len = 0;
	cJSON *result = NULL;
	int rc = kf_record_candidate_source(r->s, c->id, &source, &len, err);
	if (rc != KF_OK)
		return rc;
	char started[KF_STORE_TIMESTAMP_LEN], finished[KF_STORE_TIMESTAMP_LEN];
	kf_store_utc_now(started);
	kf_err jerr = { 0 };
	int jrc = r->judge.evaluate(r->judge.ctx, t, &r->peaks, source, len, judge_seed(r, c), &result, &jerr);
	kf_store_utc_now(finished);
	free(source);
	/* A signal that arrived while the judge ran may have reached the runner too: such a verdict
	 * would blame the candidate for kforge's interruption. It is judged again on resume. */
	if (*r->stop) {
		cJSON_Delete(result);
		return KF_OK;
	}
	if (jrc != KF_OK) {
		cJSON_Delete(result);
		result = NULL;
	} else {
		cJSON_AddStringToObject(result, "started_at", started);
		cJSON_AddStringToObject(result, "finished_at", finished);
	}
	return store_verdict(r, c, result, jerr.msg, err);
}

/* Hands every unjudged candidate to the workers' queue, oldest first: compile processes take them
 * ahead of the judges (agent/worker.h). */
static int dispatch(struct run *r, kf_err *err)
{
	struct cand *c;
	while ((c = next_to_judge(r))) {
		const struct kf_task *t = r->tasks[c->task].t;
		char *source = NULL;
		size_t len = 0;
		int rc = kf_record_candidate_source(r->s, c->id, &source, &len, err);
		if (rc != KF_OK)
			return rc;
		struct kf_worker_job job = { .id = c->id, .task = t->name, .source = source, .len = len,
					     .seed = judge_seed(r, c), .n_seeds = r->cfg.judge_seeds,
					     .call_timeout_s = r->cfg.call_timeout_s,
					     .timing_budget_s = r->cfg.timing_budget_s,
					     .deadline_s = r->cfg.deadline_s };
		rc = kf_worker_pool_submit(r->pool, &job, err);
		free(source);
		if (rc != KF_OK)
			return rc;
		c->judging = true;
	}
	return KF_OK;
}

static void on_worker_reply(void *ctx, struct kf_worker_reply *wr)
{
	struct run *r = ctx;
	struct cand *c = find_cand(r, wr->id);
	kf_err err;
	if (!c) {
		cJSON_Delete(wr->result);
		return;
	}
	c->judging = false;
	/* Interrupted: the verdict may blame the candidate for kforge's own stop; judged again on resume. */
	if (*r->stop) {
		cJSON_Delete(wr->result);
		return;
	}
	char why[KF_ERR_MSG_MAX];
	if (wr->died) {
		/* Requeued for another worker; a candidate that keeps killing its judge is kforge's failure. */
		if (++c->deaths < WORKER_DEATHS_MAX)
			return;
		snprintf(why, sizeof why, "the judge worker died judging this candidate (%d workers)", c->deaths);
	} else {
		snprintf(why, sizeof why, "%s", wr->error ? wr->error : "");
	}
	if (wr->result) /* which worker judged it: the throughput benchmark's share of time per worker */
		cJSON_AddNumberToObject(wr->result, "judge_worker", wr->worker);
	if (store_verdict(r, c, wr->result, why, &err) != KF_OK)
		raise_error(r, &err);
}

/* Waits (at most timeout_ms) for a reply, a retry falling due or a verdict, and takes what came. */
static int wait_step(struct run *r, int timeout_ms, kf_err *err)
{
	struct kf_http_fd fds[KF_WORKER_MAX];
	int workers[KF_WORKER_MAX];
	int n = r->pool ? kf_worker_pool_fds(r->pool, fds, workers, KF_WORKER_MAX) : 0;
	if (kf_http_step_fds(r->http, fds, n, timeout_ms, err) != KF_OK)
		return err->code;
	for (int i = 0; i < n; i++)
		if (fds[i].ready && kf_worker_pool_read(r->pool, workers[i], on_worker_reply, r, err) != KF_OK)
			return err->code;
	if (r->pool && (next_to_judge(r) || judging_any(r)) && !kf_worker_pool_alive(r->pool))
		return kf_errf(err, KF_EINTERNAL, "every judge worker has died (%d started)", kf_worker_pool_size(r->pool));
	return KF_OK;
}

/* ---- ranking ---- */

/* The ranking's weak verifiers run in this process, about a second per candidate on the CPU. Before
 * each one the loop takes what has arrived (replies, verdicts), times out stalls and refills the
 * request slots, so a ranking never holds the HTTP side up for longer than one verification. */
static int verify_between_polls(void *ctx, const struct kf_task *t, const char *source, size_t len,
				const cJSON *judge_result, const struct kf_verify_opts *o, struct kf_verify_result *out,
				kf_err *err)
{
	struct run *r = ctx;
	if ((!r->stop_soft && launch(r, err) != KF_OK) || wait_step(r, 0, err) != KF_OK)
		return err->code;
	return r->judge.verify ? r->judge.verify(r->judge.ctx, t, source, len, judge_result, o, out, err)
			       : kf_verify_candidate(t, source, len, judge_result, o, out, err);
}

static void emit_ranked(const struct run *r, const char *what, const char *detail)
{
	struct kf_agent_event e = { .kind = KF_AGENT_EV_RANKED, .what = what, .detail = detail, .sol_fraction = NAN,
				    .retry_in_s = -1 };
	emit(r, &e);
}

/* Ranks the run's candidates (eval/rank/rank.h) and keeps each one's trust and P(correct). Only correct
 * candidates are verified (about a second each on the CPU, votes stored and reused), so nothing is
 * redone when no candidate was judged since the last ranking. A ranking that fails is reported and
 * leaves the previous order (verdict, then SOL fraction): it never ends the run. */
static int rank_run(struct run *r, kf_err *err)
{
	int judged = 0, ok = 0;
	for (int i = 0; i < r->n_cands; i++) {
		judged += r->cands[i].evaluated;
		ok += r->cands[i].evaluated && !strcmp(r->cands[i].verdict, "ok");
	}
	if (r->cfg.verify == KF_AGENT_VERIFY_OFF || !ok || judged == r->ranked_judged || *r->stop)
		return KF_OK;
	if (kf_http_flush(r->http, FLUSH_BEFORE_JUDGE_MS, err) != KF_OK)
		return err->code;
	r->ranked_judged = judged;
	struct kf_ranking_opts ro;
	kf_ranking_opts_default(&ro);
	ro.run_ids = &r->id;
	ro.n_run_ids = 1;
	ro.theta = r->cfg.theta;
	ro.gated_only = true;
	ro.verify.device = r->cfg.device;
	ro.verify.call_timeout_s = r->cfg.call_timeout_s;
	ro.verify.sanitizers = r->cfg.verify == KF_AGENT_VERIFY_FULL;
	ro.verify_fn = verify_between_polls;
	ro.verify_ctx = r;
	if (r->cfg.llm_judge_model) {
		ro.llm_judge = kf_llm_judge_votes;
		ro.llm_judge_ctx = &r->llm;
		ro.llm_judge_model = r->cfg.llm_judge_model;
	}
	struct kf_ranking *rk;
	kf_err why;
	if (kf_ranking_build(r->s, &ro, &rk, &why) != KF_OK) {
		emit_ranked(r, "failed", why.msg);
		return KF_OK;
	}
	int trusted = 0, scored = 0;
	for (int i = 0; i < rk->n; i++) {
		struct cand *c = find_cand(r, rk->c[i].submission_id);
		if (!c)
			continue;
		c->trusted = rk->c[i].trusted;
		c->p_correct = rk->c[i].p_correct;
		trusted += c->trusted;
		scored += rk->c[i].gates_passed;
	}
	char detail[256], rule[96];
	if (rk->unanimity)
		snprintf(rule, sizeof rule, "no verifier kept, so: none of the re-running verifiers failed it");
	else
		snprintf(rule, sizeof rule, "P(correct) >= %g, %d verifier%s kept", r->cfg.theta, rk->fit.n_kept,
			 rk->fit.n_kept == 1 ? "" : "s");
	snprintf(detail, sizeof detail, "%d of %d correct candidates trusted (%s; %d verified now)", trusted, scored,
		 rule, rk->n_verified);
	emit_ranked(r, "ranked", detail);
	kf_ranking_free(rk);
	return KF_OK;
}

/* ---- rounds ---- */

/* Every request of the round is finished and every candidate it produced is judged. */
static bool round_complete(const struct run *r, int task, int round)
{
	for (int i = 0; i < r->n_reqs; i++) {
		const struct req *q = r->reqs[i];
		if (q->task != task || q->round != round)
			continue;
		if (q->status == KF_REQ_PENDING)
			return false;
		for (int k = 0; q->candidate_id && k < r->n_cands; k++)
			if (r->cands[k].id == q->candidate_id && !r->cands[k].evaluated)
				return false;
	}
	return true;
}

static int compare_keys(const void *a, const void *b)
{
	return kf_rank_compare(a, b);
}

/* Whether candidate `id` is at least min_distance from every source in kept[0..n). */
static int far_enough(struct run *r, int64_t id, char **kept, int n, char **source, bool *far, kf_err *err)
{
	*far = true;
	int rc = kf_record_candidate_source(r->s, id, source, NULL, err);
	for (int i = 0; i < n && rc == KF_OK && *far; i++)
		*far = kf_source_distance(*source, kept[i]) >= r->cfg.min_distance;
	return rc;
}

/* The task's best `keep` judged candidates, best first, into ids (*n_out of them). With
 * --min-distance, a candidate too close in source to a better kept one is passed over while others
 * remain, so the round refines different kernels; the passed-over fill what is left. */
static int best_candidates(struct run *r, int task, int64_t *ids, int *n_out, kf_err *err)
{
	struct kf_rank_key *keys = kf_xcalloc((size_t)r->n_cands + 1, sizeof *keys);
	int n = 0, kept = 0, rc = KF_OK;
	for (int i = 0; i < r->n_cands; i++) {
		const struct cand *c = &r->cands[i];
		if (c->task == task && c->evaluated)
			keys[n++] = (struct kf_rank_key){ .cls = kf_rank_class(c->verdict), .trusted = c->trusted,
							  .sol_fraction = c->sol_fraction, .id = c->id };
	}
	qsort(keys, (size_t)n, sizeof *keys, compare_keys);
	bool *taken = kf_xcalloc((size_t)n + 1, sizeof *taken);
	char **sources = kf_xcalloc((size_t)r->cfg.keep + 1, sizeof *sources);
	for (int i = 0; i < n && kept < r->cfg.keep && rc == KF_OK; i++) {
		char *source = NULL;
		bool far = true;
		if (r->cfg.min_distance > 0)
			rc = far_enough(r, keys[i].id, sources, kept, &source, &far, err);
		if (rc == KF_OK && far) {
			taken[i] = true;
			sources[kept] = source;
			ids[kept++] = keys[i].id;
		} else {
			free(source);
		}
	}
	for (int i = 0; i < n && kept < r->cfg.keep; i++)
		if (!taken[i])
			ids[kept++] = keys[i].id;
	for (int i = 0; i < r->cfg.keep; i++)
		free(sources[i]);
	free(sources);
	free(taken);
	free(keys);
	*n_out = kept;
	return rc;
}

/* The profile of candidate id's latest evaluation, made now (and stored) when it has none; NULL
 * when it is not correct, profiles are off, or a caller's judge offers none. A profiled run that
 * fails is stored as such and quoted as nothing. */
static int parent_profile(struct run *r, int task, int64_t id, cJSON **profile, kf_err *err)
{
	*profile = NULL;
	const struct cand *c = find_cand(r, id);
	if (!r->cfg.profile || !c || strcmp(c->verdict, "ok") || (r->inline_judge && !r->judge.profile))
		return KF_OK;
	int64_t eval_id = 0;
	uint64_t seed = judge_seed(r, c); /* now: waiting below may grow (move) the candidate list */
	int rc = kf_profile_latest(r->s, id, &eval_id, profile, err);
	if (rc != KF_OK || *profile || !eval_id)
		return rc;
	char *source = NULL;
	size_t len = 0;
	cJSON *result = NULL;
	if ((rc = kf_record_candidate_source(r->s, id, &source, &len, err)) == KF_OK)
		rc = kf_record_latest_result(r->s, id, &result, err);
	/* Replies and verdicts that arrived meanwhile are taken first, as before a verification; and
	 * the profiled run shares the machine, so it waits until no judge worker is busy: it never runs
	 * beside a candidate being timed. */
	if (rc == KF_OK && kf_http_flush(r->http, FLUSH_BEFORE_JUDGE_MS, err) != KF_OK)
		rc = err->code;
	while (rc == KF_OK && r->pool && judging_any(r) && !*r->stop)
		rc = wait_step(r, TICK_MS, err);
	const struct kf_task *t = r->tasks[task].t;
	if (rc == KF_OK && r->inline_judge) {
		rc = r->judge.profile(r->judge.ctx, t, &r->peaks, source, len, result, profile, err);
	} else if (rc == KF_OK) {
		struct kf_profile_opts po;
		kf_profile_opts_default(&po);
		po.backend = r->cfg.backend;
		po.device = r->cfg.device;
		po.seed = seed;
		rc = kf_profile_candidate(t, &r->peaks, source, len, result, &po, profile, err);
	}
	if (rc == KF_OK && *profile)
		rc = kf_profile_put(r->s, eval_id, *profile,
				    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(*profile, "seconds")), err);
	free(source);
	cJSON_Delete(result);
	if (rc == KF_OK && *profile && !cJSON_GetObjectItemCaseSensitive(*profile, "bound")) {
		cJSON_Delete(*profile); /* failed: on record, but nothing to quote */
		*profile = NULL;
	}
	return rc;
}

/* The conversation that refines candidate `id` (with its profile, when it has one). */
static int refine_messages(struct run *r, int task, int64_t id, cJSON **messages, kf_err *err)
{
	char *source = NULL;
	cJSON *result = NULL, *profile = NULL;
	int rc = parent_profile(r, task, id, &profile, err);
	if (rc == KF_OK)
		rc = kf_record_candidate_source(r->s, id, &source, NULL, err);
	if (rc == KF_OK)
		rc = kf_record_latest_result(r->s, id, &result, err);
	if (rc == KF_OK && !result)
		rc = kf_errf(err, KF_EINTERNAL, "candidate %lld has no evaluation to refine from", (long long)id);
	if (rc == KF_OK)
		rc = kf_prompt_refine_messages(r->tasks[task].t, r->cfg.backend, &r->peaks, source, result, profile,
					       messages, err);
	free(source);
	cJSON_Delete(result);
	cJSON_Delete(profile);
	return rc;
}

static int plan_round(struct run *r, int task, int round, kf_err *err)
{
	int n = r->cfg.samples, rc = KF_OK;
	int64_t *parents = kf_xcalloc((size_t)n, sizeof *parents), *best = kf_xcalloc((size_t)r->cfg.keep, sizeof *best);
	int64_t *ids = kf_xcalloc((size_t)n, sizeof *ids);
	cJSON **msgs = kf_xcalloc((size_t)n, sizeof *msgs);
	cJSON **per_parent = kf_xcalloc((size_t)r->cfg.keep, sizeof *per_parent);
	cJSON *fresh = NULL;
	int n_best = 0;
	if (round > 1 && (rc = rank_run(r, err)) == KF_OK)
		rc = best_candidates(r, task, best, &n_best, err);
	for (int i = 0; i < n_best && rc == KF_OK; i++)
		rc = refine_messages(r, task, best[i], &per_parent[i], err);
	/* --explore: the round's last requests sample afresh; at least one request still refines. */
	int n_fresh = n_best ? (int)floor(r->cfg.explore * n + 0.5) : n;
	if (n_best && n_fresh >= n)
		n_fresh = n - 1;
	if (rc == KF_OK && n_fresh)
		rc = kf_prompt_task_messages(r->tasks[task].t, r->cfg.backend, &r->peaks, &fresh, err);
	if (rc != KF_OK)
		goto out;
	for (int i = 0; i < n; i++) {
		bool refines = i < n - n_fresh;
		parents[i] = refines ? best[i % n_best] : 0;
		msgs[i] = refines ? per_parent[i % n_best] : fresh;
	}
	rc = kf_record_plan_round(r->s, r->id, r->tasks[task].t->name, round, n, parents, msgs, r->cfg.params.model,
				  r->params, ids, err);
	for (int i = 0; i < n && rc == KF_OK; i++) {
		struct req *q = add_req(r, ids[i], task, round, i);
		q->messages = cJSON_PrintUnformatted(msgs[i]);
	}
	if (rc == KF_OK) {
		r->tasks[task].round = round;
		struct kf_agent_event e = { .kind = KF_AGENT_EV_ROUND, .task = r->tasks[task].t->name, .round = round,
					    .what = n_best ? "refine" : "sample", .sol_fraction = NAN, .retry_in_s = -1 };
		emit(r, &e);
	}
out:
	for (int i = 0; i < r->cfg.keep; i++)
		cJSON_Delete(per_parent[i]);
	cJSON_Delete(fresh);
	free(per_parent);
	free(msgs);
	free(ids);
	free(best);
	free(parents);
	return rc;
}

/* A replay's task is done once every candidate its replies became is judged; it plans nothing. */
static bool replay_task_complete(const struct run *r, int task)
{
	for (int i = 0; i < r->n_cands; i++)
		if (r->cands[i].task == task && !r->cands[i].evaluated)
			return false;
	return true;
}

/* --stop-at-sol: the task's best correct kernel is close enough to the speed of light. */
static bool reached_sol(const struct run *r, int task)
{
	if (r->cfg.stop_at_sol <= 0)
		return false;
	for (int i = 0; i < r->n_cands; i++) {
		const struct cand *c = &r->cands[i];
		if (c->task == task && c->evaluated && !strcmp(c->verdict, "ok") && !isnan(c->sol_fraction) &&
		    c->sol_fraction >= r->cfg.stop_at_sol)
			return true;
	}
	return false;
}

static int advance_tasks(struct run *r, kf_err *err)
{
	for (int i = 0; i < r->n_tasks; i++) {
		struct task_state *ts = &r->tasks[i];
		if (ts->done || (ts->round > 0 && !round_complete(r, i, ts->round)))
			continue;
		if (r->cfg.replay) {
			if (replay_task_complete(r, i)) {
				ts->done = true;
				emit_simple(r, KF_AGENT_EV_TASK_DONE, i, "done");
			}
			continue;
		}
		if (ts->round >= r->cfg.rounds) {
			ts->done = true;
			emit_simple(r, KF_AGENT_EV_TASK_DONE, i, "done");
			continue;
		}
		if (ts->round > 0 && reached_sol(r, i)) {
			ts->done = true;
			emit_simple(r, KF_AGENT_EV_TASK_DONE, i, "sol_reached");
			continue;
		}
		if (plan_round(r, i, ts->round + 1, err) != KF_OK)
			return err->code;
	}
	return KF_OK;
}

/* ---- stopping ---- */

static void stop(struct run *r, bool hard, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void stop(struct run *r, bool hard, const char *fmt, ...)
{
	bool first = !r->stop_soft && !r->stop_hard;
	if (hard)
		r->stop_hard = true;
	else
		r->stop_soft = true;
	if (!first)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->stop_reason, sizeof r->stop_reason, fmt, ap);
	va_end(ap);
	emit_simple(r, KF_AGENT_EV_STOP, -1, r->stop_reason);
}

/* Budgets on money and tokens stop new requests (replies already paid for are still judged); the
 * wall-clock budget and a signal stop at once, leaving unfinished work for --resume. */
static void check_stop(struct run *r)
{
	if (*r->stop)
		stop(r, true, "interrupted");
	double minutes = (double)(kf_now_ns() - r->started_ns) / NS_PER_S / SECONDS_PER_MINUTE;
	if (r->cfg.max_minutes > 0 && minutes >= r->cfg.max_minutes)
		stop(r, true, "time budget reached (--max-minutes %g)", r->cfg.max_minutes);
	if (r->cfg.budget_tokens > 0 && r->tokens >= r->cfg.budget_tokens)
		stop(r, false, "token budget reached (%lld of --budget-tokens %lld)", (long long)r->tokens,
		     (long long)r->cfg.budget_tokens);
	if (r->cfg.budget_usd > 0 && r->cost_usd >= r->cfg.budget_usd)
		stop(r, false, "cost budget reached ($%.4f of --budget-usd %g)", r->cost_usd, r->cfg.budget_usd);
}

/* ---- the loop ---- */

static bool all_done(const struct run *r)
{
	for (int i = 0; i < r->n_tasks; i++)
		if (!r->tasks[i].done)
			return false;
	return true;
}

static int loop(struct run *r, kf_err *err)
{
	for (;;) {
		check_stop(r);
		if (r->rc != KF_OK || r->stop_hard)
			break;
		if (!r->stop_soft && (advance_tasks(r, err) != KF_OK || launch(r, err) != KF_OK))
			return err->code;
		if (r->inline_judge && next_to_judge(r)) {
			if (kf_http_flush(r->http, FLUSH_BEFORE_JUDGE_MS, err) != KF_OK)
				return err->code;
			/* Looked up again: replies delivered by the flush may have grown (moved) the list. */
			if (judge_inline(r, next_to_judge(r), err) != KF_OK || kf_http_step(r->http, 0, err) != KF_OK)
				return err->code;
			continue;
		}
		if (r->pool && dispatch(r, err) != KF_OK)
			return err->code;
		if (kf_http_pending(r->http) > 0 || judging_any(r)) {
			if (wait_step(r, TICK_MS, err) != KF_OK)
				return err->code;
			emit_simple(r, KF_AGENT_EV_TICK, -1, NULL);
			continue;
		}
		if (all_done(r) || r->stop_soft)
			break;
		return kf_errf(err, KF_EINTERNAL, "run %lld has unfinished tasks but nothing to send or judge",
			       (long long)r->id);
	}
	return r->rc; /* raise_error already put its message in *err */
}

/* ---- replay ---- */

/* A recorded reply, stored as the answer of request q: extracted and turned into a candidate as if
 * it had just arrived (tokens unknown: nothing was spent on it). */
static int replay_reply(struct run *r, struct req *q, const struct kf_replay_reply *rp, kf_err *err)
{
	struct kf_extract x = { 0 };
	kf_extract_code(rp->reply, r->cfg.backend, &x);
	struct kf_record_reply rec = { .status = KF_REQ_DONE, .outcome = kf_extract_outcome_name(x.outcome),
				       .reply = rp->reply, .finish_reason = rp->finish_reason, .tokens_in = -1,
				       .tokens_out = -1, .tokens_reasoning = -1, .latency_ms = 0, .cost_usd = NAN,
				       .error = x.outcome != KF_EXTRACT_CODE ? x.detail : NULL };
	int rc = kf_record_finish_request(r->s, q->id, &rec, err);
	if (rc == KF_OK) {
		q->status = KF_REQ_DONE;
		free(q->messages);
		q->messages = NULL;
	}
	if (rc == KF_OK && x.outcome == KF_EXTRACT_CODE)
		rc = attach_candidate(r, q, x.code, err);
	kf_extract_free(&x);
	return rc;
}

/* Plans the replay's requests, round by round, and answers each with its recorded reply. */
static int replay_plan(struct run *r, const struct kf_replay *rp, kf_err *err)
{
	int rc = KF_OK;
	int64_t *parents = kf_xcalloc((size_t)rp->n + 1, sizeof *parents), *ids = kf_xcalloc((size_t)rp->n + 1, sizeof *ids);
	cJSON **msgs = kf_xcalloc((size_t)rp->n + 1, sizeof *msgs);
	const struct kf_replay_reply **batch = kf_xcalloc((size_t)rp->n + 1, sizeof *batch);
	cJSON *none = cJSON_CreateArray(); /* the prompt is not part of a replay */
	for (int i = 0; i < rp->n; i++)
		msgs[i] = none;
	for (int t = 0; t < r->n_tasks && rc == KF_OK; t++) {
		int max_round = 0;
		for (int i = 0; i < rp->n; i++)
			if (!strcmp(rp->replies[i].task, r->tasks[t].t->name) && rp->replies[i].round > max_round)
				max_round = rp->replies[i].round;
		for (int round = 1; round <= max_round && rc == KF_OK; round++) {
			int n = 0;
			for (int i = 0; i < rp->n; i++)
				if (!strcmp(rp->replies[i].task, r->tasks[t].t->name) && rp->replies[i].round == round)
					batch[n++] = &rp->replies[i];
			if (!n)
				continue;
			rc = kf_record_plan_round(r->s, r->id, r->tasks[t].t->name, round, n, parents, msgs,
						  r->cfg.params.model, r->params, ids, err);
			for (int k = 0; k < n && rc == KF_OK; k++) {
				struct req *q = add_req(r, ids[k], t, round, k);
				rc = replay_reply(r, q, batch[k], err);
			}
			r->tasks[t].round = round;
		}
	}
	cJSON_Delete(none);
	free(batch);
	free(msgs);
	free(ids);
	free(parents);
	return rc;
}

/* ---- setup ---- */

/* A crash between storing a reply and storing its candidate leaves code with no candidate: the
 * reply is in the store, so the candidate is made from it now instead of asking again. */
static int load_state(struct run *r, kf_err *err)
{
	struct kf_record_request *rows = NULL;
	struct kf_record_candidate *cands = NULL;
	int n = 0, nc = 0;
	int rc = kf_record_load_candidates(r->s, r->id, &cands, &nc, err);
	for (int i = 0; i < nc && rc == KF_OK; i++) {
		int task = task_index(r, cands[i].task);
		if (task < 0)
			continue;
		struct cand *c = add_cand(r, cands[i].id, task);
		c->evaluated = cands[i].evaluated;
		snprintf(c->verdict, sizeof c->verdict, "%s", cands[i].verdict);
		c->sol_fraction = cands[i].sol_fraction;
	}
	if (rc == KF_OK)
		rc = kf_record_load_requests(r->s, r->id, &rows, &n, err);
	for (int i = 0; i < n && rc == KF_OK; i++) {
		int task = task_index(r, rows[i].task);
		if (task < 0)
			continue;
		struct req *q = add_req(r, rows[i].id, task, rows[i].round, rows[i].slot);
		q->status = rows[i].status;
		q->attempts = rows[i].attempts;
		q->candidate_id = rows[i].candidate_id;
		q->messages = rows[i].messages;
		rows[i].messages = NULL;
		if (r->tasks[task].round < q->round)
			r->tasks[task].round = q->round;
		if (rows[i].reply && !q->candidate_id) {
			struct kf_extract x;
			kf_extract_code(rows[i].reply, r->cfg.backend, &x);
			if (x.outcome == KF_EXTRACT_CODE)
				rc = attach_candidate(r, q, x.code, err);
			kf_extract_free(&x);
		}
	}
	struct kf_record_task_totals tot;
	if (rc == KF_OK && (rc = kf_record_totals(r->s, r->id, NULL, &tot, err)) == KF_OK) {
		r->tokens = tot.tokens_in + tot.tokens_out;
		r->cost_usd = isnan(tot.cost_usd) ? 0 : tot.cost_usd;
	}
	kf_record_requests_free(rows, n);
	free(cands);
	return rc;
}

static int fixed_matches(const struct kf_record_run *run, const struct kf_agent_config *cfg, kf_err *err)
{
	const char *provider = kf_provider_get(cfg->provider)->name, *backend = kf_backend_name(cfg->backend);
	if (strcmp(run->model, cfg->params.model))
		return kf_errf(err, KF_EINPUT, "run %lld used model '%s': --resume cannot change it", (long long)run->id,
			       run->model);
	if (strcmp(run->provider, provider))
		return kf_errf(err, KF_EINPUT, "run %lld used provider %s: --resume cannot change it", (long long)run->id,
			       run->provider);
	if (strcmp(run->backend, backend))
		return kf_errf(err, KF_EINPUT, "run %lld judged on the %s backend: --resume cannot change it",
			       (long long)run->id, run->backend);
	const cJSON *seed = cJSON_GetObjectItemCaseSensitive(run->config, "seed");
	if (cJSON_IsNumber(seed) && (uint64_t)seed->valuedouble != cfg->seed)
		return kf_errf(err, KF_EINPUT, "run %lld used --seed %.0f: --resume cannot change it", (long long)run->id,
			       seed->valuedouble);
	return KF_OK;
}

static int open_run(struct run *r, kf_err *err)
{
	const struct kf_agent_run_args *a = r->a;
	int rc;
	if (a->resume_id) {
		struct kf_record_run run;
		if ((rc = kf_record_load_run(r->s, a->resume_id, &run, err)) != KF_OK)
			return rc;
		rc = fixed_matches(&run, &r->cfg, err);
		kf_record_run_free(&run);
		if (rc == KF_OK)
			rc = kf_record_run_tasks(r->s, a->resume_id, &r->owned, &r->n_owned, err);
		if (rc == KF_OK)
			rc = kf_record_update_run(r->s, a->resume_id, "running", NULL, a->config, r->cfg.base_url, err);
		if (rc == KF_OK)
			r->id = a->resume_id;
	} else {
		struct kf_record_run run = { .model = (char *)r->cfg.params.model, .base_url = (char *)r->cfg.base_url,
					     .config = a->config };
		snprintf(run.provider, sizeof run.provider, "%s", r->prov->name);
		snprintf(run.backend, sizeof run.backend, "%s", kf_backend_name(r->cfg.backend));
		rc = a->replay ? kf_record_create_run(r->s, &run, a->replay->tasks, a->replay->n_tasks, &r->id, err)
			       : kf_record_create_run(r->s, &run, a->tasks, a->n_tasks, &r->id, err);
	}
	if (rc != KF_OK)
		return rc;
	struct kf_task **ts = a->resume_id ? r->owned : a->replay ? a->replay->tasks : a->tasks;
	r->n_tasks = a->resume_id ? r->n_owned : a->replay ? a->replay->n_tasks : a->n_tasks;
	r->tasks = kf_xcalloc((size_t)r->n_tasks + 1, sizeof *r->tasks);
	for (int i = 0; i < r->n_tasks; i++)
		r->tasks[i].t = ts[i];
	return KF_OK;
}

static cJSON *params_json(const struct kf_llm_params *p)
{
	cJSON *o = cJSON_CreateObject();
	if (isnan(p->temperature))
		cJSON_AddNullToObject(o, "temperature");
	else
		cJSON_AddNumberToObject(o, "temperature", p->temperature);
	cJSON_AddNumberToObject(o, "max_tokens", p->max_tokens);
	if (p->reasoning_effort)
		cJSON_AddStringToObject(o, "reasoning_effort", p->reasoning_effort);
	if (p->thinking_budget)
		cJSON_AddNumberToObject(o, "thinking_budget", p->thinking_budget);
	return o;
}

static int read_peaks(struct run *r, kf_err *err)
{
	if (!r->a->peaks)
		return kf_sol_peaks(r->s, r->cfg.backend, r->cfg.devices[0], &r->peaks, err);
	r->peaks = *r->a->peaks;
	r->peaks.json = r->a->peaks->json ? cJSON_Duplicate(r->a->peaks->json, true) : NULL;
	return KF_OK;
}

/* --dispatch slurm: each worker is a job step running this kforge as `kforge run --serve-worker`,
 * its stdin and stdout relayed by srun. The database is reached by path (a shared filesystem). */
static void slurm_command(const struct run *r, const char *exe, const char *db, char gpus[16],
			  const char *argv[SLURM_ARGV_MAX])
{
	int n = 0;
	const char *head[] = { "srun", "--quiet", "--unbuffered", "--nodes", "1", "--ntasks", "1", "--job-name",
			       "kforge-judge" };
	for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
		argv[n++] = head[i];
	if (r->cfg.partition) {
		argv[n++] = "--partition";
		argv[n++] = r->cfg.partition;
	}
	if (r->cfg.gpus_per_worker > 0) {
		snprintf(gpus, 16, "%d", r->cfg.gpus_per_worker);
		argv[n++] = "--gpus-per-task";
		argv[n++] = gpus;
	}
	const char *tail[] = { exe, "run", "--serve-worker", "--backend", kf_backend_name(r->cfg.backend), "--device", "0",
			       "--db", db };
	for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
		argv[n++] = tail[i];
	argv[n] = NULL;
}

static int start_workers(struct run *r, kf_err *err)
{
	struct kf_task **tasks = kf_xcalloc((size_t)r->n_tasks + 1, sizeof *tasks);
	for (int i = 0; i < r->n_tasks; i++)
		tasks[i] = r->tasks[i].t;
	struct kf_worker_setup ws = { .backend = r->cfg.backend, .devices = r->cfg.devices, .n = r->cfg.n_workers,
				      .tasks = tasks, .n_tasks = r->n_tasks,
				      .db_path = sqlite3_db_filename(kf_store_db(r->s), "main"), .peaks = r->a->peaks,
				      .compile_jobs = r->cfg.compile_jobs };
	char exe[PATH_MAX], gpus[16];
	const char *argv[SLURM_ARGV_MAX];
	int rc = KF_OK;
	if (r->cfg.slurm) {
		ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (len < 0)
			rc = kf_errno(err, KF_EINTERNAL, "--dispatch slurm: finding the kforge program");
		else
			exe[len] = '\0';
		slurm_command(r, exe, ws.db_path, gpus, argv);
		ws.command = argv;
	}
	if (rc == KF_OK)
		rc = kf_worker_pool_start(&ws, &r->pool, err);
	free(tasks);
	return rc;
}

static int setup(struct run *r, kf_err *err)
{
	int rc = kf_agent_config_read(r->a->config, &r->cfg, err);
	if (rc != KF_OK)
		return rc;
	r->cfg.api_key = r->a->api_key;
	r->prov = kf_provider_get(r->cfg.provider);
	if (r->a->judge) {
		r->judge = *r->a->judge;
		r->inline_judge = true;
	}
	kf_provider_url(r->prov, r->cfg.base_url, &r->url);
	kf_llm_judge_init(&r->llm, r->cfg.provider, r->cfg.base_url, r->cfg.llm_judge_model, r->cfg.api_key);
	r->llm.http = r->cfg.http;
	r->llm.concurrency = r->cfg.concurrency;
	r->prov->headers(r->cfg.api_key, r->headers);
	r->params = params_json(&r->cfg.params);
	snprintf(r->submitter, sizeof r->submitter, "%s (%d samples x %d rounds, keep %d)", r->cfg.params.model,
		 r->cfg.samples, r->cfg.rounds, r->cfg.keep);
	/* A reply is committed the moment it arrives, several rows each: with WAL, NORMAL keeps every
	 * commit across a crash or kill -9 of kforge (only a power loss can take the last ones) without
	 * an fsync per commit, which held 64 replies arriving together up by a quarter of a second. */
	if (sqlite3_exec(kf_store_db(r->s), "PRAGMA synchronous = NORMAL", NULL, NULL, NULL) != SQLITE_OK)
		return kf_store_fail(kf_store_db(r->s), err, "setting the database's sync mode");
	if ((rc = open_run(r, err)) != KF_OK)
		return rc;
	/* The workers are forked before this process reads the machine's peaks: measuring them may
	 * start OpenMP threads or a CUDA context, neither of which survives into a forked copy. Each
	 * worker reads its own device's peaks from the store when its first candidate comes. */
	if (!r->inline_judge && (rc = start_workers(r, err)) != KF_OK)
		return rc;
	if ((rc = read_peaks(r, err)) != KF_OK)
		return rc;
	const struct kf_http_callbacks cb = { on_attempt, on_done, on_body };
	if ((rc = kf_http_new(&r->cfg.http, &cb, &r->http, err)) != KF_OK)
		return rc;
	if ((rc = load_state(r, err)) != KF_OK)
		return rc;
	return r->a->replay && !r->a->resume_id ? replay_plan(r, r->a->replay, err) : KF_OK;
}

static void teardown(struct run *r)
{
	kf_worker_pool_stop(r->pool);
	kf_http_free(r->http);
	for (int i = 0; i < r->n_reqs; i++) {
		free(r->reqs[i]->messages);
		free(r->reqs[i]);
	}
	free(r->reqs);
	free(r->cands);
	free(r->tasks);
	kf_task_list_free(r->owned, r->n_owned);
	kf_buf_free(&r->url);
	kf_provider_headers_free(r->headers);
	cJSON_Delete(r->params);
	kf_sol_peaks_free(&r->peaks);
}

int kf_agent_run(const struct kf_agent_run_args *a, struct kf_agent_summary *summary, kf_err *err)
{
	static volatile sig_atomic_t never;
	struct run r = { .a = a, .s = a->store, .err = err, .started_ns = kf_now_ns(), .stop = a->stop ? a->stop : &never,
			 .ranked_judged = -1 };
	memset(summary, 0, sizeof *summary);
	int rc = setup(&r, err);
	if (rc == KF_OK)
		rc = loop(&r, err);
	/* The report names the top trusted kernel: rank what is judged, unless told to stop now. */
	if (rc == KF_OK && !r.stop_hard)
		rc = rank_run(&r, err);
	if (r.id && rc == KF_OK) {
		bool stopped = r.stop_soft || r.stop_hard;
		rc = kf_record_update_run(r.s, r.id, stopped ? "stopped" : "done", stopped ? r.stop_reason : NULL, NULL,
					  NULL, err);
	} else if (r.id) {
		kf_err ignored;
		char reason[STOP_REASON_MAX];
		snprintf(reason, sizeof reason, "error: %s", err->msg);
		kf_record_update_run(r.s, r.id, "stopped", reason, NULL, NULL, &ignored);
	}
	if (rc == KF_OK && (rc = kf_agent_summarize(r.s, r.id, summary, err)) == KF_OK)
		summary->wall_s = (double)(kf_now_ns() - r.started_ns) / NS_PER_S;
	teardown(&r);
	return rc;
}
