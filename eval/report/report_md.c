/* Markdown leaderboard (GitHub tables): per group a heading naming backend and device, the toolchain,
 * the per-source summary and the per-task rows; the formulas at the end. Cells are escaped so a name
 * cannot break a table or smuggle in HTML, and read the same as plain text: "|", "<" and "\\" get a
 * backslash (no tag can open), everything else, ">=" included, stays as written. Counts (tokens) are
 * whole numbers. */
#include <math.h>
#include <stdio.h>

#include "eval/report/report.h"

#define NULL_CELL "-"
#define FAST_P_NAME_MAX 32

static void text(kf_buf *b, const char *s)
{
	for (const char *p = s; *p; p++) {
		switch (*p) {
		case '|': kf_buf_adds(b, "\\|"); break;
		case '<': kf_buf_adds(b, "\\<"); break;
		case '\\': kf_buf_adds(b, "\\\\"); break; /* else "\\<b>" would escape the backslash, not the tag */
		case '\n':
		case '\r': kf_buf_adds(b, " "); break;
		default: kf_buf_add(b, p, 1);
		}
	}
}

static void cell_text(kf_buf *b, const char *s)
{
	kf_buf_adds(b, " ");
	text(b, s);
	kf_buf_adds(b, " |");
}

static void cell_num(kf_buf *b, double x)
{
	kf_buf_adds(b, " ");
	kf_report_num(b, x, KF_REPORT_HUMAN_DIGITS, NULL_CELL);
	kf_buf_adds(b, " |");
}

static void cell_count(kf_buf *b, double x)
{
	if (isfinite(x))
		kf_buf_addf(b, " %.0f |", x);
	else
		cell_num(b, x);
}

static void header(kf_buf *b, const char *const *names, int n_text, int n)
{
	kf_buf_adds(b, "|");
	for (int i = 0; i < n; i++)
		kf_buf_addf(b, " %s |", names[i]);
	kf_buf_adds(b, "\n|");
	for (int i = 0; i < n; i++)
		kf_buf_adds(b, i < n_text ? " --- |" : " ---: |");
	kf_buf_adds(b, "\n");
}

static void summaries(const struct kf_lb_group *g, kf_buf *b)
{
	static const char *const before[] = { "source", "correct" };
	static const char *const after[] = { "geomean speedup", "mean SOL fraction", "mean SOL score", "pass@1",
					     "pass@k", "k", "tokens", "cost (USD)" };
	char fast[KF_LB_N_FAST_P][FAST_P_NAME_MAX];
	const char *names[sizeof before / sizeof before[0] + KF_LB_N_FAST_P + sizeof after / sizeof after[0]];
	int n = 0;
	for (size_t i = 0; i < sizeof before / sizeof before[0]; i++)
		names[n++] = before[i];
	for (int p = 0; p < KF_LB_N_FAST_P; p++) {
		kf_report_fast_p_name(p, fast[p], sizeof fast[p]);
		names[n++] = fast[p];
	}
	for (size_t i = 0; i < sizeof after / sizeof after[0]; i++)
		names[n++] = after[i];
	kf_buf_addf(b, "### Summary (%d task%s in scope)\n\n", g->n_cells, g->n_cells == 1 ? "" : "s");
	header(b, names, 1, n);
	for (int i = 0; i < g->n_summaries; i++) {
		const struct kf_lb_summary *s = &g->summaries[i];
		kf_buf_adds(b, "|");
		cell_text(b, s->source);
		kf_buf_addf(b, " %d/%d |", s->n_correct, s->n_tasks);
		for (int p = 0; p < KF_LB_N_FAST_P; p++)
			cell_num(b, s->fast_p[p]);
		cell_num(b, s->geomean_speedup);
		cell_num(b, s->mean_sol_fraction);
		cell_num(b, s->mean_sol_score);
		cell_num(b, s->pass_at_1);
		cell_num(b, s->pass_at_k);
		kf_buf_addf(b, " %d |", s->k);
		cell_count(b, s->tokens);
		cell_num(b, s->cost_usd);
		kf_buf_adds(b, "\n");
	}
}

static void rows(const struct kf_leaderboard *lb, const struct kf_lb_group *g, kf_buf *b)
{
	static const char *const names[] = { "source", "task", "verdict", "time (ms)", "ref (ms)", "vendor (ms)",
					     "speedup", "vendor speedup", "SOL fraction", "SOL score", "candidates",
					     "correct" };
	const int n_text = 3;
	kf_buf label = KF_BUF_INIT;
	kf_buf_adds(b, "### Per task\n\n");
	header(b, names, n_text, (int)(sizeof names / sizeof names[0]));
	for (int i = 0; i < g->n_rows; i++) {
		const struct kf_lb_row *r = &g->rows[i];
		kf_buf_reset(&label);
		kf_report_cell_label(lb, &g->cells[i % g->n_cells], &label);
		kf_buf_adds(b, "|");
		cell_text(b, r->source);
		cell_text(b, label.data);
		cell_text(b, kf_report_verdict(r));
		const double nums[] = { r->time_ms,	   r->ref_time_ms,  r->vendor_time_ms, r->speedup,
					r->vendor_speedup, r->sol_fraction, r->sol_score };
		for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
			cell_num(b, nums[k]);
		kf_buf_addf(b, " %d | %d |\n", r->n_candidates, r->n_correct);
	}
	kf_buf_free(&label);
}

void kf_report_md(const struct kf_leaderboard *lb, const struct kf_report_opts *o, kf_buf *out)
{
	(void)o;
	kf_buf line = KF_BUF_INIT;
	kf_buf_adds(out, "# kforge leaderboard\n\n");
	kf_report_scope_note(lb, &line);
	text(out, line.data);
	kf_buf_adds(out, "\n\n");
	for (int i = 0; i < lb->n_groups; i++) {
		const struct kf_lb_group *g = &lb->groups[i];
		kf_buf_reset(&line);
		kf_report_group_title(lb, g, &line);
		kf_buf_addf(out, "## Group %d: ", i + 1);
		text(out, line.data);
		kf_buf_adds(out, "\n\nToolchain: ");
		kf_buf_reset(&line);
		kf_report_toolchain(g, &line);
		text(out, line.data);
		kf_buf_adds(out, ".\n\n");
		summaries(g, out);
		kf_buf_adds(out, "\n");
		rows(lb, g, out);
		kf_buf_adds(out, "\n");
	}
	kf_buf_adds(out, "## Formulas\n\n");
	for (int i = 0; i < KF_LB_N_FORMULAS; i++) {
		kf_buf_addf(out, "- **%s**: ", kf_lb_formulas[i].name);
		text(out, kf_lb_formulas[i].text);
		kf_buf_adds(out, "\n");
	}
	kf_buf_free(&line);
}
