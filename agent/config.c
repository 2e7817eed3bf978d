/* A run's configuration (see agent.h): the option table that is both the JSON schema and the
 * command-line flags, parsing of flag values, and the checked struct the loop runs from. */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "agent/agent.h"
#include "common/clock.h"
#include "eval/judge/judge.h"

#define MAX_EXACT_INT 9007199254740992.0 /* 2^53: larger integers do not survive a JSON number */
#define DEFAULT_SAMPLES 4
#define DEFAULT_ROUNDS 2
#define DEFAULT_KEEP 2
#define DEFAULT_CONCURRENCY 8
#define DEFAULT_TEMPERATURE 0.7
#define DEFAULT_MAX_TOKENS 8192
#define ANTHROPIC_MIN_THINKING 1024
#define CHOICE_MAX 64
#define DEFAULT_VERIFY "standard"
#define VERIFY_CHOICES "off|standard|full"
#define DEFAULT_CPU_WORKERS 1
#define DEFAULT_PROFILE "kept"
#define DEFAULT_MIN_DISTANCE 0.1 /* docs/agent.md says why */
#define NVIDIA_GPUS_DIR "/proc/driver/nvidia/gpus"

static const struct kf_agent_option options[] = {
	{ "model", "model", KF_OPT_STRING, 0, 0, NULL, true, "model name sent to the endpoint (required)" },
	{ "provider", "provider", KF_OPT_CHOICE, 0, 0, "openai|anthropic", true,
	  "wire format: OpenAI-compatible chat completions or Anthropic messages" },
	{ "base-url", "base_url", KF_OPT_STRING, 0, 0, NULL, false,
	  "endpoint, e.g. http://localhost:8000/v1 (default: the provider's public API)" },
	{ "backend", "backend", KF_OPT_CHOICE, 0, 0, "cpu|cuda", true, "where kernels are judged (default cpu)" },
	{ "samples", "samples", KF_OPT_INT, 1, 10000, NULL, false, "requests per task per round (default 4)" },
	{ "rounds", "rounds", KF_OPT_INT, 1, 100, NULL, false,
	  "rounds per task: 1 samples only, each further round refines the best (default 2)" },
	{ "keep", "keep", KF_OPT_INT, 1, 10000, NULL, false, "candidates refined per round (default 2)" },
	{ "concurrency", "concurrency", KF_OPT_INT, 1, 1024, NULL, false, "requests in flight (default 8)" },
	{ "temperature", "temperature", KF_OPT_NUMBER, 0, 2, NULL, false, "sampling temperature (default 0.7)" },
	{ "max-tokens", "max_tokens", KF_OPT_INT, 1, 1e7, NULL, false, "output tokens per reply (default 8192)" },
	{ "reasoning-effort", "reasoning_effort", KF_OPT_CHOICE, 0, 0, "low|medium|high", false,
	  "OpenAI reasoning models: effort (sends max_completion_tokens, no temperature)" },
	{ "thinking-budget", "thinking_budget", KF_OPT_INT, ANTHROPIC_MIN_THINKING, 1e7, NULL, false,
	  "Anthropic extended thinking: budget in tokens (on top of --max-tokens)" },
	{ "budget-usd", "budget_usd", KF_OPT_NUMBER, 1e-9, 1e9, NULL, false,
	  "stop sending requests once the estimated cost reaches this" },
	{ "budget-tokens", "budget_tokens", KF_OPT_INT, 1, MAX_EXACT_INT, NULL, false,
	  "stop sending requests once input + output tokens reach this" },
	{ "max-minutes", "max_minutes", KF_OPT_NUMBER, 1e-3, 1e7, NULL, false,
	  "stop this invocation after this many minutes (resumable)" },
	{ "price-in", "price_in", KF_OPT_NUMBER, 0, 1e6, NULL, false,
	  "USD per million input tokens (overrides the built-in table)" },
	{ "price-out", "price_out", KF_OPT_NUMBER, 0, 1e6, NULL, false, "USD per million output tokens" },
	{ "connect-timeout", "connect_timeout", KF_OPT_NUMBER, 0.01, 600, NULL, false,
	  "seconds to connect to the endpoint (default 10)" },
	{ "stall-timeout", "stall_timeout", KF_OPT_NUMBER, 1, 86400, NULL, false,
	  "seconds without a byte before a request is abandoned and retried (default 300)" },
	{ "request-timeout", "request_timeout", KF_OPT_NUMBER, 1, 86400, NULL, false,
	  "seconds for one attempt end to end (default 900)" },
	{ "max-attempts", "max_attempts", KF_OPT_INT, 1, 100, NULL, false,
	  "HTTP attempts per request, retries included (default 6)" },
	{ "device", "device", KF_OPT_INT, 0, 1024, NULL, false, "GPU ordinal for the cuda backend (default 0)" },
	{ "gpus", "gpus", KF_OPT_STRING, 0, 0, NULL, false,
	  "cuda backend: judge on these GPUs, one worker each: all, a count N (0..N-1) or a list 0,2,3 (default: --device)" },
	{ "workers", "workers", KF_OPT_INT, 1, KF_WORKER_MAX, NULL, false,
	  "judge worker processes, each judging one candidate at a time: on the cpu backend, or Slurm jobs (default 1)" },
	{ "dispatch", "dispatch", KF_OPT_CHOICE, 0, 0, "local|slurm", false,
	  "where judge workers run: here (default) or as Slurm job steps (srun; needs a shared filesystem)" },
	{ "partition", "partition", KF_OPT_STRING, 0, 0, NULL, false, "--dispatch slurm: the partition to run workers in" },
	{ "gpus-per-worker", "gpus_per_worker", KF_OPT_INT, 1, 64, NULL, false,
	  "--dispatch slurm on the cuda backend: GPUs per worker job (default 1)" },
	{ "compile-jobs", "compile_jobs", KF_OPT_INT, 0, KF_WORKER_MAX, NULL, false,
	  "candidates compiled in parallel ahead of the judges (default: this machine's cores; 0: each judge compiles its own)" },
	{ "seeds", "seeds", KF_OPT_INT, 1, 100, NULL, false, "correctness seeds per candidate (default 3)" },
	{ "call-timeout", "call_timeout", KF_OPT_NUMBER, 0.01, 3600, NULL, false,
	  "wall-clock limit of one kf_launch call in seconds (default 10)" },
	{ "timing-budget", "timing_budget", KF_OPT_NUMBER, 0.01, 3600, NULL, false,
	  "seconds spent timing each correct candidate (default 3)" },
	{ "deadline", "deadline", KF_OPT_NUMBER, 1, 86400, NULL, false,
	  "wall-clock limit of one whole evaluation in seconds; past it the verdict is timeout (default 300)" },
	{ "seed", "seed", KF_OPT_INT, 0, MAX_EXACT_INT, NULL, true, "base seed of the judge (default: random, recorded)" },
	{ "verify", "verify", KF_OPT_CHOICE, 0, 0, VERIFY_CHOICES, false,
	  "weak verifiers ranking correct candidates: standard (default), full (+ compute-sanitizer), off" },
	{ "theta", "theta", KF_OPT_NUMBER, 0, 1, NULL, false,
	  "trust threshold for the ranking's P(correct) (default 0.5)" },
	{ "llm-judge-model", "llm_judge_model", KF_OPT_STRING, 0, 0, NULL, false,
	  "LLM-judge verifier: this model, at the run's endpoint, judges correct candidates (default off)" },
	{ "profile", "profile", KF_OPT_CHOICE, 0, 0, "kept|off", false,
	  "profile each correct kept candidate in a separate sandboxed run and quote the metrics in its refinement (default kept)" },
	{ "min-distance", "min_distance", KF_OPT_NUMBER, 0, 1, NULL, false,
	  "diversity: a kept candidate's source differs from each better kept one by at least this share (default 0.1; 0: keep-k-best)" },
	{ "explore", "explore", KF_OPT_NUMBER, 0, 1, NULL, false,
	  "share of each refinement round's requests that sample afresh instead of refining (default 0)" },
	{ "stop-at-sol", "stop_at_sol", KF_OPT_NUMBER, 0, 1, NULL, false,
	  "a task plans no more rounds once its best correct kernel reaches this SOL fraction (default 0: off)" },
	{ NULL, NULL, KF_OPT_STRING, 0, 0, NULL, false, NULL },
};

