/* Prompt templates and the values that fill them (see prompt.h). Numbers are formatted here;
 * every sentence comes from prompts/. */
#include "agent/prompt.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/extract.h"
#include "agent/rank.h"
#include "common/fs.h"
#include "common/text.h"
#include "eval/tasks/abi.h"

#define TEMPLATE_MAX_BYTES (256u * 1024)
#define PLACEHOLDER_MAX 64
#define SECTION_MARK "=== "
#define SECTION_END " ==="
#define COMMENT_MARK "%%"
#define VALUE_MAX 128
#define LOG_MAX_LINES 40
#define LOG_MAX_BYTES 4000
#define LOG_CONTEXT_LINES 2  /* lines kept after each error line (the source line and the caret) */
#define GIGA 1e9
#define TERA 1e12
#define MEGA 1e6
#define PERCENT 100.0

#define SYSTEM_FILE "system.md"
#define TASK_FILE "task.md"
#define FEEDBACK_FILE "feedback.md"

const char *kf_prompts_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("KFORGE_PROMPTS");
	if (env && *env)
		snprintf(dir, sizeof dir, "%s", env);
	else
		snprintf(dir, sizeof dir, "%s/prompts", kf_home());
	return dir;
}

/* The text of `section` ("=== name ===" up to the next marker), or the whole file; comment
 * lines dropped. */
static int select_text(const char *path, const char *text, const char *section, kf_buf *out, kf_err *err)
{
	bool in = section == NULL, found = section == NULL;
	const char *p = text;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		const char *next = eol ? eol + 1 : p + n;
		size_t mark = strlen(SECTION_MARK), end = strlen(SECTION_END);
		if (n > mark + end && !strncmp(p, SECTION_MARK, mark) && !strncmp(p + n - end, SECTION_END, end)) {
			in = section && n - mark - end == strlen(section) && !strncmp(p + mark, section, strlen(section));
			found = found || in;
		} else if (in && strncmp(p, COMMENT_MARK, strlen(COMMENT_MARK)) != 0) {
			kf_buf_add(out, p, n);
			kf_buf_adds(out, "\n");
		}
		p = next;
	}
	if (!found)
		return kf_errf(err, KF_EINPUT, "%s: no section \"=== %s ===\"", path, section);
	/* Templates end where their text ends: blank lines around a section are layout. */
	while (out->len && (out->data[out->len - 1] == '\n' || out->data[out->len - 1] == ' '))
		out->data[--out->len] = '\0';
	size_t lead = 0;
	while (lead < out->len && out->data[lead] == '\n')
		lead++;
	memmove(out->data, out->data + lead, out->len - lead + 1);
	out->len -= lead;
	return KF_OK;
}

static int substitute(const char *path, const char *text, const struct kf_prompt_var *vars, int n_vars, kf_buf *out,
		      kf_err *err)
{
	const char *p = text;
	for (;;) {
		const char *open = strstr(p, "{{");
		if (!open) {
			kf_buf_adds(out, p);
			return KF_OK;
		}
		const char *close = strstr(open + 2, "}}");
		if (!close)
			return kf_errf(err, KF_EINPUT, "%s: a \"{{\" is never closed", path);
		kf_buf_add(out, p, (size_t)(open - p));
		size_t n = (size_t)(close - open - 2);
		const char *value = NULL;
		for (int i = 0; i < n_vars && !value; i++)
			if (strlen(vars[i].name) == n && !strncmp(vars[i].name, open + 2, n))
				value = vars[i].value;
		if (!value)
			return kf_errf(err, KF_EINPUT, "%s: unknown placeholder {{%.*s}}", path,
				       (int)(n < PLACEHOLDER_MAX ? n : PLACEHOLDER_MAX), open + 2);
		kf_buf_adds(out, value);
		p = close + 2;
	}
}

