/* HTML leaderboard: ONE self-contained page (inline CSS, inline JS, inline SVG; nothing fetched) with,
 * per group, the device and toolchain, sortable summary and per-task tables, a fast_p-vs-p chart
 * (circle.kf-point per source and p) and a SOL-fraction bar chart (rect.kf-bar per selected kernel
 * with a SOL fraction), each chart with a visible title (.kf-chart-title) and an SVG <title>. The
 * page fits a window down to 800 px wide: the summary table wraps its headers and source names
 * instead of scrolling, and a chart wider than its column scales down (viewBox) instead of
 * overflowing it; the SOL chart's bars narrow to fit and its margins grow to hold its longest task
 * label. Every string from the database is escaped. */
#include <math.h>
#include <stdio.h>

#include "eval/report/report.h"

#define NULL_CELL "-"
#define FAST_P_NAME_MAX 32

/* Chart geometry, in SVG user units. */
#define CHART_H 280.0
#define CHART_TOP 16.0
#define CHART_LEFT 52.0
#define CHART_RIGHT 16.0
#define FASTP_W 480.0
#define FASTP_BOTTOM 44.0
#define POINT_R 4.0
#define SOL_PLOT_BOTTOM 96.0 /* keeps the plot as tall as it always was; the margin below it varies */
#define SOL_BOTTOM_MIN 40.0
#define SOL_MIN_W 320.0
#define SOL_MAX_W 1100.0  /* the page's column at its widest; bars narrow to fit within it */
#define BAR_W 14.0
#define BAR_W_MIN 3.0
#define BAR_GAP 2.0
#define CELL_GAP 20.0
#define CELL_GAP_MIN 6.0
#define LABEL_ANGLE_DEG (-35.0)
#define LABEL_CHAR_W 6.6  /* an upper bound on the advance of one 11px character */
#define LABEL_PAD 8.0
#define Y_TICKS 4 /* gridlines at 0, 1/4, ... 1 */
#define TEXT_GAP 6.0      /* between an axis and its labels */
#define TEXT_BASELINE 4.0 /* lowers a label's baseline to centre 11px text on its gridline */
#define X_LABEL_DROP 16.0 /* from the x axis down to the tick labels' baseline */
#define CELL_LABEL_DROP 14.0

/* Tableau 10: distinguishable, colour-blind aware; sources cycle through it. */
static const char *const palette[] = { "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
				       "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac" };
#define N_PALETTE ((int)(sizeof palette / sizeof palette[0]))

