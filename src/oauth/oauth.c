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

#define MD_MAX_BYTES (256 * 1024) /* metadata / token answers */
#define HTTP_TIMEOUT_MS 30000

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

static void form_add(zbuf *b, const char *k, const char *v) {
  if (!v) return;
  if (b->len) zbuf_addch(b, '&');
  zoauth_urlencode(b, k);
  zbuf_addch(b, '=');
  zoauth_urlencode(b, v);
}

/* Decodes %XX and '+' in place. */
static void urldecode(char *s) {
  char *w = s;
  for (char *r = s; *r; r++) {
    if (*r == '+') {
      *w++ = ' ';
    } else if (*r == '%' && r[1] && r[2]) {
      char hex[3] = {r[1], r[2], 0};
      char *end;
      long v = strtol(hex, &end, 16);
      if (*end || v == 0) {
        *w++ = *r;
        continue;
      }
      *w++ = (char)v;
      r += 2;
    } else {
      *w++ = *r;
    }
  }
  *w = '\0';
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
  json_t *methods = json_object_get(doc, "code_challenge_methods_supported");
  json_t *auth_methods = json_object_get(doc, "token_endpoint_auth_methods_supported");
  int rc = 0;
  if (!is_http_url(authz) || !is_http_url(token)) {
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
    out->authorization_endpoint = xstrdup(authz);
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
  memset(t, 0, sizeof *t);
}

static char *token_dir(void) {
  cleanup_free char *dir = zpath_config_dir();
  return zpath_join(dir, "mcp-oauth");
}

char *zoauth_token_path(const char *server) {
  cleanup_free char *dir = token_dir();
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b, "%s/", dir);
  for (const char *p = server; *p; p++)
    zbuf_addch(&b, (isalnum((unsigned char)*p) || *p == '-' || *p == '_') ? *p : '_');
  zbuf_addstr(&b, ".json");
  return zbuf_detach(&b, NULL);
}

int zoauth_tokens_load(const char *server, zoauth_tokens *t, zerr *err) {
  memset(t, 0, sizeof *t);
  cleanup_free char *path = zoauth_token_path(server);
  if (!zfs_exists(path)) return zerr_set(err, ZE_NOT_FOUND, "no OAuth tokens for \"%s\"", server);
  json_t *doc = zjson_load_file(path, err);
  if (!doc) return -1;
  if (!json_is_object(doc) || !zjson_str(doc, "access_token")) {
    json_decref(doc);
    return zerr_set(err, ZE_INVALID, "%s is not a token file; run `zero mcp login %s` again",
                    path, server);
  }
  const char *keys[] = {"access_token", "refresh_token", "token_type", "scope", "client_id",
                        "client_secret", "token_endpoint", "resource", "server_url",
                        "token_endpoint_auth_method", "step_up_scope", "grant_type"};
  char **dst[] = {&t->access_token, &t->refresh_token, &t->token_type, &t->scope, &t->client_id,
                  &t->client_secret, &t->token_endpoint, &t->resource, &t->server_url,
                  &t->token_auth_method, &t->step_up_scope, &t->grant_type};
  for (size_t i = 0; i < ZARRAY_LEN(keys); i++) set_str(dst[i], zjson_str(doc, keys[i]));
  t->expires_at = zjson_int_or(doc, "expires_at", 0);
  t->obtained_at = zjson_int_or(doc, "obtained_at", 0);
  json_decref(doc);
  zsecret_add_value(t->access_token); /* never printed (base/secrets.h) */
  zsecret_add_value(t->refresh_token);
  zsecret_add_value(t->client_secret);
  return 0;
}

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

/* Adds the scopes ud to the token file's "step_up_scope". */
static int add_step_up(json_t **doc, void *ud, zerr *err) {
  if (!json_is_object(*doc) || !zjson_str(*doc, "access_token"))
    return zerr_set(err, ZE_NOT_FOUND, "no OAuth tokens to widen");
  cleanup_free char *merged = zoauth_scope_union(zjson_str(*doc, "step_up_scope"), ud);
  if (merged) json_object_set_new(*doc, "step_up_scope", json_string(merged));
  return 0;
}

