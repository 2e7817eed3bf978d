/* The CUDA judge's own kernels: fresh inputs drawn on the device (a counter-based generator,
 * so no state and any order of threads gives the same values), a byte comparison against the
 * judge's own copy to notice writes to inputs, a check of the redzones around every buffer, a count of poisoned (never written) elements, and the
 * output comparison against a reference kernel's output. Used wherever shapes are large (the
 * timing loop, the bench-shape trial) so gigabytes never cross PCIe. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp8.h>
#include <stdint.h>

#include "eval/judge/compare_rule.h"
#include "eval/judge/gpu/cuda_kernels.h"

#define THREADS 256
#define MAX_BLOCKS 4096

__device__ static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

__device__ static double unit(uint64_t bits) { return (double)(bits >> 11) * 0x1.0p-53; }

/* The int branch: a uniform integer in [a, b], exactly, over the whole int32 range, by Lemire's
 * multiply-and-reject on 64-bit counter-based draws as on the host (eval/tasks/tensor.c): the high half
 * of draw * span is the value; the rare low halves below 2^64 mod span are redrawn from a further
 * mix, so every value is equally likely. No float on the way (24 bits would round the bounds). */
__device__ static int32_t draw_int(const struct kf_cuda_dist d, uint64_t seed, uint64_t i)
{
	int64_t lo = (int64_t)d.a;
	uint64_t span = (uint64_t)((int64_t)d.b - lo) + 1;
	uint64_t x = mix(seed + i * 0x9e3779b97f4a7c15ULL);
	uint64_t low = x * span;
	if (low < span) {
		uint64_t threshold = (0 - span) % span;
		while (low < threshold) {
			x = mix(x ^ 0x632be59bd9b4e019ULL);
			low = x * span;
		}
	}
	return (int32_t)(lo + (int64_t)__umul64hi(x, span));
}

__device__ static float draw(const struct kf_cuda_dist d, uint64_t seed, uint64_t i)
{
	uint64_t b1 = mix(seed + i * 0x9e3779b97f4a7c15ULL), b2 = mix(b1 ^ 0x632be59bd9b4e019ULL);
	double u = unit(b1);
	switch (d.kind) {
	case KF_CUDA_DIST_NORMAL: {
		double r = sqrt(-2.0 * log(u > 1e-300 ? u : 1e-300));
		return (float)(d.a + d.b * r * cospi(2.0 * unit(b2)));
	}
	case KF_CUDA_DIST_UNIFORM:
		return (float)(d.a + (d.b - d.a) * u);
	case KF_CUDA_DIST_TIES: {
		int level = min((int)(u * d.levels), d.levels - 1);
		double v = d.a + (d.b - d.a) * level / (d.levels - 1);
		return (float)(v + (unit(b2) - 0.5) * 2e-3 * fmax(fabs(v), 1.0));
	}
	default:
		/* Only i32 tensors take the int distribution (fill's int branch draws them exactly). */
		return (float)draw_int(d, seed, i);
	}
}

__global__ static void fill(void *dst, int dtype, int64_t n, struct kf_cuda_dist d, uint64_t seed)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
		float v = draw(d, seed, (uint64_t)i);
		switch (dtype) {
		case KF_CUDA_F32: ((float *)dst)[i] = v; break;
		case KF_CUDA_BF16: ((__nv_bfloat16 *)dst)[i] = __float2bfloat16_rn(v); break;
		case KF_CUDA_F16: ((__half *)dst)[i] = __float2half_rn(v); break;
		/* fp8 and fp4 conversions round to nearest even and saturate, as eval/tasks/lowp.c does */
		case KF_CUDA_FP8_E4M3: ((__nv_fp8_e4m3 *)dst)[i] = __nv_fp8_e4m3(v); break;
		case KF_CUDA_FP8_E5M2: ((__nv_fp8_e5m2 *)dst)[i] = __nv_fp8_e5m2(v); break;
		case KF_CUDA_FP4_E2M1X2:
			((__nv_fp4x2_e2m1 *)dst)[i] = __nv_fp4x2_e2m1(make_float2(v, draw(d, seed ^ 0x5851f42d4c957f2dULL, (uint64_t)i)));
			break;
		case KF_CUDA_I8: ((int8_t *)dst)[i] = (int8_t)draw_int(d, seed, (uint64_t)i); break;
		case KF_CUDA_U8:
		case KF_CUDA_BOOL: ((uint8_t *)dst)[i] = (uint8_t)draw_int(d, seed, (uint64_t)i); break;
		case KF_CUDA_E8M0: ((uint8_t *)dst)[i] = (uint8_t)(draw_int(d, seed, (uint64_t)i) + 127); break;
		case KF_CUDA_I64: ((int64_t *)dst)[i] = draw_int(d, seed, (uint64_t)i); break;
		default: ((int32_t *)dst)[i] = draw_int(d, seed, (uint64_t)i); break;
		}
	}
}

