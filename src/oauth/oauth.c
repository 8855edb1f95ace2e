/* oauth.c — OAuth 2.1 for remote MCP servers; see oauth.h. */
#include "oauth/oauth.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/base64.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/ids.h"
#include "base/json.h"
#include "base/path.h"
#include "base/redact.h"
#include "base/secrets.h"
#include "base/strvec.h"
#include "base/time.h"
#include "base/url.h"
#include "net/curl_loader.h"
#include "net/http.h"
#include "oauth/http.h"

char *zoauth_base64url(const unsigned char *data, size_t len) {
  zbuf b = ZBUF_INIT;
  zbase64url_add(&b, data, len);
  return zbuf_detach(&b, NULL);
}

char *zoauth_random_string(size_t nbytes) {
  unsigned char buf[64];
  if (nbytes > sizeof buf) nbytes = sizeof buf;
  zid_random(buf, nbytes);
  return zoauth_base64url(buf, nbytes);
}

int zoauth_pkce_challenge(const char *verifier, char out[ZOAUTH_CHALLENGE_LEN + 1], zerr *err) {
  unsigned char d[32];
  if (zsha256(verifier, strlen(verifier), d, err) < 0) return -1;
  cleanup_free char *s = zoauth_base64url(d, sizeof d);
  snprintf(out, ZOAUTH_CHALLENGE_LEN + 1, "%s", s);
  return 0;
}

void zoauth_urlencode(zbuf *out, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        *p == '-' || *p == '.' || *p == '_' || *p == '~')
      zbuf_addch(out, (char)*p);
    else
      zbuf_addf(out, "%%%02X", *p);
  }
}

/* ---- metadata ------------------------------------------------------------------ */

char *zoauth_challenge_param(const char *header, const char *name) {
  if (!header) return NULL;
  const char *p = header;
  size_t nl = strlen(name);
  /* Walk "Scheme k=v, k="v", Scheme2 …"; only parameters of Bearer count. */
  bool bearer = false;
  while (*p) {
    while (*p == ' ' || *p == '\t' || *p == ',') p++;
    const char *tok = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '=' && *p != ',') p++;
    size_t tl = (size_t)(p - tok);
    if (!tl) break;
    const char *q = p;
    while (*q == ' ' || *q == '\t') q++;
    if (*q != '=' || q[1] == '=') {
      /* A scheme name (token68 values are not used by Bearer). */
      bearer = tl == 6 && !strncasecmp(tok, "Bearer", 6);
      continue;
    }
    p = q + 1;
    while (*p == ' ' || *p == '\t') p++;
    zbuf v = ZBUF_INIT;
    if (*p == '"') {
      p++;
      while (*p && *p != '"') {
        if (*p == '\\' && p[1]) p++;
        zbuf_addch(&v, *p++);
      }
      if (*p == '"') p++;
    } else {
      while (*p && *p != ',' && *p != ' ' && *p != '\t') zbuf_addch(&v, *p++);
    }
    if (bearer && tl == nl && !strncasecmp(tok, name, nl)) return zbuf_detach(&v, NULL);
    zbuf_release(&v);
  }
  return NULL;
}

static json_t *parse_object(const char *json, size_t len, const char *what, zerr *err) {
  json_error_t je;
  json_t *doc = json_loadb(json, len, 0, &je);
  if (!json_is_object(doc)) {
    json_decref(doc);
    zerr_set(err, ZE_INVALID, "%s is not a JSON object%s%s", what, doc ? "" : ": ",
             doc ? "" : je.text);
    return NULL;
  }
  return doc;
}

/* The non-empty strings of a JSON array (NULL when arr is no array). */
static char **string_array(const json_t *arr) {
  if (!json_is_array(arr)) return NULL;
  strvec v = STRVEC_INIT;
  size_t i;
  json_t *s;
  json_array_foreach(arr, i, s) if (json_is_string(s) && json_string_length(s))
      strvec_push(&v, json_string_value(s));
  return strvec_detach(&v);
}

static bool is_http_url(const char *s) {
  return s && (!strncmp(s, "https://", 8) || !strncmp(s, "http://", 7));
}

int zoauth_parse_resource_md(const char *json, size_t len, zoauth_resource_md *out, zerr *err) {
  memset(out, 0, sizeof *out);
  json_t *doc = parse_object(json, len, "the protected-resource metadata", err);
  if (!doc) return -1;
  const char *res = zjson_str(doc, "resource");
  out->resource = res ? xstrdup(res) : NULL;
  out->authorization_servers = string_array(json_object_get(doc, "authorization_servers"));
  out->scopes_supported = string_array(json_object_get(doc, "scopes_supported"));
  json_decref(doc);
  bool ok = out->authorization_servers && out->authorization_servers[0];
  for (char **p = out->authorization_servers; ok && *p; p++) ok = is_http_url(*p);
  if (!ok) {
    zoauth_resource_md_release(out);
    return zerr_set(err, ZE_INVALID,
                    "the protected-resource metadata names no authorization server "
                    "(\"authorization_servers\" must list http(s) URLs)");
  }
  return 0;
}

void zoauth_resource_md_release(zoauth_resource_md *md) {
  free(md->resource);
  strvec_free_array(md->authorization_servers);
  strvec_free_array(md->scopes_supported);
  memset(md, 0, sizeof *md);
}

/* Issuers compare without a trailing slash. */
static bool same_issuer(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  while (la && a[la - 1] == '/') la--;
  while (lb && b[lb - 1] == '/') lb--;
  return la == lb && !strncmp(a, b, la);
}

