/* Prompt assembly (agent/prompt.c): the task prompt carries the generated header, the shapes,
 * dtype, tolerance and rules, the device's peaks and the task's t_SOL, and never a hidden shape;
 * feedback covers compile errors (trimmed), wrong answers, other failures and success; templates
 * with unknown placeholders are refused by name. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/diversity.h"
#include "agent/prompt.h"
#include "common/fs.h"
#include "eval/judge/profile.h"
#include "eval/tasks/abi.h"

static struct kf_task *task;
static struct kf_peaks peaks;
static char tmpdir[PATH_MAX];

static void setup(void)
{
	kf_err err;
	cr_assert_eq(kf_task_find(NULL, "vector_add", &task, &err), KF_OK, "%s", err.msg);
	memset(&peaks, 0, sizeof peaks);
	snprintf(peaks.device, sizeof peaks.device, "Test CPU (2 cores)");
	peaks.bw_bytes_s = 20e9;
	for (int d = 0; d < KF_DTYPE_COUNT; d++)
		peaks.flops_s[d] = 100e9;
}

static void teardown(void)
{
	kf_task_free(task);
	if (tmpdir[0])
		kf_rm_rf(tmpdir);
}

TestSuite(agent_prompt, .init = setup, .fini = teardown);

static const char *content(const cJSON *messages, int i)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(messages, i), "content"));
}

static const char *role(const cJSON *messages, int i)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(messages, i), "role"));
}

Test(agent_prompt, task_prompt_holds_the_header_shapes_tolerance_peaks_and_speed_of_light)
{
	cJSON *m = NULL;
	kf_err err;
	cr_assert_eq(kf_prompt_task_messages(task, KF_BACKEND_CPU, &peaks, &m, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(cJSON_GetArraySize(m), 2);
	cr_assert_str_eq(role(m, 0), "system");
	cr_assert_str_eq(role(m, 1), "user");
	const char *p = content(m, 1);
	kf_buf proto = KF_BUF_INIT;
	kf_abi_prototype(task, KF_BACKEND_CPU, &proto);
	const char *must[] = { "Task: vector_add", proto.data, "n=16777216", "n=1024", "n=65536", "f32",
			       "1e-06", "Test CPU (2 cores)", "20 GB/s", "100 GFLOP/s", "memory-bound", "Rules:",
			       "```c" };
	for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
		cr_expect(strstr(p, must[i]), "the task prompt lacks \"%s\"", must[i]);
	/* t_SOL at the bench shape: 12*n bytes at 20 GB/s = 10.07 ms. */
	cr_expect(strstr(p, "10.07 ms"), "t_SOL missing or wrong:\n%s", p);
	cr_expect_null(strstr(p, "{{"), "an unfilled placeholder remains");
	cr_expect_null(strstr(content(m, 0), "{{"), "an unfilled placeholder remains in the system prompt");
	for (int i = 0; i < task->n_shapes[KF_SET_HIDDEN]; i++) {
		char hidden[64];
		snprintf(hidden, sizeof hidden, "n=%lld", (long long)task->shapes[KF_SET_HIDDEN][i].v[0]);
		cr_expect_null(strstr(p, hidden), "hidden shape %s leaked into the prompt", hidden);
	}
	kf_buf_free(&proto);
	cJSON_Delete(m);
}

Test(agent_prompt, cuda_prompt_asks_for_a_cuda_block)
{
	if (!kf_task_has_backend(task, KF_BACKEND_CUDA))
		cr_skip_test("vector_add has no CUDA reference");
	cJSON *m = NULL;
	kf_err err;
	cr_assert_eq(kf_prompt_task_messages(task, KF_BACKEND_CUDA, &peaks, &m, &err), KF_OK, "%s", err.msg);
	cr_expect(strstr(content(m, 0), "`cuda`"), "system prompt: %s", content(m, 0));
	cr_expect(strstr(content(m, 1), "cudaStream_t stream"));
	cJSON_Delete(m);
}

static cJSON *result_of(const char *json)
{
	cJSON *r = cJSON_Parse(json);
	cr_assert_not_null(r);
	return r;
}

