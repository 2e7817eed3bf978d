/* Generates the candidate ABI text from a task spec (see abi.h): the force-included header
 * (also the prompt's description of the task), the shim that turns the judge's uniform call
 * into the typed kf_launch, and the fp64 oracle's pair. The two backends differ only in the
 * table below; everything else is shared. Compiles nothing. */
#include "eval/abi.h"

#include <stdio.h>
#include <string.h>

/* What differs between the backends' generated code. */
struct abi_backend {
	const char *types[KF_DTYPE_COUNT]; /* element type per dtype */
	const char *linkage;               /* prefix of exported functions */
	const char *stream_param;          /* trailing parameter, or NULL */
	const char *stream_arg;            /* how the shim passes it on */
	const char *includes;
	const char *rules;                 /* backend-specific lines of the rules comment */
	const char *vendor_libs;           /* examples of vendor libraries, for the policy line */
};

static const struct abi_backend backends[KF_BACKEND_COUNT] = {
	[KF_BACKEND_CPU] = {
		.types = { "float", "kf_bf16", "kf_f16", "int32_t" },
		.linkage = "",
		.includes = "#include <stdint.h>\n#include <string.h>\n",
		.rules = " *  - C (gnu17), compiled with -O3 -march=native -fopenmp; OpenMP is allowed.\n"
			 " *  - Optional: int kf_init(void), called once before any kf_launch and outside\n"
			 " *    timing (return 0 on success).\n",
		.vendor_libs = "BLAS, oneDNN, MKL",
	},
	[KF_BACKEND_CUDA] = {
		.types = { "float", "__nv_bfloat16", "__half", "int" },
		.linkage = "extern \"C\" ",
		.stream_param = "cudaStream_t stream",
		.stream_arg = "(cudaStream_t)stream",
		.includes = "#include <cuda_runtime.h>\n#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n",
		.rules = " *  - Enqueue all work on `stream`: no other streams, no host threads; kforge\n"
			 " *    synchronises the device after the call.\n"
			 " *  - Extra device memory only through cudaMalloc in the optional\n"
			 " *    extern \"C\" int kf_init(void), called once before any kf_launch and outside\n"
			 " *    timing (return 0 on success); never allocate inside kf_launch.\n",
		.vendor_libs = "cuBLAS, cuDNN, cuBLASLt",
	},
};

static const char *const oracle_types[KF_DTYPE_COUNT] = { "double", "double", "double", "double" };

/* Same maths as common/bf16.h (tests/test_abi.c checks they agree bit for bit). */
static const char bf16_text[] =
	"/* bfloat16 storage: the upper 16 bits of an IEEE float. */\n"
	"typedef uint16_t kf_bf16;\n"
	"\n"
	"static inline float kf_bf16_to_float(kf_bf16 h)\n"
	"{\n"
	"\tuint32_t u = (uint32_t)h << 16;\n"
	"\tfloat f;\n"
	"\tmemcpy(&f, &u, sizeof f);\n"
	"\treturn f;\n"
	"}\n"
	"\n"
	"/* Round to nearest even; NaN stays NaN. */\n"
	"static inline kf_bf16 kf_float_to_bf16(float f)\n"
	"{\n"
	"\tuint32_t u;\n"
	"\tmemcpy(&u, &f, sizeof u);\n"
	"\tif ((u & 0x7fffffffu) > 0x7f800000u)\n"
	"\t\treturn (kf_bf16)((u >> 16) | 0x0040u);\n"
	"\tu += 0x7fffu + ((u >> 16) & 1u);\n"
	"\treturn (kf_bf16)(u >> 16);\n"
	"}\n";

/* IEEE binary16, exact widening and round-to-nearest-even narrowing (checked against
 * _Float16 in tests/test_abi.c). */
