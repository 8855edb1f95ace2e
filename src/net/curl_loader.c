/* curl_loader.c — the libcurl functions zero uses, forwarded to libcurl.so.4
 * loaded on first use; see curl_loader.h.
 *
 * Each wrapper has exactly libcurl's prototype, so src/net/http.c is written
 * against the ordinary API. A function zero starts to use must be added here
 * (the link fails until it is). When libcurl cannot be loaded, the wrappers
 * return libcurl's own failure values (NULL, CURLE_FAILED_INIT, …), which the
 * callers already handle, and zcurl_load explains what to install.
 */
#define CURL_DISABLE_TYPECHECK 1 /* we define curl_easy_setopt itself */
#include "net/curl_loader.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "base/dlib.h"

/* The table of real functions, filled once. A singleton by nature: there is
 * one libcurl per process. */
typedef struct curl_fns {
  CURLcode (*global_init)(long);
  void (*global_cleanup)(void);
  char *(*version)(void);
  curl_version_info_data *(*version_info)(CURLversion);
  CURL *(*easy_init)(void);
  CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
  CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
  void (*easy_cleanup)(CURL *);
  const char *(*easy_strerror)(CURLcode);
  void (*free_)(void *);
  time_t (*getdate)(const char *, const time_t *);
  struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
  void (*slist_free_all)(struct curl_slist *);
  CURLM *(*multi_init)(void);
  CURLMcode (*multi_add_handle)(CURLM *, CURL *);
  CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
  CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned int, int, int *);
  CURLMcode (*multi_wakeup)(CURLM *);
  CURLMcode (*multi_perform)(CURLM *, int *);
  CURLMcode (*multi_cleanup)(CURLM *);
  CURLMsg *(*multi_info_read)(CURLM *, int *);
  const char *(*multi_strerror)(CURLMcode);
  CURLU *(*url)(void);
  void (*url_cleanup)(CURLU *);
  CURLUcode (*url_get)(CURLU *, CURLUPart, char **, unsigned int);
  CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
} curl_fns;
static curl_fns C;

static const zdlib_sym curl_syms[] = {
    ZDLIB_SYM(curl_fns, global_init, "curl_global_init"),
    ZDLIB_SYM(curl_fns, global_cleanup, "curl_global_cleanup"),
    ZDLIB_SYM(curl_fns, version, "curl_version"),
    ZDLIB_SYM(curl_fns, version_info, "curl_version_info"),
    ZDLIB_SYM(curl_fns, easy_init, "curl_easy_init"),
    ZDLIB_SYM(curl_fns, easy_setopt, "curl_easy_setopt"),
    ZDLIB_SYM(curl_fns, easy_getinfo, "curl_easy_getinfo"),
    ZDLIB_SYM(curl_fns, easy_cleanup, "curl_easy_cleanup"),
    ZDLIB_SYM(curl_fns, easy_strerror, "curl_easy_strerror"),
    ZDLIB_SYM(curl_fns, free_, "curl_free"),
    ZDLIB_SYM(curl_fns, getdate, "curl_getdate"),
    ZDLIB_SYM(curl_fns, slist_append, "curl_slist_append"),
    ZDLIB_SYM(curl_fns, slist_free_all, "curl_slist_free_all"),
    ZDLIB_SYM(curl_fns, multi_init, "curl_multi_init"),
    ZDLIB_SYM(curl_fns, multi_add_handle, "curl_multi_add_handle"),
    ZDLIB_SYM(curl_fns, multi_remove_handle, "curl_multi_remove_handle"),
    ZDLIB_SYM(curl_fns, multi_poll, "curl_multi_poll"),
    ZDLIB_SYM(curl_fns, multi_wakeup, "curl_multi_wakeup"),
    ZDLIB_SYM(curl_fns, multi_perform, "curl_multi_perform"),
    ZDLIB_SYM(curl_fns, multi_cleanup, "curl_multi_cleanup"),
    ZDLIB_SYM(curl_fns, multi_info_read, "curl_multi_info_read"),
    ZDLIB_SYM(curl_fns, multi_strerror, "curl_multi_strerror"),
    ZDLIB_SYM(curl_fns, url, "curl_url"),
    ZDLIB_SYM(curl_fns, url_cleanup, "curl_url_cleanup"),
    ZDLIB_SYM(curl_fns, url_get, "curl_url_get"),
    ZDLIB_SYM(curl_fns, url_set, "curl_url_set"),
};