const struct kf_agent_option *kf_agent_options(void)
{
	return options;
}

static const struct kf_agent_option *find_flag(const char *flag)
{
	for (const struct kf_agent_option *o = options; o->flag; o++)
		if (!strcmp(o->flag, flag))
			return o;
	return NULL;
}

static void put(cJSON *cfg, const char *key, cJSON *v)
{
	if (cJSON_HasObjectItem(cfg, key))
		cJSON_ReplaceItemInObjectCaseSensitive(cfg, key, v);
	else
		cJSON_AddItemToObject(cfg, key, v);
}

cJSON *kf_agent_config_default(void)
{
	struct kf_judge_opts jo;
	struct kf_http_opts ho;
	kf_judge_opts_default(&jo);
	kf_http_opts_default(&ho);
	uint64_t seed;
	if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
		seed = (uint64_t)kf_now_ns();
	cJSON *c = cJSON_CreateObject();
	for (const struct kf_agent_option *o = options; o->flag; o++)
		cJSON_AddNullToObject(c, o->key);
	put(c, "backend", cJSON_CreateString("cpu"));
	put(c, "samples", cJSON_CreateNumber(DEFAULT_SAMPLES));
	put(c, "rounds", cJSON_CreateNumber(DEFAULT_ROUNDS));
	put(c, "keep", cJSON_CreateNumber(DEFAULT_KEEP));
	put(c, "concurrency", cJSON_CreateNumber(DEFAULT_CONCURRENCY));
	put(c, "temperature", cJSON_CreateNumber(DEFAULT_TEMPERATURE));
	put(c, "max_tokens", cJSON_CreateNumber(DEFAULT_MAX_TOKENS));
	put(c, "connect_timeout", cJSON_CreateNumber(ho.connect_timeout_s));
	put(c, "stall_timeout", cJSON_CreateNumber(ho.stall_timeout_s));
	put(c, "request_timeout", cJSON_CreateNumber(ho.request_timeout_s));
	put(c, "max_attempts", cJSON_CreateNumber(ho.max_attempts));
	put(c, "seeds", cJSON_CreateNumber(jo.n_seeds));
	put(c, "call_timeout", cJSON_CreateNumber(jo.call_timeout_s));
	put(c, "timing_budget", cJSON_CreateNumber(jo.timing_budget_s));
	put(c, "deadline", cJSON_CreateNumber(jo.deadline_s));
	put(c, "seed", cJSON_CreateNumber((double)(seed % (uint64_t)MAX_EXACT_INT)));
	put(c, "verify", cJSON_CreateString(DEFAULT_VERIFY));
	put(c, "theta", cJSON_CreateNumber(KF_RANKING_DEFAULT_THETA));
	put(c, "profile", cJSON_CreateString(DEFAULT_PROFILE));
	put(c, "min_distance", cJSON_CreateNumber(DEFAULT_MIN_DISTANCE));
	put(c, "explore", cJSON_CreateNumber(0));
	put(c, "stop_at_sol", cJSON_CreateNumber(0));
	return c;
}

