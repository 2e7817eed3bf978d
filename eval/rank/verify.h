/* Weak verifiers (DESIGN.md §9): each looks at one candidate from another angle and votes pass, fail
 * or abstain, with the evidence for its vote as a JSON object. Some read the judge's recorded result
 * (tests, ragged trials, error margin, timing); some run the candidate again in a sandboxed runner
 * on inputs the judge never drew (ragged, hidden and stress shapes, determinism, consensus probes);
 * one reads the source (static checks); two run it under compute-sanitizer (CUDA); an optional LLM
 * judge reads the source and the task (its votes come from the caller: agent/llm_judge.h). None is
 * a gate: the label model (labelmodel.h) weighs them, the ranking (rank.h) uses the result. Extra
 * runs go through the same public pieces the judge uses (kf_compile, the runner, the buffer areas),
 * and expected outputs come from the task's fp64 oracle or its reference kernel, as in the judge. */
#ifndef KF_VERIFY_H
#define KF_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "common/err.h"
#include "eval/rank/labelmodel.h"
#include "eval/tasks/task.h"

enum kf_verifier {
	KF_VER_TESTS,        /* the judge's correctness battery passed: the label model's anchor */
	KF_VER_RAGGED,       /* the judge's ragged trials, then every ragged shape with fresh seeds */
	KF_VER_HIDDEN,       /* the hidden shapes (never in a prompt, never judged), several seeds */
	KF_VER_STRESS,       /* every stress variant on the ragged and hidden shapes (the judge stresses test shapes) */
	KF_VER_DETERMINISM,  /* repeated runs on the same inputs agree, bitwise or within tolerance per the task */
	KF_VER_ERROR_MARGIN, /* the judge's worst error stayed well under the tolerance */
	KF_VER_STATIC,       /* no forbidden call, extra thread or stream, timer read or token-pasted name */
	KF_VER_TIMING,       /* not faster than light, clocks agree, variance as low as the reference's */
	KF_VER_CONSENSUS,    /* outputs on fixed probe inputs agree with the largest cluster of the others */
	KF_VER_MEMCHECK,     /* compute-sanitizer memcheck clean (CUDA, when the tool and a GPU exist) */
	KF_VER_RACECHECK,    /* compute-sanitizer racecheck clean (likewise) */
	KF_VER_LLM_JUDGE,    /* a language model, shown the task and the source, says it is correct (off by default) */
	KF_VER_COUNT
};
const char *kf_verifier_name(enum kf_verifier v);
int kf_verifier_parse(const char *name, enum kf_verifier *out); /* 0 ok, -1 unknown */
/* One line saying what the verifier checks (for --help and the docs). */
const char *kf_verifier_summary(enum kf_verifier v);

struct kf_verify_opts {
	enum kf_backend backend;
	int device;
	uint64_t seed;            /* base of every draw of the verifiers (never one of the judge's) */
	int ragged_seeds;         /* fresh seeds per ragged shape */
	int hidden_seeds;         /* seeds per hidden shape */
	int stress_seeds;         /* seeds per (stress variant, ragged or hidden shape) */
	int determinism_runs;     /* runs on the same inputs per shape (>= 2) */
	double margin_max;        /* error_margin passes below this (1 = at the tolerance) */
	double max_rse;           /* timing: relative standard error always accepted up to this */
	double rse_ratio;         /* ... and up to this multiple of the reference's */
	double clock_excess;      /* timing: share of disagreeing clock samples tolerated beyond the reference's */
	int probe_blocks;         /* consensus: sketch blocks kept per output tensor and probe */
	int probe_samples;        /* consensus: single elements kept beside the blocks (outputs larger than that) */
	double call_timeout_s, cpu_limit_s;
	size_t mem_limit_bytes;
	double sanitizer_timeout_s; /* wall limit of one compute-sanitizer run */
	bool sanitizers;          /* run compute-sanitizer (CUDA); false: memcheck and racecheck abstain */
};
void kf_verify_opts_default(struct kf_verify_opts *o);

struct kf_vote_rec {
	enum kf_vote vote;
	cJSON *evidence; /* an object: at least "why" (one sentence) */
};

/* A consensus probe: the candidate's outputs on an input every candidate of the task gets (the seed
 * follows from the task's spec hash, the shape and the distribution), kept as a sketch: each output
 * is cut into at most probe_blocks contiguous blocks, and each block keeps (sum w*x, sum w*|x|,
 * sum w) for fixed pseudo-random weights w in [0.5, 1.5]. A block of one element is the element
 * itself; a wrong, missing or misplaced element moves its block's weighted sum. A block's bound is
 * the sum of its elements' tolerances, so an element only slightly out of tolerance hides in a large
 * block: an output with more elements than blocks therefore also keeps probe_samples single elements
 * at fixed pseudo-random positions (blocks of one, after its blocks), which see an error of that kind
 * when it touches a fraction of the output. The probes mirror the oracle-based verifiers: every
 * hidden shape, every ragged and hidden shape under every stress variant, and the benchmark shape,
 * so each kind of bug can be seen by two mechanisms (oracle and peers). */
