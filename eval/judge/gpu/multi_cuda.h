/* The judge's multi-GPU device operations (docs/multi-gpu.md), in libkforge-cuda.so beside the
 * buffer areas (eval/judge/area.h) and found there by their one symbol: peer access to every rank's
 * buffers, a timer that starts every rank together (hold kernels released by one host store) and
 * reports each rank's window, and the machine's multi-GPU record (topology through NVML, measured
 * peer copy bandwidth, NVLink datasheet figures). Plain C: kforge itself links no CUDA. */
#ifndef KF_MULTI_CUDA_H
#define KF_MULTI_CUDA_H

#include <stddef.h>

#include "common/err.h"

#define KF_CUDA_MULTI_SYMBOL "kf_cuda_multi_ops"

/* One rank's share of a job, called by the timer with the rank's device current. Returns the
 * kernel's own return code (0 success). */
typedef int (*kf_rank_launch_fn)(void *ctx, int rank, void *stream);

struct kf_cuda_multi_ops {
	int (*device_count)(int *n, kf_err *err);
	/* Makes a device current in the judge's thread: the buffer areas' kernels launch on their
	 * own device's stream, which must be the current device's. */
	void (*use)(int device);
	/* Read-write access for every device of the job (devices[0..world)) to each rank's mapping
	 * (bases[r], bytes[r]: a judge area), so trusted kernels in the judge reach their peers. */
	int (*share)(void *const *bases, const size_t *bytes, const int *devices, int world, kf_err *err);
	/* One job: on each rank's stream a hold, the start event, launch(ctx, r, stream), the stop
	 * event; then one release for all, every device synchronised. rank_ms[r] is rank r's window; *rc
	 * the first non-zero return of launch (0 if none). */
	int (*time_ranks)(const int *devices, void *const *streams, int world, kf_rank_launch_fn launch, void *ctx,
			  double *rank_ms, int *rc, kf_err *err);
	/* JSON object text (caller frees): "gpus", "devices" (NVML topology, NvLink links up), "pairs"
	 * (common ancestor per pair), "peer_copy_bytes_s" (measured, one direction, the slowest pair),
	 * "peer_copy_bidir_bytes_s", "nvlink_datasheet_bytes_s" (per direction per GPU, 0 unknown). */
	int (*describe)(const int *devices, int world, char **json, kf_err *err);
};

typedef const struct kf_cuda_multi_ops *(*kf_cuda_multi_ops_fn)(void);

/* multi_kernels.cu: launches the hold kernel; returns a cudaError_t as int. */
#ifdef __cplusplus
extern "C"
#endif
int kf_multi_hold_launch(const volatile unsigned *release, unsigned long long timeout_ns, void *stream);

#endif
