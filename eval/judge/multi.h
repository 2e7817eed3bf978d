/* The multi-GPU judge (level-4 tasks, docs/multi-gpu.md): one evaluation of a candidate on several
 * GPUs of one host. kf_judge_evaluate hands every level-4 task here. */
#ifndef KF_JUDGE_MULTI_H
#define KF_JUDGE_MULTI_H

#include <cJSON.h>

#include "eval/judge/judge.h"

/* The GPU count the well-posedness check lays the job out for. */
#define KF_MULTI_DEFAULT_GPUS 2

/* As kf_judge_evaluate, on o->gpus GPUs (every visible GPU when 0), rank r on GPU (o->device + r) modulo
 * the GPU count: every rank's buffers owned by the
 * judge, the candidate run by one multi-GPU runner, the reference and the vendor baseline (NCCL)
 * run by the judge itself, the slowest rank timed from a common start. */
int kf_judge_multi_evaluate(const struct kf_task *t, const struct kf_peaks *peaks, const char *source, size_t len,
			    const struct kf_judge_opts *o, cJSON **result, kf_err *err);

/* The GPUs the NVIDIA driver shows (its /proc entries; 0 without a driver): what a multi-GPU job can have,
 * read without loading CUDA. */
int kf_judge_multi_visible_gpus(void);

/* kf_judge_check_task for a level-4 task: on 2 GPUs' worth of data at its last test shape, the fp64
 * oracle's outputs must fail the tolerance when all zero, and move between two seeds. */
int kf_judge_multi_check_task(const struct kf_task *t, kf_err *err);

#endif
