/* JSON leaderboard: {"merged", "scope", "fast_p_thresholds", "groups": [{"backend", "device", "title",
 * "toolchain", "tasks", "rows": [...], "summaries": [...]}], "formulas": {...}}. Rows and summaries sit
 * side by side in their group; null where a number is missing; numbers keep KF_REPORT_EXACT_DIGITS. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "eval/report/report.h"

#define FAST_P_KEY_MAX 16

static cJSON *strings(const struct kf_lb_strings *s)
{
	cJSON *a = cJSON_CreateArray(); /* cJSON_CreateStringArray gives NULL, not [], for no items */
	for (int i = 0; i < s->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(s->items[i]));
	return a;
}

static cJSON *row_json(const struct kf_lb_row *r)
{
	cJSON *o = cJSON_CreateObject();
	kf_report_json_str(o, "source", r->source);
	kf_report_json_str(o, "task", r->task);
	kf_report_json_str(o, "backend", r->backend);
	kf_report_json_str(o, "device", r->device);
	kf_report_json_str(o, "verdict", r->verdict);
	kf_report_json_num(o, "time_ms", r->time_ms);
	kf_report_json_num(o, "ref_time_ms", r->ref_time_ms);
	kf_report_json_num(o, "vendor_time_ms", r->vendor_time_ms);
	kf_report_json_num(o, "speedup", r->speedup);
	kf_report_json_num(o, "vendor_speedup", r->vendor_speedup);
	kf_report_json_num(o, "sol_fraction", r->sol_fraction);
	kf_report_json_num(o, "sol_score", r->sol_score);
	cJSON_AddNumberToObject(o, "n_candidates", r->n_candidates);
	cJSON_AddNumberToObject(o, "n_correct", r->n_correct);
	kf_report_json_num(o, "submission_id", r->selected ? (double)r->selected->submission_id : NAN);
	kf_report_json_num(o, "evaluation_id", r->selected ? (double)r->selected->evaluation_id : NAN);
	return o;
}

static cJSON *summary_json(const struct kf_lb_summary *s)
{
	cJSON *o = cJSON_CreateObject();
	char key[FAST_P_KEY_MAX];
	kf_report_json_str(o, "source", s->source);
	cJSON_AddNumberToObject(o, "n_tasks", s->n_tasks);
	cJSON_AddNumberToObject(o, "n_correct", s->n_correct);
	cJSON *fp = cJSON_AddObjectToObject(o, "fast_p");
	for (int p = 0; p < KF_LB_N_FAST_P; p++) {
		snprintf(key, sizeof key, "%g", kf_lb_fast_p_thresholds[p]);
		kf_report_json_num(fp, key, s->fast_p[p]);
	}
	kf_report_json_num(o, "geomean_speedup", s->geomean_speedup);
	kf_report_json_num(o, "mean_sol_fraction", s->mean_sol_fraction);
	kf_report_json_num(o, "mean_sol_score", s->mean_sol_score);
	kf_report_json_num(o, "pass_at_1", s->pass_at_1);
	kf_report_json_num(o, "pass_at_k", s->pass_at_k);
	cJSON_AddNumberToObject(o, "k", s->k);
	kf_report_json_num(o, "tokens", s->tokens);
	kf_report_json_num(o, "cost_usd", s->cost_usd);
	return o;
}

static cJSON *group_json(const struct kf_leaderboard *lb, const struct kf_lb_group *g)
{
	cJSON *o = cJSON_CreateObject();
	kf_buf title = KF_BUF_INIT;
	kf_report_group_title(lb, g, &title);
	kf_report_json_str(o, "backend", g->backend);
	kf_report_json_str(o, "device", g->device);
	kf_report_json_str(o, "title", title.data);
	kf_buf_free(&title);
	cJSON *tc = cJSON_AddObjectToObject(o, "toolchain");
	cJSON_AddItemToObject(tc, "compilers", strings(&g->compilers));
	cJSON_AddItemToObject(tc, "driver_versions", strings(&g->driver_versions));
	cJSON_AddItemToObject(tc, "runtime_versions", strings(&g->runtime_versions));
	cJSON *tasks = cJSON_AddArrayToObject(o, "tasks");
	for (int c = 0; c < g->n_cells; c++) {
		cJSON *t = cJSON_CreateObject();
		kf_report_json_str(t, "task", g->cells[c].task);
		kf_report_json_str(t, "backend", g->cells[c].backend);
		kf_report_json_str(t, "device", g->cells[c].device);
		cJSON_AddItemToArray(tasks, t);
	}
	cJSON *rows = cJSON_AddArrayToObject(o, "rows");
	for (int i = 0; i < g->n_rows; i++)
		cJSON_AddItemToArray(rows, row_json(&g->rows[i]));
	cJSON *sums = cJSON_AddArrayToObject(o, "summaries");
	for (int i = 0; i < g->n_summaries; i++)
		cJSON_AddItemToArray(sums, summary_json(&g->summaries[i]));
	return o;
}

void kf_report_json(const struct kf_leaderboard *lb, const struct kf_report_opts *o, kf_buf *out)
{
	(void)o;
	cJSON *root = cJSON_CreateObject();
	kf_buf note = KF_BUF_INIT;
	kf_report_scope_note(lb, &note);
	cJSON_AddBoolToObject(root, "merged", lb->merged);
	kf_report_json_str(root, "scope", note.data);
	kf_buf_free(&note);
	cJSON_AddItemToObject(root, "fast_p_thresholds", cJSON_CreateDoubleArray(kf_lb_fast_p_thresholds, KF_LB_N_FAST_P));
	cJSON *groups = cJSON_AddArrayToObject(root, "groups");
	for (int i = 0; i < lb->n_groups; i++)
		cJSON_AddItemToArray(groups, group_json(lb, &lb->groups[i]));
	cJSON *formulas = cJSON_AddObjectToObject(root, "formulas");
	for (int i = 0; i < KF_LB_N_FORMULAS; i++)
		cJSON_AddStringToObject(formulas, kf_lb_formulas[i].name, kf_lb_formulas[i].text);
	char *text = cJSON_Print(root);
	if (!text) { /* like kf_xmalloc: nothing useful can follow */
		fputs("kforge: out of memory printing the leaderboard\n", stderr);
		abort();
	}
	kf_buf_adds(out, text);
	kf_buf_adds(out, "\n");
	cJSON_free(text);
	cJSON_Delete(root);
}
