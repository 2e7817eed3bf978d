/* Tests for eval/tasks/task.c: the four starter specs load; every validation rule rejects a broken
 * spec with a one-line "file:field: reason"; the expression evaluator; find/list/check_files. */
#include <criterion/criterion.h>

#include <cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "eval/tasks/task.h"
#include "eval/tasks/tensor.h"

#define SPEC_PATH "tasks/level1/toy.json"

/* A valid spec exercising every field; each rejection test breaks exactly one thing. */
static const char base_spec[] =
	"{\n"
	"  \"name\": \"toy\", \"level\": 1, \"description\": \"C = A @ B, gathered by idx\",\n"
	"  \"symbols\": [\"M\", \"N\", \"K\"],\n"
	"  \"inputs\": [\n"
	"    {\"name\": \"A\", \"dtype\": \"bf16\", \"shape\": [\"M\", \"K\"], \"dist\": {\"kind\": \"normal\", \"mean\": 0, \"std\": 1}},\n"
	"    {\"name\": \"B\", \"dtype\": \"bf16\", \"shape\": [\"K\", \"N\"], \"dist\": {\"kind\": \"uniform\", \"lo\": -1, \"hi\": 1}},\n"
	"    {\"name\": \"idx\", \"dtype\": \"i32\", \"shape\": [\"M\"], \"dist\": {\"kind\": \"int\", \"lo\": 0, \"hi\": 9}}\n"
	"  ],\n"
	"  \"outputs\": [{\"name\": \"C\", \"dtype\": \"bf16\", \"shape\": [\"M\", \"N\"]}],\n"
	"  \"shapes\": {\n"
	"    \"bench\": {\"cpu\": {\"M\": 256, \"N\": 256, \"K\": 256}},\n"
	"    \"test\": [{\"M\": 64, \"N\": 64, \"K\": 64}, {\"M\": 128, \"N\": 64, \"K\": 32}],\n"
	"    \"ragged\": [{\"M\": 65, \"N\": 64, \"K\": 64}, {\"M\": 8, \"N\": 8, \"K\": 3}],\n"
	"    \"hidden\": [{\"M\": 96, \"N\": 64, \"K\": 64}]\n"
	"  },\n"
	"  \"stress\": [{\"name\": \"big\", \"inputs\": {\"A\": {\"kind\": \"normal\", \"mean\": 0, \"std\": 100}}}],\n"
	"  \"tolerance\": {\"bf16\": {\"atol\": 0.01, \"rtol\": 0.01}},\n"
	"  \"flops\": \"2*M*N*K\",\n"
	"  \"reference\": {\"cpu\": \"reference_kernels/cpu/toy.c\"},\n"
	"  \"oracle\": \"reference_kernels/oracle/toy.c\",\n"
	"  \"min_runtime_ms\": {\"cpu\": 1}\n"
	"}\n";

/* Walks "a.b[2].c" to the parent of the last step; returns the last key (or NULL) and index. */
static cJSON *walk(cJSON *root, const char *path, char *last_key, int *last_index)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", path);
	cJSON *node = root, *parent = NULL;
	char *save = NULL;
	for (char *part = strtok_r(buf, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
		char *br = strchr(part, '[');
		int index = br ? atoi(br + 1) : -1;
		if (br)
			*br = '\0';
		bool final = save == NULL || *save == '\0';
		if (final && index < 0) {
			strcpy(last_key, part);
			*last_index = -1;
			return node;
		}
		parent = cJSON_GetObjectItemCaseSensitive(node, part);
		cr_assert_not_null(parent, "test bug: no %s in the base spec", part);
		if (final) {
			*last_index = index;
			last_key[0] = '\0';
			return parent;
		}
		node = index >= 0 ? cJSON_GetArrayItem(parent, index) : parent;
		cr_assert_not_null(node, "test bug: no %s[%d]", part, index);
	}
	cr_assert_fail("test bug: empty path");
	return NULL;
}

/* The base spec with the value at `path` replaced by (or set to) the JSON `value`, or
 * removed when value is NULL. */
static char *spec_with(const char *path, const char *value)
{
	cJSON *root = cJSON_Parse(base_spec);
	char key[128];
	int index;
	cJSON *parent = walk(root, path, key, &index);
	cJSON *v = value ? cJSON_Parse(value) : NULL;
	cr_assert(!value || v, "test bug: bad JSON %s", value);
	if (index >= 0 && !v)
		cJSON_DeleteItemFromArray(parent, index);
	else if (index >= 0 && index < cJSON_GetArraySize(parent))
		cJSON_ReplaceItemInArray(parent, index, v);
	else if (index >= 0)
		cJSON_AddItemToArray(parent, v);
	else if (!v)
		cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
	else if (cJSON_GetObjectItemCaseSensitive(parent, key))
		cJSON_ReplaceItemInObjectCaseSensitive(parent, key, v);
	else
		cJSON_AddItemToObject(parent, key, v);
	char *text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

static char *replace_once(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	cr_assert_not_null(at, "test bug: %s not in the text", from);
	size_t n = strlen(text) + strlen(to) + 1;
	char *out = malloc(n);
	snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	return out;
}

static void expect_error(const char *text, const char *field, const char *reason)
{
	const char *file = SPEC_PATH;
	struct kf_task *t = (struct kf_task *)1;
	kf_err err = { 0 };
	int rc = kf_task_parse(file, text, strlen(text), &t, &err);
	cr_assert_eq(rc, KF_EINPUT, "expected a rejection at %s (%s), got rc %d", field, reason, rc);
	cr_assert_null(t);
	cr_assert_eq(err.code, KF_EINPUT);
	char prefix[256];
	snprintf(prefix, sizeof prefix, "%s:%s: ", file, field);
	cr_assert(!strncmp(err.msg, prefix, strlen(prefix)), "expected \"%s%s\", got \"%s\"", prefix,
		  reason, err.msg);
	cr_assert_not_null(strstr(err.msg, reason), "expected \"%s\" in \"%s\"", reason, err.msg);
	cr_assert_null(strchr(err.msg, '\n'), "message is not one line: %s", err.msg);
}

static void rejects(const char *path, const char *value, const char *field, const char *reason)
{
	char *text = spec_with(path, value);
	expect_error(text, field, reason);
	free(text);
}

static struct kf_task *parse_ok(const char *text)
{
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	int rc = kf_task_parse(SPEC_PATH, text, strlen(text), &t, &err);
	cr_assert_eq(rc, KF_OK, "unexpected error: %s", err.msg);
	cr_assert_not_null(t);
	return t;
}

static struct kf_task *accepts(const char *path, const char *value)
{
	char *text = spec_with(path, value);
	struct kf_task *t = parse_ok(text);
	free(text);
	return t;
}

static struct kf_task *load_real(const char *name)
{
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_find(NULL, name, &t, &err), KF_OK, "%s: %s", name, err.msg);
	return t;
}

/* ---- the real specs ---- */

Test(task, loads_the_four_starter_specs_with_their_signatures)
{
	const char *names[] = { "vector_add", "softmax_rows", "layernorm_bf16", "matmul_bf16" };
	const int n_in[] = { 2, 1, 3, 2 }, n_sym[] = { 1, 2, 2, 3 };
	for (int i = 0; i < 4; i++) {
		struct kf_task *t = load_real(names[i]);
		cr_expect_str_eq(t->name, names[i]);
		cr_expect_eq(t->level, 1);
		cr_expect_eq(t->n_inputs, n_in[i], "%s", names[i]);
		cr_expect_eq(t->n_outputs, 1, "%s", names[i]);
		cr_expect_eq(t->n_symbols, n_sym[i], "%s", names[i]);
		cr_expect(t->n_stress >= 1, "%s has no stress inputs", names[i]);
		cr_expect(kf_task_has_backend(t, KF_BACKEND_CPU));
		cr_expect(t->min_runtime_ms[KF_BACKEND_CPU] > 0);
		kf_task_free(t);
	}
}

