/* The profile's share of the refinement prompts (see profile_cost.h). */
#include "agent/profile_cost.h"

#include <stdlib.h>
#include <string.h>

#include "agent/prompt.h"
#include "common/buf.h"
#include "eval/judge/profile.h"

/* The content of the last user message of a stored message list, or NULL. */
static const char *last_user(const cJSON *messages)
{
	const char *text = NULL;
	const cJSON *m;
	cJSON_ArrayForEach(m, messages) {
		const char *role = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "role"));
		if (role && !strcmp(role, "user"))
			text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "content"));
	}
	return text;
}

int kf_profile_cost(struct kf_store *s, int64_t run_id, struct kf_profile_cost *out, kf_err *err)
{
	memset(out, 0, sizeof *out);
	sqlite3 *db = kf_store_db(s);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT parent_candidate_id, messages FROM requests WHERE run_id = ? AND "
				   "parent_candidate_id IS NOT NULL ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return kf_store_fail(db, err, "reading a run's refinements");
	sqlite3_bind_int64(st, 1, run_id);
	int rc = KF_OK, step;
	double bytes = 0;
	while (rc == KF_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		out->refinements++;
		int64_t eval_id = 0;
		cJSON *profile = NULL, *messages = cJSON_Parse((const char *)sqlite3_column_text(st, 1));
		kf_buf block = KF_BUF_INIT;
		rc = kf_profile_latest(s, sqlite3_column_int64(st, 0), &eval_id, &profile, err);
		if (rc == KF_OK)
			rc = kf_prompt_profile(profile, &block, err);
		const char *feedback = last_user(messages);
		if (rc == KF_OK && block.len && feedback && strstr(feedback, block.data)) {
			out->profiled++;
			bytes += (double)block.len;
		}
		kf_buf_free(&block);
		cJSON_Delete(profile);
		cJSON_Delete(messages);
	}
	if (rc == KF_OK && step != SQLITE_DONE)
		rc = kf_store_fail(db, err, "reading a run's refinements");
	sqlite3_finalize(st);
	if (out->profiled) {
		out->bytes_mean = bytes / out->profiled;
		out->tokens_mean = out->bytes_mean / KF_BYTES_PER_TOKEN;
	}
	return rc;
}
