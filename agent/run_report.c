/* Progress and summary output for `kforge run` (see run_report.h). */
#include "agent/run_report.h"

#include <math.h>
#include <string.h>

#include "agent/profile_cost.h"
#include "common/clock.h"

#define REDRAW_NS 100000000LL      /* a terminal line is redrawn at most ten times a second */
#define PLAIN_PROGRESS_NS 10000000000LL /* a plain progress line every ten seconds */
#define DETAIL_MAX 160
#define FAULT_DETAIL_MAX 72 /* of a fault's message on the status line, which must stay one line */
#define FIELD_MAX 64
#define KILO 1e3
#define MEGA 1e6

static void one_line(const char *s, char *out, size_t len)
{
	size_t n = 0;
	for (; s && *s && n + 1 < len && n < DETAIL_MAX; s++)
		out[n++] = (*s == '\n' || *s == '\r' || *s == '\t') ? ' ' : *s;
	out[n] = '\0';
}

static void fmt_tokens(int64_t t, char out[FIELD_MAX])
{
	if (t >= MEGA)
		snprintf(out, FIELD_MAX, "%.2fM", (double)t / MEGA);
	else if (t >= KILO)
		snprintf(out, FIELD_MAX, "%.1fk", (double)t / KILO);
	else
		snprintf(out, FIELD_MAX, "%lld", (long long)t);
}

static void fmt_cost(double usd, char out[FIELD_MAX])
{
	if (isnan(usd))
		snprintf(out, FIELD_MAX, "unknown");
	else
		snprintf(out, FIELD_MAX, "$%.4f", usd);
}

static void fmt_num(double v, const char *fmt, char out[FIELD_MAX])
{
	if (isnan(v))
		snprintf(out, FIELD_MAX, "-");
	else
		snprintf(out, FIELD_MAX, fmt, v);
}

static void progress_text(const struct kf_agent_progress *p, char *out, size_t len)
{
	char tokens[FIELD_MAX], cost[FIELD_MAX], sol[FIELD_MAX];
	fmt_tokens(p->tokens, tokens);
	fmt_cost(p->cost_usd, cost);
	fmt_num(p->best_sol, "%.3f", sol);
	snprintf(out, len, "tasks %d/%d | requests %d/%d, %d in flight | judged %d: ok %d, failed %d | best SOL %s | %s tokens | %s",
		 p->tasks_done, p->n_tasks, p->requests_done, p->requests_planned, p->in_flight, p->evaluated, p->ok,
		 p->failed, sol, tokens, cost);
}

void kf_run_report_init(struct kf_run_report *r, FILE *f, bool tty)
{
	memset(r, 0, sizeof *r);
	r->f = f;
	r->tty = tty;
	r->last_plain_ns = kf_now_ns();
}

