/* Prints docs/task-suite.md's table of every task, generated from the specs through kforge's own task
 * loader (so a task added to tasks/ appears the next time it runs): what it computes, dtypes, CUDA bench
 * shape, tolerance, bound, CUDA reference kind (tuned, or generic: built on reference_kernels/cuda/generic),
 * vendor baseline, and, from a GPU run's rows (bench/judge_examples.sh --backend cuda writes them to
 * examples.tsv), the reference's time with its share of the vendor baseline or of the copy bandwidth, and
 * the CUDA example's verdict. Without a run for a task its cells say "not measured".
 * Usage: build/bench/task_table [MEASURED.tsv]   (from the repository root; bench/task_table.sh splices
 * the output into docs/task-suite.md) */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fs.h"
#include "eval/tasks/task.h"

#define MAX_ROWS 1024
#define FIELD_MAX 256
#define COMPUTES_MAX 110 /* characters of the description's first line kept in the table */
#define SOURCE_MAX_BYTES (4u << 20)
#define GENERIC_MARK "cuda/generic/" /* what a generic reference includes (reference_kernels/cuda/generic) */

/* The H100 SXM's datasheet row of the judge (eval/judge/gpu/cuda_area.c), for the bound column of a task
 * no run has measured: bytes at the copy bandwidth against FLOPs at the rate of the task's compute dtype
 * and transcendentals on the special-function units (132 SMs x 16 per clock x 1.98 GHz). */
#define H100_BW_BYTES_S 3.35e12
#define H100_F32_FLOPS_S 66.9e12
#define H100_TENSOR16_FLOPS_S 989.4e12
#define H100_TENSOR8_FLOPS_S 1978.9e12
#define H100_SFU_OPS_S (132 * 16 * 1.98e9)

/* One row of a GPU run's examples.tsv. */
struct measured {
	char task[KF_NAME_MAX], verdict[FIELD_MAX], bound[FIELD_MAX], device[FIELD_MAX];
	double ref_ms, vendor_ms, t_sol_ms; /* 0 when the run has none */
};

static struct measured rows[MAX_ROWS];
static int n_rows;
static char run_device[FIELD_MAX];

/* The column named `name` of the header's tab-separated fields, or -1. */
static int column(char *const *fields, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(fields[i], name))
			return i;
	return -1;
}