static const char f16_text[] =
	"/* IEEE half precision storage. */\n"
	"typedef uint16_t kf_f16;\n"
	"\n"
	"static inline float kf_f16_to_float(kf_f16 h)\n"
	"{\n"
	"\tuint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, u;\n"
	"\tfloat f;\n"
	"\tif (exp == 0x1fu) {\n"
	"\t\tu = sign | 0x7f800000u | (man << 13);\n"
	"\t} else if (exp) {\n"
	"\t\tu = sign | ((exp + 112u) << 23) | (man << 13);\n"
	"\t} else {\n"
	"\t\tf = (float)man * 0x1p-24f; /* zero or subnormal: exact */\n"
	"\t\tmemcpy(&u, &f, sizeof u);\n"
	"\t\tu |= sign;\n"
	"\t}\n"
	"\tmemcpy(&f, &u, sizeof f);\n"
	"\treturn f;\n"
	"}\n"
	"\n"
	"/* Round to nearest even; overflow gives infinity; NaN stays NaN. */\n"
	"static inline kf_f16 kf_float_to_f16(float f)\n"
	"{\n"
	"\tuint32_t u;\n"
	"\tmemcpy(&u, &f, sizeof u);\n"
	"\tuint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;\n"
	"\tif (a > 0x7f800000u)\n"
	"\t\treturn (kf_f16)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));\n"
	"\tif (a >= 0x477ff000u) /* 65520 and up round to infinity */\n"
	"\t\treturn (kf_f16)(sign | 0x7c00u);\n"
	"\tif (a >= 0x38800000u) { /* normal: rebias, round the 13 dropped bits */\n"
	"\t\ta += 0xfffu + ((a >> 13) & 1u);\n"
	"\t\treturn (kf_f16)(sign | ((a >> 13) - (112u << 10)));\n"
	"\t}\n"
	"\tif (a <= 0x33000000u) /* at most 2^-25: rounds to zero */\n"
	"\t\treturn (kf_f16)sign;\n"
	"\tuint32_t shift = 126u - (a >> 23), man = (a & 0x7fffffu) | 0x800000u;\n"
	"\tuint32_t q = man >> shift, rest = man & ((1u << shift) - 1u), half = 1u << (shift - 1u);\n"
	"\tq += rest > half || (rest == half && (q & 1u));\n"
	"\treturn (kf_f16)(sign | q);\n"
	"}\n";

static bool task_uses(const struct kf_task *t, enum kf_dtype d)
{
	for (int i = 0; i < t->n_inputs + t->n_outputs; i++)
		if (t->tensors[i].dtype == d)
			return true;
	return false;
}

/* "const T *in..., T *out..., int SYM..." then the stream when there is one. */
static void add_params(const struct kf_task *t, const char *const *types, const char *stream,
		       kf_buf *out)
{
	const char *sep = "";
	for (int i = 0; i < t->n_inputs + t->n_outputs; i++, sep = ", ") {
		const struct kf_tensor *x = &t->tensors[i];
		kf_buf_addf(out, "%s%s%s *%s", sep, x->is_output ? "" : "const ", types[x->dtype],
			    x->name);
	}
	for (int i = 0; i < t->n_symbols; i++)
		kf_buf_addf(out, ", int %s", t->symbols[i]);
	if (stream)
		kf_buf_addf(out, ", %s", stream);
}

/* The matching call from the uniform entry point: casts of bufs[] and ints[]. */
static void add_call_args(const struct kf_task *t, const char *const *types, const char *stream,
			  kf_buf *out)
{
	const char *sep = "";
	for (int i = 0; i < t->n_inputs + t->n_outputs; i++, sep = ", ") {
		const struct kf_tensor *x = &t->tensors[i];
		kf_buf_addf(out, "%s(%s%s *)bufs[%d]", sep, x->is_output ? "" : "const ",
			    types[x->dtype], i);
	}
	for (int i = 0; i < t->n_symbols; i++)
		kf_buf_addf(out, ", (int)ints[%d]", i);
	if (stream)
		kf_buf_addf(out, ", %s", stream);
}

static void add_dist(const struct kf_dist *d, kf_buf *out)
{
	switch (d->kind) {
	case KF_DIST_NORMAL:
		kf_buf_addf(out, "normal(mean %g, std %g%s%s%s)", d->a, d->b, d->fan_in[0] ? "/sqrt(" : "",
			    d->fan_in, d->fan_in[0] ? ")" : "");
		break;
	case KF_DIST_UNIFORM:
		kf_buf_addf(out, "uniform in [%g, %g)", d->a, d->b);
		break;
	case KF_DIST_TIES:
		kf_buf_addf(out, "near-ties: %d levels in [%g, %g], slightly jittered", d->levels, d->a,
			    d->b);
		break;
	case KF_DIST_INT:
		kf_buf_addf(out, "integers in [%g, %g]", d->a, d->b);
		break;
	}
}

