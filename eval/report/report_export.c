/* Export of a leaderboard to a directory: every selected kernel's source as a file a compiler takes as
 * is, and candidates.jsonl with one record per evaluated candidate. File names come from database
 * strings, so every path component is reduced to a safe character set before it touches the disk. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "eval/report/report.h"

#define JSONL_NAME "candidates.jsonl"
#define SLUG_MAX 96 /* bytes of one path component taken from a name */
#define BACKEND_CUDA "cuda"

/* Ways to name a selected kernel's file, tried in order until no two kernels share a name. */
enum naming { NAME_FLAT, NAME_BY_SOURCE_DEVICE, NAME_WITH_ID, N_NAMINGS };

/* Letters, digits and _+- are kept; anything else (slashes and dots included) becomes '_', so a
 * component is never "..", hidden, or more than one component. */
static void slug(kf_buf *b, const char *s)
{
	size_t n = 0;
	for (const char *p = s; *p && n < SLUG_MAX; p++, n++) {
		char c = *p;
		bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
			    c == '+' || c == '-';
		kf_buf_add(b, keep ? &c : "_", 1);
	}
	if (n == 0)
		kf_buf_adds(b, "_");
}

static void file_name(const struct kf_lb_eval *e, enum naming how, kf_buf *b)
{
	kf_buf_reset(b);
	if (how != NAME_FLAT) {
		slug(b, e->source);
		kf_buf_adds(b, "/");
		slug(b, e->device);
		kf_buf_adds(b, "/");
	}
	slug(b, e->task);
	if (how == NAME_WITH_ID)
		kf_buf_addf(b, ".%lld", (long long)e->submission_id);
	kf_buf_adds(b, strcmp(e->backend, BACKEND_CUDA) == 0 ? ".cu" : ".c");
}

/* Names for sel[0..n); names[i] are owned. Every kernel starts with the flat name; only those whose
 * name another kernel shares move to the next naming, until none is shared (NAME_WITH_ID is unique
 * by construction: submission ids are). A nested name holds a '/', so it never meets a flat one. */
static void choose_names(const struct kf_lb_eval *const *sel, int n, char **names)
{
	enum naming *how = kf_xcalloc((size_t)(n ? n : 1), sizeof *how);
	bool *shared = kf_xcalloc((size_t)(n ? n : 1), sizeof *shared);
	kf_buf b = KF_BUF_INIT;
	for (bool again = true; again;) {
		for (int i = 0; i < n; i++) {
			free(names[i]);
			file_name(sel[i], how[i], &b);
			names[i] = kf_xstrdup(b.data);
			shared[i] = false;
		}
		again = false;
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				if (!strcmp(names[i], names[j]))
					shared[i] = shared[j] = true;
		for (int i = 0; i < n; i++)
			if (shared[i] && how[i] + 1 < N_NAMINGS) {
				how[i]++;
				again = true;
			}
	}
	kf_buf_free(&b);
	free(shared);
	free(how);
}