Test(task, reads_matmul_fields_into_the_struct)
{
	struct kf_task *t = load_real("matmul_bf16");
	cr_expect_str_eq(t->symbols[0], "M");
	cr_expect_str_eq(t->symbols[2], "K");
	cr_expect_str_eq(t->tensors[0].name, "A");
	cr_expect_eq(t->tensors[0].dtype, KF_DTYPE_BF16);
	cr_expect_str_eq(t->tensors[1].dims[0], "K");
	cr_expect(t->tensors[2].is_output);
	cr_expect_eq(t->tensors[0].dist.kind, KF_DIST_NORMAL);
	cr_expect_eq(t->tensors[0].dist.b, 1.0);
	cr_expect_eq(t->bench[KF_BACKEND_CUDA].v[0], 4096);
	cr_expect_eq(kf_task_flops(t, &t->bench[KF_BACKEND_CUDA]), 2.0 * 4096 * 4096 * 4096);
	cr_expect_eq(kf_task_bytes(t, &t->bench[KF_BACKEND_CPU]), 2.0 * 3 * 1024 * 1024);
	cr_expect_eq(kf_task_numel(t, 1, &t->shapes[KF_SET_RAGGED][0]), 100 * 33);
	cr_expect_eq(t->tol[KF_DTYPE_BF16].rtol, 1e-2);
	cr_expect(t->tol[KF_DTYPE_BF16].set);
	cr_expect(!t->tol[KF_DTYPE_F32].set);
	cr_expect_str_eq(t->vendor_baseline, "cublas_gemm_bf16");
	cr_expect(!t->vendor_libs_allowed);
	cr_expect_eq(t->determinism, KF_DET_TOLERANCE);
	cr_expect_str_eq(t->reference[KF_BACKEND_CPU], "reference_kernels/cpu/matmul_bf16.c");
	cr_expect_str_eq(t->stress[0].name, "large_magnitude");
	cr_expect(t->stress[0].overrides[0] && t->stress[0].overrides[1] && !t->stress[0].overrides[2]);
	cr_expect_eq(t->stress[0].dist[0].b, 10.0);
	kf_task_free(t);
}

Test(task, hashes_and_keeps_the_spec_bytes)
{
	struct kf_task *t = load_real("vector_add");
	char *text;
	size_t len;
	char hex[KF_SHA256_HEX_LEN];
	cr_assert_eq(kf_read_file(t->path, KF_TASK_MAX_BYTES, &text, &len, NULL), KF_OK);
	kf_sha256_hex(text, len, hex);
	cr_expect_str_eq(t->spec_hash, hex);
	cr_expect_str_eq(t->spec_text, text);
	cr_expect_eq(t->determinism, KF_DET_BITWISE);
	free(text);
	kf_task_free(t);
}

Test(task, lists_the_suite_sorted_by_level_then_name)
{
	struct kf_task **ts;
	int n;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_list(NULL, &ts, &n, &err), KF_OK, "%s", err.msg);
	int found = 0;
	for (int i = 0; i < n; i++) {
		if (i > 0)
			cr_expect(ts[i - 1]->level < ts[i]->level ||
					  (ts[i - 1]->level == ts[i]->level &&
					   strcmp(ts[i - 1]->name, ts[i]->name) < 0),
				  "%s before %s", ts[i - 1]->name, ts[i]->name);
		found += !strcmp(ts[i]->name, "vector_add") || !strcmp(ts[i]->name, "matmul_bf16") ||
			 !strcmp(ts[i]->name, "softmax_rows") || !strcmp(ts[i]->name, "layernorm_bf16");
	}
	cr_expect_eq(found, 4);
	kf_task_list_free(ts, n);
}

Test(task, finds_reference_and_oracle_files_of_the_starter_tasks)
{
	const char *names[] = { "vector_add", "softmax_rows", "layernorm_bf16", "matmul_bf16" };
	for (int i = 0; i < 4; i++) {
		struct kf_task *t = load_real(names[i]);
		kf_err err = { 0 };
		cr_expect_eq(kf_task_check_files(t, KF_BACKEND_CPU, &err), KF_OK, "%s", err.msg);
		kf_task_free(t);
	}
}

/* ---- the base spec and defaults ---- */

Test(task, accepts_the_base_spec_and_fills_defaults)
{
	struct kf_task *t = parse_ok(base_spec);
	cr_expect_null(t->bytes_expr);
	/* A: 64*64 bf16, B: 64*64 bf16, idx: 64 i32, C: 64*64 bf16 */
	cr_expect_eq(kf_task_bytes(t, &t->shapes[KF_SET_TEST][0]), 3 * 4096 * 2 + 64 * 4.0);
	cr_expect(!t->vendor_libs_allowed);
	cr_expect_eq(t->determinism, KF_DET_TOLERANCE);
	cr_expect_null(t->vendor_baseline);
	cr_expect(!kf_task_has_backend(t, KF_BACKEND_CUDA));
	cr_expect_eq(t->tensors[2].dist.kind, KF_DIST_INT);
	cr_expect_eq(t->n_shapes[KF_SET_RAGGED], 2);
	kf_task_free(t);
}

Test(task, accepts_policy_determinism_ties_and_integer_dims)
{
	struct kf_task *t = accepts("policy", "{\"vendor_libs\": true}");
	cr_expect(t->vendor_libs_allowed);
	kf_task_free(t);
	t = accepts("determinism", "\"bitwise\"");
	cr_expect_eq(t->determinism, KF_DET_BITWISE);
	kf_task_free(t);
	t = accepts("inputs[0].dist", "{\"kind\": \"ties\", \"lo\": -1, \"hi\": 1, \"levels\": 3}");
	cr_expect_eq(t->tensors[0].dist.kind, KF_DIST_TIES);
	cr_expect_eq(t->tensors[0].dist.levels, 3);
	kf_task_free(t);
	t = accepts("inputs[2].shape", "[\"M\", 4]");
	cr_expect_str_eq(t->tensors[2].dims[1], "4");
	kf_task_free(t);
}

/* ---- rejections, one per rule ---- */

Test(task, rejects_invalid_json_with_line_and_column)
{
	expect_error("{\n  \"name\": \"toy\",\n  \"level\": ,\n}", "3:12", "invalid JSON");
	expect_error("{\"name\": \"toy\"", "1:14", "invalid JSON");
	expect_error("", "1:1", "invalid JSON: unexpected end of file");
	expect_error("{} trailing", "1:4", "invalid JSON near 't'");
}

Test(task, rejects_a_top_level_that_is_not_an_object)
{
	expect_error("[1, 2]", "(top level)", "must be a JSON object");
}

Test(task, rejects_unknown_fields_and_suggests_the_near_one)
{
	rejects("tolerence", "{}", "tolerence", "unknown field (did you mean \"tolerance\"?)");
	rejects("inputs[0].dtpye", "\"f32\"", "inputs[0].dtpye", "did you mean \"dtype\"?");
	rejects("shapes.secret", "[]", "shapes.secret", "unknown field");
	rejects("outputs[0].dist", "{\"kind\": \"normal\", \"mean\": 0, \"std\": 1}", "outputs[0].dist",
		"unknown field");
	rejects("inputs[0].dist.lo", "0", "inputs[0].dist.lo", "unknown field");
}

Test(task, rejects_duplicate_fields)
{
	const char *p = strchr(base_spec, '{');
	char text[sizeof base_spec + 32];
	snprintf(text, sizeof text, "{\"level\": 1,%s", p + 1);
	expect_error(text, "level", "duplicate field");
}

Test(task, rejects_a_missing_required_field)
{
	const char *required[] = { "name", "level", "description", "symbols", "inputs", "outputs",
				   "shapes", "tolerance", "flops", "oracle", "min_runtime_ms" };
	for (size_t i = 0; i < sizeof required / sizeof *required; i++)
		rejects(required[i], NULL, required[i], "missing");
	rejects("shapes.hidden", NULL, "shapes.hidden", "missing");
	rejects("inputs[0].dist", NULL, "inputs[0].dist", "missing");
	rejects("tolerance.bf16.rtol", NULL, "tolerance.bf16.rtol", "missing");
}

Test(task, rejects_a_bad_name_or_one_that_differs_from_the_file)
{
	rejects("name", "\"Toy\"", "name", "must use only a-z, 0-9 and _");
	rejects("name", "\"to-y\"", "name", "must use only a-z, 0-9 and _");
	rejects("name", "\"other\"", "name", "\"other\" differs from the file name (toy.json)");
	rejects("name", "7", "name", "must be a non-empty string");
}

Test(task, rejects_a_level_out_of_range_or_outside_its_folder)
{
	rejects("level", "0", "level", "must be an integer between 1 and 4");
	rejects("level", "5", "level", "must be an integer between 1 and 4"); /* 4: multi-GPU (docs/multi-gpu.md) */
	rejects("level", "1.5", "level", "must be an integer between 1 and 4");
	rejects("level", "2", "level", "2, but the file is in level1/");
	struct kf_task *t = NULL;
	char *text = spec_with("level", "2");
	cr_expect_eq(kf_task_parse("elsewhere/toy.json", text, strlen(text), &t, NULL), KF_OK);
	free(text);
	kf_task_free(t);
}

Test(task, rejects_a_description_that_would_end_the_header_comment)
{
	rejects("description", "\"a */ b\"", "description", "must not contain \"/*\" or \"*/\"");
	rejects("description", "\"a /* b\"", "description", "must not contain \"/*\" or \"*/\"");
	rejects("description", "\"\"", "description", "must be a non-empty string");
}

