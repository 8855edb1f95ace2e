/* http.c — the OAuth module's HTTP requests; see http.h. */
#include "oauth/http.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/base64.h"
#include "base/common.h"
#include "base/json.h"
#include "base/redact.h"
#include "net/curl_loader.h"
#include "base/secrets.h"
#include "net/http.h"
#include "oauth/jwt.h"

void zoauth_form_add(zbuf *b, const char *k, const char *v) {
  if (!v) return;
  if (b->len) zbuf_addch(b, '&');
  zoauth_urlencode(b, k);
  zbuf_addch(b, '=');
  zoauth_urlencode(b, v);
}

static void fetch_on_header(void *ud, const char *line, size_t n) {
  zoauth_fetch *f = ud;
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
  zoauth_fetch *f = ud;
  if (f->body.len + len > ZOAUTH_MD_MAX_BYTES) {
    f->too_large = true;
    return 1;
  }
  zbuf_add(&f->body, data, len);
  return 0;
}

void zoauth_fetch_release(zoauth_fetch *f) {
  zbuf_release(&f->body);
  free(f->location);
  free(f->www_auth);
}

long zoauth_http(const char *method, const char *url, const char *const *headers, const char *body,
                 zoauth_fetch *f, zerr *err) {
  memset(f, 0, sizeof *f);
  zbuf_init(&f->body);
  if (zcurl_load(err) < 0) return -1;
  zhttp_global_init();
  zhttp_request req = {.method = method,
                       .url = url,
                       .headers = headers,
                       .body = body,
                       .body_len = body ? strlen(body) : 0,
                       .total_timeout_ms = ZOAUTH_HTTP_TIMEOUT_MS,
                       .on_header = fetch_on_header,
                       .header_ud = f};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  int rc = zhttp_perform(&req, &resp, fetch_on_body, f, err);
  long status = resp.status;
  if (rc == 0 && status >= 400) zbuf_add(&f->body, resp.error_body.data, resp.error_body.len);
  zhttp_response_release(&resp);
  if (f->too_large)
    return zerr_set(err, ZE_TOO_LARGE, "%s answered with more than %d bytes", url,
                    ZOAUTH_MD_MAX_BYTES);
  if (rc < 0) return -1;
  return status;
}

int zoauth_get_json(const char *url, zoauth_fetch *f, zerr *err) {
  const char *headers[] = {"Accept: application/json", NULL};
  long st = zoauth_http("GET", url, headers, NULL, f, err);
  if (st != 200) {
    zoauth_fetch_release(f);
    return st < 0 ? -1 : zerr_set(err, ZE_NOT_FOUND, "%s answered HTTP %ld", url, st);
  }
  return 0;
}

void zoauth_error_text(const zoauth_fetch *f, char *out, size_t n) {
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
    snprintf(out, n,
             "an answer of %zu bytes without an OAuth \"error\" member (not shown: it "
             "may hold credentials)",
             f->body.len);
  }
  zredact_inplace(out, n);
  json_decref(doc);
}

int zoauth_token_request(const char *endpoint, const char *form_in, const char *client_id,
                         const char *client_secret, const char *auth_method, zoauth_tokens *t,
                         char **error_code, zerr *err) {
  zoauth_client c = {.id = client_id, .secret = client_secret, .auth_method = auth_method};
  return zoauth_token_request_as(endpoint, form_in, &c, t, error_code, err);
}

/* Whether the form already holds parameter key (a plain name). */
static bool form_has(const zbuf *form, const char *key) {
  size_t kl = strlen(key);
  for (const char *p = form->data; p && *p;) {
    if (!strncmp(p, key, kl) && p[kl] == '=') return true;
    p = strchr(p, '&');
    if (p) p++;
  }
  return false;
}

/* The private_key_jwt parameters (RFC 7523 §2.2): client_id too, since
 * flows already add it only where they need it. */