static bool choice_ok(const char *choices, const char *v)
{
	size_t n = strlen(v);
	for (const char *p = choices; *p;) {
		size_t k = strcspn(p, "|");
		if (k == n && !strncmp(p, v, n))
			return true;
		p += k + (p[k] == '|');
	}
	return false;
}

int kf_agent_config_set(cJSON *cfg, const char *flag, const char *value, kf_err *err)
{
	const struct kf_agent_option *o = find_flag(flag);
	if (!o)
		return kf_errf(err, KF_EINTERNAL, "no run option --%s", flag);
	char *end = NULL;
	double v;
	switch (o->type) {
	case KF_OPT_STRING:
		if (!*value)
			return kf_errf(err, KF_EINPUT, "--%s must not be empty", flag);
		put(cfg, o->key, cJSON_CreateString(value));
		return KF_OK;
	case KF_OPT_CHOICE:
		if (!choice_ok(o->choices, value))
			return kf_errf(err, KF_EINPUT, "--%s must be one of %s, not '%.*s'", flag, o->choices, CHOICE_MAX,
				       value);
		put(cfg, o->key, cJSON_CreateString(value));
		return KF_OK;
	case KF_OPT_INT:
		v = strtod(value, &end);
		if (!*value || *end || v != floor(v) || !(v >= o->min && v <= o->max))
			return kf_errf(err, KF_EINPUT, "--%s must be a whole number from %.0f to %.0f, not '%.*s'", flag,
				       o->min, o->max, CHOICE_MAX, value);
		put(cfg, o->key, cJSON_CreateNumber(v));
		return KF_OK;
	case KF_OPT_NUMBER:
		v = strtod(value, &end);
		if (!*value || *end || !isfinite(v) || !(v >= o->min && v <= o->max))
			return kf_errf(err, KF_EINPUT, "--%s must be a number from %g to %g, not '%.*s'", flag, o->min,
				       o->max, CHOICE_MAX, value);
		put(cfg, o->key, cJSON_CreateNumber(v));
		return KF_OK;
	}
	return KF_OK;
}

