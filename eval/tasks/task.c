/* Task specs (see task.h): JSON loading with cJSON, validation of every field with one-line
 * "file:field: reason" errors, the shape-expression evaluator, and the walk over the task
 * directory. Knows nothing about how a task is judged; docs/task-spec.md is the format reference. */
#include "eval/tasks/task.h"
#include "eval/tasks/multi.h"

#include <cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/fs.h"
#include "common/rng.h"
#include "common/sha256.h"
#include "eval/tasks/lowp.h"

#define KF_EXPR_MAX_DEPTH 64   /* nesting of parentheses and unary minus */
#define KF_MAX_SHAPES 64       /* per shape set */
#define KF_FIELD_MAX 160       /* a field path such as "stress[3].inputs.gamma" */
#define KF_QUOTE_MAX 48        /* how much of a user's string an error message echoes */
#define KF_RAGGED_MULTIPLE 8   /* a ragged shape has a value that is not a multiple of this */
#define KF_NORMAL_SPAN 8.0     /* normal draws are assumed to stay within mean +- 8 std */
#define KF_F16_MAX 65504.0
#define KF_I64_JSON_MAX 9007199254740992.0 /* 2^53: larger integers do not survive a JSON number */
#define KF_SUGGEST_DISTANCE 2  /* "did you mean" for unknown fields this close to a known one */
#define KF_TASK_EXT ".json"

static const char *const backend_names[KF_BACKEND_COUNT] = { "cpu", "cuda" };
static const char *const backend_exts[KF_BACKEND_COUNT] = { ".c", ".cu" };
static const char *const dtype_names[KF_DTYPE_COUNT] = {
	"f32", "bf16", "f16", "i32", "i8", "u8", "bool", "i64", "fp8_e4m3", "fp8_e5m2", "fp4_e2m1x2", "e8m0",
};
static const size_t dtype_sizes[KF_DTYPE_COUNT] = { 4, 2, 2, 4, 1, 1, 1, 8, 1, 1, 1, 1 };
/* The largest magnitude a distribution may produce; ints: the bounds of the type (i64: what a
 * JSON number holds exactly); e8m0: the unbiased exponent its int distribution draws. */
static const double dtype_max[KF_DTYPE_COUNT] = {
	FLT_MAX, FLT_MAX, KF_F16_MAX, INT32_MAX, INT8_MAX, UINT8_MAX, 1, KF_I64_JSON_MAX,
	KF_FP8_E4M3_MAX, KF_FP8_E5M2_MAX, KF_FP4_E2M1_MAX, KF_E8M0_MAX_EXP,
};
static const double dtype_min[KF_DTYPE_COUNT] = {
	-FLT_MAX, -FLT_MAX, -KF_F16_MAX, INT32_MIN, INT8_MIN, 0, 0, -KF_I64_JSON_MAX,
	-KF_FP8_E4M3_MAX, -KF_FP8_E5M2_MAX, -KF_FP4_E2M1_MAX, KF_E8M0_MIN_EXP,
};
#define DTYPE_LIST "f32, bf16, f16, i32, i8, u8, bool, i64, fp8_e4m3, fp8_e5m2, fp4_e2m1x2, e8m0"
static const char *const set_names[KF_SET_COUNT] = { "bench", "test", "ragged", "hidden" };

/* Names a tensor or symbol may not take: they become parameter names in C, C++ and CUDA
 * prototypes, next to the types the generated headers use. */
static const char *const reserved_names[] = {
	/* C17 (and C23) */
	"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
	"enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
	"restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
	"union", "unsigned", "void", "volatile", "while", "bool", "true", "false", "nullptr",
	"alignas", "alignof", "static_assert", "thread_local", "typeof", "constexpr",
	/* C++ */
	"asm", "catch", "class", "const_cast", "consteval", "constinit", "decltype", "delete",
	"dynamic_cast", "explicit", "export", "friend", "mutable", "namespace", "new", "noexcept",
	"operator", "private", "protected", "public", "reinterpret_cast", "requires",
	"static_cast", "template", "this", "throw", "try", "typeid", "typename", "using",
	"virtual", "wchar_t", "char8_t", "char16_t", "char32_t", "concept", "co_await",
	"co_return", "co_yield", "and", "and_eq", "bitand", "bitor", "compl", "not", "not_eq",
	"or", "or_eq", "xor", "xor_eq",
	/* CUDA built-ins and the types and macros the generated headers use */
	"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "cudaStream_t", "half",
	"nv_bfloat16", "int32_t", "uint16_t", "uint32_t", "int64_t", "size_t", "NULL", "main",
	"int8_t", "uint8_t", "uint64_t",
	NULL,
};

const char *kf_backend_name(enum kf_backend b)
{
	return (unsigned)b < KF_BACKEND_COUNT ? backend_names[b] : "?";
}

int kf_backend_parse(const char *s, enum kf_backend *out)
{
	for (int b = 0; b < KF_BACKEND_COUNT; b++)
		if (!strcmp(s, backend_names[b])) {
			*out = (enum kf_backend)b;
			return 0;
		}
	return -1;
}

const char *kf_dtype_name(enum kf_dtype d)
{
	return (unsigned)d < KF_DTYPE_COUNT ? dtype_names[d] : "?";
}

int kf_dtype_parse(const char *s, enum kf_dtype *out)
{
	for (int d = 0; d < KF_DTYPE_COUNT; d++)
		if (!strcmp(s, dtype_names[d])) {
			*out = (enum kf_dtype)d;
			return 0;
		}
	return -1;
}

size_t kf_dtype_size(enum kf_dtype d)
{
	return (unsigned)d < KF_DTYPE_COUNT ? dtype_sizes[d] : 0;
}

bool kf_dtype_is_int(enum kf_dtype d)
{
	return d == KF_DTYPE_I32 || d == KF_DTYPE_I8 || d == KF_DTYPE_U8 || d == KF_DTYPE_BOOL || d == KF_DTYPE_I64 ||
	       d == KF_DTYPE_E8M0;
}

bool kf_dtype_is_float(enum kf_dtype d)
{
	return (unsigned)d < KF_DTYPE_COUNT && !kf_dtype_is_int(d);
}

const char *kf_shape_set_name(enum kf_shape_set s)
{
	return (unsigned)s < KF_SET_COUNT ? set_names[s] : "?";
}

/* ---- expressions ---- */

struct expr {
	const struct kf_task *t;
	const struct kf_shape *s; /* NULL: check syntax and symbols only, compute nothing */
	const char *text, *p;
	int depth;
	kf_err *err;
};

static int expr_sum(struct expr *e, int64_t *out);

static int expr_col(const struct expr *e)
{
	return (int)(e->p - e->text) + 1;
}

static void expr_skip_space(struct expr *e)
{
	while (isspace((unsigned char)*e->p))
		e->p++;
}

static int expr_arith(struct expr *e, char op, int64_t a, int64_t b, int64_t *out)
{
	bool overflow = false;
	*out = 0;
	if (!e->s)
		return KF_OK;
	switch (op) {
	case '+':
		overflow = __builtin_add_overflow(a, b, out);
		break;
	case '-':
		overflow = __builtin_sub_overflow(a, b, out);
		break;
	case '*':
		overflow = __builtin_mul_overflow(a, b, out);
		break;
	default: /* '/' and '%' truncate like C */
		if (b == 0)
			return kf_errf(e->err, KF_EINPUT, "division by zero");
		if (a == INT64_MIN && b == -1)
			overflow = true;
		else
			*out = op == '/' ? a / b : a % b;
	}
	if (overflow)
		return kf_errf(e->err, KF_EINPUT, "integer overflow");
	return KF_OK;
}

static int expr_number(struct expr *e, int64_t *out)
{
	int64_t v = 0;
	for (; isdigit((unsigned char)*e->p); e->p++)
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *e->p - '0', &v))
			return kf_errf(e->err, KF_EINPUT, "integer literal too large at column %d",
				       expr_col(e));
	*out = v;
	return KF_OK;
}

static int expr_symbol(struct expr *e, int64_t *out)
{
	char name[KF_NAME_MAX];
	size_t n = 0;
	const char *start = e->p;
	for (; isalnum((unsigned char)*e->p) || *e->p == '_'; e->p++)
		if (n < sizeof name - 1)
			name[n++] = *e->p;
	name[n] = '\0';
	int i = (size_t)(e->p - start) < sizeof name ? kf_task_symbol(e->t, name) : -1;
	if (i < 0)
		return kf_errf(e->err, KF_EINPUT, "unknown symbol '%s' at column %d", name,
			       (int)(start - e->text) + 1);
	*out = e->s ? e->s->v[i] : 1;
	return KF_OK;
}

/* primary: integer | symbol | '(' sum ')' | '-' primary */
static int expr_primary(struct expr *e, int64_t *out)
{
	expr_skip_space(e);
	if (isdigit((unsigned char)*e->p))
		return expr_number(e, out);
	if (isalpha((unsigned char)*e->p) || *e->p == '_')
		return expr_symbol(e, out);
	if (*e->p != '(' && *e->p != '-') {
		if (!*e->p)
			return kf_errf(e->err, KF_EINPUT, "expression ends early at column %d",
				       expr_col(e));
		return kf_errf(e->err, KF_EINPUT, "expected a number, a symbol or '(' at column %d",
			       expr_col(e));
	}
	if (++e->depth > KF_EXPR_MAX_DEPTH)
		return kf_errf(e->err, KF_EINPUT, "nested deeper than %d levels", KF_EXPR_MAX_DEPTH);
	int64_t v;
	int rc;
	if (*e->p++ == '-') {
		if ((rc = expr_primary(e, &v)) != KF_OK)
			return rc;
		rc = expr_arith(e, '-', 0, v, out);
	} else {
		if ((rc = expr_sum(e, out)) != KF_OK)
			return rc;
		expr_skip_space(e);
		if (*e->p != ')')
			return kf_errf(e->err, KF_EINPUT, "expected ')' at column %d", expr_col(e));
		e->p++;
	}
	e->depth--;
	return rc;
}

/* product: primary (('*' | '/' | '%') primary)* */
static int expr_product(struct expr *e, int64_t *out)
{
	int rc = expr_primary(e, out);
	for (;;) {
		if (rc != KF_OK)
			return rc;
		expr_skip_space(e);
		char op = *e->p;
		if (op != '*' && op != '/' && op != '%')
			return KF_OK;
		e->p++;
		int64_t rhs;
		if ((rc = expr_primary(e, &rhs)) == KF_OK)
			rc = expr_arith(e, op, *out, rhs, out);
	}
}

/* sum: product (('+' | '-') product)* */
static int expr_sum(struct expr *e, int64_t *out)
{
	int rc = expr_product(e, out);
	for (;;) {
		if (rc != KF_OK)
			return rc;
		expr_skip_space(e);
		char op = *e->p;
		if (op != '+' && op != '-')
			return KF_OK;
		e->p++;
		int64_t rhs;
		if ((rc = expr_product(e, &rhs)) == KF_OK)
			rc = expr_arith(e, op, *out, rhs, out);
	}
}

/* The error message is the bare reason; callers add which expression and where. */
static int expr_eval(const struct kf_task *t, const char *text, const struct kf_shape *s,
		     int64_t *out, kf_err *err)
{
	struct expr e = { .t = t, .s = s, .text = text, .p = text, .err = err };
	int64_t v;
	int rc = expr_sum(&e, &v);
	if (rc != KF_OK)
		return rc;
	expr_skip_space(&e);
	if (*e.p) {
		if (*e.p == ')')
			return kf_errf(err, KF_EINPUT, "unmatched ')' at column %d", expr_col(&e));
		return kf_errf(err, KF_EINPUT, "unexpected '%c' at column %d",
			       isprint((unsigned char)*e.p) ? *e.p : '?', expr_col(&e));
	}
	if (out)
		*out = v;
	return KF_OK;
}

int kf_task_eval(const struct kf_task *t, const char *expr, const struct kf_shape *s, int64_t *out,
		 kf_err *err)
{
	if (expr_eval(t, expr, s, out, err) != KF_OK)
		return kf_err_prefix(err, "expression \"%s\": ", expr);
	return KF_OK;
}

struct kf_tolerance kf_task_tolerance(const struct kf_task *t, int i)
{
	return t->tensors[i].tol;
}

int kf_task_symbol(const struct kf_task *t, const char *name)
{
	for (int i = 0; i < t->n_symbols; i++)
		if (!strcmp(t->symbols[i], name))
			return i;
	return -1;
}

