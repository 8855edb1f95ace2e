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
#include "net/http.h"

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
  if (error_code) *error_code = NULL;
  zbuf auth = ZBUF_INIT, form = ZBUF_INIT;
  const char *headers[4] = {"Content-Type: application/x-www-form-urlencoded",
                            "Accept: application/json", NULL, NULL};
  const char *method =
      auth_method ? auth_method : zoauth_token_auth_method(NULL, 0, client_secret != NULL);
  zbuf_addstr(&form, form_in);
  if (client_secret && !strcmp(method, "client_secret_post")) {
    zoauth_form_add(&form, "client_secret", client_secret);
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
  zoauth_fetch f;
  long st = zoauth_http("POST", endpoint, headers, form.data, &f, err);
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
    zoauth_error_text(&f, why, sizeof why);
    if (error_code && st == 400) {
      json_t *doc = json_loadb(f.body.data ? f.body.data : "", f.body.len, 0, NULL);
      const char *code = zjson_str(doc, "error");
      if (code) *error_code = xstrdup(code);
      json_decref(doc);
    }
    rc = zerr_set(err, ZE_PROVIDER, "the token endpoint %s refused the request (HTTP %ld): %s",
                  endpoint, st, why);
  } else {
    rc = zoauth_parse_token_response(f.body.data ? f.body.data : "", f.body.len,
                                     (int64_t)time(NULL), t, err);
  }
  zoauth_fetch_release(&f);
  return rc;
}