int zoauth_remember_step_up(const char *server, const char *scope, zerr *err) {
  cleanup_free char *path = zoauth_token_path(server);
  if (!zfs_exists(path)) return zerr_set(err, ZE_NOT_FOUND, "no OAuth tokens for \"%s\"", server);
  return zjson_update_file(path, JSON_PRESERVE_ORDER, 0600, add_step_up, (void *)scope, err);
}

/* The token file's new content: the whole document is this login's. */
static int replace_tokens(json_t **doc, void *ud, zerr *err) {
  (void)err;
  json_decref(*doc);
  *doc = json_incref(ud);
  return 0;
}

int zoauth_tokens_save(const char *server, const zoauth_tokens *t, zerr *err) {
  json_t *doc = json_object();
  const char *keys[] = {"server_url", "resource", "token_endpoint", "client_id", "client_secret",
                        "token_endpoint_auth_method", "token_type", "access_token",
                        "refresh_token", "scope", "step_up_scope", "grant_type"};
  const char *vals[] = {t->server_url, t->resource, t->token_endpoint, t->client_id,
                        t->client_secret, t->token_auth_method, t->token_type, t->access_token,
                        t->refresh_token, t->scope, t->step_up_scope, t->grant_type};
  for (size_t i = 0; i < ZARRAY_LEN(keys); i++)
    if (vals[i]) json_object_set_new(doc, keys[i], json_string(vals[i]));
  if (t->expires_at) json_object_set_new(doc, "expires_at", json_integer(t->expires_at));
  if (t->obtained_at) json_object_set_new(doc, "obtained_at", json_integer(t->obtained_at));
  cleanup_free char *path = zoauth_token_path(server);
  /* Under the file's lock (zjson_update_file), like every shared file: a
   * refresh and a login at once write one after the other, never a mix. */
  int rc = zjson_update_file(path, JSON_PRESERVE_ORDER, 0600, replace_tokens, doc, err);
  if (rc < 0 && err && err->kind == ZE_INVALID) {
    /* A corrupt token file is replaced by a new login, as before: under
     * the lock, without reading it. */
    cleanup_fd int lock = zfs_lock_path(path, err);
    rc = lock < 0 ? -1 : 0;
    if (rc == 0) {
      json_t *again = json_object();
      replace_tokens(&again, doc, err);
      rc = zjson_save_file(path, again, JSON_PRESERVE_ORDER, 0600, err);
      json_decref(again);
    }
  }
  json_decref(doc);
  return rc < 0 ? -1 : 0;
}

int zoauth_tokens_delete(const char *server, zerr *err) {
  cleanup_free char *path = zoauth_token_path(server);
  cleanup_free char *dir = token_dir();
  if (!zfs_is_dir(dir)) return 0;
  cleanup_fd int lock = zfs_lock_path(path, err); /* not while a save is under way */
  if (lock < 0) return -1;
  if (unlink(path) == 0) return 1;
  if (errno == ENOENT) return 0;
  return zerr_errno(err, ZE_IO, "cannot remove %s", path);
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
                  "refusing the OAuth %s of MCP server \"%s\": %.300s is not https, and "
                  "credentials (codes, PKCE verifiers, tokens, client secrets) would cross the "
                  "network in clear text. Use an https:// URL (plain http is allowed only to "
                  "localhost / 127.0.0.1 / [::1]); if discovery found it, the server's OAuth "
                  "metadata is wrong: set \"oauth.authorizationEndpoint\" and "
                  "\"oauth.tokenEndpoint\" (https) in the config",
                  what, server ? server : "?", url && *url ? url : "(none)");
}

/* ---- HTTP ------------------------------------------------------------------------- */

typedef struct fetch {
  zbuf body;
  char *location;
  char *www_auth;
  bool too_large;
} fetch;

