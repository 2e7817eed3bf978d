/* Tensor values (see tensor.h). */
#include "eval/tasks/tensor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/bf16.h"
#include "common/buf.h"
#include "eval/tasks/lowp.h"

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
static int64_t draw_int(kf_rng *r, int64_t lo, uint64_t span)
{
	unsigned __int128 m = (unsigned __int128)kf_rng_next(r) * span;
	if ((uint64_t)m < span) {
		uint64_t threshold = (0 - span) % span; /* 2^64 mod span */
		while ((uint64_t)m < threshold)
			m = (unsigned __int128)kf_rng_next(r) * span;
	}
	return lo + (int64_t)(m >> 64);
}

/* The span of an int distribution: the task loader keeps both bounds within the tensor's type
 * (at most +-2^53 for i64) and lo < hi. */
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
		/* Only integer tensors take this distribution (kf_tensor_fill draws them exactly); a
		 * float tensor would round the integers to its own precision. */
		for (int i = 0; i < n; i++)
			out[i] = (float)draw_int(r, (int64_t)d->a, int_span(d));
		break;
	default: /* the generators fill whole tensors (fill_generated) */
		break;
	}
}

#ifdef __FLT16_MANT_DIG__
static uint16_t to_f16(float f)
{
	_Float16 h = (_Float16)f;
	uint16_t u;
	memcpy(&u, &h, sizeof u);
	return u;
}

static double from_f16(uint16_t u)
{
	_Float16 h;
	memcpy(&h, &u, sizeof h);
	return (double)h;
}
#else
/* Compilers without _Float16 on this target (clang before 15 on x86-64): the same IEEE binary16
 * conversions in software, round-to-nearest-even narrowing and exact widening. */
#define F16_ABS_INF_FROM 0x477ff000u /* |f| >= 65520 rounds to infinity */
#define F16_ABS_NORMAL_FROM 0x38800000u /* |f| >= 2^-14 is a normal half */
#define F16_REBIAS (112u << 23)       /* float's exponent bias 127 less half's 15 */

static uint16_t to_f16(float f)
{
	uint32_t u, a;
	memcpy(&u, &f, sizeof u);
	uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
	a = u & 0x7fffffffu;
	if (a > 0x7f800000u) /* NaN: quiet, with the payload's top bits */
		return sign | 0x7e00u | (uint16_t)((a >> 13) & 0x3ffu);
	if (a >= F16_ABS_INF_FROM)
		return sign | 0x7c00u;
	if (a >= F16_ABS_NORMAL_FROM)
		return sign | (uint16_t)((a + 0xfffu + ((a >> 13) & 1u) - F16_REBIAS) >> 13);
	float mag;
	memcpy(&mag, &a, sizeof mag);
	return sign | (uint16_t)nearbyintf(mag * 0x1p24f); /* subnormal units of 2^-24, exact scaling */
}

static double from_f16(uint16_t h)
{
	double sign = h & 0x8000u ? -1.0 : 1.0;
	int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
	if (exp == 0x1f)
		return man ? NAN : sign * INFINITY;
	return sign * (exp ? ldexp(1024 + man, exp - 25) : ldexp(man, -24));
}
#endif

/* Stores integer draws exactly: e8m0 draws the exponent k of the scale 2^k. */
static void fill_int(kf_rng *r, const struct kf_dist *dist, enum kf_dtype d, void *dst, int64_t n)
{
	int64_t lo = (int64_t)dist->a;
	uint64_t span = int_span(dist);
	for (int64_t i = 0; i < n; i++) {
		int64_t v = draw_int(r, lo, span);
		switch (d) {
		case KF_DTYPE_I32: ((int32_t *)dst)[i] = (int32_t)v; break;
		case KF_DTYPE_I64: ((int64_t *)dst)[i] = v; break;
		case KF_DTYPE_I8: ((int8_t *)dst)[i] = (int8_t)v; break;
		case KF_DTYPE_E8M0: ((uint8_t *)dst)[i] = (uint8_t)(v + 127); break;
		default: ((uint8_t *)dst)[i] = (uint8_t)v; break; /* u8, bool */
		}
	}
}

