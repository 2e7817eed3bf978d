/* The compile step (sandbox/compile.c).
 * The jail is the only defence against hostile sources: every spelling of an include of a host file
 * or an endless device (digraphs, line splices, upper-case assembler directives) fails in it, quickly,
 * with nothing of the file in the log; the log is sanitised text; a jail that cannot be built is an
 * internal error, never an unisolated compile. The cache holds only kforge's own files, capped in
 * size, evicted least recently used, and never an outcome of an exhausted resource.
 * For CUDA: a kernel is built as SASS for exactly the device it will run on, named by its compute
 * capability, with no PTX left for the driver to compile at load time (there is no cuobjdump here, so
 * the command line says what is embedded); the target is part of the cache key. Needs nvcc (skipped,
 * with a message, without it). Every test has a cache directory of its own. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fs.h"
#include "common/text.h"
#include "eval/tasks/abi.h"
#include "eval/tasks/task.h"
#include "sandbox/sandbox.h"

static char cache_dir[PATH_MAX];

static void private_cache(void)
{
	cr_assert_eq(kf_mkdtemp("/tmp", "kf-test-compile-", cache_dir, sizeof cache_dir, NULL), KF_OK);
	setenv("KFORGE_CACHE", cache_dir, 1);
}

static void remove_cache(void)
{
	kf_rm_rf(cache_dir);
}

TestSuite(compile, .init = private_cache, .fini = remove_cache);

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

/* ---- the CPU jail ---- */

/* The seconds a hostile include may take to fail: an endless device would take the whole timeout. */
#define QUICK_FAILURE_MS 20000.0

static const char vector_add_tail[] =
	"\nint kf_launch(const float *x, const float *y, float *out, int n)\n"
	"{\n\tfor (int i = 0; i < n; i++)\n\t\tout[i] = x[i] + y[i];\n\treturn 0;\n}\n";

/* Compiles source (len bytes) for vector_add on the CPU; timeout_s 0 is the default. */
static struct kf_compile_res cpu_compile_len(const char *source, size_t len, double timeout_s)
{
	struct kf_task *t;
	kf_err err;
	cr_assert_eq(kf_task_find(NULL, "vector_add", &t, &err), KF_OK, "%s", err.msg);
	kf_buf hdr = KF_BUF_INIT, shim = KF_BUF_INIT;
	kf_abi_header(t, KF_BACKEND_CPU, &hdr);
	kf_abi_shim(t, KF_BACKEND_CPU, &shim);
	struct kf_compile_req req = { .backend = KF_BACKEND_CPU, .source = source, .source_len = len,
				      .header = hdr.data, .shim = shim.data, .timeout_s = timeout_s };
	struct kf_compile_res res;
	cr_assert_eq(kf_compile(&req, &res, &err), KF_OK, "%s", err.msg);
	kf_buf_free(&hdr);
	kf_buf_free(&shim);
	kf_task_free(t);
	return res;
}

/* head, then a correct vector_add. */
static struct kf_compile_res cpu_compile(const char *head)
{
	kf_buf src = KF_BUF_INIT;
	kf_buf_adds(&src, head);
	kf_buf_adds(&src, vector_add_tail);
	struct kf_compile_res res = cpu_compile_len(src.data, src.len, 0);
	kf_buf_free(&src);
	return res;
}