Test(agent_prompt, compile_feedback_keeps_the_error_lines_and_drops_the_notes)
{
	cJSON *r = result_of("{\"verdict\":\"compile_error\",\"reason\":\"the compiler rejected the source\","
			     "\"compile\":{\"log\":\"candidate.c: In function 'kf_launch':\\n"
			     "candidate.c:6:37: error: expected ';' before 'return'\\n"
			     "    6 |   out[i] = x[i] + y[i]\\n"
			     "      |                       ^\\n"
			     "./kf_task.h:60:5: note: previous declaration of 'kf_launch'\\n"
			     "   60 | int kf_launch(const float *x);\\n\"}}");
	kf_buf out = KF_BUF_INIT;
	kf_err err;
	cr_assert_eq(kf_prompt_feedback(task, KF_BACKEND_CPU, r, NULL, &out, &err), KF_OK, "%s", err.msg);
	cr_expect(strstr(out.data, "compile_error"));
	cr_expect(strstr(out.data, "error: expected ';' before 'return'"), "%s", out.data);
	cr_expect(strstr(out.data, "out[i] = x[i] + y[i]"), "the source line after the error is context");
	cr_expect_null(strstr(out.data, "note: previous declaration"), "notes are noise: %s", out.data);
	cr_expect_null(strstr(out.data, "In function"), "%s", out.data);
	kf_buf_free(&out);
	cJSON_Delete(r);
}

Test(agent_prompt, trimmed_compile_log_is_capped)
{
	kf_buf log = KF_BUF_INIT, out = KF_BUF_INIT;
	for (int i = 0; i < 500; i++)
		kf_buf_addf(&log, "candidate.c:%d:1: error: something is wrong number %d\n", i, i);
	kf_prompt_trim_compile_log(log.data, &out);
	int lines = 0;
	for (const char *p = out.data; *p; p++)
		lines += *p == '\n';
	cr_expect_lt(lines, 50, "%d lines kept", lines);
	cr_expect_leq(out.len, 4100);
	cr_expect(strstr(out.data, "number 0"));
	cr_expect(strstr(out.data, "[...]"), "a cut log says so");
	kf_buf_free(&log);
	kf_buf_free(&out);
}

Test(agent_prompt, trimmed_compile_log_without_errors_keeps_its_start)
{
	kf_buf out = KF_BUF_INIT;
	kf_prompt_trim_compile_log("ld: cannot find -lfoo\ncollect2: ld returned 1 exit status\n", &out);
	cr_expect(strstr(out.data, "cannot find -lfoo"), "%s", out.data);
	kf_buf_free(&out);
}

Test(agent_prompt, wrong_answer_feedback_names_the_mismatch_and_the_error_sizes)
{
	cJSON *r = result_of("{\"verdict\":\"wrong_answer\",\"reason\":\"output 'out'[37] = 1.5, expected 2.5 at ragged shape {n=37}, seed 7\","
			     "\"max_abs_err\":1.0,\"max_rel_err\":0.4}");
	kf_buf out = KF_BUF_INIT;
	kf_err err;
	cr_assert_eq(kf_prompt_feedback(task, KF_BACKEND_CPU, r, NULL, &out, &err), KF_OK, "%s", err.msg);
	cr_expect(strstr(out.data, "wrong_answer"));
	cr_expect(strstr(out.data, "'out'[37] = 1.5, expected 2.5 at ragged shape {n=37}"), "%s", out.data);
	cr_expect(strstr(out.data, "absolute 1"), "%s", out.data);
	cr_expect(strstr(out.data, "relative 0.4"), "%s", out.data);
	kf_buf_free(&out);
	cJSON_Delete(r);
}

Test(agent_prompt, runtime_failure_feedback_gives_the_reason)
{
	cJSON *r = result_of("{\"verdict\":\"sandbox_violation\",\"reason\":\"the kernel called socket (blocked)\"}");
	kf_buf out = KF_BUF_INIT;
	kf_err err;
	cr_assert_eq(kf_prompt_feedback(task, KF_BACKEND_CPU, r, NULL, &out, &err), KF_OK, "%s", err.msg);
	cr_expect(strstr(out.data, "sandbox_violation") && strstr(out.data, "called socket"), "%s", out.data);
	kf_buf_free(&out);
	cJSON_Delete(r);
}

