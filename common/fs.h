/* Small file-system helpers: whole-file reads and writes, mkdir -p, temp dirs,
 * recursive removal, and where kforge's own files (tasks, references, runners) live, in the
 * source tree or installed. */
#ifndef KF_FS_H
#define KF_FS_H

#include <stddef.h>

#include "common/err.h"

/* Reads a whole file (NUL-terminated). Fails with KF_EINPUT if it is larger than max_bytes. */
int kf_read_file(const char *path, size_t max_bytes, char **out, size_t *len, kf_err *err);
/* Writes atomically: temp file in the same directory, fsync, rename. */
int kf_write_file(const char *path, const void *data, size_t len, kf_err *err);
int kf_mkdir_p(const char *path, kf_err *err);
/* Creates a fresh private directory under base ("<base>/<prefix>XXXXXX"). */
int kf_mkdtemp(const char *base, const char *prefix, char *out, size_t out_len, kf_err *err);
/* rm -rf; never follows symbolic links out of the tree. */
void kf_rm_rf(const char *path);
/* Where `make install` puts kforge's data and helper programs, relative to the folder of the
 * installed kforge (<prefix>/bin). */
#define KF_INSTALLED_DATA_DIR "../share/kforge"
#define KF_INSTALLED_LIBEXEC_DIR "libexec/kforge" /* relative to <prefix> */
/* kforge's home, where tasks/, reference_kernels/, prompts/ and the calibration probe are read:
 * $KFORGE_HOME, else <dir of the executable>/../share/kforge when it holds tasks/ (an install),
 * else the folder above the build/ folder holding the executable (build/kforge -> the source tree).
 * Cached after the first call. */
const char *kf_home(void);
/* Path of kforge's helper program or library `name` (a runner, libkforge-cuda.so): beside the
 * running executable, one folder up, or in <prefix>/libexec/kforge for an installed kforge.
 * 0 when found (out names it), -1 when not (out names the last place looked). */
int kf_libexec_path(const char *name, char *out, size_t len);
/* Directory for the compile cache and scratch files: $KFORGE_CACHE, else the first usable of
 * $XDG_CACHE_HOME/kforge and $HOME/.cache/kforge (created), else /tmp/kforge-cache-<uid>. */
const char *kf_cache_dir(void);

#endif