/* -1 when a dimension does not evaluate or the product overflows. */
int64_t kf_task_workspace(const struct kf_task *t, const struct kf_shape *s)
{
	int64_t v;
	return t->workspace_expr && expr_eval(t, t->workspace_expr, s, &v, NULL) == KF_OK ? v : 0;
}

bool kf_task_has_workspace_param(const struct kf_task *t, enum kf_backend b)
{
	return t->workspace_expr && b == KF_BACKEND_CUDA && !kf_task_multi_gpu(t);
}

int kf_task_n_bufs(const struct kf_task *t, enum kf_backend b)
{
	return t->n_inputs + t->n_outputs + kf_task_has_workspace_param(t, b);
}

int64_t kf_task_workspace_max(const struct kf_task *t, enum kf_backend b)
{
	int64_t most = kf_task_workspace(t, &t->bench[b]);
	for (int set = KF_SET_TEST; set < KF_SET_COUNT; set++)
		for (int k = 0; k < t->n_shapes[set]; k++) {
			int64_t v = kf_task_workspace(t, &t->shapes[set][k]);
			most = v > most ? v : most;
		}
	return most;
}

int64_t kf_task_numel(const struct kf_task *t, int tensor, const struct kf_shape *s)
{
	const struct kf_tensor *x = &t->tensors[tensor];
	int64_t n = 1;
	for (int d = 0; d < x->ndim; d++) {
		int64_t v;
		if (expr_eval(t, x->dims[d], s, &v, NULL) != KF_OK || __builtin_mul_overflow(n, v, &n))
			return -1;
	}
	return n;
}

size_t kf_task_tensor_bytes(const struct kf_task *t, int tensor, const struct kf_shape *s)
{
	return (size_t)kf_task_numel(t, tensor, s) * kf_dtype_size(t->tensors[tensor].dtype);
}

/* Resolves an expression of a distribution at s; false when it does not evaluate there (the loader
 * checked every shape of the spec). */
static bool dist_expr(const struct kf_task *t, const char *text, const struct kf_shape *s, int64_t *out)
{
	return text[0] && expr_eval(t, text, s, out, NULL) == KF_OK;
}

struct kf_dist kf_task_dist(const struct kf_task *t, int input, const struct kf_stress *st,
			    const struct kf_shape *s)
{
	struct kf_dist d = st && st->overrides[input] ? st->dist[input] : t->tensors[input].dist;
	int64_t v;
	if (dist_expr(t, d.fan_in, s, &v) && v >= 1) {
		double scale = sqrt((double)v);
		if (d.kind == KF_DIST_NORMAL)
			d.b /= scale;
		else
			d.a /= scale, d.b /= scale;
	}
	if (dist_expr(t, d.lo_expr, s, &v))
		d.a = (double)v;
	if (dist_expr(t, d.hi_expr, s, &v))
		d.b = (double)v;
	d.row = dist_expr(t, d.row_expr, s, &v) ? v : kf_task_numel(t, input, s);
	d.range = dist_expr(t, d.range_expr, s, &v) ? v : 0;
	d.fan_in[0] = d.lo_expr[0] = d.hi_expr[0] = d.row_expr[0] = d.range_expr[0] = '\0';
	return d;
}

/* Both return -1 when the expression does not evaluate at s (validated specs always do at
 * their own shapes). */
double kf_task_flops(const struct kf_task *t, const struct kf_shape *s)
{
	int64_t v;
	return expr_eval(t, t->flops_expr, s, &v, NULL) == KF_OK ? (double)v : -1.0;
}

double kf_task_bytes(const struct kf_task *t, const struct kf_shape *s)
{
	int64_t v;
	if (t->bytes_expr)
		return expr_eval(t, t->bytes_expr, s, &v, NULL) == KF_OK ? (double)v : -1.0;
	double total = 0;
	for (int i = 0; i < t->n_inputs + t->n_outputs; i++) {
		int64_t n = kf_task_numel(t, i, s);
		if (n < 0)
			return -1.0;
		total += (double)n * (double)kf_dtype_size(t->tensors[i].dtype);
	}
	return total;
}

double kf_task_nvlink_bytes(const struct kf_task *t, const struct kf_shape *s)
{
	int64_t v;
	if (!t->nvlink_bytes_expr)
		return 0;
	return expr_eval(t, t->nvlink_bytes_expr, s, &v, NULL) == KF_OK ? (double)v : -1.0;
}

double kf_task_sfu_ops(const struct kf_task *t, const struct kf_shape *s)
{
	int64_t v;
	if (!t->sfu_expr)
		return 0;
	return expr_eval(t, t->sfu_expr, s, &v, NULL) == KF_OK ? (double)v : -1.0;
}

bool kf_task_has_backend(const struct kf_task *t, enum kf_backend b)
{
	if (b == KF_BACKEND_CPU)
		return t->has_bench[b]; /* the oracle serves when no CPU reference is written */
	return (unsigned)b < KF_BACKEND_COUNT && t->reference[b] != NULL;
}

void kf_task_shape_format(const struct kf_task *t, const struct kf_shape *s, kf_buf *out)
{
	for (int i = 0; i < t->n_symbols; i++)
		kf_buf_addf(out, "%s%s=%lld", i ? " " : "", t->symbols[i], (long long)s->v[i]);
}

/* ---- the loader ---- */

struct loader {
	const char *path;
	kf_err *err;
	struct kf_task *t;
	kf_buf diag;  /* every "file:field: reason" line found so far, newline-separated */
	int n_errors;
};

/* A shape the validator checks everything at, with the field that names it. */
struct named_shape {
	char field[KF_FIELD_MAX];
	enum kf_shape_set set;
	const struct kf_shape *s;
};

static int fail(struct loader *L, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct loader *L, const char *field, const char *fmt, ...)
{
	char reason[KF_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	/* Every error is kept: the loader goes on to the next independent field so that one run
	 * reports all of a spec's problems (kf_task_parse joins them). */
	kf_buf_addf(&L->diag, "%s%s:%s: %s", L->n_errors ? "\n" : "", L->path, field, reason);
	L->n_errors++;
	return kf_errf(L->err, KF_EINPUT, "%s:%s: %s", L->path, field, reason);
}

/* Copies a user string for an error message: printable ASCII only, truncated, so that
 * every message stays on one line. */
static const char *quote(const char *s, char out[KF_QUOTE_MAX])
{
	size_t n = 0;
	for (; *s && n < KF_QUOTE_MAX - 4; s++)
		out[n++] = isprint((unsigned char)*s) ? *s : '?';
	out[n] = '\0';
	if (*s)
		strcat(out, "...");
	return out;
}

/* Field paths are bounded by the spec's nesting, far below KF_FIELD_MAX; a longer one
 * (a huge key) is cut and marked. */
static void field_mark_cut(char out[KF_FIELD_MAX], int n)
{
	if (n >= KF_FIELD_MAX)
		memcpy(out + KF_FIELD_MAX - 4, "...", 4);
}

static void field_join(char out[KF_FIELD_MAX], const char *where, const char *key)
{
	char q[KF_QUOTE_MAX];
	field_mark_cut(out, snprintf(out, KF_FIELD_MAX, "%s%s%s", where, *where ? "." : "",
				     quote(key, q)));
}

static void field_index(char out[KF_FIELD_MAX], const char *where, int i)
{
	field_mark_cut(out, snprintf(out, KF_FIELD_MAX, "%s[%d]", where, i));
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > KF_FIELD_MAX || lb > KF_FIELD_MAX)
		return SIZE_MAX;
	size_t row[KF_FIELD_MAX + 1];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* Rejects keys outside `allowed` (NULL-terminated), suggesting a near one, and repeated keys. */
static int check_keys(struct loader *L, const cJSON *obj, const char *where,
		      const char *const *allowed)
{
	int rc = KF_OK;
	for (const cJSON *c = obj->child; c; c = c->next) {
		char f[KF_FIELD_MAX];
		field_join(f, where, c->string);
		const char *near = NULL;
		size_t near_d = KF_SUGGEST_DISTANCE + 1;
		bool known = false;
		for (const char *const *a = allowed; *a && !known; a++) {
			known = !strcmp(*a, c->string);
			size_t d = edit_distance(*a, c->string);
			if (d < near_d)
				near = *a, near_d = d;
		}
		if (!known && near)
			rc = fail(L, f, "unknown field (did you mean \"%s\"?)", near);
		else if (!known)
			rc = fail(L, f, "unknown field");
		for (const cJSON *d = obj->child; d != c && known; d = d->next)
			if (!strcmp(d->string, c->string)) {
				rc = fail(L, f, "duplicate field");
				break;
			}
	}
	return rc;
}

static const cJSON *get(const cJSON *obj, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Fetches a required member; *out stays NULL for an optional one that is absent. */
static int member(struct loader *L, const cJSON *obj, const char *where, const char *key,
		  bool required, const cJSON **out)
{
	*out = get(obj, key);
	if (!*out && required) {
		char f[KF_FIELD_MAX];
		field_join(f, where, key);
		return fail(L, f, "missing");
	}
	return KF_OK;
}

static int want_object(struct loader *L, const cJSON *j, const char *field)
{
	return cJSON_IsObject(j) ? KF_OK : fail(L, field, "must be an object");
}

static int want_string(struct loader *L, const cJSON *j, const char *field, const char **out)
{
	*out = "";
	if (!cJSON_IsString(j) || !j->valuestring[0])
		return fail(L, field, "must be a non-empty string");
	*out = j->valuestring;
	return KF_OK;
}

static int want_number(struct loader *L, const cJSON *j, const char *field, double *out)
{
	*out = 0;
	if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble))
		return fail(L, field, "must be a finite number");
	*out = j->valuedouble;
	return KF_OK;
}

static int want_int(struct loader *L, const cJSON *j, const char *field, int64_t lo, int64_t hi,
		    int64_t *out)
{
	double v;
	*out = 0;
	if (want_number(L, j, field, &v) != KF_OK || v != floor(v) || v < (double)lo ||
	    v > (double)hi)
		return fail(L, field, "must be an integer between %lld and %lld", (long long)lo,
			    (long long)hi);
	*out = (int64_t)v;
	return KF_OK;
}

static bool is_lower_name(const char *s)
{
	if (!*s || strlen(s) >= KF_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static int want_lower_name(struct loader *L, const cJSON *j, const char *field, const char **out)
{
	if (want_string(L, j, field, out) != KF_OK)
		return L->err->code;
	if (!is_lower_name(*out))
		return fail(L, field, "must use only a-z, 0-9 and _ (at most %d characters)",
			    KF_NAME_MAX - 1);
	return KF_OK;
}

/* Tensor and symbol names become C parameter names. */
static int want_identifier(struct loader *L, const cJSON *j, const char *field, const char **out)
{
	char q[KF_QUOTE_MAX];
	if (want_string(L, j, field, out) != KF_OK)
		return L->err->code;
	const char *s = *out;
	bool ok = isalpha((unsigned char)s[0]) || s[0] == '_';
	for (const char *p = s; *p && ok; p++)
		ok = isalnum((unsigned char)*p) || *p == '_';
	if (!ok)
		return fail(L, field, "\"%s\" is not a C identifier", quote(s, q));
	if (strlen(s) >= KF_NAME_MAX)
		return fail(L, field, "longer than %d characters", KF_NAME_MAX - 1);
	if (s[0] == '_' || !strncmp(s, "kf_", 3))
		return fail(L, field, "\"%s\": names starting with '_' or \"kf_\" are reserved", s);
	if (!strcmp(s, "stream"))
		return fail(L, field, "\"stream\" is reserved for the CUDA stream parameter");
	if (!strcmp(s, KF_WORKSPACE_PARAM))
		return fail(L, field, "\"%s\" is reserved for the CUDA scratch-memory parameter", KF_WORKSPACE_PARAM);
	for (const char *const *r = reserved_names; *r; r++)
		if (!strcmp(s, *r))
			return fail(L, field, "\"%s\" is a C, C++ or CUDA keyword or reserved name", s);
	return KF_OK;
}

/* An expression field may be a string ("2*M*N") or a non-negative integer literal. */
static int want_expr(struct loader *L, const cJSON *j, const char *field, char **out)
{
	char buf[32];
	const char *text;
	if (cJSON_IsNumber(j)) {
		int64_t v;
		if (want_int(L, j, field, 0, INT32_MAX, &v) != KF_OK)
			return L->err->code;
		snprintf(buf, sizeof buf, "%lld", (long long)v);
		text = buf;
	} else if (cJSON_IsString(j) && j->valuestring[0]) {
		text = j->valuestring;
	} else {
		return fail(L, field, "must be an expression in the shape symbols, e.g. \"2*M*N\"");
	}
	kf_err e;
	if (expr_eval(L->t, text, NULL, NULL, &e) != KF_OK) {
		char q[KF_QUOTE_MAX];
		return fail(L, field, "\"%s\": %s", quote(text, q), e.msg);
	}
	*out = kf_xstrdup(text);
	return KF_OK;
}

static int load_string_field(struct loader *L, const cJSON *root, const char *key, bool required,
			     char **out)
{
	const cJSON *j;
	const char *s;
	if (member(L, root, "", key, required, &j) != KF_OK)
		return L->err->code;
	if (!j)
		return KF_OK;
	if (want_string(L, j, key, &s) != KF_OK)
		return L->err->code;
	*out = kf_xstrdup(s);
	return KF_OK;
}

/* ---- name, level, description, symbols ---- */

/* The file's base name without ".json", and the N of a parent folder named levelN (0 if none). */
static void path_parts(const char *path, char stem[KF_NAME_MAX + 8], int *folder_level)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base), ext = strlen(KF_TASK_EXT);
	if (n > ext && !strcmp(base + n - ext, KF_TASK_EXT))
		n -= ext;
	snprintf(stem, KF_NAME_MAX + 8, "%.*s", (int)n, base);
	*folder_level = 0;
	const char *dir_end = base > path ? base - 1 : path;
	const char *dir = dir_end;
	while (dir > path && dir[-1] != '/')
		dir--;
	char *end;
	if (dir_end - dir > 5 && !strncmp(dir, "level", 5) && isdigit((unsigned char)dir[5])) {
		long v = strtol(dir + 5, &end, 10);
		if (end == dir_end && v < INT_MAX)
			*folder_level = (int)v;
	}
}

