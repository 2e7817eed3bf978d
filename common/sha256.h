/* SHA-256 for content hashes (compile cache keys, source and spec hashes). */
#ifndef KF_SHA256_H
#define KF_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define KF_SHA256_HEX_LEN 65 /* 64 hex digits + NUL */

typedef struct kf_sha256 {
	uint32_t state[8];
	uint64_t total_bytes;
	uint8_t block[64];
	size_t block_len;
} kf_sha256;

void kf_sha256_init(kf_sha256 *h);
void kf_sha256_update(kf_sha256 *h, const void *data, size_t len);
void kf_sha256_final_hex(kf_sha256 *h, char out[KF_SHA256_HEX_LEN]);
/* One-shot convenience. */
void kf_sha256_hex(const void *data, size_t len, char out[KF_SHA256_HEX_LEN]);

#endif