Test(task, rejects_bad_symbols)
{
	rejects("symbols", "[]", "symbols", "must be an array of 1 to 12 symbol names");
	rejects("symbols", "[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",\"k\",\"l\",\"m\"]", "symbols",
		"1 to 12 symbol names");
	rejects("symbols[1]", "{\"name\": \"N\", \"min\": 2}", "symbols[1].min", "must be an integer between 0 and 1");
	rejects("symbols[1]", "{\"name\": \"N\", \"mni\": 0}", "symbols[1].mni", "did you mean \"min\"");
	rejects("symbols", "[\"M\", \"N\", \"K\", \"M\"]", "symbols[3]", "duplicate symbol \"M\"");
	rejects("symbols[1]", "\"2N\"", "symbols[1]", "is not a C identifier");
	rejects("symbols[1]", "\"int\"", "symbols[1]", "keyword or reserved name");
	rejects("symbols[1]", "\"stream\"", "symbols[1]", "reserved for the CUDA stream");
	rejects("symbols[1]", "\"kf_n\"", "symbols[1]", "are reserved");
}

Test(task, rejects_bad_tensor_names)
{
	rejects("inputs[1].name", "\"A\"", "inputs[1].name", "duplicate tensor name \"A\"");
	rejects("outputs[0].name", "\"B\"", "outputs[0].name", "duplicate tensor name \"B\"");
	rejects("inputs[1].name", "\"K\"", "inputs[1].name", "\"K\" is also a shape symbol");
	rejects("inputs[1].name", "\"float\"", "inputs[1].name", "keyword");
	rejects("inputs[1].name", "\"template\"", "inputs[1].name", "keyword");
	rejects("outputs[0].name", "\"threadIdx\"", "outputs[0].name", "keyword");
	rejects("outputs[0].name", "\"stream\"", "outputs[0].name", "reserved for the CUDA stream");
	rejects("inputs[1].name", "\"workspace\"", "inputs[1].name", "reserved for the CUDA scratch-memory parameter");
	rejects("outputs[0].name", "\"my out\"", "outputs[0].name", "is not a C identifier");
	rejects("outputs[0].name", "\"_C\"", "outputs[0].name", "are reserved");
}

Test(task, rejects_missing_or_too_many_tensors)
{
	rejects("inputs", "[]", "inputs", "must be a non-empty array of tensors");
	rejects("outputs", "[]", "outputs", "must be a non-empty array of tensors");
	/* 3 inputs + 13 outputs is the limit of 16; a 14th output is one too many. */
	kf_buf outs = KF_BUF_INIT;
	for (int i = 1; i <= 14; i++)
		kf_buf_addf(&outs, "%s{\"name\": \"o%d\", \"dtype\": \"bf16\", \"shape\": [\"M\"]}", i > 1 ? "," : "[", i);
	kf_buf_adds(&outs, "]");
	char *text = spec_with("outputs", outs.data);
	expect_error(text, "outputs[13]", "more than 16 tensors in all");
	free(text);
	kf_buf_free(&outs);
}

Test(task, rejects_a_bad_dtype_or_shape)
{
	rejects("inputs[0].dtype", "\"fp32\"", "inputs[0].dtype", "\"fp32\" is not a dtype");
	rejects("inputs[0].shape", "[]", "inputs[0].shape", "must be an array of 1 to 6 dimensions");
	rejects("inputs[0].shape", "[\"M\", \"N\", \"K\", \"M\", \"N\", 1, 1]", "inputs[0].shape",
		"1 to 6 dimensions");
	rejects("inputs[0].shape[1]", "\"Q\"", "inputs[0].shape[1]", "unknown symbol 'Q' at column 1");
	rejects("inputs[0].shape[1]", "\"K*\"", "inputs[0].shape[1]", "expression ends early");
	rejects("inputs[0].shape[1]", "\"(K\"", "inputs[0].shape[1]", "expected ')'");
	rejects("inputs[0].shape[1]", "\"K K\"", "inputs[0].shape[1]", "unexpected 'K' at column 3");
	rejects("inputs[0].shape[1]", "-3", "inputs[0].shape[1]", "must be an integer between 0 and");
}

Test(task, rejects_shape_objects_that_do_not_give_every_symbol_a_positive_integer)
{
	rejects("shapes.test[0].N", NULL, "shapes.test[0].N", "missing");
	rejects("shapes.test[0].Q", "4", "shapes.test[0].Q", "not a declared symbol");
	rejects("shapes.test[0].N", "0", "shapes.test[0].N", "must be a positive integer");
	rejects("shapes.test[0].N", "-8", "shapes.test[0].N", "must be a positive integer");
	rejects("shapes.test[0].N", "1.5", "shapes.test[0].N", "must be a positive integer");
	rejects("shapes.test[0].N", "\"64\"", "shapes.test[0].N", "must be a positive integer");
	rejects("shapes.ragged[1].N", "3000000000", "shapes.ragged[1].N", "must be at most 2147483647");
	rejects("shapes.bench.cpu.K", NULL, "shapes.bench.cpu.K", "missing");
	rejects("shapes.bench.cpu", NULL, "shapes.bench.cpu", "missing");
	rejects("shapes.test[0]", "[64, 64, 64]", "shapes.test[0]", "must be an object");
}

Test(task, rejects_empty_shape_sets)
{
	rejects("shapes.test", "[]", "shapes.test", "must be an array of 1 to");
	rejects("shapes.ragged", "[]", "shapes.ragged", "must be an array of 1 to");
	rejects("shapes.hidden", "[]", "shapes.hidden", "must be an array of 1 to");
}

Test(task, rejects_a_ragged_shape_made_only_of_multiples_of_8)
{
	rejects("shapes.ragged[1]", "{\"M\": 8, \"N\": 16, \"K\": 64}", "shapes.ragged[1]",
		"every value is a multiple of 8");
}

Test(task, rejects_a_hidden_shape_equal_to_a_visible_one)
{
	rejects("shapes.hidden[0]", "{\"M\": 128, \"N\": 64, \"K\": 32}", "shapes.hidden[0]",
		"same as shapes.test[1]");
	rejects("shapes.hidden[0]", "{\"M\": 256, \"N\": 256, \"K\": 256}", "shapes.hidden[0]",
		"same as shapes.bench.cpu");
	rejects("shapes.hidden[0]", "{\"M\": 65, \"N\": 64, \"K\": 64}", "shapes.hidden[0]",
		"same as shapes.ragged[0]");
}

Test(task, rejects_tensors_with_no_elements_or_more_than_int32_max)
{
	rejects("inputs[2].shape[0]", "\"M-64\"", "shapes.test[0]",
		"idx would have 0 elements; it must have 1 to 2147483647");
	rejects("shapes.bench.cpu", "{\"M\": 100000, \"N\": 256, \"K\": 100000}", "shapes.bench.cpu",
		"A would have 10000000000 elements");
	rejects("inputs[2].shape[0]", "\"M/(K-K)\"", "shapes.bench.cpu",
		"dimension 0 of idx (\"M/(K-K)\"): division by zero");
	rejects("inputs[2].shape", "[\"M*M*M\", \"M*M*M\", \"M*M*M\"]", "shapes.bench.cpu",
		"idx would have more than");
}

Test(task, rejects_missing_or_invalid_tolerances)
{
	rejects("tolerance", "{}", "tolerance", "no entry for bf16 (the dtype of output C)");
	rejects("tolerance.f32", "{\"atol\": 0, \"rtol\": 0}", "tolerance.f32", "no output has dtype f32");
	rejects("tolerance.fp16", "{\"atol\": 0, \"rtol\": 0}", "tolerance.fp16", "is neither a dtype");
	rejects("tolerance.A", "{\"atol\": 0, \"rtol\": 0}", "tolerance.A", "A is an input; tolerances are for outputs");
	rejects("tolerance.bf16.atol", "-1e-3", "tolerance.bf16.atol", "must not be negative");
	char *inf = replace_once(base_spec, "\"rtol\": 0.01", "\"rtol\": 1e999");
	expect_error(inf, "tolerance.bf16.rtol", "must be a finite number");
	free(inf);
	rejects("tolerance.bf16.rtol", "\"0.01\"", "tolerance.bf16.rtol", "must be a finite number");
}

Test(task, rejects_flops_and_bytes_that_do_not_evaluate_to_non_negative_integers)
{
	rejects("flops", "\"2*M*N*Q\"", "flops", "unknown symbol 'Q' at column 7");
	rejects("flops", "\"0-M\"", "flops", "at shapes.bench.cpu: -256 is negative");
	rejects("flops", "\"M/(N-64)\"", "flops", "at shapes.test[0]: division by zero");
	rejects("flops", "\"M*N*K*M*N*K*M*N\"", "flops", "integer overflow");
	rejects("flops", "[]", "flops", "must be an expression");
	rejects("bytes", "\"M ** 2\"", "bytes", "expected a number, a symbol or '(' at column 4");
	rejects("bytes", "\"M % (K - 64)\"", "bytes", "at shapes.test[0]: division by zero");
}