/* The line an event deserves, or false when it only moves the progress line. */
static bool event_line(const struct kf_agent_event *e, bool tty, char *out, size_t len)
{
	char detail[DETAIL_MAX + 1];
	one_line(e->detail, detail, sizeof detail);
	switch (e->kind) {
	case KF_AGENT_EV_REQUEST:
		if (tty)
			return false;
		if (e->candidate_id)
			snprintf(out, len, "%s round %d sample %d: %s -> candidate %lld", e->task, e->round, e->slot, e->what,
				 (long long)e->candidate_id);
		else
			snprintf(out, len, "%s round %d sample %d: %s: %s", e->task, e->round, e->slot, e->what, detail);
		return true;
	case KF_AGENT_EV_ATTEMPT:
		/* Retries show on a terminal's status line; a request given up on is worth a line. */
		if (tty && e->retry_in_s >= 0)
			return false;
		if (e->retry_in_s >= 0)
			snprintf(out, len, "%s round %d sample %d: %s (attempt %d of %d); retrying in %.1f s", e->task, e->round,
				 e->slot, detail, e->attempt, e->max_attempts, e->retry_in_s);
		else
			snprintf(out, len, "%s round %d sample %d: %s (attempt %d of %d); not retried", e->task, e->round,
				 e->slot, detail, e->attempt, e->max_attempts);
		return true;
	case KF_AGENT_EV_EVALUATED:
		if (tty)
			return false;
		if (!isnan(e->sol_fraction))
			snprintf(out, len, "%s: candidate %lld %s, SOL fraction %.3f", e->task, (long long)e->candidate_id,
				 e->what, e->sol_fraction);
		else
			snprintf(out, len, "%s: candidate %lld %s: %s", e->task, (long long)e->candidate_id, e->what, detail);
		return true;
	case KF_AGENT_EV_ROUND:
		if (tty)
			return false;
		snprintf(out, len, "%s: round %d planned (%s)", e->task, e->round, e->what);
		return true;
	case KF_AGENT_EV_TASK_DONE:
		if (e->what && !strcmp(e->what, "sol_reached"))
			snprintf(out, len, "%s: done (its best kernel reached --stop-at-sol)", e->task);
		else
			snprintf(out, len, "%s: done", e->task);
		return true;
	case KF_AGENT_EV_RANKED:
		if (!strcmp(e->what, "ranked"))
			snprintf(out, len, "ranked: %s", detail);
		else
			snprintf(out, len, "ranking failed (the order stays verdict, then SOL fraction): %s", detail);
		return true;
	case KF_AGENT_EV_STOP:
		snprintf(out, len, "stopping: %s (kforge run --resume continues)", e->what);
		return true;
	case KF_AGENT_EV_TICK:
		return false;
	}
	return false;
}

/* "vector_add: HTTP 503: {...} (attempt 3 of 4)", the message cut to fit the status line. */
static void note_fault(struct kf_run_report *r, const struct kf_agent_event *e)
{
	char detail[FAULT_DETAIL_MAX + 1];
	one_line(e->detail, detail, sizeof detail);
	snprintf(r->last_fault, sizeof r->last_fault, "%s: %s%s (attempt %d of %d)", e->task, detail,
		 e->detail && strlen(e->detail) > FAULT_DETAIL_MAX ? "..." : "", e->attempt, e->max_attempts);
}

void kf_run_report_event(void *ctx, const struct kf_agent_event *e)
{
	struct kf_run_report *r = ctx;
	char line[512], prog[512];
	int64_t now = kf_now_ns();
	bool has_line = event_line(e, r->tty, line, sizeof line);
	if (e->kind == KF_AGENT_EV_ATTEMPT)
		note_fault(r, e);
	progress_text(&e->progress, prog, sizeof prog);
	if (r->last_fault[0]) {
		size_t n = strlen(prog);
		snprintf(prog + n, sizeof prog - n, " | last fault: %s", r->last_fault);
	}
	if (!r->tty) {
		if (has_line)
			fprintf(r->f, "%s\n", line);
		if (now - r->last_plain_ns >= PLAIN_PROGRESS_NS) {
			fprintf(r->f, "progress: %s\n", prog);
			r->last_plain_ns = now;
		}
		fflush(r->f);
		return;
	}
	if (has_line)
		fprintf(r->f, "\r\033[K%s\n", line);
	if (has_line || now - r->last_draw_ns >= REDRAW_NS) {
		fprintf(r->f, "\r\033[K%s", prog);
		r->line_drawn = true;
		r->last_draw_ns = now;
	}
	fflush(r->f);
}

void kf_run_report_finish(struct kf_run_report *r)
{
	if (r->tty && r->line_drawn)
		fprintf(r->f, "\r\033[K");
	r->line_drawn = false;
	fflush(r->f);
}

