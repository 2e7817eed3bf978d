/* Leaderboard reports: one writer per output format (eval/report_<format>.c) turning a built
 * kf_leaderboard into text, and the export of selected kernels to a directory (report_export.c).
 * The wording and number formatting the formats share live in report.c; no writer computes a
 * number of its own beyond placing it on a chart. */
#ifndef KF_REPORT_H
#define KF_REPORT_H

#include <cJSON.h>
#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"
#include "db/store.h"
#include "eval/report/leaderboard.h"

/* Significant digits: machine formats (CSV, JSON) keep enough to recompute every ratio; the
 * human formats (Markdown, HTML cells and charts) are for reading. */
#define KF_REPORT_EXACT_DIGITS 9
#define KF_REPORT_HUMAN_DIGITS 4

/* CSV is one table per file: the per-task rows or the per-source summaries. */
enum kf_report_table { KF_REPORT_ROWS, KF_REPORT_SUMMARIES };

struct kf_report_opts {
	enum kf_report_table table; /* csv only */
};

typedef void (*kf_report_writer)(const struct kf_leaderboard *lb, const struct kf_report_opts *o, kf_buf *out);

void kf_report_csv(const struct kf_leaderboard *lb, const struct kf_report_opts *o, kf_buf *out);
void kf_report_json(const struct kf_leaderboard *lb, const struct kf_report_opts *o, kf_buf *out);
void kf_report_md(const struct kf_leaderboard *lb, const struct kf_report_opts *o, kf_buf *out);
void kf_report_html(const struct kf_leaderboard *lb, const struct kf_report_opts *o, kf_buf *out);

/* The writer of a format name ("csv", "json", "md", "html"); NULL for any other name. */
kf_report_writer kf_report_find(const char *format);
#define KF_REPORT_FORMATS "csv|json|md|html"

/* Writes every selected kernel's source to dir/<task>.<c|cu> (dir/<source>/<device>/<task>.<ext> when
 * two selected kernels would share a name) and dir/candidates.jsonl, one record per evaluated
 * candidate of lb (by submission id). Sources are read from s. *n_files_out: kernels written. */
int kf_report_export(struct kf_store *s, const struct kf_leaderboard *lb, const char *dir, int *n_files_out,
		     kf_err *err);

/* ---- shared by the writers ---- */

/* x with `digits` significant digits ("%.*g"), or null_text when x is NAN or infinite. */
void kf_report_num(kf_buf *b, double x, int digits, const char *null_text);
/* x rounded to `digits` significant digits (NAN stays NAN): what a JSON number holds. */
double kf_report_round(double x, int digits);
/* Adds name: x (rounded to KF_REPORT_EXACT_DIGITS) or null; name: s or null. */
void kf_report_json_num(cJSON *o, const char *name, double x);
void kf_report_json_str(cJSON *o, const char *name, const char *s);
/* "fast_0.5" for threshold index p. */
void kf_report_fast_p_name(int p, char *out, size_t len);
/* "cpu on <device>", or for a merged leaderboard "merged: <backends> on <devices>". */
void kf_report_group_title(const struct kf_leaderboard *lb, const struct kf_lb_group *g, kf_buf *b);
/* One sentence saying how groups were formed (never merged unless --merge). */
void kf_report_scope_note(const struct kf_leaderboard *lb, kf_buf *b);
/* "compiler <c>; CUDA driver <d>; CUDA runtime <r>" ("not recorded" where nothing was; no CUDA parts
 * for a group without the cuda backend). */
void kf_report_toolchain(const struct kf_lb_group *g, kf_buf *b);
/* A cell's name on a table or chart: the task, plus backend and device when merged. */
void kf_report_cell_label(const struct kf_leaderboard *lb, const struct kf_lb_cell *c, kf_buf *b);
/* The verdict column's text: the verdict, or "no candidate". */
const char *kf_report_verdict(const struct kf_lb_row *r);

#endif