int kf_prompt_render(const char *file, const char *section, const struct kf_prompt_var *vars, int n_vars,
		     kf_buf *out, kf_err *err)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", kf_prompts_dir(), file);
	char *text = NULL;
	kf_buf chosen = KF_BUF_INIT;
	int rc = kf_read_file(path, TEMPLATE_MAX_BYTES, &text, NULL, err);
	if (rc != KF_OK)
		return kf_err_prefix(err, "prompt template: ");
	if ((rc = select_text(path, text, section, &chosen, err)) == KF_OK)
		rc = substitute(path, chosen.data ? chosen.data : "", vars, n_vars, out, err);
	kf_buf_free(&chosen);
	free(text);
	return rc;
}

/* ---- values ---- */

static void fmt_time(double ms, char out[VALUE_MAX])
{
	if (!isfinite(ms))
		snprintf(out, VALUE_MAX, "n/a");
	else if (ms < 1.0)
		snprintf(out, VALUE_MAX, "%.4g us", ms * 1000.0);
	else
		snprintf(out, VALUE_MAX, "%.4g ms", ms);
}

static void fmt_rate(double v, const char *unit, char out[VALUE_MAX])
{
	if (v >= TERA)
		snprintf(out, VALUE_MAX, "%.3g T%s", v / TERA, unit);
	else
		snprintf(out, VALUE_MAX, "%.3g G%s", v / GIGA, unit);
}

static void fmt_bytes(double v, char out[VALUE_MAX])
{
	if (v >= GIGA)
		snprintf(out, VALUE_MAX, "%.3g GB", v / GIGA);
	else
		snprintf(out, VALUE_MAX, "%.3g MB", v / MEGA);
}

static void fmt_number(const cJSON *v, const char *fmt, char out[VALUE_MAX])
{
	if (cJSON_IsNumber(v))
		snprintf(out, VALUE_MAX, fmt, v->valuedouble);
	else
		snprintf(out, VALUE_MAX, "n/a");
}

static const char *str_or(const cJSON *o, const char *key, const char *dflt)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
	return s ? s : dflt;
}

static void add_message(cJSON *messages, const char *role, const char *content)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddStringToObject(m, "content", content);
	cJSON_AddItemToArray(messages, m);
}

static int render_system(enum kf_backend b, kf_buf *out, kf_err *err)
{
	const struct kf_prompt_var vars[] = {
		{ "backend", kf_backend_name(b) },
		{ "language", kf_extract_language(b) },
		{ "extension", kf_extract_extension(b) },
	};
	return kf_prompt_render(SYSTEM_FILE, kf_backend_name(b), vars, sizeof vars / sizeof vars[0], out, err);
}

static int render_task(const struct kf_task *t, enum kf_backend b, const struct kf_peaks *peaks, kf_buf *out,
		       kf_err *err)
{
	kf_buf header = KF_BUF_INIT, bench = KF_BUF_INIT, example = KF_BUF_INIT;
	const struct kf_shape *s = &t->bench[b];
	enum kf_sol_bound bound;
	double t_sol_ms = kf_sol_time_s(peaks, t, s, &bound) * 1000.0;
	enum kf_dtype compute = t->compute_dtype;
	char level[VALUE_MAX], bw[VALUE_MAX], flops[VALUE_MAX], work[VALUE_MAX], bytes[VALUE_MAX], tsol[VALUE_MAX];
	snprintf(level, sizeof level, "%d", t->level);
	fmt_rate(peaks->bw_bytes_s, "B/s", bw);
	fmt_rate(peaks->flops_s[compute], "FLOP/s", flops);
	snprintf(work, sizeof work, "%.4g", kf_task_flops(t, s));
	fmt_bytes(kf_task_bytes(t, s), bytes);
	fmt_time(t_sol_ms, tsol);
	kf_abi_header(t, b, &header);
	while (header.len && header.data[header.len - 1] == '\n')
		header.data[--header.len] = '\0';
	kf_task_shape_format(t, s, &bench);
	char example_file[64];
	snprintf(example_file, sizeof example_file, "example_%s.md", kf_backend_name(b));
	const struct kf_prompt_var lang[] = { { "language", kf_extract_language(b) } };
	int rc = kf_prompt_render(example_file, NULL, lang, 1, &example, err);
	if (rc == KF_OK) {
		const struct kf_prompt_var vars[] = {
			{ "task", t->name },
			{ "backend", kf_backend_name(b) },
			{ "level", level },
			{ "language", kf_extract_language(b) },
			{ "description", t->description },
			{ "header", header.data },
			{ "device", peaks->device },
			{ "bandwidth", bw },
			{ "flops", flops },
			{ "compute_dtype", kf_dtype_name(compute) },
			{ "bench_shape", bench.data },
			{ "task_flops", work },
			{ "task_bytes", bytes },
			{ "t_sol", tsol },
			{ "bound", kf_sol_bound_name(bound) },
			{ "example", example.data ? example.data : "" },
		};
		rc = kf_prompt_render(TASK_FILE, NULL, vars, sizeof vars / sizeof vars[0], out, err);
	}
	kf_buf_free(&header);
	kf_buf_free(&bench);
	kf_buf_free(&example);
	return rc;
}

