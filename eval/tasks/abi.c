/* Generates the candidate ABI text from a task spec (see abi.h): the force-included header
 * (also the prompt's description of the task), the shim that turns the judge's uniform call
 * into the typed kf_launch, and the fp64 oracle's pair. The two backends differ only in the
 * table below; everything else is shared. Compiles nothing. */
#include "eval/tasks/abi.h"
#include "eval/tasks/multi.h"

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
		.types = { "float", "kf_bf16", "kf_f16", "int32_t", "int8_t", "uint8_t", "bool", "int64_t",
			   "kf_fp8_e4m3", "kf_fp8_e5m2", "kf_fp4x2", "kf_e8m0" },
		.linkage = "",
		.includes = "#include <stdbool.h>\n#include <stdint.h>\n#include <string.h>\n",
		.rules = " *  - C (gnu17), compiled with -O3 -march=native -fopenmp; OpenMP is allowed.\n"
			 " *  - Optional: int kf_init(void), called once before any kf_launch and outside\n"
			 " *    timing (return 0 on success).\n",
		.vendor_libs = "BLAS, oneDNN, MKL",
	},
	[KF_BACKEND_CUDA] = {
		.types = { "float", "__nv_bfloat16", "__half", "int", "signed char", "unsigned char", "bool",
			   "long long", "__nv_fp8_e4m3", "__nv_fp8_e5m2", "__nv_fp4x2_e2m1", "__nv_fp8_e8m0" },
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

static const char *const oracle_types[KF_DTYPE_COUNT] = {
	"double", "double", "double", "double", "double", "double",
	"double", "double", "double", "double", "double", "double",
};

/* The CUDA headers of the 8- and 4-bit float types, included when a tensor has one (cuda_fp4.hpp
 * has unused parameters, which -Wextra -Werror would turn into a candidate's compile error). */
static const char cuda_lowp_includes[] = "#pragma GCC diagnostic push\n"
					 "#pragma GCC diagnostic ignored \"-Wunused-parameter\"\n"
					 "#include <cuda_fp8.h>\n#include <cuda_fp4.h>\n"
					 "#pragma GCC diagnostic pop\n";

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

/* The same maths as eval/tasks/lowp.c, generated from it (tests/test_abi.c checks they agree bit for bit). */
static const char lowp_text[] =
	"/* Low-precision formats: OCP FP8 E4M3 and E5M2, MX FP4 E2M1 (two per byte, low nibble\n"
	" * first) and MX E8M0 scales (2^(e-127), 0xff NaN). Encoding: round to nearest even; finite\n"
	" * overflow saturates to the largest finite value (E4M3: 448, E5M2: 57344, E2M1: 6), E4M3 and\n"
	" * E2M1 infinities too; E5M2 keeps infinities; NaN stays NaN (E2M1: NaN gives +0); E8M0 takes\n"
	" * the power of two at or below |x|. */\n"
	"typedef uint8_t kf_fp8_e4m3;\n"
	"typedef uint8_t kf_fp8_e5m2;\n"
	"typedef uint8_t kf_fp4x2; /* two E2M1 values: element 2i in the low nibble, 2i+1 in the high */\n"
	"typedef uint8_t kf_e8m0;\n"
	"\n"
	"#define KF_LOWP_ABS 0x7fffffffu\n"
	"#define KF_LOWP_INF 0x7f800000u\n"
	"#define KF_LOWP_MAN 23\n"
	"#define KF_LOWP_BIAS 127\n"
	"\n"
	"/* A sign-less kf_minifloat: E exponent bits, M mantissa bits, exponent bias, largest finite code. */\n"
	"struct kf_minifloat {\n"
	"\tint man_bits, bias;\n"
	"\tuint32_t max_code;\n"
	"\tfloat sub_step; /* the value of mantissa step 1 among subnormals: 2^(1-bias-M) */\n"
	"};\n"
	"\n"
	"#define KF_LOWP_E4M3 (&(const struct kf_minifloat){ 3, 7, 0x7e, 0x1p-9f })\n"
	"#define KF_LOWP_E5M2 (&(const struct kf_minifloat){ 2, 15, 0x7b, 0x1p-16f })\n"
	"#define KF_LOWP_E2M1 (&(const struct kf_minifloat){ 1, 1, 0x7, 0x1p-1f })\n"
	"\n"
	"static inline uint32_t kf_lowp_bits(float f)\n"
	"{\n"
	"\tuint32_t u;\n"
	"\tmemcpy(&u, &f, sizeof u);\n"
	"\treturn u;\n"
	"}\n"
	"\n"
	"static inline float kf_lowp_float(uint32_t u)\n"
	"{\n"
	"\tfloat f;\n"
	"\tmemcpy(&f, &u, sizeof f);\n"
	"\treturn f;\n"
	"}\n"
	"\n"
	"/* Magnitude code of a finite, non-negative float's bits a: round to nearest even, saturating. */\n"
	"static inline uint32_t kf_lowp_encode(const struct kf_minifloat *m, uint32_t a)\n"
	"{\n"
	"\tint fe = (int)(a >> KF_LOWP_MAN);\n"
	"\tif (fe == 0)\n"
	"\t\treturn 0; /* float subnormals are far below every format's smallest step */\n"
	"\tint e = fe - KF_LOWP_BIAS;\n"
	"\tuint32_t mant = (a & 0x7fffffu) | 0x800000u; /* with the hidden bit: |x| = mant * 2^(e-23) */\n"
	"\tuint32_t code;\n"
	"\tint shift;\n"
	"\tif (e >= 1 - m->bias) {\n"
	"\t\t/* normal: keep man_bits of the fraction; a carry moves into the exponent field */\n"
	"\t\tshift = KF_LOWP_MAN - m->man_bits;\n"
	"\t\tcode = ((uint32_t)(e + m->bias) << m->man_bits) + ((mant & 0x7fffffu) >> shift);\n"
	"\t} else {\n"
	"\t\t/* subnormal: the count of steps of 2^(1-bias-M) */\n"
	"\t\tshift = KF_LOWP_MAN + 1 - m->bias - m->man_bits - e;\n"
	"\t\tif (shift > KF_LOWP_MAN + 2)\n"
	"\t\t\treturn 0; /* below half the smallest step */\n"
	"\t\tcode = mant >> shift;\n"
	"\t}\n"
	"\tuint32_t rest = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);\n"
	"\tcode += rest > half || (rest == half && (code & 1u));\n"
	"\treturn code > m->max_code ? m->max_code : code;\n"
	"}\n"
	"\n"
	"static inline float kf_lowp_decode(const struct kf_minifloat *m, uint32_t code)\n"
	"{\n"
	"\tuint32_t exp = code >> m->man_bits, man = code & ((1u << m->man_bits) - 1u);\n"
	"\tif (!exp)\n"
	"\t\treturn (float)man * m->sub_step;\n"
	"\treturn kf_lowp_float(((exp - (uint32_t)m->bias + KF_LOWP_BIAS) << KF_LOWP_MAN) | (man << (KF_LOWP_MAN - m->man_bits)));\n"
	"}\n"
	"\n"
	"static inline float kf_lowp_sign(float v, uint8_t c, int sign_bit)\n"
	"{\n"
	"\treturn (c >> sign_bit) & 1u ? -v : v;\n"
	"}\n"
	"\n"
	"static inline float kf_fp8_e4m3_to_float(uint8_t c)\n"
	"{\n"
	"\tif ((c & 0x7fu) == 0x7fu)\n"
	"\t\treturn kf_lowp_sign(kf_lowp_float(0x7fc00000u), c, 7);\n"
	"\treturn kf_lowp_sign(kf_lowp_decode(KF_LOWP_E4M3, c & 0x7fu), c, 7);\n"
	"}\n"
	"\n"
	"static inline uint8_t kf_float_to_fp8_e4m3(float f)\n"
	"{\n"
	"\tuint32_t u = kf_lowp_bits(f), a = u & KF_LOWP_ABS;\n"
	"\tuint8_t sign = (uint8_t)((u >> 24) & 0x80u);\n"
	"\tif (a > KF_LOWP_INF)\n"
	"\t\treturn sign | 0x7fu;\n"
	"\tif (a == KF_LOWP_INF)\n"
	"\t\treturn sign | (uint8_t)0x7eu;\n"
	"\treturn sign | (uint8_t)kf_lowp_encode(KF_LOWP_E4M3, a);\n"
	"}\n"
	"\n"
	"static inline float kf_fp8_e5m2_to_float(uint8_t c)\n"
	"{\n"
	"\tuint32_t a = c & 0x7fu;\n"
	"\tif (a >= 0x7cu)\n"
	"\t\treturn kf_lowp_sign(kf_lowp_float(a == 0x7cu ? KF_LOWP_INF : 0x7fc00000u), c, 7);\n"
	"\treturn kf_lowp_sign(kf_lowp_decode(KF_LOWP_E5M2, a), c, 7);\n"
	"}\n"
	"\n"
	"static inline uint8_t kf_float_to_fp8_e5m2(float f)\n"
	"{\n"
	"\tuint32_t u = kf_lowp_bits(f), a = u & KF_LOWP_ABS;\n"
	"\tuint8_t sign = (uint8_t)((u >> 24) & 0x80u);\n"
	"\tif (a > KF_LOWP_INF)\n"
	"\t\treturn sign | 0x7fu;\n"
	"\tif (a == KF_LOWP_INF)\n"
	"\t\treturn sign | 0x7cu;\n"
	"\treturn sign | (uint8_t)kf_lowp_encode(KF_LOWP_E5M2, a);\n"
	"}\n"
	"\n"
	"static inline float kf_fp4_e2m1_to_float(uint8_t nibble)\n"
	"{\n"
	"\treturn kf_lowp_sign(kf_lowp_decode(KF_LOWP_E2M1, nibble & 0x7u), nibble, 3);\n"
	"}\n"
	"\n"
	"static inline uint8_t kf_float_to_fp4_e2m1(float f)\n"
	"{\n"
	"\tuint32_t u = kf_lowp_bits(f), a = u & KF_LOWP_ABS;\n"
	"\tif (a > KF_LOWP_INF)\n"
	"\t\treturn 0;\n"
	"\tuint8_t sign = (uint8_t)((u >> 28) & 0x8u);\n"
	"\treturn sign | (uint8_t)kf_lowp_encode(KF_LOWP_E2M1, a == KF_LOWP_INF ? kf_lowp_bits(6.0f) : a);\n"
	"}\n"
	"\n"
	"static inline float kf_e8m0_to_float(uint8_t c)\n"
	"{\n"
	"\tif (c == 0xffu)\n"
	"\t\treturn kf_lowp_float(0x7fc00000u);\n"
	"\treturn c ? kf_lowp_float((uint32_t)c << KF_LOWP_MAN) : 0x1p-127f;\n"
	"}\n"
	"\n"
	"static inline uint8_t kf_float_to_e8m0(float f)\n"
	"{\n"
	"\tuint32_t a = kf_lowp_bits(f) & KF_LOWP_ABS;\n"
	"\tif (a >= KF_LOWP_INF)\n"
	"\t\treturn 0xffu;\n"
	"\treturn (uint8_t)(a >> KF_LOWP_MAN); /* the biased exponent is floor(log2 |x|) + 127 */\n"
	"}\n";

static bool task_uses(const struct kf_task *t, enum kf_dtype d)
{
	for (int i = 0; i < t->n_inputs + t->n_outputs; i++)
		if (t->tensors[i].dtype == d)
			return true;
	return false;
}

static bool task_uses_lowp(const struct kf_task *t)
{
	return task_uses(t, KF_DTYPE_FP8_E4M3) || task_uses(t, KF_DTYPE_FP8_E5M2) ||
	       task_uses(t, KF_DTYPE_FP4_E2M1X2) || task_uses(t, KF_DTYPE_E8M0);
}

/* The workspace parameter comes before the stream, and only where there is a stream (CUDA): the CPU
 * and the oracle allocate freely, and a multi-GPU task's workspace is its kf_comm scratch. */
static bool has_workspace(const struct kf_task *t, const char *stream)
{
	return stream && kf_task_has_workspace_param(t, KF_BACKEND_CUDA);
}

/* "const T *in..., T *out..., int SYM..." then the workspace and the stream when there are. */
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
	/* the oracle (types[0] is double there) takes float scalars as double */
	for (int k = 0; k < t->n_scalars; k++)
		kf_buf_addf(out, ", %s %s", !t->scalars[k].is_float ? "int" : strcmp(types[0], "double") ? "float" : "double",
			    t->scalars[k].name);
	if (has_workspace(t, stream))
		kf_buf_addf(out, ", void *%s", KF_WORKSPACE_PARAM);
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
	bool oracle = !strcmp(types[0], "double");
	for (int k = 0; k < t->n_scalars; k++)
		kf_buf_addf(out, t->scalars[k].is_float ? (oracle ? ", kf_shim_f64(ints[%d])" : ", (float)kf_shim_f64(ints[%d])")
							: ", (int)ints[%d]",
			    t->n_symbols + k);
	if (has_workspace(t, stream))
		kf_buf_addf(out, ", bufs[%d]", t->n_inputs + t->n_outputs);
	if (stream)
		kf_buf_addf(out, ", %s", stream);
}