static const char *get_str(const cJSON *c, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, key));
}

/* A number, or `dflt` when null or absent. */
static double get_num(const cJSON *c, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, key);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* Every present value must have its option's type and range (a stored config may be old or edited). */
static int check_types(const cJSON *c, kf_err *err)
{
	for (const struct kf_agent_option *o = options; o->flag; o++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, o->key);
		if (!v || cJSON_IsNull(v))
			continue;
		bool is_str = o->type == KF_OPT_STRING || o->type == KF_OPT_CHOICE;
		bool ok = is_str ? cJSON_IsString(v) && (o->type == KF_OPT_STRING || choice_ok(o->choices, v->valuestring))
				 : cJSON_IsNumber(v) && v->valuedouble >= o->min && v->valuedouble <= o->max &&
					   (o->type == KF_OPT_NUMBER || v->valuedouble == floor(v->valuedouble));
		if (!ok)
			return kf_errf(err, KF_EINPUT, "run configuration: %s (--%s) has an invalid value", o->key, o->flag);
	}
	return KF_OK;
}

static int read_price(const cJSON *c, struct kf_agent_config *out, kf_err *err)
{
	double in = get_num(c, "price_in", NAN), po = get_num(c, "price_out", NAN);
	if (isnan(in) != isnan(po))
		return kf_errf(err, KF_EINPUT, "--price-in and --price-out go together (USD per million tokens)");
	if (!isnan(in)) {
		out->price = (struct kf_price){ in, po };
		out->price_known = true;
	} else {
		out->price_known = kf_price_lookup(out->params.model, &out->price);
	}
	if (out->budget_usd > 0 && !out->price_known)
		return kf_errf(err, KF_EINPUT,
			       "--budget-usd needs the price of model '%s': pass --price-in and --price-out "
			       "(USD per million tokens)",
			       out->params.model);
	return KF_OK;
}

static int read_params(const cJSON *c, struct kf_agent_config *out, kf_err *err)
{
	struct kf_llm_params *p = &out->params;
	p->model = get_str(c, "model");
	if (!p->model || !*p->model)
		return kf_errf(err, KF_EINPUT, "kforge run needs --model NAME (the model the endpoint serves)");
	p->temperature = get_num(c, "temperature", NAN);
	p->max_tokens = (int)get_num(c, "max_tokens", DEFAULT_MAX_TOKENS);
	p->reasoning_effort = get_str(c, "reasoning_effort");
	p->thinking_budget = (int)get_num(c, "thinking_budget", 0);
	if (p->reasoning_effort && out->provider != KF_PROVIDER_OPENAI)
		return kf_errf(err, KF_EINPUT, "--reasoning-effort is for --provider openai; use --thinking-budget with anthropic");
	if (p->thinking_budget && out->provider != KF_PROVIDER_ANTHROPIC)
		return kf_errf(err, KF_EINPUT, "--thinking-budget is for --provider anthropic; use --reasoning-effort with openai");
	return KF_OK;
}