/* Splits line in place at tabs (and drops its newline); returns the field count. */
static int split(char *line, char **fields, int max)
{
	line[strcspn(line, "\r\n")] = '\0';
	int n = 0;
	for (char *p = line; n < max; p++) {
		fields[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p = '\0';
	}
	return n;
}

static double number(char *const *f, int n, int col)
{
	return col >= 0 && col < n && f[col][0] ? strtod(f[col], NULL) : 0;
}

static void text(char *out, char *const *f, int n, int col)
{
	snprintf(out, FIELD_MAX, "%s", col >= 0 && col < n ? f[col] : "");
}

/* Reads the run's rows; 0, or -1 with a message when the file is unreadable or lacks the columns. */
static int load_measured(const char *path)
{
	enum { MAX_FIELDS = 16 };
	FILE *fp = fopen(path, "r");
	if (!fp) {
		perror(path);
		return -1;
	}
	char line[4096], *f[MAX_FIELDS];
	int rc = -1;
	if (!fgets(line, sizeof line, fp))
		goto cleanup;
	int n = split(line, f, MAX_FIELDS);
	int c_task = column(f, n, "task"), c_verdict = column(f, n, "verdict"), c_ref = column(f, n, "ref_time_ms");
	int c_vendor = column(f, n, "vendor_time_ms"), c_sol = column(f, n, "t_sol_ms"), c_bound = column(f, n, "bound");
	int c_device = column(f, n, "device");
	if (c_task < 0 || c_verdict < 0 || c_ref < 0) {
		fprintf(stderr, "%s: the header has no task, verdict or ref_time_ms column\n", path);
		goto cleanup;
	}
	while (n_rows < MAX_ROWS && fgets(line, sizeof line, fp)) {
		n = split(line, f, MAX_FIELDS);
		if (c_task >= n || !f[c_task][0])
			continue;
		struct measured *m = &rows[n_rows++];
		snprintf(m->task, sizeof m->task, "%s", f[c_task]);
		text(m->verdict, f, n, c_verdict);
		text(m->bound, f, n, c_bound);
		text(m->device, f, n, c_device);
		m->ref_ms = number(f, n, c_ref);
		m->vendor_ms = number(f, n, c_vendor);
		m->t_sol_ms = number(f, n, c_sol);
		if (m->device[0] && !run_device[0])
			snprintf(run_device, sizeof run_device, "%s", m->device);
	}
	rc = 0;
cleanup:
	fclose(fp);
	return rc;
}

static const struct measured *find_measured(const char *task)
{
	for (int i = 0; i < n_rows; i++)
		if (!strcmp(rows[i].task, task))
			return &rows[i];
	return NULL;
}

/* Appends at most max characters of s, those a markdown table cell cannot hold escaped or flattened. */
static void add_cell(kf_buf *b, const char *s, size_t max)
{
	for (size_t n = 0; *s && n < max; s++, n++) {
		if (*s == '|')
			kf_buf_adds(b, "\\|");
		else if (*s == '\n' || *s == '\t')
			kf_buf_adds(b, " ");
		else
			kf_buf_addf(b, "%c", *s);
	}
}

/* The description's first line, without the punctuation that ends it; cut with an ellipsis when long. */
static void add_computes(kf_buf *b, const char *desc)
{
	char first[COMPUTES_MAX + 1];
	size_t len = strcspn(desc, "\n");
	bool cut = len > COMPUTES_MAX;
	snprintf(first, sizeof first, "%.*s", (int)(cut ? COMPUTES_MAX : len), desc);
	for (size_t n = strlen(first); !cut && n && strchr(":;,. ", first[n - 1]); n--)
		first[n - 1] = '\0';
	add_cell(b, first, COMPUTES_MAX);
	if (cut)
		kf_buf_adds(b, "…");
}

/* "bf16, i32 → f32": the distinct dtypes of the inputs, then of the outputs. */
static void add_dtypes(kf_buf *b, const struct kf_task *t)
{
	for (int side = 0; side < 2; side++) {
		bool seen[KF_DTYPE_COUNT] = { false };
		int lo = side ? t->n_inputs : 0, hi = side ? t->n_inputs + t->n_outputs : t->n_inputs, shown = 0;
		if (side)
			kf_buf_adds(b, " → ");
		for (int i = lo; i < hi; i++) {
			enum kf_dtype d = t->tensors[i].dtype;
			if (seen[d])
				continue;
			seen[d] = true;
			kf_buf_addf(b, "%s%s", shown++ ? ", " : "", kf_dtype_name(d));
		}
	}
}

/* Each output's tolerance, "exact" where it is 0 and 0; outputs with the same one are shown once. */
static void add_tolerance(kf_buf *b, const struct kf_task *t)
{
	kf_buf seen = KF_BUF_INIT;
	for (int i = t->n_inputs; i < t->n_inputs + t->n_outputs; i++) {
		struct kf_tolerance tol = kf_task_tolerance(t, i);
		char one[FIELD_MAX];
		if (tol.atol == 0 && tol.rtol == 0)
			snprintf(one, sizeof one, "%s exact", kf_dtype_name(t->tensors[i].dtype));
		else
			snprintf(one, sizeof one, "%s %.3g + %.3g·\\|ref\\|", kf_dtype_name(t->tensors[i].dtype), tol.atol,
				 tol.rtol);
		if (seen.data && strstr(seen.data, one))
			continue;
		kf_buf_addf(b, "%s%s", seen.len ? "; " : "", one);
		kf_buf_addf(&seen, "%s\n", one);
	}
	kf_buf_free(&seen);
	if (t->determinism == KF_DET_BITWISE)
		kf_buf_adds(b, ", bitwise");
}

/* The bound at shape s on the H100's datasheet peaks (see H100_*). */
static const char *nominal_bound(const struct kf_task *t, const struct kf_shape *s)
{
	double rate = H100_F32_FLOPS_S;
	switch (t->compute_dtype) {
	case KF_DTYPE_BF16: case KF_DTYPE_F16: rate = H100_TENSOR16_FLOPS_S; break;
	case KF_DTYPE_I8: case KF_DTYPE_U8: case KF_DTYPE_FP8_E4M3: case KF_DTYPE_FP8_E5M2: case KF_DTYPE_FP4_E2M1X2:
		rate = H100_TENSOR8_FLOPS_S;
		break;
	default: break;
	}
	double memory = kf_task_bytes(t, s) / H100_BW_BYTES_S, compute = kf_task_flops(t, s) / rate;
	double sfu = kf_task_sfu_ops(t, s) / H100_SFU_OPS_S;
	if (sfu > memory && sfu > compute)
		return "sfu";
	return compute > memory ? "compute" : "memory";
}

/* "tuned", "generic" (the reference includes the generic op library) or "—" (no CUDA reference). */
static const char *reference_kind(const struct kf_task *t)
{
	if (!t->reference[KF_BACKEND_CUDA])
		return "—";
	char path[PATH_MAX], *src = NULL;
	kf_task_source_path(t, t->reference[KF_BACKEND_CUDA], path, sizeof path);
	if (kf_read_file(path, SOURCE_MAX_BYTES, &src, NULL, NULL) != KF_OK)
		return "missing";
	const char *kind = strstr(src, GENERIC_MARK) ? "generic" : "tuned";
	free(src);
	return kind;
}

/* The reference's measured time with its share of the vendor baseline (vendor time / reference time), else
 * of its t_SOL (t_SOL / reference time; for a memory-bound task, the bytes at the higher of the datasheet's
 * and the measured copy's bandwidth). */
static void add_measurement(kf_buf *b, const struct measured *m)
{
	if (!m || !(m->ref_ms > 0)) {
		kf_buf_adds(b, "not measured");
		return;
	}
	kf_buf_addf(b, "%.4g ms", m->ref_ms);
	if (m->vendor_ms > 0)
		kf_buf_addf(b, ", %.0f%% of vendor", 100 * m->vendor_ms / m->ref_ms);
	else if (m->t_sol_ms > 0)
		kf_buf_addf(b, ", %.0f%% of SOL", 100 * m->t_sol_ms / m->ref_ms);
}

int main(int argc, char **argv)
{
	if (argc > 2) {
		fprintf(stderr, "usage: task_table [MEASURED.tsv]\n");
		return 2;
	}
	if (argc == 2 && load_measured(argv[1]) != 0)
		return 2;
	struct kf_task **ts = NULL;
	int n = 0;
	kf_err err;
	if (kf_task_list(NULL, &ts, &n, &err) != KF_OK) {
		fprintf(stderr, "task_table: %s\n", err.msg);
		return 2;
	}
	int per_level[8] = { 0 }, tuned = 0, generic = 0, examples = 0, measured = 0, examples_ok = 0;
	kf_buf out = KF_BUF_INIT;
	kf_buf_addf(&out, "| task | level | computes | dtypes | CUDA bench shape | tolerance | bound | CUDA reference | "
			  "vendor baseline | reference on %s | CUDA example |\n",
		    run_device[0] ? run_device : "the GPU");
	kf_buf_adds(&out, "|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < n; i++) {
		const struct kf_task *t = ts[i];
		const struct measured *m = find_measured(t->name);
		enum kf_backend shape_b = t->has_bench[KF_BACKEND_CUDA] ? KF_BACKEND_CUDA : KF_BACKEND_CPU;
		const char *kind = reference_kind(t);
		char example[PATH_MAX];
		snprintf(example, sizeof example, "%s/examples/cuda/%s.cu", kf_home(), t->name);
		bool has_example = access(example, F_OK) == 0;
		per_level[t->level < 8 ? t->level : 7]++;
		tuned += !strcmp(kind, "tuned");
		generic += !strcmp(kind, "generic");
		examples += has_example;
		measured += m && m->ref_ms > 0;
		examples_ok += m && !strcmp(m->verdict, "ok");

		kf_buf_addf(&out, "| `%s` | %d | ", t->name, t->level);
		add_computes(&out, t->description);
		kf_buf_adds(&out, " | ");
		add_dtypes(&out, t);
		kf_buf_addf(&out, " | %s", shape_b == KF_BACKEND_CPU ? "(CPU) " : "");
		kf_task_shape_format(t, &t->bench[shape_b], &out);
		kf_buf_adds(&out, " | ");
		add_tolerance(&out, t);
		kf_buf_addf(&out, " | %s | %s | %s | ", m && m->bound[0] ? m->bound : nominal_bound(t, &t->bench[shape_b]),
			    kind, t->vendor_baseline ? t->vendor_baseline : "—");
		add_measurement(&out, m);
		kf_buf_addf(&out, " | %s |\n", !has_example ? "—" : m && m->verdict[0] ? m->verdict : "not judged");
	}
	printf("%s\n", out.data);
	printf("%d tasks: level 1 %d, level 2 %d, level 3 %d, level 4 (multi-GPU, examples in examples/cuda_multi) %d. "
	       "CUDA references: %d tuned, %d generic; CUDA examples: %d",
	       n, per_level[1], per_level[2], per_level[3], per_level[4], tuned, generic, examples);
	if (argc == 2)
		printf(", %d of them ok in the run; references measured: %d", examples_ok, measured);
	printf(".\n");
	kf_buf_free(&out);
	kf_task_list_free(ts, n);
	return 0;
}
