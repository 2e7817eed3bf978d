/* Task specs: the in-memory form of one tasks/levelN/<name>.json file, its loader and
 * validator (errors read "file:field: reason"), shape-expression evaluation, and the
 * derived quantities (element counts, FLOPs, bytes). Owns no evaluation logic. */
#ifndef KF_TASK_H
#define KF_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

#define KF_MAX_TENSORS 16
#define KF_MAX_SYMBOLS 12
#define KF_MAX_DIMS 6
#define KF_MAX_CONSTRAINTS 16
#define KF_MAX_SCALARS 8
#define KF_WORKSPACE_PARAM "workspace" /* the CUDA kf_launch parameter of a spec's workspace (reserved name) */
#define KF_WORKSPACE_ALIGN 256           /* its alignment, at least (cudaMalloc's) */
#define KF_TASK_MAX_INTS (KF_MAX_SYMBOLS + KF_MAX_SCALARS) /* the ints a call passes: symbols, scalars */
#define KF_CONSTRAINT_MAX 96 /* one constraint's text, e.g. "H % HKV == 0" */
#define KF_MAX_STRESS 8
#define KF_NAME_MAX 64
#define KF_FAN_IN_MAX 32 /* a distribution's fan-in expression, e.g. "H*D" */
#define KF_TASK_MAX_BYTES (1u << 20) /* a task spec file larger than this is rejected */

enum kf_backend { KF_BACKEND_CPU, KF_BACKEND_CUDA, KF_BACKEND_COUNT };
const char *kf_backend_name(enum kf_backend b);
int kf_backend_parse(const char *s, enum kf_backend *out); /* 0 ok, -1 unknown */

/* Element types. FP4_E2M1X2 is packed: one element is a byte holding two E2M1 values (low
 * nibble first), so a shape counts bytes; E8M0 is the MX block-scale format (see eval/tasks/lowp.h). */
enum kf_dtype {
	KF_DTYPE_F32, KF_DTYPE_BF16, KF_DTYPE_F16, KF_DTYPE_I32,
	KF_DTYPE_I8, KF_DTYPE_U8, KF_DTYPE_BOOL, KF_DTYPE_I64,
	KF_DTYPE_FP8_E4M3, KF_DTYPE_FP8_E5M2, KF_DTYPE_FP4_E2M1X2, KF_DTYPE_E8M0,
	KF_DTYPE_COUNT
};
const char *kf_dtype_name(enum kf_dtype d); /* "f32", "bf16", "f16", "i32", "i8", ... */
int kf_dtype_parse(const char *s, enum kf_dtype *out);
size_t kf_dtype_size(enum kf_dtype d);
bool kf_dtype_is_int(enum kf_dtype d);   /* i32, i8, u8, bool, i64: drawn by the int distribution */
bool kf_dtype_is_float(enum kf_dtype d); /* f32, bf16, f16, fp8_*, fp4_e2m1x2 */

