/* What the profile costs in the refinement prompts of a run (issue 21: "prompts stay short, measure
 * the token cost"): how many refinements quoted a profile, and how long the quoted part was. */
#ifndef KF_PROFILE_COST_H
#define KF_PROFILE_COST_H

#include <stdint.h>

#include "db/store.h"

/* Bytes per token of the estimate: BPE tokenizers average about four bytes of English and numbers. */
#define KF_BYTES_PER_TOKEN 4.0

struct kf_profile_cost {
	int refinements;     /* requests of the run that refine a parent */
	int profiled;        /* of those, the ones whose feedback quotes the parent's profile */
	double bytes_mean;   /* the quoted profile's length, mean over `profiled`; 0 when none */
	double tokens_mean;  /* bytes_mean / KF_BYTES_PER_TOKEN */
};

/* Measured on the stored requests: the parent's profile section, rendered again from its stored
 * profile, is looked for in the request's last user turn, so only what was really sent counts. */
int kf_profile_cost(struct kf_store *s, int64_t run_id, struct kf_profile_cost *out, kf_err *err);

#endif
