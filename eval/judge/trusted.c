/* Trusted kernels (see trusted.h). */
#include "eval/judge/trusted.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fs.h"
#include "eval/judge/area.h"
#include "sandbox/sandbox.h"

#define KF_TRUSTED_MAX_SOURCE (4u << 20)
#define KF_TRUSTED_INCLUDE_DIR "reference_kernels"

/* Builds source text; rel names it (recorded and in messages). */
static int compile_text(enum kf_backend b, int device, const char *src, size_t len, const char *rel,
			const char *header, const char *shim, bool vendor_libs, char *so_path, size_t so_len,
			cJSON *record, kf_err *err)
{
	char inc[PATH_MAX];
	snprintf(inc, sizeof inc, "%s/%s", kf_home(), KF_TRUSTED_INCLUDE_DIR);
	struct kf_compile_req req = { .backend = b, .source = src, .source_len = len, .header = header,
				      .shim = shim, .include_dir = inc, .vendor_libs = vendor_libs,
				      .cuda_arch = kf_area_arch(b, device) };
	struct kf_compile_res res;
	int rc = kf_compile(&req, &res, err);
	if (rc != KF_OK)
		return rc;
	if (record) {
		cJSON_AddStringToObject(record, "source", rel);
		cJSON_AddBoolToObject(record, "compile_cached", res.cached);
		cJSON_AddNumberToObject(record, "compile_ms", res.ms);
	}
	if (res.verdict != KF_V_OK)
		rc = kf_errf(err, KF_EINTERNAL, "trusted kernel %s does not build (%s): %.400s", rel, res.reason,
			     res.log ? res.log : "");
	else
		snprintf(so_path, so_len, "%s", res.so_path);
	kf_compile_res_free(&res);
	return rc;
}

/* Builds the file at path; rel is how the spec names it. */
static int compile_at(enum kf_backend b, int device, const char *path, const char *rel, const char *header,
		      const char *shim, bool vendor_libs, char *so_path, size_t so_len, cJSON *record, kf_err *err)
{
	char *src = NULL;
	size_t len = 0;
	if (kf_read_file(path, KF_TRUSTED_MAX_SOURCE, &src, &len, err) != KF_OK)
		return kf_err_prefix(err, "loading a trusted kernel: ");
	int rc = compile_text(b, device, src, len, rel, header, shim, vendor_libs, so_path, so_len, record, err);
	free(src);
	return rc;
}

int kf_trusted_compile(enum kf_backend b, int device, const char *rel, const char *header, const char *shim,
		       bool vendor_libs, char *so_path, size_t so_len, cJSON *record, kf_err *err)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", kf_home(), rel);
	return compile_at(b, device, path, rel, header, shim, vendor_libs, so_path, so_len, record, err);
}

/* rel is a source path of t's spec, found in kforge's home or t's suite (kf_task_source_path). */
static int load(const struct kf_task *t, enum kf_backend b, int device, const char *rel, const char *header,
		const char *shim, const char *symbol, struct kf_trusted *out, cJSON *record, kf_err *err)
{
	char path[PATH_MAX];
	kf_task_source_path(t, rel, path, sizeof path);
	int rc;
	if (b == KF_BACKEND_CPU && !strcmp(symbol, KF_SHIM_CALL_SYMBOL) && !t->reference[b]) {
		/* no CPU reference written: the oracle, wrapped to the typed ABI, serves */
		char *src = NULL;
		size_t len = 0;
		kf_buf text = KF_BUF_INIT;
		if (kf_read_file(path, KF_TRUSTED_MAX_SOURCE, &src, &len, err) != KF_OK)
			return kf_err_prefix(err, "loading a trusted kernel: ");
		kf_abi_oracle_reference(t, src, &text);
		free(src);
		rc = compile_text(b, device, text.data, text.len, rel, header, shim, false, out->path, sizeof out->path, record,
				  err);
		kf_buf_free(&text);
	} else {
		rc = compile_at(b, device, path, rel, header, shim, false, out->path, sizeof out->path, record, err);
	}
	if (rc != KF_OK)
		return err->code;
	/* NODELETE: OpenMP's worker threads outlive the call; unloading under them would crash. */
	out->so = dlopen(out->path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	out->call = out->so ? (kf_shim_call_fn)dlsym(out->so, symbol) : NULL;
	if (!out->call)
		return kf_errf(err, KF_EINTERNAL, "trusted kernel %s cannot be loaded: %s", rel, dlerror());
	return KF_OK;
}

int kf_trusted_load_pair(const struct kf_task *t, enum kf_backend b, int device, struct kf_trusted *ref,
			 struct kf_trusted *oracle, cJSON *ref_record, kf_err *err)
{
	if (!kf_task_has_backend(t, b))
		return kf_errf(err, KF_EINPUT, "task %s has no %s reference kernel", t->name, kf_backend_name(b));
	kf_buf hdr = KF_BUF_INIT, shim = KF_BUF_INIT, ohdr = KF_BUF_INIT, oshim = KF_BUF_INIT;
	kf_abi_header(t, b, &hdr);
	kf_abi_shim(t, b, &shim);
	kf_abi_oracle_header(t, &ohdr);
	kf_abi_oracle_shim(t, &oshim);
	/* without a CPU reference, the oracle's source is wrapped into one (see load) */
	const char *ref_src = t->reference[b] ? t->reference[b] : t->oracle;
	int rc = load(t, b, device, ref_src, hdr.data, shim.data, KF_SHIM_CALL_SYMBOL, ref, ref_record, err);
	if (rc == KF_OK)
		rc = load(t, KF_BACKEND_CPU, 0, t->oracle, ohdr.data, oshim.data, KF_ORACLE_CALL_SYMBOL, oracle, NULL,
			  err);
	kf_buf_free(&hdr);
	kf_buf_free(&shim);
	kf_buf_free(&ohdr);
	kf_buf_free(&oshim);
	return rc;
}

void kf_trusted_unload(struct kf_trusted *k)
{
	if (k->so)
		dlclose(k->so); /* drops our reference; RTLD_NODELETE keeps the code mapped */
	memset(k, 0, sizeof *k);
}