/* Runs stored before these options existed read as the defaults. */
static void read_ranking(const cJSON *c, struct kf_agent_config *out)
{
	static const char *const levels[] = { [KF_AGENT_VERIFY_OFF] = "off", [KF_AGENT_VERIFY_STANDARD] = "standard",
					      [KF_AGENT_VERIFY_FULL] = "full" };
	const char *verify = get_str(c, "verify");
	out->verify = KF_AGENT_VERIFY_STANDARD;
	for (size_t i = 0; verify && i < sizeof levels / sizeof levels[0]; i++)
		if (!strcmp(verify, levels[i]))
			out->verify = (enum kf_agent_verify)i;
	out->theta = get_num(c, "theta", KF_RANKING_DEFAULT_THETA);
	out->llm_judge_model = get_str(c, "llm_judge_model");
	/* Runs recorded before these options existed read as keep-k-best without profiles. */
	const char *profile = get_str(c, "profile");
	out->profile = profile && !strcmp(profile, "kept");
	out->min_distance = get_num(c, "min_distance", 0);
	out->explore = get_num(c, "explore", 0);
	out->stop_at_sol = get_num(c, "stop_at_sol", 0);
}

/* GPUs on this machine, counted without starting CUDA (the judge workers are forked from this
 * process and each needs a CUDA context of its own): CUDA_VISIBLE_DEVICES when set, else the
 * driver's list. */
static int count_gpus(void)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	int n = 0;
	if (visible) {
		for (const char *p = visible; *p; p += strcspn(p, ","), p += *p == ',')
			n += strcspn(p, ",") > 0;
		return n;
	}
	DIR *d = opendir(NVIDIA_GPUS_DIR);
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* --gpus all|N|LIST into out->devices; without it, one GPU (--device). */
static int read_gpus(const char *gpus, struct kf_agent_config *out, kf_err *err)
{
	out->n_workers = 0;
	if (!gpus) {
		out->devices[out->n_workers++] = out->device;
		return KF_OK;
	}
	bool list = strchr(gpus, ',') != NULL;
	if (!strcmp(gpus, "all") || !list) {
		int n = 0;
		if (!strcmp(gpus, "all")) {
			if ((n = count_gpus()) == 0)
				return kf_errf(err, KF_EINPUT, "--gpus all: no NVIDIA GPU is visible on this machine");
		} else {
			char *end;
			long v = strtol(gpus, &end, 10);
			if (!isdigit((unsigned char)*gpus) || *end || v < 1 || v > KF_WORKER_MAX)
				return kf_errf(err, KF_EINPUT, "--gpus must be all, a count from 1 to %d or a list like 0,1,3, not '%.*s'",
					       KF_WORKER_MAX, CHOICE_MAX, gpus);
			n = (int)v;
		}
		for (int i = 0; i < n && i < KF_WORKER_MAX; i++)
			out->devices[out->n_workers++] = i;
		return KF_OK;
	}
	for (const char *p = gpus; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (!isdigit((unsigned char)*p) || (*end && *end != ',') || v > KF_WORKER_MAX || out->n_workers == KF_WORKER_MAX)
			return kf_errf(err, KF_EINPUT, "--gpus list '%.*s': GPU ordinals separated by commas, like 0,1,3",
				       CHOICE_MAX, gpus);
		for (int i = 0; i < out->n_workers; i++)
			if (out->devices[i] == (int)v)
				return kf_errf(err, KF_EINPUT, "--gpus lists GPU %ld twice", v);
		out->devices[out->n_workers++] = (int)v;
		p = *end ? end + 1 : end;
	}
	return KF_OK;
}

