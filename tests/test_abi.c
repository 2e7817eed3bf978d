/* Tests for eval/tasks/abi.c: generated prototypes match the signatures; headers and shims
 * compile (cc; nvcc when installed); a wrong signature fails to compile; kf_init is optional;
 * the generated bf16/f16 conversions are exact; hidden shapes stay out of the header. And the
 * CI check of the task suite itself: for every task, the CPU reference and examples/cpu/NAME.c
 * agree with the fp64 oracle on small shapes and stress inputs, and neither a constant output
 * (zeros included) nor a copy of an input could pass the tolerance. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bf16.h"
#include "common/fs.h"
#include "common/rng.h"
#include "eval/tasks/abi.h"
#include "eval/tasks/lowp.h"
#include "eval/tasks/multi.h"
#include "eval/tasks/tensor.h"

#define CC_FLAGS "cc -std=c17 -O3 -march=native -fopenmp -shared -fPIC -Wall -Wextra -Werror"
#define NVCC "/usr/local/cuda/bin/nvcc"
#define CHECK_SEED 20240601u
#define F32_BITS_STRIDE 251u /* float bit patterns checked: every 251st of 2^32 */

static const char *const starter_tasks[] = { "vector_add", "softmax_rows", "layernorm_bf16",
					     "matmul_bf16" };
#define N_STARTER (sizeof starter_tasks / sizeof *starter_tasks)

/* ---- scratch files and the compiler ---- */

struct scratch {
	char dir[PATH_MAX];
};

static void scratch_open(struct scratch *s)
{
	cr_assert_eq(kf_mkdtemp("/tmp", "kf-test-abi-", s->dir, sizeof s->dir, NULL), KF_OK);
}

static void scratch_close(struct scratch *s)
{
	kf_rm_rf(s->dir);
}

static const char *scratch_path(const struct scratch *s, const char *name, char out[PATH_MAX])
{
	snprintf(out, PATH_MAX, "%s/%s", s->dir, name);
	return out;
}

static void scratch_write(const struct scratch *s, const char *name, const char *text)
{
	char path[PATH_MAX];
	cr_assert_eq(kf_write_file(scratch_path(s, name, path), text, strlen(text), NULL), KF_OK);
}

/* Runs a shell command in the scratch dir; returns its exit status, output in *log. */
static int run_in(const struct scratch *s, const char *cmd, char **log)
{
	char full[4 * PATH_MAX], logpath[PATH_MAX];
	scratch_path(s, "log.txt", logpath);
	snprintf(full, sizeof full, "cd '%s' && LC_ALL=C %s >log.txt 2>&1", s->dir, cmd);
	int status = system(full);
	size_t len;
	if (kf_read_file(logpath, 1 << 20, log, &len, NULL) != KF_OK)
		*log = kf_xstrdup("");
	return status;
}

static struct kf_task *load_task(const char *name)
{
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_find(NULL, name, &t, &err), KF_OK, "%s: %s", name, err.msg);
	return t;
}

/* Writes kf_task.h and the shim for backend b: shim.c for the CPU, shim.cu for CUDA. */
static void write_abi(const struct scratch *s, const struct kf_task *t, enum kf_backend b)
{
	kf_buf h = KF_BUF_INIT, shim = KF_BUF_INIT;
	kf_abi_header(t, b, &h);
	kf_abi_shim(t, b, &shim);
	scratch_write(s, "kf_task.h", h.data);
	scratch_write(s, b == KF_BACKEND_CUDA ? "shim.cu" : "shim.c", shim.data);
	kf_buf_free(&h);
	kf_buf_free(&shim);
}

/* Compiles `source` (a path) with the CPU header force-included and the shim linked in; like
 * kforge's trusted compiles, reference_kernels/ is on the include path (shared reference code). */
static int compile_cpu(const struct scratch *s, const char *source, const char *so, char **log)
{
	char cmd[5 * PATH_MAX];
	snprintf(cmd, sizeof cmd, CC_FLAGS " -I'%s/reference_kernels' -include kf_task.h -o %s '%s' shim.c -lm", kf_home(),
		 so, source);
	return run_in(s, cmd, log);
}

