/* provider.c — operator-defined OAuth providers and their logins; see
 * provider.h. */
#include "oauth/provider.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "base/secrets.h"
#include "base/strvec.h"
#include "oauth/http.h"

bool zoauth_provider_name_ok(const char *name) {
  size_t n = name ? strlen(name) : 0;
  if (n < 1 || n > 64 || !isalnum((unsigned char)name[0])) return false;
  for (size_t i = 1; i < n; i++)
    if (!isalnum((unsigned char)name[i]) && !strchr("._-", name[i])) return false;
  return true;
}

char *zoauth_provider_key(const char *name) {
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b, "provider:%s", name);
  return zbuf_detach(&b, NULL);
}

/* The keys of a definition: the variable suffix, the config's snake_case
 * and camelCase spellings. */
static const struct {
  const char *env, *snake, *camel;
} FIELDS[] = {
    {"CLIENT_ID", "client_id", "clientId"},
    {"CLIENT_SECRET", "client_secret", "clientSecret"},
    {"AUTHORIZE_URL", "authorize_url", "authorizeUrl"},
    {"TOKEN_URL", "token_url", "tokenUrl"},
    {"DEVICE_URL", "device_url", "deviceUrl"},
    {"ISSUER_URL", "issuer_url", "issuerUrl"},
    {"SCOPES", "scopes", "scopes"},
    {"FLOW", "flow", "flow"},
};

static char **field(zoauth_provider *p, size_t i) {
  char **f[] = {&p->client_id,  &p->client_secret, &p->authorize_url, &p->token_url,
                &p->device_url, &p->issuer_url,    &p->scopes,        &p->flow};
  return f[i];
}

/* "auth.providers.<name>" of the user config, or NULL (a borrowed
 * reference into *doc, which the caller releases). */
static json_t *config_entry(const char *name, json_t **doc) {
  cleanup_free char *dir = zpath_config_dir();
  cleanup_free char *path = zpath_join(dir, "config.json");
  zerr ignore = ZERR_INIT;
  *doc = zfs_exists(path) ? zjson_load_file(path, &ignore) : NULL;
  json_t *providers = json_object_get(json_object_get(*doc, "auth"), "providers");
  json_t *e = json_object_get(providers, name);
  return json_is_object(e) ? e : NULL;
}

/* Scopes as the issuer wants them: space-separated (a comma list is
 * accepted, as Go zero does). Caller frees. */
static char *normalize_scopes(const char *s) {
  char *out = xstrdup(s);
  for (char *p = out; *p; p++)
    if (*p == ',') *p = ' ';
  return out;
}

int zoauth_provider_load(const char *name, zoauth_provider *p, zerr *err) {
  memset(p, 0, sizeof *p);
  if (!zoauth_provider_name_ok(name))
    return zerr_set(err, ZE_USAGE,
                    "\"%.80s\" is not a provider name: letters, digits, '.', '_' and '-', "
                    "starting with a letter or digit, at most 64",
                    name ? name : "");
  char prefix[96];
  size_t n = (size_t)snprintf(prefix, sizeof prefix, "ZERO_OAUTH_");
  for (const char *c = name; *c && n + 1 < sizeof prefix; c++)
    prefix[n++] = (*c == '-' || *c == '.') ? '_' : (char)toupper((unsigned char)*c);
  prefix[n] = '\0';
  json_t *doc = NULL;
  json_t *cfg = config_entry(name, &doc);
  for (size_t i = 0; i < ZARRAY_LEN(FIELDS); i++) {
    char var[160];
    snprintf(var, sizeof var, "%s_%s", prefix, FIELDS[i].env);
    const char *v = getenv(var);
    if (!v || !*v) v = zjson_str(cfg, FIELDS[i].snake);
    if (!v || !*v) v = zjson_str(cfg, FIELDS[i].camel);
    if (v && *v) *field(p, i) = xstrdup(v);
  }
  json_decref(doc);
  p->name = xstrdup(name);
  if (p->scopes) {
    char *s = normalize_scopes(p->scopes);
    free(p->scopes);
    p->scopes = s;
  }
  zsecret_add_value(p->client_secret);
  if (!p->client_id) {
    zoauth_provider_release(p);
    return zerr_set(err, ZE_NOT_FOUND,
                    "no OAuth provider \"%s\": set %s_CLIENT_ID (and _TOKEN_URL with "
                    "_AUTHORIZE_URL or _DEVICE_URL, or _ISSUER_URL), or the same keys under "
                    "\"auth.providers.%s\" in the user config",
                    name, prefix, name);
  }
  return 0;
}