/* The first 8-byte word (byte offset) where a and b differ, as an atomic minimum. */
__global__ static void diff(const unsigned char *a, const unsigned char *b, int64_t bytes, unsigned long long *first)
{
	int64_t words = bytes / 8;
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < words; i += (int64_t)gridDim.x * blockDim.x)
		if (((const uint64_t *)a)[i] != ((const uint64_t *)b)[i]) {
			atomicMin(first, (unsigned long long)i * 8);
			break;
		}
	if (blockIdx.x == 0 && threadIdx.x == 0)
		for (int64_t k = words * 8; k < bytes; k++)
			if (a[k] != b[k]) {
				atomicMin(first, (unsigned long long)k);
				break;
			}
}

/* The first byte that no longer holds the redzone pattern, as an atomic minimum. */
__global__ static void pattern_check(const unsigned char *src, int64_t bytes, unsigned char pattern,
				     unsigned long long *first)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < bytes; i += (int64_t)gridDim.x * blockDim.x)
		if (src[i] != pattern) {
			atomicMin(first, (unsigned long long)i);
			break;
		}
}

__global__ static void count_poison(const void *src, int elem_bytes, int64_t n, unsigned long long *out)
{
	unsigned long long c = 0;
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
		c += elem_bytes == 1   ? ((const uint8_t *)src)[i] == KF_POISON_8
		     : elem_bytes == 2 ? ((const uint16_t *)src)[i] == KF_CUDA_POISON_16
		     : elem_bytes == 8 ? ((const uint64_t *)src)[i] == KF_POISON_64
				       : ((const uint32_t *)src)[i] == KF_CUDA_POISON_32;
	if (c)
		atomicAdd(out, c);
}

__device__ static double load(const void *p, int dtype, int64_t i)
{
	switch (dtype) {
	case KF_CUDA_F32: return ((const float *)p)[i];
	case KF_CUDA_BF16: return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
	case KF_CUDA_F16: return __half2float(((const __half *)p)[i]);
	case KF_CUDA_I8: return ((const int8_t *)p)[i];
	case KF_CUDA_U8:
	case KF_CUDA_BOOL: return ((const uint8_t *)p)[i];
	case KF_CUDA_I64: return (double)((const int64_t *)p)[i];
	case KF_CUDA_FP8_E4M3: return (float)((const __nv_fp8_e4m3 *)p)[i];
	case KF_CUDA_FP8_E5M2: return (float)((const __nv_fp8_e5m2 *)p)[i];
	case KF_CUDA_FP4_E2M1X2: return ((const uint8_t *)p)[i]; /* the packed byte, as on the host */
	case KF_CUDA_E8M0: return (float)((const __nv_fp8_e8m0 *)p)[i];
	default: return ((const int32_t *)p)[i];
	}
}

/* Non-negative doubles (+inf included) order like their bit patterns, so a maximum can be an
 * integer atomic. */
__device__ static void max_bits(unsigned long long *dst, double v)
{
	atomicMax(dst, (unsigned long long)__double_as_longlong(v));
}