/* Float scalars travel as the bit patterns of doubles in ints[]. */
static const char shim_f64_text[] =
	"static double kf_shim_f64(long long bits)\n{\n\tdouble d;\n\t__builtin_memcpy(&d, &bits, sizeof d);\n\treturn d;\n}\n\n";

static void add_shim_f64(const struct kf_task *t, kf_buf *out)
{
	for (int k = 0; k < t->n_scalars; k++)
		if (t->scalars[k].is_float) {
			kf_buf_adds(out, shim_f64_text);
			return;
		}
}

static void add_dist(const struct kf_dist *d, kf_buf *out)
{
	switch (d->kind) {
	case KF_DIST_NORMAL:
		kf_buf_addf(out, "normal(mean %g, std %g%s%s%s)", d->a, d->b, d->fan_in[0] ? "/sqrt(" : "",
			    d->fan_in, d->fan_in[0] ? ")" : "");
		break;
	case KF_DIST_UNIFORM:
		kf_buf_addf(out, "uniform in [%g, %g)%s%s%s", d->a, d->b, d->fan_in[0] ? "/sqrt(" : "", d->fan_in,
			    d->fan_in[0] ? ")" : "");
		break;
	case KF_DIST_TIES:
		kf_buf_addf(out, "near-ties: %d levels in [%g, %g], slightly jittered", d->levels, d->a,
			    d->b);
		break;
	case KF_DIST_INT:
		if (d->lo_expr[0] || d->hi_expr[0])
			kf_buf_addf(out, "integers in [%s, %s]", d->lo_expr[0] ? d->lo_expr : "", d->hi_expr[0] ? d->hi_expr : "");
		else
			kf_buf_addf(out, "integers in [%g, %g]", d->a, d->b);
		if (d->lo_expr[0] && !d->hi_expr[0])
			kf_buf_addf(out, " (hi %g)", d->b);
		if (!d->lo_expr[0] && d->hi_expr[0])
			kf_buf_addf(out, " (lo %g)", d->a);
		break;
	case KF_DIST_CONSTANT:
		kf_buf_addf(out, "constant %g", d->a);
		break;
	case KF_DIST_CHOICE:
		kf_buf_adds(out, "each one of {");
		for (int i = 0; i < d->n_choices; i++)
			kf_buf_addf(out, "%s%g", i ? ", " : "", d->choices[i]);
		kf_buf_adds(out, "}");
		break;
	case KF_DIST_NORMALIZED_ROWS:
		kf_buf_addf(out, "rows of %s normal draws scaled to unit L2 norm", d->row_expr);
		break;
	case KF_DIST_PERMUTATION:
		kf_buf_addf(out, "each row of %s a permutation of 0..%s-1", d->row_expr[0] ? d->row_expr : "all",
			    d->row_expr[0] ? d->row_expr : "n");
		break;
	case KF_DIST_SORTED_OFFSETS:
		kf_buf_addf(out, "sorted segment offsets from 0 to %s", d->range_expr);
		break;
	case KF_DIST_TOPK_INDICES:
		kf_buf_addf(out, "rows of %s distinct indices in [0, %s) (top-k routing)", d->row_expr, d->range_expr);
		break;
	case KF_DIST_TOPK_WEIGHTS:
		kf_buf_addf(out, "rows of %s positive weights summing to 1", d->row_expr);
		break;
	case KF_DIST_PAGE_TABLE:
		kf_buf_addf(out, "distinct page numbers in [0, %s) (a paged-KV page table)", d->range_expr);
		break;
	case KF_DIST_BLOCK_SCALES:
		kf_buf_addf(out, "block scales 2^k, k an integer in [%g, %g]", d->a, d->b);
		break;
	case KF_DIST_COUNT:
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
		if (x->dtype == KF_DTYPE_FP4_E2M1X2)
			kf_buf_adds(out, " bytes, two E2M1 values each");
		if (!x->is_output) {
			kf_buf_adds(out, x->dtype == KF_DTYPE_E8M0 ? "  scales 2^k, k " : "  ");
			add_dist(&x->dist, out);
		}
		kf_buf_adds(out, "\n");
	}
	kf_buf_adds(out, " * Shape symbols (passed as int):");
	for (int i = 0; i < t->n_symbols; i++)
		kf_buf_addf(out, "%s %s", i ? "," : "", t->symbols[i]);
	kf_buf_adds(out, ".\n");
	if (t->n_scalars)
		kf_buf_adds(out, " * Scalar parameters (after the symbols):\n");
	for (int k = 0; k < t->n_scalars; k++) {
		const struct kf_scalar *sc = &t->scalars[k];
		kf_buf_addf(out, " *   %-8s %-5s ", sc->name, sc->is_float ? "float" : "int");
		if (sc->drawn) {
			add_dist(&sc->dist, out);
			kf_buf_adds(out, ", drawn once per shape");
		} else if (sc->is_float) {
			kf_buf_addf(out, "= %.9g", sc->value);
		} else {
			kf_buf_addf(out, "= %s", sc->int_expr);
		}
		kf_buf_adds(out, "\n");
	}
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
	for (int i = t->n_inputs; i < t->n_inputs + t->n_outputs; i++)
		if (t->tensors[i].tol.set && (t->tensors[i].tol.atol != t->tol[t->tensors[i].dtype].atol ||
					      t->tensors[i].tol.rtol != t->tol[t->tensors[i].dtype].rtol))
			kf_buf_addf(out, " * Tolerance (output %s): |out - ref| <= %g + %g * |ref| for every element.\n",
				    t->tensors[i].name, t->tensors[i].tol.atol, t->tensors[i].tol.rtol);
	for (int d = 0; d < KF_DTYPE_COUNT; d++)
		if (t->tol[d].set)
			kf_buf_addf(out, " * Tolerance (%s outputs): |out - ref| <= %g + %g * |ref| for every element;\n"
					 " *   ref: an fp64 oracle on small shapes, the reference kernel on large ones.\n",
				    kf_dtype_name((enum kf_dtype)d), t->tol[d].atol, t->tol[d].rtol);
}