static const char style[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:1200px;"
	"padding:0 16px;color:#1d2330}\n"
	"h4.kf-chart-title{font-size:14px;margin:0 0 4px}\n"
	"h1{font-size:24px}h2{font-size:19px;margin-top:36px;border-bottom:1px solid #d8dce4}h3{font-size:15px}\n"
	".scope,.toolchain{color:#3d4557}.scroll{overflow-x:auto}\n"
	"table{border-collapse:collapse;margin:8px 0 16px;font-variant-numeric:tabular-nums}\n"
	"th,td{padding:3px 8px;border-bottom:1px solid #e6e8ee;text-align:left;white-space:nowrap}\n"
	"table.summary th,table.summary td.src{white-space:normal}table.summary td.src{min-width:10em}\n"
	"table.summary th,table.summary td{padding:3px 5px}\n"
	"td.num,th.num{text-align:right}\n"
	"th{cursor:pointer;user-select:none;background:#f3f5f9}\n"
	"th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' \\25BC'}\n"
	".v-ok{color:#1f7a3a}.v-bad{color:#b3261e}.v-none{color:#8a90a0}\n"
	".charts{display:flex;flex-wrap:wrap;gap:24px}figure{margin:0;min-width:0;max-width:100%}"
	"figcaption{color:#3d4557;max-width:480px}\n"
	"svg.kf-chart{display:block;max-width:100%;height:auto}\n"
	".kf-chart text{font:11px system-ui,sans-serif;fill:#3d4557}.kf-chart .grid{stroke:#e6e8ee}\n"
	".kf-chart .axis{stroke:#8a90a0}\n"
	".legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:16px}\n"
	".swatch{display:inline-block;width:12px;height:12px;margin-right:6px;vertical-align:-1px;border-radius:2px}\n"
	"dt{font-weight:600}dd{margin:0 0 8px 16px}\n";

/* Click (or Enter on) a header to sort its table; numbers sort by data-v, missing values last. */
static const char script[] =
	"(function () {\n"
	"  'use strict';\n"
	"  function key(cell) {\n"
	"    var v = cell.getAttribute('data-v');\n"
	"    if (v === null) return cell.textContent;\n"
	"    return v === '' ? null : parseFloat(v);\n"
	"  }\n"
	"  function sortBy(table, th, col) {\n"
	"    var asc = th.getAttribute('aria-sort') !== 'ascending';\n"
	"    Array.prototype.forEach.call(th.parentNode.cells, function (h) { h.removeAttribute('aria-sort'); });\n"
	"    th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');\n"
	"    var body = table.tBodies[0];\n"
	"    var rows = Array.prototype.slice.call(body.rows);\n"
	"    rows.sort(function (a, b) {\n"
	"      var x = key(a.cells[col]), y = key(b.cells[col]);\n"
	"      if (x === null || y === null) return (x === null) - (y === null);\n"
	"      var d = typeof x === 'number' ? x - y : String(x).localeCompare(String(y));\n"
	"      return asc ? d : -d;\n"
	"    });\n"
	"    rows.forEach(function (r) { body.appendChild(r); });\n"
	"  }\n"
	"  document.querySelectorAll('table.sortable').forEach(function (table) {\n"
	"    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {\n"
	"      th.addEventListener('click', function () { sortBy(table, th, col); });\n"
	"      th.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') sortBy(table, th, col); });\n"
	"    });\n"
	"  });\n"
	"})();\n";

static void esc(kf_buf *b, const char *s)
{
	for (const char *p = s; *p; p++) {
		switch (*p) {
		case '&': kf_buf_adds(b, "&amp;"); break;
		case '<': kf_buf_adds(b, "&lt;"); break;
		case '>': kf_buf_adds(b, "&gt;"); break;
		case '"': kf_buf_adds(b, "&quot;"); break;
		case '\'': kf_buf_adds(b, "&#39;"); break;
		default: kf_buf_add(b, p, 1);
		}
	}
}

static const char *color(int source_index)
{
	return palette[source_index % N_PALETTE];
}

/* ---- tables ---- */

static void th(kf_buf *b, const char *name, bool numeric)
{
	kf_buf_addf(b, "<th tabindex=\"0\"%s>", numeric ? " class=\"num\"" : "");
	esc(b, name);
	kf_buf_adds(b, "</th>");
}

static void td_text(kf_buf *b, const char *s)
{
	kf_buf_adds(b, "<td>");
	esc(b, s);
	kf_buf_adds(b, "</td>");
}

static void td_num(kf_buf *b, double x)
{
	kf_buf_adds(b, "<td class=\"num\" data-v=\"");
	kf_report_num(b, x, KF_REPORT_EXACT_DIGITS, "");
	kf_buf_adds(b, "\">");
	kf_report_num(b, x, KF_REPORT_HUMAN_DIGITS, NULL_CELL);
	kf_buf_adds(b, "</td>");
}

/* A count too large for td_int's int (tokens): printed whole, never as 1.224e+04. */
static void td_count(kf_buf *b, double x)
{
	if (!isfinite(x)) {
		td_num(b, x);
		return;
	}
	kf_buf_addf(b, "<td class=\"num\" data-v=\"%.0f\">%.0f</td>", x, x);
}

static void td_int(kf_buf *b, int v)
{
	kf_buf_addf(b, "<td class=\"num\" data-v=\"%d\">%d</td>", v, v);
}

static void source_cell(kf_buf *b, const char *source, int index)
{
	kf_buf_addf(b, "<td class=\"src\"><span class=\"swatch\" style=\"background:%s\"></span>", color(index));
	esc(b, source);
	kf_buf_adds(b, "</td>");
}

static void summary_table(const struct kf_lb_group *g, kf_buf *b)
{
	static const char *const after[] = { "geomean speedup", "mean SOL fraction", "mean SOL score", "pass@1",
					     "pass@k", "k", "tokens", "cost (USD)" };
	char name[FAST_P_NAME_MAX];
	kf_buf_addf(b, "<h3>Summary (%d task%s in scope)</h3>\n"
		       "<div class=\"scroll\"><table class=\"sortable summary\">\n<thead><tr>",
		    g->n_cells, g->n_cells == 1 ? "" : "s");
	th(b, "source", false);
	th(b, "correct", true);
	for (int p = 0; p < KF_LB_N_FAST_P; p++) {
		kf_report_fast_p_name(p, name, sizeof name);
		th(b, name, true);
	}
	for (size_t i = 0; i < sizeof after / sizeof after[0]; i++)
		th(b, after[i], true);
	kf_buf_adds(b, "</tr></thead>\n<tbody>\n");
	for (int i = 0; i < g->n_summaries; i++) {
		const struct kf_lb_summary *s = &g->summaries[i];
		kf_buf_adds(b, "<tr>");
		source_cell(b, s->source, i);
		kf_buf_addf(b, "<td class=\"num\" data-v=\"%d\">%d/%d</td>", s->n_correct, s->n_correct, s->n_tasks);
		for (int p = 0; p < KF_LB_N_FAST_P; p++)
			td_num(b, s->fast_p[p]);
		td_num(b, s->geomean_speedup);
		td_num(b, s->mean_sol_fraction);
		td_num(b, s->mean_sol_score);
		td_num(b, s->pass_at_1);
		td_num(b, s->pass_at_k);
		td_int(b, s->k);
		td_count(b, s->tokens);
		td_num(b, s->cost_usd);
		kf_buf_adds(b, "</tr>\n");
	}
	kf_buf_adds(b, "</tbody>\n</table></div>\n");
}

static void rows_table(const struct kf_leaderboard *lb, const struct kf_lb_group *g, kf_buf *b)
{
	static const char *const numeric[] = { "time (ms)",	 "ref (ms)",  "vendor (ms)",  "speedup",
					       "vendor speedup", "SOL fraction", "SOL score", "candidates",
					       "correct" };
	kf_buf label = KF_BUF_INIT;
	kf_buf_adds(b, "<h3>Per task</h3>\n<div class=\"scroll\"><table class=\"sortable rows\">\n<thead><tr>");
	th(b, "source", false);
	th(b, "task", false);
	th(b, "verdict", false);
	for (size_t i = 0; i < sizeof numeric / sizeof numeric[0]; i++)
		th(b, numeric[i], true);
	kf_buf_adds(b, "</tr></thead>\n<tbody>\n");
	for (int i = 0; i < g->n_rows; i++) {
		const struct kf_lb_row *r = &g->rows[i];
		kf_buf_reset(&label);
		kf_report_cell_label(lb, &g->cells[i % g->n_cells], &label);
		kf_buf_adds(b, "<tr>");
		source_cell(b, r->source, i / g->n_cells);
		td_text(b, label.data);
		kf_buf_addf(b, "<td class=\"%s\">", !r->verdict ? "v-none" : r->selected ? "v-ok" : "v-bad");
		esc(b, kf_report_verdict(r));
		kf_buf_adds(b, "</td>");
		const double nums[] = { r->time_ms,	   r->ref_time_ms,  r->vendor_time_ms, r->speedup,
					r->vendor_speedup, r->sol_fraction, r->sol_score };
		for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
			td_num(b, nums[k]);
		td_int(b, r->n_candidates);
		td_int(b, r->n_correct);
		kf_buf_adds(b, "</tr>\n");
	}
	kf_buf_adds(b, "</tbody>\n</table></div>\n");
	kf_buf_free(&label);
}

/* ---- charts ---- */

/* Gridlines and labels of the 0..1 value axis, whose plot starts at x = left. */
static void y_axis(kf_buf *b, double left, double width, double plot_h)
{
	for (int t = 0; t <= Y_TICKS; t++) {
		double v = (double)t / Y_TICKS, y = CHART_TOP + (1.0 - v) * plot_h;
		kf_buf_addf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", left, y,
			    width - CHART_RIGHT, y);
		kf_buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", left - TEXT_GAP,
			    y + TEXT_BASELINE, v);
	}
	kf_buf_addf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", left,
		    CHART_TOP + plot_h, width - CHART_RIGHT, CHART_TOP + plot_h);
}