static void *open_so(const struct scratch *s, const char *so)
{
	char path[PATH_MAX];
	/* NODELETE: unloading would unmap libgomp under its idle pool threads. */
	void *h = dlopen(scratch_path(s, so, path), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	cr_assert_not_null(h, "dlopen %s: %s", so, dlerror());
	return h;
}

static void *must_sym(void *so, const char *name)
{
	void *p = dlsym(so, name);
	cr_assert_not_null(p, "no %s: %s", name, dlerror());
	return p;
}

/* Builds the candidate at kf_home()/<rel> for task t; returns its kf_shim_call. */
static kf_shim_call_fn build_cpu_candidate(const struct scratch *s, const struct kf_task *t,
					   const char *rel, const char *so, void **handle)
{
	char src[PATH_MAX], *log;
	if (rel[0] == '/')
		snprintf(src, sizeof src, "%s", rel);
	else
		snprintf(src, sizeof src, "%s/%s", kf_home(), rel);
	int rc = compile_cpu(s, src, so, &log);
	cr_assert_eq(rc, 0, "%s: %s failed to compile:\n%s", t->name, rel, log);
	free(log);
	*handle = open_so(s, so);
	return (kf_shim_call_fn)must_sym(*handle, KF_SHIM_CALL_SYMBOL);
}

static kf_shim_call_fn build_oracle(const struct scratch *s, const struct kf_task *t, void **handle)
{
	kf_buf h = KF_BUF_INIT, shim = KF_BUF_INIT;
	char cmd[4 * PATH_MAX], *log;
	kf_abi_oracle_header(t, &h);
	kf_abi_oracle_shim(t, &shim);
	scratch_write(s, "kf_oracle.h", h.data);
	scratch_write(s, "oracle_shim.c", shim.data);
	kf_buf_free(&h);
	kf_buf_free(&shim);
	snprintf(cmd, sizeof cmd,
		 "cc -std=c17 -O2 -shared -fPIC -Wall -Wextra -Werror -I'%s/reference_kernels' -include kf_oracle.h "
		 "-o oracle.so '%s/%s' oracle_shim.c -lm",
		 kf_home(), kf_home(), t->oracle);
	cr_assert_eq(run_in(s, cmd, &log), 0, "%s: oracle failed to compile:\n%s", t->name, log);
	free(log);
	*handle = open_so(s, "oracle.so");
	return (kf_shim_call_fn)must_sym(*handle, KF_ORACLE_CALL_SYMBOL);
}

/* ---- drawing inputs and comparing outputs ---- */

/* One evaluation: typed buffers for the candidate, double buffers for the oracle. */
struct trial {
	int n;
	int64_t numel[KF_MAX_TENSORS];
	void *typed[KF_MAX_TENSORS], *copy[KF_MAX_TENSORS];
	double *exact[KF_MAX_TENSORS];
	long long ints[KF_TASK_MAX_INTS];
};

static void trial_init(struct trial *tr, const struct kf_task *t, const struct kf_shape *s,
		       const struct kf_stress *st, uint64_t seed)
{
	kf_rng r;
	kf_rng_seed(&r, seed);
	memset(tr, 0, sizeof *tr);
	tr->n = t->n_inputs + t->n_outputs;
	kf_task_call_ints(t, s, tr->ints);
	struct kf_sampler *sampler = kf_sampler_new();
	for (int i = 0; i < tr->n; i++) {
		const struct kf_tensor *x = &t->tensors[i];
		size_t bytes;
		tr->numel[i] = kf_task_numel(t, i, s);
		bytes = (size_t)tr->numel[i] * kf_dtype_size(x->dtype);
		tr->typed[i] = kf_xmalloc(bytes);
		tr->exact[i] = kf_xcalloc((size_t)tr->numel[i], sizeof(double));
		if (x->is_output) {
			memset(tr->typed[i], 0xff, bytes); /* NaN in every float format */
			continue;
		}
		/* the judge's own draws (every distribution and generator), exactly as doubles */
		const struct kf_dist d = kf_task_dist(t, i, st, s);
		kf_tensor_fill(sampler, &r, &d, x->dtype, tr->typed[i], tr->numel[i]);
		kf_tensor_to_double(x->dtype, tr->typed[i], tr->exact[i], tr->numel[i]);
		tr->copy[i] = kf_xmalloc(bytes);
		memcpy(tr->copy[i], tr->typed[i], bytes);
	}
	kf_sampler_free(sampler);
}

static void trial_free(struct trial *tr)
{
	for (int i = 0; i < tr->n; i++) {
		free(tr->typed[i]);
		free(tr->copy[i]);
		free(tr->exact[i]);
	}
}

static void run_both(struct trial *tr, const struct kf_task *t, kf_shim_call_fn cand,
		     kf_shim_call_fn oracle, const char *what)
{
	cr_assert_eq(cand(tr->typed, tr->ints, NULL), 0, "%s returned non-zero", what);
	cr_assert_eq(oracle((void *const *)tr->exact, tr->ints, NULL), 0, "oracle returned non-zero");
	for (int i = 0; i < t->n_inputs; i++)
		cr_assert(!memcmp(tr->copy[i], tr->typed[i],
				  (size_t)tr->numel[i] * kf_dtype_size(t->tensors[i].dtype)),
			  "%s wrote its input %s", what, t->tensors[i].name);
}

/* Every element within atol + rtol*|ref|; and, when check_posed, neither a constant (so no zero)
 * nor a copy of any input of the output's size within it. Some constant passes only if all
 * intervals [ref - tol, ref + tol] share a point; a copy passes only if each of its elements lies
 * in its interval. */
static void compare(const struct trial *tr, const struct kf_task *t, const char *what,
		    bool check_posed)
{
	for (int i = t->n_inputs; i < tr->n; i++) {
		const struct kf_tensor *x = &t->tensors[i];
		const struct kf_tolerance *tol = &t->tensors[i].tol;
		double lo_max = -INFINITY, hi_min = INFINITY;
		bool copy_fails[KF_MAX_TENSORS] = { false };
		for (int64_t e = 0; e < tr->numel[i]; e++) {
			double ref = tr->exact[i][e], out = kf_tensor_get(x->dtype, tr->typed[i], e);
			double bound = tol->atol + tol->rtol * fabs(ref);
			cr_assert(isfinite(ref), "%s: oracle gave %g at %s[%lld]", what, ref, x->name,
				  (long long)e);
			cr_assert(fabs(out - ref) <= bound, "%s: %s[%lld] = %.9g, oracle %.9g (tolerance %g)",
				  what, x->name, (long long)e, out, ref, bound);
			lo_max = fmax(lo_max, ref - bound);
			hi_min = fmin(hi_min, ref + bound);
			for (int in = 0; in < t->n_inputs; in++)
				if (tr->numel[in] == tr->numel[i] && !copy_fails[in]) {
					double v = kf_tensor_get(t->tensors[in].dtype, tr->typed[in], e);
					copy_fails[in] = !(fabs(v - ref) <= bound);
				}
		}
		if (!check_posed)
			continue;
		/* a one-element output (a loss) is its own constant: kforge tasks --check checks that
		 * it moves with the inputs instead */
		cr_assert(tr->numel[i] == 1 || lo_max > hi_min, "%s: a constant output would pass (ill-posed task)", what);
		for (int in = 0; in < t->n_inputs; in++)
			cr_assert(tr->numel[in] != tr->numel[i] || copy_fails[in],
				  "%s: a copy of input %s would pass as output %s (ill-posed task)", what,
				  t->tensors[in].name, x->name);
	}
}

static void check_shape(const struct kf_task *t, kf_shim_call_fn cand, kf_shim_call_fn oracle,
			const char *rel, enum kf_shape_set set, int k, const struct kf_stress *st)
{
	const struct kf_shape *s = &t->shapes[set][k];
	kf_buf what = KF_BUF_INIT;
	struct trial tr;
	kf_buf_addf(&what, "%s %s on %s[%d] (", t->name, rel, kf_shape_set_name(set), k);
	kf_task_shape_format(t, s, &what);
	kf_buf_addf(&what, ")%s%s", st ? " stress " : "", st ? st->name : "");
	trial_init(&tr, t, s, st, CHECK_SEED + (uint64_t)k);
	run_both(&tr, t, cand, oracle, what.data);
	compare(&tr, t, what.data, set == KF_SET_TEST);
	trial_free(&tr);
	kf_buf_free(&what);
}

/* The CI check: `rel` (a CPU reference or example) against the task's fp64 oracle on every
 * small shape, and on every test shape with each stress variant. */
static void check_against_oracle(const char *name, bool example)
{
	struct scratch s;
	struct kf_task *t = load_task(name);
	if (t->level == 4) { /* multi-GPU, CUDA only: no CPU kernel (tests/test_multi_task.c, tests/gpu/test_multi_gpu.c) */
		kf_task_free(t);
		return;
	}
	char rel[PATH_MAX];
	void *cand_so, *oracle_so;
	scratch_open(&s);
	if (example) {
		snprintf(rel, sizeof rel, "examples/cpu/%s.c", name);
	} else if (t->reference[KF_BACKEND_CPU]) {
		snprintf(rel, sizeof rel, "%s", t->reference[KF_BACKEND_CPU]);
	} else {
		/* no CPU reference: the judge wraps the oracle into one; check that wrapper */
		char path[PATH_MAX], *src;
		size_t len;
		kf_buf text = KF_BUF_INIT;
		snprintf(path, sizeof path, "%s/%s", kf_home(), t->oracle);
		cr_assert_eq(kf_read_file(path, 1 << 22, &src, &len, NULL), KF_OK, "%s", path);
		kf_abi_oracle_reference(t, src, &text);
		scratch_write(&s, "oracle_reference.c", text.data);
		scratch_path(&s, "oracle_reference.c", rel);
		free(src);
		kf_buf_free(&text);
	}
	write_abi(&s, t, KF_BACKEND_CPU);
	kf_shim_call_fn cand = build_cpu_candidate(&s, t, rel, "cand.so", &cand_so);
	kf_shim_call_fn oracle = build_oracle(&s, t, &oracle_so);
	for (int set = KF_SET_TEST; set < KF_SET_COUNT; set++)
		for (int k = 0; k < t->n_shapes[set]; k++)
			check_shape(t, cand, oracle, rel, (enum kf_shape_set)set, k, NULL);
	for (int st = 0; st < t->n_stress; st++)
		for (int k = 0; k < t->n_shapes[KF_SET_TEST]; k++)
			check_shape(t, cand, oracle, rel, KF_SET_TEST, k, &t->stress[st]);
	dlclose(cand_so);
	dlclose(oracle_so);
	scratch_close(&s);
	kf_task_free(t);
}

/* One parameter per task in the suite, so a new task is checked without editing this file.
 * A listing error becomes a parameter that fails with the message. */
struct task_param {
	char name[KF_NAME_MAX];
	char error[KF_ERR_MSG_MAX];
};

static void free_task_params(struct criterion_test_params *ctp)
{
	cr_free(ctp->params);
}

ParameterizedTestParameters(abi, every_reference_and_example_agrees_with_its_oracle)
{
	struct kf_task **ts = NULL;
	int n = 0;
	kf_err err = { 0 };
	int rc = kf_task_list(NULL, &ts, &n, &err);
	size_t count = rc == KF_OK && n > 0 ? (size_t)n : 1;
	struct task_param *p = cr_calloc(count, sizeof *p);
	if (rc != KF_OK || n == 0)
		snprintf(p[0].error, sizeof p[0].error, "listing the tasks: %s",
			 rc == KF_OK ? "no tasks" : err.msg);
	for (int i = 0; rc == KF_OK && i < n; i++)
		snprintf(p[i].name, sizeof p[i].name, "%s", ts[i]->name);
	kf_task_list_free(ts, n);
	return cr_make_param_array(struct task_param, p, count, free_task_params);
}

ParameterizedTest(struct task_param *p, abi, every_reference_and_example_agrees_with_its_oracle)
{
	cr_assert(!p->error[0], "%s", p->error);
	check_against_oracle(p->name, false);
	check_against_oracle(p->name, true);
}

/* ---- signatures ---- */

static void expect_prototype(const char *name, enum kf_backend b, const char *want)
{
	struct kf_task *t = load_task(name);
	kf_buf p = KF_BUF_INIT;
	kf_abi_prototype(t, b, &p);
	cr_expect_str_eq(p.data, want);
	kf_buf_free(&p);
	kf_task_free(t);
}

Test(abi, prototypes_follow_the_signature_rule)
{
	expect_prototype("vector_add", KF_BACKEND_CPU,
			 "int kf_launch(const float *x, const float *y, float *out, int n);");
	expect_prototype("softmax_rows", KF_BACKEND_CPU,
			 "int kf_launch(const float *x, float *out, int rows, int cols);");
	expect_prototype("layernorm_bf16", KF_BACKEND_CPU,
			 "int kf_launch(const kf_bf16 *x, const kf_bf16 *gamma, const kf_bf16 *beta, "
			 "kf_bf16 *y, int rows, int cols);");
	expect_prototype("matmul_bf16", KF_BACKEND_CPU,
			 "int kf_launch(const kf_bf16 *A, const kf_bf16 *B, kf_bf16 *C, int M, int N, int K);");
	expect_prototype("matmul_bf16", KF_BACKEND_CUDA,
			 "extern \"C\" int kf_launch(const __nv_bfloat16 *A, const __nv_bfloat16 *B, "
			 "__nv_bfloat16 *C, int M, int N, int K, cudaStream_t stream);");
}

Test(abi, a_wrong_signature_fails_to_compile_because_the_header_is_forced)
{
	struct scratch s;
	struct kf_task *t = load_task("vector_add");
	char *log, path[PATH_MAX];
	scratch_open(&s);
	write_abi(&s, t, KF_BACKEND_CPU);
	scratch_write(&s, "wrong.c",
		      "int kf_launch(const double *x, const double *y, double *out, int n)\n"
		      "{\n\tfor (int i = 0; i < n; i++)\n\t\tout[i] = x[i] + y[i];\n\treturn 0;\n}\n");
	cr_expect_neq(compile_cpu(&s, scratch_path(&s, "wrong.c", path), "wrong.so", &log), 0,
		      "a double-typed kf_launch compiled against the float header");
	cr_expect_not_null(strstr(log, "conflicting types for 'kf_launch'"), "%s", log);
	free(log);
	scratch_write(&s, "missing_int.c",
		      "int kf_launch(const float *x, const float *y, float *out)\n"
		      "{\n\tout[0] = x[0] + y[0];\n\treturn 0;\n}\n");
	cr_expect_neq(compile_cpu(&s, scratch_path(&s, "missing_int.c", path), "m.so", &log), 0,
		      "a kf_launch without its shape parameter compiled");
	free(log);
	scratch_close(&s);
	kf_task_free(t);
}

Test(abi, kf_init_is_optional_and_called_through_the_shim)
{
	struct scratch s;
	struct kf_task *t = load_task("vector_add");
	char *log, path[PATH_MAX];
	scratch_open(&s);
	write_abi(&s, t, KF_BACKEND_CPU);
	const char *launch = "int kf_launch(const float *x, const float *y, float *out, int n)\n"
			     "{\n\tfor (int i = 0; i < n; i++)\n\t\tout[i] = x[i] + y[i];\n\treturn 0;\n}\n";
	kf_buf with_init = KF_BUF_INIT;
	kf_buf_addf(&with_init, "%sint kf_init(void)\n{\n\treturn 7;\n}\n", launch);
	scratch_write(&s, "plain.c", launch);
	scratch_write(&s, "init.c", with_init.data);
	kf_buf_free(&with_init);
	cr_assert_eq(compile_cpu(&s, scratch_path(&s, "plain.c", path), "plain.so", &log), 0, "%s", log);
	free(log);
	cr_assert_eq(compile_cpu(&s, scratch_path(&s, "init.c", path), "init.so", &log), 0, "%s", log);
	free(log);
	void *plain = open_so(&s, "plain.so"), *init = open_so(&s, "init.so");
	cr_expect_eq(((kf_shim_init_fn)must_sym(plain, KF_SHIM_INIT_SYMBOL))(), 0);
	cr_expect_eq(((kf_shim_init_fn)must_sym(init, KF_SHIM_INIT_SYMBOL))(), 7);
	float x[3] = { 1, 2, 3 }, y[3] = { 10, 20, 30 }, out[3] = { 0 };
	void *bufs[] = { x, y, out };
	long long ints[] = { 3 };
	cr_expect_eq(((kf_shim_call_fn)must_sym(plain, KF_SHIM_CALL_SYMBOL))(bufs, ints, NULL), 0);
	cr_expect(out[0] == 11 && out[1] == 22 && out[2] == 33);
	dlclose(plain);
	dlclose(init);
	scratch_close(&s);
	kf_task_free(t);
}

/* ---- CUDA text (compiled only; nothing runs on a GPU here) ---- */

Test(abi, cuda_headers_and_shims_compile_with_nvcc)
{
	if (access(NVCC, X_OK) != 0)
		cr_skip_test("%s is not installed", NVCC);
	struct scratch s;
	scratch_open(&s);
	for (size_t i = 0; i < N_STARTER; i++) {
		struct kf_task *t = load_task(starter_tasks[i]);
		char *log;
		write_abi(&s, t, KF_BACKEND_CUDA);
		int rc = run_in(&s, NVCC " -c -x cu -Xcompiler -Wall,-Wextra,-Werror -include kf_task.h "
				       "-o shim.o shim.cu && nm shim.o", &log);
		cr_expect_eq(rc, 0, "%s: CUDA shim failed to compile:\n%s", t->name, log);
		cr_expect_not_null(strstr(log, "T kf_shim_call"), "%s: kf_shim_call not exported with C linkage:\n%s",
				   t->name, log);
		cr_expect_not_null(strstr(log, "w kf_init"), "%s: kf_init is not weak:\n%s", t->name, log);
		free(log);
		kf_task_free(t);
	}
	scratch_close(&s);
}

/* The level-4 examples and references against their tasks' headers: a multi-GPU kf_launch takes the comm
 * (its workspace sizes the comm's scratch, never a parameter of its own). PTX only: the signature is
 * what is checked, not the machine code. */
Test(abi, every_level4_example_and_reference_compiles_against_its_header_with_nvcc)
{
	if (access(NVCC, X_OK) != 0)
		cr_skip_test("%s is not installed", NVCC);
	struct kf_task **ts = NULL;
	int n = 0, multi = 0;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_list(NULL, &ts, &n, &err), KF_OK, "%s", err.msg);
	struct scratch s;
	scratch_open(&s);
	for (int i = 0; i < n; i++) {
		if (!kf_task_multi_gpu(ts[i]))
			continue;
		multi++;
		write_abi(&s, ts[i], KF_BACKEND_CUDA);
		char cmd[6 * PATH_MAX], *log;
		snprintf(cmd, sizeof cmd,
			 NVCC " -c -std=c++17 -gencode arch=compute_90a,code=compute_90a -I'%s/reference_kernels' "
			      "-include kf_task.h -o ex.o '%s/examples/cuda_multi/%s.cu' && "
			 NVCC " -c -std=c++17 -gencode arch=compute_90a,code=compute_90a -I'%s/reference_kernels' "
			      "-include kf_task.h -o ref.o '%s/%s' && "
			 NVCC " -c -std=c++17 -gencode arch=compute_90a,code=compute_90a -include kf_task.h -o shim.o shim.cu",
			 kf_home(), kf_home(), ts[i]->name, kf_home(), kf_home(), ts[i]->reference[KF_BACKEND_CUDA]);
		cr_expect_eq(run_in(&s, cmd, &log), 0, "%s: example, reference or shim failed to compile:\n%s", ts[i]->name, log);
		free(log);
	}
	cr_expect_geq(multi, 4, "the suite has %d level-4 tasks", multi);
	scratch_close(&s);
	kf_task_list_free(ts, n);
}

