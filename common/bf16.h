/* bfloat16 storage type and exact conversions (round to nearest even), shared by the
 * judge and the generated candidate headers. */
#ifndef KF_BF16_H
#define KF_BF16_H

#include <stdint.h>
#include <string.h>

typedef uint16_t kf_bf16;

static inline float kf_bf16_to_float(kf_bf16 h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static inline kf_bf16 kf_float_to_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it quiet, keep the sign */
		return (kf_bf16)((u >> 16) | 0x0040u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (kf_bf16)(u >> 16);
}

#endif
