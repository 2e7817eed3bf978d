/* Reference kernel for silu_bf16: y = x / (1 + exp(-x)), fp32 inside, bf16 in and out. For x << 0, exp(-x) becomes
 * inf and y a correctly signed zero. The elementwise map of tile/map.cuh: 16-byte vectors, scalar kernel for
 * misaligned pointers. The exp and the division are the hardware approximations (a few ulp, far inside the
 * bf16 tolerance): with expf and an IEEE division the arithmetic, not memory, bounded it on an H200 (70% of
 * copy there, 86% on an H100); __fdividef's 0 for a denominator beyond 2^126 is the true
 * quotient rounded away below 1e-37. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/map.cuh"

namespace {

struct silu {
    static __device__ __forceinline__ float apply(float x) { return __fdividef(x, 1.0f + __expf(-x)); }
};

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *y, int n, cudaStream_t stream) {
    return kf::map_bf16<silu>(y, x, n, stream);
}