/* OPENSSL_init_crypto's OPENSSL_INIT_NO_ATEXIT (OpenSSL 1.1.1 and 3). */
#define ZERO_OSSL_INIT_NO_ATEXIT 0x00080000UL

/* libcurl's TLS library here is OpenSSL, which frees all its state from an
 * atexit handler: 0.5 M instructions at every exit for memory the kernel
 * takes back anyway. Initialising it first with OPENSSL_INIT_NO_ATEXIT
 * leaves that handler out; curl_global_init then initialises OpenSSL
 * exactly as before (configuration, TLS). With another TLS library the
 * symbol is absent and nothing changes. */
static void skip_openssl_atexit(void *handle) {
  int (*ossl_init)(uint64_t, const void *);
  *(void **)(&ossl_init) = dlsym(handle, "OPENSSL_init_crypto");
  if (ossl_init) ossl_init(ZERO_OSSL_INIT_NO_ATEXIT, NULL);
}

/* Debian's libcurl.so.4 needs librtmp, which needs GnuTLS, whose
 * constructor starts the library as it loads (random generator, ASN.1
 * trees, the system priority file, p11-kit): ~0.85 MiB resident in every
 * zero process — 7 MiB in a swarm of 8 — for a library zero never calls
 * (http and https go through OpenSSL; rtmp is not among the protocols zero
 * allows). That constructor first asks the program through this weak hook
 * (GnuTLS's lib/global.c) whether to skip the implicit start: the same as
 * GNUTLS_NO_IMPLICIT_INIT=1, without an environment variable every command
 * would inherit. A user of GnuTLS still calls gnutls_global_init() itself
 * (librtmp, libldap, libcurl's GnuTLS build do). GnuTLS sees the hook only
 * in zero's dynamic symbol table (CMakeLists.txt exports it); elsewhere
 * (unit tests) it is never called. */
int _gnutls_global_init_skip(void); /* NOLINT(bugprone-reserved-identifier): GnuTLS's name */
int _gnutls_global_init_skip(void) { return 1; } /* NOLINT(bugprone-reserved-identifier) */

static void describe(zdlib_spec *s) {
  ZDLIB_DESCRIBE(s, "libcurl.so.4", "libcurl", "for network access", "libcurl4", "libcurl 7.68",
                 curl_syms, &C, skip_openssl_atexit);
}

static zdlib libcurl = ZDLIB_INIT;

static bool ready(void) { return zdlib_load(&libcurl, describe); }

int zcurl_load(zerr *err) { return zdlib_require(&libcurl, describe, err); }

bool zcurl_loaded(void) { return zdlib_loaded(&libcurl); }

/* ---- the wrappers ------------------------------------------------------ */

CURLcode curl_global_init(long flags) { return ready() ? C.global_init(flags) : CURLE_FAILED_INIT; }
void curl_global_cleanup(void) {
  if (zcurl_loaded()) C.global_cleanup();
}
char *curl_version(void) { return ready() ? C.version() : (char *)"libcurl/unavailable"; }
curl_version_info_data *curl_version_info(CURLversion v) {
  return ready() ? C.version_info(v) : NULL;
}
CURL *curl_easy_init(void) { return ready() ? C.easy_init() : NULL; }

/* The value's C type follows from the option number, exactly as libcurl
 * itself reads it (CURLOPTTYPE_* ranges in curl.h). */