Test(task, rejects_insane_distribution_parameters)
{
	rejects("inputs[0].dist.std", "0", "inputs[0].dist.std", "must be positive");
	rejects("inputs[0].dist.std", "-1", "inputs[0].dist.std", "must be positive");
	rejects("inputs[1].dist.hi", "-1", "inputs[1].dist.hi", "must be greater than lo");
	rejects("inputs[0].dist", "{\"kind\": \"ties\", \"lo\": 0, \"hi\": 1, \"levels\": 1}",
		"inputs[0].dist.levels", "must be an integer between 2 and");
	rejects("inputs[0].dist", "{\"kind\": \"int\", \"lo\": 0, \"hi\": 1}", "inputs[0].dist.kind",
		"the int distribution is for integer tensors");
	rejects("inputs[2].dist", "{\"kind\": \"normal\", \"mean\": 0, \"std\": 1}",
		"inputs[2].dist.kind", "i32 tensors take the int distribution");
	rejects("inputs[2].dist.hi", "0.5", "inputs[2].dist.hi", "must be an integer between");
	rejects("inputs[0].dist.kind", "\"gaussian\"", "inputs[0].dist.kind", "is not a distribution");
	rejects("inputs[0].dist.mean", "1e39", "inputs[0].dist", "do not fit in bf16");
	rejects("inputs[2].dist.fan_in", "\"K\"", "inputs[2].dist.fan_in", "unknown field");
	rejects("inputs[0].dist.fan_in", "\"Q\"", "inputs[0].dist.fan_in", "unknown symbol");
	rejects("inputs[0].dist.fan_in", "\"K - 64\"", "inputs[0].dist.fan_in", "at shapes.test[0]: 0 is below 1");
	rejects("inputs[0].dist.fan_in", "\"K+K+K+K+K+K+K+K+K+K+K+K+K+K+K+K+K\"", "inputs[0].dist.fan_in",
		"longer than 31 characters");
}

Test(task, reads_transcendental_counts_and_the_compute_dtype)
{
	struct kf_task *t = parse_ok(base_spec);
	cr_expect_eq(t->compute_dtype, KF_DTYPE_BF16, "the first input's dtype when unset");
	cr_expect_eq(kf_task_sfu_ops(t, &t->shapes[KF_SET_TEST][0]), 0.0);
	kf_task_free(t);
	t = accepts("sfu_ops", "\"M*N\"");
	cr_expect_eq(kf_task_sfu_ops(t, &t->shapes[KF_SET_TEST][1]), 128.0 * 64);
	kf_task_free(t);
	t = accepts("compute_dtype", "\"f32\"");
	cr_expect_eq(t->compute_dtype, KF_DTYPE_F32);
	kf_task_free(t);
	rejects("compute_dtype", "\"i32\"", "compute_dtype", "is not an arithmetic dtype");
	rejects("compute_dtype", "\"fp8\"", "compute_dtype", "is not an arithmetic dtype");
	rejects("compute_dtype", "\"e8m0\"", "compute_dtype", "is not an arithmetic dtype");
	t = accepts("compute_dtype", "\"fp8_e4m3\"");
	cr_expect_eq(t->compute_dtype, KF_DTYPE_FP8_E4M3, "an 8-bit GEMM is bounded by the 8-bit tensor-core rate");
	kf_task_free(t);
	rejects("sfu_ops", "\"M - 100\"", "sfu_ops", "is negative");
}

Test(task, divides_a_normal_std_by_the_square_root_of_its_fan_in_at_each_shape)
{
	struct kf_task *t = accepts("inputs[0].dist.fan_in", "\"K\"");
	const struct kf_shape *k64 = &t->shapes[KF_SET_TEST][0], *k32 = &t->shapes[KF_SET_TEST][1];
	cr_expect_float_eq(kf_task_dist(t, 0, NULL, k64).b, 1.0 / 8, 1e-12);
	cr_expect_float_eq(kf_task_dist(t, 0, NULL, k32).b, 1.0 / sqrt(32), 1e-12);
	cr_expect_eq(kf_task_dist(t, 0, NULL, k64).a, 0.0);
	/* A stress override replaces the whole distribution, fan-in included. */
	cr_expect_eq(kf_task_dist(t, 0, &t->stress[0], k64).b, 100.0);
	cr_expect_eq(kf_task_dist(t, 1, &t->stress[0], k64).b, 1.0);
	kf_task_free(t);
}

Test(task, rejects_stress_variants_with_duplicate_names_or_unknown_inputs)
{
	rejects("stress[1]", "{\"name\": \"big\", \"inputs\": {\"B\": {\"kind\": \"uniform\", \"lo\": 0, \"hi\": 1}}}",
		"stress[1].name", "duplicate stress name \"big\"");
	rejects("stress[0].inputs.C", "{\"kind\": \"normal\", \"mean\": 0, \"std\": 1}",
		"stress[0].inputs.C", "not an input tensor");
	rejects("stress[0].inputs.X", "{\"kind\": \"normal\", \"mean\": 0, \"std\": 1}",
		"stress[0].inputs.X", "not an input tensor");
	rejects("stress[0].inputs", "{}", "stress[0].inputs", "must override at least one input");
	rejects("stress[0].inputs.A.std", "0", "stress[0].inputs.A.std", "must be positive");
	rejects("stress[0].name", "\"Big\"", "stress[0].name", "must use only a-z, 0-9 and _");
}

Test(task, rejects_reference_paths_that_leave_the_tree_or_have_the_wrong_type)
{
	rejects("reference.cpu", "\"/etc/passwd.c\"", "reference.cpu", "must be a path relative");
	rejects("reference.cpu", "\"../outside.c\"", "reference.cpu", "without \"..\"");
	rejects("reference.cpu", "\"a/../../b.c\"", "reference.cpu", "without \"..\"");
	rejects("reference.cpu", "\"reference_kernels/cpu/toy.cu\"", "reference.cpu", "must name a .c file");
	rejects("oracle", "\"reference_kernels/oracle/toy.py\"", "oracle", "must name a .c file");
	rejects("vendor_baseline", "\"cuBLAS\"", "vendor_baseline", "must use only a-z, 0-9 and _");
}

Test(task, rejects_a_cuda_reference_without_a_cuda_bench_shape_and_the_reverse)
{
	rejects("reference.cuda", "\"reference_kernels/cuda/toy.cu\"", "reference.cuda",
		"given, but shapes.bench.cuda is missing");
	rejects("shapes.bench.cuda", "{\"M\": 1024, \"N\": 1024, \"K\": 1024}", "shapes.bench.cuda",
		"given, but reference.cuda is missing");
	rejects("min_runtime_ms.cuda", "0.02", "min_runtime_ms.cuda", "given, but reference.cuda is missing");
}

Test(task, rejects_bad_policy_determinism_and_min_runtime)
{
	rejects("policy", "{\"vendor_libs\": \"yes\"}", "policy.vendor_libs", "must be true or false");
	rejects("policy", "{\"vendor_lib\": true}", "policy.vendor_lib", "did you mean \"vendor_libs\"?");
	rejects("determinism", "\"exact\"", "determinism", "is not \"tolerance\" or \"bitwise\"");
	rejects("min_runtime_ms.cpu", "0", "min_runtime_ms.cpu", "must be positive");
	rejects("min_runtime_ms.cpu", NULL, "min_runtime_ms.cpu", "missing");
}

Test(task, keeps_error_messages_on_one_line_for_hostile_strings)
{
	rejects("name", "\"a\\nb\"", "name", "must use only a-z");
	rejects("inputs[0].dtype", "\"f\\n32\"", "inputs[0].dtype", "\"f?32\" is not a dtype");
	rejects("shapes.test[0].bad\nkey", "1", "shapes.test[0].bad?key", "not a declared symbol");
}

Test(task, rejects_an_oversized_file)
{
	size_t n = KF_TASK_MAX_BYTES + 1;
	char *big = malloc(n + 1);
	memset(big, ' ', n);
	big[n] = '\0';
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	cr_expect_eq(kf_task_parse(SPEC_PATH, big, n, &t, &err), KF_EINPUT);
	cr_expect_not_null(strstr(err.msg, "larger than the limit"), "%s", err.msg);
	free(big);
}

/* ---- expressions ---- */

static int64_t eval_ok(const struct kf_task *t, const char *expr)
{
	struct kf_shape s = { { 3, 5, 7 } }; /* M, N, K */
	int64_t v = -12345;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_eval(t, expr, &s, &v, &err), KF_OK, "%s: %s", expr, err.msg);
	return v;
}

