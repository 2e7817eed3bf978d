/* How the CPU runner maps the buffer area, as the judge lays it out (eval/judge/area_cpu.c writes it,
 * sandbox/runner_cpu.c reads it before the seccomp filter). The area is a row of regions, one per
 * tensor, each followed by a guard the runner leaves unmapped (PROT_NONE), so a kernel that runs
 * past the end of an end-aligned buffer faults at once. Input regions come from a memfd sealed
 * against writes (mapped read-only), output regions from another (read-write). The header lives in
 * the first KF_CPU_LAYOUT_HEADER bytes of the read-only memfd; input data follows it. */
#ifndef KF_CPU_LAYOUT_H
#define KF_CPU_LAYOUT_H

#include <stdint.h>

#define KF_CPU_LAYOUT_MAGIC 0x6b666c79u /* "kfly" */
#define KF_CPU_LAYOUT_HEADER 4096u
#define KF_CPU_LAYOUT_MAX 16

enum kf_cpu_segment_fd { KF_CPU_SEG_RO = 0, KF_CPU_SEG_RW = 1 };

struct kf_cpu_segment {
	uint64_t area_off; /* where it lies in the area (page-aligned) */
	uint64_t len;      /* bytes (a whole number of pages) */
	uint64_t file_off; /* where it lies in its memfd */
	uint32_t fd;       /* enum kf_cpu_segment_fd */
	uint32_t pad;
};

struct kf_cpu_layout {
	uint32_t magic, n;
	uint64_t area_bytes; /* the whole area, guards included */
	struct kf_cpu_segment seg[KF_CPU_LAYOUT_MAX];
};

_Static_assert(sizeof(struct kf_cpu_layout) <= KF_CPU_LAYOUT_HEADER, "the layout must fit its header");

#endif