Test(abi, a_wrong_cuda_signature_fails_to_compile)
{
	if (access(NVCC, X_OK) != 0)
		cr_skip_test("%s is not installed", NVCC);
	struct scratch s;
	struct kf_task *t = load_task("matmul_bf16");
	kf_buf h = KF_BUF_INIT;
	char *log;
	scratch_open(&s);
	kf_abi_header(t, KF_BACKEND_CUDA, &h);
	scratch_write(&s, "kf_task.h", h.data);
	scratch_write(&s, "wrong.cu",
		      "extern \"C\" int kf_launch(const float *A, const float *B, float *C, int M, int N,\n"
		      "                           int K, cudaStream_t stream)\n{\n\treturn 0;\n}\n");
	cr_expect_neq(run_in(&s, NVCC " -c -x cu -include kf_task.h -o wrong.o wrong.cu", &log), 0,
		      "a float-typed kf_launch compiled against the bf16 header");
	cr_expect_not_null(strstr(log, "kf_launch"), "%s", log);
	free(log);
	kf_buf_free(&h);
	scratch_close(&s);
	kf_task_free(t);
}

/* ---- header text ---- */

Test(abi, headers_show_test_shapes_but_never_hidden_ones)
{
	for (size_t i = 0; i < N_STARTER; i++) {
		struct kf_task *t = load_task(starter_tasks[i]);
		for (int b = 0; b < KF_BACKEND_COUNT; b++) {
			kf_buf h = KF_BUF_INIT, shape = KF_BUF_INIT;
			kf_abi_header(t, (enum kf_backend)b, &h);
			size_t first_line = strcspn(t->description, "\n");
			kf_buf_reset(&shape);
			kf_buf_add(&shape, t->description, first_line);
			cr_expect_not_null(strstr(h.data, shape.data), "%s: no description", t->name);
			kf_buf_reset(&shape);
			kf_task_shape_format(t, &t->shapes[KF_SET_TEST][0], &shape);
			cr_expect_not_null(strstr(h.data, shape.data), "%s: test shape %s missing", t->name,
					   shape.data);
			for (int k = 0; k < t->n_shapes[KF_SET_HIDDEN]; k++) {
				kf_buf_reset(&shape);
				kf_task_shape_format(t, &t->shapes[KF_SET_HIDDEN][k], &shape);
				cr_expect_null(strstr(h.data, shape.data), "%s: hidden shape %s leaked",
					       t->name, shape.data);
			}
			kf_buf_free(&h);
			kf_buf_free(&shape);
		}
		kf_task_free(t);
	}
}