/* Rounds m float draws once to dtype d (fp4_e2m1x2: 2m draws, two per byte, low nibble first). */
static void store_chunk(enum kf_dtype d, const float *chunk, void *dst, int64_t base, int m)
{
	switch (d) {
	case KF_DTYPE_BF16:
		for (int i = 0; i < m; i++)
			((uint16_t *)dst)[base + i] = kf_float_to_bf16(chunk[i]);
		break;
	case KF_DTYPE_F16:
		for (int i = 0; i < m; i++)
			((uint16_t *)dst)[base + i] = to_f16(chunk[i]);
		break;
	case KF_DTYPE_FP8_E4M3:
		for (int i = 0; i < m; i++)
			((uint8_t *)dst)[base + i] = kf_float_to_fp8_e4m3(chunk[i]);
		break;
	case KF_DTYPE_FP8_E5M2:
		for (int i = 0; i < m; i++)
			((uint8_t *)dst)[base + i] = kf_float_to_fp8_e5m2(chunk[i]);
		break;
	case KF_DTYPE_FP4_E2M1X2:
		for (int i = 0; i < m; i++)
			((uint8_t *)dst)[base + i] = (uint8_t)(kf_float_to_fp4_e2m1(chunk[2 * i]) |
							       kf_float_to_fp4_e2m1(chunk[2 * i + 1]) << 4);
		break;
	default: /* f32 is drawn in place; integer dtypes take fill_int */
		break;
	}
}