static int read_source(sqlite3 *db, int64_t id, char **out, kf_err *err)
{
	sqlite3_stmt *st;
	int ret = KF_OK;
	if (sqlite3_prepare_v2(db, "SELECT source FROM candidates WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return kf_errf(err, KF_EINTERNAL, "reading the source of submission %lld: %s", (long long)id,
			       sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		*out = kf_xstrdup((const char *)sqlite3_column_text(st, 0));
	else
		ret = kf_errf(err, KF_EINTERNAL, "reading the source of submission %lld: %s", (long long)id,
			      sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return ret;
}

static int write_kernel(sqlite3 *db, const char *dir, const struct kf_lb_eval *e, const char *name, kf_err *err)
{
	char path[PATH_MAX];
	char *source = NULL;
	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
		return kf_errf(err, KF_EINPUT, "export path too long under %s", dir);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	int ret = kf_mkdir_p(path, err);
	*slash = '/';
	if (ret == KF_OK)
		ret = read_source(db, e->submission_id, &source, err);
	if (ret == KF_OK)
		ret = kf_write_file(path, source, strlen(source), err);
	free(source);
	return ret;
}

static cJSON *record(const struct kf_lb_eval *e, const char *file)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "submission_id", (double)e->submission_id);
	cJSON_AddNumberToObject(o, "evaluation_id", (double)e->evaluation_id);
	kf_report_json_num(o, "run_id", e->run_id ? (double)e->run_id : NAN);
	kf_report_json_str(o, "task", e->task);
	kf_report_json_str(o, "source", e->source);
	kf_report_json_str(o, "backend", e->backend);
	kf_report_json_str(o, "device", e->device);
	kf_report_json_str(o, "verdict", e->verdict);
	kf_report_json_str(o, "reason", e->reason);
	kf_report_json_num(o, "time_ms", e->time_ms);
	kf_report_json_num(o, "iqr_ms", e->iqr_ms);
	kf_report_json_num(o, "ref_time_ms", e->ref_time_ms);
	kf_report_json_num(o, "vendor_time_ms", e->vendor_time_ms);
	kf_report_json_num(o, "speedup", kf_lb_speedup(e));
	kf_report_json_num(o, "vendor_speedup", kf_lb_vendor_speedup(e));
	kf_report_json_num(o, "t_sol_ms", e->t_sol_ms);
	kf_report_json_num(o, "sol_fraction", e->sol_fraction);
	kf_report_json_num(o, "sol_score", e->sol_score);
	kf_report_json_str(o, "source_hash", e->source_hash);
	kf_report_json_str(o, "task_hash", e->task_hash);
	kf_report_json_str(o, "compile_key", e->compile_key);
	kf_report_json_str(o, "compiler", e->compiler);
	cJSON_AddBoolToObject(o, "selected", e->selected);
	kf_report_json_str(o, "file", file);
	return o;
}

static int write_jsonl(const struct kf_leaderboard *lb, const char *dir, const struct kf_lb_eval *const *sel,
		       char *const *names, int n_sel, kf_err *err)
{
	char path[PATH_MAX];
	kf_buf b = KF_BUF_INIT;
	if (snprintf(path, sizeof path, "%s/%s", dir, JSONL_NAME) >= (int)sizeof path)
		return kf_errf(err, KF_EINPUT, "export path too long under %s", dir);
	const char **file_of = kf_xcalloc((size_t)(lb->n_evals ? lb->n_evals : 1), sizeof *file_of);
	for (int j = 0; j < n_sel; j++)
		file_of[sel[j] - lb->evals] = names[j];
	for (int i = 0; i < lb->n_evals; i++) {
		cJSON *o = record(&lb->evals[i], file_of[i]);
		char *line = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
		if (!line) { /* like kf_xmalloc: nothing useful can follow */
			fputs("kforge: out of memory writing " JSONL_NAME "\n", stderr);
			abort();
		}
		kf_buf_adds(&b, line);
		kf_buf_adds(&b, "\n");
		cJSON_free(line);
	}
	int ret = kf_write_file(path, b.data ? b.data : "", b.len, err);
	kf_buf_free(&b);
	free(file_of);
	return ret;
}

int kf_report_export(struct kf_store *s, const struct kf_leaderboard *lb, const char *dir, int *n_files_out,
		     kf_err *err)
{
	const struct kf_lb_eval **sel = kf_xmalloc(sizeof *sel * (size_t)(lb->n_evals ? lb->n_evals : 1));
	char **names = kf_xcalloc((size_t)(lb->n_evals ? lb->n_evals : 1), sizeof *names);
	int n_sel = 0, ret;
	for (int g = 0; g < lb->n_groups; g++)
		for (int r = 0; r < lb->groups[g].n_rows; r++)
			if (lb->groups[g].rows[r].selected)
				sel[n_sel++] = lb->groups[g].rows[r].selected;
	choose_names(sel, n_sel, names);
	if ((ret = kf_mkdir_p(dir, err)) != KF_OK)
		goto out;
	for (int i = 0; i < n_sel && ret == KF_OK; i++)
		ret = write_kernel(kf_store_db(s), dir, sel[i], names[i], err);
	if (ret == KF_OK)
		ret = write_jsonl(lb, dir, sel, names, n_sel, err);
	if (ret == KF_OK)
		*n_files_out = n_sel;
out:
	for (int i = 0; i < n_sel; i++)
		free(names[i]);
	free(names);
	free(sel);
	return ret == KF_OK ? KF_OK : kf_err_prefix(err, "exporting to %s: ", dir);
}