static const char policy_spec[] =
	"{\"name\": \"pol\", \"level\": 2, \"description\": \"y = x\", \"symbols\": [\"n\"],"
	" \"inputs\": [{\"name\": \"x\", \"dtype\": \"f16\", \"shape\": [\"n\"],"
	"              \"dist\": {\"kind\": \"uniform\", \"lo\": -1, \"hi\": 1}}],"
	" \"outputs\": [{\"name\": \"y\", \"dtype\": \"f16\", \"shape\": [\"n\"]}],"
	" \"shapes\": {\"bench\": {\"cpu\": {\"n\": 1024}}, \"test\": [{\"n\": 64}],"
	"              \"ragged\": [{\"n\": 3}], \"hidden\": [{\"n\": 5}]},"
	" \"tolerance\": {\"f16\": {\"atol\": 0.001, \"rtol\": 0.001}}, \"flops\": \"0\","
	" \"reference\": {\"cpu\": \"r/pol.c\"}, \"oracle\": \"o/pol.c\","
	" \"policy\": {\"vendor_libs\": true}, \"determinism\": \"bitwise\","
	" \"min_runtime_ms\": {\"cpu\": 1}}";

static struct kf_task *parse_policy_task(void)
{
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_parse("pol.json", policy_spec, strlen(policy_spec), &t, &err), KF_OK,
		     "%s", err.msg);
	return t;
}