static void eval_fails(const struct kf_task *t, const char *expr, const char *reason)
{
	struct kf_shape s = { { 3, 5, 7 } };
	int64_t v;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_eval(t, expr, &s, &v, &err), KF_EINPUT, "%s evaluated", expr);
	cr_expect_not_null(strstr(err.msg, reason), "%s: expected \"%s\" in \"%s\"", expr, reason,
			   err.msg);
	cr_expect_not_null(strstr(err.msg, expr), "the message should quote the expression: %s",
			   err.msg);
}

Test(task, evaluates_integer_expressions_with_precedence_and_symbols)
{
	struct kf_task *t = parse_ok(base_spec);
	cr_expect_eq(eval_ok(t, "2+3*4"), 14);
	cr_expect_eq(eval_ok(t, "(2+3)*4"), 20);
	cr_expect_eq(eval_ok(t, "2*M*N*K"), 210);
	cr_expect_eq(eval_ok(t, " K / 2 "), 3);
	cr_expect_eq(eval_ok(t, "K % M"), 1);
	cr_expect_eq(eval_ok(t, "10-4-3"), 3);
	cr_expect_eq(eval_ok(t, "100/10/5"), 2);
	cr_expect_eq(eval_ok(t, "-M+N"), 2);
	cr_expect_eq(eval_ok(t, "2*-(M-N)"), 4);
	cr_expect_eq(eval_ok(t, "((((K))))"), 7);
	cr_expect_eq(eval_ok(t, "9223372036854775807"), INT64_MAX);
	cr_expect_eq(eval_ok(t, "0-9223372036854775807-1"), INT64_MIN);
	kf_task_free(t);
}

Test(task, reports_expression_errors)
{
	struct kf_task *t = parse_ok(base_spec);
	eval_fails(t, "M/(N-N)", "division by zero");
	eval_fails(t, "M%0", "division by zero");
	eval_fails(t, "9223372036854775807+1", "integer overflow");
	eval_fails(t, "4611686018427387904*2", "integer overflow");
	eval_fails(t, "(0-9223372036854775807-1)/(0-1)", "integer overflow");
	eval_fails(t, "-(0-9223372036854775807-1)", "integer overflow");
	eval_fails(t, "99999999999999999999", "integer literal too large");
	eval_fails(t, "M*Q", "unknown symbol 'Q' at column 3");
	eval_fails(t, "", "expression ends early");
	eval_fails(t, "M+", "expression ends early");
	eval_fails(t, "(M", "expected ')'");
	eval_fails(t, "M)", "unmatched ')'");
	eval_fails(t, "M N", "unexpected 'N'");
	eval_fails(t, "2.5", "unexpected '.'");
	eval_fails(t, "M^2", "unexpected '^'");
	char deep[256] = "";
	for (int i = 0; i < 100; i++)
		strcat(deep, "(");
	eval_fails(t, deep, "nested deeper than");
	kf_task_free(t);
}

/* ---- find, list, check_files over a scratch task tree ---- */

static void write_spec(const char *dir, const char *level, const char *name, int level_n)
{
	char path[PATH_MAX], sub[PATH_MAX];
	snprintf(sub, sizeof sub, "%s/%s", dir, level);
	cr_assert_eq(kf_mkdir_p(sub, NULL), KF_OK);
	cJSON *root = cJSON_Parse(base_spec);
	cJSON_ReplaceItemInObjectCaseSensitive(root, "name", cJSON_CreateString(name));
	cJSON_ReplaceItemInObjectCaseSensitive(root, "level", cJSON_CreateNumber(level_n));
	char *text = cJSON_Print(root);
	snprintf(path, sizeof path, "%s/%s.json", sub, name);
	cr_assert_eq(kf_write_file(path, text, strlen(text), NULL), KF_OK);
	free(text);
	cJSON_Delete(root);
}

static void scratch_dir(char *out, size_t n)
{
	cr_assert_eq(kf_mkdtemp("/tmp", "kf-test-task-", out, n, NULL), KF_OK);
}

Test(task, lists_a_tree_sorted_and_finds_by_name)
{
	char dir[PATH_MAX];
	scratch_dir(dir, sizeof dir);
	write_spec(dir, "level2", "alpha", 2);
	write_spec(dir, "level1", "zeta", 1);
	write_spec(dir, "level1", "beta", 1);
	struct kf_task **ts;
	int n;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_list(dir, &ts, &n, &err), KF_OK, "%s", err.msg);
	cr_assert_eq(n, 3);
	cr_expect_str_eq(ts[0]->name, "beta");
	cr_expect_str_eq(ts[1]->name, "zeta");
	cr_expect_str_eq(ts[2]->name, "alpha");
	kf_task_list_free(ts, n);

	struct kf_task *t;
	cr_assert_eq(kf_task_find(dir, "alpha", &t, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(t->level, 2);
	kf_task_free(t);
	cr_expect_eq(kf_task_find(dir, "gamma", &t, &err), KF_EINPUT);
	cr_expect_not_null(strstr(err.msg, "no task named \"gamma\""), "%s", err.msg);
	cr_expect_eq(kf_task_find(dir, "../level1/beta", &t, &err), KF_EINPUT);
	cr_expect_null(t);
	kf_rm_rf(dir);
}

Test(task, fails_a_listing_on_a_broken_spec_or_a_name_defined_twice)
{
	char dir[PATH_MAX], path[PATH_MAX];
	scratch_dir(dir, sizeof dir);
	write_spec(dir, "level1", "beta", 1);
	write_spec(dir, "level2", "beta", 2);
	struct kf_task **ts;
	int n;
	kf_err err = { 0 };
	cr_expect_eq(kf_task_list(dir, &ts, &n, &err), KF_EINPUT);
	cr_expect_not_null(strstr(err.msg, "task beta is defined twice"), "%s", err.msg);
	struct kf_task *t;
	cr_expect_eq(kf_task_find(dir, "beta", &t, &err), KF_EINPUT);
	cr_expect_not_null(strstr(err.msg, "defined twice"), "%s", err.msg);

	snprintf(path, sizeof path, "%s/level2/beta.json", dir);
	cr_assert_eq(kf_write_file(path, "{\"name\": 1}", 11, NULL), KF_OK);
	cr_expect_eq(kf_task_list(dir, &ts, &n, &err), KF_EINPUT);
	cr_expect_not_null(strstr(err.msg, "beta.json:name: must be a non-empty string"), "%s",
			   err.msg);
	cr_expect_eq(kf_task_list("/nonexistent/kforge/tasks", &ts, &n, &err), KF_EINPUT);
	kf_rm_rf(dir);
}

Test(task, reports_a_missing_file_and_missing_reference_sources)
{
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	cr_expect_eq(kf_task_load_file("/nonexistent/level1/x.json", &t, &err), KF_EINPUT);
	cr_expect_not_null(strstr(err.msg, "/nonexistent/level1/x.json"), "%s", err.msg);

	t = parse_ok(base_spec);
	cr_expect_eq(kf_task_check_files(t, KF_BACKEND_CPU, &err), KF_EINPUT);
	cr_expect_not_null(strstr(err.msg, SPEC_PATH ":reference.cpu: reference_kernels/cpu/toy.c not found"),
			   "%s", err.msg);
	cr_expect_eq(kf_task_check_files(t, KF_BACKEND_CUDA, &err), KF_EINPUT);
	cr_expect_not_null(strstr(err.msg, "has no cuda reference"), "%s", err.msg);
	kf_task_free(t);
}

Test(task, names_backends_dtypes_and_shape_sets)
{
	enum kf_backend b;
	enum kf_dtype d;
	cr_expect_eq(kf_backend_parse("cuda", &b), 0);
	cr_expect_eq(b, KF_BACKEND_CUDA);
	cr_expect_eq(kf_backend_parse("rocm", &b), -1);
	cr_expect_str_eq(kf_backend_name(KF_BACKEND_CPU), "cpu");
	cr_expect_eq(kf_dtype_parse("bf16", &d), 0);
	cr_expect_eq(d, KF_DTYPE_BF16);
	cr_expect_eq(kf_dtype_parse("float", &d), -1);
	cr_expect_eq(kf_dtype_size(KF_DTYPE_F16), 2);
	cr_expect_eq(kf_dtype_size(KF_DTYPE_I32), 4);
	cr_expect_str_eq(kf_shape_set_name(KF_SET_RAGGED), "ragged");
	struct kf_task *t = parse_ok(base_spec);
	kf_buf b2 = KF_BUF_INIT;
	kf_task_shape_format(t, &t->shapes[KF_SET_RAGGED][1], &b2);
	cr_expect_str_eq(b2.data, "M=8 N=8 K=3");
	kf_buf_free(&b2);
	kf_task_free(t);
}

/* ---- format v2: every error at once, suites, sizes, zero symbols, constraints ---- */

Test(task, reports_every_error_of_a_spec_in_one_run)
{
	char *a = replace_once(base_spec, "\"dtype\": \"bf16\"", "\"dtype\": \"fp32\"");
	char *b = replace_once(a, "\"flops\": \"2*M*N*K\"", "\"flops\": \"2*Q\"");
	char *c = replace_once(b, "\"level\": 1", "\"level\": 7");
	char *d = replace_once(c, "A @ B", "A */ B");
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_parse(SPEC_PATH, d, strlen(d), &t, &err), KF_EINPUT);
	const char *want[] = { SPEC_PATH ":level: must be an integer between 1 and 4",
			       SPEC_PATH ":inputs[0].dtype: \"fp32\" is not a dtype",
			       SPEC_PATH ":flops: \"2*Q\": unknown symbol 'Q'",
			       SPEC_PATH ":description: must not contain" };
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		cr_expect_not_null(strstr(err.msg, want[i]), "missing \"%s\" in:\n%s", want[i], err.msg);
	free(a), free(b), free(c), free(d);
}

