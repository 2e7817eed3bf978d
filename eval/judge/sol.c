/* Speed-of-light ceilings and scores (see sol.h). */
#include "eval/judge/sol.h"

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "eval/judge/area.h"
#include "sandbox/sandbox.h"

#define KF_CALIB_CPU_SOURCE "eval/judge/calib/cpu_peaks.c"

static void cpu_identity(char *key, size_t klen, char *device, size_t dlen)
{
	char model[200] = "unknown CPU";
	char *text = NULL;
	if (kf_read_file("/proc/cpuinfo", 1u << 22, &text, NULL, NULL) == KF_OK) {
		char *m = strstr(text, "model name");
		char *colon = m ? strchr(m, ':') : NULL;
		if (colon) {
			colon += 2;
			snprintf(model, sizeof model, "%.*s", (int)strcspn(colon, "\n"), colon);
		}
		free(text);
	}
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(device, dlen, "%s (%ld cores)", model, cores);
	snprintf(key, klen, "cpu:%s:%ld", model, cores);
}

static int calibrate_cpu(struct kf_peaks *p, kf_err *err)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", kf_home(), KF_CALIB_CPU_SOURCE);
	char *src = NULL;
	size_t len = 0;
	if (kf_read_file(path, 1u << 20, &src, &len, err) != KF_OK)
		return kf_err_prefix(err, "calibrating the CPU: ");
	struct kf_compile_req req = { .backend = KF_BACKEND_CPU, .source = src, .source_len = len, .header = "",
				      .shim = "" };
	struct kf_compile_res res;
	int rc = kf_compile(&req, &res, err);
	free(src);
	if (rc != KF_OK)
		return kf_err_prefix(err, "calibrating the CPU: ");
	if (res.verdict != KF_V_OK) {
		rc = kf_errf(err, KF_EINTERNAL, "calibrating the CPU: %s: %.300s", res.reason, res.log);
		kf_compile_res_free(&res);
		return rc;
	}
	/* NODELETE: OpenMP's worker threads outlive the call; unloading under them would crash. */
	void *so = dlopen(res.so_path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	kf_compile_res_free(&res);
	double (*bw)(void) = so ? (double (*)(void))dlsym(so, "kf_calib_bandwidth") : NULL;
	double (*fl)(void) = so ? (double (*)(void))dlsym(so, "kf_calib_fp32_flops") : NULL;
	if (!bw || !fl)
		return kf_errf(err, KF_EINTERNAL, "calibrating the CPU: cannot load the probes: %s", dlerror());
	p->bw_bytes_s = bw();
	double f32 = fl();
	if (!(p->bw_bytes_s > 0) || !(f32 > 0))
		return kf_errf(err, KF_EINTERNAL, "calibrating the CPU: the probes measured nothing");
	/* No native bf16/f16 arithmetic assumed on the CPU: converted values go through fp32 FMAs. */
	for (int d = 0; d < KF_DTYPE_COUNT; d++)
		p->flops_s[d] = f32;
	return KF_OK;
}

/* The best ceilings ever measured on this machine, shared by every database through the cache
 * directory: a calibration taken while the machine was busy never lowers them. */
static void best_path(const struct kf_peaks *p, char *out, size_t len)
{
	char hash[65];
	kf_sha256_hex(p->key, strlen(p->key), hash);
	snprintf(out, len, "%s/calibration/%.16s.json", kf_cache_dir(), hash);
}

static void raise_to(struct kf_peaks *p, const struct kf_peaks *q)
{
	if (q->bw_bytes_s > p->bw_bytes_s)
		p->bw_bytes_s = q->bw_bytes_s;
	for (int d = 0; d < KF_DTYPE_COUNT; d++)
		if (q->flops_s[d] > p->flops_s[d])
			p->flops_s[d] = q->flops_s[d];
}

static int peaks_from_json(struct kf_peaks *p, cJSON *j);

static void merge_best(struct kf_peaks *p)
{
	char path[4096];
	best_path(p, path, sizeof path);
	char *text = NULL;
	if (kf_read_file(path, 1u << 20, &text, NULL, NULL) == KF_OK) {
		cJSON *j = cJSON_Parse(text);
		struct kf_peaks best = { 0 };
		if (j && peaks_from_json(&best, j) == 0)
			raise_to(p, &best);
		cJSON_Delete(j);
		free(text);
	}
}

static cJSON *peaks_to_json(const struct kf_peaks *p);

