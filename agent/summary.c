/* What a run produced, read back from the store (see agent.h): per-task counts, tokens, cost and
 * the selected candidate (the agent's order, with trust from the run's latest stored ranking), and
 * the selected correct kernels written out as files. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/extract.h"
#include "agent/profile_cost.h"
#include "agent/rank.h"
#include "agent/record.h"
#include "common/fs.h"

int kf_agent_run_config(struct kf_store *s, int64_t id, cJSON **config, kf_err *err)
{
	struct kf_record_run run;
	*config = NULL;
	int rc = kf_record_load_run(s, id, &run, err);
	if (rc != KF_OK)
		return rc;
	*config = run.config;
	run.config = NULL;
	kf_record_run_free(&run);
	return KF_OK;
}

static const struct kf_posterior *posterior_of(const struct kf_posterior *ps, int n, int64_t id)
{
	for (int i = 0; i < n; i++)
		if (ps[i].submission_id == id)
			return &ps[i];
	return NULL;
}

static void task_best(const struct kf_record_candidate *cands, int n, const struct kf_posterior *ps, int n_ps,
		      struct kf_agent_task_summary *t)
{
	struct kf_rank_key best = { 0 };
	const struct kf_record_candidate *chosen = NULL;
	const struct kf_posterior *chosen_p = NULL;
	for (int i = 0; i < n; i++) {
		const struct kf_record_candidate *c = &cands[i];
		if (strcmp(c->task, t->task))
			continue;
		t->candidates++;
		if (!c->evaluated)
			continue;
		t->evaluated++;
		t->ok += !strcmp(c->verdict, "ok");
		const struct kf_posterior *p = posterior_of(ps, n_ps, c->id);
		t->trusted += p && p->trusted;
		struct kf_rank_key k = { .cls = kf_rank_class(c->verdict), .trusted = p && p->trusted,
					 .sol_fraction = c->sol_fraction, .id = c->id };
		if (!chosen || kf_rank_compare(&k, &best) < 0) {
			chosen = c;
			chosen_p = p;
			best = k;
		}
	}
	t->best_time_ms = t->best_speedup = t->best_sol_fraction = t->best_p_correct = NAN;
	if (!chosen)
		return;
	t->best_id = chosen->id;
	snprintf(t->best_verdict, sizeof t->best_verdict, "%s", chosen->verdict);
	t->best_time_ms = chosen->time_ms;
	t->best_speedup = chosen->speedup;
	t->best_sol_fraction = chosen->sol_fraction;
	t->best_p_correct = chosen_p ? chosen_p->p_correct : NAN;
	t->best_trusted = chosen_p && chosen_p->trusted;
}

#define FAILURES_SHOWN 5

static int config_int(const cJSON *cfg, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
	return cJSON_IsNumber(v) ? v->valueint : 0;
}

/* fast_p and pass@1 over every task of the run: a task with nothing judged scores 0. */
static void run_scores(struct kf_agent_summary *out)
{
	for (int i = 0; i < out->n_tasks; i++) {
		const struct kf_agent_task_summary *t = &out->tasks[i];
		bool ok = t->best_id && !strcmp(t->best_verdict, "ok");
		for (int p = 0; p < KF_LB_N_FAST_P; p++)
			out->fast_p[p] += ok && t->best_speedup > kf_lb_fast_p_thresholds[p]; /* NAN compares false */
		if (t->evaluated)
			out->pass_at_1 += kf_lb_pass_at_k(t->evaluated, t->ok, 1);
	}
	for (int p = 0; p < KF_LB_N_FAST_P && out->n_tasks; p++)
		out->fast_p[p] /= out->n_tasks;
	if (out->n_tasks)
		out->pass_at_1 /= out->n_tasks;
}