Test(task, reports_a_field_that_fails_at_many_shapes_once)
{
	char *text = spec_with("flops", "\"M-200\"");
	expect_error(text, "flops", "at shapes.test[0]: -136 is negative");
	free(text);
}

Test(task, accepts_twelve_symbols_six_dimensions_and_sixteen_tensors)
{
	char *a = spec_with("symbols", "[\"M\",\"N\",\"K\",\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"]");
	char *b = replace_once(a, "\"M\", \"K\"]", "\"M\", \"K\", \"a\", \"b\", \"c\", \"d\"]");
	cJSON *root = cJSON_Parse(b);
	/* every shape gives the eight new symbols a value */
	const char *sets[] = { "test", "ragged", "hidden" };
	cJSON *shapes = cJSON_GetObjectItem(root, "shapes");
	for (int s = -1; s < 3; s++) {
		cJSON *arr = s < 0 ? cJSON_GetObjectItem(cJSON_GetObjectItem(shapes, "bench"), "cpu") : cJSON_GetObjectItem(shapes, sets[s]);
		cJSON *items = s < 0 ? NULL : arr->child;
		for (cJSON *sh = s < 0 ? arr : items; sh; sh = s < 0 ? NULL : sh->next)
			for (const char *p = "abcdefghi"; *p; p++) {
				char name[2] = { *p, 0 };
				cJSON_AddNumberToObject(sh, name, 2);
			}
	}
	cJSON *outs = cJSON_GetObjectItem(root, "outputs");
	for (int i = 0; i < 12; i++) {
		char o[128];
		snprintf(o, sizeof o, "{\"name\": \"extra%d\", \"dtype\": \"bf16\", \"shape\": [\"M\"]}", i);
		cJSON_AddItemToArray(outs, cJSON_Parse(o));
	}
	char *text = cJSON_Print(root);
	struct kf_task *t = parse_ok(text);
	cr_expect_eq(t->n_symbols, 12);
	cr_expect_eq(t->tensors[0].ndim, 6);
	cr_expect_eq(t->n_inputs + t->n_outputs, 16);
	kf_task_free(t);
	cJSON_Delete(root);
	free(text), free(a), free(b);
}

Test(task, lets_a_symbol_declared_with_min_0_be_0_and_its_tensors_empty)
{
	char *a = replace_once(base_spec, "[\"M\", \"N\", \"K\"]", "[{\"name\": \"M\", \"min\": 0}, \"N\", \"K\"]");
	char *b = replace_once(a, "{\"M\": 8, \"N\": 8, \"K\": 3}", "{\"M\": 0, \"N\": 8, \"K\": 3}");
	struct kf_task *t = parse_ok(b);
	cr_expect_eq(t->symbol_min[0], 0);
	cr_expect_eq(t->symbol_min[1], 1);
	cr_expect_eq(t->shapes[KF_SET_RAGGED][1].v[0], 0);
	cr_expect_eq(kf_task_numel(t, 0, &t->shapes[KF_SET_RAGGED][1]), 0);
	kf_task_free(t);
	/* N was not declared with min 0 */
	char *c = replace_once(b, "\"N\": 8, \"K\": 3", "\"N\": 0, \"K\": 3");
	expect_error(c, "shapes.ragged[1].N", "must be a positive integer");
	free(a), free(b), free(c);
}

Test(task, checks_constraints_between_symbols_at_every_shape)
{
	struct kf_task *t = accepts("constraints", "[\"K <= M\", \"(M + K) % 1 == 0\"]");
	cr_expect_eq(t->n_constraints, 2);
	int failed;
	kf_err err = { 0 };
	struct kf_shape bad = { .v = { 4, 4, 5 } };
	cr_expect_eq(kf_task_check_constraints(t, &bad, &failed, &err), KF_EINPUT);
	cr_expect_eq(failed, 0);
	cr_expect_not_null(strstr(err.msg, "\"K <= M\" does not hold (5 <= 4 is false)"), "%s", err.msg);
	kf_task_free(t);
	rejects("constraints", "[\"M % 8 == 0\"]", "constraints[0]",
		"at shapes.ragged[0]: \"M % 8 == 0\" does not hold (1 == 0 is false)");
	rejects("constraints", "[\"M < N < K\"]", "constraints[0]", "must be one comparison");
	rejects("constraints", "[\"M + 1\"]", "constraints[0]", "must be one comparison");
	rejects("constraints", "[\"M == Q\"]", "constraints[0]", "unknown symbol 'Q'");
	rejects("constraints", "\"M > 0\"", "constraints", "must be an array");
}

Test(task, lists_every_good_task_and_reports_every_broken_one)
{
	char dir[PATH_MAX], path[PATH_MAX];
	scratch_dir(dir, sizeof dir);
	write_spec(dir, "level1", "good", 1);
	write_spec(dir, "level1", "bad_one", 1);
	write_spec(dir, "level2", "bad_two", 2);
	snprintf(path, sizeof path, "%s/level1/bad_one.json", dir);
	cr_assert_eq(kf_write_file(path, "{\"name\": 1}", 11, NULL), KF_OK);
	snprintf(path, sizeof path, "%s/level2/bad_two.json", dir);
	const char *bad_two = "{\"name\": \"bad_two\", \"level\": 1}";
	cr_assert_eq(kf_write_file(path, bad_two, strlen(bad_two), NULL), KF_OK);
	struct kf_task **ts;
	int n, broken;
	kf_buf report = KF_BUF_INIT;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_list_report(dir, &ts, &n, &report, &broken, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(n, 1);
	cr_expect_str_eq(ts[0]->name, "good");
	cr_expect_eq(broken, 2);
	cr_expect_not_null(strstr(report.data, "bad_one.json:name: must be a non-empty string"), "%s", report.data);
	cr_expect_not_null(strstr(report.data, "bad_two.json:level: 1, but the file is in level2/"), "%s", report.data);
	cr_expect_not_null(strstr(report.data, "bad_two.json:symbols: missing"), "%s", report.data);
	kf_buf_free(&report);
	kf_task_list_free(ts, n);
	kf_rm_rf(dir);
}

Test(task, finds_sources_under_the_suite_when_not_under_kforge_home)
{
	char dir[PATH_MAX], path[PATH_MAX];
	scratch_dir(dir, sizeof dir);
	write_spec(dir, "level1", "toy", 1);
	kf_tasks_set_dir(dir);
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	cr_assert_eq(kf_task_find(NULL, "toy", &t, &err), KF_OK, "%s", err.msg);
	cr_expect_eq(kf_task_check_files(t, KF_BACKEND_CPU, &err), KF_EINPUT);
	cr_expect_not_null(strstr(err.msg, "not found under"), "%s", err.msg);
	const char *files[] = { "reference_kernels/cpu/toy.c", "reference_kernels/oracle/toy.c" };
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		char *slash = strrchr(path, '/');
		*slash = '\0';
		cr_assert_eq(kf_mkdir_p(path, NULL), KF_OK);
		*slash = '/';
		cr_assert_eq(kf_write_file(path, "int x;\n", 7, NULL), KF_OK);
	}
	cr_expect_eq(kf_task_check_files(t, KF_BACKEND_CPU, &err), KF_OK, "%s", err.msg);
	char found[PATH_MAX];
	cr_expect_eq(kf_task_source_path(t, files[1], found, sizeof found), 0);
	cr_expect_str_eq(found, path);
	kf_task_free(t);
	kf_tasks_set_dir(NULL);
	kf_rm_rf(dir);
}