Test(abi, headers_state_the_policy_tolerance_and_rules)
{
	struct kf_task *t = load_task("matmul_bf16");
	kf_buf h = KF_BUF_INIT;
	kf_abi_header(t, KF_BACKEND_CPU, &h);
	cr_expect_not_null(strstr(h.data, "are forbidden"));
	cr_expect_not_null(strstr(h.data, "|out - ref| <= 0.01 + 0.01 * |ref|"));
	cr_expect_not_null(strstr(h.data, "int kf_init(void)"));
	cr_expect_null(strstr(h.data, "kf_f16"), "f16 helpers emitted for a task without f16");
	kf_buf_reset(&h);
	kf_abi_header(t, KF_BACKEND_CUDA, &h);
	cr_expect_not_null(strstr(h.data, "on `stream`"));
	cr_expect_not_null(strstr(h.data, "cudaMalloc in the optional"));
	kf_buf_free(&h);
	kf_task_free(t);

	t = parse_policy_task();
	kf_abi_header(t, KF_BACKEND_CPU, &h);
	cr_expect_not_null(strstr(h.data, "are allowed"));
	cr_expect_not_null(strstr(h.data, "bitwise identical"));
	cr_expect_not_null(strstr(h.data, "typedef uint16_t kf_f16;"));
	kf_buf_free(&h);
	kf_task_free(t);
}

/* ---- the conversions inside the generated CPU header ---- */

typedef float (*to_float_fn)(uint16_t);
typedef uint16_t (*from_float_fn)(float);

static const char conv_source[] =
	"float t_bf16_to_float(uint16_t h) { return kf_bf16_to_float(h); }\n"
	"uint16_t t_float_to_bf16(float f) { return kf_float_to_bf16(f); }\n"
	"float t_f16_to_float(uint16_t h) { return kf_f16_to_float(h); }\n"
	"uint16_t t_float_to_f16(float f) { return kf_float_to_f16(f); }\n"
	"float ref_f16_to_float(uint16_t h) { _Float16 v; memcpy(&v, &h, 2); return (float)v; }\n"
	"uint16_t ref_float_to_f16(float f) { _Float16 v = (_Float16)f; uint16_t h; memcpy(&h, &v, 2); return h; }\n";

