/* CSV leaderboard (RFC 4180 quoting; LF line ends, so golden files diff well): one table per file, the
 * per-task rows or the per-source summaries, each line naming its group. A null is an empty field;
 * numbers keep KF_REPORT_EXACT_DIGITS significant digits. */
#include <stdio.h>
#include <string.h>

#include "eval/report/report.h"

#define FAST_P_NAME_MAX 32

static void field(kf_buf *b, const char *s, bool last)
{
	if (s && strpbrk(s, ",\"\n")) {
		kf_buf_adds(b, "\"");
		for (const char *p = s; *p; p++)
			kf_buf_add(b, *p == '"' ? "\"\"" : p, *p == '"' ? 2 : 1);
		kf_buf_adds(b, "\"");
	} else if (s) {
		kf_buf_adds(b, s);
	}
	kf_buf_adds(b, last ? "\n" : ",");
}

static void number(kf_buf *b, double x, bool last)
{
	kf_report_num(b, x, KF_REPORT_EXACT_DIGITS, "");
	kf_buf_adds(b, last ? "\n" : ",");
}

/* The selected kernel's ids; empty when the row has none. */
static void ids(kf_buf *b, const struct kf_lb_eval *e)
{
	if (e)
		kf_buf_addf(b, "%lld,%lld\n", (long long)e->submission_id, (long long)e->evaluation_id);
	else
		kf_buf_adds(b, ",\n");
}

static void rows(const struct kf_leaderboard *lb, kf_buf *out)
{
	kf_buf_adds(out, "group,source,task,backend,device,verdict,time_ms,ref_time_ms,vendor_time_ms,speedup,"
			 "vendor_speedup,sol_fraction,sol_score,n_candidates,n_correct,submission_id,evaluation_id\n");
	kf_buf title = KF_BUF_INIT;
	for (int gi = 0; gi < lb->n_groups; gi++) {
		const struct kf_lb_group *g = &lb->groups[gi];
		kf_buf_reset(&title);
		kf_report_group_title(lb, g, &title);
		for (int i = 0; i < g->n_rows; i++) {
			const struct kf_lb_row *r = &g->rows[i];
			const char *texts[] = { title.data, r->source, r->task, r->backend, r->device, r->verdict };
			for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++)
				field(out, texts[t], false);
			const double nums[] = { r->time_ms,	   r->ref_time_ms,  r->vendor_time_ms, r->speedup,
						r->vendor_speedup, r->sol_fraction, r->sol_score };
			for (size_t n = 0; n < sizeof nums / sizeof nums[0]; n++)
				number(out, nums[n], false);
			kf_buf_addf(out, "%d,%d,", r->n_candidates, r->n_correct);
			ids(out, r->selected);
		}
	}
	kf_buf_free(&title);
}

static void summaries(const struct kf_leaderboard *lb, kf_buf *out)
{
	char name[FAST_P_NAME_MAX];
	kf_buf_adds(out, "group,source,n_tasks,n_correct");
	for (int p = 0; p < KF_LB_N_FAST_P; p++) {
		kf_report_fast_p_name(p, name, sizeof name);
		kf_buf_addf(out, ",%s", name);
	}
	kf_buf_adds(out, ",geomean_speedup,mean_sol_fraction,mean_sol_score,pass_at_1,pass_at_k,k,tokens,cost_usd\n");
	kf_buf title = KF_BUF_INIT;
	for (int gi = 0; gi < lb->n_groups; gi++) {
		const struct kf_lb_group *g = &lb->groups[gi];
		kf_buf_reset(&title);
		kf_report_group_title(lb, g, &title);
		for (int i = 0; i < g->n_summaries; i++) {
			const struct kf_lb_summary *s = &g->summaries[i];
			field(out, title.data, false);
			field(out, s->source, false);
			kf_buf_addf(out, "%d,%d,", s->n_tasks, s->n_correct);
			for (int p = 0; p < KF_LB_N_FAST_P; p++)
				number(out, s->fast_p[p], false);
			const double nums[] = { s->geomean_speedup, s->mean_sol_fraction, s->mean_sol_score, s->pass_at_1,
						s->pass_at_k };
			for (size_t n = 0; n < sizeof nums / sizeof nums[0]; n++)
				number(out, nums[n], false);
			kf_buf_addf(out, "%d,", s->k);
			number(out, s->tokens, false);
			number(out, s->cost_usd, true);
		}
	}
	kf_buf_free(&title);
}

void kf_report_csv(const struct kf_leaderboard *lb, const struct kf_report_opts *o, kf_buf *out)
{
	if (o->table == KF_REPORT_SUMMARIES)
		summaries(lb, out);
	else
		rows(lb, out);
}
