/* The CPU's buffer areas (see area.h): a memfd mapped by the judge and by the runner. */
#include "eval/area.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fs.h"
#include "eval/tensor.h"

#define KF_FLUSH_MIN_BYTES (64u << 20)

struct kf_area {
	int fd;
	size_t bytes;
	char *base;
	unsigned char *flush;
	size_t flush_len;
};

/* Twice the last-level cache as the kernel reports it (sysconf's figure is unreliable in VMs). */
static size_t llc_flush_bytes(void)
{
	size_t llc = 0;
	char *text = NULL;
	if (kf_read_file("/sys/devices/system/cpu/cpu0/cache/index3/size", 64, &text, NULL, NULL) == KF_OK) {
		char *end;
		unsigned long v = strtoul(text, &end, 10);
		llc = (size_t)v * (*end == 'K' ? 1024u : *end == 'M' ? 1024u * 1024u : 1u);
		free(text);
	}
	if (!llc) {
		long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
		llc = l3 > 0 ? (size_t)l3 : 0;
	}
	return 2 * llc > KF_FLUSH_MIN_BYTES ? 2 * llc : KF_FLUSH_MIN_BYTES;
}

static int cpu_create(size_t bytes, int device, struct kf_area **out, kf_err *err)
{
	(void)device;
	struct kf_area *a = kf_xcalloc(1, sizeof *a);
	a->bytes = bytes;
	a->fd = memfd_create("kforge-buffers", MFD_CLOEXEC);
	if (a->fd < 0 || ftruncate(a->fd, (off_t)bytes) != 0) {
		kf_errno(err, KF_EINTERNAL, "cannot create %zu bytes of shared buffers", bytes);
		goto fail;
	}
	a->base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, a->fd, 0);
	if (a->base == MAP_FAILED) {
		a->base = NULL;
		kf_errno(err, KF_EINTERNAL, "cannot map %zu bytes of shared buffers", bytes);
		goto fail;
	}
	*out = a;
	return KF_OK;
fail:
	if (a->fd >= 0)
		close(a->fd);
	free(a);
	return KF_EINTERNAL;
}

static void cpu_destroy(struct kf_area *a)
{
	if (!a)
		return;
	if (a->base)
		munmap(a->base, a->bytes);
	close(a->fd);
	free(a->flush);
	free(a);
}

static int cpu_runner_fd(struct kf_area *a, size_t *bytes)
{
	*bytes = a->bytes;
	return a->fd;
}

static void *cpu_ptr(struct kf_area *a, size_t off) { return a->base + off; }

static int cpu_upload(struct kf_area *a, size_t off, const void *src, size_t bytes, kf_err *err)
{
	(void)err;
	memcpy(a->base + off, src, bytes);
	return KF_OK;
}

static int cpu_download(struct kf_area *a, size_t off, void *dst, size_t bytes, kf_err *err)
{
	(void)err;
	memcpy(dst, a->base + off, bytes);
	return KF_OK;
}

static int cpu_poison(struct kf_area *a, size_t off, enum kf_dtype d, int64_t n, kf_err *err)
{
	(void)err;
	kf_tensor_poison(d, a->base + off, n);
	return KF_OK;
}

static int cpu_diff(struct kf_area *a, size_t off, struct kf_area *b, size_t b_off, size_t bytes, int64_t *first,
		    kf_err *err)
{
	(void)err;
	const unsigned char *x = (const unsigned char *)a->base + off, *y = (const unsigned char *)b->base + b_off;
	*first = -1;
	if (memcmp(x, y, bytes) == 0)
		return KF_OK;
	size_t k = 0;
	while (x[k] == y[k])
		k++;
	*first = (int64_t)k;
	return KF_OK;
}

static int cpu_count_poison(struct kf_area *a, size_t off, enum kf_dtype d, int64_t n, int64_t *out, kf_err *err)
{
	(void)err;
	int64_t first;
	*out = kf_tensor_count_poison(d, a->base + off, n, &first);
	return KF_OK;
}

