/* curl_loader.h — libcurl, loaded when the network is first needed.
 *
 * Debian's libcurl pulls in ~30 shared objects (TLS, Kerberos, LDAP, SASL,
 * …); loading them costs more than everything else zero does at start-up.
 * So zero does not link libcurl: curl_loader.c defines the curl_* functions
 * zero calls, each forwarding to the real one in libcurl.so.4, which is
 * dlopen'ed on the first call. `zero --version`, `zero sessions` and the
 * tools never pay for it.
 */
#ifndef ZERO_NET_CURL_LOADER_H
#define ZERO_NET_CURL_LOADER_H

#include <stdbool.h>

#include "base/err.h"

/* Loads libcurl now. Returns 0, or -1 with a message that says which package
 * to install. Idempotent; later calls return the first outcome. */
int zcurl_load(zerr *err);
/* true once libcurl is loaded. */
bool zcurl_loaded(void);

#endif