/* The host's first password-file line (root's): what a leak would show. */
static void passwd_line(char *out, size_t len)
{
	FILE *f = fopen("/etc/passwd", "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(out, (int)len, f));
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
}

static void expect_refused_without_leak(const char *head)
{
	char secret[512];
	passwd_line(secret, sizeof secret);
	struct kf_compile_res res = cpu_compile(head);
	cr_expect(res.verdict == KF_V_COMPILE_ERROR || res.verdict == KF_V_COMPILE_TIMEOUT, "%s: verdict %s", head,
		  kf_verdict_name(res.verdict));
	cr_expect_lt(res.ms, QUICK_FAILURE_MS, "%s took %.0f ms", head, res.ms);
	cr_expect_null(strstr(res.log, secret), "%s: the log shows the password file:\n%s", head, res.log);
	cr_expect_null(strstr(res.reason, secret), "%s: %s", head, res.reason);
	cr_expect_null(strstr(res.log, "root:"), "%s: the log shows the password file:\n%s", head, res.log);
	kf_compile_res_free(&res);
}

Test(compile, an_include_of_etc_passwd_fails_without_showing_it)
{
	expect_refused_without_leak("#include \"/etc/passwd\"\n");
}

Test(compile, an_include_of_dev_zero_fails_at_once)
{
	expect_refused_without_leak("#include \"/dev/zero\"\n");
}

Test(compile, a_digraph_include_of_dev_zero_fails_at_once)
{
	expect_refused_without_leak("%:include \"/dev/zero\"\n");
}

Test(compile, an_include_spelled_across_a_line_splice_fails_without_showing_the_file)
{
	expect_refused_without_leak("#inc\\\nlude \"/etc/passwd\"\n");
}

Test(compile, an_upper_case_incbin_fails_without_showing_the_file)
{
	expect_refused_without_leak("__asm__(\".section .rodata\\n.INCBIN \\\"/etc/passwd\\\"\\n.previous\\n\");\n");
}

Test(compile, an_incbin_of_an_endless_device_fails_at_once)
{
	expect_refused_without_leak("__asm__(\".section .rodata\\n.incbin \\\"/dev/urandom\\\"\\n.previous\\n\");\n");
}

Test(compile, a_log_quoting_escapes_and_invalid_bytes_is_sanitised_text)
{
	/* The bad line is quoted back by the compiler: ESC, a C1 CSI and an invalid byte in a literal. */
	struct kf_compile_res res = cpu_compile("const char *s = \"\x1b[2J\xc2\x9b\xff\" oops;\n");
	cr_assert_eq(res.verdict, KF_V_COMPILE_ERROR);
	cr_expect_not_null(strstr(res.log, "\\x1B[2J\\xC2\\x9B\\xFF"), "%s", res.log);
	kf_buf again = KF_BUF_INIT;
	kf_text_sanitize(res.log, strlen(res.log), &again);
	cr_expect_str_eq(again.data, res.log, "the stored log is already sanitised text");
	kf_buf_free(&again);
	kf_compile_res_free(&res);
}

Test(compile, a_compiled_object_belongs_to_kforge_and_is_read_only_to_others)
{
	struct kf_compile_res res = cpu_compile("");
	cr_assert_eq(res.verdict, KF_V_OK, "%s\n%s", res.reason, res.log);
	struct stat so, dir;
	cr_assert_eq(lstat(res.so_path, &so), 0);
	char parent[PATH_MAX];
	snprintf(parent, sizeof parent, "%s", res.so_path);
	*strrchr(parent, '/') = '\0';
	cr_assert_eq(lstat(parent, &dir), 0);
	cr_expect(S_ISREG(so.st_mode));
	cr_expect_eq(so.st_uid, geteuid());
	cr_expect_eq(so.st_mode & 07777, 0644, "mode %o", so.st_mode & 07777);
	cr_expect_eq(dir.st_uid, geteuid());
	cr_expect_eq(dir.st_mode & 07777, 0755, "mode %o", dir.st_mode & 07777);
	kf_compile_res_free(&res);
}

/* 80 MiB initialised: above the 64 MiB object cap, below the 128 MiB file limit, so the link succeeds
 * and the cap itself must refuse the object. */
Test(compile, an_object_above_the_cap_is_a_compile_error_and_is_not_cached)
{
	struct kf_compile_res res = cpu_compile("static const unsigned char big[80u << 20] = { 1 };\n"
						"const unsigned char *volatile big_ptr = big;\n");
	cr_assert_eq(res.verdict, KF_V_COMPILE_ERROR, "%s\n%s", res.reason, res.log);
	cr_expect_not_null(strstr(res.reason, "object too large"), "%s", res.reason);
	cr_expect_eq(res.so_path[0], '\0');
	char so[PATH_MAX];
	snprintf(so, sizeof so, "%s/compile/%.2s/%s.so", cache_dir, res.key, res.key);
	cr_expect_neq(access(so, F_OK), 0, "%s is in the cache", so);
	kf_compile_res_free(&res);
}

Test(compile, an_array_past_the_file_size_limit_ends_in_the_assembler_as_too_large)
{
	struct kf_compile_res res = cpu_compile("static const unsigned char big[300u << 20] = { 1 };\n"
						"const unsigned char *volatile big_ptr = big;\n");
	cr_assert_eq(res.verdict, KF_V_COMPILE_ERROR, "%s\n%s", res.reason, res.log);
	cr_expect_not_null(strstr(res.reason, "object too large"), "%s", res.reason);
	kf_compile_res_free(&res);
}

Test(compile, a_timeout_is_not_cached)
{
	kf_buf src = KF_BUF_INIT;
	kf_buf_adds(&src, vector_add_tail);
	struct kf_compile_res slow = cpu_compile_len(src.data, src.len, 1e-3);
	cr_assert_eq(slow.verdict, KF_V_COMPILE_TIMEOUT, "%s", slow.reason);
	struct kf_compile_res again = cpu_compile_len(src.data, src.len, 0);
	cr_expect_not(again.cached);
	cr_expect_eq(again.verdict, KF_V_OK, "%s\n%s", again.reason, again.log);
	kf_compile_res_free(&slow);
	kf_compile_res_free(&again);
	kf_buf_free(&src);
}

Test(compile, an_outcome_that_reports_an_exhausted_resource_is_not_cached)
{
	/* As cc1 says it when the address-space limit or a vfork's EAGAIN stops it. */
	const char *head = "#error virtual memory exhausted: Cannot allocate memory\n";
	struct kf_compile_res first = cpu_compile(head), second = cpu_compile(head);
	cr_assert_eq(first.verdict, KF_V_COMPILE_ERROR);
	cr_expect_not(second.cached);
	kf_compile_res_free(&first);
	kf_compile_res_free(&second);
}

Test(compile, an_ordinary_compile_error_is_cached)
{
	struct kf_compile_res first = cpu_compile("#error no\n"), second = cpu_compile("#error no\n");
	cr_assert_eq(first.verdict, KF_V_COMPILE_ERROR);
	cr_expect(second.cached);
	kf_compile_res_free(&first);
	kf_compile_res_free(&second);
}

/* ---- fail closed ---- */

/* Makes one system call fail with EPERM in this test's process and every child it forks. */
static void deny(int nr)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	cr_assert_not_null(ctx);
	cr_assert_eq(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0), 0);
	cr_assert_eq(seccomp_load(ctx), 0);
	seccomp_release(ctx);
}