static int load_header(struct loader *L, const cJSON *root)
{
	struct kf_task *t = L->t;
	const cJSON *j;
	const char *s;
	char stem[KF_NAME_MAX + 8];
	int folder_level, rc = KF_OK;
	int64_t level;

	/* name, level and description are independent: each is reported on its own */
	path_parts(L->path, stem, &folder_level);
	if (member(L, root, "", "name", true, &j) != KF_OK || want_lower_name(L, j, "name", &s) != KF_OK)
		rc = KF_EINPUT;
	else if (strcmp(s, stem))
		rc = fail(L, "name", "\"%s\" differs from the file name (%s%s)", s, stem, KF_TASK_EXT);
	else
		snprintf(t->name, sizeof t->name, "%s", s);

	if (member(L, root, "", "level", true, &j) != KF_OK || want_int(L, j, "level", 1, 4, &level) != KF_OK)
		rc = KF_EINPUT;
	else if (folder_level && folder_level != level)
		rc = fail(L, "level", "%lld, but the file is in level%d/", (long long)level, folder_level);
	else
		t->level = (int)level;

	if (load_string_field(L, root, "description", true, &t->description) != KF_OK)
		rc = KF_EINPUT;
	else if (strstr(t->description, "*/") || strstr(t->description, "/*"))
		rc = fail(L, "description", "must not contain \"/*\" or \"*/\" (it goes into a C comment)");
	return rc;
}

static int load_symbols(struct loader *L, const cJSON *root)
{
	struct kf_task *t = L->t;
	const cJSON *arr;
	if (member(L, root, "", "symbols", true, &arr) != KF_OK)
		return L->err->code;
	int n = cJSON_GetArraySize(arr);
	if (!cJSON_IsArray(arr) || n < 1 || n > KF_MAX_SYMBOLS)
		return fail(L, "symbols", "must be an array of 1 to %d symbol names", KF_MAX_SYMBOLS);
	int i = 0;
	for (const cJSON *j = arr->child; j; j = j->next, i++) {
		static const char *const keys[] = { "name", "min", NULL };
		char f[KF_FIELD_MAX], fn[KF_FIELD_MAX];
		const char *s;
		const cJSON *jn = j, *jm = NULL;
		int64_t min = 1;
		field_index(f, "symbols", i);
		snprintf(fn, sizeof fn, "%s", f);
		/* "M", or {"name": "M", "min": 0} for a symbol that may be 0 */
		if (cJSON_IsObject(j)) {
			field_join(fn, f, "name");
			if (check_keys(L, j, f, keys) != KF_OK || member(L, j, f, "name", true, &jn) != KF_OK ||
			    member(L, j, f, "min", false, &jm) != KF_OK)
				return L->err->code;
			char fm[KF_FIELD_MAX];
			field_join(fm, f, "min");
			if (jm && want_int(L, jm, fm, 0, 1, &min) != KF_OK)
				return L->err->code;
		}
		if (want_identifier(L, jn, fn, &s) != KF_OK)
			return L->err->code;
		if (kf_task_symbol(t, s) >= 0)
			return fail(L, fn, "duplicate symbol \"%s\"", s);
		t->symbol_min[t->n_symbols] = min;
		snprintf(t->symbols[t->n_symbols++], KF_NAME_MAX, "%s", s);
	}
	return KF_OK;
}

/* ---- scalar parameters ---- */

static int load_dist(struct loader *L, const cJSON *j, const char *where, enum kf_dtype dt, struct kf_dist *out);
static int tensor_index(const struct kf_task *t, const char *name);

static int load_scalar(struct loader *L, const cJSON *j, const char *where, struct kf_scalar *sc)
{
	static const char *const keys[] = { "name", "type", "value", "dist", NULL };
	const cJSON *jn, *jt, *jv, *jd;
	const char *name, *type;
	char f[KF_FIELD_MAX], q[KF_QUOTE_MAX];
	if (want_object(L, j, where) != KF_OK || check_keys(L, j, where, keys) != KF_OK ||
	    member(L, j, where, "name", true, &jn) != KF_OK || member(L, j, where, "type", true, &jt) != KF_OK ||
	    member(L, j, where, "value", false, &jv) != KF_OK || member(L, j, where, "dist", false, &jd) != KF_OK)
		return L->err->code;
	field_join(f, where, "name");
	if (want_identifier(L, jn, f, &name) != KF_OK)
		return L->err->code;
	if (kf_task_symbol(L->t, name) >= 0 || tensor_index(L->t, name) >= 0)
		return fail(L, f, "\"%s\" is already a symbol or tensor", name);
	for (const struct kf_scalar *o = L->t->scalars; o < sc; o++)
		if (!strcmp(o->name, name))
			return fail(L, f, "duplicate scalar \"%s\"", name);
	snprintf(sc->name, sizeof sc->name, "%s", name);
	field_join(f, where, "type");
	if (want_string(L, jt, f, &type) != KF_OK)
		return L->err->code;
	if (strcmp(type, "float") && strcmp(type, "int"))
		return fail(L, f, "\"%s\" is not \"float\" or \"int\"", quote(type, q));
	sc->is_float = !strcmp(type, "float");
	if (!jv == !jd)
		return fail(L, where, "give exactly one of \"value\" (fixed) and \"dist\" (drawn once per shape)");
	if (jd) {
		sc->drawn = true;
		field_join(f, where, "dist");
		return load_dist(L, jd, f, sc->is_float ? KF_DTYPE_F32 : KF_DTYPE_I32, &sc->dist);
	}
	field_join(f, where, "value");
	if (sc->is_float)
		return want_number(L, jv, f, &sc->value);
	return want_expr(L, jv, f, &sc->int_expr);
}

static int load_scalars(struct loader *L, const cJSON *root)
{
	const cJSON *arr;
	if (member(L, root, "", "scalars", false, &arr) != KF_OK)
		return L->err->code;
	if (!arr)
		return KF_OK;
	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > KF_MAX_SCALARS)
		return fail(L, "scalars", "must be an array of at most %d scalar parameters", KF_MAX_SCALARS);
	int rc = KF_OK;
	for (const cJSON *j = arr->child; j; j = j->next) {
		char f[KF_FIELD_MAX];
		field_index(f, "scalars", L->t->n_scalars);
		if (load_scalar(L, j, f, &L->t->scalars[L->t->n_scalars]) != KF_OK)
			rc = KF_EINPUT;
		L->t->n_scalars++;
	}
	return rc;
}

/* A draw from d seeded only by the shape and the scalar's index: every call at one shape sees the
 * same value, and each shape (hidden ones included) its own. */
static double scalar_draw(const struct kf_task *t, int k, const struct kf_shape *s)
{
	uint64_t h = 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1);
	for (int i = 0; i < t->n_symbols; i++)
		h = (h ^ (uint64_t)s->v[i]) * 0x100000001b3ull, h ^= h >> 29;
	kf_rng r;
	kf_rng_seed(&r, h);
	const struct kf_dist *d = &t->scalars[k].dist;
	switch (d->kind) {
	case KF_DIST_NORMAL:
		return (float)(d->a + d->b * kf_rng_normal(&r));
	case KF_DIST_INT:
		return d->a + (double)kf_rng_below(&r, (uint64_t)(d->b - d->a + 1));
	default:
		return (float)(d->a + (d->b - d->a) * kf_rng_uniform(&r));
	}
}

double kf_task_scalar(const struct kf_task *t, int k, const struct kf_shape *s)
{
	const struct kf_scalar *sc = &t->scalars[k];
	int64_t v;
	if (sc->drawn)
		return scalar_draw(t, k, s);
	if (sc->is_float)
		return sc->value;
	return expr_eval(t, sc->int_expr, s, &v, NULL) == KF_OK ? (double)v : 0;
}

int kf_task_call_ints(const struct kf_task *t, const struct kf_shape *s, long long *ints)
{
	int n = 0;
	for (int i = 0; i < t->n_symbols; i++)
		ints[n++] = (long long)s->v[i];
	for (int k = 0; k < t->n_scalars; k++) {
		double v = kf_task_scalar(t, k, s);
		if (t->scalars[k].is_float)
			memcpy(&ints[n++], &v, sizeof v);
		else
			ints[n++] = (long long)v;
	}
	return n;
}

/* ---- constraints between symbols ---- */

static const char *const cmp_ops[] = { "==", "!=", "<=", ">=", "<", ">" };

/* Splits "lhs OP rhs" at its one comparison outside parentheses; -1 when there is not exactly one. */
static int constraint_split(const char *text, char lhs[KF_CONSTRAINT_MAX], char rhs[KF_CONSTRAINT_MAX], int *op)
{
	int depth = 0, found = -1, at = 0, len = 0;
	for (int i = 0; text[i]; i++) {
		depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
		if (depth || !strchr("=!<>", text[i]))
			continue;
		int k = 0;
		while (k < 6 && strncmp(text + i, cmp_ops[k], strlen(cmp_ops[k])))
			k++;
		if (k == 6 || found >= 0)
			return -1;
		found = k, at = i, len = (int)strlen(cmp_ops[k]);
		i += len - 1;
	}
	if (found < 0 || at >= KF_CONSTRAINT_MAX)
		return -1;
	snprintf(lhs, KF_CONSTRAINT_MAX, "%.*s", at, text);
	snprintf(rhs, KF_CONSTRAINT_MAX, "%s", text + at + len);
	*op = found;
	return 0;
}

static bool constraint_holds(int op, int64_t a, int64_t b)
{
	switch (op) {
	case 0: return a == b;
	case 1: return a != b;
	case 2: return a <= b;
	case 3: return a >= b;
	case 4: return a < b;
	default: return a > b;
	}
}

static int load_constraints(struct loader *L, const cJSON *root)
{
	struct kf_task *t = L->t;
	const cJSON *arr;
	if (member(L, root, "", "constraints", false, &arr) != KF_OK)
		return L->err->code;
	if (!arr)
		return KF_OK;
	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > KF_MAX_CONSTRAINTS)
		return fail(L, "constraints", "must be an array of at most %d constraints such as \"H %% HKV == 0\"",
			    KF_MAX_CONSTRAINTS);
	int rc = KF_OK;
	for (const cJSON *j = arr->child; j; j = j->next) {
		char f[KF_FIELD_MAX], lhs[KF_CONSTRAINT_MAX], rhs[KF_CONSTRAINT_MAX], q[KF_QUOTE_MAX];
		const char *text;
		int op;
		kf_err e;
		field_index(f, "constraints", t->n_constraints);
		if (want_string(L, j, f, &text) != KF_OK) {
			rc = KF_EINPUT;
			continue;
		}
		if (strlen(text) >= KF_CONSTRAINT_MAX || constraint_split(text, lhs, rhs, &op) != 0) {
			rc = fail(L, f, "\"%s\" must be one comparison (==, !=, <=, >=, <, >) of two expressions, at most %d characters",
				  quote(text, q), KF_CONSTRAINT_MAX - 1);
			continue;
		}
		if (expr_eval(t, lhs, NULL, NULL, &e) != KF_OK || expr_eval(t, rhs, NULL, NULL, &e) != KF_OK) {
			rc = fail(L, f, "\"%s\": %s", quote(text, q), e.msg);
			continue;
		}
		snprintf(t->constraints[t->n_constraints++], KF_CONSTRAINT_MAX, "%s", text);
	}
	return rc;
}