int zoauth_parse_as_md(const char *json, size_t len, const char *expected_issuer,
                       zoauth_as_md *out, zerr *err) {
  memset(out, 0, sizeof *out);
  json_t *doc = parse_object(json, len, "the authorization-server metadata", err);
  if (!doc) return -1;
  const char *issuer = zjson_str(doc, "issuer");
  const char *authz = zjson_str(doc, "authorization_endpoint");
  const char *token = zjson_str(doc, "token_endpoint");
  const char *reg = zjson_str(doc, "registration_endpoint");
  const char *device = zjson_str(doc, "device_authorization_endpoint");
  json_t *methods = json_object_get(doc, "code_challenge_methods_supported");
  json_t *auth_methods = json_object_get(doc, "token_endpoint_auth_methods_supported");
  int rc = 0;
  if ((!is_http_url(authz) && !is_http_url(device)) || !is_http_url(token)) {
    /* A device-only issuer (RFC 8628 §4) needs no authorization endpoint. */
    rc = zerr_set(err, ZE_INVALID,
                  "the authorization-server metadata lacks an http(s) "
                  "\"authorization_endpoint\" or \"token_endpoint\"");
  } else if (expected_issuer && issuer && !same_issuer(issuer, expected_issuer)) {
    rc = zerr_set(err, ZE_INVALID,
                  "the authorization-server metadata names issuer %s, not %s as expected "
                  "(RFC 8414 §3.3); refusing it",
                  issuer, expected_issuer);
  } else {
    out->methods_listed = json_is_array(methods);
    out->s256 = !out->methods_listed;
    size_t i;
    json_t *m;
    json_array_foreach(methods, i, m) if (json_is_string(m) &&
                                          !strcmp(json_string_value(m), "S256")) out->s256 = true;
    if (!out->s256)
      rc = zerr_set(err, ZE_INVALID,
                    "the authorization server does not support PKCE with S256 "
                    "(code_challenge_methods_supported); zero uses no weaker method");
  }
  if (rc == 0) {
    out->issuer = xstrdup(issuer ? issuer : expected_issuer ? expected_issuer : "");
    out->authorization_endpoint = is_http_url(authz) ? xstrdup(authz) : NULL;
    out->device_authorization_endpoint = is_http_url(device) ? xstrdup(device) : NULL;
    out->token_endpoint = xstrdup(token);
    out->registration_endpoint = is_http_url(reg) ? xstrdup(reg) : NULL;
    out->cimd = json_is_true(json_object_get(doc, "client_id_metadata_document_supported"));
    bool code = false, cc = false;
    size_t g;
    json_t *grant;
    json_array_foreach(json_object_get(doc, "grant_types_supported"), g, grant) {
      const char *name = json_string_value(grant);
      code = code || (name && !strcmp(name, "authorization_code"));
      cc = cc || (name && !strcmp(name, "client_credentials"));
    }
    out->client_credentials_only = cc && !code;
    size_t i;
    json_t *m;
    json_array_foreach(auth_methods, i, m) {
      const char *name = json_string_value(m);
      if (!name) continue;
      if (!strcmp(name, "client_secret_basic")) out->token_auth_methods |= ZOAUTH_AUTH_BASIC;
      else if (!strcmp(name, "client_secret_post")) out->token_auth_methods |= ZOAUTH_AUTH_POST;
      else if (!strcmp(name, "none")) out->token_auth_methods |= ZOAUTH_AUTH_NONE;
      else if (!strcmp(name, "private_key_jwt"))
        out->token_auth_methods |= ZOAUTH_AUTH_PRIVATE_KEY_JWT;
    }
  }
  json_decref(doc);
  return rc;
}

const char *zoauth_token_auth_method(const char *registered, unsigned supported,
                                     bool has_secret) {
  static const char *const known[] = {"client_secret_basic", "client_secret_post", "none"};
  if (!has_secret) return "none";
  for (size_t i = 0; registered && i < ZARRAY_LEN(known); i++)
    if (!strcmp(registered, known[i])) return known[i];
  if (supported & ZOAUTH_AUTH_BASIC) return "client_secret_basic";
  if (supported & ZOAUTH_AUTH_POST) return "client_secret_post";
  return supported == ZOAUTH_AUTH_NONE ? "none" : "client_secret_basic";
}

void zoauth_as_md_release(zoauth_as_md *md) {
  free(md->issuer);
  free(md->authorization_endpoint);
  free(md->token_endpoint);
  free(md->registration_endpoint);
  free(md->device_authorization_endpoint);
  memset(md, 0, sizeof *md);
}

/* Splits an http(s) URL into origin ("scheme://authority", as written) and
 * path (no query / fragment, no trailing '/'). false when zurl_parse
 * refuses the URL. */
static bool split_url(const char *url, char **origin, char **path) {
  zurl u;
  if (!is_http_url(url) || !zurl_parse(url, &u)) return false;
  const char *e = url + u.path_at;
  const char *pe = e + strcspn(e, "?#");
  *origin = xstrndup(url, (size_t)(e - url));
  while (pe > e && pe[-1] == '/') pe--;
  *path = xstrndup(e, (size_t)(pe - e));
  return true;
}

char *zoauth_origin(const char *url) {
  char *o, *p;
  if (!split_url(url, &o, &p)) return NULL;
  free(p);
  return o;
}

