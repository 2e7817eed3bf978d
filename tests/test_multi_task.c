/* Multi-GPU (level-4) tasks without a GPU: the specs load and are well formed for several GPUs, the generated
 * CUDA header and shim carry the per-rank ABI (struct kf_comm, the comm slot), the CPU backend refuses them with
 * a clear error, and the speed of light splits the work over the GPUs and adds the NVLink term. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "eval/judge/sol.h"
#include "eval/tasks/abi.h"
#include "eval/tasks/multi.h"
#include "eval/tasks/task.h"
#include "tests/support/cli.h"

static const char *const level4[] = { "allreduce_sum_bf16", "reducescatter_sum_bf16", "allgather_matmul_bf16",
				      "matmul_reducescatter_bf16" };

static struct kf_task *find(const char *name)
{
	struct kf_task *t = NULL;
	kf_err err;
	cr_assert_eq(kf_task_find(NULL, name, &t, &err), KF_OK, "%s", err.msg);
	return t;
}

Test(multi_task, every_level4_task_is_multi_gpu_and_cuda_only)
{
	for (size_t i = 0; i < sizeof level4 / sizeof level4[0]; i++) {
		struct kf_task *t = find(level4[i]);
		kf_err err;
		cr_expect(kf_task_multi_gpu(t), "%s", t->name);
		cr_expect_eq(kf_task_multi_check(t, &err), KF_OK, "%s: %s", t->name, err.msg);
		cr_expect(kf_task_has_backend(t, KF_BACKEND_CUDA), "%s", t->name);
		cr_expect_not(kf_task_has_backend(t, KF_BACKEND_CPU), "%s", t->name);
		cr_expect_eq(kf_task_check_files(t, KF_BACKEND_CPU, &err), KF_EINPUT, "%s", t->name);
		cr_expect(strstr(err.msg, "multi-GPU task"), "%s", err.msg);
		cr_expect_eq(kf_task_check_files(t, KF_BACKEND_CUDA, &err), KF_OK, "%s: %s", t->name, err.msg);
		cr_expect_gt(kf_task_nvlink_bytes(t, &t->bench[KF_BACKEND_CUDA]), 0, "%s", t->name);
		kf_task_free(t);
	}
}

Test(multi_task, the_cuda_header_declares_the_comm_and_the_shim_passes_it)
{
	struct kf_task *t = find("allreduce_sum_bf16");
	kf_buf h = KF_BUF_INIT, s = KF_BUF_INIT, p = KF_BUF_INIT;
	kf_abi_header(t, KF_BACKEND_CUDA, &h);
	kf_abi_shim(t, KF_BACKEND_CUDA, &s);
	kf_abi_prototype(t, KF_BACKEND_CUDA, &p);
	cr_expect(strstr(h.data, "struct kf_comm {"), "the header defines struct kf_comm");
	cr_expect(strstr(h.data, "peer[8]"), "the comm holds every peer");
	cr_expect(strstr(p.data, "const struct kf_comm *comm, cudaStream_t stream)"), "%s", p.data);
	cr_expect(strstr(s.data, "(const struct kf_comm *)bufs[15]"), "%s", s.data);
	kf_buf_free(&h);
	kf_buf_free(&s);
	kf_buf_free(&p);
	kf_task_free(t);
}

Test(multi_task, a_spec_whose_tensors_do_not_lead_with_world_is_refused)
{
	struct kf_task *t = find("allreduce_sum_bf16");
	free(t->tensors[0].dims[0]);
	t->tensors[0].dims[0] = strdup("n");
	kf_err err;
	cr_expect_eq(kf_task_multi_check(t, &err), KF_EINPUT);
	cr_expect(strstr(err.msg, "lead with the dimension \"world\""), "%s", err.msg);
	kf_task_free(t);
}

/* 2 GPUs at 1 GB/s of memory and 1 GB/s of NVLink each: the all-reduce of n elements moves 4n bytes of memory
 * per GPU (8n over the job, halved) and sends 2n over NVLink: the NVLink term, 2n / 1e9 s, is below the memory
 * term; at a quarter of that NVLink bandwidth it sets t_SOL. */