static void save_best(const struct kf_peaks *p)
{
	char path[4096];
	best_path(p, path, sizeof path);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	if (kf_mkdir_p(path, NULL) != KF_OK)
		return;
	*slash = '/';
	cJSON *j = peaks_to_json(p);
	char *text = cJSON_PrintUnformatted(j);
	kf_write_file(path, text, strlen(text), NULL); /* only a hint for the next run: best effort */
	free(text);
	cJSON_Delete(j);
}

static cJSON *peaks_to_json(const struct kf_peaks *p)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "key", p->key);
	cJSON_AddStringToObject(j, "device", p->device);
	cJSON_AddNumberToObject(j, "bw_bytes_s", p->bw_bytes_s);
	cJSON *f = cJSON_AddObjectToObject(j, "flops_s");
	for (int d = 0; d < KF_DTYPE_COUNT; d++)
		cJSON_AddNumberToObject(f, kf_dtype_name((enum kf_dtype)d), p->flops_s[d]);
	cJSON_AddStringToObject(j, "method", "measured: best of copy, triad and read-only streaming (bytes read + written), fused multiply-add over all cores; the best ever seen on this machine");
	return j;
}

static int peaks_from_json(struct kf_peaks *p, cJSON *j)
{
	cJSON *bw = cJSON_GetObjectItem(j, "bw_bytes_s");
	cJSON *f = cJSON_GetObjectItem(j, "flops_s");
	if (!cJSON_IsNumber(bw) || !cJSON_IsObject(f))
		return -1;
	p->bw_bytes_s = bw->valuedouble;
	cJSON *sfu = cJSON_GetObjectItem(j, "sfu_ops_s");
	p->sfu_ops_s = cJSON_IsNumber(sfu) && sfu->valuedouble > 0 ? sfu->valuedouble : 0;
	for (int d = 0; d < KF_DTYPE_COUNT; d++) {
		cJSON *v = cJSON_GetObjectItem(f, kf_dtype_name((enum kf_dtype)d));
		if (!cJSON_IsNumber(v) || !(v->valuedouble > 0))
			return -1;
		p->flops_s[d] = v->valuedouble;
	}
	return p->bw_bytes_s > 0 ? 0 : -1;
}

/* A device describes itself (datasheet peaks + measured copy); the record is kept in the store. */
static int device_peaks(struct kf_store *s, enum kf_backend b, int device, struct kf_peaks *out, kf_err *err)
{
	const struct kf_area_ops *ops;
	char *text = NULL;
	if (kf_area_ops_for(b, &ops, err) != KF_OK)
		return err->code;
	if (ops->describe_device(device, &text, err) != KF_OK)
		return err->code;
	cJSON *j = cJSON_Parse(text);
	const char *key = cJSON_GetStringValue(cJSON_GetObjectItem(j, "key"));
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(j, "device"));
	int rc = KF_OK;
	if (!j || !key || !name || peaks_from_json(out, j) != 0) {
		rc = kf_errf(err, KF_EINTERNAL, "the %s device description is malformed", kf_backend_name(b));
		cJSON_Delete(j);
		goto out;
	}
	snprintf(out->key, sizeof out->key, "%s", key);
	snprintf(out->device, sizeof out->device, "%s", name);
	out->json = j;
	rc = kf_store_put_calibration(s, out->key, text, err);
out:
	free(text);
	return rc;
}

int kf_sol_peaks(struct kf_store *s, enum kf_backend b, int device, struct kf_peaks *out, kf_err *err)
{
	memset(out, 0, sizeof *out);
	if (b != KF_BACKEND_CPU)
		return device_peaks(s, b, device, out, err);
	cpu_identity(out->key, sizeof out->key, out->device, sizeof out->device);
	char *stored = NULL;
	if (kf_store_get_calibration(s, out->key, &stored, err) != KF_OK)
		return err->code;
	bool have = false;
	if (stored) {
		cJSON *j = cJSON_Parse(stored);
		free(stored);
		have = j && peaks_from_json(out, j) == 0; /* an unreadable record is measured again */
		cJSON_Delete(j);
	}
	if (!have && calibrate_cpu(out, err) != KF_OK)
		return err->code;
	merge_best(out);
	save_best(out);
	out->json = peaks_to_json(out);
	char *text = cJSON_PrintUnformatted(out->json);
	int rc = kf_store_put_calibration(s, out->key, text, err);
	free(text);
	return rc;
}

