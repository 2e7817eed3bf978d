/* Low-precision number formats of task format v2: OCP 8-bit floats (E4M3, E5M2), the OCP MX
 * 4-bit float E2M1 (two per byte, low nibble first) and the MX block-scale format E8M0.
 * Exact decoding and one defined encoding rule, shared by the judge's draws and comparisons
 * (eval/tasks/tensor.c) and the op library's quantisers; the generated task header (eval/tasks/abi.c)
 * carries the same maths as text, and tests/test_abi.c checks the two agree bit for bit.
 *
 * Encoding from float: round to nearest, ties to even; a finite value beyond the largest finite
 * one saturates to it (the OCP "saturating" conversion the MX spec uses), as does E4M3's
 * infinity (E4M3 has none); E5M2 keeps infinities; NaN stays NaN (E4M3 0x7f, E5M2 0x7f, sign
 * kept); E2M1 has no NaN or infinity: NaN encodes as +0. E8M0 (2^(e-127), 0xff NaN) encodes a
 * value as the power of two at or below it (floor(log2 |x|), the MX scale rule); zero and values
 * below 2^-127 give 0x00, infinities and NaN 0xff. */
#ifndef KF_LOWP_H
#define KF_LOWP_H

#include <stdint.h>

#define KF_FP8_E4M3_MAX 448.0
#define KF_FP8_E5M2_MAX 57344.0
#define KF_FP4_E2M1_MAX 6.0
#define KF_E8M0_MIN_EXP (-127)
#define KF_E8M0_MAX_EXP 127

float kf_fp8_e4m3_to_float(uint8_t c);
uint8_t kf_float_to_fp8_e4m3(float f);
float kf_fp8_e5m2_to_float(uint8_t c);
uint8_t kf_float_to_fp8_e5m2(float f);
float kf_fp4_e2m1_to_float(uint8_t nibble); /* the low 4 bits */
uint8_t kf_float_to_fp4_e2m1(float f);      /* a nibble */
float kf_e8m0_to_float(uint8_t c);
uint8_t kf_float_to_e8m0(float f);

#endif
