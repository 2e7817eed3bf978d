/* The CUDA judge's helper kernels (cuda_kernels.cu), callable from C. Return a cudaError_t. */
#ifndef KF_CUDA_KERNELS_H
#define KF_CUDA_KERNELS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "eval/tasks/tensor.h"

/* Same codes as enum kf_dtype and enum kf_dist_kind, spelled out for the .cu side. */
enum { KF_CUDA_F32 = 0, KF_CUDA_BF16 = 1, KF_CUDA_F16 = 2, KF_CUDA_I32 = 3, KF_CUDA_I8 = 4, KF_CUDA_U8 = 5,
       KF_CUDA_BOOL = 6, KF_CUDA_I64 = 7, KF_CUDA_FP8_E4M3 = 8, KF_CUDA_FP8_E5M2 = 9, KF_CUDA_FP4_E2M1X2 = 10,
       KF_CUDA_E8M0 = 11 };
enum { KF_CUDA_DIST_NORMAL = 0, KF_CUDA_DIST_UNIFORM = 1, KF_CUDA_DIST_TIES = 2, KF_CUDA_DIST_INT = 3 };
#define KF_CUDA_POISON_32 KF_POISON_F32
#define KF_CUDA_POISON_16 KF_POISON_16

struct kf_cuda_dist {
	int kind;
	double a, b;
	int levels;
};

/* A comparison's result on the device; the maxima are doubles' bit patterns. */
struct kf_cuda_cmp {
	unsigned long long n_bad, first_bad, max_abs, max_rel, margin;
};

#ifdef __cplusplus
extern "C" {
#endif
int kf_cuda_fill(void *dst, int dtype, int64_t n, struct kf_cuda_dist d, uint64_t seed, cudaStream_t s);
/* *first: byte offset of the first differing 8-byte word of a and b (or the first differing byte
 * of the tail), ~0 when they are equal. */
int kf_cuda_diff(const void *a, const void *b, int64_t bytes, unsigned long long *scratch, unsigned long long *first,
		 cudaStream_t s);
/* *first: the first byte of src that is not pattern, ~0 when all are. */
int kf_cuda_pattern_check(const void *src, int64_t bytes, unsigned char pattern, unsigned long long *scratch,
			  unsigned long long *first, cudaStream_t s);
int kf_cuda_count_poison(const void *src, int elem_bytes, int64_t n, unsigned long long *scratch,
			 unsigned long long *out, cudaStream_t s);
int kf_cuda_compare(const void *got, const void *want, int dtype, int64_t n, double atol, double rtol,
		    struct kf_cuda_cmp *scratch, struct kf_cuda_cmp *out, cudaStream_t s);
#ifdef __cplusplus
}
#endif

#endif
