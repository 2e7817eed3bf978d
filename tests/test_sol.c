/* Speed of light (eval/judge/sol.c): t_SOL is the largest of bytes over bandwidth, FLOPs over the rate of
 * the task's compute dtype, and transcendentals over the special-function units' rate, and it says
 * which term set it; the SOL score is SOL-ExecBench's. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "eval/judge/sol.h"

/* 1e6 elements: 4 MB moved, 2e6 FLOPs, one exp each (1e6 transcendentals), at shape n. */
static const char spec[] =
	"{\"name\": \"expish\", \"level\": 1, \"description\": \"y = exp(x) * x\", \"symbols\": [\"n\"],\n"
	" \"inputs\": [{\"name\": \"x\", \"dtype\": \"bf16\", \"shape\": [\"n\"],"
	" \"dist\": {\"kind\": \"normal\", \"mean\": 0, \"std\": 1}}],\n"
	" \"outputs\": [{\"name\": \"y\", \"dtype\": \"bf16\", \"shape\": [\"n\"]}],\n"
	" \"shapes\": {\"bench\": {\"cpu\": {\"n\": 1000000}}, \"test\": [{\"n\": 64}], \"ragged\": [{\"n\": 65}],"
	" \"hidden\": [{\"n\": 96}]},\n"
	" \"tolerance\": {\"bf16\": {\"atol\": 0.01, \"rtol\": 0.01}}, \"flops\": \"2*n\", \"bytes\": \"4*n\",\n"
	" \"sfu_ops\": \"n\", \"compute_dtype\": \"f32\", \"min_runtime_ms\": {\"cpu\": 1},\n"
	" \"reference\": {\"cpu\": \"reference_kernels/cpu/expish.c\"}, \"oracle\": \"reference_kernels/oracle/expish.c\"}\n";

static struct kf_task *task(void)
{
	struct kf_task *t;
	kf_err err;
	cr_assert_eq(kf_task_parse("tasks/level1/expish.json", spec, strlen(spec), &t, &err), KF_OK, "%s", err.msg);
	return t;
}

/* 1 MB/s of bandwidth: the bytes take 4 s. */
static struct kf_peaks peaks(double f32_flops_s, double bf16_flops_s, double sfu_ops_s)
{
	struct kf_peaks p = { .bw_bytes_s = 1e6, .sfu_ops_s = sfu_ops_s };
	for (int d = 0; d < KF_DTYPE_COUNT; d++)
		p.flops_s[d] = bf16_flops_s;
	p.flops_s[KF_DTYPE_F32] = f32_flops_s;
	return p;
}

Test(sol, the_largest_term_sets_t_sol_and_names_the_bound)
{
	struct kf_task *t = task();
	const struct kf_shape *s = &t->bench[KF_BACKEND_CPU];
	enum kf_sol_bound b;
	struct kf_peaks p = peaks(1e9, 1e9, 1e9);
	cr_expect_float_eq(kf_sol_time_s(&p, t, s, &b), 4.0, 1e-12);
	cr_expect_eq(b, KF_BOUND_MEMORY);
	p = peaks(1e5, 1e9, 1e9); /* 2e6 FLOPs at 1e5/s: 20 s */
	cr_expect_float_eq(kf_sol_time_s(&p, t, s, &b), 20.0, 1e-12);
	cr_expect_eq(b, KF_BOUND_COMPUTE);
	p = peaks(1e9, 1e9, 1e5); /* 1e6 exps at 1e5/s: 10 s */
	cr_expect_float_eq(kf_sol_time_s(&p, t, s, &b), 10.0, 1e-12);
	cr_expect_eq(b, KF_BOUND_SFU);
	cr_expect_str_eq(kf_sol_bound_name(b), "sfu");
	kf_task_free(t);
}

Test(sol, flops_run_at_the_compute_dtypes_rate_not_the_data_dtypes)
{
	struct kf_task *t = task();
	enum kf_sol_bound b;
	/* bf16 data, f32 arithmetic: a fast tensor-core rate must not shrink the bound. */
	struct kf_peaks p = peaks(1e5, 1e12, 0);
	cr_expect_float_eq(kf_sol_time_s(&p, t, &t->bench[KF_BACKEND_CPU], &b), 20.0, 1e-12);
	cr_expect_eq(b, KF_BOUND_COMPUTE);
	kf_task_free(t);
}

Test(sol, a_machine_without_special_function_units_has_no_sfu_term)
{
	struct kf_task *t = task();
	enum kf_sol_bound b;
	struct kf_peaks p = peaks(1e9, 1e9, 0);
	cr_expect_float_eq(kf_sol_time_s(&p, t, &t->bench[KF_BACKEND_CPU], &b), 4.0, 1e-12);
	cr_expect_eq(b, KF_BOUND_MEMORY);
	kf_task_free(t);
}

Test(sol, the_score_is_one_at_light_speed_and_one_half_at_the_baseline)
{
	cr_expect_float_eq(kf_sol_score(1.0, 1.0, 3.0), 1.0, 1e-12);
	cr_expect_float_eq(kf_sol_score(3.0, 1.0, 3.0), 0.5, 1e-12);
	cr_expect(kf_sol_score(6.0, 1.0, 3.0) < 0.5);
	cr_expect(isnan(kf_sol_score(2.0, 1.0, 1.0)), "a baseline at light speed leaves no scale");
}