/* k distinct integers from [0, range) in random order (Floyd's algorithm, then a shuffle). */
static void distinct_below(kf_rng *r, int64_t range, int64_t k, double *out)
{
	for (int64_t j = range - k, m = 0; j < range; j++, m++) {
		int64_t t = (int64_t)kf_rng_below(r, (uint64_t)j + 1);
		bool seen = false;
		for (int64_t q = 0; q < m && !seen; q++)
			seen = out[q] == (double)t;
		out[m] = seen ? (double)j : (double)t;
	}
	for (int64_t m = k - 1; m > 0; m--) {
		int64_t q = (int64_t)kf_rng_below(r, (uint64_t)m + 1);
		double tmp = out[m];
		out[m] = out[q], out[q] = tmp;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The v2 kinds whose elements depend on each other (rows, distinct values, sorted offsets) and the
 * constant and choice kinds: computed as doubles, then stored (rounded once) in dtype d. e8m0 and
 * block scales hold 2^k. */
static void fill_generated(kf_rng *r, const struct kf_dist *g, enum kf_dtype d, void *dst, int64_t n)
{
	double *v = kf_xmalloc(sizeof *v * (size_t)(n ? n : 1));
	int64_t row = g->row > 0 ? g->row : n;
	switch (g->kind) {
	case KF_DIST_CONSTANT:
	case KF_DIST_CHOICE:
		for (int64_t i = 0; i < n; i++)
			v[i] = g->choices[g->n_choices > 1 ? kf_rng_below(r, (uint64_t)g->n_choices) : 0];
		if (d == KF_DTYPE_E8M0)
			for (int64_t i = 0; i < n; i++)
				v[i] = ldexp(1.0, (int)v[i]);
		break;
	case KF_DIST_NORMALIZED_ROWS:
		for (int64_t base = 0; base < n; base += row) {
			double norm = 0;
			for (int64_t i = base; i < base + row; i++)
				v[i] = kf_rng_normal(r), norm += v[i] * v[i];
			for (int64_t i = base; i < base + row; i++)
				v[i] /= sqrt(norm > 0 ? norm : 1);
		}
		break;
	case KF_DIST_PERMUTATION:
		for (int64_t base = 0; base < n; base += row)
			distinct_below(r, row, row, v + base);
		break;
	case KF_DIST_TOPK_INDICES:
		for (int64_t base = 0; base < n; base += row)
			distinct_below(r, g->range, row, v + base);
		break;
	case KF_DIST_TOPK_WEIGHTS:
		for (int64_t base = 0; base < n; base += row) {
			double sum = 0;
			for (int64_t i = base; i < base + row; i++)
				v[i] = 0.05 + 0.95 * kf_rng_uniform(r), sum += v[i];
			for (int64_t i = base; i < base + row; i++)
				v[i] /= sum;
			qsort(v + base, (size_t)row, sizeof *v, cmp_double);
			for (int64_t i = 0; i < row / 2; i++) { /* descending, as a router ranks them */
				double tmp = v[base + i];
				v[base + i] = v[base + row - 1 - i], v[base + row - 1 - i] = tmp;
			}
		}
		break;
	case KF_DIST_SORTED_OFFSETS:
		for (int64_t i = 0; i < n; i++)
			v[i] = (double)kf_rng_below(r, (uint64_t)g->range + 1);
		qsort(v, (size_t)n, sizeof *v, cmp_double);
		if (n > 0)
			v[0] = 0;
		if (n > 1)
			v[n - 1] = (double)g->range;
		break;
	case KF_DIST_PAGE_TABLE: {
		/* a partial Fisher-Yates over [0, range): n distinct pages in random order */
		int64_t *pages = kf_xmalloc(sizeof *pages * (size_t)g->range);
		for (int64_t i = 0; i < g->range; i++)
			pages[i] = i;
		for (int64_t i = 0; i < n; i++) {
			int64_t q = i + (int64_t)kf_rng_below(r, (uint64_t)(g->range - i));
			int64_t tmp = pages[i];
			pages[i] = pages[q], pages[q] = tmp;
			v[i] = (double)pages[i];
		}
		free(pages);
		break;
	}
	case KF_DIST_BLOCK_SCALES:
		for (int64_t i = 0; i < n; i++)
			v[i] = ldexp(1.0, (int)g->a + (int)kf_rng_below(r, (uint64_t)(g->b - g->a + 1)));
		break;
	default:
		break;
	}
	for (int64_t i = 0; i < n; i++)
		kf_tensor_set(d, dst, i, v[i]);
	free(v);
}

void kf_tensor_fill(struct kf_sampler *s, kf_rng *r, const struct kf_dist *dist, enum kf_dtype d, void *dst,
		    int64_t n)
{
	if (dist->kind == KF_DIST_INT && kf_dtype_is_int(d)) {
		fill_int(r, dist, d, dst, n);
		return;
	}
	if (dist->kind >= KF_DIST_CONSTANT) {
		fill_generated(r, dist, d, dst, n);
		return;
	}
	float chunk[2 * KF_FILL_CHUNK];
	int per = d == KF_DTYPE_FP4_E2M1X2 ? 2 : 1; /* values per element */
	for (int64_t base = 0; base < n; base += KF_FILL_CHUNK) {
		int m = (int)(n - base < KF_FILL_CHUNK ? n - base : KF_FILL_CHUNK);
		draw_chunk(s, r, dist, d == KF_DTYPE_F32 ? (float *)dst + base : chunk, per * m);
		store_chunk(d, chunk, dst, base, m);
	}
}

/* One byte, 0xff: NaN in fp8_e4m3, fp8_e5m2 and e8m0, not a bool. i8, u8 and fp4_e2m1x2 have no
 * byte that is not a value, so unwritten elements of theirs are found by the comparison alone. */
static bool has_poison(enum kf_dtype d)
{
	return d != KF_DTYPE_I8 && d != KF_DTYPE_U8 && d != KF_DTYPE_FP4_E2M1X2;
}

void kf_tensor_poison(enum kf_dtype d, void *dst, int64_t n)
{
	switch (kf_dtype_size(d)) {
	case 1:
		memset(dst, KF_POISON_8, (size_t)n);
		break;
	case 2:
		for (int64_t i = 0; i < n; i++)
			((uint16_t *)dst)[i] = KF_POISON_16;
		break;
	case 8:
		for (int64_t i = 0; i < n; i++)
			((uint64_t *)dst)[i] = KF_POISON_64;
		break;
	default:
		for (int64_t i = 0; i < n; i++)
			((uint32_t *)dst)[i] = KF_POISON_F32;
	}
}

int64_t kf_tensor_count_poison(enum kf_dtype d, const void *src, int64_t n, int64_t *first)
{
	int64_t count = 0;
	*first = -1;
	if (!has_poison(d))
		return 0;
	for (int64_t i = 0; i < n; i++) {
		bool p;
		switch (kf_dtype_size(d)) {
		case 1: p = ((const uint8_t *)src)[i] == KF_POISON_8; break;
		case 2: p = ((const uint16_t *)src)[i] == KF_POISON_16; break;
		case 8: p = ((const uint64_t *)src)[i] == KF_POISON_64; break;
		default: p = ((const uint32_t *)src)[i] == KF_POISON_F32; break;
		}
		if (p && count++ == 0)
			*first = i;
	}
	return count;
}

double kf_tensor_get(enum kf_dtype d, const void *src, int64_t i)
{
	const uint8_t *b = src;
	switch (d) {
	case KF_DTYPE_F32: return ((const float *)src)[i];
	case KF_DTYPE_BF16: return kf_bf16_to_float(((const uint16_t *)src)[i]);
	case KF_DTYPE_F16: return from_f16(((const uint16_t *)src)[i]);
	case KF_DTYPE_I32: return ((const int32_t *)src)[i];
	case KF_DTYPE_I8: return ((const int8_t *)src)[i];
	case KF_DTYPE_U8: return b[i];
	case KF_DTYPE_BOOL: return b[i]; /* a byte other than 0 or 1 is no bool and fails */
	case KF_DTYPE_I64: return (double)((const int64_t *)src)[i];
	case KF_DTYPE_FP8_E4M3: return kf_fp8_e4m3_to_float(b[i]);
	case KF_DTYPE_FP8_E5M2: return kf_fp8_e5m2_to_float(b[i]);
	case KF_DTYPE_FP4_E2M1X2: return b[i]; /* the packed byte: oracles decode both nibbles */
	case KF_DTYPE_E8M0: return kf_e8m0_to_float(b[i]);
	case KF_DTYPE_COUNT: break;
	}
	return NAN;
}

double kf_tensor_set(enum kf_dtype d, void *dst, int64_t i, double v)
{
	uint8_t *b = dst;
	switch (d) {
	case KF_DTYPE_F32: ((float *)dst)[i] = (float)v; break;
	case KF_DTYPE_BF16: ((uint16_t *)dst)[i] = kf_float_to_bf16((float)v); break;
	case KF_DTYPE_F16: ((uint16_t *)dst)[i] = to_f16((float)v); break;
	case KF_DTYPE_I32: ((int32_t *)dst)[i] = (int32_t)v; break;
	case KF_DTYPE_I8: ((int8_t *)dst)[i] = (int8_t)v; break;
	case KF_DTYPE_U8: b[i] = (uint8_t)v; break;
	case KF_DTYPE_BOOL: b[i] = v != 0; break;
	case KF_DTYPE_I64: ((int64_t *)dst)[i] = (int64_t)v; break;
	case KF_DTYPE_FP8_E4M3: b[i] = kf_float_to_fp8_e4m3((float)v); break;
	case KF_DTYPE_FP8_E5M2: b[i] = kf_float_to_fp8_e5m2((float)v); break;
	case KF_DTYPE_FP4_E2M1X2: b[i] = (uint8_t)v; break;
	case KF_DTYPE_E8M0: b[i] = kf_float_to_e8m0((float)v); break;
	case KF_DTYPE_COUNT: return NAN;
	}
	return kf_tensor_get(d, dst, i);
}

void kf_tensor_to_double(enum kf_dtype d, const void *src, double *dst, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		dst[i] = kf_tensor_get(d, src, i);
}