Test(agent_prompt, success_feedback_gives_time_speedup_sol_fraction_and_the_bound)
{
	cJSON *r = result_of("{\"verdict\":\"ok\",\"time_ms\":12.5,\"ref_time_ms\":25.0,\"speedup\":2.0,"
			     "\"t_sol_ms\":10.0,\"sol_fraction\":0.8,\"bound\":\"memory\"}");
	kf_buf out = KF_BUF_INIT;
	kf_err err;
	cr_assert_eq(kf_prompt_feedback(task, KF_BACKEND_CPU, r, NULL, &out, &err), KF_OK, "%s", err.msg);
	const char *must[] = { "12.5 ms", "25 ms", "2x", "10 ms", "80.0%", "memory-bound", "n=16777216" };
	for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
		cr_expect(strstr(out.data, must[i]), "success feedback lacks \"%s\": %s", must[i], out.data);
	kf_buf_free(&out);
	cJSON_Delete(r);
}

Test(agent_prompt, an_sfu_bound_gpu_kernel_is_told_about_its_transcendentals)
{
	cJSON *r = result_of("{\"verdict\":\"ok\",\"time_ms\":12.5,\"ref_time_ms\":25.0,\"speedup\":2.0,"
			     "\"t_sol_ms\":10.0,\"sol_fraction\":0.8,\"bound\":\"sfu\"}");
	kf_buf out = KF_BUF_INIT;
	kf_err err;
	cr_assert_eq(kf_prompt_feedback(task, KF_BACKEND_CUDA, r, NULL, &out, &err), KF_OK, "%s", err.msg);
	cr_expect(strstr(out.data, "sfu-bound") && strstr(out.data, "transcendental functions"), "%s", out.data);
	kf_buf_free(&out);
	/* A CPU has no such units: a record claiming it gets the memory hint, not a missing section. */
	cr_assert_eq(kf_prompt_feedback(task, KF_BACKEND_CPU, r, NULL, &out, &err), KF_OK, "%s", err.msg);
	cr_expect(strstr(out.data, "every byte moved costs time"), "%s", out.data);
	kf_buf_free(&out);
	cJSON_Delete(r);
}

Test(agent_prompt, refinement_shows_the_parent_code_then_the_feedback)
{
	cJSON *r = result_of("{\"verdict\":\"ok\",\"time_ms\":12.5,\"ref_time_ms\":25.0,\"speedup\":2.0,"
			     "\"t_sol_ms\":10.0,\"sol_fraction\":0.8,\"bound\":\"memory\"}");
	cJSON *m = NULL;
	kf_err err;
	cr_assert_eq(kf_prompt_refine_messages(task, KF_BACKEND_CPU, &peaks, "int kf_launch(void) { return 0; }", r, NULL, &m, &err),
		     KF_OK, "%s", err.msg);
	cr_assert_eq(cJSON_GetArraySize(m), 4);
	cr_expect_str_eq(role(m, 2), "assistant");
	cr_expect_str_eq(content(m, 2), "```c\nint kf_launch(void) { return 0; }\n```");
	cr_expect_str_eq(role(m, 3), "user");
	cr_expect(strstr(content(m, 3), "80.0%"));
	cJSON_Delete(m);
	cJSON_Delete(r);
}

/* ---- profiles (issue 21) ---- */

/* A CUDA profile as the runner reports it, classified here. */
static cJSON *gpu_profile(const char *metrics)
{
	char text[1024];
	snprintf(text, sizeof text, "{\"backend\":\"cuda\",\"shape\":\"n=1\",\"metrics\":%s}", metrics);
	cJSON *p = cJSON_Parse(text);
	cr_assert_not_null(p);
	kf_profile_classify(p);
	return p;
}

static const char *key(const cJSON *p, int i)
{
	return cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(p, "key"), i));
}