CURLcode curl_easy_setopt(CURL *h, CURLoption opt, ...) {
  if (!ready()) return CURLE_FAILED_INIT;
  va_list ap;
  va_start(ap, opt);
  CURLcode rc;
  if (opt < CURLOPTTYPE_OBJECTPOINT) {
    long v = va_arg(ap, long);
    rc = C.easy_setopt(h, opt, v);
  } else if (opt < CURLOPTTYPE_FUNCTIONPOINT) {
    void *v = va_arg(ap, void *);
    rc = C.easy_setopt(h, opt, v);
  } else if (opt < CURLOPTTYPE_OFF_T) {
    void (*v)(void) = va_arg(ap, void (*)(void));
    rc = C.easy_setopt(h, opt, v);
  } else if (opt < CURLOPTTYPE_BLOB) {
    curl_off_t v = va_arg(ap, curl_off_t);
    rc = C.easy_setopt(h, opt, v);
  } else {
    void *v = va_arg(ap, void *);
    rc = C.easy_setopt(h, opt, v);
  }
  va_end(ap);
  return rc;
}

/* Every CURLINFO takes a pointer to where the answer goes. */
CURLcode curl_easy_getinfo(CURL *h, CURLINFO info, ...) {
  if (!ready()) return CURLE_FAILED_INIT;
  va_list ap;
  va_start(ap, info);
  void *out = va_arg(ap, void *);
  va_end(ap);
  return C.easy_getinfo(h, info, out);
}

void curl_easy_cleanup(CURL *h) {
  if (zcurl_loaded()) C.easy_cleanup(h);
}
const char *curl_easy_strerror(CURLcode c) {
  return ready() ? C.easy_strerror(c) : "libcurl is not available";
}
void curl_free(void *p) {
  if (zcurl_loaded()) C.free_(p);
}
time_t curl_getdate(const char *p, const time_t *unused) {
  return ready() ? C.getdate(p, unused) : -1;
}
struct curl_slist *curl_slist_append(struct curl_slist *l, const char *s) {
  return ready() ? C.slist_append(l, s) : NULL;
}
void curl_slist_free_all(struct curl_slist *l) {
  if (zcurl_loaded()) C.slist_free_all(l);
}
CURLM *curl_multi_init(void) { return ready() ? C.multi_init() : NULL; }
CURLMcode curl_multi_add_handle(CURLM *m, CURL *h) {
  return ready() ? C.multi_add_handle(m, h) : CURLM_INTERNAL_ERROR;
}
CURLMcode curl_multi_remove_handle(CURLM *m, CURL *h) {
  return ready() ? C.multi_remove_handle(m, h) : CURLM_INTERNAL_ERROR;
}
CURLMcode curl_multi_poll(CURLM *m, struct curl_waitfd extra[], unsigned int n, int timeout_ms,
                          int *numfds) {
  return ready() ? C.multi_poll(m, extra, n, timeout_ms, numfds) : CURLM_INTERNAL_ERROR;
}
CURLMcode curl_multi_wakeup(CURLM *m) { return ready() ? C.multi_wakeup(m) : CURLM_INTERNAL_ERROR; }
CURLMcode curl_multi_perform(CURLM *m, int *running) {
  return ready() ? C.multi_perform(m, running) : CURLM_INTERNAL_ERROR;
}
CURLMcode curl_multi_cleanup(CURLM *m) {
  return zcurl_loaded() ? C.multi_cleanup(m) : CURLM_INTERNAL_ERROR;
}
CURLMsg *curl_multi_info_read(CURLM *m, int *left) {
  return ready() ? C.multi_info_read(m, left) : NULL;
}
const char *curl_multi_strerror(CURLMcode c) {
  return ready() ? C.multi_strerror(c) : "libcurl is not available";
}
CURLU *curl_url(void) { return ready() ? C.url() : NULL; }
void curl_url_cleanup(CURLU *u) {
  if (zcurl_loaded()) C.url_cleanup(u);
}
CURLUcode curl_url_get(CURLU *u, CURLUPart what, char **part, unsigned int flags) {
  return ready() ? C.url_get(u, what, part, flags) : CURLUE_OUT_OF_MEMORY;
}
CURLUcode curl_url_set(CURLU *u, CURLUPart what, const char *part, unsigned int flags) {
  return ready() ? C.url_set(u, what, part, flags) : CURLUE_OUT_OF_MEMORY;
}