/* A chart's opening: the visible title, then the SVG with the same title as its accessible name. */
static void chart_open(kf_buf *b, const char *kind, const char *title, double width, double height)
{
	kf_buf_addf(b, "<figure>\n<h4 class=\"kf-chart-title\">%s</h4>\n<svg class=\"kf-chart %s\" "
		       "xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		       "role=\"img\" aria-label=\"%s\"><title>%s</title>\n",
		    title, kind, width, height, width, height, title, title);
}

static void fast_p_chart(const struct kf_lb_group *g, kf_buf *b)
{
	const double plot_w = FASTP_W - CHART_LEFT - CHART_RIGHT, plot_h = CHART_H - CHART_TOP - FASTP_BOTTOM;
	const double p_max = kf_lb_fast_p_thresholds[KF_LB_N_FAST_P - 1];
	double x[KF_LB_N_FAST_P];
	char name[FAST_P_NAME_MAX];
	chart_open(b, "kf-fastp", "fast_p against p", FASTP_W, CHART_H);
	y_axis(b, CHART_LEFT, FASTP_W, plot_h);
	for (int p = 0; p < KF_LB_N_FAST_P; p++) {
		x[p] = CHART_LEFT + kf_lb_fast_p_thresholds[p] / p_max * plot_w;
		kf_buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>", x[p],
			    CHART_TOP + plot_h + X_LABEL_DROP, kf_lb_fast_p_thresholds[p]);
	}
	kf_buf_addf(b, "\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">p (speedup over the reference)</text>\n",
		    CHART_LEFT + plot_w / 2, CHART_H - TEXT_GAP);
	for (int s = 0; s < g->n_summaries; s++) {
		const struct kf_lb_summary *sum = &g->summaries[s];
		kf_buf_addf(b, "<polyline class=\"kf-line\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
			    color(s));
		for (int p = 0; p < KF_LB_N_FAST_P; p++)
			kf_buf_addf(b, "%s%.1f,%.1f", p ? " " : "", x[p], CHART_TOP + (1.0 - sum->fast_p[p]) * plot_h);
		kf_buf_adds(b, "\"/>\n");
		for (int p = 0; p < KF_LB_N_FAST_P; p++) {
			kf_report_fast_p_name(p, name, sizeof name);
			kf_buf_addf(b, "<circle class=\"kf-point\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.0f\" fill=\"%s\"><title>", x[p],
				    CHART_TOP + (1.0 - sum->fast_p[p]) * plot_h, POINT_R, color(s));
			esc(b, sum->source);
			kf_buf_addf(b, ": %s = ", name);
			kf_report_num(b, sum->fast_p[p], KF_REPORT_HUMAN_DIGITS, NULL_CELL);
			kf_buf_adds(b, "</title></circle>\n");
		}
	}
	kf_buf_addf(b, "</svg>\n<figcaption>fast_p against p: the share of the %d task%s in scope whose selected "
		       "kernel is correct and more than p times faster than the reference.</figcaption>\n</figure>\n",
		    g->n_cells, g->n_cells == 1 ? "" : "s");
}