static void fetch_on_header(void *ud, const char *line, size_t n) {
  fetch *f = ud;
  char **dst = NULL;
  size_t l = 0;
  if (n > 9 && !strncasecmp(line, "Location:", 9)) dst = &f->location, l = 9;
  else if (n > 17 && !strncasecmp(line, "WWW-Authenticate:", 17)) dst = &f->www_auth, l = 17;
  if (!dst) return;
  const char *s = line + l, *e = line + n;
  while (s < e && (*s == ' ' || *s == '\t')) s++;
  while (e > s && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' ')) e--;
  free(*dst);
  *dst = xstrndup(s, (size_t)(e - s));
}

static int fetch_on_body(void *ud, const char *data, size_t len) {
  fetch *f = ud;
  if (f->body.len + len > MD_MAX_BYTES) {
    f->too_large = true;
    return 1;
  }
  zbuf_add(&f->body, data, len);
  return 0;
}

static void fetch_release(fetch *f) {
  zbuf_release(&f->body);
  free(f->location);
  free(f->www_auth);
}

/* One request; never follows redirects. Returns the status (>0), or -1 with
 * err on transport failure. Bodies of >= 400 answers are in f->body too. */
static long do_http(const char *method, const char *url, const char *const *headers,
                    const char *body, fetch *f, zerr *err) {
  memset(f, 0, sizeof *f);
  zbuf_init(&f->body);
  if (zcurl_load(err) < 0) return -1;
  zhttp_global_init();
  zhttp_request req = {.method = method, .url = url, .headers = headers, .body = body,
                       .body_len = body ? strlen(body) : 0, .total_timeout_ms = HTTP_TIMEOUT_MS,
                       .on_header = fetch_on_header, .header_ud = f};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  int rc = zhttp_perform(&req, &resp, fetch_on_body, f, err);
  long status = resp.status;
  if (rc == 0 && status >= 400) zbuf_add(&f->body, resp.error_body.data, resp.error_body.len);
  zhttp_response_release(&resp);
  if (f->too_large)
    return zerr_set(err, ZE_TOO_LARGE, "%s answered with more than %d bytes", url, MD_MAX_BYTES);
  if (rc < 0) return -1;
  return status;
}

/* "error: error_description" of an OAuth error answer, or the first bytes. */
static void oauth_error_text(const fetch *f, char *out, size_t n) {
  json_t *doc = json_loadb(f->body.data ? f->body.data : "", f->body.len, 0, NULL);
  const char *e = zjson_str(doc, "error"), *d = zjson_str(doc, "error_description");
  if (e) {
    snprintf(out, n, "%s%s%s", e, d ? ": " : "", d ? d : "");
  } else if (!f->body.len) {
    snprintf(out, n, "(no body)");
  } else {
    /* No OAuth error object: the body may be anything, tokens included
     * (an endpoint echoing the request, a form-encoded answer), so it is
     * described, never echoed. */
    snprintf(out, n, "an answer of %zu bytes without an OAuth \"error\" member (not shown: it "
             "may hold credentials)", f->body.len);
  }
  zredact_inplace(out, n);
  json_decref(doc);
}

/* POSTs a form to the token endpoint and reads the answer into t. The
 * client authenticates with auth_method (zoauth_token_auth_method's names;
 * NULL chooses as it does with nothing listed): the secret in an HTTP Basic
 * header, or appended to the form for client_secret_post. */