int kf_task_check_constraints(const struct kf_task *t, const struct kf_shape *s, int *failed, kf_err *err)
{
	*failed = -1;
	for (int k = 0; k < t->n_constraints; k++) {
		char lhs[KF_CONSTRAINT_MAX], rhs[KF_CONSTRAINT_MAX];
		int64_t a, b;
		int op;
		constraint_split(t->constraints[k], lhs, rhs, &op);
		if (expr_eval(t, lhs, s, &a, err) != KF_OK || expr_eval(t, rhs, s, &b, err) != KF_OK) {
			*failed = k;
			return KF_EINPUT;
		}
		if (!constraint_holds(op, a, b)) {
			*failed = k;
			return kf_errf(err, KF_EINPUT, "\"%s\" does not hold (%lld %s %lld is false)", t->constraints[k],
				       (long long)a, cmp_ops[op], (long long)b);
		}
	}
	return KF_OK;
}

/* ---- tensors and distributions ---- */

static int check_magnitude(struct loader *L, const char *field, enum kf_dtype dt, double m)
{
	if (m > dtype_max[dt])
		return fail(L, field, "values up to %g do not fit in %s", m, kf_dtype_name(dt));
	return KF_OK;
}

/* An optional expression member (fan_in, row, k, total, range) copied into out. */
static int load_small_expr(struct loader *L, const cJSON *j, const char *where, const char *key, bool required,
			   char out[KF_FAN_IN_MAX])
{
	const cJSON *jf;
	char f[KF_FIELD_MAX];
	char *text;
	if (member(L, j, where, key, required, &jf) != KF_OK)
		return L->err->code;
	if (!jf)
		return KF_OK;
	field_join(f, where, key);
	if (want_expr(L, jf, f, &text) != KF_OK)
		return L->err->code;
	size_t n = strlen(text);
	if (n < KF_FAN_IN_MAX)
		memcpy(out, text, n + 1);
	free(text);
	if (n >= KF_FAN_IN_MAX)
		return fail(L, f, "longer than %d characters", KF_FAN_IN_MAX - 1);
	return KF_OK;
}

/* An int bound: a literal within [lo, hi], or an expression in the symbols checked at each shape. */
static int load_int_bound(struct loader *L, const cJSON *j, const char *field, int64_t lo, int64_t hi, double *out,
			  char expr[KF_FAN_IN_MAX])
{
	int64_t v;
	if (cJSON_IsString(j)) {
		char *text;
		if (want_expr(L, j, field, &text) != KF_OK)
			return L->err->code;
		size_t n = strlen(text);
		snprintf(expr, KF_FAN_IN_MAX, "%s", text);
		free(text);
		if (n >= KF_FAN_IN_MAX)
			return fail(L, field, "longer than %d characters", KF_FAN_IN_MAX - 1);
		*out = 0;
		return KF_OK;
	}
	if (want_int(L, j, field, lo, hi, &v) != KF_OK)
		return L->err->code;
	*out = (double)v;
	return KF_OK;
}

static const char *const dist_names[KF_DIST_COUNT] = {
	"normal", "uniform", "ties", "int", "constant", "choice", "normalized_rows", "permutation",
	"sorted_offsets", "topk_indices", "topk_weights", "page_table", "block_scales",
};

/* Which dtypes a kind may fill: integer-valued generators need i32 or i64 (indices). */
static const char *dist_dtype_error(enum kf_dist_kind k, enum kf_dtype dt)
{
	bool index = dt == KF_DTYPE_I32 || dt == KF_DTYPE_I64;
	switch (k) {
	case KF_DIST_INT:
		return kf_dtype_is_int(dt) ? NULL : "the int distribution is for integer tensors (i32, i8, u8, bool, i64, e8m0) only";
	case KF_DIST_PERMUTATION:
	case KF_DIST_SORTED_OFFSETS:
	case KF_DIST_TOPK_INDICES:
	case KF_DIST_PAGE_TABLE:
		return index ? NULL : "this generator makes indices: i32 or i64 tensors only";
	case KF_DIST_CONSTANT:
	case KF_DIST_CHOICE:
		return NULL;
	case KF_DIST_BLOCK_SCALES:
		return kf_dtype_is_float(dt) || dt == KF_DTYPE_E8M0 ? NULL : "block scales are for float or e8m0 tensors";
	default:
		return kf_dtype_is_float(dt) ? NULL : "int";
	}
}

static int load_dist(struct loader *L, const cJSON *j, const char *where, enum kf_dtype dt,
		     struct kf_dist *out)
{
	static const char *const keys[KF_DIST_COUNT][5] = {
		{ "kind", "mean", "std", "fan_in", NULL }, { "kind", "lo", "hi", "fan_in", NULL },
		{ "kind", "lo", "hi", "levels", NULL },    { "kind", "lo", "hi", NULL },
		{ "kind", "value", NULL },                 { "kind", "values", NULL },
		{ "kind", "row", NULL },                   { "kind", "row", NULL },
		{ "kind", "total", NULL },                 { "kind", "k", "range", NULL },
		{ "kind", "k", NULL },                     { "kind", "range", NULL },
		{ "kind", "lo", "hi", NULL },
	};
	const cJSON *kind_j;
	const char *kind;
	char f[KF_FIELD_MAX], q[KF_QUOTE_MAX];

	if (want_object(L, j, where) != KF_OK || member(L, j, where, "kind", true, &kind_j) != KF_OK)
		return L->err->code;
	field_join(f, where, "kind");
	if (want_string(L, kind_j, f, &kind) != KF_OK)
		return L->err->code;
	int k = 0;
	while (k < KF_DIST_COUNT && strcmp(kind, dist_names[k]))
		k++;
	if (k == KF_DIST_COUNT)
		return fail(L, f, "\"%s\" is not a distribution (normal, uniform, ties, int, constant, choice, normalized_rows, permutation, sorted_offsets, topk_indices, topk_weights, page_table, block_scales)",
			    quote(kind, q));
	out->kind = (enum kf_dist_kind)k;
	const char *bad = dist_dtype_error(out->kind, dt);
	if (bad && !strcmp(bad, "int"))
		return fail(L, f, "%s tensors take the int distribution", kf_dtype_name(dt));
	if (bad)
		return fail(L, f, "%s", bad);
	if (check_keys(L, j, where, keys[k]) != KF_OK)
		return L->err->code;

	const cJSON *ja, *jb;
	char fa[KF_FIELD_MAX], fb[KF_FIELD_MAX];
	switch (out->kind) {
	case KF_DIST_CONSTANT: {
		field_join(fa, where, "value");
		if (member(L, j, where, "value", true, &ja) != KF_OK || want_number(L, ja, fa, &out->a) != KF_OK)
			return L->err->code;
		out->n_choices = 1;
		out->choices[0] = out->a;
		break;
	}
	case KF_DIST_CHOICE: {
		field_join(fa, where, "values");
		if (member(L, j, where, "values", true, &ja) != KF_OK)
			return L->err->code;
		int n = cJSON_GetArraySize(ja);
		if (!cJSON_IsArray(ja) || n < 1 || n > KF_MAX_CHOICES)
			return fail(L, fa, "must be an array of 1 to %d numbers", KF_MAX_CHOICES);
		for (const cJSON *c = ja->child; c; c = c->next) {
			char fc[KF_FIELD_MAX];
			field_index(fc, fa, out->n_choices);
			if (want_number(L, c, fc, &out->choices[out->n_choices]) != KF_OK)
				return L->err->code;
			out->n_choices++;
		}
		break;
	}
	case KF_DIST_NORMALIZED_ROWS:
	case KF_DIST_PERMUTATION:
		return load_small_expr(L, j, where, "row", out->kind == KF_DIST_NORMALIZED_ROWS, out->row_expr);
	case KF_DIST_SORTED_OFFSETS:
		return load_small_expr(L, j, where, "total", true, out->range_expr);
	case KF_DIST_TOPK_INDICES:
		if (load_small_expr(L, j, where, "range", true, out->range_expr) != KF_OK)
			return L->err->code;
		__attribute__((fallthrough)); /* k is the row, as for the weights */
	case KF_DIST_TOPK_WEIGHTS:
		return load_small_expr(L, j, where, "k", true, out->row_expr);
	case KF_DIST_PAGE_TABLE:
		return load_small_expr(L, j, where, "range", true, out->range_expr);
	default:
		break;
	}
	if (out->kind == KF_DIST_CONSTANT || out->kind == KF_DIST_CHOICE) {
		/* every value must be one the dtype holds: integers within an integer type's bounds */
		for (int i = 0; i < out->n_choices; i++) {
			double v = out->choices[i];
			char fv[KF_FIELD_MAX];
			if (out->kind == KF_DIST_CHOICE)
				field_index(fv, fa, i);
			else
				snprintf(fv, sizeof fv, "%s", fa);
			if (kf_dtype_is_int(dt) && (v != floor(v) || v < dtype_min[dt] || v > dtype_max[dt]))
				return fail(L, fv, "%g is not a %s value (integers %g to %g)", v, kf_dtype_name(dt), dtype_min[dt],
					    dtype_max[dt]);
			if (check_magnitude(L, fv, dt, fabs(v)) != KF_OK)
				return L->err->code;
		}
		return KF_OK;
	}

	const char *ka = out->kind == KF_DIST_NORMAL ? "mean" : "lo";
	const char *kb = out->kind == KF_DIST_NORMAL ? "std" : "hi";
	if (member(L, j, where, ka, true, &ja) != KF_OK || member(L, j, where, kb, true, &jb) != KF_OK)
		return L->err->code;
	field_join(fa, where, ka);
	field_join(fb, where, kb);
	if (out->kind == KF_DIST_INT || out->kind == KF_DIST_BLOCK_SCALES) {
		/* within the tensor's type (e8m0 and block scales: the exponent of the scale 2^k) */
		bool exps = out->kind == KF_DIST_BLOCK_SCALES || dt == KF_DTYPE_E8M0;
		int64_t lo = exps ? KF_E8M0_MIN_EXP : (int64_t)dtype_min[dt], hi = exps ? KF_E8M0_MAX_EXP : (int64_t)dtype_max[dt];
		if (load_int_bound(L, ja, fa, lo, hi, &out->a, out->lo_expr) != KF_OK ||
		    load_int_bound(L, jb, fb, lo, hi, &out->b, out->hi_expr) != KF_OK)
			return L->err->code;
		if (out->kind == KF_DIST_BLOCK_SCALES && (out->lo_expr[0] || out->hi_expr[0]))
			return fail(L, where, "block-scale exponents must be literal integers");
		if (!out->lo_expr[0] && !out->hi_expr[0] && out->a > out->b)
			return fail(L, fb, "must be at least lo");
		if (out->kind == KF_DIST_BLOCK_SCALES)
			return check_magnitude(L, where, dt, ldexp(1.0, (int)out->b));
		return KF_OK;
	}
	if (want_number(L, ja, fa, &out->a) != KF_OK || want_number(L, jb, fb, &out->b) != KF_OK)
		return L->err->code;
	if (out->kind == KF_DIST_NORMAL) {
		if (out->b <= 0)
			return fail(L, fb, "must be positive");
		if (load_small_expr(L, j, where, "fan_in", false, out->fan_in) != KF_OK)
			return L->err->code;
		/* A fan-in only narrows the spread, so the unscaled std bounds every shape. */
		return check_magnitude(L, where, dt, fabs(out->a) + KF_NORMAL_SPAN * out->b);
	}
	if (out->a >= out->b)
		return fail(L, fb, "must be greater than lo");
	if (check_magnitude(L, where, dt, fmax(fabs(out->a), fabs(out->b))) != KF_OK)
		return L->err->code;
	if (out->kind == KF_DIST_UNIFORM)
		return load_small_expr(L, j, where, "fan_in", false, out->fan_in);
	if (out->kind == KF_DIST_TIES) {
		const cJSON *jl;
		int64_t levels;
		field_join(f, where, "levels");
		if (member(L, j, where, "levels", true, &jl) != KF_OK ||
		    want_int(L, jl, f, 2, INT32_MAX, &levels) != KF_OK)
			return L->err->code;
		out->levels = (int)levels;
	}
	return KF_OK;
}

