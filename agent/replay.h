/* Replaying a run (DESIGN.md §12): the model's replies of an earlier run, judged again as a new run
 * without asking any model (the same samples on other hardware, or after a judge change; or a way
 * to try `kforge run` with no model at all). The replies come from the database (a run id) or from
 * a JSONL export, which carries everything a replay needs, so it travels to another machine:
 *   line 1:  {"kforge_replies": 1, "run": ID, "model": M, "provider": P, "backend": B,
 *             "config": {...the run's configuration...}, "tasks": [{"name": N, "spec": "<spec JSON>"}, ...]}
 *   then one line per reply: {"task": N, "round": R, "slot": S, "reply": "<the model's text>",
 *             "finish_reason": F, "tokens_in": I, "tokens_out": O}
 * Requests that got no reply (failed) are not part of it. */
#ifndef KF_REPLAY_H
#define KF_REPLAY_H

#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "db/store.h"
#include "eval/tasks/task.h"

#define KF_REPLAY_FORMAT 1

struct kf_replay_reply {
	char task[KF_NAME_MAX];
	int round, slot;
	char *reply;
	char *finish_reason;   /* may be NULL */
	int64_t tokens_in, tokens_out; /* < 0: unknown */
};

struct kf_replay {
	cJSON *config;             /* the recorded run's configuration */
	struct kf_task **tasks;    /* parsed from the recorded specs */
	int n_tasks;
	struct kf_replay_reply *replies; /* by task, round, slot */
	int n;
};

/* Writes run `run_id`'s replies as JSONL. KF_EINPUT when there is no such run. */
int kf_replay_export(struct kf_store *s, int64_t run_id, FILE *out, kf_err *err);
int kf_replay_from_run(struct kf_store *s, int64_t run_id, struct kf_replay *out, kf_err *err);
/* KF_EINPUT for a file that is not a kforge replies export (naming the line). */
int kf_replay_from_file(const char *path, struct kf_replay *out, kf_err *err);
void kf_replay_free(struct kf_replay *r);

#endif
