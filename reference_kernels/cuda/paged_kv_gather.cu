/* Reference kernel for paged_kv_gather: generic (cuda/generic generate: one thread per output element reads its
 * page through the page table). */
#include "cuda/generic/ops.cuh"

namespace {
struct page_gather {
    const float *kv;
    const int *page_table;
    long long NP, PS, D;
    __device__ float operator()(long long i) const {
        const long long d = i % D, j = i / D % (NP * PS), b = i / (D * NP * PS);
        return kv[((long long)page_table[b * NP + j / PS] * PS + j % PS) * D + d];
    }
};
} /* namespace */

extern "C" int kf_launch(const float *kv, const int *page_table, float *out, int B, int NP, int P, int PS, int D,
                         cudaStream_t stream) {
    (void)P;
    return kfg::generate(out, (long long)B * NP * PS * D, page_gather{ kv, page_table, NP, PS, D }, stream);
}