int kf_prompt_task_messages(const struct kf_task *t, enum kf_backend b, const struct kf_peaks *peaks,
			    cJSON **messages, kf_err *err)
{
	kf_buf sys = KF_BUF_INIT, task = KF_BUF_INIT;
	*messages = NULL;
	int rc = render_system(b, &sys, err);
	if (rc == KF_OK)
		rc = render_task(t, b, peaks, &task, err);
	if (rc == KF_OK) {
		*messages = cJSON_CreateArray();
		add_message(*messages, "system", sys.data);
		add_message(*messages, "user", task.data);
	}
	kf_buf_free(&sys);
	kf_buf_free(&task);
	return rc;
}

/* ---- feedback ---- */

/* Whether the n bytes at s hold any of the marks. */
static bool holds_any(const char *s, size_t n, const char *const *marks, size_t n_marks)
{
	for (size_t i = 0; i < n_marks; i++) {
		size_t k = strlen(marks[i]);
		for (size_t j = 0; j + k <= n; j++)
			if (!memcmp(s + j, marks[i], k))
				return true;
	}
	return false;
}

static bool is_error_line(const char *s, size_t n)
{
	static const char *const marks[] = { "error:", "error ", "Error", "undefined reference" };
	return holds_any(s, n, marks, sizeof marks / sizeof marks[0]);
}

static bool is_diagnostic(const char *s, size_t n)
{
	static const char *const marks[] = { "warning:", "note:", "error:", "In function", "In file included" };
	return holds_any(s, n, marks, sizeof marks / sizeof marks[0]);
}

void kf_prompt_trim_compile_log(const char *log, kf_buf *out)
{
	const char *p = log ? log : "";
	bool any_error = false;
	for (const char *q = p; *q;) {
		const char *eol = strchr(q, '\n');
		size_t n = eol ? (size_t)(eol - q) : strlen(q);
		any_error = any_error || is_error_line(q, n);
		q = eol ? eol + 1 : q + n;
	}
	int lines = 0, context = any_error ? 0 : LOG_MAX_LINES;
	size_t start = out->len;
	bool cut = false;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		bool keep = false;
		if (any_error && is_error_line(p, n)) {
			keep = true;
			context = LOG_CONTEXT_LINES;
		} else if (context > 0 && !(any_error && is_diagnostic(p, n))) {
			keep = true;
			context--;
		} else if (any_error) {
			context = 0;
		}
		if (keep) {
			if (lines >= LOG_MAX_LINES || out->len - start + n > LOG_MAX_BYTES) {
				cut = true;
				break;
			}
			kf_buf_add(out, p, n);
			kf_buf_adds(out, "\n");
			lines++;
		}
		p = eol ? eol + 1 : p + n;
	}
	if (cut)
		kf_buf_adds(out, "[...]\n");
	while (out->len > start && out->data[out->len - 1] == '\n')
		out->data[--out->len] = '\0';
}