static int tensor_index(const struct kf_task *t, const char *name)
{
	for (int i = 0; i < t->n_inputs + t->n_outputs; i++)
		if (!strcmp(t->tensors[i].name, name))
			return i;
	return -1;
}

static int load_tensor(struct loader *L, const cJSON *j, const char *where, bool is_output,
		       struct kf_tensor *x)
{
	static const char *const input_keys[] = { "name", "dtype", "shape", "dist", NULL };
	static const char *const output_keys[] = { "name", "dtype", "shape", NULL };
	const cJSON *jn, *jd, *js;
	const char *s;
	char f[KF_FIELD_MAX], q[KF_QUOTE_MAX];

	if (want_object(L, j, where) != KF_OK ||
	    check_keys(L, j, where, is_output ? output_keys : input_keys) != KF_OK ||
	    member(L, j, where, "name", true, &jn) != KF_OK ||
	    member(L, j, where, "dtype", true, &jd) != KF_OK ||
	    member(L, j, where, "shape", true, &js) != KF_OK)
		return L->err->code;
	field_join(f, where, "name");
	if (want_identifier(L, jn, f, &s) != KF_OK)
		return L->err->code;
	if (tensor_index(L->t, s) >= 0)
		return fail(L, f, "duplicate tensor name \"%s\"", s);
	if (kf_task_symbol(L->t, s) >= 0)
		return fail(L, f, "\"%s\" is also a shape symbol", s);
	snprintf(x->name, sizeof x->name, "%s", s);
	x->is_output = is_output;

	field_join(f, where, "dtype");
	if (want_string(L, jd, f, &s) != KF_OK)
		return L->err->code;
	if (kf_dtype_parse(s, &x->dtype) != 0)
		return fail(L, f, "\"%s\" is not a dtype (" DTYPE_LIST ")", quote(s, q));
	/* Packed codes and block scales are compared as numbers nowhere: outputs dequantise. */
	if (is_output && (x->dtype == KF_DTYPE_FP4_E2M1X2 || x->dtype == KF_DTYPE_E8M0))
		return fail(L, f, "%s is for inputs only (an output gives the dequantised values)", s);

	field_join(f, where, "shape");
	int ndim = cJSON_GetArraySize(js);
	if (!cJSON_IsArray(js) || ndim < 1 || ndim > KF_MAX_DIMS)
		return fail(L, f, "must be an array of 1 to %d dimensions", KF_MAX_DIMS);
	for (const cJSON *d = js->child; d; d = d->next) {
		char fd[KF_FIELD_MAX];
		field_index(fd, f, x->ndim);
		if (want_expr(L, d, fd, &x->dims[x->ndim]) != KF_OK)
			return L->err->code;
		x->ndim++;
	}
	if (is_output)
		return KF_OK;
	const cJSON *jdist;
	field_join(f, where, "dist");
	if (member(L, j, where, "dist", true, &jdist) != KF_OK)
		return L->err->code;
	return load_dist(L, jdist, f, x->dtype, &x->dist);
}

static int load_tensor_list(struct loader *L, const cJSON *root, const char *key, bool is_output)
{
	struct kf_task *t = L->t;
	const cJSON *arr;
	if (member(L, root, "", key, true, &arr) != KF_OK)
		return L->err->code;
	if (!cJSON_IsArray(arr) || !arr->child)
		return fail(L, key, "must be a non-empty array of tensors");
	int i = 0, rc = KF_OK;
	for (const cJSON *j = arr->child; j; j = j->next, i++) {
		char f[KF_FIELD_MAX];
		field_index(f, key, i);
		if (t->n_inputs + t->n_outputs == KF_MAX_TENSORS)
			return fail(L, f, "more than %d tensors in all", KF_MAX_TENSORS);
		struct kf_tensor *x = &t->tensors[t->n_inputs + t->n_outputs];
		/* A broken tensor keeps its place, so the next one is reported under its own index. */
		if (load_tensor(L, j, f, is_output, x) != KF_OK)
			rc = KF_EINPUT;
		if (is_output)
			t->n_outputs++;
		else
			t->n_inputs++;
	}
	return rc;
}

/* ---- shapes ---- */

static int load_shape(struct loader *L, const cJSON *j, const char *where, struct kf_shape *s)
{
	const struct kf_task *t = L->t;
	bool given[KF_MAX_SYMBOLS] = { false };
	if (want_object(L, j, where) != KF_OK)
		return L->err->code;
	for (int i = 0; i < t->n_symbols; i++)
		s->v[i] = 0;
	for (const cJSON *c = j->child; c; c = c->next) {
		char f[KF_FIELD_MAX];
		int64_t v;
		field_join(f, where, c->string);
		int i = kf_task_symbol(t, c->string);
		if (i < 0)
			return fail(L, f, "not a declared symbol");
		if (given[i])
			return fail(L, f, "duplicate field");
		given[i] = true;
		if (!cJSON_IsNumber(c) || c->valuedouble != floor(c->valuedouble) ||
		    c->valuedouble < (double)t->symbol_min[i])
			return fail(L, f, t->symbol_min[i] ? "must be a positive integer"
							   : "must be a non-negative integer");
		if (c->valuedouble > INT32_MAX)
			return fail(L, f, "must be at most %d (shape symbols are passed as int)",
				    INT32_MAX);
		v = (int64_t)c->valuedouble;
		s->v[i] = v;
	}
	for (int i = 0; i < t->n_symbols; i++)
		if (!given[i]) {
			char f[KF_FIELD_MAX];
			field_join(f, where, t->symbols[i]);
			return fail(L, f, "missing (every shape gives every symbol a value)");
		}
	return KF_OK;
}

static int load_bench(struct loader *L, const cJSON *shapes)
{
	static const char *const keys[] = { "cpu", "cuda", NULL };
	const cJSON *bench;
	if (member(L, shapes, "shapes", "bench", true, &bench) != KF_OK ||
	    want_object(L, bench, "shapes.bench") != KF_OK ||
	    check_keys(L, bench, "shapes.bench", keys) != KF_OK)
		return L->err->code;
	for (int b = 0; b < KF_BACKEND_COUNT; b++) {
		const cJSON *j;
		char f[KF_FIELD_MAX];
		field_join(f, "shapes.bench", backend_names[b]);
		/* level 4 (multi-GPU) runs on CUDA only: no CPU bench shape (eval/tasks/multi.h) */
		if (member(L, bench, "shapes.bench", backend_names[b], b == KF_BACKEND_CPU && L->t->level != 4, &j) != KF_OK)
			return L->err->code;
		if (j && load_shape(L, j, f, &L->t->bench[b]) != KF_OK)
			return L->err->code;
		L->t->has_bench[b] = j != NULL;
	}
	return KF_OK;
}

static int load_shape_set(struct loader *L, const cJSON *shapes, enum kf_shape_set set)
{
	struct kf_task *t = L->t;
	const cJSON *arr;
	char where[KF_FIELD_MAX];
	field_join(where, "shapes", set_names[set]);
	if (member(L, shapes, "shapes", set_names[set], true, &arr) != KF_OK)
		return L->err->code;
	int n = cJSON_GetArraySize(arr);
	if (!cJSON_IsArray(arr) || n < 1 || n > KF_MAX_SHAPES)
		return fail(L, where, "must be an array of 1 to %d shapes", KF_MAX_SHAPES);
	t->shapes[set] = kf_xcalloc((size_t)n, sizeof *t->shapes[set]);
	int rc = KF_OK;
	for (const cJSON *j = arr->child; j; j = j->next) {
		char f[KF_FIELD_MAX];
		field_index(f, where, t->n_shapes[set]);
		if (load_shape(L, j, f, &t->shapes[set][t->n_shapes[set]]) != KF_OK)
			rc = KF_EINPUT;
		t->n_shapes[set]++;
	}
	return rc;
}

static int load_shapes(struct loader *L, const cJSON *root)
{
	static const char *const keys[] = { "bench", "test", "ragged", "hidden", NULL };
	const cJSON *shapes;
	if (member(L, root, "", "shapes", true, &shapes) != KF_OK ||
	    want_object(L, shapes, "shapes") != KF_OK || check_keys(L, shapes, "shapes", keys) != KF_OK)
		return L->err->code;
	int rc = load_bench(L, shapes);
	for (int set = KF_SET_TEST; set < KF_SET_COUNT; set++)
		if (load_shape_set(L, shapes, (enum kf_shape_set)set) != KF_OK)
			rc = KF_EINPUT;
	return rc;
}

/* ---- tolerance, stress, references, policy ---- */

static int load_tolerance_entry(struct loader *L, const cJSON *c);

/* An entry for d is present (a broken one was reported already; no second error for it). */
static bool tol_named(const cJSON *tol, enum kf_dtype d)
{
	return get(tol, kf_dtype_name(d)) != NULL;
}

static int load_tolerance(struct loader *L, const cJSON *root)
{
	struct kf_task *t = L->t;
	const cJSON *tol;
	if (member(L, root, "", "tolerance", true, &tol) != KF_OK ||
	    want_object(L, tol, "tolerance") != KF_OK)
		return L->err->code;
	int rc = KF_OK;
	for (const cJSON *c = tol->child; c; c = c->next)
		if (load_tolerance_entry(L, c) != KF_OK)
			rc = KF_EINPUT;
	for (int i = t->n_inputs; i < t->n_inputs + t->n_outputs; i++) {
		struct kf_tensor *x = &t->tensors[i];
		enum kf_dtype d = x->dtype;
		if (!x->tol.set && !t->tol[d].set && !tol_named(tol, d) && !get(tol, x->name))
			rc = fail(L, "tolerance", "no entry for %s (the dtype of output %s) or for %s itself",
				  kf_dtype_name(d), x->name, x->name);
		if (!x->tol.set)
			x->tol = t->tol[d];
	}
	return rc;
}

static int load_tolerance_entry(struct loader *L, const cJSON *c)
{
	static const char *const keys[] = { "atol", "rtol", NULL };
	struct kf_task *t = L->t;
	char q[KF_QUOTE_MAX], f[KF_FIELD_MAX], fa[KF_FIELD_MAX], fr[KF_FIELD_MAX];
	enum kf_dtype d;
	const cJSON *ja, *jr;
	struct kf_tolerance *dst, v = { .set = true };
	field_join(f, "tolerance", c->string);
	/* a key is a dtype (every output of it) or an output's name (that output alone) */
	int out = tensor_index(t, c->string);
	if (out >= 0 && !t->tensors[out].is_output)
		return fail(L, f, "%s is an input; tolerances are for outputs", c->string);
	if (out >= 0) {
		dst = &t->tensors[out].tol;
	} else if (kf_dtype_parse(c->string, &d) != 0) {
		return fail(L, f, "\"%s\" is neither a dtype (" DTYPE_LIST ") nor an output", quote(c->string, q));
	} else {
		dst = &t->tol[d];
		bool used = false;
		for (int i = t->n_inputs; i < t->n_inputs + t->n_outputs; i++)
			used |= t->tensors[i].dtype == d;
		if (!used)
			return fail(L, f, "no output has dtype %s", c->string);
	}
	if (dst->set)
		return fail(L, f, "duplicate field");
	field_join(fa, f, "atol");
	field_join(fr, f, "rtol");
	if (want_object(L, c, f) != KF_OK || check_keys(L, c, f, keys) != KF_OK ||
	    member(L, c, f, "atol", true, &ja) != KF_OK || member(L, c, f, "rtol", true, &jr) != KF_OK ||
	    want_number(L, ja, fa, &v.atol) != KF_OK || want_number(L, jr, fr, &v.rtol) != KF_OK)
		return L->err->code;
	if (v.atol < 0)
		return fail(L, fa, "must not be negative");
	if (v.rtol < 0)
		return fail(L, fr, "must not be negative");
	*dst = v;
	return KF_OK;
}