void zoauth_provider_release(zoauth_provider *p) {
  free(p->name);
  for (size_t i = 0; i < ZARRAY_LEN(FIELDS); i++) free(*field(p, i));
  memset(p, 0, sizeof *p);
}

/* ---- login ---------------------------------------------------------------------- */

/* The endpoints a login uses: the configured ones, the rest from the
 * issuer's metadata (RFC 8414, then OpenID discovery). */
typedef struct endpoints {
  char *authorize, *token, *device;
  unsigned auth_methods; /* token_endpoint_auth_methods_supported */
} endpoints;

static void endpoints_release(endpoints *e) {
  free(e->authorize);
  free(e->token);
  free(e->device);
}

static int discover(const zoauth_provider *p, endpoints *e, zerr *err) {
  if (zoauth_check_credential_url("issuer", p->issuer_url, p->name, err) < 0) return -1;
  char **urls = zoauth_as_md_urls(p->issuer_url);
  if (!urls)
    return zerr_set(err, ZE_CONFIG, "the issuer URL of \"%s\" is not an http(s) URL", p->name);
  int rc = zerr_set(err, ZE_NOT_FOUND, "the issuer %s publishes no OAuth metadata (tried %s)",
                    p->issuer_url, urls[0] ? urls[0] : "");
  for (char **u = urls; *u && rc < 0; u++) {
    zoauth_fetch f;
    zerr ferr = ZERR_INIT;
    const char *headers[] = {"Accept: application/json", NULL};
    long st = zoauth_http("GET", *u, headers, NULL, &f, &ferr);
    zoauth_as_md md;
    if (st == 200 && zoauth_parse_as_md(f.body.data ? f.body.data : "", f.body.len, p->issuer_url,
                                        &md, err) == 0) {
      if (!e->authorize && md.authorization_endpoint)
        e->authorize = xstrdup(md.authorization_endpoint);
      if (!e->token) e->token = xstrdup(md.token_endpoint);
      if (!e->device && md.device_authorization_endpoint)
        e->device = xstrdup(md.device_authorization_endpoint);
      e->auth_methods = md.token_auth_methods;
      zoauth_as_md_release(&md);
      rc = 0;
    }
    zoauth_fetch_release(&f);
  }
  strvec_free_array(urls);
  return rc;
}

static int resolve_endpoints(const zoauth_provider *p, bool device, endpoints *e, zerr *err) {
  memset(e, 0, sizeof *e);
  e->authorize = p->authorize_url ? xstrdup(p->authorize_url) : NULL;
  e->token = p->token_url ? xstrdup(p->token_url) : NULL;
  e->device = p->device_url ? xstrdup(p->device_url) : NULL;
  bool complete = e->token && (device ? e->device != NULL : e->authorize != NULL);
  if (!complete && p->issuer_url && discover(p, e, err) < 0) return -1;
  if (!e->token)
    return zerr_set(err, ZE_CONFIG,
                    "OAuth provider \"%s\" has no token URL (set _TOKEN_URL or "
                    "_ISSUER_URL)",
                    p->name);
  if (device && !e->device)
    return zerr_set(err, ZE_CONFIG,
                    "OAuth provider \"%s\" has no device authorization URL (set _DEVICE_URL, or "
                    "_ISSUER_URL of an issuer that offers the device flow)",
                    p->name);
  if (!device && !e->authorize)
    return zerr_set(err, ZE_CONFIG,
                    "OAuth provider \"%s\" has no authorization URL for the browser flow (set "
                    "_AUTHORIZE_URL, or use --device with a _DEVICE_URL)",
                    p->name);
  /* After discovery too: metadata may point anywhere. */
  if (zoauth_check_credential_url("token endpoint", e->token, p->name, err) < 0) return -1;
  if (device)
    return zoauth_check_credential_url("device authorization endpoint", e->device, p->name, err);
  return zoauth_check_credential_url("authorization endpoint", e->authorize, p->name, err);
}