int kf_agent_summarize(struct kf_store *s, int64_t run_id, struct kf_agent_summary *out, kf_err *err)
{
	struct kf_record_run run;
	struct kf_task **tasks = NULL;
	struct kf_record_candidate *cands = NULL;
	struct kf_posterior *ps = NULL;
	int n_tasks = 0, n_cands = 0, n_ps = 0;
	memset(out, 0, sizeof *out);
	int rc = kf_record_load_run(s, run_id, &run, err);
	if (rc != KF_OK)
		return rc;
	out->run_id = run_id;
	snprintf(out->status, sizeof out->status, "%s", run.status);
	snprintf(out->stop_reason, sizeof out->stop_reason, "%s", run.stop_reason ? run.stop_reason : "");
	snprintf(out->model, sizeof out->model, "%s", run.model);
	snprintf(out->provider, sizeof out->provider, "%s", run.provider);
	snprintf(out->backend, sizeof out->backend, "%s", run.backend);
	int per_task = config_int(run.config, "samples") * config_int(run.config, "rounds");
	kf_record_run_free(&run);
	if ((rc = kf_record_run_tasks(s, run_id, &tasks, &n_tasks, err)) != KF_OK ||
	    (rc = kf_record_load_candidates(s, run_id, &cands, &n_cands, err)) != KF_OK ||
	    (rc = kf_ranking_run_posteriors(s, run_id, &ps, &n_ps, err)) != KF_OK)
		goto out;
	out->tasks = kf_xcalloc((size_t)n_tasks + 1, sizeof *out->tasks);
	out->n_tasks = n_tasks;
	for (int i = 0; i < n_tasks && rc == KF_OK; i++) {
		struct kf_agent_task_summary *t = &out->tasks[i];
		struct kf_record_task_totals tot;
		snprintf(t->task, sizeof t->task, "%s", tasks[i]->name);
		if ((rc = kf_record_totals(s, run_id, t->task, &tot, err)) != KF_OK)
			break;
		t->requests = tot.requests;
		t->failed_requests = tot.failed;
		t->no_code = tot.no_code;
		t->tokens_in = tot.tokens_in;
		t->tokens_out = tot.tokens_out;
		t->cost_usd = tot.cost_usd;
		task_best(cands, n_cands, ps, n_ps, t);
		out->requests += t->requests;
		out->requests_failed += t->failed_requests;
		out->candidates += t->candidates;
		out->evaluated += t->evaluated;
		out->ok_tasks += t->ok > 0;
	}
	out->requests_planned = per_task * n_tasks;
	out->requests_unsent = out->requests_planned > out->requests ? out->requests_planned - out->requests : 0;
	if (rc == KF_OK) {
		run_scores(out);
		rc = kf_record_failures(s, run_id, FAILURES_SHOWN, &out->failures, &out->n_failures, err);
	}
	struct kf_record_task_totals all;
	if (rc == KF_OK && (rc = kf_record_totals(s, run_id, NULL, &all, err)) == KF_OK) {
		out->tokens_in = all.tokens_in;
		out->tokens_out = all.tokens_out;
		out->cost_usd = all.cost_usd;
	}
	struct kf_profile_cost pc;
	if (rc == KF_OK && (rc = kf_profile_cost(s, run_id, &pc, err)) == KF_OK) {
		out->refinements = pc.refinements;
		out->profiled_refinements = pc.profiled;
		out->profile_bytes_mean = pc.bytes_mean;
		out->profile_tokens_mean = pc.tokens_mean;
	}
out:
	kf_task_list_free(tasks, n_tasks);
	free(cands);
	free(ps);
	if (rc != KF_OK)
		kf_agent_summary_free(out);
	return rc;
}

void kf_agent_summary_free(struct kf_agent_summary *s)
{
	free(s->tasks);
	free(s->failures);
	s->tasks = NULL;
	s->failures = NULL;
	s->n_tasks = 0;
	s->n_failures = 0;
}

int kf_agent_write_best(struct kf_store *s, const struct kf_agent_summary *sum, const char *dir, int *written,
			kf_err *err)
{
	enum kf_backend b = KF_BACKEND_CPU;
	*written = 0;
	kf_backend_parse(sum->backend, &b);
	int rc = kf_mkdir_p(dir, err);
	for (int i = 0; i < sum->n_tasks && rc == KF_OK; i++) {
		const struct kf_agent_task_summary *t = &sum->tasks[i];
		if (!t->best_id || strcmp(t->best_verdict, "ok"))
			continue;
		char *source = NULL, path[PATH_MAX];
		size_t len = 0;
		snprintf(path, sizeof path, "%s/%s%s", dir, t->task, kf_extract_extension(b));
		if ((rc = kf_record_candidate_source(s, t->best_id, &source, &len, err)) == KF_OK &&
		    (rc = kf_write_file(path, source, len, err)) == KF_OK)
			(*written)++;
		free(source);
	}
	return rc;
}