static int load_stress_one(struct loader *L, const cJSON *j, const char *where, struct kf_stress *st)
{
	static const char *const keys[] = { "name", "inputs", NULL };
	struct kf_task *t = L->t;
	const cJSON *jn, *ji;
	const char *name;
	char f[KF_FIELD_MAX], fi[KF_FIELD_MAX];

	field_join(f, where, "name");
	field_join(fi, where, "inputs");
	if (want_object(L, j, where) != KF_OK || check_keys(L, j, where, keys) != KF_OK ||
	    member(L, j, where, "name", true, &jn) != KF_OK ||
	    member(L, j, where, "inputs", true, &ji) != KF_OK || want_lower_name(L, jn, f, &name) != KF_OK)
		return L->err->code;
	for (const struct kf_stress *o = t->stress; o < st; o++)
		if (!strcmp(o->name, name))
			return fail(L, f, "duplicate stress name \"%s\"", name);
	snprintf(st->name, sizeof st->name, "%s", name);
	if (want_object(L, ji, fi) != KF_OK)
		return L->err->code;
	if (!ji->child)
		return fail(L, fi, "must override at least one input");
	for (const cJSON *c = ji->child; c; c = c->next) {
		char fd[KF_FIELD_MAX];
		field_join(fd, fi, c->string);
		int i = tensor_index(t, c->string);
		if (i < 0 || t->tensors[i].is_output)
			return fail(L, fd, "not an input tensor");
		if (st->overrides[i])
			return fail(L, fd, "duplicate field");
		if (load_dist(L, c, fd, t->tensors[i].dtype, &st->dist[i]) != KF_OK)
			return L->err->code;
		st->overrides[i] = true;
	}
	return KF_OK;
}

static int load_stress(struct loader *L, const cJSON *root)
{
	const cJSON *arr;
	if (member(L, root, "", "stress", false, &arr) != KF_OK)
		return L->err->code;
	if (!arr)
		return KF_OK;
	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > KF_MAX_STRESS)
		return fail(L, "stress", "must be an array of at most %d stress variants", KF_MAX_STRESS);
	int rc = KF_OK;
	for (const cJSON *j = arr->child; j; j = j->next) {
		char f[KF_FIELD_MAX];
		field_index(f, "stress", L->t->n_stress);
		if (load_stress_one(L, j, f, &L->t->stress[L->t->n_stress]) != KF_OK)
			rc = KF_EINPUT;
		L->t->n_stress++;
	}
	return rc;
}

/* Reference and oracle sources live in kforge's tree: relative paths that stay inside it. */
static int want_source_path(struct loader *L, const cJSON *j, const char *field, const char *ext,
			    char **out)
{
	const char *s;
	char q[KF_QUOTE_MAX];
	if (want_string(L, j, field, &s) != KF_OK)
		return L->err->code;
	if (s[0] == '/' || !strcmp(s, "..") || !strncmp(s, "../", 3) || strstr(s, "/../") ||
	    (strlen(s) >= 3 && !strcmp(s + strlen(s) - 3, "/..")))
		return fail(L, field, "\"%s\" must be a path relative to kforge's home, without \"..\"",
			    quote(s, q));
	size_t n = strlen(s), e = strlen(ext);
	if (n <= e || strcmp(s + n - e, ext))
		return fail(L, field, "\"%s\" must name a %s file", quote(s, q), ext);
	*out = kf_xstrdup(s);
	return KF_OK;
}

/* shapes_ok: the bench shapes loaded, so their presence can be checked against the references. */
static int load_sources(struct loader *L, const cJSON *root, bool shapes_ok)
{
	static const char *const keys[] = { "cpu", "cuda", NULL };
	struct kf_task *t = L->t;
	const cJSON *ref, *j;
	/* Every reference is optional: without a CPU one the oracle serves (kf_abi_oracle_reference). */
	if (member(L, root, "", "reference", false, &ref) != KF_OK)
		return L->err->code;
	if (ref && (want_object(L, ref, "reference") != KF_OK || check_keys(L, ref, "reference", keys) != KF_OK))
		return L->err->code;
	for (int b = 0; b < KF_BACKEND_COUNT && ref; b++) {
		char f[KF_FIELD_MAX];
		field_join(f, "reference", backend_names[b]);
		if (member(L, ref, "reference", backend_names[b], false, &j) != KF_OK ||
		    (j && want_source_path(L, j, f, backend_exts[b], &t->reference[b]) != KF_OK))
			return L->err->code;
	}
	for (int b = 0; b < KF_BACKEND_COUNT; b++) {
		char f[KF_FIELD_MAX];
		field_join(f, "reference", backend_names[b]);
		bool has_bench = t->has_bench[b];
		if (b != KF_BACKEND_CPU && shapes_ok && has_bench != (t->reference[b] != NULL)) {
			char fb[KF_FIELD_MAX];
			field_join(fb, "shapes.bench", backend_names[b]);
			return has_bench ? fail(L, fb, "given, but reference.%s is missing", backend_names[b])
					 : fail(L, f, "given, but shapes.bench.%s is missing", backend_names[b]);
		}
	}
	if (member(L, root, "", "oracle", true, &j) != KF_OK ||
	    want_source_path(L, j, "oracle", backend_exts[KF_BACKEND_CPU], &t->oracle) != KF_OK)
		return L->err->code;
	if (member(L, root, "", "vendor_baseline", false, &j) != KF_OK)
		return L->err->code;
	const char *s;
	if (j) {
		if (want_lower_name(L, j, "vendor_baseline", &s) != KF_OK)
			return L->err->code;
		t->vendor_baseline = kf_xstrdup(s);
	}
	return KF_OK;
}

static int load_min_runtime(struct loader *L, const cJSON *root)
{
	static const char *const keys[] = { "cpu", "cuda", NULL };
	struct kf_task *t = L->t;
	const cJSON *mr, *j;
	if (member(L, root, "", "min_runtime_ms", true, &mr) != KF_OK ||
	    want_object(L, mr, "min_runtime_ms") != KF_OK ||
	    check_keys(L, mr, "min_runtime_ms", keys) != KF_OK)
		return L->err->code;
	for (int b = 0; b < KF_BACKEND_COUNT; b++) {
		char f[KF_FIELD_MAX];
		field_join(f, "min_runtime_ms", backend_names[b]);
		bool has = (b == KF_BACKEND_CPU && t->level != 4) || t->reference[b] != NULL;
		if (member(L, mr, "min_runtime_ms", backend_names[b], has, &j) != KF_OK)
			return L->err->code;
		if (!j)
			continue;
		if (!has)
			return fail(L, f, "given, but reference.%s is missing", backend_names[b]);
		if (want_number(L, j, f, &t->min_runtime_ms[b]) != KF_OK)
			return L->err->code;
		if (t->min_runtime_ms[b] <= 0)
			return fail(L, f, "must be positive");
	}
	return KF_OK;
}

static int load_policy(struct loader *L, const cJSON *root)
{
	static const char *const keys[] = { "vendor_libs", NULL };
	struct kf_task *t = L->t;
	const cJSON *p, *j;
	if (member(L, root, "", "policy", false, &p) != KF_OK)
		return L->err->code;
	if (p) {
		if (want_object(L, p, "policy") != KF_OK || check_keys(L, p, "policy", keys) != KF_OK)
			return L->err->code;
		if ((j = get(p, "vendor_libs"))) {
			if (!cJSON_IsBool(j))
				return fail(L, "policy.vendor_libs", "must be true or false");
			t->vendor_libs_allowed = cJSON_IsTrue(j);
		}
	}
	t->determinism = KF_DET_TOLERANCE;
	if ((j = get(root, "determinism"))) {
		const char *s;
		char q[KF_QUOTE_MAX];
		if (want_string(L, j, "determinism", &s) != KF_OK)
			return L->err->code;
		if (!strcmp(s, "bitwise"))
			t->determinism = KF_DET_BITWISE;
		else if (strcmp(s, "tolerance"))
			return fail(L, "determinism", "\"%s\" is not \"tolerance\" or \"bitwise\"",
				    quote(s, q));
	}
	return KF_OK;
}

/* ---- checks across fields, at every concrete shape ---- */

static int all_shapes(const struct kf_task *t, struct named_shape **out)
{
	int n = KF_BACKEND_COUNT;
	for (int set = KF_SET_TEST; set < KF_SET_COUNT; set++)
		n += t->n_shapes[set];
	struct named_shape *ns = kf_xcalloc((size_t)n, sizeof *ns);
	int k = 0;
	for (int b = 0; b < KF_BACKEND_COUNT; b++)
		if (t->has_bench[b]) {
			field_join(ns[k].field, "shapes.bench", backend_names[b]);
			ns[k].set = KF_SET_BENCH;
			ns[k++].s = &t->bench[b];
		}
	for (int set = KF_SET_TEST; set < KF_SET_COUNT; set++)
		for (int i = 0; i < t->n_shapes[set]; i++) {
			char where[KF_FIELD_MAX];
			field_join(where, "shapes", set_names[set]);
			field_index(ns[k].field, where, i);
			ns[k].set = (enum kf_shape_set)set;
			ns[k++].s = &t->shapes[set][i];
		}
	*out = ns;
	return k;
}

static bool same_shape(const struct kf_task *t, const struct kf_shape *a, const struct kf_shape *b)
{
	for (int i = 0; i < t->n_symbols; i++)
		if (a->v[i] != b->v[i])
			return false;
	return true;
}

static int check_ragged_hidden(struct loader *L, const struct named_shape *ns, int n)
{
	const struct kf_task *t = L->t;
	char where[KF_FIELD_MAX];
	for (int i = 0; i < t->n_shapes[KF_SET_RAGGED]; i++) {
		bool ragged = false;
		for (int k = 0; k < t->n_symbols; k++)
			ragged |= t->shapes[KF_SET_RAGGED][i].v[k] % KF_RAGGED_MULTIPLE != 0;
		if (!ragged) {
			field_index(where, "shapes.ragged", i);
			return fail(L, where, "every value is a multiple of %d; a ragged shape needs one that is not",
				    KF_RAGGED_MULTIPLE);
		}
	}
	for (int i = 0; i < t->n_shapes[KF_SET_HIDDEN]; i++) {
		const struct kf_shape *h = &t->shapes[KF_SET_HIDDEN][i];
		field_index(where, "shapes.hidden", i);
		for (int k = 0; k < n; k++)
			if (ns[k].set != KF_SET_HIDDEN && same_shape(t, ns[k].s, h))
				return fail(L, where, "same as %s; hidden shapes must differ from every bench, test and ragged shape",
					    ns[k].field);
	}
	return KF_OK;
}

/* What has been reported already: each tensor, expression and constraint gets one error, at the
 * first shape where it fails. */
struct shape_checks {
	bool tensor[KF_MAX_TENSORS];
	bool fan_in[KF_MAX_TENSORS][KF_MAX_STRESS + 1]; /* [input][0: the spec's own, k+1: stress k] */
	bool expr[5];                                   /* flops, bytes, sfu_ops, workspace, nvlink_bytes */
	bool constraint[KF_MAX_CONSTRAINTS];
};

/* A shape where a symbol declared with "min": 0 is 0: tensors may be empty there. */
static bool shape_has_zero(const struct kf_task *t, const struct kf_shape *s)
{
	for (int i = 0; i < t->n_symbols; i++)
		if (s->v[i] == 0)
			return true;
	return false;
}

/* Every dimension of tensor i evaluates and it has 1 (0 at a shape with a zero symbol) to
 * INT32_MAX elements. */
static int check_tensor_at(struct loader *L, const struct named_shape *ns, int i)
{
	const struct kf_task *t = L->t;
	const struct kf_tensor *x = &t->tensors[i];
	int64_t numel = 1, v, min = shape_has_zero(t, ns->s) ? 0 : 1;
	bool overflow = false;
	kf_err e;
	for (int d = 0; d < x->ndim; d++) {
		if (expr_eval(t, x->dims[d], ns->s, &v, &e) != KF_OK)
			return fail(L, ns->field, "dimension %d of %s (\"%s\"): %s", d, x->name, x->dims[d], e.msg);
		overflow |= __builtin_mul_overflow(numel, v, &numel);
	}
	if (overflow || numel < min || numel > INT32_MAX)
		return fail(L, ns->field, "%s would have %s%lld elements; it must have %lld to %d", x->name,
			    overflow ? "more than " : "", overflow ? (long long)INT64_MAX : (long long)numel,
			    (long long)min, INT32_MAX);
	return KF_OK;
}

/* text (NULL or "" when the spec has none) evaluates at ns to at least min. */
static int check_expr_at(struct loader *L, const char *text, const char *field, const struct named_shape *ns,
			 int64_t min)
{
	int64_t v;
	kf_err e;
	if (!text || !text[0])
		return KF_OK;
	if (expr_eval(L->t, text, ns->s, &v, &e) != KF_OK)
		return fail(L, field, "at %s: %s", ns->field, e.msg);
	if (v < min && min == 0)
		return fail(L, field, "at %s: %lld is negative", ns->field, (long long)v);
	if (v < min)
		return fail(L, field, "at %s: %lld is below %lld", ns->field, (long long)v, (long long)min);
	return KF_OK;
}

/* The distribution of input i (the stress variant's when st) is well defined at ns: its
 * expressions evaluate, the fan-in is at least 1, int bounds fit the dtype and lo <= hi, rows
 * divide the tensor, and generators have room for distinct values. */