Test(agent_prompt, the_bound_is_the_busiest_unit_from_saturation_on_else_latency)
{
	cJSON *mem = gpu_profile("{\"dram_pct\":85,\"l2_pct\":40,\"sm_pct\":30,\"occupancy_pct\":70}");
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(mem, "bound")), "memory");
	cr_expect_str_eq(key(mem, 0), "dram_pct");
	cr_expect_str_eq(key(mem, 1), "l2_pct");
	cJSON *comp = gpu_profile("{\"dram_pct\":20,\"sm_pct\":50,\"tensor_pct\":75}");
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(comp, "bound")), "compute");
	cr_expect_str_eq(key(comp, 0), "tensor_pct");
	cJSON *sfu = gpu_profile("{\"dram_pct\":10,\"sm_pct\":40,\"sfu_pct\":90}");
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(sfu, "bound")), "sfu");
	cJSON *lat = gpu_profile("{\"dram_pct\":12,\"sm_pct\":9,\"occupancy_pct\":6,\"top_stall\":\"long_scoreboard\","
				 "\"waves\":0.06,\"tail_pct\":6}");
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(lat, "bound")), "latency");
	cr_expect_str_eq(key(lat, 0), "occupancy_pct");
	cr_expect_str_eq(key(lat, 1), "top_stall");
	cr_expect_str_eq(key(lat, 2), "waves");
	/* Without the profiler's shares, the judge's time against the peaks decides. */
	cJSON *cpu = cJSON_Parse("{\"backend\":\"cpu\",\"metrics\":{\"bw_pct\":72,\"flop_pct\":3}}");
	kf_profile_classify(cpu);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cpu, "bound")), "memory");
	cr_expect_str_eq(key(cpu, 0), "bw_pct");
	cJSON_Delete(mem);
	cJSON_Delete(comp);
	cJSON_Delete(sfu);
	cJSON_Delete(lat);
	cJSON_Delete(cpu);
}

Test(agent_prompt, a_latency_bound_gpu_kernel_hears_its_occupancy_stalls_and_waves_with_the_gap)
{
	cJSON *p = gpu_profile("{\"dram_pct\":12,\"sm_pct\":9,\"occupancy_pct\":6.2,\"occupancy_theoretical_pct\":50,"
			       "\"occupancy_limiter\":\"registers\",\"top_stall\":\"long_scoreboard\",\"top_stall_pct\":71,"
			       "\"waves\":0.06,\"tail_pct\":6}");
	cJSON *r = result_of("{\"verdict\":\"ok\",\"time_ms\":12.5,\"ref_time_ms\":25.0,\"speedup\":2.0,"
			     "\"t_sol_ms\":1.0,\"sol_fraction\":0.08,\"bound\":\"memory\"}");
	kf_buf out = KF_BUF_INIT, block = KF_BUF_INIT;
	kf_err err;
	cr_assert_eq(kf_prompt_feedback(task, KF_BACKEND_CUDA, r, p, &out, &err), KF_OK, "%s", err.msg);
	cr_expect(strstr(out.data, "(memory-bound)"), "the task's bound stays: %s", out.data);
	cr_expect(strstr(out.data, "the kernel is latency-bound (memory at 12%, compute at 9% of peak"), "%s", out.data);
	cr_expect(strstr(out.data, "achieved occupancy: 6.2% of the SM's warps (theoretical 50%, limited by registers)"),
		  "%s", out.data);
	cr_expect(strstr(out.data, "warps stall most on: long_scoreboard (71% of stalls)"), "%s", out.data);
	cr_expect(strstr(out.data, "grid: 0.06 waves over the SMs; the last wave fills 6% of them"), "%s", out.data);
	cr_expect(strstr(out.data, "warps wait rather than work"), "the latency hint replaces the memory one: %s", out.data);
	cr_expect_null(strstr(out.data, "every byte moved costs time"), "%s", out.data);
	/* The profile part alone is what a profile costs, and it is short. */
	cr_assert_eq(kf_prompt_profile(p, &block, &err), KF_OK, "%s", err.msg);
	cr_expect(block.len > 0 && strstr(out.data, block.data));
	cr_expect_lt(block.len, 600u, "%zu bytes: %s", block.len, block.data);
	kf_buf_free(&out);
	kf_buf_free(&block);
	cJSON_Delete(r);
	cJSON_Delete(p);
}