char **zoauth_resource_md_urls(const char *server_url) {
  cleanup_free char *origin = NULL, *path = NULL;
  if (!split_url(server_url, &origin, &path)) return NULL;
  /* RFC 9728 §3.1: the well-known segment goes between host and path; the
   * root document is tried after the path-specific one. */
  strvec v = STRVEC_INIT;
  if (path[0]) strvec_pushf(&v, "%s/.well-known/oauth-protected-resource%s", origin, path);
  strvec_pushf(&v, "%s/.well-known/oauth-protected-resource", origin);
  return strvec_detach(&v);
}

char **zoauth_as_md_urls(const char *issuer) {
  cleanup_free char *origin = NULL, *path = NULL;
  if (!split_url(issuer, &origin, &path)) return NULL;
  /* RFC 8414 §3.1 (inserted), then OpenID Connect Discovery: inserted, and
   * appended to the issuer path as OIDC Discovery 1.0 §4 defines it. */
  strvec v = STRVEC_INIT;
  strvec_pushf(&v, "%s/.well-known/oauth-authorization-server%s", origin, path);
  strvec_pushf(&v, "%s/.well-known/openid-configuration%s", origin, path);
  if (path[0]) strvec_pushf(&v, "%s%s/.well-known/openid-configuration", origin, path);
  return strvec_detach(&v);
}

/* ---- tokens ---------------------------------------------------------------------- */

/* The absolute expiry for an "expires_in" a server sent as a string of
 * seconds ("3600"); 0 (unknown) when it is not a positive number. */
static int64_t expiry_from_string(int64_t now, const char *s) {
  char *end = NULL;
  errno = 0;
  long long secs = strtoll(s, &end, 10);
  if (end == s || *end || errno || secs <= 0) return 0;
  return now + (int64_t)secs;
}

static void set_str(char **dst, const char *v) {
  if (!v) return;
  free(*dst);
  *dst = xstrdup(v);
}

int zoauth_parse_token_response(const char *json, size_t len, int64_t now, zoauth_tokens *t,
                                zerr *err) {
  json_t *doc = parse_object(json, len, "the token endpoint's answer", err);
  if (!doc) return -1;
  const char *access = zjson_str(doc, "access_token");
  const char *type = zjson_str(doc, "token_type");
  if (!access || !access[0]) {
    json_decref(doc);
    return zerr_set(err, ZE_INVALID, "the token endpoint's answer holds no access_token");
  }
  if (type && strcasecmp(type, "Bearer") != 0) {
    zerr_set(err, ZE_INVALID,
             "the token endpoint issued a \"%.40s\" token; zero can only use Bearer tokens",
             type);
    json_decref(doc);
    return -1;
  }
  set_str(&t->access_token, access);
  zsecret_add_value(access); /* never printed from now on (base/secrets.h) */
  zsecret_add_value(zjson_str(doc, "refresh_token"));
  t->obtained_at = now;
  set_str(&t->token_type, "Bearer");
  set_str(&t->refresh_token, zjson_str(doc, "refresh_token"));
  set_str(&t->scope, zjson_str(doc, "scope"));
  json_t *exp = json_object_get(doc, "expires_in");
  if (json_is_number(exp) && json_number_value(exp) > 0)
    t->expires_at = now + (int64_t)json_number_value(exp);
  else
    t->expires_at = json_is_string(exp) ? expiry_from_string(now, json_string_value(exp)) : 0;
  json_decref(doc);
  return 0;
}

void zoauth_tokens_release(zoauth_tokens *t) {
  free(t->access_token);
  free(t->refresh_token);
  free(t->token_type);
  free(t->scope);
  free(t->client_id);
  free(t->client_secret);
  free(t->token_auth_method);
  free(t->token_endpoint);
  free(t->resource);
  free(t->server_url);
  free(t->step_up_scope);
  free(t->grant_type);
  free(t->private_key_file);
  free(t->signing_alg);
  free(t->issuer);
  memset(t, 0, sizeof *t);
}

/* ---- scopes ----------------------------------------------------------------------- */

char *zoauth_scope_union(const char *a, const char *b) {
  zbuf out = ZBUF_INIT;
  const char *parts[] = {a, b};
  for (size_t i = 0; i < ZARRAY_LEN(parts); i++) {
    for (const char *p = parts[i]; p && *p;) {
      while (*p == ' ') p++;
      size_t n = strcspn(p, " ");
      if (!n) break;
      bool seen = false;
      for (const char *q = out.data; q && *q && !seen;) {
        size_t m = strcspn(q, " ");
        seen = m == n && !memcmp(q, p, n);
        q += m + (q[m] == ' ');
      }
      if (!seen) {
        if (out.len) zbuf_addch(&out, ' ');
        zbuf_add(&out, p, n);
      }
      p += n;
    }
  }
  return out.len ? zbuf_detach(&out, NULL) : (zbuf_release(&out), NULL);
}

/* ---- transport security ------------------------------------------------------------- */

int zoauth_check_credential_url(const char *what, const char *url, const char *server,
                                zerr *err) {
  /* base/url.h reads the host as curl does (userinfo up to the last
   * '@', strict host characters). */
  cleanup_free char *origin = zurl_origin(url);
  if (origin && !strncmp(origin, "https://", 8)) return 0;
  if (origin && zurl_is_loopback(url)) return 0;
  return zerr_set(err, ZE_CONFIG,
                  "refusing the OAuth %s of \"%s\": %.300s is not https, and "
                  "credentials (codes, PKCE verifiers, tokens, client secrets) would cross the "
                  "network in clear text. Use an https:// URL (plain http is allowed only to "
                  "localhost / 127.0.0.1 / [::1]); if discovery found it, the server's OAuth "
                  "metadata is wrong: configure https endpoints instead",
                  what, server ? server : "?", url && *url ? url : "(none)");
}