#define KF_PROBE_KEY_LEN 65
#define KF_PROBE_FIELDS 3 /* per block: weighted sum, weighted absolute sum, weight sum */
struct kf_probe_out {
	char key[KF_PROBE_KEY_LEN]; /* sha256 of what fixes the input and the sketch */
	char shape[128];            /* for people: "M=65 N=33 K=100 (stress large_magnitude)" */
	bool ran;                   /* false: the call failed, no output */
	int n_outputs;
	int count[KF_MAX_TENSORS];  /* blocks (samples included) per output tensor, in order */
	int n;                      /* sum of count */
	double *values;             /* KF_PROBE_FIELDS per block */
};

struct kf_verify_result {
	struct kf_vote_rec votes[KF_VER_COUNT]; /* consensus abstains here (it needs the pool), and so does the
						   LLM judge (its votes come from the ranking's caller) */
	struct kf_probe_out *probes;
	int n_probes;
	double seconds;             /* wall time spent verifying */
	bool partial;               /* this machine cannot run the candidate's backend: the votes that
				       need a run abstained for that reason only, so keep none of it */
};

/* Runs every verifier that needs only this candidate. judge_result is the judge's recorded result
 * (the object kf_judge_evaluate returned). Candidate failures are votes; errors are kforge's own. */
int kf_verify_candidate(const struct kf_task *t, const char *source, size_t len, const cJSON *judge_result,
			const struct kf_verify_opts *o, struct kf_verify_result *out, kf_err *err);
void kf_verify_result_free(struct kf_verify_result *r);

/* Consensus over the candidates of one task: sets[k] holds candidate k's probes. For each probe
 * input, candidate k's output is compared with the largest cluster among the OTHER candidates (two
 * sketches agree when every block's weighted sums differ by at most 2 (atol sum w + rtol (A_a +
 * A_b)), which two outputs each within tolerance of the truth always satisfy); votes[k] gets the
 * vote and its evidence (ids[k] names candidates in it). Abstains where fewer than two others agree. */
struct kf_probe_set {
	const struct kf_probe_out *probes;
	int n;
};
void kf_verify_consensus(const struct kf_task *t, const struct kf_probe_set *sets, const int64_t *ids, int n,
			 struct kf_vote_rec *votes);

/* The static checks alone: a vote with {"findings": [{kind, severity, line, text}]}; "fail" findings
 * (threads, processes, system access, streams, timers, cache pinning, token pasting) vote fail,
 * "warn" findings (state kept across calls) are only recorded. */
void kf_verify_static(const char *source, size_t len, struct kf_vote_rec *out);

/* ---- extra trials, for the verifiers and the labelling battery of bench/verifiers ----
 * A candidate loaded in a sandboxed runner, with the task's oracle and reference kernel beside it.
 * Every trial draws its inputs from the task's distributions (or a stress variant), poisons the
 * outputs, runs the candidate, checks the inputs were not written and every output was, and
 * compares with the expected outputs. A runner that dies is restarted for the next trial (a few
 * times at most). */
struct kf_trials;

struct kf_trial {
	const struct kf_shape *shape;
	uint64_t seed;
	const struct kf_stress *stress; /* NULL: the task's own distributions */
};

struct kf_trial_result {
	bool pass;
	double margin;      /* worst |out - expected| / (atol + rtol |expected|) over the outputs */
	bool bitwise;       /* repeats only: every run equal bit for bit */
	char reason[512];   /* why it failed */
};

/* Compiles (cached) and prepares; the runner starts on the first trial. A candidate that cannot run
 * here (it does not compile, or this machine lacks the backend) gives KF_OK and a reason from
 * kf_trials_unusable. */
int kf_trials_open(const struct kf_task *t, const char *source, size_t len, const struct kf_verify_opts *o,
		   struct kf_trials **out, kf_err *err);
const char *kf_trials_unusable(const struct kf_trials *tr); /* NULL when usable */
int kf_trials_check(struct kf_trials *tr, const struct kf_trial *trial, struct kf_trial_result *res, kf_err *err);
/* Runs the same inputs `runs` times; passes when every run agrees with the first (bitwise for
 * tasks that ask for it, else within tolerance) and every output element was written. */
int kf_trials_repeat(struct kf_trials *tr, const struct kf_trial *trial, int runs, struct kf_trial_result *res,
		     kf_err *err);
/* The consensus probe at shape with a stress variant (or NULL), sketched as the options say (probe_blocks,
 * probe_samples); out->ran false when the call failed. */
int kf_trials_probe(struct kf_trials *tr, const struct kf_shape *shape, const struct kf_stress *stress,
		    struct kf_probe_out *out, kf_err *err);
void kf_trials_close(struct kf_trials *tr);

#endif
