/* Compiling ahead of the judge (see compile_ahead.h). The request is built exactly as
 * kf_judge_evaluate builds it (eval/judge/judge.c: the task's ABI header and shim, its vendor
 * libraries, the device's architecture): any difference would change the cache key, and the judge
 * would compile the candidate again. tests/test_agent_pipeline.c checks that the judge finds
 * what was compiled here. */
#include "agent/compile_ahead.h"

#include "common/buf.h"
#include "eval/tasks/abi.h"
#include "sandbox/sandbox.h"

int kf_compile_ahead(const struct kf_task *t, enum kf_backend b, int arch, const char *source, size_t len,
		     bool *compiled, bool *cached, double *ms, kf_err *err)
{
	*compiled = *cached = false;
	*ms = 0;
	kf_buf hdr = KF_BUF_INIT, shim = KF_BUF_INIT;
	kf_abi_header(t, b, &hdr);
	kf_abi_shim(t, b, &shim);
	struct kf_compile_req req = { .backend = b, .source = source, .source_len = len, .header = hdr.data,
				      .shim = shim.data, .vendor_libs = t->vendor_libs_allowed, .cuda_arch = arch };
	struct kf_compile_res res;
	int rc = kf_compile(&req, &res, err);
	if (rc == KF_OK) {
		*compiled = true;
		*cached = res.cached;
		*ms = res.ms;
	}
	kf_compile_res_free(&res);
	kf_buf_free(&hdr);
	kf_buf_free(&shim);
	return rc;
}