static int add_client_assertion(zbuf *form, const zoauth_client *c, zerr *err) {
  if (!c->key_file)
    return zerr_set(err, ZE_CONFIG,
                    "the token endpoint wants private_key_jwt and no private key is configured "
                    "(\"oauth.privateKeyFile\")");
  cleanup_free char *jwt = zoauth_client_assertion(c->key_file, c->key_alg, c->id, c->audience,
                                                   (int64_t)time(NULL), err);
  if (!jwt) return -1;
  zsecret_add_value(jwt); /* a bearer credential for its few minutes */
  if (!form_has(form, "client_id")) zoauth_form_add(form, "client_id", c->id);
  zoauth_form_add(form, "client_assertion_type", ZOAUTH_ASSERTION_TYPE);
  zoauth_form_add(form, "client_assertion", jwt);
  return 0;
}

/* The Authorization header of client_secret_basic (RFC 6749 §2.3.1: both
 * parts form-encoded first) into auth. */
static void basic_auth(zbuf *auth, const char *id, const char *secret) {
  zbuf pair = ZBUF_INIT;
  zoauth_urlencode(&pair, id);
  zbuf_addch(&pair, ':');
  zoauth_urlencode(&pair, secret);
  zbuf_addstr(auth, "Authorization: Basic ");
  zbase64_add(auth, pair.data, pair.len);
  zbuf_release(&pair);
}

int zoauth_token_post(const char *endpoint, const char *form_in, const zoauth_client *c,
                      zoauth_fetch *f, char **error_code, zerr *err) {
  if (error_code) *error_code = NULL;
  memset(f, 0, sizeof *f);
  zbuf auth = ZBUF_INIT, form = ZBUF_INIT;
  const char *headers[4] = {"Content-Type: application/x-www-form-urlencoded",
                            "Accept: application/json", NULL, NULL};
  const char *method =
      c->auth_method ? c->auth_method : zoauth_token_auth_method(NULL, 0, c->secret != NULL);
  zbuf_addstr(&form, form_in);
  if (!strcmp(method, "private_key_jwt")) {
    if (add_client_assertion(&form, c, err) < 0) {
      zbuf_release(&form);
      return -1;
    }
  } else if (c->secret && !strcmp(method, "client_secret_post")) {
    zoauth_form_add(&form, "client_secret", c->secret);
  } else if (c->secret && !strcmp(method, "client_secret_basic")) {
    basic_auth(&auth, c->id, c->secret);
    headers[2] = auth.data;
  }
  long st = zoauth_http("POST", endpoint, headers, form.data, f, err);
  zbuf_release(&auth);
  zbuf_release(&form);
  if (st < 0) {
    zerr_prefix(err, "token endpoint %s", endpoint);
    return -1;
  }
  if (st >= 300 && st < 400)
    return zerr_set(err, ZE_PROVIDER,
                    "the token endpoint %s answered with a redirect (HTTP %ld to %s); zero never "
                    "follows redirects from a token endpoint, since the code or token would go "
                    "elsewhere — check the issuer's metadata or the \"oauth.tokenEndpoint\" "
                    "config",
                    endpoint, st, f->location ? f->location : "(no Location)");
  if (st != 200) {
    char why[300];
    zoauth_error_text(f, why, sizeof why);
    if (error_code && st == 400) {
      json_t *doc = json_loadb(f->body.data ? f->body.data : "", f->body.len, 0, NULL);
      const char *code = zjson_str(doc, "error");
      if (code) *error_code = xstrdup(code);
      json_decref(doc);
    }
    return zerr_set(err, ZE_PROVIDER, "the token endpoint %s refused the request (HTTP %ld): %s",
                    endpoint, st, why);
  }
  return 0;
}

int zoauth_token_request_as(const char *endpoint, const char *form_in, const zoauth_client *c,
                            zoauth_tokens *t, char **error_code, zerr *err) {
  zoauth_fetch f;
  int rc = zoauth_token_post(endpoint, form_in, c, &f, error_code, err);
  if (rc == 0)
    rc = zoauth_parse_token_response(f.body.data ? f.body.data : "", f.body.len,
                                     (int64_t)time(NULL), t, err);
  zoauth_fetch_release(&f);
  return rc;
}
