/* provider.h — OAuth logins to model providers (`zero auth`), defined
 * entirely by the operator as Go zero defines them: no built-in client
 * identities. A provider NAME (^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$) is read
 * from, per key, the environment first, then "auth.providers.NAME" of the
 * user config (never the project file: it may not redirect credentials):
 *
 *   ZERO_OAUTH_<NAME>_CLIENT_ID      "client_id"      required
 *   ZERO_OAUTH_<NAME>_CLIENT_SECRET  "client_secret"  confidential clients only
 *   ZERO_OAUTH_<NAME>_AUTHORIZE_URL  "authorize_url"  browser flow
 *   ZERO_OAUTH_<NAME>_TOKEN_URL      "token_url"      required (or discovered)
 *   ZERO_OAUTH_<NAME>_DEVICE_URL     "device_url"     device flow (RFC 8628)
 *   ZERO_OAUTH_<NAME>_ISSUER_URL     "issuer_url"     RFC 8414 discovery of the rest
 *   ZERO_OAUTH_<NAME>_SCOPES         "scopes"         space- or comma-separated
 *   ZERO_OAUTH_<NAME>_FLOW           "flow"           "browser" | "device"
 *
 * <NAME> is the name upper-cased with '-' and '.' as '_'. The config keys
 * may be written camelCase too (clientId, authorizeUrl, …). Tokens live in
 * the token store (oauth.h) under "provider:NAME"; a provider profile with
 * "auth": "oauth:NAME" sends them as its bearer (config/resolve.c). */
#ifndef ZERO_OAUTH_PROVIDER_H
#define ZERO_OAUTH_PROVIDER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "oauth/oauth.h"

typedef struct zoauth_provider {
  char *name;
  char *client_id, *client_secret;
  char *authorize_url, *token_url, *device_url, *issuer_url;
  char *scopes; /* space-separated; may be NULL */
  char *flow;   /* "browser" | "device" | NULL (browser unless only a device URL is known) */
} zoauth_provider;

/* Whether name is a valid provider name. */
bool zoauth_provider_name_ok(const char *name);

/* The definition of provider name (environment over user config).
 * ZE_NOT_FOUND when neither defines a client id for it. */
int zoauth_provider_load(const char *name, zoauth_provider *p, zerr *err);
void zoauth_provider_release(zoauth_provider *p);

/* Options of a login. */
typedef struct zoauth_provider_login_opts {
  bool device;          /* --device: the device flow whatever FLOW says */
  const char *scope;    /* --scope: instead of the provider's scopes */
  zoauth_login_opts ui; /* show_url / note / timeout of the browser flow */
  void (*show_code)(void *ud, const zoauth_device_code *d); /* device flow */
  int (*sleep_s)(void *ud, int s); /* device flow's sleep seam, NULL = real */
} zoauth_provider_login_opts;

/* Logs in to provider p (discovering endpoints from its issuer when they
 * are not all given; every credential-bearing endpoint must be https,
 * loopback excepted, checked after discovery too) and saves the tokens
 * under "provider:NAME". */
int zoauth_provider_login(const zoauth_provider *p, const zoauth_provider_login_opts *o, zerr *err);

/* The store key of a provider ("provider:NAME"). Caller frees. */
char *zoauth_provider_key(const char *name);

/* The access token of provider name, refreshed first when it is due
 * (zoauth_refresh_at) or when force is set (a 401 answer). ZE_NOT_FOUND
 * when there is no login; a refresh the issuer refuses says to run `zero
 * auth login NAME`. Caller frees *token. */
int zoauth_provider_bearer(const char *name, bool force, char **token, zerr *err);

#endif
