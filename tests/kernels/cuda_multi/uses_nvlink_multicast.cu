/* kforge-test: task=allreduce_sum_bf16 expect=policy_violation reason~=multicast */
/* Would bind every rank's buffers to an NVLink multicast object; refused before it is compiled (multicast is off
 * on kforge's GPU machines), so it never runs. */
#include <cuda.h>

extern "C" int kf_launch(const __nv_bfloat16 *x, __nv_bfloat16 *out, int world, int n, const struct kf_comm *comm,
                         cudaStream_t stream)
{
	(void)x, (void)out, (void)comm, (void)stream;
	CUmulticastObjectProp prop = {};
	prop.numDevices = (unsigned)world;
	prop.size = (size_t)n * sizeof(__nv_bfloat16);
	CUmemGenericAllocationHandle mc;
	return cuMulticastCreate(&mc, &prop) == CUDA_SUCCESS ? 0 : 1;
}