void kf_run_report_table(FILE *f, const struct kf_agent_summary *s)
{
	char tokens[FIELD_MAX], cost[FIELD_MAX], t_ms[FIELD_MAX], speedup[FIELD_MAX], sol[FIELD_MAX], best[FIELD_MAX],
		p[FIELD_MAX], name[FIELD_MAX];
	fprintf(f, "run %lld: %s via %s on the %s backend: %s%s%s\n", (long long)s->run_id, s->model, s->provider,
		s->backend, s->status, s->stop_reason[0] ? " — " : "", s->stop_reason);
	fprintf(f, "%-24s %8s %7s %6s %10s %6s %4s %7s  %-22s %7s %10s %8s %6s %8s %10s\n", "task", "requests",
		"no code", "failed", "candidates", "judged", "ok", "trusted", "selected", "P(ok)", "time ms", "speedup", "SOL",
		"tokens", "cost");
	for (int i = 0; i < s->n_tasks; i++) {
		const struct kf_agent_task_summary *t = &s->tasks[i];
		fmt_tokens(t->tokens_in + t->tokens_out, tokens);
		fmt_cost(t->cost_usd, cost);
		fmt_num(t->best_time_ms, "%.4g", t_ms);
		fmt_num(t->best_speedup, "%.3gx", speedup);
		fmt_num(t->best_sol_fraction, "%.3f", sol);
		fmt_num(t->best_p_correct, t->best_trusted ? "%.3f*" : "%.3f", p);
		if (t->best_id)
			snprintf(best, sizeof best, "%s (#%lld)", t->best_verdict, (long long)t->best_id);
		else
			snprintf(best, sizeof best, "%s", t->candidates ? "none judged" : "no candidate");
		fprintf(f, "%-24s %8d %7d %6d %10d %6d %4d %7d  %-22s %7s %10s %8s %6s %8s %10s\n", t->task, t->requests,
			t->no_code, t->failed_requests, t->candidates, t->evaluated, t->ok, t->trusted, best, p, t_ms, speedup,
			sol, tokens, cost);
	}
	fmt_tokens(s->tokens_in + s->tokens_out, tokens);
	fmt_cost(s->cost_usd, cost);
	fprintf(f, "correct %d/%d tasks; requests: %d finished (%d failed), %d unsent of %d planned; candidates %d (%d judged);"
		   " %s tokens; cost %s",
		s->ok_tasks, s->n_tasks, s->requests, s->requests_failed, s->requests_unsent, s->requests_planned,
		s->candidates, s->evaluated, tokens, cost);
	if (s->wall_s > 0)
		fprintf(f, "; %.1f s", s->wall_s);
	fprintf(f, "\nover all %d tasks:", s->n_tasks);
	for (int i = 0; i < KF_LB_N_FAST_P; i++) {
		snprintf(name, sizeof name, "fast_%g", kf_lb_fast_p_thresholds[i]);
		fprintf(f, " %s %.3g%s", name, s->fast_p[i], i + 1 < KF_LB_N_FAST_P ? "," : ";");
	}
	fprintf(f, " pass@1 %.3g\n", s->pass_at_1);
	if (s->refinements)
		fprintf(f, "profiles: %d of %d refinements quoted their parent's profile, %.0f bytes each"
			   " (about %.0f tokens at %g bytes a token)\n",
			s->profiled_refinements, s->refinements, s->profile_bytes_mean, s->profile_tokens_mean,
			KF_BYTES_PER_TOKEN);
	for (int i = 0; i < s->n_failures; i++) {
		char error[DETAIL_MAX + 1];
		one_line(s->failures[i].error, error, sizeof error);
		fprintf(f, "%s %d x %s\n", i ? "                " : "failed requests:", s->failures[i].count, error);
	}
	fprintf(f, "selected: the top correct candidate of the run's ranking, trusted ones (* P(correct) >= theta) first,"
		   " then by SOL fraction\n");
}