Test(agent_prompt, a_memory_bound_gpu_kernel_hears_its_dram_share_and_headroom)
{
	cJSON *p = gpu_profile("{\"dram_pct\":80,\"l2_pct\":45,\"sm_pct\":20}");
	kf_buf block = KF_BUF_INIT;
	kf_err err;
	cr_assert_eq(kf_prompt_profile(p, &block, &err), KF_OK, "%s", err.msg);
	cr_expect(strstr(block.data, "memory-bound"), "%s", block.data);
	cr_expect(strstr(block.data, "DRAM throughput: 80% of peak (up to 1.2x before DRAM is the limit)"), "%s", block.data);
	cr_expect(strstr(block.data, "L2 throughput: 45% of peak"), "%s", block.data);
	cr_expect_null(strstr(block.data, "bank conflicts"), "a metric not measured is not quoted: %s", block.data);
	kf_buf_free(&block);
	cJSON_Delete(p);
}

Test(agent_prompt, without_device_counters_the_judges_shares_and_the_occupancy_calculator_stand_in)
{
	/* What the runner reports when the driver refuses CUPTI's counters: launches only. */
	cJSON *p = gpu_profile("{\"bw_pct\":1.5,\"flop_pct\":0.1,\"occupancy_theoretical_pct\":100,"
			       "\"occupancy_limiter\":\"block size (warps per SM)\",\"waves\":0.0076,\"tail_pct\":0.76}");
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "bound")), "latency");
	cr_expect_str_eq(key(p, 0), "occupancy_theoretical_pct");
	cr_expect_str_eq(key(p, 1), "waves");
	kf_buf block = KF_BUF_INIT;
	kf_err err;
	cr_assert_eq(kf_prompt_profile(p, &block, &err), KF_OK, "%s", err.msg);
	cr_expect(strstr(block.data, "theoretical occupancy: 100% of the SM's warps fit (limited by block size"), "%s",
		  block.data);
	cr_expect(strstr(block.data, "grid: 0.0076 waves"), "%s", block.data);
	kf_buf_free(&block);
	cJSON_Delete(p);
}

Test(agent_prompt, a_failed_or_missing_profile_adds_nothing)
{
	kf_buf block = KF_BUF_INIT;
	kf_err err;
	cJSON *failed = cJSON_Parse("{\"backend\":\"cpu\",\"error\":\"the profiled run died: crash\"}");
	cr_assert_eq(kf_prompt_profile(failed, &block, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(kf_prompt_profile(NULL, &block, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(block.len, 0u);
	kf_buf_free(&block);
	cJSON_Delete(failed);
}

Test(agent_prompt, the_compilers_report_counts_the_candidates_loops_and_says_why_one_was_not_vectorised)
{
	const char *log = "/tmp/x/candidate.c:4:20: missed: couldn't vectorize loop\n"
			  "/tmp/x/candidate.c:5:34: missed: not vectorized: unsupported use in stmt.\n"
			  "/tmp/x/candidate.c:9:13: optimized: loop vectorized using 64 byte vectors\n"
			  "/tmp/x/candidate.c:9:13: optimized: loop vectorized using 32 byte vectors\n"
			  "shim.c:3:5: missed: couldn't vectorize loop\n"
			  "/tmp/x/candidate.c:12:5: missed: statement clobbers memory: __builtin_GOMP_parallel\n";
	cJSON *m = cJSON_CreateObject();
	kf_profile_vector_report(log, "candidate.c", m);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(m, "loops")), 2, "the shim's loop is not the candidate's");
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(m, "vector_loops")), 1);
	cr_expect_float_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(m, "vector_share")), 0.5, 1e-12);
	const cJSON *miss = cJSON_GetArrayItem(cJSON_GetObjectItem(m, "missed_loops"), 0);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(miss, "line")), 4);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(miss, "why")), "unsupported use in stmt (line 5)");
	cJSON_Delete(m);
	cJSON *none = cJSON_CreateObject();
	kf_profile_vector_report("candidate.c:1:1: note: nothing about loops\n", "candidate.c", none);
	cr_expect_null(cJSON_GetObjectItem(none, "loops"), "no loop, no share");
	cJSON_Delete(none);
}