static int cpu_copy_from(struct kf_area *dst, size_t dst_off, struct kf_area *src, size_t src_off, size_t bytes,
			 kf_err *err)
{
	(void)err;
	memcpy(dst->base + dst_off, src->base + src_off, bytes);
	return KF_OK;
}

static int cpu_compare(struct kf_area *a, size_t got_off, struct kf_area *want, size_t want_off, enum kf_dtype d,
		       int64_t n, struct kf_tolerance tol, struct kf_cmp *out, kf_err *err)
{
	(void)err;
	kf_compare_typed(d, a->base + got_off, want->base + want_off, n, tol, out);
	return KF_OK;
}

static void *cpu_stream(struct kf_area *a)
{
	(void)a;
	return NULL;
}

static int cpu_sync(struct kf_area *a, kf_err *err)
{
	(void)a, (void)err;
	return KF_OK;
}

/* Writing a buffer twice the last-level cache evicts everything a previous call left there. */
static int cpu_flush(struct kf_area *a, uint64_t salt, kf_err *err)
{
	(void)err;
	if (!a->flush) {
		a->flush_len = llc_flush_bytes();
		a->flush = kf_xmalloc(a->flush_len);
	}
	memset(a->flush, (int)(salt & 0xff), a->flush_len);
	return KF_OK;
}

static size_t cpu_flush_bytes(struct kf_area *a)
{
	return a->flush_len ? a->flush_len : llc_flush_bytes();
}

static const struct kf_area_ops cpu_ops = {
	.name = "cpu",
	.create = cpu_create,
	.destroy = cpu_destroy,
	.runner_fd = cpu_runner_fd,
	.ptr = cpu_ptr,
	.host_view = cpu_ptr,
	.upload = cpu_upload,
	.download = cpu_download,
	.poison = cpu_poison,
	.diff = cpu_diff,
	.count_poison = cpu_count_poison,
	.copy_from = cpu_copy_from,
	.compare = cpu_compare,
	.stream = cpu_stream,
	.sync = cpu_sync,
	.flush = cpu_flush,
	.flush_bytes = cpu_flush_bytes,
};

static const struct kf_area_ops *load_cuda_ops(kf_err *err)
{
	static const struct kf_area_ops *ops;
	if (ops)
		return ops;
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0) {
		kf_errno(err, KF_EINTERNAL, "cannot locate the kforge executable");
		return NULL;
	}
	exe[n] = '\0';
	/* Beside the executable, or one level up (benchmarks and sanitizer builds). */
	for (int up = 0; up < 2 && !ops; up++) {
		char *slash = strrchr(exe, '/');
		if (!slash)
			break;
		*slash = '\0';
		snprintf(path, sizeof path, "%s/%s", exe, KF_CUDA_LIB_NAME);
		if (access(path, R_OK) != 0)
			continue;
		void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
		if (!so) {
			kf_errf(err, KF_EINPUT, "the cuda backend cannot be loaded on this machine: %s", dlerror());
			return NULL;
		}
		kf_cuda_area_ops_fn fn = (kf_cuda_area_ops_fn)dlsym(so, KF_CUDA_OPS_SYMBOL);
		ops = fn ? fn() : NULL;
	}
	if (!ops)
		kf_errf(err, KF_EINPUT, "the cuda backend is not built (%s missing beside kforge: build with nvcc present)",
			KF_CUDA_LIB_NAME);
	return ops;
}

int kf_area_ops_for(enum kf_backend b, const struct kf_area_ops **out, kf_err *err)
{
	*out = b == KF_BACKEND_CPU ? &cpu_ops : load_cuda_ops(err);
	return *out ? KF_OK : err->code;
}

int kf_area_arch(enum kf_backend b, int device)
{
	const struct kf_area_ops *ops;
	kf_err err;
	if (b == KF_BACKEND_CPU || kf_area_ops_for(b, &ops, &err) != KF_OK || !ops->arch)
		return 0;
	return ops->arch(device);
}
