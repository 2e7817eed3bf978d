/* What `kforge run` prints while it runs (agent/run_report.c): on a terminal the status line names
 * the last HTTP fault with its attempt count, and a request given up on gets a line of its own. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/run_report.h"

#define FAULT_503 "HTTP 503: {\"error\":{\"message\":\"overloaded (scripted)\"}}"

static struct kf_agent_event attempt_event(int attempt, double retry_in_s)
{
	return (struct kf_agent_event){ .kind = KF_AGENT_EV_ATTEMPT, .task = "vector_add", .round = 1, .slot = 2,
					 .request_id = 7, .what = retry_in_s >= 0 ? "retry" : "gave_up",
					 .detail = FAULT_503, .sol_fraction = NAN, .retry_in_s = retry_in_s,
					 .attempt = attempt, .max_attempts = 4,
					 .progress = { .n_tasks = 1, .requests_planned = 4, .in_flight = 1,
						       .best_sol = NAN, .cost_usd = NAN } };
}

/* The text after the last carriage return: what a terminal shows on the status line. */
static const char *status_line(const char *out)
{
	const char *cr = strrchr(out, '\r');
	return cr ? cr + 1 : out;
}

Test(agent_report, shows_the_last_fault_on_the_terminal_status_line)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct kf_run_report r;
	kf_run_report_init(&r, f, true);
	struct kf_agent_event e = attempt_event(3, 2.0);
	kf_run_report_event(&r, &e);
	fflush(f);
	const char *line = status_line(out);
	cr_expect(strstr(line, "last fault: vector_add: HTTP 503") && strstr(line, "(attempt 3 of 4)"),
		  "status line: %s", line);
	cr_expect_null(strchr(line, '\n'), "the status line is one line: %s", line);
	e = attempt_event(4, -1);
	kf_run_report_event(&r, &e);
	kf_run_report_finish(&r);
	fclose(f);
	cr_expect(strstr(out, "vector_add round 1 sample 2: " FAULT_503 " (attempt 4 of 4); not retried\n"),
		  "a request given up on gets its own line: %s", out);
	free(out);
}

Test(agent_report, prints_every_fault_with_its_attempt_when_not_a_terminal)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct kf_run_report r;
	kf_run_report_init(&r, f, false);
	struct kf_agent_event e = attempt_event(1, 1.5);
	kf_run_report_event(&r, &e);
	fclose(f);
	cr_expect(strstr(out, FAULT_503 " (attempt 1 of 4); retrying in 1.5 s\n"), "%s", out);
	free(out);
}