/* Appends text with every line prefixed as a comment line. */
static void add_comment_text(const char *text, kf_buf *out)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);
		kf_buf_adds(out, n ? " * " : " *");
		kf_buf_add(out, text, n);
		kf_buf_adds(out, "\n");
		text += n + (nl != NULL);
	}
}

static void add_tensors(const struct kf_task *t, kf_buf *out)
{
	kf_buf_adds(out, " * Tensors (contiguous, row-major):\n");
	for (int i = 0; i < t->n_inputs + t->n_outputs; i++) {
		const struct kf_tensor *x = &t->tensors[i];
		kf_buf_addf(out, " *   %-6s %-8s %-4s [", x->is_output ? "output" : "input", x->name,
			    kf_dtype_name(x->dtype));
		for (int d = 0; d < x->ndim; d++)
			kf_buf_addf(out, "%s%s", d ? ", " : "", x->dims[d]);
		kf_buf_adds(out, "]");
		if (!x->is_output) {
			kf_buf_adds(out, "  ");
			add_dist(&x->dist, out);
		}
		kf_buf_adds(out, "\n");
	}
	kf_buf_adds(out, " * Shape symbols (passed as int):");
	for (int i = 0; i < t->n_symbols; i++)
		kf_buf_addf(out, "%s %s", i ? "," : "", t->symbols[i]);
	kf_buf_adds(out, ".\n");
}

/* Bench and test shapes only: hidden shapes must never reach a prompt. */
static void add_shapes(const struct kf_task *t, enum kf_backend b, kf_buf *out)
{
	if (kf_task_has_backend(t, b)) {
		kf_buf_adds(out, " * Benchmark shape: ");
		kf_task_shape_format(t, &t->bench[b], out);
		kf_buf_adds(out, ".\n");
	}
	kf_buf_adds(out, " * Test shapes:");
	for (int i = 0; i < t->n_shapes[KF_SET_TEST]; i++) {
		kf_buf_adds(out, i ? "; " : " ");
		kf_task_shape_format(t, &t->shapes[KF_SET_TEST][i], out);
	}
	kf_buf_adds(out, ".\n"
			 " * It also runs on shapes not listed here, with sizes that are not multiples\n"
			 " * of 8, 16, 64 or any tile size.\n");
	for (int s = 0; s < t->n_stress; s++) {
		const struct kf_stress *st = &t->stress[s];
		kf_buf_addf(out, " * Stress inputs \"%s\":", st->name);
		for (int i = 0; i < t->n_inputs; i++)
			if (st->overrides[i]) {
				kf_buf_addf(out, " %s ~ ", t->tensors[i].name);
				add_dist(&st->dist[i], out);
			}
		kf_buf_adds(out, ".\n");
	}
}

static void add_work_and_tolerance(const struct kf_task *t, kf_buf *out)
{
	kf_buf_addf(out, " * Work: %s FLOPs; ", t->flops_expr);
	if (t->bytes_expr)
		kf_buf_addf(out, "%s bytes moved.\n", t->bytes_expr);
	else
		kf_buf_adds(out, "each input read once and each output written once.\n");
	for (int d = 0; d < KF_DTYPE_COUNT; d++)
		if (t->tol[d].set)
			kf_buf_addf(out, " * Tolerance (%s outputs): |out - ref| <= %g + %g * |ref| for every element;\n"
					 " *   ref: an fp64 oracle on small shapes, the reference kernel on large ones.\n",
				    kf_dtype_name((enum kf_dtype)d), t->tol[d].atol, t->tol[d].rtol);
}

static void add_rules(const struct kf_task *t, enum kf_backend b, kf_buf *out)
{
	const struct abi_backend *be = &backends[b];
	kf_buf_addf(out, " * Rules:\n"
			 " *  - kf_launch returns 0 on success, non-zero on failure.\n"
			 " *  - Never write to the inputs. Write every element of every output (outputs\n"
			 " *    start filled with NaN).\n"
			 " *  - Compute the result on every call: no state or caching across calls.\n"
			 " *  - No files, environment, network, processes or signals.\n"
			 "%s"
			 " *  - Vendor libraries (%s, ...) are %s.\n",
		    be->rules, be->vendor_libs, t->vendor_libs_allowed ? "allowed" : "forbidden");
	if (t->determinism == KF_DET_BITWISE)
		kf_buf_adds(out, " *  - Results must be bitwise identical from run to run.\n");
}

