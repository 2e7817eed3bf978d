/* Reference kernel for moe_combine: generic (cuda/generic generate: one thread per output element sums its K
 * routed experts' rows, weighted). */
#include "cuda/generic/ops.cuh"

namespace {
struct combine {
    const float *expert_out, *w;
    const int *idx;
    long long T, K, D;
    __device__ float operator()(long long i) const {
        const long long t = i / D, d = i % D;
        float acc = 0.0f;
        for (long long j = 0; j < K; ++j)
            acc = fmaf(w[t * K + j], expert_out[((long long)idx[t * K + j] * T + t) * D + d], acc);
        return acc;
    }
};
} /* namespace */

extern "C" int kf_launch(const float *expert_out, const int *idx, const float *w, float *y, int T, int E, int K, int D,
                         cudaStream_t stream) {
    (void)E;
    return kfg::generate(y, (long long)T * D, combine{ expert_out, w, idx, T, K, D }, stream);
}
