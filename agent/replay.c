/* Replies of a run, exported as JSONL and read back (see replay.h). Reading a run from the database
 * goes through the same text as a file, so the two can never disagree. */
#include "agent/replay.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fs.h"

#define REPLAY_FILE_MAX (1u << 30)

static int db_fail(struct kf_store *s, kf_err *err, const char *what)
{
	return kf_store_fail(kf_store_db(s), err, what);
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

static void add_count(cJSON *o, const char *key, sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, (double)sqlite3_column_int64(st, i));
}

static void put_line(FILE *out, cJSON *line)
{
	char *text = cJSON_PrintUnformatted(line);
	fputs(text, out);
	fputc('\n', out);
	free(text);
	cJSON_Delete(line);
}

static cJSON *header(struct kf_store *s, int64_t run_id, kf_err *err, int *rc)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *db = kf_store_db(s);
	cJSON *h = NULL;
	if (sqlite3_prepare_v2(db, "SELECT provider, model, backend, config FROM runs WHERE id = ?", -1, &st, NULL) !=
	    SQLITE_OK) {
		*rc = db_fail(s, err, "reading the run");
		return NULL;
	}
	sqlite3_bind_int64(st, 1, run_id);
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		h = cJSON_CreateObject();
		cJSON_AddNumberToObject(h, "kforge_replies", KF_REPLAY_FORMAT);
		cJSON_AddNumberToObject(h, "run", (double)run_id);
		cJSON_AddStringToObject(h, "model", col_text(st, 1));
		cJSON_AddStringToObject(h, "provider", col_text(st, 0));
		cJSON_AddStringToObject(h, "backend", col_text(st, 2));
		cJSON *cfg = cJSON_Parse(col_text(st, 3));
		cJSON_AddItemToObject(h, "config", cfg ? cfg : cJSON_CreateObject());
	} else if (step == SQLITE_DONE) {
		*rc = kf_errf(err, KF_EINPUT, "no run with id %lld", (long long)run_id);
	} else {
		*rc = db_fail(s, err, "reading the run");
	}
	sqlite3_finalize(st);
	if (!h)
		return NULL;
	cJSON *tasks = cJSON_AddArrayToObject(h, "tasks");
	if (sqlite3_prepare_v2(db,
			       "SELECT r.task, t.spec_text FROM run_tasks r JOIN tasks t ON t.spec_hash = r.task_hash"
			       " WHERE r.run_id = ? ORDER BY r.position",
			       -1, &st, NULL) != SQLITE_OK) {
		*rc = db_fail(s, err, "reading the run's tasks");
		cJSON_Delete(h);
		return NULL;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		cJSON *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "name", col_text(st, 0));
		cJSON_AddStringToObject(t, "spec", col_text(st, 1));
		cJSON_AddItemToArray(tasks, t);
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		*rc = db_fail(s, err, "reading the run's tasks");
		cJSON_Delete(h);
		return NULL;
	}
	return h;
}

int kf_replay_export(struct kf_store *s, int64_t run_id, FILE *out, kf_err *err)
{
	int rc = KF_OK;
	cJSON *h = header(s, run_id, err, &rc);
	if (!h)
		return rc;
	put_line(out, h);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(kf_store_db(s),
			       "SELECT task, round, slot, reply, finish_reason, tokens_in, tokens_out FROM requests"
			       " WHERE run_id = ? AND reply IS NOT NULL ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, err, "reading the run's replies");
	sqlite3_bind_int64(st, 1, run_id);
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		cJSON *line = cJSON_CreateObject();
		cJSON_AddStringToObject(line, "task", col_text(st, 0));
		cJSON_AddNumberToObject(line, "round", sqlite3_column_int(st, 1));
		cJSON_AddNumberToObject(line, "slot", sqlite3_column_int(st, 2));
		cJSON_AddStringToObject(line, "reply", col_text(st, 3));
		if (sqlite3_column_type(st, 4) == SQLITE_NULL)
			cJSON_AddNullToObject(line, "finish_reason");
		else
			cJSON_AddStringToObject(line, "finish_reason", col_text(st, 4));
		add_count(line, "tokens_in", st, 5);
		add_count(line, "tokens_out", st, 6);
		put_line(out, line);
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE)
		return db_fail(s, err, "reading the run's replies");
	if (fflush(out) != 0 || ferror(out))
		return kf_errno(err, KF_EINTERNAL, "writing the replies");
	return KF_OK;
}

void kf_replay_free(struct kf_replay *r)
{
	cJSON_Delete(r->config);
	kf_task_list_free(r->tasks, r->n_tasks);
	for (int i = 0; i < r->n; i++) {
		free(r->replies[i].reply);
		free(r->replies[i].finish_reason);
	}
	free(r->replies);
	memset(r, 0, sizeof *r);
}

