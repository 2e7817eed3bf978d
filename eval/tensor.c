/* Tensor values (see tensor.h). */
#include "eval/tensor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/bf16.h"
#include "common/buf.h"

#define KF_SAMPLER_BITS 16
#define KF_SAMPLER_SIZE (1u << KF_SAMPLER_BITS)
#define KF_SAMPLER_ANGLES 1024
#define KF_TIES_JITTER 1e-3 /* relative nudge that keeps near-ties distinct */

struct kf_sampler {
	float normal[KF_SAMPLER_SIZE]; /* exact N(0,1) draws */
	float cos_a[KF_SAMPLER_ANGLES], sin_a[KF_SAMPLER_ANGLES];
};

struct kf_sampler *kf_sampler_new(void)
{
	struct kf_sampler *s = kf_xmalloc(sizeof *s);
	kf_rng r;
	kf_rng_seed(&r, 0x6b666f726765ULL);
	for (uint32_t i = 0; i < KF_SAMPLER_SIZE; i++)
		s->normal[i] = (float)kf_rng_normal(&r);
	for (uint32_t k = 0; k < KF_SAMPLER_ANGLES; k++) {
		double a = 6.283185307179586 * (k + 0.5) / KF_SAMPLER_ANGLES;
		s->cos_a[k] = (float)cos(a);
		s->sin_a[k] = (float)sin(a);
	}
	return s;
}

void kf_sampler_free(struct kf_sampler *s) { free(s); }

/* A normal draw without transcendental calls: two independent table draws a, b rotated by a
 * random angle, a*cos + b*sin, is again exactly N(0,1), and takes 2^42 distinct values. */
static inline double fast_normal(const struct kf_sampler *s, uint64_t bits)
{
	uint32_t i = (uint32_t)(bits & (KF_SAMPLER_SIZE - 1));
	uint32_t j = (uint32_t)((bits >> KF_SAMPLER_BITS) & (KF_SAMPLER_SIZE - 1));
	uint32_t k = (uint32_t)((bits >> (2 * KF_SAMPLER_BITS)) & (KF_SAMPLER_ANGLES - 1));
	return (double)s->normal[i] * s->cos_a[k] + (double)s->normal[j] * s->sin_a[k];
}

#define KF_FILL_CHUNK 4096

/* A uniform integer in [lo, lo + span - 1] (span <= 2^32, so the whole int32 range fits) by
 * Lemire's multiply-and-reject on 64-bit draws: the high half of draw * span is the value, and
 * the rare low halves below 2^64 mod span are redrawn, so every value is exactly equally likely.
 * No floating point on the way: a float carries 24 bits, and int32 bounds do not survive it. */
static int32_t draw_int(kf_rng *r, int64_t lo, uint64_t span)
{
	unsigned __int128 m = (unsigned __int128)kf_rng_next(r) * span;
	if ((uint64_t)m < span) {
		uint64_t threshold = (0 - span) % span; /* 2^64 mod span */
		while ((uint64_t)m < threshold)
			m = (unsigned __int128)kf_rng_next(r) * span;
	}
	return (int32_t)(lo + (int64_t)(m >> 64));
}

/* The span of an int distribution: the task loader keeps both bounds in int32 and lo < hi. */
static uint64_t int_span(const struct kf_dist *d)
{
	return (uint64_t)((int64_t)d->b - (int64_t)d->a) + 1;
}

/* Draws n <= KF_FILL_CHUNK values of one distribution as floats: one tight loop per kind. */
static void draw_chunk(const struct kf_sampler *s, kf_rng *r, const struct kf_dist *d, float *out, int n)
{
	switch (d->kind) {
	case KF_DIST_NORMAL:
		for (int i = 0; i < n; i++)
			out[i] = (float)(d->a + d->b * fast_normal(s, kf_rng_next(r)));
		break;
	case KF_DIST_UNIFORM:
		for (int i = 0; i < n; i++)
			out[i] = (float)(d->a + (d->b - d->a) * ((double)(kf_rng_next(r) >> 11) * 0x1.0p-53));
		break;
	case KF_DIST_TIES:
		for (int i = 0; i < n; i++) {
			uint64_t bits = kf_rng_next(r);
			int level = (int)((double)(bits >> 11) * 0x1.0p-53 * d->levels);
			if (level >= d->levels)
				level = d->levels - 1;
			double v = d->a + (d->b - d->a) * level / (d->levels - 1);
			double jitter = ((double)(bits & 0x7ff) / 0x7ff - 0.5) * 2 * KF_TIES_JITTER;
			out[i] = (float)(v + jitter * (fabs(v) > 1 ? fabs(v) : 1));
		}
		break;
	case KF_DIST_INT:
		/* Only i32 tensors take this distribution (kf_tensor_fill draws them exactly); a float
		 * tensor would round the integers to its own precision. */
		for (int i = 0; i < n; i++)
			out[i] = (float)draw_int(r, (int64_t)d->a, int_span(d));
		break;
	}
}

