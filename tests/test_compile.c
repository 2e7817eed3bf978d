/* The compile step (sandbox/compile.c) for CUDA: a kernel is built as SASS for exactly the device it
 * will run on, named by its compute capability, with no PTX left for the driver to compile at load
 * time (there is no cuobjdump here, so the command line says what is embedded); the target is part
 * of the cache key. Needs nvcc (skipped, with a message, without it). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "eval/abi.h"
#include "eval/task.h"
#include "sandbox/sandbox.h"

#define NVCC "/usr/local/cuda/bin/nvcc"

static const char kernel[] =
	"__global__ void add(const float *a, const float *b, float *c, int n)\n"
	"{\n\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n\tif (i < n)\n\t\tc[i] = a[i] + b[i];\n}\n"
	"extern \"C\" int kf_launch(const float *a, const float *b, float *c, int n, cudaStream_t s)\n"
	"{\n\tadd<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);\n\treturn (int)cudaGetLastError();\n}\n";

static struct kf_compile_res build_for(int arch)
{
	if (access(NVCC, X_OK) != 0)
		cr_skip_test("%s is not installed", NVCC);
	struct kf_task *t;
	kf_err err;
	cr_assert_eq(kf_task_find(NULL, "vector_add", &t, &err), KF_OK, "%s", err.msg);
	kf_buf hdr = KF_BUF_INIT, shim = KF_BUF_INIT;
	kf_abi_header(t, KF_BACKEND_CUDA, &hdr);
	kf_abi_shim(t, KF_BACKEND_CUDA, &shim);
	struct kf_compile_req req = { .backend = KF_BACKEND_CUDA, .source = kernel, .source_len = strlen(kernel),
				      .header = hdr.data, .shim = shim.data, .cuda_arch = arch };
	struct kf_compile_res res;
	cr_assert_eq(kf_compile(&req, &res, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(res.verdict, KF_V_OK, "%s\n%s", res.reason, res.log ? res.log : "");
	kf_buf_free(&hdr);
	kf_buf_free(&shim);
	kf_task_free(t);
	return res;
}

Test(compile, a_cuda_kernel_is_built_as_sass_for_the_devices_exact_architecture)
{
	struct kf_compile_res res = build_for(80);
	/* code= names the SASS embedded; a compute_ there would embed PTX for the driver to compile. */
	cr_expect_not_null(strstr(res.flags, "-gencode arch=compute_80,code=sm_80 "), "%s", res.flags);
	cr_expect_null(strstr(res.flags, "code=compute_"), "%s", res.flags);
	kf_compile_res_free(&res);
}

Test(compile, hopper_and_later_get_the_architecture_specific_target_and_hopper_is_the_default)
{
	struct kf_compile_res h = build_for(90), dflt = build_for(0);
	cr_expect_not_null(strstr(h.flags, "arch=compute_90a,code=sm_90a"), "%s", h.flags);
	cr_expect_str_eq(dflt.flags, h.flags);
	cr_expect_str_eq(dflt.key, h.key);
	kf_compile_res_free(&h);
	kf_compile_res_free(&dflt);
}

Test(compile, the_target_is_part_of_the_cache_key)
{
	struct kf_compile_res a = build_for(80), b = build_for(90);
	cr_expect_str_neq(a.key, b.key);
	cr_expect_str_neq(a.so_path, b.so_path);
	kf_compile_res_free(&a);
	kf_compile_res_free(&b);
}