static int token_request(const char *endpoint, const char *form_in, const char *client_id,
                         const char *client_secret, const char *auth_method, zoauth_tokens *t,
                         zerr *err) {
  zbuf auth = ZBUF_INIT, form = ZBUF_INIT;
  const char *headers[4] = {"Content-Type: application/x-www-form-urlencoded",
                            "Accept: application/json", NULL, NULL};
  const char *method = auth_method ? auth_method
                                   : zoauth_token_auth_method(NULL, 0, client_secret != NULL);
  zbuf_addstr(&form, form_in);
  if (client_secret && !strcmp(method, "client_secret_post")) {
    form_add(&form, "client_secret", client_secret);
  } else if (client_secret && !strcmp(method, "client_secret_basic")) {
    /* client_secret_basic (RFC 6749 §2.3.1): both parts form-encoded first. */
    zbuf pair = ZBUF_INIT;
    zoauth_urlencode(&pair, client_id);
    zbuf_addch(&pair, ':');
    zoauth_urlencode(&pair, client_secret);
    zbuf_addstr(&auth, "Authorization: Basic ");
    zbase64_add(&auth, pair.data, pair.len);
    zbuf_release(&pair);
    headers[2] = auth.data;
  }
  fetch f;
  long st = do_http("POST", endpoint, headers, form.data, &f, err);
  zbuf_release(&auth);
  zbuf_release(&form);
  int rc = 0;
  if (st < 0) {
    zerr_prefix(err, "token endpoint %s", endpoint);
    rc = -1;
  } else if (st >= 300 && st < 400) {
    rc = zerr_set(err, ZE_PROVIDER,
                  "the token endpoint %s answered with a redirect (HTTP %ld to %s); zero never "
                  "follows redirects from a token endpoint, since the code or token would go "
                  "elsewhere — check the issuer's metadata or the \"oauth.tokenEndpoint\" config",
                  endpoint, st, f.location ? f.location : "(no Location)");
  } else if (st != 200) {
    char why[300];
    oauth_error_text(&f, why, sizeof why);
    rc = zerr_set(err, ZE_PROVIDER, "the token endpoint %s refused the request (HTTP %ld): %s",
                  endpoint, st, why);
  } else {
    rc = zoauth_parse_token_response(f.body.data ? f.body.data : "", f.body.len,
                                     (int64_t)time(NULL), t, err);
  }
  fetch_release(&f);
  return rc;
}

/* ---- bearer (refresh) ------------------------------------------------------------ */

static bool is_client_credentials(const zoauth_tokens *t) {
  return t->grant_type && !strcmp(t->grant_type, "client_credentials") && t->client_secret;
}

static int refresh(const char *server, zoauth_tokens *t, zerr *err) {
  /* The stored endpoint is checked again: the token file may be older than
   * this rule, or edited. */
  if (zoauth_check_credential_url("token endpoint", t->token_endpoint, server, err) < 0) return -1;
  zbuf form = ZBUF_INIT;
  if (is_client_credentials(t)) {
    /* No user took part: the same grant again gives a new token. */
    form_add(&form, "grant_type", "client_credentials");
    form_add(&form, "scope", t->scope);
  } else {
    form_add(&form, "grant_type", "refresh_token");
    form_add(&form, "refresh_token", t->refresh_token);
  }
  form_add(&form, "client_id", t->client_id);
  form_add(&form, "resource", t->resource);
  int rc = token_request(t->token_endpoint, form.data, t->client_id, t->client_secret,
                         t->token_auth_method, t, err);
  zbuf_release(&form);
  if (rc < 0) {
    zerr_prefix(err, "refreshing the OAuth token of MCP server \"%s\" failed", server);
    size_t used = strlen(err->msg);
    snprintf(err->msg + used, sizeof err->msg - used, "; run `zero mcp login %s` to sign in again",
             server);
    return -1;
  }
  return zoauth_tokens_save(server, t, err);
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
  zbuf b = ZBUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  zbuf_vaddf(&b, fmt, ap);
  va_end(ap);
  l->o->note(l->o->ud, b.data);
  zbuf_release(&b);
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
  fetch f;
  zerr ignore = ZERR_INIT;
  long st = do_http("POST", l->cfg->url, headers, body, &f, &ignore);
  free(body);
  l->probe_status = st;
  if (st == 401 || st == 403) l->www_auth = f.www_auth ? xstrdup(f.www_auth) : NULL;
  fetch_release(&f);
}

