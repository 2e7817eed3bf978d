/* Build-only check of the CUDA example candidates (examples/cuda/<task>.cu), for a machine with nvcc
 * but no GPU: each file goes through what `kforge submit --backend cuda` does before it runs anything,
 * the task's policy check and kf_compile (the compile jail, the generated kf_task.h and shim, the
 * judge's nvcc flags, SASS for GPU 0's architecture or, without a GPU, the default Hopper target, cuBLAS
 * linked where the task allows it).
 * Prints one line per example and the log of each failure; exits 1 when any fails.
 * With --trusted, the task's CUDA reference and vendor baseline are built too, as the judge builds them.
 * Results land in the judge's compile cache (KFORGE_CACHE), keyed by content: a second run only compiles
 * what changed, and a `kforge submit` of the same files on a Hopper GPU finds them built (what
 * bench/judge_examples.sh does on the GPU machine, several of these at once, before judging).
 * Usage: build/bench/cuda_examples_build [--trusted] [TASK...]   (from the repository root, after make bench) */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fs.h"
#include "eval/judge/area.h"
#include "eval/judge/policy.h"
#include "eval/judge/trusted.h"
#include "eval/tasks/abi.h"
#include "eval/tasks/task.h"
#include "sandbox/sandbox.h"

#define EXAMPLES_DIR "examples/cuda"
#define EXAMPLE_EXT ".cu"
#define EXAMPLE_MAX_BYTES (1u << 20)
#define MAX_EXAMPLES 1024
#define LOG_SHOWN_BYTES 4000

/* Builds one trusted kernel of t (rel, relative to kforge's home) as the judge does; 0, or 3 when it does not build. */
static int build_trusted(const struct kf_task *t, const char *what, const char *rel, bool vendor_libs,
			 const char *header, const char *shim)
{
	char so[PATH_MAX];
	kf_err err;
	if (kf_trusted_compile(KF_BACKEND_CUDA, 0, rel, header, shim, vendor_libs, so, sizeof so, NULL, &err) != KF_OK) {
		printf("%-28s %s does not build: %s\n", t->name, what, err.msg);
		return 3;
	}
	return 0;
}

/* One example: 0 when it compiles and links, 1 when it is rejected, 3 on kforge's own failure (a
 * trusted kernel that does not build included). */
static int build_one(const char *name, bool trusted)
{
	kf_err err;
	struct kf_task *t = NULL;
	char *src = NULL, path[PATH_MAX], why[512];
	size_t len = 0;
	kf_buf hdr = KF_BUF_INIT, shim = KF_BUF_INIT;
	struct kf_compile_res res;
	memset(&res, 0, sizeof res);
	int rc = 3;

	snprintf(path, sizeof path, "%s/%s/%s%s", kf_home(), EXAMPLES_DIR, name, EXAMPLE_EXT);
	if (kf_task_find(NULL, name, &t, &err) != KF_OK || kf_read_file(path, EXAMPLE_MAX_BYTES, &src, &len, &err) != KF_OK) {
		printf("%-28s error           %s\n", name, err.msg);
		goto cleanup;
	}
	kf_abi_header(t, KF_BACKEND_CUDA, &hdr);
	kf_abi_shim(t, KF_BACKEND_CUDA, &shim);
	char vendor[PATH_MAX];
	if (trusted && t->reference[KF_BACKEND_CUDA] &&
	    build_trusted(t, "the reference", t->reference[KF_BACKEND_CUDA], false, hdr.data, shim.data))
		goto cleanup;
	if (trusted && kf_task_vendor_source(t, KF_BACKEND_CUDA, vendor, sizeof vendor) &&
	    build_trusted(t, "the vendor baseline", vendor, true, hdr.data, shim.data))
		goto cleanup;
	struct kf_compile_req req = { .backend = KF_BACKEND_CUDA, .source = src, .source_len = len,
				      .header = hdr.data, .shim = shim.data, .vendor_libs = t->vendor_libs_allowed,
				      .cuda_arch = kf_area_arch(KF_BACKEND_CUDA, 0) };
	if (kf_compile(&req, &res, &err) != KF_OK) {
		printf("%-28s error           %s\n", name, err.msg);
		goto cleanup;
	}
	enum kf_verdict v;
	if (kf_policy_verdict(t, &res, &v, why, sizeof why, &err) != KF_OK) {
		printf("%-28s error           %s\n", name, err.msg);
		goto cleanup;
	}
	printf("%-28s %-16s %7.1f s%s\n", name, kf_verdict_name(v), res.ms / 1000.0, res.cached ? " (cached)" : "");
	rc = v == KF_V_OK ? 0 : 1;
	if (rc)
		printf("%s\n%.*s\n", why, LOG_SHOWN_BYTES, res.log ? res.log : "");
cleanup:
	fflush(stdout);
	kf_compile_res_free(&res);
	kf_buf_free(&hdr);
	kf_buf_free(&shim);
	free(src);
	if (t)
		kf_task_free(t);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every examples/cuda/<task>.cu, sorted, into names (each malloc'd); returns the count or -1. */
static int list_examples(char **names)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/%s", kf_home(), EXAMPLES_DIR);
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	const struct dirent *e;
	while ((e = readdir(d)) && n < MAX_EXAMPLES) {
		size_t l = strlen(e->d_name), x = strlen(EXAMPLE_EXT);
		if (l > x && !strcmp(e->d_name + l - x, EXAMPLE_EXT))
			names[n++] = strndup(e->d_name, l - x);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof *names, by_name);
	return n;
}

int main(int argc, char **argv)
{
	static char *names[MAX_EXAMPLES];
	int n = 0, first = 1;
	bool trusted = argc > 1 && !strcmp(argv[1], "--trusted");
	first += trusted;
	if (argc > first) {
		for (int i = first; i < argc && n < MAX_EXAMPLES; i++)
			names[n++] = strdup(argv[i]);
	} else if ((n = list_examples(names)) < 0) {
		fprintf(stderr, "cuda_examples_build: cannot read %s/%s\n", kf_home(), EXAMPLES_DIR);
		return 3;
	}
	int failed = 0, worst = 0;
	for (int i = 0; i < n; i++) {
		int rc = build_one(names[i], trusted);
		failed += rc != 0;
		worst = rc > worst ? rc : worst;
		free(names[i]);
	}
	printf("%d of %d CUDA examples build\n", n - failed, n);
	return worst;
}