static void sol_bar(kf_buf *b, const struct kf_lb_row *r, const char *label, int s, double x, double bar_w,
		    double plot_h)
{
	double v = r->sol_fraction < 1.0 ? r->sol_fraction : 1.0; /* above 1 only within noise; drawn full */
	double h = v > 0 ? v * plot_h : 0;
	kf_buf_addf(b, "<rect class=\"kf-bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>", x,
		    CHART_TOP + plot_h - h, bar_w, h, color(s));
	esc(b, r->source);
	kf_buf_adds(b, " / ");
	esc(b, label);
	kf_buf_adds(b, ": SOL fraction ");
	kf_report_num(b, r->sol_fraction, KF_REPORT_HUMAN_DIGITS, NULL_CELL);
	kf_buf_adds(b, "</title></rect>\n");
}

/* Where the SOL chart's parts go: one slot per cell holding a bar per source. */
struct sol_layout {
	double left, bottom, slot, gap, bar_w, width, height;
};

/* Bars as wide as BAR_W while the chart fits SOL_MAX_W, narrower (down to BAR_W_MIN) beyond it; the
 * left and bottom margins hold the longest task label, which the rotation lays down and to the left. */
static void sol_layout(const struct kf_leaderboard *lb, const struct kf_lb_group *g, double plot_h, struct sol_layout *l)
{
	const double angle = fabs(LABEL_ANGLE_DEG) * M_PI / 180.0;
	const int n_src = g->n_summaries > 0 ? g->n_summaries : 1, n_cells = g->n_cells > 0 ? g->n_cells : 1;
	size_t longest = 0;
	kf_buf label = KF_BUF_INIT;
	for (int c = 0; c < g->n_cells; c++) {
		kf_buf_reset(&label);
		kf_report_cell_label(lb, &g->cells[c], &label);
		longest = label.len > longest ? label.len : longest;
	}
	kf_buf_free(&label);
	const double label_w = (double)longest * LABEL_CHAR_W;
	l->bottom = CELL_LABEL_DROP + label_w * sin(angle) + LABEL_PAD;
	l->bottom = l->bottom > SOL_BOTTOM_MIN ? l->bottom : SOL_BOTTOM_MIN;
	l->bar_w = BAR_W;
	l->gap = CELL_GAP;
	l->slot = n_src * (BAR_W + BAR_GAP) - BAR_GAP + CELL_GAP;
	for (int pass = 0; pass < 2; pass++) {
		/* The first label's anchor is the middle of the first slot; its text reaches label_w cos(angle) left. */
		double reach = label_w * cos(angle) + LABEL_PAD - l->slot / 2;
		l->left = CHART_LEFT > reach ? CHART_LEFT : reach;
		double fit = (SOL_MAX_W - l->left - CHART_RIGHT) / n_cells;
		if (pass == 1 || fit >= l->slot)
			break;
		l->gap = fit * CELL_GAP / l->slot;
		l->gap = l->gap > CELL_GAP_MIN ? l->gap : CELL_GAP_MIN;
		l->bar_w = (fit - l->gap + BAR_GAP) / n_src - BAR_GAP;
		l->bar_w = l->bar_w > BAR_W_MIN ? l->bar_w : BAR_W_MIN;
		l->slot = n_src * (l->bar_w + BAR_GAP) - BAR_GAP + l->gap;
	}
	l->width = l->left + g->n_cells * l->slot + CHART_RIGHT;
	l->width = l->width > SOL_MIN_W ? l->width : SOL_MIN_W;
	l->height = CHART_TOP + plot_h + l->bottom;
}

