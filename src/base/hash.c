/* hash.c — SHA-256 over libcrypto loaded on first use; see hash.h. */
#include "base/hash.h"

#include <openssl/evp.h>

#include "base/buf.h"
#include "base/dlib.h"
#include "base/fs.h"

/* One libcrypto per process: a singleton by nature. */
typedef struct crypto_fns {
  int (*digest)(const void *, size_t, unsigned char *, unsigned int *, const EVP_MD *, ENGINE *);
  const EVP_MD *(*sha256)(void);
  EVP_MD *(*fetch)(OSSL_LIB_CTX *, const char *, const char *);
  const EVP_MD *md; /* SHA-256, fetched once */
} crypto_fns;
static crypto_fns K;

static const zdlib_sym crypto_syms[] = {
    ZDLIB_SYM(crypto_fns, digest, "EVP_Digest"),
    ZDLIB_SYM(crypto_fns, sha256, "EVP_sha256"),
    ZDLIB_SYM_OPT(crypto_fns, fetch, "EVP_MD_fetch"),
};

/* OpenSSL 3 looks the implementation of EVP_sha256() up again on every
 * EVP_Digest (about 0.6 M instructions); a fetched one is used as is. It
 * lives as long as the process. */
static void fetch_sha256(void *handle) {
  (void)handle;
  K.md = K.fetch ? K.fetch(NULL, "SHA256", NULL) : NULL;
  if (!K.md) K.md = K.sha256();
}

static void describe(zdlib_spec *s) {
  ZDLIB_DESCRIBE(s, "libcrypto.so.3", "OpenSSL's libcrypto", "for SHA-256", "libssl3",
                 "OpenSSL 3", crypto_syms, &K, fetch_sha256);
}

static zdlib libcrypto = ZDLIB_INIT; /* one libcrypto per process */

int zsha256(const void *data, size_t len, unsigned char out[ZSHA256_LEN], zerr *err) {
  if (zdlib_require(&libcrypto, describe, err) < 0) return -1;
  unsigned int n = 0;
  if (K.digest(data, len, out, &n, K.md, NULL) != 1 || n != ZSHA256_LEN)
    return zerr_set(err, ZE_INTERNAL, "SHA-256 failed in libcrypto");
  return 0;
}

int zsha256_hex(const void *data, size_t len, char out[ZSHA256_HEX_SIZE], zerr *err) {
  static const char digits[] = "0123456789abcdef";
  unsigned char md[ZSHA256_LEN];
  if (zsha256(data, len, md, err) < 0) return -1;
  for (size_t i = 0; i < ZSHA256_LEN; i++) {
    out[2 * i] = digits[md[i] >> 4];
    out[2 * i + 1] = digits[md[i] & 15];
  }
  out[2 * ZSHA256_LEN] = '\0';
  return 0;
}

int zsha256_file_hex(const char *path, size_t max_bytes, char out[ZSHA256_HEX_SIZE], zerr *err) {
  zbuf data = ZBUF_INIT;
  int rc = zfs_read_file(path, &data, max_bytes, err);
  if (rc == 0) rc = zsha256_hex(data.data, data.len, out, err);
  zbuf_release(&data);
  return rc;
}
