/* Buffer areas: where the tensors a kernel works on live, seen from the judge. One area is
 * shared with a runner (its fd goes to the runner), another holds the judge's own runs of the
 * reference kernel. The CPU keeps both in host memory (a memfd the runner maps); CUDA keeps them
 * in device memory, shared through a CUDA IPC handle written into the memfd. The judge's logic is
 * the same for both: only this table of operations differs. */
#ifndef KF_AREA_H
#define KF_AREA_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "eval/judge/compare.h"
#include "eval/tasks/task.h"

struct kf_area;

/* The judge's areas are laid out as a row of regions, one per tensor, each page-aligned and
 * followed by a guard of KF_AREA_GUARD_BYTES: the CPU runner leaves the guards unmapped (a
 * kernel running past an end-aligned buffer faults at once) and maps the input regions read-only
 * from a sealed memfd; on devices the guards are patterned redzones the judge checks. */
#define KF_AREA_GUARD_BYTES 4096u
/* After the last region: wider, so a far overrun of the last buffer still lands in the area. */
#define KF_AREA_TAIL_GUARD_BYTES (1u << 20)
struct kf_area_layout {
	size_t bytes;     /* the whole area: a guard before the first region and after each (the tail
			     guard after the last) */
	int n, n_readonly;/* regions; the first n_readonly hold inputs */
	size_t start[KF_MAX_TENSORS], end[KF_MAX_TENSORS];
};

struct kf_area_ops {
	const char *name;
	int (*create)(size_t bytes, int device, struct kf_area **out, kf_err *err);
	int (*create_laid_out)(const struct kf_area_layout *l, int device, struct kf_area **out, kf_err *err);
	void (*destroy)(struct kf_area *a);
	/* The memfd a runner maps, and its size. */
	int (*runner_fd)(struct kf_area *a, size_t *bytes);
	/* The sealed memfd of the inputs (with the layout header) a CPU runner maps read-only, and
	 * its size; -1 where there is none (devices, or an area made by create). */
	int (*runner_ro_fd)(struct kf_area *a, size_t *bytes);
	/* Address kernels use for offset off (host pointer, or device pointer). */
	void *(*ptr)(struct kf_area *a, size_t off);
	/* A host pointer the judge may read and write directly, or NULL (device memory). */
	void *(*host_view)(struct kf_area *a, size_t off);
	int (*upload)(struct kf_area *a, size_t off, const void *src, size_t bytes, kf_err *err);
	int (*download)(struct kf_area *a, size_t off, void *dst, size_t bytes, kf_err *err);
	int (*poison)(struct kf_area *a, size_t off, enum kf_dtype d, int64_t n, kf_err *err);
	/* Draws n fresh values in place (timing loop); NULL: the judge draws on the host and uploads. */
	int (*fill)(struct kf_area *a, size_t off, enum kf_dtype d, int64_t n, const struct kf_dist *dist,
		    uint64_t seed, kf_err *err);
	/* Where two byte ranges (in a and b, areas of the same kind) first differ: *first is the byte
	 * offset of the first difference (on devices, of the first differing 8-byte word), -1 when
	 * equal. Compared where the data lives; a judge's copy, never a hash a candidate could invert. */
	int (*diff)(struct kf_area *a, size_t off, struct kf_area *b, size_t b_off, size_t bytes, int64_t *first,
		    kf_err *err);
	/* Fills a byte range with a pattern byte, and finds the first byte of a range that no longer
	 * holds it (*first -1: intact): the canaries and redzones around every buffer. */
	int (*pattern_fill)(struct kf_area *a, size_t off, size_t bytes, uint8_t pattern, kf_err *err);
	int (*pattern_check)(struct kf_area *a, size_t off, size_t bytes, uint8_t pattern, int64_t *first, kf_err *err);
	/* The number of elements still holding the poison pattern, counted where the data lives. */
	int (*count_poison)(struct kf_area *a, size_t off, enum kf_dtype d, int64_t n, int64_t *out, kf_err *err);
	/* Copies a range from another area of the same kind (inputs for the judge's reference run). */
	int (*copy_from)(struct kf_area *dst, size_t dst_off, struct kf_area *src, size_t src_off, size_t bytes,
			 kf_err *err);
	/* Compares n elements (dtype d) at got_off with the expected values, same dtype, at want_off
	 * in area want, where the data lives (the rule and statistics of kf_compare_typed). */
	int (*compare)(struct kf_area *a, size_t got_off, struct kf_area *want, size_t want_off, enum kf_dtype d,
		       int64_t n, struct kf_tolerance tol, struct kf_cmp *out, kf_err *err);
	/* Stream for trusted kernels run by the judge (NULL on the CPU), and waiting for them. */
	void *(*stream)(struct kf_area *a);
	int (*sync)(struct kf_area *a, kf_err *err);
	/* Evicts caches between timed iterations (last-level cache, or L2 + persisting lines). */
	int (*flush)(struct kf_area *a, uint64_t salt, kf_err *err);
	size_t (*flush_bytes)(struct kf_area *a);
	/* Devices only (NULL on the CPU, which calibrates itself in sol.c): a JSON description of
	 * the device with its speed-of-light ceilings (key, device, bw_bytes_s, flops_s by dtype,
	 * measured ceilings, clocks, versions), and the clocks right now (MHz, 0 if unknown) with the
	 * device's mask of reasons they are held down (NVML's clock event reasons; 0 if unknown). */
	int (*describe_device)(int device, char **json, kf_err *err);
	int (*clocks)(int device, unsigned *sm_mhz, unsigned *mem_mhz, unsigned long long *reasons);
	/* Devices only: the compute capability (major*10 + minor) kernels are built for, 0 if unknown. */
	int (*arch)(int device);
	/* Devices only: the device's UUID as CUDA_VISIBLE_DEVICES names it (KF_GPU_UUID_MAX bytes at most);
	 * -1 and "" if unknown. */
	int (*uuid)(int device, char *out, size_t len);
};

/* The operations for a backend: built in for the CPU; for CUDA from build/libkforge-cuda.so,
 * loaded on first use (KF_EINPUT when this machine cannot run CUDA). */
int kf_area_ops_for(enum kf_backend b, const struct kf_area_ops **out, kf_err *err);
/* What kernels for backend b on this device are compiled for (kf_compile_req.cuda_arch): 0 on
 * the CPU and wherever the device cannot say, which builds for the default target. */
int kf_area_arch(enum kf_backend b, int device);

/* The CUDA library's entry point (its one exported symbol). */
#define KF_CUDA_LIB_NAME "libkforge-cuda.so"
#define KF_CUDA_OPS_SYMBOL "kf_cuda_area_ops"
typedef const struct kf_area_ops *(*kf_cuda_area_ops_fn)(void);

#endif