/* How the judge draws one tensor's values. */
enum kf_dist_kind {
	KF_DIST_NORMAL,  /* a = mean, b = std */
	KF_DIST_UNIFORM, /* a = lo, b = hi */
	KF_DIST_TIES,    /* values from `levels` evenly spaced points in [a, b], each nudged by
			    a relative jitter of at most 1e-3 (near-ties for max/argmax/softmax) */
	KF_DIST_INT,     /* integers uniform in [a, b] */
	/* format v2 */
	KF_DIST_CONSTANT,        /* every element a */
	KF_DIST_CHOICE,          /* each element one of choices[], uniformly */
	KF_DIST_NORMALIZED_ROWS, /* rows of `row` N(0,1) draws scaled to unit L2 norm */
	KF_DIST_PERMUTATION,     /* each row of `row` elements a permutation of 0..row-1 */
	KF_DIST_SORTED_OFFSETS,  /* non-decreasing from 0 to `range` (first 0, last range): segment offsets */
	KF_DIST_TOPK_INDICES,    /* rows of `row` distinct integers in [0, range): top-k routing */
	KF_DIST_TOPK_WEIGHTS,    /* rows of `row` positive weights summing to 1 */
	KF_DIST_PAGE_TABLE,      /* distinct integers in [0, range) over the whole tensor: paged-KV pages */
	KF_DIST_BLOCK_SCALES,    /* powers of two 2^k, k an integer in [a, b] (e8m0: its exponent) */
	KF_DIST_COUNT
};
#define KF_MAX_CHOICES 16
struct kf_dist {
	enum kf_dist_kind kind;
	double a, b;
	int levels;
	/* Normal and uniform, "" when unset: the spread (std; lo and hi) is divided by the square
	 * root of this expression in the shape symbols (as real models initialise weights), so sums
	 * over it keep their spread at every shape. */
	char fan_in[KF_FAN_IN_MAX];
	/* Int bounds given as expressions ("K-1"), "" when literal; resolved into a, b per shape. */
	char lo_expr[KF_FAN_IN_MAX], hi_expr[KF_FAN_IN_MAX];
	/* Generators: row length and value range as expressions, resolved into row, range per shape. */
	char row_expr[KF_FAN_IN_MAX], range_expr[KF_FAN_IN_MAX];
	int64_t row, range;
	int n_choices;
	double choices[KF_MAX_CHOICES];
};

struct kf_tolerance {
	bool set;
	double atol, rtol;
};

/* A scalar parameter, passed after the shape symbols: fixed (a number; for an int, an expression
 * in the symbols) or drawn once per shape from dist (the same at every call at that shape). */
struct kf_scalar {
	char name[KF_NAME_MAX];
	bool is_float;
	bool drawn;
	double value;    /* float, fixed */
	char *int_expr;  /* int, fixed */
	struct kf_dist dist; /* drawn */
};

struct kf_tensor {
	char name[KF_NAME_MAX];
	enum kf_dtype dtype;
	bool is_output;
	int ndim;
	char *dims[KF_MAX_DIMS]; /* expressions in the shape symbols, e.g. "M", "rows*cols" */
	struct kf_dist dist;     /* inputs only */
	struct kf_tolerance tol; /* outputs only: its own entry in the spec, else its dtype's */
};

/* One concrete shape: a value per symbol, in the order of kf_task.symbols. */
struct kf_shape {
	int64_t v[KF_MAX_SYMBOLS];
};

enum kf_shape_set { KF_SET_BENCH, KF_SET_TEST, KF_SET_RAGGED, KF_SET_HIDDEN, KF_SET_COUNT };
const char *kf_shape_set_name(enum kf_shape_set s); /* "bench", "test", "ragged", "hidden" */

/* A stress variant: overrides some inputs' distributions; run on every test shape. */
struct kf_stress {
	char name[KF_NAME_MAX];
	bool overrides[KF_MAX_TENSORS];
	struct kf_dist dist[KF_MAX_TENSORS];
};


enum kf_determinism { KF_DET_TOLERANCE, KF_DET_BITWISE };

