/* The pieces both judges share (declared in judge_common.h): the result record's common fields, the
 * first failure's verdict, warnings, the candidate's compile, the worst-error tally, trial seeds, the
 * canaries' byte and the deadline. */
#include "eval/judge/judge_common.h"

#include <math.h>
#include <stdio.h>
#include <sys/random.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/rng.h"
#include "common/version.h"
#include "eval/judge/area.h"
#include "eval/tasks/abi.h"

bool kf_judge_vreject(enum kf_verdict *verdict, char *reason, size_t reason_len, enum kf_verdict v, const char *fmt,
		      va_list ap)
{
	if (*verdict != KF_V_OK)
		return false;
	*verdict = v;
	vsnprintf(reason, reason_len, fmt, ap);
	return true;
}

void kf_judge_vwarn(cJSON *warnings, const char *fmt, va_list ap)
{
	char text[KF_JUDGE_WARNING_MAX];
	vsnprintf(text, sizeof text, fmt, ap);
	cJSON_AddItemToArray(warnings, cJSON_CreateString(text));
}

int kf_judge_compile(const struct kf_task *t, enum kf_backend b, int device, const char *source, size_t len,
		     const char *const *report_flags, struct kf_compile_res *res, kf_err *err)
{
	kf_buf hdr = KF_BUF_INIT, shim = KF_BUF_INIT;
	kf_abi_header(t, b, &hdr);
	kf_abi_shim(t, b, &shim);
	struct kf_compile_req req = { .backend = b, .source = source, .source_len = len, .header = hdr.data,
				      .shim = shim.data, .vendor_libs = t->vendor_libs_allowed,
				      .cuda_arch = kf_area_arch(b, device), .report_flags = report_flags };
	int rc = kf_compile(&req, res, err);
	kf_buf_free(&hdr);
	kf_buf_free(&shim);
	return rc;
}

void kf_judge_note_error(struct kf_judge_worst *w, const struct kf_cmp *c)
{
	w->max_abs = fmax(w->max_abs, c->max_abs);
	w->max_rel = fmax(w->max_rel, c->max_rel);
	w->max_margin = fmax(w->max_margin, c->margin);
}

/* A trial's seed is recorded as a JSON number: 53 bits keep it exact (a double holds every integer
 * below 2^53), so a recorded trial can be drawn again from its seed. */
uint64_t kf_judge_trial_seed(uint64_t base, int k)
{
	uint64_t x = base + (uint64_t)k * 0x9e3779b97f4a7c15ULL;
	return kf_splitmix64(&x) >> (64 - 53);
}
_Static_assert(KF_SEED_LIMIT == 1ull << 53, "trial seeds keep the base seed's 53 bits");

uint8_t kf_judge_canary_byte(void)
{
	uint8_t b;
	if (getrandom(&b, sizeof b, 0) != (ssize_t)sizeof b)
		b = (uint8_t)kf_now_ns();
	return b;
}

int64_t kf_judge_deadline_ns(const struct kf_judge_opts *o, int64_t now)
{
	return o->deadline_s > 0 ? now + (int64_t)(o->deadline_s * 1e9) : 0;
}

void kf_judge_result_head(cJSON *res, const struct kf_task *t, enum kf_backend b, uint64_t seed)
{
	cJSON_AddStringToObject(res, "task", t->name);
	cJSON_AddStringToObject(res, "task_hash", t->spec_hash);
	cJSON_AddStringToObject(res, "backend", kf_backend_name(b));
	cJSON_AddStringToObject(res, "kforge_version", KF_VERSION_STRING);
	cJSON_AddNumberToObject(res, "seed", (double)seed);
}

void kf_judge_result_compile(cJSON *res, const struct kf_compile_res *c)
{
	cJSON *o = cJSON_AddObjectToObject(res, "compile");
	cJSON_AddNumberToObject(o, "ms", c->ms);
	cJSON_AddBoolToObject(o, "cached", c->cached);
	cJSON_AddStringToObject(o, "flags", c->flags);
	cJSON_AddStringToObject(o, "compiler", c->compiler);
	cJSON_AddStringToObject(o, "key", c->key);
	cJSON_AddStringToObject(o, "log", c->log ? c->log : "");
}

void kf_judge_result_speed(cJSON *res, double t_ms, double ref_ms, double t_sol_ms, enum kf_sol_bound bound)
{
	cJSON_AddNumberToObject(res, "speedup", ref_ms / t_ms);
	cJSON_AddNumberToObject(res, "t_sol_ms", t_sol_ms);
	cJSON_AddNumberToObject(res, "sol_fraction", t_sol_ms / t_ms);
	double score = kf_sol_score(t_ms, t_sol_ms, ref_ms);
	if (isfinite(score))
		cJSON_AddNumberToObject(res, "sol_score", score);
	cJSON_AddStringToObject(res, "bound", kf_sol_bound_name(bound));
}

void kf_judge_result_finish(cJSON *res, enum kf_verdict v, const char *reason, const struct kf_judge_worst *w,
			    cJSON **trials, cJSON **warnings, cJSON **phases)
{
	cJSON_AddStringToObject(res, "verdict", kf_verdict_name(v));
	cJSON_AddStringToObject(res, "reason", v == KF_V_OK ? "passed every check" : reason);
	static const char *const timing_fields[] = { "time_ms", "ref_time_ms", "vendor_time_ms", "speedup",
						     "t_sol_ms", "sol_fraction", "sol_score" };
	for (size_t i = 0; i < sizeof timing_fields / sizeof timing_fields[0]; i++) {
		if (v != KF_V_OK && v != KF_V_FASTER_THAN_LIGHT)
			cJSON_DeleteItemFromObject(res, timing_fields[i]);
		if (!cJSON_GetObjectItem(res, timing_fields[i]))
			cJSON_AddNullToObject(res, timing_fields[i]);
	}
	cJSON_AddNumberToObject(res, "max_abs_err", w->max_abs);
	cJSON_AddNumberToObject(res, "max_rel_err", w->max_rel);
	cJSON_AddNumberToObject(res, "error_margin", w->max_margin);
	cJSON_AddItemToObject(res, "trials", *trials);
	cJSON_AddItemToObject(res, "warnings", *warnings);
	cJSON_AddItemToObject(res, "phases", *phases);
	*trials = *warnings = *phases = NULL;
}
