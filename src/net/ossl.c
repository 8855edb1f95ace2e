/* ossl.c — libssl loaded on first use; see ossl.h. */
#include "net/ossl.h"

#include <stdio.h>

#include "base/dlib.h"

zossl_fns zossl;

#define ZOSSL_SYM(name) ZDLIB_SYM(zossl_fns, name, #name),
static const zdlib_sym ossl_syms[] = {ZOSSL_FUNCS(ZOSSL_SYM)};
#undef ZOSSL_SYM

/* OPENSSL_INIT_NO_ATEXIT, as net/curl_loader.c: OpenSSL's atexit handler
 * frees memory the kernel takes back anyway, at a cost paid on every exit. */
static void skip_atexit(void *handle) {
  (void)handle;
  zossl.OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

static void describe(zdlib_spec *s) {
  ZDLIB_DESCRIBE(s, "libssl.so.3", "OpenSSL's libssl",
                 "for TLS (the daemon's bridge, sandbox.inspectTLS)", "libssl3", "OpenSSL 3",
                 ossl_syms, &zossl, skip_atexit);
}

static zdlib libssl = ZDLIB_INIT; /* one OpenSSL per process */

int zossl_load(zerr *err) { return zdlib_require(&libssl, describe, err); }

void zossl_last_error(char *out, size_t cap) {
  unsigned long e = zossl.ERR_get_error();
  if (!e) {
    snprintf(out, cap, "%s", "");
    return;
  }
  zossl.ERR_error_string_n(e, out, cap);
  zossl.ERR_clear_error();
}