struct kf_task {
	char *path;                 /* the file it was loaded from */
	char name[KF_NAME_MAX];
	int level;
	char *description;          /* goes into the prompt and the generated header */
	int n_inputs, n_outputs;    /* tensors[0..n_inputs) are inputs, then outputs */
	struct kf_tensor tensors[KF_MAX_TENSORS];
	int n_symbols;              /* integer shape symbols, in signature order */
	char symbols[KF_MAX_SYMBOLS][KF_NAME_MAX];
	int64_t symbol_min[KF_MAX_SYMBOLS]; /* 1, or 0 for a symbol declared with "min": 0 */
	int n_scalars;              /* scalar parameters, after the symbols in the signature */
	struct kf_scalar scalars[KF_MAX_SCALARS];
	int n_constraints;          /* "lhs OP rhs" between symbols, checked at every shape */
	char constraints[KF_MAX_CONSTRAINTS][KF_CONSTRAINT_MAX];
	bool has_bench[KF_BACKEND_COUNT];
	struct kf_shape bench[KF_BACKEND_COUNT]; /* the benchmark shape, one per backend */
	struct kf_shape *shapes[KF_SET_COUNT];   /* test, ragged, hidden (index KF_SET_BENCH unused) */
	int n_shapes[KF_SET_COUNT];              /* test, ragged, hidden: at least 1 each */
	int n_stress;
	struct kf_stress stress[KF_MAX_STRESS];
	struct kf_tolerance tol[KF_DTYPE_COUNT]; /* keyed by output dtype (outputs' own: tensors[i].tol) */
	char *flops_expr;           /* FLOPs as an expression in the symbols */
	char *bytes_expr;           /* NULL: each input read once + each output written once */
	char *sfu_expr;             /* NULL, or transcendental evaluations (exp, log, sin, rsqrt...):
				       on a GPU they run on the special-function units, a bound of its own */
	char *workspace_expr;       /* NULL, or bytes of CUDA scratch memory the kernel may need at a shape */
	char *nvlink_bytes_expr;    /* level 4: NULL, or the bytes one GPU must send to its peers (the
				       speed of light's NVLink term, eval/judge/sol.c) */
	enum kf_dtype compute_dtype; /* the arithmetic rate the FLOPs run at: bf16/f16 are tensor
					cores, f32 the fp32 cores; the first input's dtype unless set */
	char *reference[KF_BACKEND_COUNT]; /* reference kernel sources, relative to kf_home(); NULL
					      when not written (the CPU then uses the wrapped oracle) */
	char *oracle;               /* fp64 oracle source, relative to kf_home() */
	char *vendor_baseline;      /* NULL or a baseline name, e.g. "cublas_gemm_bf16" */
	bool vendor_libs_allowed;   /* policy: may candidates call cuBLAS/cuDNN? */
	double min_runtime_ms[KF_BACKEND_COUNT]; /* the reference at the bench shape should take
						    at least this long, so timing is not launch-bound */
	enum kf_determinism determinism;
	char spec_hash[65];         /* sha256 of the spec file's bytes */
	char *spec_text;            /* the file's bytes, stored with every evaluation */
};

/* Directory holding the task suite: the one set by kf_tasks_set_dir (`--suite DIR`), else
 * $KFORGE_TASKS, else <kf_home()>/tasks. */
const char *kf_tasks_dir(void);
void kf_tasks_set_dir(const char *dir); /* NULL or "" clears it */
/* Where `--suite DIR` (cli/cli.h's KF_SUITE_OPT) stores DIR: kf_tasks_dir() takes it up, as kf_tasks_set_dir
 * would, and it is exported as $KFORGE_TASKS for the kforge processes this one starts. */
const char **kf_tasks_suite_slot(void);

int kf_task_load_file(const char *path, struct kf_task **out, kf_err *err);
/* The same, with every error of a broken spec appended to report (one "file:field: reason" line
 * each); err holds as many of them as fit. */
int kf_task_load_file_report(const char *path, struct kf_task **out, kf_buf *report, kf_err *err);
/* Parses spec text; `path` only names it in error messages. */
int kf_task_parse(const char *path, const char *text, size_t len, struct kf_task **out, kf_err *err);
/* Finds a task by name under `dir` (kf_tasks_dir() when NULL), searching level folders. */
int kf_task_find(const char *dir, const char *name, struct kf_task **out, kf_err *err);
/* Loads every .json spec under dir/levelN folders (sorted by level, then name). Any broken spec fails the
 * whole listing with that spec's error. */
int kf_task_list(const char *dir, struct kf_task ***out, int *n, kf_err *err);
/* Loads every spec it can: a broken one is reported (all its errors) into report, counted in
 * *n_broken and skipped. Fails only when the directory cannot be read or a name is defined twice. */
int kf_task_list_report(const char *dir, struct kf_task ***out, int *n, kf_buf *report, int *n_broken,
			kf_err *err);
void kf_task_free(struct kf_task *t);
void kf_task_list_free(struct kf_task **ts, int n);

/* Evaluates an integer expression (+ - * / % parentheses, integer literals, symbols). */
int kf_task_eval(const struct kf_task *t, const char *expr, const struct kf_shape *s, int64_t *out,
		 kf_err *err);