/* ---- bearer (refresh) ------------------------------------------------------------ */

static bool is_client_credentials(const zoauth_tokens *t) {
  return t->grant_type && !strcmp(t->grant_type, "client_credentials") &&
         (t->client_secret || t->private_key_file);
}

int zoauth_refresh(const char *key, const char *what, const char *again, zoauth_tokens *t,
                   zerr *err) {
  /* The stored endpoint is checked again: the store may be older than
   * this rule, or edited. */
  const char *colon = strchr(key, ':');
  if (zoauth_check_credential_url("token endpoint", t->token_endpoint, colon ? colon + 1 : key,
                                  err) < 0)
    return -1;
  zbuf form = ZBUF_INIT;
  if (is_client_credentials(t)) {
    /* No user took part: the same grant again gives a new token. */
    zoauth_form_add(&form, "grant_type", "client_credentials");
    zoauth_form_add(&form, "scope", t->scope);
  } else {
    zoauth_form_add(&form, "grant_type", "refresh_token");
    zoauth_form_add(&form, "refresh_token", t->refresh_token);
  }
  zoauth_form_add(&form, "client_id", t->client_id);
  zoauth_form_add(&form, "resource", t->resource);
  zoauth_client c = {.id = t->client_id,
                     .secret = t->client_secret,
                     .auth_method = t->token_auth_method,
                     .key_file = t->private_key_file,
                     .key_alg = t->signing_alg,
                     .audience = t->issuer};
  int rc = zoauth_token_request_as(t->token_endpoint, form.data, &c, t, NULL, err);
  zbuf_release(&form);
  if (rc < 0) {
    zerr_prefix(err, "refreshing the OAuth token of %s failed", what);
    size_t used = strlen(err->msg);
    snprintf(err->msg + used, sizeof err->msg - used, "; run `%s` to sign in again", again);
    return -1;
  }
  return zoauth_store_save(key, t, err);
}

static int refresh(const char *server, zoauth_tokens *t, zerr *err) {
  char key[300], what[300], again[300];
  snprintf(key, sizeof key, "mcp:%s", server);
  snprintf(what, sizeof what, "MCP server \"%s\"", server);
  snprintf(again, sizeof again, "zero mcp login %s", server);
  return zoauth_refresh(key, what, again, t, err);
}

int64_t zoauth_refresh_at(const zoauth_tokens *t) {
  if (!t->expires_at) return 0;
  int64_t margin = ZOAUTH_REFRESH_MARGIN_S;
  if (t->obtained_at && t->expires_at > t->obtained_at &&
      (t->expires_at - t->obtained_at) / 2 < margin)
    margin = (t->expires_at - t->obtained_at) / 2;
  return t->expires_at - margin;
}

int zoauth_bearer(const zmcp_server_cfg *cfg, char **token, int64_t *refresh_at, zerr *err) {
  *token = NULL;
  if (refresh_at) *refresh_at = 0;
  if (cfg->auth == ZMCP_AUTH_NONE) return 0;
  zoauth_tokens t;
  zerr lerr = ZERR_INIT;
  if (zoauth_tokens_load(cfg->name, &t, &lerr) < 0) {
    if (lerr.kind == ZE_NOT_FOUND) return 0;
    *err = lerr;
    return -1;
  }
  if (!t.server_url || !cfg->url || strcmp(t.server_url, cfg->url) != 0) {
    zoauth_tokens_release(&t); /* issued for another URL: never sent here */
    return 0;
  }
  if (zoauth_check_credential_url("server URL (where its token is sent)", cfg->url, cfg->name,
                                  err) < 0) {
    zoauth_tokens_release(&t);
    return -1;
  }
  int64_t now = (int64_t)time(NULL);
  if (t.expires_at && zoauth_refresh_at(&t) <= now) {
    if ((!t.refresh_token && !is_client_credentials(&t)) || !t.token_endpoint) {
      zoauth_tokens_release(&t);
      return zerr_set(err, ZE_PROVIDER,
                      "the OAuth token of MCP server \"%s\" has expired and cannot be "
                      "refreshed; run `zero mcp login %s`",
                      cfg->name, cfg->name);
    }
    if (refresh(cfg->name, &t, err) < 0) {
      zoauth_tokens_release(&t);
      return -1;
    }
  }
  *token = steal_pointer(&t.access_token);
  if (refresh_at) *refresh_at = zoauth_refresh_at(&t);
  zoauth_tokens_release(&t);
  return 0;
}

/* ---- login: discovery -------------------------------------------------------------- */

typedef struct login {
  const zmcp_server_cfg *cfg;
  const zoauth_login_opts *o;
  char *www_auth;              /* from the server's 401 */
  long probe_status;           /* how the server answered without a token */
  zoauth_resource_md prm;
  bool have_prm;
  zoauth_as_md as;
  char *resource;
  char *scope;
  char *client_id, *client_secret;
  char *registered_auth_method; /* token_endpoint_auth_method of the registration answer */
  char *redirect_uri;
} login;

