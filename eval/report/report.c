/* What the report writers share (see report.h): the format table, number formatting, and the
 * sentences every format prints about groups and toolchains, so all formats say the same thing. */
#include "eval/report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOT_RECORDED "not recorded"
#define NO_CANDIDATE "no candidate"
#define BACKEND_CUDA "cuda"

static const struct {
	const char *name;
	kf_report_writer write;
} formats[] = {
	{ "csv", kf_report_csv },
	{ "json", kf_report_json },
	{ "md", kf_report_md },
	{ "html", kf_report_html },
};

kf_report_writer kf_report_find(const char *format)
{
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (!strcmp(formats[i].name, format))
			return formats[i].write;
	return NULL;
}

void kf_report_num(kf_buf *b, double x, int digits, const char *null_text)
{
	if (!isfinite(x))
		kf_buf_adds(b, null_text);
	else
		kf_buf_addf(b, "%.*g", digits, x);
}

double kf_report_round(double x, int digits)
{
	char text[64];
	if (!isfinite(x))
		return x;
	snprintf(text, sizeof text, "%.*g", digits, x);
	return strtod(text, NULL);
}

void kf_report_json_num(cJSON *o, const char *name, double x)
{
	x = kf_report_round(x, KF_REPORT_EXACT_DIGITS);
	if (isfinite(x))
		cJSON_AddNumberToObject(o, name, x);
	else
		cJSON_AddNullToObject(o, name);
}

void kf_report_json_str(cJSON *o, const char *name, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, name, s);
	else
		cJSON_AddNullToObject(o, name);
}

void kf_report_fast_p_name(int p, char *out, size_t len)
{
	snprintf(out, len, "fast_%g", kf_lb_fast_p_thresholds[p]);
}

void kf_report_group_title(const struct kf_leaderboard *lb, const struct kf_lb_group *g, kf_buf *b)
{
	kf_buf_addf(b, "%s%s on %s", lb->merged ? "merged: " : "", g->backend, g->device);
}

void kf_report_scope_note(const struct kf_leaderboard *lb, kf_buf *b)
{
	if (lb->merged)
		kf_buf_adds(b, "Merged on request (--merge): every backend and device is pooled into one ranking, whose "
			       "tasks are (task, backend, device) triples; times from different devices are not comparable.");
	else
		kf_buf_addf(b, "%d group%s, one per (backend, device), each ranked on its own: numbers from different "
			       "backends or devices are never merged unless --merge is given.",
			    lb->n_groups, lb->n_groups == 1 ? "" : "s");
}

static void add_list(kf_buf *b, const char *what, const struct kf_lb_strings *s)
{
	kf_buf_addf(b, "%s ", what);
	if (s->n == 0)
		kf_buf_adds(b, NOT_RECORDED);
	for (int i = 0; i < s->n; i++)
		kf_buf_addf(b, "%s%s", i ? ", " : "", s->items[i]);
}

void kf_report_toolchain(const struct kf_lb_group *g, kf_buf *b)
{
	add_list(b, "compiler", &g->compilers);
	/* A CPU group has no driver to name; a GPU group without one says so. */
	if (g->driver_versions.n || strstr(g->backend, BACKEND_CUDA))
		add_list(b, "; CUDA driver", &g->driver_versions);
	if (g->runtime_versions.n || strstr(g->backend, BACKEND_CUDA))
		add_list(b, "; CUDA runtime", &g->runtime_versions);
}

void kf_report_cell_label(const struct kf_leaderboard *lb, const struct kf_lb_cell *c, kf_buf *b)
{
	if (lb->merged)
		kf_buf_addf(b, "%s (%s, %s)", c->task, c->backend, c->device);
	else
		kf_buf_adds(b, c->task);
}

const char *kf_report_verdict(const struct kf_lb_row *r)
{
	return r->verdict ? r->verdict : NO_CANDIDATE;
}