static int get_json(const char *url, fetch *f, zerr *err) {
  const char *headers[] = {"Accept: application/json", NULL};
  long st = do_http("GET", url, headers, NULL, f, err);
  if (st != 200) {
    fetch_release(f);
    return st < 0 ? -1 : zerr_set(err, ZE_NOT_FOUND, "%s answered HTTP %ld", url, st);
  }
  return 0;
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
    fetch f;
    zerr e = ZERR_INIT;
    if (get_json(*u, &f, &e) < 0) continue;
    rc = zoauth_parse_resource_md(f.body.data ? f.body.data : "", f.body.len, &l->prm, err);
    fetch_release(&f);
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
    fetch f;
    zerr e = ZERR_INIT;
    if (get_json(*u, &f, &e) < 0) continue;
    rc = zoauth_parse_as_md(f.body.data ? f.body.data : "", f.body.len, expected_issuer, &l->as,
                            err);
    fetch_release(&f);
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
  json_t *req = json_pack("{s:s, s:[s], s:[s,s], s:[s], s:s}", "client_name", "zero",
                          "redirect_uris", l->redirect_uri, "grant_types", "authorization_code",
                          "refresh_token", "response_types", "code",
                          "token_endpoint_auth_method", "none");
  if (l->scope) json_object_set_new(req, "scope", json_string(l->scope));
  char *body = json_dumps(req, JSON_COMPACT);
  json_decref(req);
  const char *headers[] = {"Content-Type: application/json", "Accept: application/json", NULL};
  fetch f;
  long st = do_http("POST", l->as.registration_endpoint, headers, body, &f, err);
  free(body);
  if (st < 0) {
    fetch_release(&f);
    return -1;
  }
  int rc = 0;
  if (st != 201 && st != 200) {
    char why[300];
    oauth_error_text(&f, why, sizeof why);
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
  fetch_release(&f);
  return rc;
}

/* ---- login: the loopback callback ---------------------------------------------------- */

static int listen_loopback(int *port, zerr *err) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return zerr_errno(err, ZE_IO, "cannot create the OAuth callback socket");
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t al = sizeof a;
  if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 8) < 0 ||
      getsockname(fd, (struct sockaddr *)&a, &al) < 0) {
    zerr_errno(err, ZE_IO, "cannot listen on 127.0.0.1 for the OAuth callback");
    close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

static void respond(int fd, int status, const char *title, const char *text) {
  zbuf page = ZBUF_INIT, r = ZBUF_INIT;
  zbuf_addf(&page,
            "<!doctype html><meta charset=utf-8><title>zero</title>"
            "<h1>%s</h1><p>%s</p>\n",
            title, text);
  zbuf_addf(&r,
            "HTTP/1.1 %d %s\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %zu\r\n"
            "Cache-Control: no-store\r\nConnection: close\r\n\r\n%s",
            status, status == 200 ? "OK" : status == 404 ? "Not Found" : "Bad Request", page.len,
            page.data);
  if (zfs_write_all(fd, r.data, r.len) < 0) {
    /* the browser closed the connection: the login goes on without its page */
  }
  zbuf_release(&page);
  zbuf_release(&r);
}

/* The value of key in a query string (decoded), or NULL. Caller frees. */
static char *query_param(const char *query, const char *key) {
  size_t kl = strlen(key);
  for (const char *p = query; p && *p;) {
    const char *e = p + strcspn(p, "&");
    if ((size_t)(e - p) > kl && !strncmp(p, key, kl) && p[kl] == '=') {
      char *v = xstrndup(p + kl + 1, (size_t)(e - p - kl - 1));
      urldecode(v);
      return v;
    }
    p = *e ? e + 1 : e;
  }
  return NULL;
}

/* Reads one request head from a connection (bounded). */
static char *read_request(int fd, int64_t deadline) {
  zbuf b = ZBUF_INIT;
  char buf[1024];
  while (b.len < 16384) {
    int64_t left = deadline - ztime_mono_ms();
    if (left <= 0) break;
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, left > 5000 ? 5000 : (int)left) <= 0) break;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    zbuf_add(&b, buf, (size_t)n);
    if (strstr(b.data, "\r\n\r\n") || strstr(b.data, "\n\n")) return zbuf_detach(&b, NULL);
  }
  zbuf_release(&b);
  return NULL;
}