static int check_dist_at(struct loader *L, const char *where, int i, const struct kf_stress *st,
			 const struct named_shape *ns)
{
	const struct kf_task *t = L->t;
	const struct kf_dist *raw = st ? &st->dist[i] : &t->tensors[i].dist;
	enum kf_dtype dt = t->tensors[i].dtype;
	char f[KF_FIELD_MAX];
	const char *texts[] = { raw->fan_in, raw->lo_expr, raw->hi_expr, raw->row_expr, raw->range_expr };
	const char *keys[] = { "fan_in", "lo", "hi", raw->kind == KF_DIST_TOPK_INDICES || raw->kind == KF_DIST_TOPK_WEIGHTS ? "k" : "row",
			       raw->kind == KF_DIST_SORTED_OFFSETS ? "total" : "range" };
	const int64_t mins[] = { 1, INT64_MIN, INT64_MIN, 1, 0 }; /* bounds: any integer; the range check is below */
	for (int x = 0; x < 5; x++) {
		field_join(f, where, keys[x]);
		if (check_expr_at(L, texts[x], f, ns, mins[x]) != KF_OK)
			return L->err->code;
	}
	struct kf_dist d = kf_task_dist(t, i, st, ns->s);
	int64_t n = kf_task_numel(t, i, ns->s);
	if (raw->kind == KF_DIST_INT && (raw->lo_expr[0] || raw->hi_expr[0])) {
		bool exps = dt == KF_DTYPE_E8M0;
		double lo = exps ? KF_E8M0_MIN_EXP : dtype_min[dt], hi = exps ? KF_E8M0_MAX_EXP : dtype_max[dt];
		if (d.a > d.b || d.a < lo || d.b > hi)
			return fail(L, where, "at %s: int bounds [%g, %g] must have lo <= hi within %g..%g", ns->field, d.a, d.b, lo, hi);
	}
	if (n == 0)
		return KF_OK;
	switch (raw->kind) {
	case KF_DIST_NORMALIZED_ROWS:
	case KF_DIST_PERMUTATION:
	case KF_DIST_TOPK_WEIGHTS:
	case KF_DIST_TOPK_INDICES:
		if (n % d.row)
			return fail(L, where, "at %s: rows of %lld do not divide %s's %lld elements", ns->field, (long long)d.row,
				    t->tensors[i].name, (long long)n);
		if (raw->kind == KF_DIST_PERMUTATION && d.row - 1 > dtype_max[dt])
			return fail(L, where, "at %s: a permutation of %lld does not fit %s", ns->field, (long long)d.row, kf_dtype_name(dt));
		if (raw->kind == KF_DIST_TOPK_INDICES && d.range < d.row)
			return fail(L, where, "at %s: %lld distinct indices per row need range >= %lld, not %lld", ns->field,
				    (long long)d.row, (long long)d.row, (long long)d.range);
		break;
	case KF_DIST_PAGE_TABLE:
		if (d.range < n)
			return fail(L, where, "at %s: %lld distinct pages need range >= %lld, not %lld", ns->field, (long long)n,
				    (long long)n, (long long)d.range);
		break;
	default:
		break;
	}
	if ((raw->kind == KF_DIST_PAGE_TABLE || raw->kind == KF_DIST_TOPK_INDICES || raw->kind == KF_DIST_SORTED_OFFSETS) &&
	    d.range - 1 > dtype_max[dt])
		return fail(L, where, "at %s: range %lld does not fit %s", ns->field, (long long)d.range, kf_dtype_name(dt));
	return KF_OK;
}

static int check_constraint_at(struct loader *L, int k, const struct named_shape *ns);

/* Runs one check unless its field failed at an earlier shape; marks it when it fails now. */
static int once(bool *done, int rc)
{
	if (rc != KF_OK)
		*done = true;
	return rc;
}

/* Constraint k holds at ns. */
static int check_constraint_at(struct loader *L, int k, const struct named_shape *ns)
{
	struct kf_task one = *L->t;
	int failed;
	kf_err e;
	char f[KF_FIELD_MAX];
	/* Checks constraint k alone, so each is reported on its own. */
	one.n_constraints = 1;
	memcpy(one.constraints[0], L->t->constraints[k], KF_CONSTRAINT_MAX);
	if (kf_task_check_constraints(&one, ns->s, &failed, &e) == KF_OK)
		return KF_OK;
	field_index(f, "constraints", k);
	return fail(L, f, "at %s: %s", ns->field, e.msg);
}

static int check_shape(struct loader *L, const struct named_shape *ns, struct shape_checks *done)
{
	const struct kf_task *t = L->t;
	char f[KF_FIELD_MAX];
	int rc = KF_OK;
	for (int k = 0; k < t->n_constraints; k++)
		if (!done->constraint[k] && once(&done->constraint[k], check_constraint_at(L, k, ns)) != KF_OK)
			rc = KF_EINPUT;
	/* Dimensions and expressions may be meaningless where a constraint does not hold. */
	if (rc != KF_OK)
		return rc;
	for (int i = 0; i < t->n_inputs + t->n_outputs; i++)
		if (!done->tensor[i] && once(&done->tensor[i], check_tensor_at(L, ns, i)) != KF_OK)
			rc = KF_EINPUT;
	for (int i = 0; i < t->n_inputs; i++) {
		snprintf(f, sizeof f, "inputs[%d].dist", i);
		if (!done->fan_in[i][0] && once(&done->fan_in[i][0], check_dist_at(L, f, i, NULL, ns)) != KF_OK)
			rc = KF_EINPUT;
		for (int k = 0; k < t->n_stress; k++) {
			snprintf(f, sizeof f, "stress[%d].inputs.%s", k, t->tensors[i].name);
			if (t->stress[k].overrides[i] && !done->fan_in[i][k + 1] &&
			    once(&done->fan_in[i][k + 1], check_dist_at(L, f, i, &t->stress[k], ns)) != KF_OK)
				rc = KF_EINPUT;
		}
	}
	const char *exprs[] = { t->flops_expr, t->bytes_expr, t->sfu_expr, t->workspace_expr, t->nvlink_bytes_expr };
	const char *fields[] = { "flops", "bytes", "sfu_ops", "workspace", "nvlink_bytes" };
	for (int x = 0; x < 5; x++)
		if (!done->expr[x] && once(&done->expr[x], check_expr_at(L, exprs[x], fields[x], ns, 0)) != KF_OK)
			rc = KF_EINPUT;
	return rc;
}

static int check_at_shapes(struct loader *L)
{
	struct named_shape *ns;
	struct shape_checks done;
	memset(&done, 0, sizeof done);
	int n = all_shapes(L->t, &ns);
	int rc = check_ragged_hidden(L, ns, n);
	for (int k = 0; k < n; k++)
		if (check_shape(L, &ns[k], &done) != KF_OK)
			rc = KF_EINPUT;
	free(ns);
	return rc;
}

/* The dtypes a device description has a FLOP rate for: the float formats, and the 8- and 4-bit ones
 * that run on the tensor cores' 8-bit path (eval/judge/gpu/cuda_area.c). */
static bool has_arithmetic_rate(enum kf_dtype d)
{
	switch (d) {
	case KF_DTYPE_F32: case KF_DTYPE_BF16: case KF_DTYPE_F16: case KF_DTYPE_I8: case KF_DTYPE_U8:
	case KF_DTYPE_FP8_E4M3: case KF_DTYPE_FP8_E5M2: case KF_DTYPE_FP4_E2M1X2:
		return true;
	default:
		return false;
	}
}

static int load_compute_dtype(struct loader *L, const cJSON *root)
{
	const cJSON *j;
	const char *name;
	/* default: the first input with an arithmetic dtype, else f32 */
	L->t->compute_dtype = KF_DTYPE_F32;
	for (int i = L->t->n_inputs - 1; i >= 0; i--) {
		enum kf_dtype d = L->t->tensors[i].dtype;
		if (d == KF_DTYPE_F32 || d == KF_DTYPE_BF16 || d == KF_DTYPE_F16)
			L->t->compute_dtype = d;
	}
	if (member(L, root, "", "compute_dtype", false, &j) != KF_OK)
		return L->err->code;
	if (!j)
		return KF_OK;
	if (want_string(L, j, "compute_dtype", &name) != KF_OK)
		return L->err->code;
	enum kf_dtype cd;
	if (kf_dtype_parse(name, &cd) != KF_OK || !has_arithmetic_rate(cd)) {
		char q[KF_QUOTE_MAX];
		return fail(L, "compute_dtype",
			    "\"%s\" is not an arithmetic dtype (f32, bf16, f16, i8, u8, fp8_e4m3, fp8_e5m2, fp4_e2m1x2)",
			    quote(name, q));
	}
	L->t->compute_dtype = cd;
	return KF_OK;
}

static int load_root(struct loader *L, const cJSON *root)
{
	static const char *const keys[] = {
		"name", "level", "description", "symbols", "inputs", "outputs", "shapes", "stress",
		"tolerance", "flops", "bytes", "sfu_ops", "compute_dtype", "reference", "oracle", "vendor_baseline", "policy",
		"min_runtime_ms", "determinism", "constraints", "scalars", "workspace", "nvlink_bytes", NULL,
	};
	struct kf_task *t = L->t;
	const cJSON *j;
	if (!cJSON_IsObject(root))
		return fail(L, "(top level)", "must be a JSON object");
	/* Sections are loaded independently so that every problem is reported; a section whose
	 * prerequisites failed (tensors need the symbols, tolerances the outputs...) is skipped
	 * rather than reported as a cascade of follow-on errors. */
	check_keys(L, root, "", keys);
	load_header(L, root);
	bool symbols_ok = load_symbols(L, root) == KF_OK;
	bool tensors_ok = symbols_ok;
	if (symbols_ok) {
		tensors_ok = load_tensor_list(L, root, "inputs", false) == KF_OK;
		tensors_ok &= load_tensor_list(L, root, "outputs", true) == KF_OK;
	}
	bool shapes_ok = symbols_ok && load_shapes(L, root) == KF_OK;
	if (symbols_ok)
		load_constraints(L, root);
	if (tensors_ok)
		load_scalars(L, root);
	if (tensors_ok) {
		load_stress(L, root);
		load_tolerance(L, root);
		load_compute_dtype(L, root);
	}
	if (symbols_ok) {
		if (member(L, root, "", "flops", true, &j) == KF_OK)
			want_expr(L, j, "flops", &t->flops_expr);
		if (member(L, root, "", "bytes", false, &j) == KF_OK && j)
			want_expr(L, j, "bytes", &t->bytes_expr);
		if (member(L, root, "", "sfu_ops", false, &j) == KF_OK && j)
			want_expr(L, j, "sfu_ops", &t->sfu_expr);
		if (member(L, root, "", "workspace", false, &j) == KF_OK && j &&
		    want_expr(L, j, "workspace", &t->workspace_expr) == KF_OK &&
		    t->n_inputs + t->n_outputs >= KF_MAX_TENSORS)
			fail(L, "workspace", "a task with a workspace has at most %d tensors (the workspace takes a buffer of its own)",
			     KF_MAX_TENSORS - 1);
		if (member(L, root, "", "nvlink_bytes", false, &j) == KF_OK && j)
			want_expr(L, j, "nvlink_bytes", &t->nvlink_bytes_expr);
	}
	if (load_sources(L, root, shapes_ok) == KF_OK)
		load_min_runtime(L, root);
	load_policy(L, root);
	if (L->n_errors)
		return KF_EINPUT;
	return check_at_shapes(L);
}

/* Reports a JSON syntax error as file:line:column. */
static int json_error(const char *path, const char *text, size_t len, const char *at, kf_err *err)
{
	size_t off = at && at >= text && at <= text + len ? (size_t)(at - text) : len;
	int line = 1, col = 1;
	for (size_t i = 0; i < off; i++, col++)
		if (text[i] == '\n')
			line++, col = 0;
	if (off >= len)
		return kf_errf(err, KF_EINPUT, "%s:%d:%d: invalid JSON: unexpected end of file", path,
			       line, col);
	return kf_errf(err, KF_EINPUT, "%s:%d:%d: invalid JSON near '%c'", path, line, col,
		       isprint((unsigned char)text[off]) ? text[off] : '?');
}

