/* Tensor values as the judge handles them: drawing inputs from a task's distributions,
 * poisoning outputs with a NaN pattern no arithmetic produces, converting any dtype to
 * double for comparison. */
#ifndef KF_TENSOR_H
#define KF_TENSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "common/rng.h"
#include "eval/tasks/task.h"

/* Signalling-NaN payloads: arithmetic only ever yields quiet NaNs, so these bit patterns in
 * an output mean "never written". */
#define KF_POISON_F32 0x7fa5a5a5u
#define KF_POISON_16 0x7da5u /* bf16 and f16: a NaN payload in both formats */
#define KF_POISON_I32 0x7fa5a5a5u
#define KF_POISON_8 0xffu /* one-byte dtypes: NaN in fp8 and e8m0, no bool (none for i8/u8/fp4) */
#define KF_POISON_64 0x7fa5a5a5a5a5a5a5ull /* i64 */

/* Table-driven normal draws: fresh values at a few ns per element (see tensor.c). */
struct kf_sampler;
struct kf_sampler *kf_sampler_new(void);
void kf_sampler_free(struct kf_sampler *s);

/* Fills n elements of dtype d with draws from dist. */
void kf_tensor_fill(struct kf_sampler *s, kf_rng *r, const struct kf_dist *dist, enum kf_dtype d, void *dst,
		    int64_t n);
void kf_tensor_poison(enum kf_dtype d, void *dst, int64_t n);
/* Elements still holding the poison pattern; *first gets the first index (or -1). Always 0 for
 * i8, u8 and fp4_e2m1x2, whose every byte is a value. */
int64_t kf_tensor_count_poison(enum kf_dtype d, const void *src, int64_t n, int64_t *first);
/* Values as doubles: exact for every dtype but i64 beyond 2^53; fp4_e2m1x2 gives the packed byte
 * (0..255), e8m0 the scale 2^(e-127). */
void kf_tensor_to_double(enum kf_dtype d, const void *src, double *dst, int64_t n);
double kf_tensor_get(enum kf_dtype d, const void *src, int64_t i);
/* Stores v rounded to dtype d (as a draw is) and returns the stored value. */
double kf_tensor_set(enum kf_dtype d, void *dst, int64_t i, double v);

#endif