Test(task, gives_each_v2_dtype_its_distribution_rules_and_rejects_packed_outputs)
{
	struct kf_task *t = accepts("inputs[2].dtype", "\"i64\"");
	cr_expect_eq(t->tensors[2].dtype, KF_DTYPE_I64);
	kf_task_free(t);
	t = accepts("inputs[0].dtype", "\"fp8_e5m2\"");
	cr_expect_eq(kf_dtype_size(t->tensors[0].dtype), 1);
	cr_expect_eq(t->compute_dtype, KF_DTYPE_BF16, "the first input with an arithmetic dtype");
	kf_task_free(t);
	rejects("inputs[2]", "{\"name\": \"idx\", \"dtype\": \"u8\", \"shape\": [\"M\"], \"dist\": {\"kind\": \"int\", \"lo\": 0, \"hi\": 256}}",
		"inputs[2].dist.hi", "must be an integer between 0 and 255");
	rejects("inputs[2].dtype", "\"bool\"", "inputs[2].dist.hi", "must be an integer between 0 and 1");
	rejects("inputs[2]", "{\"name\": \"idx\", \"dtype\": \"i8\", \"shape\": [\"M\"], \"dist\": {\"kind\": \"uniform\", \"lo\": 0, \"hi\": 1}}",
		"inputs[2].dist.kind", "i8 tensors take the int distribution");
	/* the stress variant's std 100 reaches 800, beyond fp8_e4m3's 448 */
	rejects("inputs[0].dtype", "\"fp8_e4m3\"", "stress[0].inputs.A", "do not fit in fp8_e4m3");
	rejects("inputs[0].dist", "{\"kind\": \"int\", \"lo\": 0, \"hi\": 3}", "inputs[0].dist.kind",
		"the int distribution is for integer tensors");
	rejects("outputs[0].dtype", "\"fp4_e2m1x2\"", "outputs[0].dtype", "is for inputs only");
	rejects("outputs[0].dtype", "\"e8m0\"", "outputs[0].dtype", "is for inputs only");
	rejects("inputs[2]", "{\"name\": \"idx\", \"dtype\": \"i64\", \"shape\": [\"M\"], \"dist\": {\"kind\": \"int\", \"lo\": 0, \"hi\": 1e17}}",
		"inputs[2].dist.hi", "must be an integer between -9007199254740992 and 9007199254740992");
	rejects("inputs[0]", "{\"name\": \"A\", \"dtype\": \"fp8_e5m2\", \"shape\": [\"M\", \"K\"], \"dist\": {\"kind\": \"uniform\", \"lo\": 0, \"hi\": 60000}}",
		"inputs[0].dist", "values up to 60000 do not fit in fp8_e5m2");
	rejects("inputs[1]", "{\"name\": \"B\", \"dtype\": \"e8m0\", \"shape\": [\"K\", \"N\"], \"dist\": {\"kind\": \"int\", \"lo\": 0, \"hi\": 128}}",
		"inputs[1].dist.hi", "must be an integer between -127 and 127");
	rejects("inputs[2].dtype", "\"fp4\"", "inputs[2].dtype", "\"fp4\" is not a dtype (f32, bf16, f16, i32, i8, u8, bool, i64");
}

Test(task, passes_scalar_parameters_after_the_symbols_fixed_or_drawn_per_shape)
{
	struct kf_task *t = accepts("scalars", "[{\"name\": \"eps\", \"type\": \"float\", \"value\": 1e-5},"
					       " {\"name\": \"kh\", \"type\": \"int\", \"value\": \"K/2\"},"
					       " {\"name\": \"alpha\", \"type\": \"float\", \"dist\": {\"kind\": \"uniform\", \"lo\": 1, \"hi\": 2}}]");
	cr_assert_eq(t->n_scalars, 3);
	long long ints[KF_TASK_MAX_INTS];
	const struct kf_shape *s = &t->shapes[KF_SET_TEST][0];
	cr_assert_eq(kf_task_call_ints(t, s, ints), 6);
	cr_expect_eq(ints[0], 64);
	double eps, alpha, again;
	memcpy(&eps, &ints[3], sizeof eps);
	cr_expect_eq(eps, 1e-5);
	cr_expect_eq(ints[4], 32);
	memcpy(&alpha, &ints[5], sizeof alpha);
	cr_expect(alpha >= 1 && alpha < 2, "%g", alpha);
	again = kf_task_scalar(t, 2, s);
	cr_expect_eq(alpha, again, "a drawn scalar is the same at every call at one shape");
	cr_expect_neq(alpha, kf_task_scalar(t, 2, &t->shapes[KF_SET_TEST][1]), "and differs across shapes");
	kf_task_free(t);
	rejects("scalars", "[{\"name\": \"M\", \"type\": \"float\", \"value\": 1}]", "scalars[0].name", "already a symbol or tensor");
	rejects("scalars", "[{\"name\": \"e\", \"type\": \"double\", \"value\": 1}]", "scalars[0].type", "is not \"float\" or \"int\"");
	rejects("scalars", "[{\"name\": \"e\", \"type\": \"float\"}]", "scalars[0]", "exactly one of \"value\"");
	rejects("scalars", "[{\"name\": \"e\", \"type\": \"int\", \"value\": \"Q\"}]", "scalars[0].value", "unknown symbol 'Q'");
}

/* ---- format v2 distributions, generators, per-output tolerance, workspace ---- */

static void draw_input(const struct kf_task *t, int i, const struct kf_shape *s, void *dst)
{
	struct kf_sampler *sm = kf_sampler_new();
	kf_rng r;
	kf_rng_seed(&r, 11);
	struct kf_dist d = kf_task_dist(t, i, NULL, s);
	kf_tensor_fill(sm, &r, &d, t->tensors[i].dtype, dst, kf_task_numel(t, i, s));
	kf_sampler_free(sm);
}

Test(task, draws_constants_choices_and_int_bounds_that_follow_the_shape)
{
	struct kf_task *t = accepts("inputs[2].dist", "{\"kind\": \"int\", \"lo\": 0, \"hi\": \"K-1\"}");
	const struct kf_shape *s = &t->shapes[KF_SET_TEST][1]; /* K = 32 */
	struct kf_dist d = kf_task_dist(t, 2, NULL, s);
	cr_expect_eq(d.a, 0);
	cr_expect_eq(d.b, 31);
	int32_t idx[128];
	draw_input(t, 2, s, idx);
	for (int i = 0; i < 128; i++)
		cr_assert(idx[i] >= 0 && idx[i] <= 31);
	kf_task_free(t);
	t = accepts("inputs[1].dist", "{\"kind\": \"choice\", \"values\": [-1, 1]}");
	uint16_t b[64 * 64];
	draw_input(t, 1, &t->shapes[KF_SET_TEST][0], b);
	for (int i = 0; i < 64 * 64; i++)
		cr_assert(kf_tensor_get(KF_DTYPE_BF16, b, i) == 1 || kf_tensor_get(KF_DTYPE_BF16, b, i) == -1);
	kf_task_free(t);
	t = accepts("inputs[1].dist", "{\"kind\": \"constant\", \"value\": 0.5}");
	draw_input(t, 1, &t->shapes[KF_SET_TEST][0], b);
	cr_expect_eq(kf_tensor_get(KF_DTYPE_BF16, b, 77), 0.5);
	kf_task_free(t);
	t = accepts("inputs[1].dist", "{\"kind\": \"uniform\", \"lo\": -1, \"hi\": 1, \"fan_in\": \"K\"}");
	d = kf_task_dist(t, 1, NULL, &t->shapes[KF_SET_TEST][0]); /* K = 64 */
	cr_expect_eq(d.b, 0.125);
	kf_task_free(t);
	rejects("inputs[2].dist", "{\"kind\": \"int\", \"lo\": 0, \"hi\": \"K-100\"}", "inputs[2].dist",
		"at shapes.test[0]: int bounds [0, -36] must have lo <= hi");
	rejects("inputs[2].dist", "{\"kind\": \"choice\", \"values\": [0.5]}", "inputs[2].dist.values[0]", "is not a i32 value");
	rejects("inputs[1].dist", "{\"kind\": \"choice\", \"values\": []}", "inputs[1].dist.values", "1 to 16 numbers");
	rejects("inputs[1].dist", "{\"kind\": \"constant\"}", "inputs[1].dist.value", "missing");
	rejects("inputs[1].dist", "{\"kind\": \"gamma\"}", "inputs[1].dist.kind", "is not a distribution");
}