static void note(login *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(login *l, const char *fmt, ...) {
  if (!l->o->note) return;
  va_list ap;
  va_start(ap, fmt);
  char *msg = xstrvfmt(fmt, ap);
  va_end(ap);
  l->o->note(l->o->ud, msg);
  free(msg);
}

/* Asks the server without a token, for its WWW-Authenticate challenge. */
static void probe(login *l) {
  json_t *init = json_pack("{s:s, s:i, s:s, s:{s:s, s:{}, s:{s:s, s:s}}}", "jsonrpc", "2.0",
                           "id", 0, "method", "initialize", "params", "protocolVersion",
                           "2025-06-18", "capabilities", "clientInfo", "name", "zero",
                           "version", ZERO_VERSION);
  char *body = json_dumps(init, JSON_COMPACT);
  json_decref(init);
  const char *headers[] = {"Content-Type: application/json",
                           "Accept: application/json, text/event-stream", NULL};
  zoauth_fetch f;
  zerr ignore = ZERR_INIT;
  long st = zoauth_http("POST", l->cfg->url, headers, body, &f, &ignore);
  free(body);
  l->probe_status = st;
  if (st == 401 || st == 403) l->www_auth = f.www_auth ? xstrdup(f.www_auth) : NULL;
  zoauth_fetch_release(&f);
}

static int discover_resource(login *l, zerr *err) {
  cleanup_free char *named = zoauth_challenge_param(l->www_auth, "resource_metadata");
  char **wellknown = zoauth_resource_md_urls(l->cfg->url);
  if (!wellknown)
    return zerr_set(err, ZE_CONFIG, "MCP server \"%s\" has no http(s) url", l->cfg->name);
  cleanup_strvec strvec urls = STRVEC_INIT;
  if (named) {
    /* Metadata decides where credentials go: https only (loopback excepted). */
    if (zoauth_check_credential_url("resource metadata", named, l->cfg->name, err) < 0) {
      strvec_free_array(wellknown);
      return -1;
    }
    strvec_push(&urls, named);
  }
  strvec_attach(&urls, wellknown);
  int rc = 0;
  for (char **u = urls.v; *u; u++) {
    zoauth_fetch f;
    zerr e = ZERR_INIT;
    if (zoauth_get_json(*u, &f, &e) < 0) continue;
    rc = zoauth_parse_resource_md(f.body.data ? f.body.data : "", f.body.len, &l->prm, err);
    zoauth_fetch_release(&f);
    if (rc < 0) {
      zerr_prefix(err, "%s", *u);
      break;
    }
    l->have_prm = true;
    note(l, "Protected-resource metadata: %s", *u);
    break;
  }
  return rc;
}

static int discover_issuer(login *l, zerr *err) {
  const zmcp_oauth_cfg *oc = &l->cfg->oauth;
  if (oc->authorization_endpoint && oc->token_endpoint) {
    if (zoauth_check_credential_url("authorization endpoint", oc->authorization_endpoint,
                                    l->cfg->name, err) < 0 ||
        zoauth_check_credential_url("token endpoint", oc->token_endpoint, l->cfg->name, err) < 0)
      return -1;
    l->as.authorization_endpoint = xstrdup(oc->authorization_endpoint);
    l->as.token_endpoint = xstrdup(oc->token_endpoint);
    l->as.registration_endpoint = oc->registration_endpoint ? xstrdup(oc->registration_endpoint)
                                                            : NULL;
    l->as.issuer = xstrdup(oc->issuer_url ? oc->issuer_url : "");
    l->as.s256 = true;
    return 0;
  }
  cleanup_free char *fallback_issuer = NULL;
  const char *issuer = oc->issuer_url;
  if (!issuer && l->have_prm) issuer = l->prm.authorization_servers[0];
  /* NOLINTNEXTLINE(clang-analyzer-deadcode.DeadStores): cleanup_free reads it */
  if (!issuer) issuer = fallback_issuer = zoauth_origin(l->cfg->url);
  if (zoauth_check_credential_url("issuer", issuer, l->cfg->name, err) < 0) return -1;
  char **urls = zoauth_as_md_urls(issuer);
  if (!urls)
    return zerr_set(err, ZE_CONFIG, "the authorization server %s is not an http(s) URL", issuer);
  /* An issuer someone named (the config, the resource metadata) must be the
   * one the metadata names (RFC 8414 §3.3, against mix-ups). The server's
   * own origin, used when nothing names one (revision 2025-03-26), is only
   * where to look: the metadata it serves names the issuer, with the same
   * trust as the server itself (its endpoints are checked below all the same). */
  const char *expected_issuer = fallback_issuer ? NULL : issuer;
  int rc = 1;
  for (char **u = urls; *u && rc == 1; u++) {
    zoauth_fetch f;
    zerr e = ZERR_INIT;
    if (zoauth_get_json(*u, &f, &e) < 0) continue;
    rc = zoauth_parse_as_md(f.body.data ? f.body.data : "", f.body.len, expected_issuer, &l->as,
                            err);
    zoauth_fetch_release(&f);
    if (rc < 0) zerr_prefix(err, "%s", *u);
    else note(l, "Authorization-server metadata: %s", *u);
  }
  strvec_free_array(urls);
  if (rc < 0) return -1;
  if (rc == 1) {
    if (l->have_prm)
      return zerr_set(err, ZE_NOT_FOUND,
                      "the authorization server %s publishes no metadata (tried "
                      "/.well-known/oauth-authorization-server and openid-configuration); set "
                      "\"oauth.authorizationEndpoint\" and \"oauth.tokenEndpoint\" for MCP "
                      "server \"%s\" in the config",
                      issuer, l->cfg->name);
    /* Revision 2025-03-26: default endpoints at the server's origin. */
    zbuf b = ZBUF_INIT;
    zbuf_addf(&b, "%s/authorize", issuer);
    l->as.authorization_endpoint = zbuf_detach(&b, NULL);
    zbuf_addf(&b, "%s/token", issuer);
    l->as.token_endpoint = zbuf_detach(&b, NULL);
    zbuf_addf(&b, "%s/register", issuer);
    l->as.registration_endpoint = zbuf_detach(&b, NULL);
    l->as.issuer = xstrdup(issuer);
    l->as.s256 = true;
    note(l, "No OAuth metadata found; using the default endpoints of %s", issuer);
  }
  return 0;
}

/* The RFC 8707 resource: the metadata's (when it belongs to the server's
 * origin), else the server URL. */
static int pick_resource(login *l, zerr *err) {
  if (l->have_prm && l->prm.resource) {
    cleanup_free char *a = zoauth_origin(l->prm.resource), *b = zoauth_origin(l->cfg->url);
    if (!a || !b || strcasecmp(a, b) != 0)
      return zerr_set(err, ZE_INVALID,
                      "the protected-resource metadata is for %s, not for MCP server \"%s\" "
                      "(%s); refusing it (RFC 9728 §3.3)",
                      l->prm.resource, l->cfg->name, l->cfg->url);
    l->resource = xstrdup(l->prm.resource);
  } else {
    l->resource = xstrdup(l->cfg->url);
  }
  zbuf s = ZBUF_INIT;
  if (l->cfg->oauth.scopes) {
    for (char **p = l->cfg->oauth.scopes; *p; p++) zbuf_addf(&s, "%s%s", s.len ? " " : "", *p);
  } else {
    cleanup_free char *ch = zoauth_challenge_param(l->www_auth, "scope");
    if (ch) zbuf_addstr(&s, ch);
    else if (l->have_prm)
      for (char **p = l->prm.scopes_supported; p && *p; p++) zbuf_addf(&s, "%s%s", s.len ? " " : "", *p);
  }
  l->scope = s.len ? zbuf_detach(&s, NULL) : NULL;
  zbuf_release(&s);
  /* Step-up: what a 403 insufficient_scope asked for since the last login
   * (kept in the token file for this URL) is asked for too. */
  zoauth_tokens old;
  zerr ignore = ZERR_INIT;
  if (zoauth_tokens_load(l->cfg->name, &old, &ignore) == 0) {
    if (old.step_up_scope && old.server_url && !strcmp(old.server_url, l->cfg->url)) {
      cleanup_free char *had = zoauth_scope_union(l->scope, old.scope);
      free(l->scope);
      l->scope = zoauth_scope_union(had, old.step_up_scope);
    }
    zoauth_tokens_release(&old);
  }
  return 0;
}

static int register_client(login *l, zerr *err) {
  if (l->cfg->oauth.client_id) {
    l->client_id = xstrdup(l->cfg->oauth.client_id);
    l->client_secret = l->cfg->oauth.client_secret ? xstrdup(l->cfg->oauth.client_secret) : NULL;
    return 0;
  }
  const char *cimd = l->cfg->oauth.client_metadata_url;
  if (cimd && l->as.cimd) {
    /* The document's URL is the client id (draft-ietf-oauth-client-id-metadata-document):
     * the issuer fetches it, so it must be https with a path. */
    if (strncmp(cimd, "https://", 8) != 0 || !strchr(cimd + 8, '/'))
      return zerr_set(err, ZE_CONFIG,
                      "\"oauth.clientMetadataURL\" of MCP server \"%s\" must be an https URL "
                      "with a path (the issuer fetches the client's metadata there): %s",
                      l->cfg->name, cimd);
    l->client_id = xstrdup(cimd);
    note(l, "Client id: the metadata document %s", cimd);
    return 0;
  }
  if (!l->as.registration_endpoint)
    return zerr_set(err, ZE_CONFIG,
                    "the authorization server of MCP server \"%s\" offers no dynamic client "
                    "registration; register zero there (redirect URI http://127.0.0.1/callback, "
                    "any port) and set \"oauth.clientID\" in the config",
                    l->cfg->name);
  if (zoauth_check_credential_url("registration endpoint", l->as.registration_endpoint,
                                  l->cfg->name, err) < 0)
    return -1;
  /* Without a redirect URI the client is registered for the device flow
   * (RFC 8628 §4 grant type; no redirect, no authorization responses). */
  json_t *req =
      l->redirect_uri
          ? json_pack("{s:s, s:[s], s:[s,s], s:[s], s:s}", "client_name", "zero", "redirect_uris",
                      l->redirect_uri, "grant_types", "authorization_code", "refresh_token",
                      "response_types", "code", "token_endpoint_auth_method", "none")
          : json_pack("{s:s, s:[], s:[s,s], s:[], s:s}", "client_name", "zero", "redirect_uris",
                      "grant_types", ZOAUTH_GRANT_DEVICE_CODE, "refresh_token", "response_types",
                      "token_endpoint_auth_method", "none");
  if (l->scope) json_object_set_new(req, "scope", json_string(l->scope));
  char *body = json_dumps(req, JSON_COMPACT);
  json_decref(req);
  const char *headers[] = {"Content-Type: application/json", "Accept: application/json", NULL};
  zoauth_fetch f;
  long st = zoauth_http("POST", l->as.registration_endpoint, headers, body, &f, err);
  free(body);
  if (st < 0) {
    zoauth_fetch_release(&f);
    return -1;
  }
  int rc = 0;
  if (st != 201 && st != 200) {
    char why[300];
    zoauth_error_text(&f, why, sizeof why);
    rc = zerr_set(err, ZE_PROVIDER,
                  "client registration at %s failed (HTTP %ld): %s; set \"oauth.clientID\" "
                  "for MCP server \"%s\" if you have registered zero yourself",
                  l->as.registration_endpoint, st, why, l->cfg->name);
  } else {
    json_t *doc = json_loadb(f.body.data ? f.body.data : "", f.body.len, 0, NULL);
    const char *id = zjson_str(doc, "client_id");
    if (!id || !id[0]) {
      rc = zerr_set(err, ZE_PROVIDER, "client registration at %s returned no client_id",
                    l->as.registration_endpoint);
    } else {
      l->client_id = xstrdup(id);
      const char *sec = zjson_str(doc, "client_secret");
      l->client_secret = sec && sec[0] ? xstrdup(sec) : NULL;
      const char *method = zjson_str(doc, "token_endpoint_auth_method");
      l->registered_auth_method = method ? xstrdup(method) : NULL;
      note(l, "Registered as OAuth client %s", id);
    }
    json_decref(doc);
  }
  zoauth_fetch_release(&f);
  return rc;
}

static void login_release(login *l) {
  free(l->www_auth);
  zoauth_resource_md_release(&l->prm);
  zoauth_as_md_release(&l->as);
  free(l->resource);
  free(l->scope);
  free(l->client_id);
  free(l->client_secret);
  free(l->registered_auth_method);
  free(l->redirect_uri);
}

/* The client-credentials grant (RFC 6749 §4.4; MCP SEP-1046): the
 * configured client asks for a token itself, no browser, and the tokens are
 * saved marked so that they are renewed the same way. */
static int client_credentials_login(login *l, zerr *err) {
  const zmcp_server_cfg *cfg = l->cfg;
  zoauth_tokens t = {0};
  zbuf form = ZBUF_INIT;
  zoauth_form_add(&form, "grant_type", "client_credentials");
  zoauth_form_add(&form, "scope", l->scope);
  zoauth_form_add(&form, "resource", l->resource);
  /* A configured private key means private_key_jwt (RFC 7523 §2.2):
   * the key proves who the client is, no secret crosses the network. */
  const char *key = cfg->oauth.private_key_file;
  t.token_auth_method = xstrdup(
      key ? "private_key_jwt" : zoauth_token_auth_method(NULL, l->as.token_auth_methods, true));
  if (key) {
    t.private_key_file = xstrdup(key);
    t.signing_alg = cfg->oauth.signing_algorithm ? xstrdup(cfg->oauth.signing_algorithm) : NULL;
    t.issuer = xstrdup(l->as.issuer);
  }
  zoauth_client c = {.id = cfg->oauth.client_id,
                     .secret = cfg->oauth.client_secret,
                     .auth_method = t.token_auth_method,
                     .key_file = t.private_key_file,
                     .key_alg = t.signing_alg,
                     .audience = t.issuer};
  int rc = zoauth_token_request_as(l->as.token_endpoint, form.data, &c, &t, NULL, err);
  zbuf_release(&form);
  if (rc == 0) {
    note(l, "Client-credentials grant%s: no browser needed", key ? " (private_key_jwt)" : "");
    t.grant_type = xstrdup("client_credentials");
    t.client_id = xstrdup(cfg->oauth.client_id);
    t.client_secret = cfg->oauth.client_secret ? xstrdup(cfg->oauth.client_secret) : NULL;
    t.token_endpoint = xstrdup(l->as.token_endpoint);
    t.resource = xstrdup(l->resource);
    t.server_url = xstrdup(cfg->url);
    if (!t.scope && l->scope) t.scope = xstrdup(l->scope);
    rc = zoauth_tokens_save(cfg->name, &t, err);
  }
  zoauth_tokens_release(&t);
  return rc;
}

/* How the token endpoint will be told who the client is: what registration
 * gave, else what the server offers, into t. */
static void pick_auth_method(const login *l, zoauth_tokens *t) {
  t->token_auth_method =
      xstrdup(zoauth_token_auth_method(l->registered_auth_method, l->as.token_auth_methods,
                                       l->client_secret != NULL));
}

/* After a flow gave tokens: what refreshing them needs later (the client,
 * the token endpoint, the resource, the server), moved or copied into t. */
static void keep_client(login *l, zoauth_tokens *t) {
  t->client_id = steal_pointer(&l->client_id);
  t->client_secret = steal_pointer(&l->client_secret);
  t->token_endpoint = xstrdup(l->as.token_endpoint);
  t->resource = xstrdup(l->resource);
  t->server_url = xstrdup(l->cfg->url);
}

/* `zero mcp login --device`: the device authorization grant (RFC 8628) at
 * the server's authorization server, for a machine without a browser. The
 * issuer must advertise device_authorization_endpoint; the client is the
 * configured one, else the metadata document, else one registered for the
 * device grant. t gets the tokens and what a refresh needs. */
static int device_login(login *l, zoauth_tokens *t, zerr *err) {
  const char *endpoint = l->as.device_authorization_endpoint;
  if (!endpoint)
    return zerr_set(err, ZE_CONFIG,
                    "the authorization server of MCP server \"%s\" (%s) offers no device "
                    "authorization endpoint (device_authorization_endpoint, RFC 8628); log in "
                    "without --device (the URL can be opened on another machine whose browser "
                    "reaches this one's 127.0.0.1 callback, e.g. through ssh -L)",
                    l->cfg->name, l->as.issuer ? l->as.issuer : "?");
  if (zoauth_check_credential_url("device authorization endpoint", endpoint, l->cfg->name, err) <
          0 ||
      register_client(l, err) < 0)
    return -1;
  pick_auth_method(l, t);
  zoauth_device_req r = {.device_endpoint = endpoint,
                         .token_endpoint = l->as.token_endpoint,
                         .client_id = l->client_id,
                         .client_secret = l->client_secret,
                         .auth_method = t->token_auth_method,
                         .scope = l->scope,
                         .resource = l->resource,
                         .show_code = l->o->show_code,
                         .ud = l->o->ud,
                         .sleep_s = l->o->sleep_s};
  if (zoauth_device_flow(&r, t, err) < 0) return -1;
  keep_client(l, t);
  return 0;
}

/* Step 1: from the server to its authorization server's endpoints, the
 * resource and the scopes, every endpoint checked (https, loopback
 * excepted) after discovery too, since the metadata may point anywhere. */
static int discover(login *l, zerr *err) {
  const zmcp_server_cfg *cfg = l->cfg;
  if (!(cfg->oauth.authorization_endpoint && cfg->oauth.token_endpoint)) {
    /* Discovery starts at the server: what it says decides where the
     * credentials go, so it is trusted only over https (or loopback). */
    if (zoauth_check_credential_url("server URL (discovery starts there)", cfg->url, cfg->name,
                                    err) < 0)
      return -1;
    probe(l);
    if (discover_resource(l, err) < 0) return -1;
    if (!l->have_prm && l->probe_status >= 200 && l->probe_status < 300 && !cfg->oauth.issuer_url)
      return zerr_set(err, ZE_USAGE,
                      "MCP server \"%s\" (%s) answered without asking for authorization (HTTP "
                      "%ld) and publishes no OAuth metadata: it needs no login",
                      cfg->name, cfg->url, l->probe_status);
  }
  if (discover_issuer(l, err) < 0 || pick_resource(l, err) < 0) return -1;
  if (l->as.authorization_endpoint &&
      zoauth_check_credential_url("authorization endpoint", l->as.authorization_endpoint, cfg->name,
                                  err) < 0)
    return -1;
  return zoauth_check_credential_url("token endpoint", l->as.token_endpoint, cfg->name, err);
}

/* Cross-app access (xaa.c) with the server's configured IdP. */
static int cross_app_login(login *l, zoauth_tokens *t, zerr *err) {
  const zmcp_server_cfg *cfg = l->cfg;
  zoauth_xaa_req x = {.idp = &cfg->oauth.idp,
                      .server = cfg->name,
                      .as = &l->as,
                      .client_id = cfg->oauth.client_id,
                      .client_secret = cfg->oauth.client_secret,
                      .scope = l->scope,
                      .resource = l->resource};
  if (zoauth_cross_app_access(&x, t, err) < 0) return -1;
  note(l, "Cross-app access: the ID token was exchanged at the identity provider");
  t->server_url = xstrdup(cfg->url);
  return 0;
}

/* Steps 2-4 in a browser: registration, the code flow with PKCE through
 * the loopback listener. */
static int browser_login(login *l, zoauth_tokens *t, zerr *err) {
  if (!l->as.authorization_endpoint)
    return zerr_set(err, ZE_CONFIG,
                    "the authorization server of MCP server \"%s\" offers only the device flow; "
                    "run `zero mcp login %s --device`",
                    l->cfg->name, l->cfg->name);
  int port = 0, lfd = zoauth_loopback_listen(&port, err);
  if (lfd < 0) return -1;
  zbuf url = ZBUF_INIT;
  zbuf_addf(&url, "http://127.0.0.1:%d/callback", port);
  l->redirect_uri = zbuf_detach(&url, NULL);
  int rc = register_client(l, err);
  if (rc == 0) {
    zoauth_code_req req = {.authorization_endpoint = l->as.authorization_endpoint,
                           .token_endpoint = l->as.token_endpoint,
                           .redirect_uri = l->redirect_uri,
                           .client_id = l->client_id,
                           .client_secret = l->client_secret,
                           .scope = l->scope,
                           .resource = l->resource};
    pick_auth_method(l, t);
    req.auth_method = t->token_auth_method;
    rc = zoauth_code_flow(&req, lfd, l->o, t, err);
  }
  close(lfd);
  if (rc < 0) return -1;
  keep_client(l, t);
  return 0;
}

int zoauth_login(const zmcp_server_cfg *cfg, const zoauth_login_opts *o, zerr *err) {
  if (cfg->type == ZMCP_STDIO || !cfg->url)
    return zerr_set(err, ZE_USAGE,
                    "MCP server \"%s\" runs over stdio; OAuth is for remote (http / sse) servers",
                    cfg->name);
  if (cfg->auth == ZMCP_AUTH_NONE)
    return zerr_set(err, ZE_USAGE,
                    "MCP server \"%s\" has \"auth\": \"none\" in %s; remove it to log in",
                    cfg->name, cfg->origin);
  login l = {.cfg = cfg, .o = o};
  zoauth_tokens t = {0};
  int rc = discover(&l, err);
  if (rc == 0 && l.as.client_credentials_only && cfg->oauth.client_id &&
      (cfg->oauth.client_secret || cfg->oauth.private_key_file)) {
    rc = client_credentials_login(&l, err); /* saves itself */
  } else if (rc == 0) {
    /* The grant: a device code, an enterprise IdP's assertion, or the browser. */
    if (o->device) rc = device_login(&l, &t, err);
    else if (cfg->oauth.idp.token_endpoint || cfg->oauth.idp.issuer_url)
      rc = cross_app_login(&l, &t, err);
    else rc = browser_login(&l, &t, err);
    if (rc == 0) rc = zoauth_tokens_save(cfg->name, &t, err);
  }
  zoauth_tokens_release(&t);
  login_release(&l);
  return rc;
}