static bool wants_device(const zoauth_provider *p, const zoauth_provider_login_opts *o) {
  if (o->device) return true;
  if (p->flow) return !strcmp(p->flow, "device");
  return !p->authorize_url && p->device_url;
}

static int browser_login(const zoauth_provider *p, const zoauth_provider_login_opts *o,
                         const endpoints *e, const char *scope, const char *method,
                         zoauth_tokens *t, zerr *err) {
  int port = 0;
  int lfd = zoauth_loopback_listen(&port, err);
  if (lfd < 0) return -1;
  char redirect[64];
  snprintf(redirect, sizeof redirect, "http://127.0.0.1:%d/callback", port);
  zoauth_code_req req = {.authorization_endpoint = e->authorize,
                         .token_endpoint = e->token,
                         .redirect_uri = redirect,
                         .client_id = p->client_id,
                         .client_secret = p->client_secret,
                         .auth_method = method,
                         .scope = scope};
  int rc = zoauth_code_flow(&req, lfd, &o->ui, t, err);
  close(lfd);
  return rc;
}

int zoauth_provider_login(const zoauth_provider *p, const zoauth_provider_login_opts *o,
                          zerr *err) {
  if (p->flow && strcmp(p->flow, "device") && strcmp(p->flow, "browser"))
    return zerr_set(err, ZE_CONFIG,
                    "the flow of OAuth provider \"%s\" is \"%.40s\"; use "
                    "\"browser\" or \"device\"",
                    p->name, p->flow);
  bool device = wants_device(p, o);
  endpoints e;
  zoauth_tokens t = {0};
  int rc = resolve_endpoints(p, device, &e, err);
  const char *scope = o->scope ? o->scope : p->scopes;
  if (rc == 0) {
    t.token_auth_method =
        xstrdup(zoauth_token_auth_method(NULL, e.auth_methods, p->client_secret != NULL));
    if (device) {
      zoauth_device_req req = {.device_endpoint = e.device,
                               .token_endpoint = e.token,
                               .client_id = p->client_id,
                               .client_secret = p->client_secret,
                               .auth_method = t.token_auth_method,
                               .scope = scope,
                               .show_code = o->show_code,
                               .ud = o->ui.ud,
                               .sleep_s = o->sleep_s};
      rc = zoauth_device_flow(&req, &t, err);
    } else {
      rc = browser_login(p, o, &e, scope, t.token_auth_method, &t, err);
    }
  }
  if (rc == 0) {
    t.client_id = xstrdup(p->client_id);
    t.client_secret = p->client_secret ? xstrdup(p->client_secret) : NULL;
    t.token_endpoint = xstrdup(e.token);
    if (!t.scope && scope) t.scope = xstrdup(scope);
    cleanup_free char *key = zoauth_provider_key(p->name);
    rc = zoauth_store_save(key, &t, err);
  }
  zoauth_tokens_release(&t);
  endpoints_release(&e);
  return rc;
}

int zoauth_provider_bearer(const char *name, bool force, char **token, zerr *err) {
  *token = NULL;
  cleanup_free char *key = zoauth_provider_key(name);
  zoauth_tokens t;
  if (zoauth_store_load(key, &t, err) < 0) {
    if (err->kind == ZE_NOT_FOUND)
      zerr_set(err, ZE_CONFIG, "not logged in to OAuth provider \"%s\"; run `zero auth login %s`",
               name, name);
    return -1;
  }
  int64_t at = zoauth_refresh_at(&t);
  if (force || (at && at <= (int64_t)time(NULL))) {
    char what[128], again[128];
    snprintf(what, sizeof what, "OAuth provider \"%s\"", name);
    snprintf(again, sizeof again, "zero auth login %s", name);
    if (!t.refresh_token || !t.token_endpoint) {
      zoauth_tokens_release(&t);
      return zerr_set(err, ZE_CONFIG,
                      "the OAuth token of provider \"%s\" has expired and cannot be refreshed; "
                      "run `%s`",
                      name, again);
    }
    if (zoauth_refresh(key, what, again, &t, err) < 0) {
      zoauth_tokens_release(&t);
      return -1;
    }
  }
  *token = steal_pointer(&t.access_token);
  zoauth_tokens_release(&t);
  return 0;
}
