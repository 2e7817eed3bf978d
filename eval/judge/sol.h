/* Speed of light (DESIGN.md §6): the machine's ceilings (memory bandwidth, arithmetic rate per
 * dtype), measured once per machine and kept in the store, and the derived t_SOL, SOL fraction
 * and SOL score of a measurement. */
#ifndef KF_SOL_H
#define KF_SOL_H

#include <stdbool.h>

#include <cJSON.h>

#include "db/store.h"
#include "eval/tasks/task.h"

struct kf_peaks {
	char key[256];                   /* identifies the machine/device in the store */
	char device[256];                /* human-readable name */
	double bw_bytes_s;               /* bytes read + written per second */
	double flops_s[KF_DTYPE_COUNT];  /* arithmetic rate by compute dtype */
	double sfu_ops_s;                /* transcendentals per second on special-function units;
					    0 where there are none (CPUs: libm's exp is FMAs) */
	int gpus;                        /* a multi-GPU job's GPU count (kf_sol_multi_peaks); 0: one device */
	double nvlink_bytes_s;           /* multi-GPU: what one GPU sends its peers per second (per direction) */
	cJSON *json;                     /* the stored calibration record */
};

/* This machine's ceilings for the backend. CPU: from the store, measured first when the store
 * has none (about a second). GPU: the device's datasheet peaks and a measured copy, recorded in
 * the store each time. */
int kf_sol_peaks(struct kf_store *s, enum kf_backend b, int device, struct kf_peaks *out, kf_err *err);
void kf_sol_peaks_free(struct kf_peaks *p);
/* Measured ceilings are only estimates: one taken while the machine was busy sits low, and an
 * honest kernel would then look faster than light. Before such a verdict the judge calls this
 * to measure again now; each ceiling becomes the higher of the two, and the store keeps it.
 * Datasheet ceilings (devices) are left as they are. */
int kf_sol_confirm(struct kf_store *s, enum kf_backend b, struct kf_peaks *p, kf_err *err);

/* What sets t_SOL: bytes over bandwidth, FLOPs over the arithmetic rate of the task's compute
 * dtype, or transcendentals over the special-function units' rate. */
enum kf_sol_bound { KF_BOUND_MEMORY, KF_BOUND_COMPUTE, KF_BOUND_SFU, KF_BOUND_NVLINK };
const char *kf_sol_bound_name(enum kf_sol_bound b); /* "memory", "compute", "sfu", "nvlink" */

/* A multi-GPU job's ceilings (docs/multi-gpu.md): one GPU's (`one`), plus the job's record from the
 * CUDA library (multi_json: topology, measured peer copy bandwidth, NVLink datasheet), its NVLink
 * bandwidth the higher of measured and datasheet, under its own key (one's key and ":xN") and
 * device name ("... x N"), so the leaderboard groups by device model and GPU count; stored. */
int kf_sol_multi_peaks(struct kf_store *s, const struct kf_peaks *one, int gpus, const char *multi_json,
		       struct kf_peaks *out, kf_err *err);
/* t_SOL in seconds at a shape: the largest of the terms, *bound saying which. A multi-GPU job
 * (p->gpus > 1) splits the task's bytes and FLOPs over its GPUs and adds the NVLink term: the bytes
 * one GPU must send (the spec's nvlink_bytes) over its NVLink bandwidth. The terms are bounds that
 * the best kernel overlaps, so the largest is t_SOL, never their sum. */
double kf_sol_time_s(const struct kf_peaks *p, const struct kf_task *t, const struct kf_shape *s,
		     enum kf_sol_bound *bound);
/* S = 1 / (1 + (t_k - t_sol) / (t_b - t_sol)), SOL-ExecBench's score (1 at light speed, 0.5 at
 * the baseline). Returns NAN when the baseline itself is at or below t_sol. */
double kf_sol_score(double t_k, double t_sol, double t_b);

#endif