static void sol_chart(const struct kf_leaderboard *lb, const struct kf_lb_group *g, kf_buf *b)
{
	const double plot_h = CHART_H - CHART_TOP - SOL_PLOT_BOTTOM;
	struct sol_layout l;
	int n_bars = 0;
	kf_buf label = KF_BUF_INIT;
	sol_layout(lb, g, plot_h, &l);
	chart_open(b, "kf-sol", "SOL fraction per task", l.width, l.height);
	y_axis(b, l.left, l.width, plot_h);
	for (int c = 0; c < g->n_cells; c++) {
		double x0 = l.left + l.gap / 2 + c * l.slot;
		kf_buf_reset(&label);
		kf_report_cell_label(lb, &g->cells[c], &label);
		for (int s = 0; s < g->n_summaries; s++) {
			const struct kf_lb_row *r = &g->rows[s * g->n_cells + c];
			if (!r->selected || isnan(r->sol_fraction))
				continue;
			sol_bar(b, r, label.data, s, x0 + s * (l.bar_w + BAR_GAP), l.bar_w, plot_h);
			n_bars++;
		}
		double lx = x0 + (l.slot - l.gap) / 2, ly = CHART_TOP + plot_h + CELL_LABEL_DROP;
		kf_buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" transform=\"rotate(%g %.1f %.1f)\">", lx, ly,
			    LABEL_ANGLE_DEG, lx, ly);
		esc(b, label.data);
		kf_buf_adds(b, "</text>\n");
	}
	if (n_bars == 0)
		kf_buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\">no correct kernel with a SOL fraction</text>\n",
			    l.left + TEXT_GAP, CHART_TOP + plot_h / 2);
	kf_buf_adds(b, "</svg>\n<figcaption>SOL fraction (t_SOL / time; 1 is the speed of light) of each source's "
		       "selected kernel per task; no bar where no kernel is correct.</figcaption>\n</figure>\n");
	kf_buf_free(&label);
}