Test(task, generates_structured_inputs_rows_permutations_offsets_routing_pages_and_scales)
{
	const struct kf_shape *s;
	struct kf_task *t = accepts("inputs[1].dist", "{\"kind\": \"normalized_rows\", \"row\": \"N\"}");
	s = &t->shapes[KF_SET_TEST][0]; /* K = N = 64: B is K x N */
	static uint16_t b[64 * 64];
	draw_input(t, 1, s, b);
	double norm = 0;
	for (int i = 0; i < 64; i++)
		norm += kf_tensor_get(KF_DTYPE_BF16, b, 64 + i) * kf_tensor_get(KF_DTYPE_BF16, b, 64 + i);
	cr_expect(fabs(norm - 1) < 0.02, "row norm^2 %g", norm);
	kf_task_free(t);

	int32_t idx[128];
	bool seen[128] = { false };
	t = accepts("inputs[2].dist", "{\"kind\": \"permutation\"}");
	draw_input(t, 2, &t->shapes[KF_SET_TEST][1], idx); /* M = 128 */
	for (int i = 0; i < 128; i++) {
		cr_assert(idx[i] >= 0 && idx[i] < 128 && !seen[idx[i]]);
		seen[idx[i]] = true;
	}
	kf_task_free(t);
	t = accepts("inputs[2].dist", "{\"kind\": \"sorted_offsets\", \"total\": \"K*10\"}");
	draw_input(t, 2, &t->shapes[KF_SET_TEST][1], idx);
	cr_expect_eq(idx[0], 0);
	cr_expect_eq(idx[127], 320);
	for (int i = 1; i < 128; i++)
		cr_assert(idx[i] >= idx[i - 1]);
	kf_task_free(t);
	t = accepts("inputs[2]", "{\"name\": \"idx\", \"dtype\": \"i32\", \"shape\": [\"M\", 4],"
				 " \"dist\": {\"kind\": \"topk_indices\", \"k\": 4, \"range\": \"K+4\"}}");
	static int32_t top[128 * 4];
	draw_input(t, 2, &t->shapes[KF_SET_TEST][1], top); /* K + 4 = 36 experts */
	for (int r = 0; r < 128; r++)
		for (int a = 0; a < 4; a++) {
			cr_assert(top[4 * r + a] >= 0 && top[4 * r + a] < 36);
			for (int c = 0; c < a; c++)
				cr_assert_neq(top[4 * r + a], top[4 * r + c], "row %d repeats an expert", r);
		}
	kf_task_free(t);
	t = accepts("inputs[2].dist", "{\"kind\": \"page_table\", \"range\": \"M*4\"}");
	draw_input(t, 2, &t->shapes[KF_SET_TEST][1], idx);
	memset(seen, 0, sizeof seen);
	bool pages[512] = { false };
	for (int i = 0; i < 128; i++) {
		cr_assert(idx[i] >= 0 && idx[i] < 512 && !pages[idx[i]]);
		pages[idx[i]] = true;
	}
	kf_task_free(t);
	t = accepts("inputs[1].dist", "{\"kind\": \"topk_weights\", \"k\": 8}");
	draw_input(t, 1, &t->shapes[KF_SET_TEST][0], b);
	double sum = 0;
	for (int i = 0; i < 8; i++)
		sum += kf_tensor_get(KF_DTYPE_BF16, b, 8 + i);
	cr_expect(fabs(sum - 1) < 0.02, "weights sum to %g", sum);
	cr_expect(kf_tensor_get(KF_DTYPE_BF16, b, 8) >= kf_tensor_get(KF_DTYPE_BF16, b, 15));
	kf_task_free(t);
	t = accepts("inputs[1].dist", "{\"kind\": \"block_scales\", \"lo\": -2, \"hi\": 2}");
	draw_input(t, 1, &t->shapes[KF_SET_TEST][0], b);
	for (int i = 0; i < 64; i++) {
		double v = kf_tensor_get(KF_DTYPE_BF16, b, i);
		cr_assert(v >= 0.25 && v <= 4 && v == ldexp(1, ilogb(v)));
	}
	kf_task_free(t);
	rejects("inputs[2].dist", "{\"kind\": \"topk_indices\", \"k\": 4, \"range\": 3}", "inputs[2].dist",
		"4 distinct indices per row need range >= 4, not 3");
	rejects("inputs[2].dist", "{\"kind\": \"permutation\", \"row\": 7}", "inputs[2].dist", "at shapes.bench.cpu: rows of 7 do not divide idx's 256 elements");
	rejects("inputs[2].dist", "{\"kind\": \"page_table\", \"range\": \"M-1\"}", "inputs[2].dist", "at shapes.bench.cpu: 256 distinct pages need range >= 256, not 255");
	rejects("inputs[1].dist", "{\"kind\": \"permutation\"}", "inputs[1].dist.kind", "i32 or i64 tensors only");
	rejects("inputs[1].dist", "{\"kind\": \"normalized_rows\"}", "inputs[1].dist.row", "missing");
	rejects("inputs[2].dist", "{\"kind\": \"topk_weights\", \"k\": 4}", "inputs[2].dist.kind", "i32 tensors take the int distribution");
	rejects("inputs[1].dist", "{\"kind\": \"sorted_offsets\", \"total\": \"M\"}", "inputs[1].dist.kind", "i32 or i64 tensors only");
	rejects("inputs[2].dist", "{\"kind\": \"sorted_offsets\", \"total\": \"Q\"}", "inputs[2].dist.total", "unknown symbol 'Q'");
	rejects("inputs[1].dist", "{\"kind\": \"block_scales\", \"lo\": \"K\", \"hi\": 2}", "inputs[1].dist", "must be literal integers");
	rejects("inputs[1].dist", "{\"kind\": \"block_scales\", \"lo\": 2, \"hi\": 1}", "inputs[1].dist.hi", "must be at least lo");
	rejects("inputs[2].dist", "{\"kind\": \"page_table\"}", "inputs[2].dist.range", "missing");
}

Test(task, takes_a_tolerance_per_output_and_a_workspace_expression)
{
	struct kf_task *t = accepts("tolerance.C", "{\"atol\": 0.5, \"rtol\": 0}");
	cr_expect_eq(kf_task_tolerance(t, 3).atol, 0.5);
	kf_task_free(t);
	char *a = spec_with("tolerance", "{\"C\": {\"atol\": 0.5, \"rtol\": 0}}");
	t = parse_ok(a);
	cr_expect_eq(kf_task_tolerance(t, 3).atol, 0.5, "an output's own entry stands in for its dtype's");
	kf_task_free(t);
	free(a);
	t = accepts("workspace", "\"4*M*N\"");
	cr_expect_eq(kf_task_workspace(t, &t->shapes[KF_SET_TEST][0]), 4 * 64 * 64);
	kf_task_free(t);
	rejects("workspace", "\"M-1000\"", "workspace", "is negative");
}

Test(task, a_workspace_is_one_more_buffer_on_cuda_only)
{
	struct kf_task *t = accepts("workspace", "\"4*M*N\"");
	cr_expect_eq(kf_task_n_bufs(t, KF_BACKEND_CUDA), 5, "A, B, idx, C, then the workspace");
	cr_expect_eq(kf_task_n_bufs(t, KF_BACKEND_CPU), 4, "the CPU ABI has no workspace");
	/* shapes: bench 256x256, test 64x64 and 128x64, ragged 65x64 and 8x8, hidden 96x64 */
	cr_expect_eq(kf_task_workspace_max(t, KF_BACKEND_CPU), 4 * 256 * 256, "the largest shape's");
	kf_task_free(t);
	t = accepts("reference", NULL);
	cr_expect_eq(kf_task_n_bufs(t, KF_BACKEND_CUDA), 4, "no workspace in the spec, none in the call");
	cr_expect_eq(kf_task_workspace_max(t, KF_BACKEND_CUDA), 0);
	kf_task_free(t);
}

Test(task, a_workspace_needs_a_buffer_slot_of_its_own)
{
	/* 3 inputs + 13 outputs fill the 16 buffers a call can pass; the workspace would be a 17th */
	kf_buf outs = KF_BUF_INIT;
	for (int i = 1; i <= 13; i++)
		kf_buf_addf(&outs, "%s{\"name\": \"o%d\", \"dtype\": \"bf16\", \"shape\": [\"M\"]}", i > 1 ? "," : "[", i);
	kf_buf_adds(&outs, "]");
	char *text = spec_with("outputs", outs.data);
	struct kf_task *t = parse_ok(text);
	kf_task_free(t);
	char *with = replace_once(text, "\"flops\":", "\"workspace\": \"M\", \"flops\":");
	expect_error(with, "workspace", "a task with a workspace has at most 15 tensors");
	free(with);
	free(text);
	kf_buf_free(&outs);
}

Test(task, needs_only_a_spec_and_an_oracle_on_the_cpu)
{
	struct kf_task *t = accepts("reference", NULL);
	cr_expect_null(t->reference[KF_BACKEND_CPU]);
	cr_expect(kf_task_has_backend(t, KF_BACKEND_CPU), "the oracle serves as the CPU reference");
	cr_expect(!kf_task_has_backend(t, KF_BACKEND_CUDA));
	kf_err err = { 0 };
	cr_expect_eq(kf_task_check_files(t, KF_BACKEND_CPU, &err), KF_EINPUT);
	cr_expect_not_null(strstr(err.msg, ":oracle: reference_kernels/oracle/toy.c not found"), "%s", err.msg);
	kf_task_free(t);
	t = accepts("reference.cpu", NULL);
	cr_expect_null(t->reference[KF_BACKEND_CPU]);
	kf_task_free(t);
}
