/* crypto_loader.c — the two libcrypto functions zero uses (SHA-256 for
 * checkpoint blobs), forwarded to libcrypto.so.3 loaded on first use (the
 * pattern of src/net/curl_loader.c).
 *
 * Why: linking libcrypto costs every process start ~0.9 ms of symbol
 * relocation (it is 4.7 MB with thousands of symbols), and zero starts on
 * every sandboxed command (the inner stage execs zero again). Only
 * checkpoints hash, so only they pay now. The wrappers have OpenSSL's exact
 * prototypes; checkpoint.c is unchanged.
 *
 * libcrypto3 is a dependency of the zero package (and of libcurl), so a
 * failed load means a broken installation: a checkpoint must never be
 * stored under a made-up hash, so zero says what to install and aborts.
 */
#include <dlfcn.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LIBCRYPTO_SONAME "libcrypto.so.3"

static struct {
  int (*digest)(const void *, size_t, unsigned char *, unsigned int *, const EVP_MD *, ENGINE *);
  const EVP_MD *(*sha256)(void);
  EVP_MD *(*fetch)(OSSL_LIB_CTX *, const char *, const char *);
  const EVP_MD *md; /* SHA-256, fetched once */
} K; /* one libcrypto per process */

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
  void *h = dlopen(LIBCRYPTO_SONAME, RTLD_LAZY | RTLD_LOCAL);
  if (h) {
    *(void **)(&K.digest) = dlsym(h, "EVP_Digest");
    *(void **)(&K.sha256) = dlsym(h, "EVP_sha256");
    *(void **)(&K.fetch) = dlsym(h, "EVP_MD_fetch");
  }
  if (!K.digest || !K.sha256) {
    fprintf(stderr,
            "zero: cannot load SHA-256 from %s (%s); the installation is broken: reinstall "
            "it with `apt-get install --reinstall libssl3`\n",
            LIBCRYPTO_SONAME, h ? "EVP_Digest/EVP_sha256 missing" : dlerror());
    abort();
  }
  /* OpenSSL 3 looks the implementation of EVP_sha256() up again on every
   * EVP_Digest (about 0.6 M instructions); a fetched one is used as is. It
   * lives as long as the process. */
  K.md = K.fetch ? K.fetch(NULL, "SHA256", NULL) : NULL;
  if (!K.md) K.md = K.sha256();
}

const EVP_MD *EVP_sha256(void) {
  pthread_once(&load_once, load);
  return K.md;
}

int EVP_Digest(const void *data, size_t count, unsigned char *md, unsigned int *size,
               const EVP_MD *type, ENGINE *impl) {
  pthread_once(&load_once, load);
  return K.digest(data, count, md, size, type, impl);
}
