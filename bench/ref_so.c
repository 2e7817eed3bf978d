/* Prints the shared object kforge builds for a task's CUDA reference kernel, one "TASK PATH" line per
 * task named, so an independent timer (bench/ref_time.cu, run by bench/ref_fidelity.sh) can time the
 * very binary the judge times. It goes through kforge's compile cache only (same request as the judge:
 * the generated header and shim, reference_kernels/ as include directory), never through the judge.
 * With --args DIR it also writes the task's inputs at its CUDA bench shape, drawn by kforge's own
 * distributions (index tensors, page tables and sorted offsets must be valid for the kernel to run the
 * work it runs in the judge), to DIR/TASK.in<i>, and appends ref_time's arguments for that call to the
 * line: --ints (symbols, then scalars as the shim takes them) and one --tensor per buffer.
 * Run from the repository root after `make bench`, with the KFORGE_CACHE the submissions used.
 *   build/bench/ref_so [--args DIR] TASK...   exit 0 all built, 1 a task failed (its line says why), 2 usage */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/rng.h"
#include "eval/tasks/abi.h"
#include "eval/tasks/task.h"
#include "eval/tasks/tensor.h"
#include "eval/judge/trusted.h"

#define REF_SO_DEVICE 0 /* the judge's default device: the compile targets its architecture */
#define REF_SO_SEED 0x6b666f726765ull /* any fixed seed: one draw of the bench shape's inputs */

/* Writes input i at the bench shape to DIR/TASK.in<i>. */
static int write_input(const struct kf_task *t, int i, const struct kf_shape *s, struct kf_sampler *smp, kf_rng *r,
		       const char *path, kf_err *err)
{
	size_t bytes = kf_task_tensor_bytes(t, i, s);
	void *host = malloc(bytes ? bytes : 1);
	if (!host)
		return kf_errf(err, KF_EINTERNAL, "no memory for %zu bytes of input %s", bytes, t->tensors[i].name);
	const struct kf_dist d = kf_task_dist(t, i, NULL, s);
	kf_tensor_fill(smp, r, &d, t->tensors[i].dtype, host, kf_task_numel(t, i, s));
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	bool ok = fd >= 0 && write(fd, host, bytes) == (ssize_t)bytes;
	if (fd >= 0)
		ok = close(fd) == 0 && ok;
	free(host);
	return ok ? KF_OK : kf_errno(err, KF_EINTERNAL, "cannot write %s", path);
}

/* ref_time's arguments for one call at the CUDA bench shape, inputs written under dir. */
static int add_args(const struct kf_task *t, const char *dir, kf_buf *out, kf_err *err)
{
	const struct kf_shape *s = &t->bench[KF_BACKEND_CUDA];
	long long ints[KF_MAX_SYMBOLS + KF_MAX_SCALARS];
	int n = kf_task_call_ints(t, s, ints);
	kf_buf_adds(out, " --ints ");
	for (int k = 0; k < n; k++)
		kf_buf_addf(out, "%s%lld", k ? "," : "", ints[k]);
	struct kf_sampler *smp = kf_sampler_new();
	kf_rng r;
	kf_rng_seed(&r, REF_SO_SEED);
	int rc = KF_OK;
	for (int i = 0; i < t->n_inputs + t->n_outputs && rc == KF_OK; i++) {
		size_t bytes = kf_task_tensor_bytes(t, i, s);
		if (t->tensors[i].is_output) {
			kf_buf_addf(out, " --tensor out:%zu", bytes);
			continue;
		}
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s.in%d", dir, t->name, i);
		rc = write_input(t, i, s, smp, &r, path, err);
		kf_buf_addf(out, " --tensor in:%zu:%s", bytes, path);
	}
	int64_t ws = kf_task_workspace(t, s);
	if (ws > 0)
		kf_buf_addf(out, " --tensor ws:%lld", (long long)ws);
	kf_sampler_free(smp);
	return rc;
}

static int build_one(const char *name, const char *args_dir)
{
	struct kf_task *t = NULL;
	kf_err err = { 0 };
	kf_buf hdr = KF_BUF_INIT, shim = KF_BUF_INIT, args = KF_BUF_INIT;
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
	if (rc == KF_OK && args_dir)
		rc = add_args(t, args_dir, &args, &err);
	if (rc == KF_OK)
		printf("%s %s%s\n", name, so, args.data ? args.data : "");
	else
		printf("%s - %s\n", name, err.msg);
	kf_buf_free(&hdr);
	kf_buf_free(&shim);
	kf_buf_free(&args);
	kf_task_free(t);
	return rc == KF_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *args_dir = NULL;
	int i = 1;
	if (i + 1 < argc && !strcmp(argv[i], "--args")) {
		args_dir = argv[i + 1];
		i += 2;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: ref_so [--args DIR] TASK...\n");
		return 2;
	}
	int failed = 0;
	for (; i < argc; i++)
		failed |= build_one(argv[i], args_dir);
	return failed;
}