/* The compile must not happen: an internal error naming the step and errno, nothing cached. */
static void expect_fails_closed(const char *step)
{
	struct kf_task *t;
	kf_err err;
	cr_assert_eq(kf_task_find(NULL, "vector_add", &t, &err), KF_OK, "%s", err.msg);
	kf_buf hdr = KF_BUF_INIT, shim = KF_BUF_INIT;
	kf_abi_header(t, KF_BACKEND_CPU, &hdr);
	kf_abi_shim(t, KF_BACKEND_CPU, &shim);
	struct kf_compile_req req = { .backend = KF_BACKEND_CPU, .source = vector_add_tail,
				      .source_len = strlen(vector_add_tail), .header = hdr.data, .shim = shim.data };
	struct kf_compile_res res;
	cr_expect_eq(kf_compile(&req, &res, &err), KF_EINTERNAL);
	cr_expect_not_null(strstr(err.msg, step), "'%s' does not name the step '%s'", err.msg, step);
	cr_expect_not_null(strstr(err.msg, "Operation not permitted"), "'%s' does not name the errno", err.msg);
	char compile_dir[PATH_MAX];
	snprintf(compile_dir, sizeof compile_dir, "%s/compile", cache_dir);
	cr_expect_neq(access(compile_dir, F_OK), 0, "something was cached");
	kf_compile_res_free(&res);
	kf_buf_free(&hdr);
	kf_buf_free(&shim);
	kf_task_free(t);
}

