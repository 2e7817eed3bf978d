/* Speed of light (DESIGN.md §6): the machine's ceilings (memory bandwidth, arithmetic rate per
 * dtype), measured once per machine and kept in the store, and the derived t_SOL, SOL fraction
 * and SOL score of a measurement. */
#ifndef KF_SOL_H
#define KF_SOL_H

#include <stdbool.h>

#include <cJSON.h>

#include "db/store.h"
#include "eval/task.h"

struct kf_peaks {
	char key[256];                   /* identifies the machine/device in the store */
	char device[256];                /* human-readable name */
	double bw_bytes_s;               /* bytes read + written per second */
	double flops_s[KF_DTYPE_COUNT];  /* arithmetic rate by compute dtype */
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

/* t_SOL in seconds at a shape; *memory_bound says which term set it. */
double kf_sol_time_s(const struct kf_peaks *p, const struct kf_task *t, const struct kf_shape *s,
		     bool *memory_bound);
/* S = 1 / (1 + (t_k - t_sol) / (t_b - t_sol)), SOL-ExecBench's score (1 at light speed, 0.5 at
 * the baseline). Returns NAN when the baseline itself is at or below t_sol. */
double kf_sol_score(double t_k, double t_sol, double t_b);

#endif