static int feedback_compile(enum kf_backend b, const cJSON *r, kf_buf *out, kf_err *err)
{
	kf_buf log = KF_BUF_INIT;
	const cJSON *compile = cJSON_GetObjectItemCaseSensitive(r, "compile");
	kf_prompt_trim_compile_log(str_or(compile, "log", ""), &log);
	const struct kf_prompt_var vars[] = {
		{ "verdict", str_or(r, "verdict", "?") },
		{ "reason", str_or(r, "reason", "") },
		{ "compile_log", log.data ? log.data : "" },
		{ "language", kf_extract_language(b) },
	};
	int rc = kf_prompt_render(FEEDBACK_FILE, "compile", vars, sizeof vars / sizeof vars[0], out, err);
	kf_buf_free(&log);
	return rc;
}

static int feedback_incorrect(enum kf_backend b, const cJSON *r, kf_buf *out, kf_err *err)
{
	char abs_err[VALUE_MAX], rel_err[VALUE_MAX];
	fmt_number(cJSON_GetObjectItemCaseSensitive(r, "max_abs_err"), "%.3g", abs_err);
	fmt_number(cJSON_GetObjectItemCaseSensitive(r, "max_rel_err"), "%.3g", rel_err);
	const struct kf_prompt_var vars[] = {
		{ "verdict", str_or(r, "verdict", "?") },
		{ "reason", str_or(r, "reason", "") },
		{ "max_abs_err", abs_err },
		{ "max_rel_err", rel_err },
		{ "language", kf_extract_language(b) },
	};
	return kf_prompt_render(FEEDBACK_FILE, "incorrect", vars, sizeof vars / sizeof vars[0], out, err);
}

static int feedback_failure(enum kf_backend b, const cJSON *r, kf_buf *out, kf_err *err)
{
	const struct kf_prompt_var vars[] = {
		{ "verdict", str_or(r, "verdict", "?") },
		{ "reason", str_or(r, "reason", "") },
		{ "output", str_or(r, "output", "") },
		{ "language", kf_extract_language(b) },
	};
	return kf_prompt_render(FEEDBACK_FILE, "failure", vars, sizeof vars / sizeof vars[0], out, err);
}

/* ---- the profile ---- */

/* One metric's line: value, headroom and detail formatted here, the words from metric_<name>. */
static int profile_metric(const char *name, const cJSON *m, kf_buf *out, kf_err *err)
{
	char value[VALUE_MAX] = "", headroom[VALUE_MAX] = "n/a", detail[VALUE_MAX * 2] = "";
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, name);
	size_t n = strlen(name);
	if (n > 4 && !strcmp(name + n - 4, "_pct") && cJSON_IsNumber(v)) {
		snprintf(value, sizeof value, v->valuedouble < 10 ? "%.1f" : "%.0f", v->valuedouble);
		if (v->valuedouble > 0)
			snprintf(headroom, sizeof headroom, "%.1fx", PERCENT / v->valuedouble);
	} else if (!strcmp(name, "cores_used") && cJSON_IsNumber(v)) {
		snprintf(value, sizeof value, "%.1f", v->valuedouble);
		fmt_number(cJSON_GetObjectItemCaseSensitive(m, "cores"), "%.0f", detail);
	} else if (!strcmp(name, "vector_share")) {
		snprintf(value, sizeof value, "%.0f of %.0f", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "vector_loops")),
			 cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "loops")));
		const cJSON *miss = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(m, "missed_loops"), 0);
		if (miss)
			snprintf(detail, sizeof detail, " (the loop at line %.0f is not: %s)",
				 cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(miss, "line")), str_or(miss, "why", "?"));
	} else if (!strcmp(name, "ipc") || !strcmp(name, "waves")) {
		fmt_number(v, !strcmp(name, "ipc") ? "%.2f" : "%.3g", value);
		const cJSON *tail = cJSON_GetObjectItemCaseSensitive(m, "tail_pct");
		if (!strcmp(name, "waves") && cJSON_IsNumber(tail))
			snprintf(detail, sizeof detail, "; the last wave fills %.0f%% of them", tail->valuedouble);
	} else if (!strcmp(name, "top_stall")) {
		snprintf(value, sizeof value, "%s", cJSON_GetStringValue(v) ? cJSON_GetStringValue(v) : "?");
		const cJSON *pct = cJSON_GetObjectItemCaseSensitive(m, "top_stall_pct");
		if (cJSON_IsNumber(pct))
			snprintf(detail, sizeof detail, " (%.0f%% of stalls)", pct->valuedouble);
	} else {
		fmt_number(v, "%.3g", value);
	}
	if (!strcmp(name, "occupancy_theoretical_pct")) {
		const char *lim = str_or(m, "occupancy_limiter", NULL);
		if (lim)
			snprintf(detail, sizeof detail, " (limited by %s)", lim);
	} else if (!strcmp(name, "occupancy_pct")) {
		const cJSON *th = cJSON_GetObjectItemCaseSensitive(m, "occupancy_theoretical_pct");
		const char *lim = str_or(m, "occupancy_limiter", NULL);
		if (cJSON_IsNumber(th))
			snprintf(detail, sizeof detail, " (theoretical %.0f%%%s%s)", th->valuedouble, lim ? ", limited by " : "",
				 lim ? lim : "");
	}
	char section[VALUE_MAX];
	snprintf(section, sizeof section, "metric_%s", name);
	const struct kf_prompt_var vars[] = { { "value", value }, { "headroom", headroom }, { "detail", detail } };
	return kf_prompt_render(FEEDBACK_FILE, section, vars, sizeof vars / sizeof vars[0], out, err);
}