Test(compile, fails_closed_without_namespaces)
{
	deny(SCMP_SYS(unshare));
	expect_fails_closed("namespaces");
}

Test(compile, fails_closed_without_mounts)
{
	deny(SCMP_SYS(mount));
	expect_fails_closed("mount");
}

Test(compile, fails_closed_when_the_uid_cannot_change)
{
	if (geteuid() != 0)
		cr_skip_test("needs root (without it, the user namespace maps kforge's own uid)");
	deny(SCMP_SYS(setresuid));
	expect_fails_closed("cannot drop root privileges");
}

Test(compile, fails_closed_without_resource_limits)
{
	deny(SCMP_SYS(prlimit64));
	expect_fails_closed("limit");
}

/* ---- the cache's size limit ---- */

#define FAKE_OBJECT_BYTES (400u << 10)

/* An entry of FAKE_OBJECT_BYTES, last used hours_ago; returns the path of its object. */
static void fake_entry(char key_char, int hours_ago, char *so, size_t len)
{
	char key[65], dir[PATH_MAX], meta[PATH_MAX];
	memset(key, key_char, 64);
	key[64] = '\0';
	snprintf(dir, sizeof dir, "%s/compile/%.2s", cache_dir, key);
	cr_assert_eq(kf_mkdir_p(dir, NULL), KF_OK);
	snprintf(so, len, "%s/%s.so", dir, key);
	snprintf(meta, sizeof meta, "%s/%s.json", dir, key);
	char *blob = calloc(1, FAKE_OBJECT_BYTES);
	cr_assert_eq(kf_write_file(so, blob, FAKE_OBJECT_BYTES, NULL), KF_OK);
	cr_assert_eq(kf_write_file(meta, "{\"verdict\":\"ok\"}", 16, NULL), KF_OK);
	free(blob);
	struct timespec t[2] = { { time(NULL) - hours_ago * 3600, 0 }, { time(NULL) - hours_ago * 3600, 0 } };
	cr_assert_eq(utimensat(AT_FDCWD, so, t, 0), 0);
	cr_assert_eq(utimensat(AT_FDCWD, meta, t, 0), 0);
}

Test(compile, the_cache_evicts_the_least_recently_used_entries_past_its_limit)
{
	setenv("KFORGE_CACHE_MAX_MB", "1", 1);
	char oldest[PATH_MAX], older[PATH_MAX], old[PATH_MAX];
	fake_entry('a', 3, oldest, sizeof oldest);
	fake_entry('b', 2, older, sizeof older);
	fake_entry('c', 1, old, sizeof old);
	struct kf_compile_res res = cpu_compile("");
	cr_assert_eq(res.verdict, KF_V_OK, "%s\n%s", res.reason, res.log);
	/* 3 x 400 KiB and the new object: one old entry had to go for the total to fit 1 MiB. */
	cr_expect_neq(access(oldest, F_OK), 0, "the least recently used entry stayed");
	cr_expect_eq(access(older, F_OK), 0);
	cr_expect_eq(access(old, F_OK), 0);
	cr_expect_eq(access(res.so_path, F_OK), 0, "the new entry was evicted");
	kf_compile_res_free(&res);
}

Test(compile, a_cache_hit_counts_as_a_use)
{
	struct kf_compile_res first = cpu_compile("");
	cr_assert_eq(first.verdict, KF_V_OK, "%s\n%s", first.reason, first.log);
	struct timespec t[2] = { { time(NULL) - 86400, 0 }, { time(NULL) - 86400, 0 } };
	cr_assert_eq(utimensat(AT_FDCWD, first.so_path, t, 0), 0);
	struct kf_compile_res hit = cpu_compile("");
	cr_assert(hit.cached);
	struct stat st;
	cr_assert_eq(stat(hit.so_path, &st), 0);
	cr_expect_gt(st.st_mtime, time(NULL) - 600, "the hit did not touch the entry");
	kf_compile_res_free(&first);
	kf_compile_res_free(&hit);
}
