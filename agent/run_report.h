/* What `kforge run` shows: on a terminal, one progress line redrawn in place (tasks done,
 * requests, ok/failed, best SOL so far, tokens, cost, and the last HTTP fault with its attempt
 * count) with notable events (a request given up on among them) printed above it; when
 * not a terminal, one plain line per event and a progress line now and then. At the end, the
 * per-task summary table (the selected kernel with its P(correct)), or the same as one JSON
 * object. Formatting only. */
#ifndef KF_RUN_REPORT_H
#define KF_RUN_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "agent/agent.h"

#define KF_RUN_REPORT_FAULT_MAX 160

struct kf_run_report {
	FILE *f;
	bool tty;
	bool line_drawn;        /* a progress line is on screen (tty) */
	int64_t last_draw_ns;
	int64_t last_plain_ns;  /* when the last periodic progress line was printed (not a tty) */
	char last_fault[KF_RUN_REPORT_FAULT_MAX]; /* empty until an HTTP attempt fails */
};

void kf_run_report_init(struct kf_run_report *r, FILE *f, bool tty);
/* The observer callback (ctx is the struct kf_run_report). */
void kf_run_report_event(void *ctx, const struct kf_agent_event *e);
/* Clears the progress line before other output. */
void kf_run_report_finish(struct kf_run_report *r);

void kf_run_report_table(FILE *f, const struct kf_agent_summary *s);
cJSON *kf_run_report_json(const struct kf_agent_summary *s);

#endif