static int read_header(const cJSON *h, const char *label, struct kf_replay *out, kf_err *err)
{
	const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(h, "kforge_replies");
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(h, "config");
	const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(h, "tasks");
	if (!cJSON_IsNumber(fmt) || !cJSON_IsObject(cfg) || !cJSON_IsArray(tasks))
		return kf_errf(err, KF_EINPUT, "%s: line 1 is not the header of a kforge replies export", label);
	if (fmt->valuedouble != KF_REPLAY_FORMAT)
		return kf_errf(err, KF_EINPUT, "%s: replies format %g, this kforge reads format %d", label, fmt->valuedouble,
			       KF_REPLAY_FORMAT);
	out->config = cJSON_Duplicate(cfg, true);
	out->tasks = kf_xcalloc((size_t)cJSON_GetArraySize(tasks) + 1, sizeof *out->tasks);
	const cJSON *t;
	cJSON_ArrayForEach(t, tasks) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name"));
		const char *spec = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "spec"));
		if (!name || !spec || strlen(name) >= KF_NAME_MAX)
			return kf_errf(err, KF_EINPUT, "%s: a task of the header has no name or spec", label);
		/* The loader checks the name against the file name: the label mimics one. */
		char spec_label[KF_NAME_MAX + 32];
		snprintf(spec_label, sizeof spec_label, "stored/%s.json", name);
		int rc = kf_task_parse(spec_label, spec, strlen(spec), &out->tasks[out->n_tasks], err);
		if (rc != KF_OK)
			return rc;
		out->n_tasks++;
	}
	return KF_OK;
}

static int read_reply(const cJSON *j, const char *label, int line, const struct kf_replay *rp,
		      struct kf_replay_reply *out, kf_err *err)
{
	const char *task = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "task"));
	const char *reply = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "reply"));
	const cJSON *round = cJSON_GetObjectItemCaseSensitive(j, "round");
	const cJSON *slot = cJSON_GetObjectItemCaseSensitive(j, "slot");
	if (!task || !reply || !cJSON_IsNumber(round) || !cJSON_IsNumber(slot) || round->valuedouble < 1 ||
	    slot->valuedouble < 0)
		return kf_errf(err, KF_EINPUT, "%s: line %d is not a reply (task, round, slot, reply)", label, line);
	bool known = false;
	for (int i = 0; i < rp->n_tasks; i++)
		known = known || !strcmp(rp->tasks[i]->name, task);
	if (!known)
		return kf_errf(err, KF_EINPUT, "%s: line %d: task '%.64s' is not in the header", label, line, task);
	const cJSON *tin = cJSON_GetObjectItemCaseSensitive(j, "tokens_in");
	const cJSON *tout = cJSON_GetObjectItemCaseSensitive(j, "tokens_out");
	const char *finish = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "finish_reason"));
	snprintf(out->task, sizeof out->task, "%s", task);
	out->round = (int)round->valuedouble;
	out->slot = (int)slot->valuedouble;
	out->reply = kf_xstrdup(reply);
	out->finish_reason = finish ? kf_xstrdup(finish) : NULL;
	out->tokens_in = cJSON_IsNumber(tin) ? (int64_t)tin->valuedouble : -1;
	out->tokens_out = cJSON_IsNumber(tout) ? (int64_t)tout->valuedouble : -1;
	return KF_OK;
}

static int parse(char *text, const char *label, struct kf_replay *out, kf_err *err)
{
	int rc = KF_OK, line = 0, cap = 0;
	memset(out, 0, sizeof *out);
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && rc == KF_OK; l = strtok_r(NULL, "\n", &save)) {
		line++;
		cJSON *j = cJSON_Parse(l);
		if (!j)
			rc = kf_errf(err, KF_EINPUT, "%s: line %d is not JSON", label, line);
		else if (line == 1)
			rc = read_header(j, label, out, err);
		else {
			out->replies = kf_xgrow(out->replies, out->n, &cap, sizeof *out->replies);
			memset(&out->replies[out->n], 0, sizeof out->replies[out->n]);
			if ((rc = read_reply(j, label, line, out, &out->replies[out->n], err)) == KF_OK)
				out->n++;
		}
		cJSON_Delete(j);
	}
	if (rc == KF_OK && line == 0)
		rc = kf_errf(err, KF_EINPUT, "%s is empty: not a kforge replies export", label);
	if (rc != KF_OK)
		kf_replay_free(out);
	return rc;
}

int kf_replay_from_run(struct kf_store *s, int64_t run_id, struct kf_replay *out, kf_err *err)
{
	char *text = NULL;
	size_t len = 0;
	memset(out, 0, sizeof *out);
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		return kf_errno(err, KF_EINTERNAL, "reading run %lld's replies", (long long)run_id);
	int rc = kf_replay_export(s, run_id, mem, err);
	fclose(mem);
	char label[64];
	snprintf(label, sizeof label, "run %lld", (long long)run_id);
	if (rc == KF_OK)
		rc = parse(text, label, out, err);
	free(text);
	return rc;
}

int kf_replay_from_file(const char *path, struct kf_replay *out, kf_err *err)
{
	char *text = NULL;
	size_t len = 0;
	memset(out, 0, sizeof *out);
	int rc = kf_read_file(path, REPLAY_FILE_MAX, &text, &len, err);
	if (rc != KF_OK)
		return rc;
	if (strlen(text) != len)
		rc = kf_errf(err, KF_EINPUT, "%s: a NUL byte: not a kforge replies export", path);
	else
		rc = parse(text, path, out, err);
	free(text);
	return rc;
}