static float bits_to_float(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static uint32_t float_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

Test(abi, generated_bf16_and_f16_conversions_are_exact)
{
	struct scratch s;
	struct kf_task *t = parse_policy_task();
	char *log;
	scratch_open(&s);
	write_abi(&s, t, KF_BACKEND_CPU);
	scratch_write(&s, "conv.c", conv_source);
	cr_assert_eq(run_in(&s, CC_FLAGS " -include kf_task.h -o conv.so conv.c", &log), 0, "%s", log);
	free(log);
	void *so = open_so(&s, "conv.so");
	to_float_fn bf_to = (to_float_fn)must_sym(so, "t_bf16_to_float");
	from_float_fn bf_from = (from_float_fn)must_sym(so, "t_float_to_bf16");
	to_float_fn h_to = (to_float_fn)must_sym(so, "t_f16_to_float");
	from_float_fn h_from = (from_float_fn)must_sym(so, "t_float_to_f16");
	to_float_fn ref_to = (to_float_fn)must_sym(so, "ref_f16_to_float");
	from_float_fn ref_from = (from_float_fn)must_sym(so, "ref_float_to_f16");

	for (uint32_t h = 0; h <= UINT16_MAX; h++) {
		cr_assert_eq(float_bits(bf_to((uint16_t)h)), float_bits(kf_bf16_to_float((kf_bf16)h)));
		float a = h_to((uint16_t)h), b = ref_to((uint16_t)h);
		cr_assert(isnan(a) ? isnan(b) : float_bits(a) == float_bits(b),
			  "f16 %#06x: %a, _Float16 says %a", h, a, b);
	}
	const uint32_t edges[] = { 0x477fe000u, 0x477fefffu, 0x477ff000u, 0x477ff001u, 0x33000000u,
				   0x33000001u, 0x33800000u, 0x33c00000u, 0x387fc000u, 0x387fe000u,
				   0x387ff000u, 0x38800000u, 0x7f800000u, 0x7fc00001u, 0xff800000u };
	for (uint64_t k = 0; k < (1ull << 32) / F32_BITS_STRIDE + sizeof edges / sizeof *edges; k++) {
		size_t n_edges = sizeof edges / sizeof *edges;
		uint32_t u = k < n_edges ? edges[k] : (uint32_t)((k - n_edges) * F32_BITS_STRIDE);
		float f = bits_to_float(u);
		cr_assert_eq(bf_from(f), kf_float_to_bf16(f), "bf16 of %#010x", u);
		uint16_t a = h_from(f), b = ref_from(f);
		bool a_nan = (a & 0x7fffu) > 0x7c00u, b_nan = (b & 0x7fffu) > 0x7c00u;
		cr_assert(a_nan ? b_nan : a == b, "f16 of %#010x (%a): %#06x, _Float16 says %#06x", u, f,
			  a, b);
	}
	dlclose(so);
	scratch_close(&s);
	kf_task_free(t);
}

/* ---- format v2 dtypes in the generated headers ---- */

static const char lowp_spec[] =
	"{\"name\": \"lowp\", \"level\": 1, \"description\": \"every v2 dtype\", \"symbols\": [\"n\"],\n"
	" \"inputs\": [\n"
	"  {\"name\": \"a\", \"dtype\": \"i8\", \"shape\": [\"n\"], \"dist\": {\"kind\": \"int\", \"lo\": -5, \"hi\": 5}},\n"
	"  {\"name\": \"b\", \"dtype\": \"u8\", \"shape\": [\"n\"], \"dist\": {\"kind\": \"int\", \"lo\": 0, \"hi\": 255}},\n"
	"  {\"name\": \"m\", \"dtype\": \"bool\", \"shape\": [\"n\"], \"dist\": {\"kind\": \"int\", \"lo\": 0, \"hi\": 1}},\n"
	"  {\"name\": \"w\", \"dtype\": \"i64\", \"shape\": [\"n\"], \"dist\": {\"kind\": \"int\", \"lo\": 0, \"hi\": 9}},\n"
	"  {\"name\": \"p\", \"dtype\": \"fp8_e4m3\", \"shape\": [\"n\"], \"dist\": {\"kind\": \"normal\", \"mean\": 0, \"std\": 1}},\n"
	"  {\"name\": \"q\", \"dtype\": \"fp8_e5m2\", \"shape\": [\"n\"], \"dist\": {\"kind\": \"normal\", \"mean\": 0, \"std\": 1}},\n"
	"  {\"name\": \"r\", \"dtype\": \"fp4_e2m1x2\", \"shape\": [\"n\"], \"dist\": {\"kind\": \"uniform\", \"lo\": -6, \"hi\": 6}},\n"
	"  {\"name\": \"s\", \"dtype\": \"e8m0\", \"shape\": [\"n\"], \"dist\": {\"kind\": \"int\", \"lo\": -2, \"hi\": 2}}],\n"
	" \"outputs\": [{\"name\": \"y\", \"dtype\": \"i64\", \"shape\": [\"n\"]}, {\"name\": \"z\", \"dtype\": \"fp8_e4m3\", \"shape\": [\"n\"]}],\n"
	" \"scalars\": [{\"name\": \"alpha\", \"type\": \"float\", \"value\": 0.5}, {\"name\": \"k\", \"type\": \"int\", \"value\": 3}],\n"
	" \"shapes\": {\"bench\": {\"cpu\": {\"n\": 64}}, \"test\": [{\"n\": 8}], \"ragged\": [{\"n\": 7}], \"hidden\": [{\"n\": 9}]},\n"
	" \"tolerance\": {\"i64\": {\"atol\": 0, \"rtol\": 0}, \"fp8_e4m3\": {\"atol\": 0.1, \"rtol\": 0.1}},\n"
	" \"flops\": \"n\", \"reference\": {\"cpu\": \"x.c\"}, \"oracle\": \"o.c\", \"min_runtime_ms\": {\"cpu\": 1}}\n";

typedef float (*code_to_float_fn)(uint8_t);
typedef uint8_t (*float_to_code_fn)(float);

static const char lowp_conv_source[] =
	"float t_e4m3_to(uint8_t c) { return kf_fp8_e4m3_to_float(c); }\n"
	"uint8_t t_e4m3_from(float f) { return kf_float_to_fp8_e4m3(f); }\n"
	"float t_e5m2_to(uint8_t c) { return kf_fp8_e5m2_to_float(c); }\n"
	"uint8_t t_e5m2_from(float f) { return kf_float_to_fp8_e5m2(f); }\n"
	"float t_e2m1_to(uint8_t c) { return kf_fp4_e2m1_to_float(c); }\n"
	"uint8_t t_e2m1_from(float f) { return kf_float_to_fp4_e2m1(f); }\n"
	"float t_e8m0_to(uint8_t c) { return kf_e8m0_to_float(c); }\n"
	"uint8_t t_e8m0_from(float f) { return kf_float_to_e8m0(f); }\n";

Test(abi, headers_give_every_v2_dtype_a_storage_type)
{
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_parse("lowp.json", lowp_spec, strlen(lowp_spec), &t, &err), KF_OK, "%s", err.msg);
	kf_buf p = KF_BUF_INIT;
	kf_abi_prototype(t, KF_BACKEND_CPU, &p);
	cr_expect_str_eq(p.data, "int kf_launch(const int8_t *a, const uint8_t *b, const bool *m, const int64_t *w, "
				 "const kf_fp8_e4m3 *p, const kf_fp8_e5m2 *q, const kf_fp4x2 *r, const kf_e8m0 *s, "
				 "int64_t *y, kf_fp8_e4m3 *z, int n, float alpha, int k);");
	kf_buf_reset(&p);
	kf_abi_prototype(t, KF_BACKEND_CUDA, &p);
	cr_expect_str_eq(p.data, "extern \"C\" int kf_launch(const signed char *a, const unsigned char *b, const bool *m, "
				 "const long long *w, const __nv_fp8_e4m3 *p, const __nv_fp8_e5m2 *q, "
				 "const __nv_fp4x2_e2m1 *r, const __nv_fp8_e8m0 *s, long long *y, __nv_fp8_e4m3 *z, int n, "
				 "float alpha, int k, cudaStream_t stream);");
	kf_buf_free(&p);
	kf_task_free(t);
}

