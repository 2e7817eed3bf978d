/* Prompt assembly from the templates under prompts/ (DESIGN.md §10): plain text files with
 * {{placeholders}}, optionally split into "=== name ===" sections; lines starting with "%%" are
 * comments for whoever edits the template. This module fills them from a task spec (the generated
 * header of eval/tasks/abi.h: signature, shapes, dtypes, tolerance, rules), the device's peaks and the
 * task's t_SOL, and from a judge result for feedback. No prompt wording lives in C. */
#ifndef KF_PROMPT_H
#define KF_PROMPT_H

#include <cJSON.h>

#include "common/buf.h"
#include "common/err.h"
#include "eval/judge/sol.h"
#include "eval/tasks/task.h"

struct kf_prompt_var {
	const char *name;
	const char *value;
};

/* $KFORGE_PROMPTS, else <kf_home()>/prompts. */
const char *kf_prompts_dir(void);

/* Renders prompts/<file> (its section `section`, or the whole file when NULL). Every placeholder
 * must have a value: an unknown one is KF_EINPUT naming the file and the placeholder. */
int kf_prompt_render(const char *file, const char *section, const struct kf_prompt_var *vars, int n_vars,
		     kf_buf *out, kf_err *err);

/* The first-round conversation: [system, user(task prompt)]. */
int kf_prompt_task_messages(const struct kf_task *t, enum kf_backend b, const struct kf_peaks *peaks,
			    cJSON **messages, kf_err *err);

/* Feedback on one judge result: compile errors (log trimmed to the useful lines), a correctness
 * failure (shape, first mismatch, error magnitudes), another rejection, or success (time, speedup,
 * SOL fraction and what bounds the task, and, given the candidate's profile (eval/judge/profile.h;
 * NULL: none), the bound it measured, the metrics that matter for it and their gap to peak, with
 * the hint for that bound). */
int kf_prompt_feedback(const struct kf_task *t, enum kf_backend b, const cJSON *result, const cJSON *profile,
		       kf_buf *out, kf_err *err);

/* The profile section of a success feedback alone (nothing for NULL or a profile without a bound):
 * what a profile adds to a refinement prompt, so its token cost can be measured. */
int kf_prompt_profile(const cJSON *profile, kf_buf *out, kf_err *err);

/* A refinement: the first-round conversation, the parent's code as the assistant's turn, and the
 * feedback on the parent's evaluation (with its profile, when not NULL) as the next user turn. */
int kf_prompt_refine_messages(const struct kf_task *t, enum kf_backend b, const struct kf_peaks *peaks,
			      const char *parent_source, const cJSON *parent_result, const cJSON *parent_profile,
			      cJSON **messages, kf_err *err);

/* The error lines of a compiler log with a little context each, capped in lines and bytes; the
 * start of the log when it has no error line. */
void kf_prompt_trim_compile_log(const char *log, kf_buf *out);

#endif