static void add_comment(const struct kf_task *t, enum kf_backend b, const char *file, kf_buf *out)
{
	kf_buf_addf(out, "/* %s: generated by kforge from the task spec of %s (level %d), %s backend.\n"
			 " *\n",
		    file, t->name, t->level, kf_backend_name(b));
	add_comment_text(t->description, out);
	kf_buf_adds(out, " *\n");
	add_tensors(t, out);
	add_shapes(t, b, out);
	add_work_and_tolerance(t, out);
	add_rules(t, b, out);
	kf_buf_adds(out, " */\n");
}

void kf_abi_prototype(const struct kf_task *t, enum kf_backend b, kf_buf *out)
{
	const struct abi_backend *be = &backends[b];
	kf_buf_addf(out, "%sint kf_launch(", be->linkage);
	add_params(t, be->types, be->stream_param, out);
	kf_buf_adds(out, ");");
}

void kf_abi_header(const struct kf_task *t, enum kf_backend b, kf_buf *out)
{
	const struct abi_backend *be = &backends[b];
	add_comment(t, b, "kf_task.h", out);
	kf_buf_addf(out, "#ifndef KF_GENERATED_TASK_H\n#define KF_GENERATED_TASK_H\n\n%s\n", be->includes);
	if (b == KF_BACKEND_CPU) {
		kf_buf_addf(out, "%s\n", bf16_text);
		if (task_uses(t, KF_DTYPE_F16))
			kf_buf_addf(out, "%s\n", f16_text);
	}
	kf_abi_prototype(t, b, out);
	kf_buf_addf(out, "\n%sint kf_init(void); /* optional */\n\n#endif\n", be->linkage);
}

void kf_abi_shim(const struct kf_task *t, enum kf_backend b, kf_buf *out)
{
	const struct abi_backend *be = &backends[b];
	const char *exp = "__attribute__((visibility(\"default\")))";
	kf_buf_addf(out, "/* kf_shim: generated by kforge for %s (%s); compiled with -include kf_task.h. */\n"
			 "%sint kf_init(void) __attribute__((weak));\n"
			 "%s%s int kf_shim_init(void);\n"
			 "%s%s int kf_shim_call(void *const *bufs, const long long *ints, void *stream);\n\n"
			 "%sint kf_shim_init(void)\n{\n\treturn kf_init ? kf_init() : 0;\n}\n\n"
			 "%sint kf_shim_call(void *const *bufs, const long long *ints, void *stream)\n{\n",
		    t->name, kf_backend_name(b), be->linkage, be->linkage, exp, be->linkage, exp,
		    be->linkage, be->linkage);
	if (!be->stream_arg)
		kf_buf_adds(out, "\t(void)stream;\n");
	kf_buf_adds(out, "\treturn kf_launch(");
	add_call_args(t, be->types, be->stream_arg, out);
	kf_buf_adds(out, ");\n}\n");
}

void kf_abi_oracle_header(const struct kf_task *t, kf_buf *out)
{
	kf_buf_addf(out, "/* kf_oracle.h: generated by kforge for %s. The fp64 oracle: every tensor\n"
			 " * as double (inputs hold the exact values the candidate receives), plain\n"
			 " * loops, obviously right. Returns 0 on success. */\n"
			 "#ifndef KF_GENERATED_ORACLE_H\n#define KF_GENERATED_ORACLE_H\n\n"
			 "int kf_oracle(",
		    t->name);
	add_params(t, oracle_types, NULL, out);
	kf_buf_adds(out, ");\n\n#endif\n");
}

void kf_abi_oracle_shim(const struct kf_task *t, kf_buf *out)
{
	kf_buf_addf(out, "/* kf_oracle_shim: generated by kforge for %s; compiled with -include kf_oracle.h. */\n"
			 "__attribute__((visibility(\"default\"))) int kf_oracle_shim_call(void *const *bufs, "
			 "const long long *ints, void *stream);\n\n"
			 "int kf_oracle_shim_call(void *const *bufs, const long long *ints, void *stream)\n{\n"
			 "\t(void)stream;\n\treturn kf_oracle(",
		    t->name);
	add_call_args(t, oracle_types, NULL, out);
	kf_buf_adds(out, ");\n}\n");
}
