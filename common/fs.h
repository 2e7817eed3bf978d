/* Small file-system helpers: whole-file reads and writes, mkdir -p, temp dirs,
 * recursive removal, and where kforge's own tree (tasks, references, runners) lives. */
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
/* kforge's home: $KFORGE_HOME, else the parent of the directory holding the running
 * executable (build/kforge -> the repository root). Cached after the first call. */
const char *kf_home(void);
/* Directory for the compile cache and scratch files: $KFORGE_CACHE, else
 * $XDG_CACHE_HOME/kforge, else $HOME/.cache/kforge, else /tmp/kforge-cache-<uid>. */
const char *kf_cache_dir(void);

#endif