int kf_prompt_profile(const cJSON *profile, kf_buf *out, kf_err *err)
{
	const char *bound = str_or(profile, "bound", NULL);
	if (!profile || !bound)
		return KF_OK;
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(profile, "metrics"), *k;
	kf_buf lines = KF_BUF_INIT;
	int rc = KF_OK;
	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(profile, "key")) {
		if (!cJSON_IsString(k))
			continue;
		if (lines.len)
			kf_buf_adds(&lines, "\n");
		if ((rc = profile_metric(k->valuestring, m, &lines, err)) != KF_OK)
			break;
	}
	if (rc == KF_OK) {
		const struct kf_prompt_var vars[] = {
			{ "bound", bound },
			{ "why", str_or(profile, "bound_why", "") },
			{ "metrics", lines.data ? lines.data : "" },
		};
		rc = kf_prompt_render(FEEDBACK_FILE, "profile", vars, sizeof vars / sizeof vars[0], out, err);
	}
	kf_buf_free(&lines);
	return rc;
}

static int feedback_success(const struct kf_task *t, enum kf_backend b, const cJSON *r, const cJSON *profile,
			    kf_buf *out, kf_err *err)
{
	char time[VALUE_MAX], ref[VALUE_MAX], tsol[VALUE_MAX], speedup[VALUE_MAX], sol[VALUE_MAX];
	const cJSON *v;
	v = cJSON_GetObjectItemCaseSensitive(r, "time_ms");
	fmt_time(cJSON_IsNumber(v) ? v->valuedouble : NAN, time);
	v = cJSON_GetObjectItemCaseSensitive(r, "ref_time_ms");
	fmt_time(cJSON_IsNumber(v) ? v->valuedouble : NAN, ref);
	v = cJSON_GetObjectItemCaseSensitive(r, "t_sol_ms");
	fmt_time(cJSON_IsNumber(v) ? v->valuedouble : NAN, tsol);
	fmt_number(cJSON_GetObjectItemCaseSensitive(r, "speedup"), "%.3g", speedup);
	v = cJSON_GetObjectItemCaseSensitive(r, "sol_fraction");
	if (cJSON_IsNumber(v))
		snprintf(sol, sizeof sol, "%.1f%%", v->valuedouble * PERCENT);
	else
		snprintf(sol, sizeof sol, "n/a");
	const char *bound = str_or(r, "bound", "memory");
	kf_buf bench = KF_BUF_INIT, hint = KF_BUF_INIT, prof = KF_BUF_INIT;
	kf_task_shape_format(t, &t->bench[b], &bench);
	char hint_section[VALUE_MAX];
	/* The profile's bound, when there is one, says more than the task's: a memory-bound task's
	 * kernel can be latency-bound. Only devices have special-function units; anything unknown
	 * reads as memory-bound. */
	const char *measured = str_or(profile, "bound", NULL), *want = measured ? measured : bound;
	const char *kind = !strcmp(want, "compute") || !strcmp(want, "latency") ||
					   (!strcmp(want, "sfu") && b == KF_BACKEND_CUDA)
				   ? want
				   : "memory";
	snprintf(hint_section, sizeof hint_section, "hint_%s_%s", kind, kf_backend_name(b));
	int rc = kf_prompt_render(FEEDBACK_FILE, hint_section, NULL, 0, &hint, err);
	if (rc == KF_OK)
		rc = kf_prompt_profile(profile, &prof, err);
	if (rc == KF_OK && prof.len)
		kf_buf_adds(&prof, "\n");
	if (rc == KF_OK) {
		const struct kf_prompt_var vars[] = {
			{ "bench_shape", bench.data },
			{ "time", time },
			{ "ref_time", ref },
			{ "speedup", speedup },
			{ "t_sol", tsol },
			{ "sol_percent", sol },
			{ "bound", bound },
			{ "profile", prof.data ? prof.data : "" },
			{ "bound_hint", hint.data ? hint.data : "" },
			{ "language", kf_extract_language(b) },
		};
		rc = kf_prompt_render(FEEDBACK_FILE, "success", vars, sizeof vars / sizeof vars[0], out, err);
	}
	kf_buf_free(&bench);
	kf_buf_free(&hint);
	kf_buf_free(&prof);
	return rc;
}

