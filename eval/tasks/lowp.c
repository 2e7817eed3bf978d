/* Low-precision formats (see lowp.h): one generic minifloat codec on float bits, integer
 * arithmetic only, so the rounding is exactly the documented one on every machine. */
#include "eval/tasks/lowp.h"

#include <string.h>

#define F32_ABS 0x7fffffffu
#define F32_INF 0x7f800000u
#define F32_MAN_BITS 23
#define F32_BIAS 127

/* A sign-less minifloat: E exponent bits, M mantissa bits, exponent bias, largest finite code. */
struct minifloat {
	int man_bits, bias;
	uint32_t max_code;
	float sub_step; /* the value of mantissa step 1 among subnormals: 2^(1-bias-M) */
};

#define E4M3 (&(const struct minifloat){ 3, 7, 0x7e, 0x1p-9f })
#define E5M2 (&(const struct minifloat){ 2, 15, 0x7b, 0x1p-16f })
#define E2M1 (&(const struct minifloat){ 1, 1, 0x7, 0x1p-1f })

static uint32_t bits_of(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

static float float_of(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* Magnitude code of a finite, non-negative float's bits a: round to nearest even, saturating. */
static uint32_t encode_abs(const struct minifloat *m, uint32_t a)
{
	int fe = (int)(a >> F32_MAN_BITS);
	if (fe == 0)
		return 0; /* float subnormals are far below every format's smallest step */
	int e = fe - F32_BIAS;
	uint32_t mant = (a & 0x7fffffu) | 0x800000u; /* with the hidden bit: |x| = mant * 2^(e-23) */
	uint32_t code;
	int shift;
	if (e >= 1 - m->bias) {
		/* normal: keep man_bits of the fraction; a carry moves into the exponent field */
		shift = F32_MAN_BITS - m->man_bits;
		code = ((uint32_t)(e + m->bias) << m->man_bits) + ((mant & 0x7fffffu) >> shift);
	} else {
		/* subnormal: the count of steps of 2^(1-bias-M) */
		shift = F32_MAN_BITS + 1 - m->bias - m->man_bits - e;
		if (shift > F32_MAN_BITS + 2)
			return 0; /* below half the smallest step */
		code = mant >> shift;
	}
	uint32_t rest = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
	code += rest > half || (rest == half && (code & 1u));
	return code > m->max_code ? m->max_code : code;
}

static float decode_abs(const struct minifloat *m, uint32_t code)
{
	uint32_t exp = code >> m->man_bits, man = code & ((1u << m->man_bits) - 1u);
	if (!exp)
		return (float)man * m->sub_step;
	return float_of(((exp - (uint32_t)m->bias + F32_BIAS) << F32_MAN_BITS) | (man << (F32_MAN_BITS - m->man_bits)));
}

static float with_sign(float v, uint8_t c, int sign_bit)
{
	return (c >> sign_bit) & 1u ? -v : v;
}

float kf_fp8_e4m3_to_float(uint8_t c)
{
	if ((c & 0x7fu) == 0x7fu)
		return with_sign(float_of(0x7fc00000u), c, 7);
	return with_sign(decode_abs(E4M3, c & 0x7fu), c, 7);
}

/* f as an fp8 code of format m: NaN as 0x7f (a NaN in both formats), an infinity as inf_code, the
 * rest rounded to nearest even and saturated. */
static uint8_t float_to_fp8(const struct minifloat *m, uint8_t inf_code, float f)
{
	uint32_t u = bits_of(f), a = u & F32_ABS;
	uint8_t sign = (uint8_t)((u >> 24) & 0x80u);
	if (a > F32_INF)
		return sign | 0x7fu;
	if (a == F32_INF)
		return sign | inf_code;
	return sign | (uint8_t)encode_abs(m, a);
}

/* e4m3 has no infinity: one saturates to the largest finite value. */
uint8_t kf_float_to_fp8_e4m3(float f) { return float_to_fp8(E4M3, 0x7eu, f); }

float kf_fp8_e5m2_to_float(uint8_t c)
{
	uint32_t a = c & 0x7fu;
	if (a >= 0x7cu)
		return with_sign(float_of(a == 0x7cu ? F32_INF : 0x7fc00000u), c, 7);
	return with_sign(decode_abs(E5M2, a), c, 7);
}

uint8_t kf_float_to_fp8_e5m2(float f) { return float_to_fp8(E5M2, 0x7cu, f); }

float kf_fp4_e2m1_to_float(uint8_t nibble)
{
	return with_sign(decode_abs(E2M1, nibble & 0x7u), nibble, 3);
}

uint8_t kf_float_to_fp4_e2m1(float f)
{
	uint32_t u = bits_of(f), a = u & F32_ABS;
	if (a > F32_INF)
		return 0;
	uint8_t sign = (uint8_t)((u >> 28) & 0x8u);
	return sign | (uint8_t)encode_abs(E2M1, a == F32_INF ? bits_of(6.0f) : a);
}

float kf_e8m0_to_float(uint8_t c)
{
	if (c == 0xffu)
		return float_of(0x7fc00000u);
	return c ? float_of((uint32_t)c << F32_MAN_BITS) : 0x1p-127f;
}

uint8_t kf_float_to_e8m0(float f)
{
	uint32_t a = bits_of(f) & F32_ABS;
	if (a >= F32_INF)
		return 0xffu;
	return (uint8_t)(a >> F32_MAN_BITS); /* the biased exponent is floor(log2 |x|) + 127 */
}
