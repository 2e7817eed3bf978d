/* Static policy checks on a candidate's source (DESIGN.md §4, §8 #11): calls into vendor
 * libraries where the task forbids them. Works on tokens with comments and string literals
 * removed, so a comment that mentions cuBLAS is not a violation. */
#ifndef KF_POLICY_H
#define KF_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "eval/tasks/task.h"

/* Returns true and fills why when the source breaks the task's policy. */
bool kf_policy_violation(const struct kf_task *t, const char *src, size_t len, char *why, size_t why_len);

#endif