/* err gets as many of the lines as fit (the first always), report (when given) all of them. */
static void report_errors(struct loader *L, kf_buf *report)
{
	const char *all = L->diag.data ? L->diag.data : "";
	size_t fit = strlen(all);
	if (fit >= KF_ERR_MSG_MAX) {
		const char *p = all, *nl;
		fit = 0;
		while ((nl = strchr(p, '\n')) && (size_t)(nl - all) < KF_ERR_MSG_MAX - 64) {
			fit = (size_t)(nl - all);
			p = nl + 1;
		}
	}
	if (fit && fit < strlen(all))
		kf_errf(L->err, KF_EINPUT, "%.*s\n(more errors: `kforge tasks` lists them all)", (int)fit, all);
	else if (fit)
		kf_errf(L->err, KF_EINPUT, "%s", all);
	if (report)
		kf_buf_addf(report, "%s\n", all);
	kf_buf_free(&L->diag);
}

static int parse_spec(const char *path, const char *text, size_t len, struct kf_task **out, kf_buf *report,
		      kf_err *err)
{
	kf_err local;
	struct loader L = { .path = path, .err = err ? err : &local };
	*out = NULL;
	int rc;
	if (len > KF_TASK_MAX_BYTES) {
		rc = kf_errf(L.err, KF_EINPUT, "%s: larger than the limit of %u bytes", path, KF_TASK_MAX_BYTES);
		goto syntax;
	}
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (!root) {
		rc = json_error(path, text, len, end, L.err);
		goto syntax;
	}
	while (end < text + len && isspace((unsigned char)*end))
		end++;
	if (end < text + len) {
		cJSON_Delete(root);
		rc = json_error(path, text, len, end, L.err);
		goto syntax;
	}
	L.t = kf_xcalloc(1, sizeof *L.t);
	L.t->path = kf_xstrdup(path);
	rc = load_root(&L, root);
	cJSON_Delete(root);
	if (rc != KF_OK) {
		report_errors(&L, report);
		kf_task_free(L.t);
		return rc;
	}
	kf_buf_free(&L.diag);
	L.t->spec_text = kf_xmalloc(len + 1);
	memcpy(L.t->spec_text, text, len);
	L.t->spec_text[len] = '\0';
	kf_sha256_hex(text, len, L.t->spec_hash);
	*out = L.t;
	return KF_OK;
syntax:
	if (report)
		kf_buf_addf(report, "%s\n", L.err->msg);
	return rc;
}

int kf_task_parse(const char *path, const char *text, size_t len, struct kf_task **out, kf_err *err)
{
	return parse_spec(path, text, len, out, NULL, err);
}

int kf_task_load_file_report(const char *path, struct kf_task **out, kf_buf *report, kf_err *err)
{
	char *text;
	size_t len;
	kf_err local;
	*out = NULL;
	if (!err)
		err = &local;
	if (kf_read_file(path, KF_TASK_MAX_BYTES, &text, &len, err) != KF_OK) {
		if (report)
			kf_buf_addf(report, "%s\n", err->msg);
		return err->code;
	}
	int rc = parse_spec(path, text, len, out, report, err);
	free(text);
	return rc;
}

int kf_task_load_file(const char *path, struct kf_task **out, kf_err *err)
{
	return kf_task_load_file_report(path, out, NULL, err);
}

void kf_task_free(struct kf_task *t)
{
	if (!t)
		return;
	for (int i = 0; i < KF_MAX_TENSORS; i++)
		for (int d = 0; d < KF_MAX_DIMS; d++)
			free(t->tensors[i].dims[d]);
	for (int s = 0; s < KF_SET_COUNT; s++)
		free(t->shapes[s]);
	for (int b = 0; b < KF_BACKEND_COUNT; b++)
		free(t->reference[b]);
	for (int k = 0; k < KF_MAX_SCALARS; k++)
		free(t->scalars[k].int_expr);
	free(t->path);
	free(t->description);
	free(t->flops_expr);
	free(t->bytes_expr);
	free(t->sfu_expr);
	free(t->nvlink_bytes_expr);
	free(t->workspace_expr);
	free(t->oracle);
	free(t->vendor_baseline);
	free(t->spec_text);
	free(t);
}

/* ---- the task directory ---- */

static char tasks_dir_override[PATH_MAX];
static const char *suite_option; /* what KF_SUITE_OPT's parse stored, or NULL */

void kf_tasks_set_dir(const char *dir)
{
	snprintf(tasks_dir_override, sizeof tasks_dir_override, "%s", dir ? dir : "");
}

const char **kf_tasks_suite_slot(void)
{
	return &suite_option;
}

const char *kf_tasks_dir(void)
{
	static char dir[PATH_MAX];
	if (suite_option && *suite_option) {
		kf_tasks_set_dir(suite_option);
		/* kforge's own children (judge workers, a Slurm job's kforge) read the same suite */
		setenv("KFORGE_TASKS", suite_option, 1);
		suite_option = NULL;
	}
	const char *env = getenv("KFORGE_TASKS");
	if (tasks_dir_override[0])
		snprintf(dir, sizeof dir, "%s", tasks_dir_override);
	else if (env && *env)
		snprintf(dir, sizeof dir, "%s", env);
	else
		snprintf(dir, sizeof dir, "%s/tasks", kf_home());
	return dir;
}

static bool is_level_dir(const char *name)
{
	if (strncmp(name, "level", 5) || !name[5])
		return false;
	for (const char *p = name + 5; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

int kf_task_find(const char *dir, const char *name, struct kf_task **out, kf_err *err)
{
	char found[PATH_MAX] = "", path[PATH_MAX], q[KF_QUOTE_MAX];
	*out = NULL;
	if (!dir)
		dir = kf_tasks_dir();
	if (!is_lower_name(name))
		return kf_errf(err, KF_EINPUT, "unknown task \"%s\": task names use only a-z, 0-9 and _",
			       quote(name, q));
	DIR *d = opendir(dir);
	if (!d)
		return kf_errno(err, KF_EINPUT, "cannot open the task directory %s", dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (!is_level_dir(e->d_name) ||
		    snprintf(path, sizeof path, "%s/%s/%s%s", dir, e->d_name, name, KF_TASK_EXT) >=
			    (int)sizeof path ||
		    stat(path, &st) != 0)
			continue;
		if (found[0]) {
			closedir(d);
			return kf_errf(err, KF_EINPUT, "task %s is defined twice: %s and %s", name, found,
				       path);
		}
		snprintf(found, sizeof found, "%s", path);
	}
	closedir(d);
	if (!found[0])
		return kf_errf(err, KF_EINPUT, "no task named \"%s\" under %s (`kforge tasks` lists them)",
			       name, dir);
	return kf_task_load_file(found, out, err);
}

static int task_order(const void *a, const void *b)
{
	const struct kf_task *x = *(struct kf_task *const *)a, *y = *(struct kf_task *const *)b;
	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Loads every *.json in one level folder, appending to *ts. With a report, a broken spec is
 * written there (every error of it) and counted in *n_broken, and the walk goes on. */
static int list_level(const char *level_dir, struct kf_task ***ts, int *n, int *cap, kf_buf *report,
		      int *n_broken, kf_err *err)
{
	DIR *d = opendir(level_dir);
	if (!d)
		return kf_errno(err, KF_EINPUT, "cannot open the task directory %s", level_dir);
	struct dirent *e;
	int rc = KF_OK;
	size_t ext = strlen(KF_TASK_EXT);
	while (rc == KF_OK && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char path[PATH_MAX];
		if (e->d_name[0] == '.' || len <= ext || strcmp(e->d_name + len - ext, KF_TASK_EXT))
			continue;
		if (snprintf(path, sizeof path, "%s/%s", level_dir, e->d_name) >= (int)sizeof path) {
			rc = kf_errf(err, KF_EINPUT, "path too long: %s/%s", level_dir, e->d_name);
			break;
		}
		*ts = kf_xgrow(*ts, *n, cap, sizeof **ts);
		if ((rc = kf_task_load_file_report(path, &(*ts)[*n], report, err)) == KF_OK)
			(*n)++;
		else if (report && rc == KF_EINPUT)
			(*n_broken)++, rc = KF_OK;
	}
	closedir(d);
	return rc;
}

int kf_task_list_report(const char *dir, struct kf_task ***out, int *n_out, kf_buf *report, int *n_broken,
			kf_err *err)
{
	struct kf_task **ts = NULL;
	int n = 0, cap = 0, rc = KF_OK, broken = 0;
	*out = NULL;
	*n_out = 0;
	if (!dir)
		dir = kf_tasks_dir();
	DIR *d = opendir(dir);
	if (!d)
		return kf_errno(err, KF_EINPUT, "cannot open the task directory %s", dir);
	struct dirent *e;
	while (rc == KF_OK && (e = readdir(d))) {
		char sub[PATH_MAX];
		if (!is_level_dir(e->d_name))
			continue;
		if (snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name) >= (int)sizeof sub)
			rc = kf_errf(err, KF_EINPUT, "path too long: %s/%s", dir, e->d_name);
		else
			rc = list_level(sub, &ts, &n, &cap, report, &broken, err);
	}
	closedir(d);
	if (n_broken)
		*n_broken = broken;
	if (rc != KF_OK)
		goto fail;
	if (n > 1) /* qsort wants a valid array even for no elements */
		qsort(ts, (size_t)n, sizeof *ts, task_order);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (!strcmp(ts[i]->name, ts[j]->name)) {
				rc = kf_errf(err, KF_EINPUT, "task %s is defined twice: %s and %s",
					     ts[i]->name, ts[i]->path, ts[j]->path);
				goto fail;
			}
	*out = ts;
	*n_out = n;
	return KF_OK;
fail:
	kf_task_list_free(ts, n);
	return rc;
}

int kf_task_list(const char *dir, struct kf_task ***out, int *n_out, kf_err *err)
{
	return kf_task_list_report(dir, out, n_out, NULL, NULL, err);
}

void kf_task_list_free(struct kf_task **ts, int n)
{
	for (int i = 0; i < n; i++)
		kf_task_free(ts[i]);
	free(ts);
}

bool kf_task_vendor_source(const struct kf_task *t, enum kf_backend b, char *out, size_t len)
{
	if (b != KF_BACKEND_CUDA || !t->vendor_baseline)
		return false;
	snprintf(out, len, "%s/%s.cu", KF_VENDOR_DIR, t->vendor_baseline);
	return true;
}

/* The suite a spec belongs to: the folder holding its levelN/ folder (or its own folder). */
static void suite_root(const struct kf_task *t, char *out, size_t len)
{
	snprintf(out, len, "%s", t->path);
	char *slash = strrchr(out, '/');
	if (!slash) {
		snprintf(out, len, ".");
		return;
	}
	*slash = '\0';
	const char *base = strrchr(out, '/');
	base = base ? base + 1 : out;
	if (is_level_dir(base)) {
		if (base == out)
			snprintf(out, len, ".");
		else
			out[base - out - 1] = '\0';
	}
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int kf_task_source_path(const struct kf_task *t, const char *rel, char *out, size_t len)
{
	char root[PATH_MAX];
	snprintf(out, len, "%s/%s", kf_home(), rel);
	if (is_file(out))
		return 0;
	suite_root(t, root, sizeof root);
	if (snprintf(out, len, "%s/%s", root, rel) < (int)len && is_file(out))
		return 0;
	snprintf(out, len, "%s/%s", kf_home(), rel);
	return -1;
}

int kf_task_check_files(const struct kf_task *t, enum kf_backend b, kf_err *err)
{
	if (t->level == 4 && b != KF_BACKEND_CUDA) /* multi-GPU: eval/tasks/multi.h */
		return kf_errf(err, KF_EINPUT, "task %s is a multi-GPU task (level 4): it runs only on the cuda backend "
			       "(--backend cuda --gpus N), never on the %s backend", t->name, kf_backend_name(b));
	if (!kf_task_has_backend(t, b))
		return kf_errf(err, KF_EINPUT, "task %s has no %s reference, so it cannot run on the %s backend",
			       t->name, kf_backend_name(b), kf_backend_name(b));
	char vendor[PATH_MAX];
	const char *files[] = { t->reference[b], t->oracle, vendor };
	const char *fields[] = { b == KF_BACKEND_CPU ? "reference.cpu" : "reference.cuda", "oracle", "vendor_baseline" };
	int n = kf_task_vendor_source(t, b, vendor, sizeof vendor) ? 3 : 2;
	for (int i = 0; i < n; i++) {
		if (!files[i])
			continue; /* no CPU reference: the oracle serves */
		char path[PATH_MAX], root[PATH_MAX];
		if (kf_task_source_path(t, files[i], path, sizeof path) != 0) {
			suite_root(t, root, sizeof root);
			return kf_errf(err, KF_EINPUT, "%s:%s: %s not found under %s or the suite %s", t->path,
				       fields[i], files[i], kf_home(), root);
		}
	}
	return KF_OK;
}