static void add_rules(const struct kf_task *t, enum kf_backend b, kf_buf *out)
{
	const struct abi_backend *be = &backends[b];
	if (has_workspace(t, be->stream_param))
		kf_buf_addf(out, " * Workspace: `%s` points to %s bytes of scratch device memory (%lld at the\n"
				 " *   benchmark shape), %d-byte aligned, yours for the call; its contents are\n"
				 " *   undefined on entry (refilled with a pattern before every call), so nothing\n"
				 " *   carries over between calls. Use it for temporaries instead of cudaMalloc.\n",
			    KF_WORKSPACE_PARAM, t->workspace_expr, (long long)kf_task_workspace(t, &t->bench[b]),
			    KF_WORKSPACE_ALIGN);
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

/* A multi-GPU task's kf_launch also takes its rank's struct kf_comm (eval/tasks/multi.h). */
static bool multi_cuda(const struct kf_task *t, enum kf_backend b)
{
	return b == KF_BACKEND_CUDA && kf_task_multi_gpu(t);
}

void kf_abi_prototype(const struct kf_task *t, enum kf_backend b, kf_buf *out)
{
	const struct abi_backend *be = &backends[b];
	kf_buf_addf(out, "%sint kf_launch(", be->linkage);
	add_params(t, be->types, multi_cuda(t, b) ? KF_MULTI_STREAM_PARAM : be->stream_param, out);
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
		if (task_uses_lowp(t))
			kf_buf_addf(out, "%s\n", lowp_text);
	} else if (task_uses_lowp(t)) {
		kf_buf_addf(out, "%s\n", cuda_lowp_includes);
	}
	if (multi_cuda(t, b))
		kf_abi_multi_types(t, out);
	kf_abi_prototype(t, b, out);
	kf_buf_addf(out, "\n%sint kf_init(void); /* optional */\n\n#endif\n", be->linkage);
}

