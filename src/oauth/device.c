/* device.c — the device authorization grant (RFC 8628); see oauth.h. For a
 * login without a browser on this machine (over SSH): the user enters a
 * short code on another device while zero polls the token endpoint. */
#include <poll.h>
#include <string.h>
#include <time.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "base/secrets.h"
#include "oauth/http.h"
#include "oauth/oauth.h"

#define MAX_INTERVAL_S 300 /* an issuer asking for more is capped: the user is waiting */

int zoauth_parse_device_code(const char *json, size_t len, int64_t now, zoauth_device_code *out,
                             zerr *err) {
  memset(out, 0, sizeof *out);
  json_t *doc = zjson_parse(json, len, "the device authorization answer", err);
  if (!doc) return -1;
  const char *dc = zjson_str(doc, "device_code"), *uc = zjson_str(doc, "user_code");
  const char *uri = zjson_str(doc, "verification_uri");
  if (!uri) uri = zjson_str(doc, "verification_url"); /* Google's older name */
  int rc = 0;
  if (!json_is_object(doc) || !dc || !*dc || !uc || !*uc || !uri || !*uri) {
    rc = zerr_set(err, ZE_INVALID,
                  "the device authorization answer lacks \"device_code\", \"user_code\" or "
                  "\"verification_uri\" (RFC 8628 §3.2)");
  } else {
    out->device_code = xstrdup(dc);
    out->user_code = xstrdup(uc);
    out->verification_uri = xstrdup(uri);
    const char *complete = zjson_str(doc, "verification_uri_complete");
    out->verification_uri_complete = complete ? xstrdup(complete) : NULL;
    int64_t life = zjson_int_or(doc, "expires_in", 0);
    out->expires_at = now + (life > 0 ? life : ZOAUTH_DEVICE_LIFETIME_S);
    int64_t iv = zjson_int_or(doc, "interval", 0);
    out->interval_s =
        iv > 0 ? (iv > MAX_INTERVAL_S ? MAX_INTERVAL_S : (int)iv) : ZOAUTH_DEVICE_INTERVAL_S;
    zsecret_add_value(out->device_code); /* it is a credential until it expires */
  }
  json_decref(doc);
  return rc;
}

void zoauth_device_code_release(zoauth_device_code *d) {
  free(d->device_code);
  free(d->user_code);
  free(d->verification_uri);
  free(d->verification_uri_complete);
  memset(d, 0, sizeof *d);
}

/* Sleeps s seconds unless a signal cancels the run first. */
static int default_sleep(void *ud, int s) {
  (void)ud;
  int64_t end = (int64_t)time(NULL) + s;
  for (;;) {
    if (zcancel_requested()) return -1;
    int64_t left = end - (int64_t)time(NULL);
    if (left <= 0) return 0;
    struct pollfd p = {zcancel_fd(), POLLIN, 0};
    int ms = left > 1 ? 1000 : (int)left * 1000;
    if (poll(&p, zcancel_fd() >= 0 ? 1 : 0, ms) < 0) return 0;
  }
}

/* Asks the device authorization endpoint for a code (§3.1). */
static int request_code(const zoauth_device_req *r, zoauth_device_code *d, zerr *err) {
  zbuf form = ZBUF_INIT;
  zoauth_form_add(&form, "client_id", r->client_id);
  zoauth_form_add(&form, "scope", r->scope);
  zoauth_form_add(&form, "resource", r->resource);
  const char *headers[] = {"Content-Type: application/x-www-form-urlencoded",
                           "Accept: application/json", NULL};
  zoauth_fetch f;
  long st = zoauth_http("POST", r->device_endpoint, headers, form.data, &f, err);
  zbuf_release(&form);
  int rc = 0;
  if (st < 0) {
    zerr_prefix(err, "device authorization endpoint %s", r->device_endpoint);
    rc = -1;
  } else if (st != 200) {
    char why[300];
    zoauth_error_text(&f, why, sizeof why);
    rc = zerr_set(err, ZE_PROVIDER,
                  "the device authorization endpoint %s refused the request (HTTP %ld): %s",
                  r->device_endpoint, st, why);
  } else {
    rc = zoauth_parse_device_code(f.body.data ? f.body.data : "", f.body.len, (int64_t)time(NULL),
                                  d, err);
  }
  zoauth_fetch_release(&f);
  return rc;
}

/* What one poll's OAuth error means (§3.5): 1 to poll again, -1 to stop. */
static int on_poll_error(const char *code, zoauth_device_code *d, zerr *err) {
  if (!code) return -1; /* not an OAuth error: err says what happened */
  if (!strcmp(code, "authorization_pending")) return 1;
  if (!strcmp(code, "slow_down")) {
    d->interval_s += ZOAUTH_DEVICE_SLOW_DOWN_S;
    return 1;
  }
  if (!strcmp(code, "access_denied"))
    zerr_set(err, ZE_PROVIDER, "the authorization was denied on the device page");
  else if (!strcmp(code, "expired_token"))
    zerr_set(err, ZE_TIMEOUT, "the device code expired before it was approved; log in again");
  return -1;
}

int zoauth_device_flow(const zoauth_device_req *r, zoauth_tokens *t, zerr *err) {
  zoauth_device_code d;
  if (request_code(r, &d, err) < 0) return -1;
  r->show_code(r->ud, &d);
  int rc = -1;
  zbuf form = ZBUF_INIT;
  zoauth_form_add(&form, "grant_type", ZOAUTH_GRANT_DEVICE_CODE);
  zoauth_form_add(&form, "device_code", d.device_code);
  zoauth_form_add(&form, "client_id", r->client_id);
  zoauth_form_add(&form, "resource", r->resource);
  for (;;) {
    int slept = r->sleep_s ? r->sleep_s(r->ud, d.interval_s) : default_sleep(NULL, d.interval_s);
    if (slept < 0) {
      zerr_set(err, ZE_CANCELLED, "login cancelled");
      break;
    }
    /* After every sleep (§3.5): an expired code is not polled again. */
    if ((int64_t)time(NULL) >= d.expires_at) {
      zerr_set(err, ZE_TIMEOUT,
               "the device code expired before it was approved (code %s); log in again",
               d.user_code);
      break;
    }
    cleanup_free char *code = NULL;
    zerr perr = ZERR_INIT;
    if (zoauth_token_request(r->token_endpoint, form.data, r->client_id, r->client_secret,
                             r->auth_method, t, &code, &perr) == 0) {
      rc = 0;
      break;
    }
    int next = on_poll_error(code, &d, &perr);
    if (next < 0) {
      *err = perr;
      break;
    }
  }
  zbuf_release(&form);
  zoauth_device_code_release(&d);
  return rc;
}
