/* The CPU's buffer areas (see area.h): memfds mapped by the judge and by the runner. A laid-out
 * area keeps its inputs in a memfd of their own, sealed against new writable mappings once the
 * judge's own is made, behind a header that tells the runner the layout (sandbox/cpu_layout.h). */
#include "eval/judge/area.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fs.h"
#include "eval/tasks/tensor.h"
#include "sandbox/cpu_layout.h"

#define KF_FLUSH_MIN_BYTES (64u << 20)

struct kf_area {
	int fd;        /* outputs (the whole area when not laid out) */
	int ro_fd;     /* inputs and the layout header; -1 when not laid out */
	size_t ro_end; /* area offsets below it live in ro_fd */
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
	a->ro_fd = -1;
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

/* The area reserved, the inputs' memfd mapped writable here at its start (behind the header),
 * the outputs' after it; then the header written and the inputs' memfd sealed: no mapping made
 * later, the runner's included, can write it. */
static int cpu_create_laid_out(const struct kf_area_layout *l, int device, struct kf_area **out, kf_err *err)
{
	(void)device;
	if (l->n > KF_CPU_LAYOUT_MAX || l->n_readonly < 1 || l->n_readonly >= l->n)
		return kf_errf(err, KF_EINTERNAL, "a buffer layout of %d regions (%d inputs) is not supported", l->n,
			       l->n_readonly);
	struct kf_area *a = kf_xcalloc(1, sizeof *a);
	a->bytes = l->bytes;
	a->ro_end = l->start[l->n_readonly];
	struct kf_cpu_layout h = { .magic = KF_CPU_LAYOUT_MAGIC, .n = (uint32_t)l->n, .area_bytes = l->bytes };
	for (int i = 0; i < l->n; i++) {
		bool ro = i < l->n_readonly;
		h.seg[i] = (struct kf_cpu_segment){ .area_off = l->start[i], .len = l->end[i] - l->start[i],
						    .file_off = ro ? KF_CPU_LAYOUT_HEADER + l->start[i] : l->start[i] - a->ro_end,
						    .fd = ro ? KF_CPU_SEG_RO : KF_CPU_SEG_RW };
	}
	a->fd = memfd_create("kforge-outputs", MFD_CLOEXEC);
	a->ro_fd = memfd_create("kforge-inputs", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	const char *what = "create the buffer memfds";
	if (a->fd < 0 || a->ro_fd < 0 || ftruncate(a->fd, (off_t)(l->bytes - a->ro_end)) != 0 ||
	    ftruncate(a->ro_fd, (off_t)(KF_CPU_LAYOUT_HEADER + a->ro_end)) != 0)
		goto fail;
	what = "map the buffers";
	a->base = mmap(NULL, l->bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a->base == MAP_FAILED) {
		a->base = NULL;
		goto fail;
	}
	if (mmap(a->base, a->ro_end, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, a->ro_fd, KF_CPU_LAYOUT_HEADER) == MAP_FAILED ||
	    mmap(a->base + a->ro_end, l->bytes - a->ro_end, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, a->fd, 0) == MAP_FAILED)
		goto fail;
	what = "seal the inputs' memfd";
	if (pwrite(a->ro_fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
	    fcntl(a->ro_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL) != 0)
		goto fail;
	*out = a;
	return KF_OK;
fail:
	kf_errno(err, KF_EINTERNAL, "cannot %s (%zu bytes)", what, l->bytes);
	if (a->base)
		munmap(a->base, a->bytes);
	if (a->fd >= 0)
		close(a->fd);
	if (a->ro_fd >= 0)
		close(a->ro_fd);
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
	if (a->ro_fd >= 0)
		close(a->ro_fd);
	free(a->flush);
	free(a);
}

static int cpu_runner_fd(struct kf_area *a, size_t *bytes)
{
	*bytes = a->bytes - a->ro_end;
	return a->fd;
}

static int cpu_runner_ro_fd(struct kf_area *a, size_t *bytes)
{
	*bytes = a->ro_fd >= 0 ? KF_CPU_LAYOUT_HEADER + a->ro_end : 0;
	return a->ro_fd;
}

static int cpu_pattern_fill(struct kf_area *a, size_t off, size_t bytes, uint8_t pattern, kf_err *err)
{
	(void)err;
	memset(a->base + off, pattern, bytes);
	return KF_OK;
}

static int cpu_pattern_check(struct kf_area *a, size_t off, size_t bytes, uint8_t pattern, int64_t *first, kf_err *err)
{
	(void)err;
	const unsigned char *p = (const unsigned char *)a->base + off;
	*first = -1;
	for (size_t k = 0; k < bytes; k++)
		if (p[k] != pattern) {
			*first = (int64_t)k;
			break;
		}
	return KF_OK;
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
	.create_laid_out = cpu_create_laid_out,
	.destroy = cpu_destroy,
	.runner_fd = cpu_runner_fd,
	.runner_ro_fd = cpu_runner_ro_fd,
	.ptr = cpu_ptr,
	.host_view = cpu_ptr,
	.upload = cpu_upload,
	.download = cpu_download,
	.poison = cpu_poison,
	.diff = cpu_diff,
	.pattern_fill = cpu_pattern_fill,
	.pattern_check = cpu_pattern_check,
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
	char path[PATH_MAX];
	/* Beside the executable, one level up (benchmarks and sanitizer builds), or installed in
	 * <prefix>/libexec/kforge. */
	if (kf_libexec_path(KF_CUDA_LIB_NAME, path, sizeof path) == 0 && access(path, R_OK) == 0) {
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