int64_t kf_task_numel(const struct kf_task *t, int tensor, const struct kf_shape *s);
size_t kf_task_tensor_bytes(const struct kf_task *t, int tensor, const struct kf_shape *s); /* numel x dtype size */
/* The distribution input `input` is drawn from at shape s: the stress variant's override when
 * st has one, its fan-in applied. */
struct kf_dist kf_task_dist(const struct kf_task *t, int input, const struct kf_stress *st,
			    const struct kf_shape *s);
double kf_task_flops(const struct kf_task *t, const struct kf_shape *s);
int64_t kf_task_workspace(const struct kf_task *t, const struct kf_shape *s); /* 0 when the spec has none */
/* The workspace at its largest over the shapes backend b runs (bench, test, ragged, hidden). */
int64_t kf_task_workspace_max(const struct kf_task *t, enum kf_backend b);
/* Whether kf_launch on backend b takes the workspace as a parameter of its own: on CUDA when the spec has
 * one, except on a multi-GPU task, whose workspace expression sizes each rank's kf_comm scratch instead. */
bool kf_task_has_workspace_param(const struct kf_task *t, enum kf_backend b);
/* The buffers of a call on backend b: the tensors in signature order, then the workspace when kf_launch
 * takes one (bufs[n_inputs + n_outputs], the kf_launch parameter KF_WORKSPACE_PARAM). */
int kf_task_n_bufs(const struct kf_task *t, enum kf_backend b);
double kf_task_bytes(const struct kf_task *t, const struct kf_shape *s);
double kf_task_sfu_ops(const struct kf_task *t, const struct kf_shape *s); /* 0 when the spec has none */
double kf_task_nvlink_bytes(const struct kf_task *t, const struct kf_shape *s); /* 0 when the spec has none */
/* The scalar parameter k's value at shape s (drawn ones: a draw seeded by the shape and k). */
double kf_task_scalar(const struct kf_task *t, int k, const struct kf_shape *s);
/* Fills ints[] for a call at s: the symbols, then each scalar (an int's value, a float's double
 * bit pattern: the shim turns it back). Returns how many (at most KF_TASK_MAX_INTS). */
int kf_task_call_ints(const struct kf_task *t, const struct kf_shape *s, long long *ints);
/* Every constraint holds at s; otherwise KF_EINPUT naming it, *failed its index. */
int kf_task_check_constraints(const struct kf_task *t, const struct kf_shape *s, int *failed, kf_err *err);
/* The tolerance output i is judged with: its own spec entry, else its dtype's. */
struct kf_tolerance kf_task_tolerance(const struct kf_task *t, int i);
/* Index of the symbol or -1. */
int kf_task_symbol(const struct kf_task *t, const char *name);

/* True when the task runs on backend b: CUDA needs a reference kernel (and a bench shape); the CPU
 * its bench shape only (without a CPU reference the oracle serves as one). */
bool kf_task_has_backend(const struct kf_task *t, enum kf_backend b);
/* A vendor baseline named N is the trusted kernel KF_VENDOR_DIR/N.cu (relative to kf_home()),
 * written to the task's CUDA signature. Fills out and returns true when the task has one for b. */
#define KF_VENDOR_DIR "reference_kernels/vendor"
bool kf_task_vendor_source(const struct kf_task *t, enum kf_backend b, char *out, size_t len);
/* Where a source path of the spec (reference, oracle, vendor baseline) lives: under kf_home() when
 * the file is there, else under the spec's suite (the folder above its levelN/). 0 when found; -1
 * (out then names the kf_home() path) when in neither. */
int kf_task_source_path(const struct kf_task *t, const char *rel, char *out, size_t len);
/* Checks that the reference for backend b, the oracle and any vendor baseline exist (kf_task_source_path); KF_EINPUT
 * ("file:field: ... not found") otherwise, or when the task has no reference for b. */
int kf_task_check_files(const struct kf_task *t, enum kf_backend b, kf_err *err);
/* Appends a shape as "M=64 N=64 K=64" (symbols in order). */
void kf_task_shape_format(const struct kf_task *t, const struct kf_shape *s, kf_buf *out);

#endif
