/* hash.h — SHA-256, the one hash zero computes (checkpoint blob names, the
 * PKCE challenge of OAuth).
 *
 * The digest comes from OpenSSL's libcrypto, loaded on the first hash
 * (base/dlib.h): linking it would cost every start of zero ~0.9 ms of symbol
 * relocation, and only checkpoints and OAuth hash. A failed load is an
 * error naming the package to install; a hash is never made up.
 */
#ifndef ZERO_BASE_HASH_H
#define ZERO_BASE_HASH_H

#include <stddef.h>

#include "base/err.h"

#define ZSHA256_LEN 32     /* bytes of a digest */
#define ZSHA256_HEX_SIZE 65 /* its lower-case hex plus the NUL */

/* The SHA-256 digest of data (len bytes) into out. 0, or -1 with err set
 * when libcrypto cannot be loaded or fails. */
int zsha256(const void *data, size_t len, unsigned char out[ZSHA256_LEN], zerr *err);
/* The same digest as 64 lower-case hex digits and a NUL. */
int zsha256_hex(const void *data, size_t len, char out[ZSHA256_HEX_SIZE], zerr *err);
/* The hex digest of a file's contents; fails like zfs_read_file (ZE_NOT_FOUND,
 * ZE_TOO_LARGE past max_bytes, 0 = no limit) or like zsha256. */
int zsha256_file_hex(const char *path, size_t max_bytes, char out[ZSHA256_HEX_SIZE], zerr *err);

#endif