Test(abi, generated_fp8_fp4_and_e8m0_conversions_match_the_judges_exactly)
{
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_parse("lowp.json", lowp_spec, strlen(lowp_spec), &t, &err), KF_OK, "%s", err.msg);
	struct scratch s;
	char *log;
	scratch_open(&s);
	write_abi(&s, t, KF_BACKEND_CPU);
	scratch_write(&s, "conv.c", lowp_conv_source);
	cr_assert_eq(run_in(&s, CC_FLAGS " -include kf_task.h -o conv.so conv.c", &log), 0, "%s", log);
	free(log);
	void *so = open_so(&s, "conv.so");
	const char *names[4][2] = { { "t_e4m3_to", "t_e4m3_from" }, { "t_e5m2_to", "t_e5m2_from" },
				    { "t_e2m1_to", "t_e2m1_from" }, { "t_e8m0_to", "t_e8m0_from" } };
	code_to_float_fn lib_to[4] = { kf_fp8_e4m3_to_float, kf_fp8_e5m2_to_float, kf_fp4_e2m1_to_float, kf_e8m0_to_float };
	float_to_code_fn lib_from[4] = { kf_float_to_fp8_e4m3, kf_float_to_fp8_e5m2, kf_float_to_fp4_e2m1,
					 kf_float_to_e8m0 };
	for (int k = 0; k < 4; k++) {
		code_to_float_fn to = (code_to_float_fn)must_sym(so, names[k][0]);
		float_to_code_fn from = (float_to_code_fn)must_sym(so, names[k][1]);
		for (int c = 0; c < 256; c++)
			cr_assert_eq(float_bits(to((uint8_t)c)), float_bits(lib_to[k]((uint8_t)c)), "%s(%#x)", names[k][0], c);
		for (uint64_t u = 0; u < (1ull << 32); u += F32_BITS_STRIDE)
			cr_assert_eq(from(bits_to_float((uint32_t)u)), lib_from[k](bits_to_float((uint32_t)u)), "%s(%#x)",
				     names[k][1], (unsigned)u);
	}
	dlclose(so);
	scratch_close(&s);
	kf_task_free(t);
}

Test(abi, a_cuda_header_and_shim_with_every_v2_dtype_and_scalars_compile_with_nvcc)
{
	if (access(NVCC, X_OK) != 0)
		cr_skip_test("%s is not installed", NVCC);
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_parse("lowp.json", lowp_spec, strlen(lowp_spec), &t, &err), KF_OK, "%s", err.msg);
	struct scratch s;
	scratch_open(&s);
	char *log;
	write_abi(&s, t, KF_BACKEND_CUDA);
	int rc = run_in(&s, NVCC " -c -x cu -Xcompiler -Wall,-Wextra,-Werror -include kf_task.h -o shim.o shim.cu", &log);
	cr_expect_eq(rc, 0, "CUDA shim with fp8/fp4/e8m0 failed to compile:\n%s", log);
	free(log);
	scratch_close(&s);
	kf_task_free(t);
}

Test(abi, scalar_parameters_follow_the_symbols_as_float_or_int)
{
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	const char *spec =
		"{\"name\": \"sc\", \"level\": 1, \"description\": \"y = alpha*x\", \"symbols\": [\"n\"],\n"
		" \"inputs\": [{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [\"n\"], \"dist\": {\"kind\": \"normal\", \"mean\": 0, \"std\": 1}}],\n"
		" \"outputs\": [{\"name\": \"y\", \"dtype\": \"f32\", \"shape\": [\"n\"]}],\n"
		" \"scalars\": [{\"name\": \"alpha\", \"type\": \"float\", \"value\": 0.5}, {\"name\": \"k\", \"type\": \"int\", \"value\": \"n/2\"}],\n"
		" \"shapes\": {\"bench\": {\"cpu\": {\"n\": 64}}, \"test\": [{\"n\": 8}], \"ragged\": [{\"n\": 7}], \"hidden\": [{\"n\": 9}]},\n"
		" \"tolerance\": {\"f32\": {\"atol\": 0, \"rtol\": 0}}, \"flops\": \"n\", \"reference\": {\"cpu\": \"x.c\"}, \"oracle\": \"o.c\",\n"
		" \"min_runtime_ms\": {\"cpu\": 1}}\n";
	cr_assert_eq(kf_task_parse("sc.json", spec, strlen(spec), &t, &err), KF_OK, "%s", err.msg);
	kf_buf p = KF_BUF_INIT;
	kf_abi_prototype(t, KF_BACKEND_CPU, &p);
	cr_expect_str_eq(p.data, "int kf_launch(const float *x, float *y, int n, float alpha, int k);");
	kf_buf_reset(&p);
	kf_abi_oracle_header(t, &p);
	cr_expect_not_null(strstr(p.data, "int kf_oracle(const double *x, double *y, int n, double alpha, int k);"), "%s", p.data);
	kf_buf_reset(&p);
	kf_abi_header(t, KF_BACKEND_CPU, &p);
	cr_expect_not_null(strstr(p.data, "alpha    float = 0.5"), "%s", p.data);
	cr_expect_not_null(strstr(p.data, "k        int   = n/2"), "%s", p.data);
	kf_buf_free(&p);

	/* the shim turns the double's bits back into the float argument */
	struct scratch s;
	char *log;
	void *so;
	scratch_open(&s);
	write_abi(&s, t, KF_BACKEND_CPU);
	scratch_write(&s, "cand.c", "int kf_launch(const float *x, float *y, int n, float alpha, int k)\n"
				    "{ for (int i = 0; i < n; i++) y[i] = alpha * x[i] + (float)k; return 0; }\n");
	cr_assert_eq(run_in(&s, CC_FLAGS " -include kf_task.h -o cand.so cand.c shim.c", &log), 0, "%s", log);
	free(log);
	so = open_so(&s, "cand.so");
	kf_shim_call_fn call = (kf_shim_call_fn)must_sym(so, KF_SHIM_CALL_SYMBOL);
	float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, y[8];
	long long ints[KF_TASK_MAX_INTS];
	kf_task_call_ints(t, &t->shapes[KF_SET_TEST][0], ints);
	void *bufs[2] = { x, y };
	cr_assert_eq(call(bufs, ints, NULL), 0);
	cr_expect_eq(y[3], 0.5f * 4 + 4);
	dlclose(so);
	scratch_close(&s);
	kf_task_free(t);
}

/* ---- the CUDA workspace ---- */

static const char workspace_spec[] =
	"{\"name\": \"ws\", \"level\": 1, \"description\": \"y = x, through scratch memory\", \"symbols\": [\"n\"],\n"
	" \"inputs\": [{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [\"n\"], \"dist\": {\"kind\": \"normal\", \"mean\": 0, \"std\": 1}}],\n"
	" \"outputs\": [{\"name\": \"y\", \"dtype\": \"f32\", \"shape\": [\"n\"]}],\n"
	" \"scalars\": [{\"name\": \"alpha\", \"type\": \"float\", \"value\": 0.5}],\n"
	" \"workspace\": \"4*n\",\n"
	" \"shapes\": {\"bench\": {\"cpu\": {\"n\": 64}, \"cuda\": {\"n\": 1024}}, \"test\": [{\"n\": 8}], \"ragged\": [{\"n\": 7}], \"hidden\": [{\"n\": 9}]},\n"
	" \"tolerance\": {\"f32\": {\"atol\": 0, \"rtol\": 0}}, \"flops\": \"n\",\n"
	" \"reference\": {\"cpu\": \"x.c\", \"cuda\": \"x.cu\"}, \"oracle\": \"o.c\",\n"
	" \"min_runtime_ms\": {\"cpu\": 1, \"cuda\": 0.01}}\n";