static uint16_t to_f16(float f)
{
	_Float16 h = (_Float16)f;
	uint16_t u;
	memcpy(&u, &h, sizeof u);
	return u;
}

void kf_tensor_fill(struct kf_sampler *s, kf_rng *r, const struct kf_dist *dist, enum kf_dtype d, void *dst,
		    int64_t n)
{
	if (dist->kind == KF_DIST_INT && d == KF_DTYPE_I32) {
		int64_t lo = (int64_t)dist->a;
		uint64_t span = int_span(dist);
		for (int64_t i = 0; i < n; i++)
			((int32_t *)dst)[i] = draw_int(r, lo, span);
		return;
	}
	float chunk[KF_FILL_CHUNK];
	for (int64_t base = 0; base < n; base += KF_FILL_CHUNK) {
		int m = (int)(n - base < KF_FILL_CHUNK ? n - base : KF_FILL_CHUNK);
		draw_chunk(s, r, dist, d == KF_DTYPE_F32 ? (float *)dst + base : chunk, m);
		switch (d) {
		case KF_DTYPE_F32:
			break;
		case KF_DTYPE_BF16:
			for (int i = 0; i < m; i++)
				((uint16_t *)dst)[base + i] = kf_float_to_bf16(chunk[i]);
			break;
		case KF_DTYPE_F16:
			for (int i = 0; i < m; i++)
				((uint16_t *)dst)[base + i] = to_f16(chunk[i]);
			break;
		case KF_DTYPE_I32:
			for (int i = 0; i < m; i++)
				((int32_t *)dst)[base + i] = (int32_t)chunk[i];
			break;
		case KF_DTYPE_COUNT:
			break;
		}
	}
}

void kf_tensor_poison(enum kf_dtype d, void *dst, int64_t n)
{
	if (kf_dtype_size(d) == 2) {
		for (int64_t i = 0; i < n; i++)
			((uint16_t *)dst)[i] = KF_POISON_16;
	} else {
		for (int64_t i = 0; i < n; i++)
			((uint32_t *)dst)[i] = KF_POISON_F32;
	}
}

int64_t kf_tensor_count_poison(enum kf_dtype d, const void *src, int64_t n, int64_t *first)
{
	int64_t count = 0;
	*first = -1;
	if (kf_dtype_size(d) == 2) {
		const uint16_t *p = src;
		for (int64_t i = 0; i < n; i++)
			if (p[i] == KF_POISON_16 && count++ == 0)
				*first = i;
	} else {
		const uint32_t *p = src;
		for (int64_t i = 0; i < n; i++)
			if (p[i] == KF_POISON_F32 && count++ == 0)
				*first = i;
	}
	return count;
}

double kf_tensor_get(enum kf_dtype d, const void *src, int64_t i)
{
	switch (d) {
	case KF_DTYPE_F32: return ((const float *)src)[i];
	case KF_DTYPE_BF16: return kf_bf16_to_float(((const uint16_t *)src)[i]);
	case KF_DTYPE_F16: {
		_Float16 h;
		memcpy(&h, (const uint16_t *)src + i, sizeof h);
		return (double)h;
	}
	case KF_DTYPE_I32: return ((const int32_t *)src)[i];
	case KF_DTYPE_COUNT: break;
	}
	return NAN;
}

double kf_tensor_set(enum kf_dtype d, void *dst, int64_t i, double v)
{
	switch (d) {
	case KF_DTYPE_F32: ((float *)dst)[i] = (float)v; break;
	case KF_DTYPE_BF16: ((uint16_t *)dst)[i] = kf_float_to_bf16((float)v); break;
	case KF_DTYPE_F16: ((uint16_t *)dst)[i] = to_f16((float)v); break;
	case KF_DTYPE_I32: ((int32_t *)dst)[i] = (int32_t)v; break;
	case KF_DTYPE_COUNT: return NAN;
	}
	return kf_tensor_get(d, dst, i);
}

void kf_tensor_to_double(enum kf_dtype d, const void *src, double *dst, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		dst[i] = kf_tensor_get(d, src, i);
}