void kf_abi_shim(const struct kf_task *t, enum kf_backend b, kf_buf *out)
{
	const struct abi_backend *be = &backends[b];
	const char *exp = "__attribute__((visibility(\"default\")))";
	kf_buf_addf(out, "/* kf_shim: generated by kforge for %s (%s); compiled with -include kf_task.h. */\n", t->name,
		    kf_backend_name(b));
	add_shim_f64(t, out);
	kf_buf_addf(out, "%sint kf_init(void) __attribute__((weak));\n"
			 "%s%s int kf_shim_init(void);\n"
			 "%s%s int kf_shim_call(void *const *bufs, const long long *ints, void *stream);\n\n"
			 "%sint kf_shim_init(void)\n{\n\treturn kf_init ? kf_init() : 0;\n}\n\n"
			 "%sint kf_shim_call(void *const *bufs, const long long *ints, void *stream)\n{\n",
		    be->linkage, be->linkage, exp, be->linkage, exp, be->linkage, be->linkage);
	if (!be->stream_arg)
		kf_buf_adds(out, "\t(void)stream;\n");
	kf_buf_adds(out, "\treturn kf_launch(");
	add_call_args(t, be->types, multi_cuda(t, b) ? KF_MULTI_STREAM_ARG : be->stream_arg, out);
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
	kf_buf_addf(out, "/* kf_oracle_shim: generated by kforge for %s; compiled with -include kf_oracle.h. */\n",
		    t->name);
	add_shim_f64(t, out);
	kf_buf_adds(out, "__attribute__((visibility(\"default\"))) int kf_oracle_shim_call(void *const *bufs, "
			 "const long long *ints, void *stream);\n\n"
			 "int kf_oracle_shim_call(void *const *bufs, const long long *ints, void *stream)\n{\n"
			 "\t(void)stream;\n\treturn kf_oracle(");
	add_call_args(t, oracle_types, NULL, out);
	kf_buf_adds(out, ");\n}\n");
}