static void legend(const struct kf_lb_group *g, kf_buf *b)
{
	kf_buf_adds(b, "<ul class=\"legend\">");
	for (int s = 0; s < g->n_summaries; s++) {
		kf_buf_addf(b, "<li><span class=\"swatch\" style=\"background:%s\"></span>", color(s));
		esc(b, g->summaries[s].source);
		kf_buf_adds(b, "</li>");
	}
	kf_buf_adds(b, "</ul>\n");
}

/* ---- page ---- */

static void group_section(const struct kf_leaderboard *lb, const struct kf_lb_group *g, int index, kf_buf *b)
{
	kf_buf line = KF_BUF_INIT;
	kf_buf_addf(b, "<section class=\"group\" id=\"group-%d\" data-backend=\"", index + 1);
	esc(b, g->backend);
	kf_buf_adds(b, "\" data-device=\"");
	esc(b, g->device);
	kf_report_group_title(lb, g, &line);
	kf_buf_addf(b, "\">\n<h2>Group %d: ", index + 1);
	esc(b, line.data);
	kf_buf_adds(b, "</h2>\n<p class=\"toolchain\">Measured on <b>");
	esc(b, g->device);
	kf_buf_adds(b, "</b> (backend ");
	esc(b, g->backend);
	kf_buf_adds(b, "). Toolchain: ");
	kf_buf_reset(&line);
	kf_report_toolchain(g, &line);
	esc(b, line.data);
	kf_buf_adds(b, ".</p>\n");
	summary_table(g, b);
	kf_buf_adds(b, "<div class=\"charts\">\n");
	fast_p_chart(g, b);
	sol_chart(lb, g, b);
	kf_buf_adds(b, "</div>\n");
	legend(g, b);
	rows_table(lb, g, b);
	kf_buf_adds(b, "</section>\n");
	kf_buf_free(&line);
}

void kf_report_html(const struct kf_leaderboard *lb, const struct kf_report_opts *o, kf_buf *out)
{
	(void)o;
	kf_buf note = KF_BUF_INIT;
	kf_buf_addf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			 "<title>kforge leaderboard</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>\n%s</style>\n"
			 "</head>\n<body>\n<h1>kforge leaderboard</h1>\n<p class=\"scope\">",
		    style);
	kf_report_scope_note(lb, &note);
	esc(out, note.data);
	kf_buf_adds(out, "</p>\n");
	if (lb->n_groups > 1) {
		kf_buf_adds(out, "<nav><ol>");
		for (int i = 0; i < lb->n_groups; i++) {
			kf_buf_reset(&note);
			kf_report_group_title(lb, &lb->groups[i], &note);
			kf_buf_addf(out, "<li><a href=\"#group-%d\">", i + 1);
			esc(out, note.data);
			kf_buf_adds(out, "</a></li>");
		}
		kf_buf_adds(out, "</ol></nav>\n");
	}
	for (int i = 0; i < lb->n_groups; i++)
		group_section(lb, &lb->groups[i], i, out);
	kf_buf_adds(out, "<section id=\"formulas\">\n<h2>Formulas</h2>\n<dl>\n");
	for (int i = 0; i < KF_LB_N_FORMULAS; i++) {
		kf_buf_adds(out, "<dt>");
		esc(out, kf_lb_formulas[i].name);
		kf_buf_adds(out, "</dt><dd>");
		esc(out, kf_lb_formulas[i].text);
		kf_buf_adds(out, "</dd>\n");
	}
	kf_buf_addf(out, "</dl>\n</section>\n<script>\n%s</script>\n</body>\n</html>\n", script);
	kf_buf_free(&note);
}