Test(abi, the_cuda_workspace_comes_after_the_scalars_and_before_the_stream)
{
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_parse("ws.json", workspace_spec, strlen(workspace_spec), &t, &err), KF_OK, "%s", err.msg);
	kf_buf p = KF_BUF_INIT;
	kf_abi_prototype(t, KF_BACKEND_CUDA, &p);
	cr_expect_str_eq(p.data, "extern \"C\" int kf_launch(const float *x, float *y, int n, float alpha, "
				 "void *workspace, cudaStream_t stream);");
	kf_buf_reset(&p);
	kf_abi_prototype(t, KF_BACKEND_CPU, &p);
	cr_expect_str_eq(p.data, "int kf_launch(const float *x, float *y, int n, float alpha);",
			 "the CPU allocates freely: no workspace parameter");
	kf_buf_reset(&p);
	kf_abi_oracle_header(t, &p);
	cr_expect_null(strstr(p.data, "workspace"), "the oracle takes no workspace: %s", p.data);
	kf_buf_reset(&p);
	kf_abi_header(t, KF_BACKEND_CUDA, &p);
	cr_expect_not_null(strstr(p.data, "`workspace` points to 4*n bytes of scratch device memory (4096 at the"),
			   "the header states the size at the bench shape: %s", p.data);
	kf_buf_reset(&p);
	kf_abi_shim(t, KF_BACKEND_CUDA, &p);
	cr_expect_not_null(strstr(p.data, ", bufs[2], (cudaStream_t)stream)"), "the buffer after the tensors: %s", p.data);
	kf_buf_free(&p);
	kf_task_free(t);
}

/* Compiled by nvcc and called on the host: kf_launch never touches the device here, it only reports what
 * the shim handed it as the workspace. */
Test(abi, the_cuda_shim_hands_the_buffer_after_the_tensors_to_kf_launch_as_the_workspace)
{
	if (access(NVCC, X_OK) != 0)
		cr_skip_test("%s is not installed", NVCC);
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_parse("ws.json", workspace_spec, strlen(workspace_spec), &t, &err), KF_OK, "%s", err.msg);
	struct scratch s;
	scratch_open(&s);
	char *log;
	write_abi(&s, t, KF_BACKEND_CUDA);
	scratch_write(&s, "cand.cu", "extern \"C\" int kf_launch(const float *x, float *y, int n, float alpha, void *workspace,\n"
				     "                         cudaStream_t stream)\n"
				     "{ (void)x; (void)y; (void)n; (void)stream; return *(int *)workspace + (int)(alpha * 2); }\n");
	int rc = run_in(&s, NVCC " -shared -Xcompiler -fPIC,-Wall,-Wextra,-Werror -include kf_task.h -o cand.so cand.cu shim.cu",
			&log);
	cr_assert_eq(rc, 0, "a candidate taking the workspace failed to build:\n%s", log);
	free(log);
	void *so = open_so(&s, "cand.so");
	kf_shim_call_fn call = (kf_shim_call_fn)must_sym(so, KF_SHIM_CALL_SYMBOL);
	float x[8] = { 0 }, y[8] = { 0 };
	int scratch_word = 41;
	void *bufs[3] = { x, y, &scratch_word };
	long long ints[KF_TASK_MAX_INTS];
	kf_task_call_ints(t, &t->shapes[KF_SET_TEST][0], ints);
	cr_expect_eq(call(bufs, ints, NULL), 42, "kf_launch read 41 from the workspace and got alpha = 0.5");
	dlclose(so);
	scratch_close(&s);
	kf_task_free(t);
}

/* The judge's wrapper of an oracle into a CPU reference declares locals of its own: a task whose
 * symbol, tensor or scalar is named like one of them (n, d, e, rc, i, out) must still build. */
static const char clashing_spec[] =
	"{\"name\": \"clash\", \"level\": 1, \"description\": \"names the wrapper also uses\", \"symbols\": [\"n\"],\n"
	" \"inputs\": [{\"name\": \"d\", \"dtype\": \"f32\", \"shape\": [\"n\"], \"dist\": {\"kind\": \"normal\", \"mean\": 0, \"std\": 1}},\n"
	"  {\"name\": \"e\", \"dtype\": \"f32\", \"shape\": [\"n\"], \"dist\": {\"kind\": \"normal\", \"mean\": 0, \"std\": 1}}],\n"
	" \"outputs\": [{\"name\": \"rc\", \"dtype\": \"f32\", \"shape\": [\"n\"]}],\n"
	" \"scalars\": [{\"name\": \"i\", \"type\": \"int\", \"value\": 2}],\n"
	" \"shapes\": {\"bench\": {\"cpu\": {\"n\": 64}}, \"test\": [{\"n\": 8}], \"ragged\": [{\"n\": 7}], \"hidden\": [{\"n\": 9}]},\n"
	" \"tolerance\": {\"f32\": {\"atol\": 1e-5, \"rtol\": 1e-5}}, \"flops\": \"n\", \"oracle\": \"o.c\", \"min_runtime_ms\": {\"cpu\": 1}}\n";

Test(abi, the_oracle_wrapper_builds_whatever_the_tasks_names)
{
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_parse("clash.json", clashing_spec, strlen(clashing_spec), &t, &err), KF_OK, "%s", err.msg);
	static const char oracle[] = "int kf_oracle(const double *d, const double *e, double *rc, int n, int i)\n"
				     "{\n\tfor (int k = 0; k < n; k++)\n\t\trc[k] = d[k] + i * e[k];\n\treturn 0;\n}\n";
	struct scratch s;
	scratch_open(&s);
	kf_buf text = KF_BUF_INIT;
	kf_abi_oracle_reference(t, oracle, &text);
	scratch_write(&s, "oracle_reference.c", text.data);
	kf_buf_free(&text);
	char rel[PATH_MAX];
	scratch_path(&s, "oracle_reference.c", rel);
	write_abi(&s, t, KF_BACKEND_CPU);
	void *so;
	build_cpu_candidate(&s, t, rel, "clash.so", &so);
	dlclose(so);
	scratch_close(&s);
	kf_task_free(t);
}