Test(multi_task, sol_splits_the_work_over_the_gpus_and_adds_nvlink)
{
	struct kf_task *t = find("allreduce_sum_bf16");
	struct kf_peaks p = { .bw_bytes_s = 1e9, .gpus = 2, .nvlink_bytes_s = 1e9 };
	for (int d = 0; d < KF_DTYPE_COUNT; d++)
		p.flops_s[d] = 1e15;
	struct kf_shape s = kf_task_multi_shape(t, &t->bench[KF_BACKEND_CUDA], 2);
	double n = (double)s.v[kf_task_symbol(t, "n")];
	enum kf_sol_bound b;
	cr_expect_float_eq(kf_sol_time_s(&p, t, &s, &b), 4 * n / 1e9, 1e-12);
	cr_expect_eq(b, KF_BOUND_MEMORY);
	p.nvlink_bytes_s = 0.25e9;
	cr_expect_float_eq(kf_sol_time_s(&p, t, &s, &b), 2 * n / 0.25e9, 1e-12);
	cr_expect_eq(b, KF_BOUND_NVLINK);
	cr_expect_str_eq(kf_sol_bound_name(b), "nvlink");
	kf_task_free(t);
}

Test(multi_task, submit_on_the_cpu_backend_says_the_task_needs_gpus, .timeout = 60)
{
	struct kf_cli_result r;
	kf_err err;
	char dir[PATH_MAX], db[PATH_MAX + 16];
	cr_assert_eq(kf_cli_tmpdir(dir, &err), KF_OK, "%s", err.msg);
	snprintf(db, sizeof db, "%s/k.db", dir);
	const char *args[] = { "submit", "--task", "allreduce_sum_bf16", "--backend", "cpu", "--db", db,
			       "examples/cuda_multi/allreduce_sum_bf16.cu", NULL };
	cr_assert_eq(kf_cli_run(args, NULL, 50, &r, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(r.exit_code, 2, "exit %d, stderr: %s", r.exit_code, r.err);
	cr_expect(kf_cli_is_one_error_line(&r), "stderr: %s", r.err);
	cr_expect(strstr(r.err, "multi-GPU task (level 4)") && strstr(r.err, "--backend cuda"), "stderr: %s", r.err);
	kf_cli_result_free(&r);
	kf_rm_rf(dir);
}

/* The job's machine record: one GPU's, renamed "<model> x N" (the leaderboard's device, so each GPU count is
 * ranked on its own) under key "<key>:xN", with the topology and the NVLink ceiling the higher of measured and
 * datasheet. */
Test(multi_task, the_jobs_machine_is_named_by_model_and_gpu_count)
{
	struct kf_peaks one = { .key = "cuda:NVIDIA H100 80GB HBM3:sm_90:132", .device = "NVIDIA H100 80GB HBM3",
				.bw_bytes_s = 3.35e12 };
	one.json = cJSON_Parse("{\"key\": \"cuda:NVIDIA H100 80GB HBM3:sm_90:132\", \"device\": \"NVIDIA H100 80GB HBM3\"}");
	const char *multi = "{\"gpus\": 2, \"pairs\": [{\"a\": 0, \"b\": 1, \"common_ancestor\": \"system\"}],"
			    " \"peer_copy_bytes_s\": 3.7e11, \"nvlink_datasheet_bytes_s\": 4.5e11}";
	struct kf_peaks job;
	kf_err err;
	cr_assert_eq(kf_sol_multi_peaks(NULL, &one, 2, multi, &job, &err), KF_OK, "%s", err.msg);
	cr_expect_str_eq(job.device, "NVIDIA H100 80GB HBM3 x 2");
	cr_expect_str_eq(job.key, "cuda:NVIDIA H100 80GB HBM3:sm_90:132:x2");
	cr_expect_eq(job.gpus, 2);
	cr_expect_float_eq(job.nvlink_bytes_s, 4.5e11, 1);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(job.json, "device")), "NVIDIA H100 80GB HBM3 x 2");
	cr_expect(cJSON_IsArray(cJSON_GetObjectItem(cJSON_GetObjectItem(job.json, "multi_gpu"), "pairs")));
	cr_expect_eq(kf_sol_multi_peaks(NULL, &one, 2, "{\"gpus\": 2}", &job, &err), KF_EINTERNAL,
		     "a record without a measured peer bandwidth is refused");
	kf_sol_peaks_free(&job);
	kf_sol_peaks_free(&one);
}