/* Waits for the browser's redirect to /callback; *code on success. */
static int await_callback(int lfd, const char *state, int timeout_ms, char **code, zerr *err) {
  int64_t deadline = ztime_mono_ms() + timeout_ms;
  for (;;) {
    int64_t left = deadline - ztime_mono_ms();
    if (left <= 0)
      return zerr_set(err, ZE_TIMEOUT,
                      "no authorization arrived within %d s; run `zero mcp login` again and "
                      "open the URL it prints",
                      timeout_ms / 1000);
    struct pollfd p[2] = {{lfd, POLLIN, 0}, {zcancel_fd(), POLLIN, 0}};
    int np = zcancel_fd() >= 0 ? 2 : 1;
    if (zcancel_requested()) return zerr_set(err, ZE_CANCELLED, "login cancelled");
    if (poll(p, (nfds_t)np, left > 1000 ? 1000 : (int)left) <= 0) continue;
    if (zcancel_requested()) return zerr_set(err, ZE_CANCELLED, "login cancelled");
    if (!(p[0].revents & POLLIN)) continue;
    cleanup_fd int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0) continue;
    cleanup_free char *req = read_request(c, ztime_mono_ms() + 10000);
    if (!req) continue;
    /* "GET /callback?code=…&state=… HTTP/1.1" */
    if (strncmp(req, "GET ", 4) != 0) {
      respond(c, 400, "Bad request", "zero expected the authorization redirect here.");
      continue;
    }
    char *target = req + 4;
    target[strcspn(target, " \r\n")] = '\0';
    char *query = strchr(target, '?');
    if (query) *query++ = '\0';
    if (strcmp(target, "/callback") != 0) {
      respond(c, 404, "Not found", "This is zero's OAuth callback; nothing else lives here.");
      continue;
    }
    cleanup_free char *got_state = query_param(query, "state");
    cleanup_free char *error = query_param(query, "error");
    cleanup_free char *desc = query_param(query, "error_description");
    cleanup_free char *got_code = query_param(query, "code");
    if (!got_state || strcmp(got_state, state) != 0) {
      respond(c, 400, "Authorization refused",
              "The state parameter does not match this login; zero ignored the answer. Run "
              "<code>zero mcp login</code> again.");
      return zerr_set(err, ZE_PROVIDER,
                      "the authorization redirect carried a %s state; the login was refused "
                      "(possible cross-site request forgery). Run `zero mcp login` again",
                      got_state ? "wrong" : "missing");
    }
    if (error) {
      respond(c, 400, "Authorization failed", "The authorization server refused; see zero's "
              "terminal.");
      return zerr_set(err, ZE_PROVIDER, "the authorization server refused: %.100s%s%.300s",
                      error, desc ? ": " : "", desc ? desc : "");
    }
    if (!got_code || !got_code[0]) {
      respond(c, 400, "Authorization failed", "The redirect carried no code.");
      return zerr_set(err, ZE_PROVIDER, "the authorization redirect carried no code");
    }
    respond(c, 200, "zero is authorized", "You can close this tab and return to the terminal.");
    *code = steal_pointer(&got_code);
    return 0;
  }
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
  form_add(&form, "grant_type", "client_credentials");
  form_add(&form, "scope", l->scope);
  form_add(&form, "resource", l->resource);
  t.token_auth_method = xstrdup(zoauth_token_auth_method(NULL, l->as.token_auth_methods, true));
  int rc = token_request(l->as.token_endpoint, form.data, cfg->oauth.client_id,
                         cfg->oauth.client_secret, t.token_auth_method, &t, err);
  zbuf_release(&form);
  if (rc == 0) {
    note(l, "Client-credentials grant: no browser needed");
    t.grant_type = xstrdup("client_credentials");
    t.client_id = xstrdup(cfg->oauth.client_id);
    t.client_secret = xstrdup(cfg->oauth.client_secret);
    t.token_endpoint = xstrdup(l->as.token_endpoint);
    t.resource = xstrdup(l->resource);
    t.server_url = xstrdup(cfg->url);
    if (!t.scope && l->scope) t.scope = xstrdup(l->scope);
    rc = zoauth_tokens_save(cfg->name, &t, err);
  }
  zoauth_tokens_release(&t);
  return rc;
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
  int lfd = -1, rc = -1;
  char *verifier = NULL, *state = NULL, *code = NULL;
  zbuf url = ZBUF_INIT, form = ZBUF_INIT;
  zoauth_tokens t = {0};
  char challenge[ZOAUTH_CHALLENGE_LEN + 1];

  if (!(cfg->oauth.authorization_endpoint && cfg->oauth.token_endpoint)) {
    /* Discovery starts at the server: what it says decides where the
     * credentials go, so it is trusted only over https (or loopback). */
    if (zoauth_check_credential_url("server URL (discovery starts there)", cfg->url, cfg->name,
                                    err) < 0)
      goto out;
    probe(&l);
    if (discover_resource(&l, err) < 0) goto out;
    if (!l.have_prm && l.probe_status >= 200 && l.probe_status < 300 && !cfg->oauth.issuer_url) {
      zerr_set(err, ZE_USAGE,
               "MCP server \"%s\" (%s) answered without asking for authorization (HTTP %ld) "
               "and publishes no OAuth metadata: it needs no login",
               cfg->name, cfg->url, l.probe_status);
      goto out;
    }
  }
  if (discover_issuer(&l, err) < 0 || pick_resource(&l, err) < 0) goto out;
  /* Again after discovery: the metadata may point anywhere. */
  if (zoauth_check_credential_url("authorization endpoint", l.as.authorization_endpoint,
                                  cfg->name, err) < 0 ||
      zoauth_check_credential_url("token endpoint", l.as.token_endpoint, cfg->name, err) < 0)
    goto out;
  if (l.as.client_credentials_only && cfg->oauth.client_id && cfg->oauth.client_secret) {
    rc = client_credentials_login(&l, err);
    goto out;
  }
  int port = 0;
  if ((lfd = listen_loopback(&port, err)) < 0) goto out;
  zbuf_addf(&url, "http://127.0.0.1:%d/callback", port);
  l.redirect_uri = zbuf_detach(&url, NULL);
  if (register_client(&l, err) < 0) goto out;

  verifier = zoauth_random_string(48); /* 64 characters (RFC 7636 §4.1: 43–128) */
  state = zoauth_random_string(24);
  if (zoauth_pkce_challenge(verifier, challenge, err) < 0) goto out;
  zbuf_addstr(&url, l.as.authorization_endpoint);
  zbuf_addch(&url, strchr(l.as.authorization_endpoint, '?') ? '&' : '?');
  zbuf q = ZBUF_INIT;
  form_add(&q, "response_type", "code");
  form_add(&q, "client_id", l.client_id);
  form_add(&q, "redirect_uri", l.redirect_uri);
  form_add(&q, "code_challenge", challenge);
  form_add(&q, "code_challenge_method", "S256");
  form_add(&q, "state", state);
  form_add(&q, "scope", l.scope);
  form_add(&q, "resource", l.resource);
  zbuf_add(&url, q.data, q.len);
  zbuf_release(&q);
  o->show_url(o->ud, url.data);

  if (await_callback(lfd, state, o->timeout_ms > 0 ? o->timeout_ms : ZOAUTH_LOGIN_TIMEOUT_MS,
                     &code, err) < 0)
    goto out;
  close(lfd);
  lfd = -1;

  form_add(&form, "grant_type", "authorization_code");
  form_add(&form, "code", code);
  form_add(&form, "redirect_uri", l.redirect_uri);
  form_add(&form, "client_id", l.client_id);
  form_add(&form, "code_verifier", verifier);
  form_add(&form, "resource", l.resource);
  t.token_auth_method = xstrdup(zoauth_token_auth_method(
      l.registered_auth_method, l.as.token_auth_methods, l.client_secret != NULL));
  if (token_request(l.as.token_endpoint, form.data, l.client_id, l.client_secret,
                    t.token_auth_method, &t, err) < 0)
    goto out;
  t.client_id = steal_pointer(&l.client_id);
  t.client_secret = steal_pointer(&l.client_secret);
  t.token_endpoint = xstrdup(l.as.token_endpoint);
  t.resource = xstrdup(l.resource);
  t.server_url = xstrdup(cfg->url);
  rc = zoauth_tokens_save(cfg->name, &t, err);
out:
  if (lfd >= 0) close(lfd);
  free(verifier);
  free(state);
  free(code);
  zbuf_release(&url);
  zbuf_release(&form);
  zoauth_tokens_release(&t);
  login_release(&l);
  return rc;
}