static int read_workers(const cJSON *c, struct kf_agent_config *out, kf_err *err)
{
	const char *gpus = get_str(c, "gpus"), *dispatch = get_str(c, "dispatch");
	int workers = (int)get_num(c, "workers", 0), compile_jobs = (int)get_num(c, "compile_jobs", -1);
	out->slurm = dispatch && !strcmp(dispatch, "slurm");
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	out->compile_jobs = compile_jobs >= 0 ? compile_jobs : cores > 0 ? (int)cores : 1;
	out->partition = get_str(c, "partition");
	out->gpus_per_worker = (int)get_num(c, "gpus_per_worker", 0);
	if (!out->slurm && (out->partition || out->gpus_per_worker))
		return kf_errf(err, KF_EINPUT, "--partition and --gpus-per-worker are for --dispatch slurm");
	if (out->slurm) {
		/* Each worker is a job step that sees its own GPUs from ordinal 0. */
		if (gpus)
			return kf_errf(err, KF_EINPUT, "--dispatch slurm takes --workers N (and --gpus-per-worker), not --gpus");
		/* A worker on another node compiles for itself: this machine's compile cache is not its. */
		if (compile_jobs > 0)
			return kf_errf(err, KF_EINPUT, "--compile-jobs is for judges on this machine; Slurm workers compile on their nodes");
		out->compile_jobs = 0;
		if (out->gpus_per_worker && out->backend != KF_BACKEND_CUDA)
			return kf_errf(err, KF_EINPUT, "--gpus-per-worker is for --backend cuda");
		if (out->backend == KF_BACKEND_CUDA && !out->gpus_per_worker)
			out->gpus_per_worker = 1;
		out->n_workers = workers > 0 ? workers : DEFAULT_CPU_WORKERS;
		for (int i = 0; i < out->n_workers; i++)
			out->devices[i] = 0;
		return KF_OK;
	}
	if (out->backend == KF_BACKEND_CPU) {
		if (gpus)
			return kf_errf(err, KF_EINPUT, "--gpus is for --backend cuda; on the CPU use --workers N");
		out->n_workers = workers > 0 ? workers : DEFAULT_CPU_WORKERS;
		for (int i = 0; i < out->n_workers; i++)
			out->devices[i] = 0;
		return KF_OK;
	}
	if (workers > 0)
		return kf_errf(err, KF_EINPUT, "--workers is for --backend cpu; on GPUs use --gpus (one worker per GPU)");
	return read_gpus(gpus, out, err);
}

int kf_agent_config_read(const cJSON *c, struct kf_agent_config *out, kf_err *err)
{
	memset(out, 0, sizeof *out);
	int rc = check_types(c, err);
	if (rc != KF_OK)
		return rc;
	const char *provider = get_str(c, "provider"), *backend = get_str(c, "backend");
	if (!provider || kf_provider_parse_name(provider, &out->provider) != 0)
		return kf_errf(err, KF_EINPUT, "kforge run needs --provider openai|anthropic");
	if (!backend || kf_backend_parse(backend, &out->backend) != 0)
		return kf_errf(err, KF_EINPUT, "--backend must be cpu or cuda");
	out->base_url = get_str(c, "base_url");
	if (!out->base_url)
		out->base_url = kf_provider_get(out->provider)->default_base_url;
	out->samples = (int)get_num(c, "samples", DEFAULT_SAMPLES);
	out->rounds = (int)get_num(c, "rounds", DEFAULT_ROUNDS);
	out->keep = (int)get_num(c, "keep", DEFAULT_KEEP);
	out->concurrency = (int)get_num(c, "concurrency", DEFAULT_CONCURRENCY);
	out->budget_usd = get_num(c, "budget_usd", 0);
	out->budget_tokens = (int64_t)get_num(c, "budget_tokens", 0);
	out->max_minutes = get_num(c, "max_minutes", 0);
	if ((rc = read_params(c, out, err)) != KF_OK || (rc = read_price(c, out, err)) != KF_OK)
		return rc;
	struct kf_judge_opts jo;
	kf_judge_opts_default(&jo);
	kf_http_opts_default(&out->http);
	out->http.connect_timeout_s = get_num(c, "connect_timeout", out->http.connect_timeout_s);
	out->http.stall_timeout_s = get_num(c, "stall_timeout", out->http.stall_timeout_s);
	out->http.request_timeout_s = get_num(c, "request_timeout", out->http.request_timeout_s);
	out->http.max_attempts = (int)get_num(c, "max_attempts", out->http.max_attempts);
	out->device = (int)get_num(c, "device", jo.device);
	out->judge_seeds = (int)get_num(c, "seeds", jo.n_seeds);
	out->call_timeout_s = get_num(c, "call_timeout", jo.call_timeout_s);
	out->timing_budget_s = get_num(c, "timing_budget", jo.timing_budget_s);
	out->deadline_s = get_num(c, "deadline", jo.deadline_s);
	out->seed = (uint64_t)get_num(c, "seed", 0);
	out->http.jitter_seed = out->seed;
	read_ranking(c, out);
	out->replay = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "replay"));
	return read_workers(c, out, err);
}
