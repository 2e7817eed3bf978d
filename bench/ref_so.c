/* Prints the shared object kforge builds for a task's CUDA reference kernel, one "TASK PATH" line per
 * task named, so an independent timer (bench/ref_time.cu, run by bench/ref_fidelity.sh) can time the
 * very binary the judge times. It goes through kforge's compile cache only (same request as the judge:
 * the generated header and shim, reference_kernels/ as include directory), never through the judge.
 * Run from the repository root after `make bench`, with the KFORGE_CACHE the submissions used.
 *   build/bench/ref_so TASK...     exit 0 all built, 1 a task failed (its line says why), 2 usage */
#include <stdio.h>

#include "common/buf.h"
#include "eval/tasks/abi.h"
#include "eval/tasks/task.h"
#include "eval/judge/trusted.h"

#define REF_SO_DEVICE 0 /* the judge's default device: the compile targets its architecture */

static int build_one(const char *name)
{
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	kf_buf hdr = KF_BUF_INIT, shim = KF_BUF_INIT;
	char so[PATH_MAX];
	int rc = kf_task_find(NULL, name, &t, &err);
	if (rc == KF_OK && !t->reference[KF_BACKEND_CUDA])
		rc = kf_errf(&err, KF_EINPUT, "no CUDA reference");
	if (rc == KF_OK) {
		kf_abi_header(t, KF_BACKEND_CUDA, &hdr);
		kf_abi_shim(t, KF_BACKEND_CUDA, &shim);
		rc = kf_trusted_compile(KF_BACKEND_CUDA, REF_SO_DEVICE, t->reference[KF_BACKEND_CUDA], hdr.data,
					shim.data, false, so, sizeof so, NULL, &err);
	}
	if (rc == KF_OK)
		printf("%s %s\n", name, so);
	else
		printf("%s - %s\n", name, err.msg);
	kf_buf_free(&hdr);
	kf_buf_free(&shim);
	kf_task_free(t);
	return rc == KF_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ref_so TASK...\n");
		return 2;
	}
	int failed = 0;
	for (int i = 1; i < argc; i++)
		failed |= build_one(argv[i]);
	return failed;
}