static void add_num_or_null(cJSON *o, const char *key, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

cJSON *kf_run_report_json(const struct kf_agent_summary *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "run_id", (double)s->run_id);
	cJSON_AddStringToObject(o, "status", s->status);
	if (s->stop_reason[0])
		cJSON_AddStringToObject(o, "stop_reason", s->stop_reason);
	else
		cJSON_AddNullToObject(o, "stop_reason");
	cJSON_AddStringToObject(o, "model", s->model);
	cJSON_AddStringToObject(o, "provider", s->provider);
	cJSON_AddStringToObject(o, "backend", s->backend);
	cJSON_AddNumberToObject(o, "n_tasks", s->n_tasks);
	cJSON_AddNumberToObject(o, "ok_tasks", s->ok_tasks);
	cJSON_AddNumberToObject(o, "requests", s->requests);
	cJSON_AddNumberToObject(o, "requests_failed", s->requests_failed);
	cJSON_AddNumberToObject(o, "requests_unsent", s->requests_unsent);
	cJSON_AddNumberToObject(o, "requests_planned", s->requests_planned);
	cJSON_AddNumberToObject(o, "candidates", s->candidates);
	cJSON_AddNumberToObject(o, "evaluated", s->evaluated);
	cJSON *fast = cJSON_AddObjectToObject(o, "fast_p");
	for (int i = 0; i < KF_LB_N_FAST_P; i++) {
		char name[FIELD_MAX];
		snprintf(name, sizeof name, "fast_%g", kf_lb_fast_p_thresholds[i]);
		cJSON_AddNumberToObject(fast, name, s->fast_p[i]);
	}
	cJSON_AddNumberToObject(o, "pass_at_1", s->pass_at_1);
	cJSON *failures = cJSON_AddArrayToObject(o, "failures");
	for (int i = 0; i < s->n_failures; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "error", s->failures[i].error);
		cJSON_AddNumberToObject(x, "count", s->failures[i].count);
		cJSON_AddItemToArray(failures, x);
	}
	cJSON_AddNumberToObject(o, "tokens_in", (double)s->tokens_in);
	cJSON_AddNumberToObject(o, "tokens_out", (double)s->tokens_out);
	add_num_or_null(o, "cost_usd", s->cost_usd);
	cJSON_AddNumberToObject(o, "wall_s", s->wall_s);
	cJSON *pf = cJSON_AddObjectToObject(o, "profile_feedback");
	cJSON_AddNumberToObject(pf, "refinements", s->refinements);
	cJSON_AddNumberToObject(pf, "profiled", s->profiled_refinements);
	cJSON_AddNumberToObject(pf, "bytes_mean", s->profile_bytes_mean);
	cJSON_AddNumberToObject(pf, "tokens_mean", s->profile_tokens_mean);
	cJSON *tasks = cJSON_AddArrayToObject(o, "tasks");
	for (int i = 0; i < s->n_tasks; i++) {
		const struct kf_agent_task_summary *t = &s->tasks[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "task", t->task);
		cJSON_AddNumberToObject(x, "requests", t->requests);
		cJSON_AddNumberToObject(x, "failed_requests", t->failed_requests);
		cJSON_AddNumberToObject(x, "no_code", t->no_code);
		cJSON_AddNumberToObject(x, "candidates", t->candidates);
		cJSON_AddNumberToObject(x, "evaluated", t->evaluated);
		cJSON_AddNumberToObject(x, "ok", t->ok);
		cJSON_AddNumberToObject(x, "trusted", t->trusted);
		if (t->best_id) {
			cJSON_AddNumberToObject(x, "best_candidate_id", (double)t->best_id);
			cJSON_AddStringToObject(x, "best_verdict", t->best_verdict);
		} else {
			cJSON_AddNullToObject(x, "best_candidate_id");
			cJSON_AddNullToObject(x, "best_verdict");
		}
		add_num_or_null(x, "time_ms", t->best_time_ms);
		add_num_or_null(x, "speedup", t->best_speedup);
		add_num_or_null(x, "sol_fraction", t->best_sol_fraction);
		add_num_or_null(x, "p_correct", t->best_p_correct);
		cJSON_AddBoolToObject(x, "best_trusted", t->best_trusted);
		cJSON_AddNumberToObject(x, "tokens_in", (double)t->tokens_in);
		cJSON_AddNumberToObject(x, "tokens_out", (double)t->tokens_out);
		add_num_or_null(x, "cost_usd", t->cost_usd);
		cJSON_AddItemToArray(tasks, x);
	}
	return o;
}