Test(agent_prompt, the_last_profile_line_of_a_runners_output_is_its_report)
{
	cJSON *p = kf_profile_from_output("KF_PROFILE {\"dram_pct\":1}\nthe kernel printed this\n"
					  "KF_PROFILE {\"dram_pct\":42,\"waves\":1.5}\n  KF_PROFILE {\"dram_pct\":99}\n");
	cr_assert_not_null(p);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(p, "dram_pct")), 42, "only whole lines count");
	cJSON_Delete(p);
	cr_expect_null(kf_profile_from_output("KF_PROFILE {not json\n"));
	cr_expect_null(kf_profile_from_output(""));
}

Test(agent_prompt, source_distance_ignores_layout_and_comments_and_sees_other_code)
{
	const char *a = "int kf_launch(const float *x, float *y, int n)\n{\n\tfor (int i = 0; i < n; i++)\n"
			"\t\ty[i] = x[i] * 2.0f;\n\treturn 0;\n}\n";
	const char *relaid = "/* doubled */ int kf_launch(const float *x, float *y, int n) {\n"
			     "  for (int i = 0; i < n; i++) y[i] = x[i] * 2.0f; // each\n  return 0;\n}\n";
	const char *tweak = "int kf_launch(const float *x, float *y, int n)\n{\n\tfor (int i = 0; i < n; i++)\n"
			    "\t\ty[i] = x[i] * 2.5f;\n\treturn 0;\n}\n";
	const char *other = "#include <string.h>\nint kf_launch(const float *x, float *y, int n)\n{\n"
			    "\tmemcpy(y, x, sizeof *x * n);\n#pragma omp parallel\n\t{ }\n\treturn 0;\n}\n";
	cr_expect_float_eq(kf_source_distance(a, relaid), 0.0, 1e-12);
	double small = kf_source_distance(a, tweak), big = kf_source_distance(a, other);
	cr_expect(small > 0 && small < 0.3, "one constant changed: %g", small);
	cr_expect(big > 0.5, "other code: %g", big);
	cr_expect_float_eq(kf_source_distance("", ""), 0.0, 1e-12);
	cr_expect_float_eq(kf_source_distance(a, ""), 1.0, 1e-12);
}

static void write_template(const char *name, const char *text)
{
	kf_err err;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	cr_assert_eq(kf_write_file(path, text, strlen(text), &err), KF_OK, "%s", err.msg);
}

Test(agent_prompt, renders_sections_drops_comments_and_refuses_unknown_placeholders)
{
	kf_err err;
	cr_assert_eq(kf_mkdtemp("/tmp", "kforge-prompts-", tmpdir, sizeof tmpdir, &err), KF_OK, "%s", err.msg);
	setenv("KFORGE_PROMPTS", tmpdir, 1);
	write_template("t.md", "%% a comment for editors\n=== a ===\nhello {{who}}\n=== b ===\nbye {{nobody}}\n");
	const struct kf_prompt_var vars[] = { { "who", "world" } };
	kf_buf out = KF_BUF_INIT;
	cr_assert_eq(kf_prompt_render("t.md", "a", vars, 1, &out, &err), KF_OK, "%s", err.msg);
	cr_expect_str_eq(out.data, "hello world");
	kf_buf_reset(&out);
	cr_expect_eq(kf_prompt_render("t.md", "b", vars, 1, &out, &err), KF_EINPUT);
	cr_expect(strstr(err.msg, "t.md") && strstr(err.msg, "{{nobody}}"), "%s", err.msg);
	kf_buf_reset(&out);
	cr_expect_eq(kf_prompt_render("t.md", "c", vars, 1, &out, &err), KF_EINPUT);
	cr_expect(strstr(err.msg, "=== c ==="), "%s", err.msg);
	cr_expect_eq(kf_prompt_render("missing.md", NULL, vars, 1, &out, &err), KF_EINPUT);
	unsetenv("KFORGE_PROMPTS");
	kf_buf_free(&out);
}