/* How one element of dtype d becomes a double (from) and a double an element (to), in C text. */
static const char *const elem_from[KF_DTYPE_COUNT] = {
	"(double)%s", "(double)kf_bf16_to_float(%s)", "(double)kf_f16_to_float(%s)", "(double)%s", "(double)%s",
	"(double)%s", "(double)%s", "(double)%s", "(double)kf_fp8_e4m3_to_float(%s)", "(double)kf_fp8_e5m2_to_float(%s)",
	"(double)%s", "(double)kf_e8m0_to_float(%s)",
};
static const char *const elem_to[KF_DTYPE_COUNT] = {
	"(float)%s", "kf_float_to_bf16((float)%s)", "kf_float_to_f16((float)%s)", "(int32_t)%s", "(int8_t)%s",
	"(uint8_t)%s", "(%s != 0)", "(int64_t)%s", "kf_float_to_fp8_e4m3((float)%s)", "kf_float_to_fp8_e5m2((float)%s)",
	"(uint8_t)%s", "kf_float_to_e8m0((float)%s)",
};

void kf_abi_oracle_reference(const struct kf_task *t, const char *oracle_source, kf_buf *out)
{
	int n = t->n_inputs + t->n_outputs;
	kf_buf proto = KF_BUF_INIT;
	/* The wrapper's own names start with kf_, which no task symbol or tensor may (docs/task-spec.md). */
	kf_buf_addf(out, "/* kforge: %s has no CPU reference, so its fp64 oracle serves as one, wrapped to the\n"
			 " * typed ABI: inputs widened to double, outputs rounded once to their dtypes. */\n"
			 "#include <stdlib.h>\n\n",
		    t->name);
	kf_abi_oracle_header(t, out);
	kf_buf_addf(out, "\n#line 1 \"%s\"\n%s\n#line 1 \"kf_oracle_reference(%s)\"\n", t->oracle, oracle_source, t->name);
	kf_abi_prototype(t, KF_BACKEND_CPU, &proto);
	kf_buf_add(out, proto.data, proto.len - 1); /* without the prototype's ';' */
	kf_buf_free(&proto);
	kf_buf_addf(out, "\n{\n\tdouble *kf_d[%d] = { 0 };\n\tint64_t kf_n[%d];\n\tint kf_rc = -1;\n", n, n);
	for (int i = 0; i < n; i++) {
		const struct kf_tensor *x = &t->tensors[i];
		kf_buf_addf(out, "\tkf_n[%d] = 1", i);
		for (int k = 0; k < x->ndim; k++)
			kf_buf_addf(out, " * (int64_t)(%s)", x->dims[k]);
		kf_buf_addf(out, ";\n\tif (!(kf_d[%d] = calloc((size_t)(kf_n[%d] ? kf_n[%d] : 1), sizeof(double))))\n\t\tgoto kf_out;\n", i,
			    i, i);
		if (x->is_output)
			continue;
		char elem[KF_NAME_MAX + 16];
		snprintf(elem, sizeof elem, "%s[kf_e]", x->name);
		kf_buf_addf(out, "\tfor (int64_t kf_e = 0; kf_e < kf_n[%d]; kf_e++)\n\t\tkf_d[%d][kf_e] = ", i, i);
		kf_buf_addf(out, elem_from[x->dtype], elem);
		kf_buf_adds(out, ";\n");
	}
	kf_buf_adds(out, "\tkf_rc = kf_oracle(");
	for (int i = 0; i < n; i++)
		kf_buf_addf(out, "%skf_d[%d]", i ? ", " : "", i);
	for (int i = 0; i < t->n_symbols; i++)
		kf_buf_addf(out, ", %s", t->symbols[i]);
	for (int k = 0; k < t->n_scalars; k++)
		kf_buf_addf(out, ", %s", t->scalars[k].name);
	kf_buf_adds(out, ");\n");
	for (int i = t->n_inputs; i < n; i++) {
		kf_buf_addf(out, "\tfor (int64_t kf_e = 0; kf_e < kf_n[%d]; kf_e++)\n\t\t%s[kf_e] = ", i, t->tensors[i].name);
		char elem[32];
		snprintf(elem, sizeof elem, "kf_d[%d][kf_e]", i);
		kf_buf_addf(out, elem_to[t->tensors[i].dtype], elem);
		kf_buf_adds(out, ";\n");
	}
	kf_buf_addf(out, "kf_out:\n\tfor (int kf_i = 0; kf_i < %d; kf_i++)\n\t\tfree(kf_d[kf_i]);\n\treturn kf_rc;\n}\n", n);
}