__global__ static void compare(const void *got, const void *want, int dtype, int64_t n, double atol, double rtol,
			       struct kf_cuda_cmp *out)
{
	unsigned long long bad = 0, first = ~0ull;
	struct kf_cmp_elem worst = { 0, 0, 0 };
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
		struct kf_cmp_elem e;
		if (!kf_cmp_rule(load(got, dtype, i), load(want, dtype, i), atol, rtol, &e)) {
			bad++;
			first = min(first, (unsigned long long)i);
		}
		worst.abs_err = fmax(worst.abs_err, e.abs_err);
		worst.rel_err = fmax(worst.rel_err, e.rel_err);
		worst.margin = fmax(worst.margin, e.margin);
	}
	for (int d = 16; d > 0; d /= 2) {
		bad += __shfl_down_sync(0xffffffffu, bad, d);
		first = min(first, __shfl_down_sync(0xffffffffu, first, d));
		worst.abs_err = fmax(worst.abs_err, __shfl_down_sync(0xffffffffu, worst.abs_err, d));
		worst.rel_err = fmax(worst.rel_err, __shfl_down_sync(0xffffffffu, worst.rel_err, d));
		worst.margin = fmax(worst.margin, __shfl_down_sync(0xffffffffu, worst.margin, d));
	}
	if (threadIdx.x % 32)
		return;
	if (bad) {
		atomicAdd(&out->n_bad, bad);
		atomicMin(&out->first_bad, first);
	}
	max_bits(&out->max_abs, worst.abs_err);
	max_bits(&out->max_rel, worst.rel_err);
	max_bits(&out->margin, worst.margin);
}

static int blocks_for(int64_t n)
{
	int64_t b = (n + THREADS - 1) / THREADS;
	return (int)(b < 1 ? 1 : b > MAX_BLOCKS ? MAX_BLOCKS : b);
}

extern "C" int kf_cuda_fill(void *dst, int dtype, int64_t n, struct kf_cuda_dist d, uint64_t seed, cudaStream_t s)
{
	fill<<<blocks_for(n), THREADS, 0, s>>>(dst, dtype, n, d, seed);
	return cudaGetLastError();
}

extern "C" int kf_cuda_diff(const void *a, const void *b, int64_t bytes, unsigned long long *scratch,
			    unsigned long long *first, cudaStream_t s)
{
	cudaMemsetAsync(scratch, 0xff, sizeof *scratch, s);
	diff<<<blocks_for(bytes / 8), THREADS, 0, s>>>((const unsigned char *)a, (const unsigned char *)b, bytes, scratch);
	cudaMemcpyAsync(first, scratch, sizeof *first, cudaMemcpyDeviceToHost, s);
	return cudaStreamSynchronize(s);
}

extern "C" int kf_cuda_pattern_check(const void *src, int64_t bytes, unsigned char pattern,
				     unsigned long long *scratch, unsigned long long *first, cudaStream_t s)
{
	cudaMemsetAsync(scratch, 0xff, sizeof *scratch, s);
	pattern_check<<<blocks_for(bytes), THREADS, 0, s>>>((const unsigned char *)src, bytes, pattern, scratch);
	cudaMemcpyAsync(first, scratch, sizeof *first, cudaMemcpyDeviceToHost, s);
	return cudaStreamSynchronize(s);
}

extern "C" int kf_cuda_count_poison(const void *src, int elem_bytes, int64_t n, unsigned long long *scratch,
				    unsigned long long *out, cudaStream_t s)
{
	cudaMemsetAsync(scratch, 0, sizeof *scratch, s);
	count_poison<<<blocks_for(n), THREADS, 0, s>>>(src, elem_bytes, n, scratch);
	cudaMemcpyAsync(out, scratch, sizeof *out, cudaMemcpyDeviceToHost, s);
	return cudaStreamSynchronize(s);
}

extern "C" int kf_cuda_compare(const void *got, const void *want, int dtype, int64_t n, double atol, double rtol,
			       struct kf_cuda_cmp *scratch, struct kf_cuda_cmp *out, cudaStream_t s)
{
	const struct kf_cuda_cmp start = { 0, ~0ull, 0, 0, 0 };
	cudaMemcpyAsync(scratch, &start, sizeof start, cudaMemcpyHostToDevice, s);
	compare<<<blocks_for(n), THREADS, 0, s>>>(got, want, dtype, n, atol, rtol, scratch);
	cudaMemcpyAsync(out, scratch, sizeof *out, cudaMemcpyDeviceToHost, s);
	return cudaStreamSynchronize(s);
}