int kf_prompt_feedback(const struct kf_task *t, enum kf_backend b, const cJSON *result, const cJSON *profile,
		       kf_buf *out, kf_err *err)
{
	switch (kf_rank_class(str_or(result, "verdict", NULL))) {
	case KF_CLASS_OK:
		return feedback_success(t, b, result, profile, out, err);
	case KF_CLASS_COMPILE:
		return feedback_compile(b, result, out, err);
	case KF_CLASS_INCORRECT:
		return feedback_incorrect(b, result, out, err);
	default:
		return feedback_failure(b, result, out, err);
	}
}

/* The parent's code and the judge's feedback (which quotes compiler lines of it) come from a model's
 * reply, stored as it came: what goes back is valid UTF-8, or a strict server refuses the request. */
static void add_sanitized(cJSON *messages, const char *role, const kf_buf *text)
{
	kf_buf clean = KF_BUF_INIT;
	kf_text_sanitize(text->data ? text->data : "", text->len, &clean);
	add_message(messages, role, clean.data ? clean.data : "");
	kf_buf_free(&clean);
}

int kf_prompt_refine_messages(const struct kf_task *t, enum kf_backend b, const struct kf_peaks *peaks,
			      const char *parent_source, const cJSON *parent_result, const cJSON *parent_profile,
			      cJSON **messages, kf_err *err)
{
	kf_buf code = KF_BUF_INIT, feedback = KF_BUF_INIT;
	int rc = kf_prompt_task_messages(t, b, peaks, messages, err);
	if (rc == KF_OK)
		rc = kf_prompt_feedback(t, b, parent_result, parent_profile, &feedback, err);
	if (rc == KF_OK) {
		size_t n = strlen(parent_source);
		kf_buf_addf(&code, "```%s\n%s%s```", kf_extract_language(b), parent_source,
			    n && parent_source[n - 1] == '\n' ? "" : "\n");
		add_sanitized(*messages, "assistant", &code);
		add_sanitized(*messages, "user", &feedback);
	} else {
		cJSON_Delete(*messages);
		*messages = NULL;
	}
	kf_buf_free(&code);
	kf_buf_free(&feedback);
	return rc;
}