int kf_sol_confirm(struct kf_store *s, enum kf_backend b, struct kf_peaks *p, kf_err *err)
{
	if (b != KF_BACKEND_CPU)
		return KF_OK;
	struct kf_peaks again = *p;
	if (calibrate_cpu(&again, err) != KF_OK)
		return err->code;
	raise_to(p, &again);
	save_best(p);
	cJSON_Delete(p->json);
	p->json = peaks_to_json(p);
	char *text = cJSON_PrintUnformatted(p->json);
	int rc = kf_store_put_calibration(s, p->key, text, err);
	free(text);
	return rc;
}

int kf_sol_multi_peaks(struct kf_store *s, const struct kf_peaks *one, int gpus, const char *multi_json,
		       struct kf_peaks *out, kf_err *err)
{
	cJSON *multi = cJSON_Parse(multi_json);
	double measured = cJSON_GetNumberValue(cJSON_GetObjectItem(multi, "peer_copy_bytes_s"));
	double sheet = cJSON_GetNumberValue(cJSON_GetObjectItem(multi, "nvlink_datasheet_bytes_s"));
	if (!multi || !(measured > 0)) {
		cJSON_Delete(multi);
		return kf_errf(err, KF_EINTERNAL, "the multi-GPU device description is malformed (no measured peer bandwidth)");
	}
	*out = *one;
	out->gpus = gpus;
	/* The measured copy can beat the datasheet a little, as for memory: the higher is the ceiling. */
	out->nvlink_bytes_s = sheet > measured ? sheet : measured;
	snprintf(out->key, sizeof out->key, "%.200s:x%d", one->key, gpus);
	snprintf(out->device, sizeof out->device, "%.200s x %d", one->device, gpus);
	out->json = one->json ? cJSON_Duplicate(one->json, 1) : cJSON_CreateObject();
	if (cJSON_GetObjectItem(out->json, "key"))
		cJSON_ReplaceItemInObject(out->json, "key", cJSON_CreateString(out->key));
	else
		cJSON_AddStringToObject(out->json, "key", out->key);
	if (cJSON_GetObjectItem(out->json, "device"))
		cJSON_ReplaceItemInObject(out->json, "device", cJSON_CreateString(out->device));
	else
		cJSON_AddStringToObject(out->json, "device", out->device);
	cJSON_AddNumberToObject(out->json, "gpus", gpus);
	cJSON_AddNumberToObject(out->json, "nvlink_bytes_s", out->nvlink_bytes_s);
	cJSON_AddItemToObject(out->json, "multi_gpu", multi);
	if (!s)
		return KF_OK;
	char *text = cJSON_PrintUnformatted(out->json);
	int rc = kf_store_put_calibration(s, out->key, text, err);
	free(text);
	return rc;
}

void kf_sol_peaks_free(struct kf_peaks *p)
{
	cJSON_Delete(p->json);
	p->json = NULL;
}

const char *kf_sol_bound_name(enum kf_sol_bound b)
{
	static const char *const names[] = { "memory", "compute", "sfu", "nvlink" };
	return names[b];
}

double kf_sol_time_s(const struct kf_peaks *p, const struct kf_task *t, const struct kf_shape *s,
		     enum kf_sol_bound *bound)
{
	double share = p->gpus > 1 ? p->gpus : 1; /* each GPU's part of the job */
	double terms[] = {
		[KF_BOUND_MEMORY] = kf_task_bytes(t, s) / share / p->bw_bytes_s,
		[KF_BOUND_COMPUTE] = kf_task_flops(t, s) / share / p->flops_s[t->compute_dtype],
		[KF_BOUND_SFU] = p->sfu_ops_s > 0 ? kf_task_sfu_ops(t, s) / share / p->sfu_ops_s : 0,
		[KF_BOUND_NVLINK] = p->gpus > 1 && p->nvlink_bytes_s > 0 ? kf_task_nvlink_bytes(t, s) / p->nvlink_bytes_s : 0,
	};
	*bound = KF_BOUND_MEMORY;
	for (int b = KF_BOUND_COMPUTE; b <= KF_BOUND_NVLINK; b++)
		if (terms[b] > terms[*bound])
			*bound = (enum kf_sol_bound)b;
	return terms[*bound];
}

double kf_sol_score(double t_k, double t_sol, double t_b)
{
	if (!(t_b > t_sol))
		return NAN;
	return 1.0 / (1.0 + (t_k - t_sol) / (t_b - t_sol));
}
