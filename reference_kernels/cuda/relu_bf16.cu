/* Reference kernel for relu_bf16: y = max(x, 0) over n bf16 elements (exact, so bitwise reproducible).
 * The elementwise map of tile/map.cuh: 16-byte vectors, scalar kernel for misaligned pointers. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tile/common.cuh"
#include "tile/map.cuh"

namespace {

struct relu {
    static __device__ __forceinline__ float apply(float x) { return fmaxf(x, 0.0f); }
};

} /* namespace */

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *y, int n, cudaStream_t stream) {
    return kf::map_bf16<relu>(y, x, n, stream);
}
