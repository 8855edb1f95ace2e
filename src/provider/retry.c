/* retry.c — retry policy and HTTP error explanations; see retry.h. */
#include "provider/retry.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/buf.h"
#include "base/cancel.h"
#include "base/log.h"
#include "base/common.h"
#include "base/json.h"
#include "base/time.h"
#include "net/http.h"

void zretry_policy_init(zretry_policy *pol, int max_retries) {
  pol->max_retries = max_retries > 0 ? max_retries : ZRETRY_DEFAULT_MAX;
  pol->base_ms = ZRETRY_DEFAULT_BASE_MS;
  pol->cap_ms = ZRETRY_DEFAULT_CAP_MS;
  pol->retry_after_cap_ms = ZRETRY_AFTER_CAP_MS;
  const char *env = getenv("ZERO_RETRY_BASE_MS");
  if (env && *env) {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(env, &end, 10);
    if (errno == 0 && end && *end == '\0' && v >= 0 && v <= ZRETRY_DEFAULT_CAP_MS)
      pol->base_ms = v;
  }
}

bool zretry_status_retryable(long status) {
  /* 500 too, as the OpenAI and Anthropic SDKs retry it: a transient fault
   * more often than a request the server will always refuse. */
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504 ||
         status == 529;
}

int64_t zretry_delay_ms(const zretry_policy *pol, int retry, const char *retry_after,
                        double jitter) {
  if (retry_after) {
    long secs = zhttp_retry_after_seconds(retry_after);
    if (secs >= 0) {
      int64_t ms = (int64_t)secs * 1000;
      return ms > pol->retry_after_cap_ms ? pol->retry_after_cap_ms : ms;
    }
  }
  if (retry < 1) retry = 1;
  int64_t backoff = pol->base_ms;
  /* Doubling stops at the cap, so large retry numbers cannot overflow. */
  for (int i = 1; i < retry && backoff < pol->cap_ms; i++) backoff *= 2;
  if (backoff > pol->cap_ms) backoff = pol->cap_ms;
  if (jitter < 0) jitter = 0;
  if (jitter > 1) jitter = 1;
  return backoff / 2 + (int64_t)(jitter * (double)(backoff - backoff / 2));
}

double zretry_jitter(void) {
  uint32_t r = 0;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
    r = (uint32_t)ztime_mono_ms() * 2654435761u; /* no entropy yet: any spread will do */
  return (double)r / (double)UINT32_MAX;
}

int zretry_wait(int64_t ms, zerr *err) {
  int64_t deadline = ztime_mono_ms() + (ms > 0 ? ms : 0);
  for (;;) {
    if (zcancel_requested())
      return zerr_set(err, ZE_CANCELLED, "cancelled while waiting to retry");
    int64_t left = deadline - ztime_mono_ms();
    if (left <= 0) return 0;
    struct pollfd pfd = {.fd = zcancel_fd(), .events = POLLIN, .revents = 0};
    /* With no cancellation pipe installed (tests, embedding) poll just sleeps. */
    int r = poll(&pfd, pfd.fd >= 0 ? 1 : 0, left > 1000 ? 1000 : (int)left);
    if (r < 0 && errno != EINTR) return zerr_errno(err, ZE_INTERNAL, "poll while waiting to retry");
    if (r > 0 && (pfd.revents & (POLLIN | POLLERR | POLLHUP)))
      return zerr_set(err, ZE_CANCELLED, "cancelled while waiting to retry");
  }
}

int zretry_run(const zretry_policy *pol, zretry_attempt_fn attempt, void *attempt_ud,
               zprov_event_fn fn, void *ud, zerr *err) {
  zerr local = ZERR_INIT;
  if (!err) err = &local;
  for (int n = 1;; n++) {
    zretry_info info = {NULL, false};
    zerr_clear(err);
    int rc = attempt(attempt_ud, n, &info, err);
    cleanup_free char *retry_after = info.retry_after;
    if (rc == 0) return 0;
    if (err->kind == ZE_CANCELLED || info.emitted || !err->retryable) return -1;
    if (n > pol->max_retries) {
      if (pol->max_retries > 0) zerr_prefix(err, "gave up after %d attempts", n);
      err->retryable = false;
      return -1;
    }
    int64_t delay = zretry_delay_ms(pol, n, retry_after, zretry_jitter());
    zlog("retry", "attempt %d failed (%s); attempt %d in %lld ms%s%s", n, err->msg, n + 1,
         (long long)delay, retry_after ? ", Retry-After: " : "", retry_after ? retry_after : "");
    zprov_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ZPEV_RETRY;
    ev.attempt = n + 1;
    ev.delay_ms = delay;
    ev.text = err->msg;
    ev.len = strlen(err->msg);
    if (fn && fn(ud, &ev) != 0) return zerr_set(err, ZE_CANCELLED, "cancelled before retrying");
    if (zretry_wait(delay, err) < 0) return -1;
  }
}

/* Cuts s to at most max bytes on a character boundary, collapsing runs of
 * whitespace so a multi-line body reads as one line. */
static void add_oneline(zbuf *out, const char *s, size_t len, size_t max) {
  size_t start = out->len;
  bool space = false;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (isspace(c)) {
      space = out->len > start;
      continue;
    }
    if (space) zbuf_addch(out, ' ');
    space = false;
    zbuf_addch(out, (char)c);
    if (out->len - start >= max) {
      zbuf_setlen(out, start + zutf8_boundary(out->data + start, out->len - start));
      zbuf_addstr(out, "…");
      return;
    }
  }
}

char *zprov_error_message(const char *body, size_t len) {
  if (!body || !len) return NULL;
  json_t *root = zjson_parse(body, len, "error body", NULL);
  if (root) {
    const char *msg = NULL;
    json_t *e = json_object_get(root, "error");
    if (json_is_object(e)) msg = zjson_str(e, "message");
    else if (json_is_string(e)) msg = json_string_value(e);
    if (!msg) msg = zjson_str(root, "message");
    if (!msg) msg = zjson_str(root, "detail");
    char *out = NULL;
    if (msg && *msg) {
      zbuf b = ZBUF_INIT;
      add_oneline(&b, msg, strlen(msg), 600);
      out = zbuf_detach(&b, NULL);
    }
    json_decref(root);
    return out;
  }
  /* Not JSON: an HTML or text page from a proxy; quote its start. */
  zbuf b = ZBUF_INIT;
  add_oneline(&b, body, len, 200);
  if (!b.len) {
    zbuf_release(&b);
    return NULL;
  }
  return zbuf_detach(&b, NULL);
}

/* OpenAI answers 429 both for a rate limit (worth waiting for) and for an
 * account out of credit ({"error":{"type"/"code":"insufficient_quota"}}),
 * which no retry fixes. */
static bool quota_exhausted(const char *body, size_t len) {
  if (!body || !len || !memmem(body, len, "insufficient_quota", 18)) return false;
  json_t *root = zjson_parse(body, len, "error body", NULL);
  json_t *e = root ? json_object_get(root, "error") : NULL;
  bool yes = json_is_object(e) && ((zjson_str(e, "code") && !strcmp(zjson_str(e, "code"),
                                                                     "insufficient_quota")) ||
                                   (zjson_str(e, "type") && !strcmp(zjson_str(e, "type"),
                                                                    "insufficient_quota")));
  json_decref(root);
  return yes;
}

char *zprov_retry_delay_from_body(const char *body, size_t len) {
  if (!body || !len || !memmem(body, len, "retryDelay", 10)) return NULL;
  json_t *root = zjson_parse(body, len, "error body", NULL);
  char *out = NULL;
  size_t i;
  json_t *d;
  json_array_foreach(json_object_get(json_object_get(root, "error"), "details"), i, d) {
    const char *v = zjson_str(d, "retryDelay");
    if (!v) continue;
    /* google.protobuf.Duration in JSON: "37s", "0.5s", "1.000340s". */
    char *end;
    errno = 0;
    double secs = strtod(v, &end);
    if (errno || end == v || strcmp(end, "s") || secs < 0 || secs > 86400) continue;
    long whole = (long)secs;
    if ((double)whole < secs) whole++; /* round up: never retry before the server allows */
    zbuf b = ZBUF_INIT;
    zbuf_addf(&b, "%ld", whole);
    out = zbuf_detach(&b, NULL);
    break;
  }
  json_decref(root);
  return out;
}

/* Replaces every occurrence of secret in msg (NUL-terminated, cap bytes)
 * with [REDACTED]. Secrets shorter than 8 bytes are left alone: too likely
 * to be ordinary words. */
static void scrub_one(char *msg, size_t cap, const char *secret) {
  static const char mark[] = "[REDACTED]";
  size_t n = secret ? strlen(secret) : 0;
  if (n < 8) return;
  zbuf b = ZBUF_INIT;
  bool hit = false;
  for (const char *p = msg; *p;) {
    const char *q = strstr(p, secret);
    if (!q) {
      zbuf_addstr(&b, p);
      break;
    }
    zbuf_add(&b, p, (size_t)(q - p));
    zbuf_addstr(&b, mark);
    p = q + n;
    hit = true;
  }
  if (hit) snprintf(msg, cap, "%s", b.data ? b.data : "");
  zbuf_release(&b);
}

void zprov_scrub_secrets(const zprov_opts *opts, char *msg, size_t cap) {
  if (!opts || !msg) return;
  scrub_one(msg, cap, opts->api_key);
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)opts->headers, k, v) {
    const char *val = json_string_value(v);
    if (!val) continue;
    scrub_one(msg, cap, val);
    /* "Bearer <token>": the token alone may be what is echoed. */
    const char *sp = strrchr(val, ' ');
    if (sp) scrub_one(msg, cap, sp + 1);
  }
}

void zprov_http_error(const zprov_opts *opts, const char *url, long status, const char *body,
                      size_t body_len, zerr *err) {
  const char *name = opts->name && *opts->name ? opts->name : "the provider";
  const char *keyenv = opts->api_key_env && *opts->api_key_env ? opts->api_key_env
                                                                : "OPENAI_API_KEY";
  cleanup_free char *smsg = zprov_error_message(body, body_len);
  zbuf m = ZBUF_INIT;
  if (status == 407) {
    zbuf_addf(&m, "a proxy between zero and %s wants credentials (HTTP 407): give them in the "
              "proxy URL (HTTPS_PROXY=http://user:password@proxy:port)", name);
  } else if ((status == 401 || status == 403) && opts->oauth_login) {
    zbuf_addf(&m,
              "%s rejected the OAuth token of login \"%s\" (HTTP %ld): run `zero auth "
              "login %s` to sign in again",
              name, opts->oauth_login, status, opts->oauth_login);
  } else if (status == 401 || status == 403) {
    if (opts->api_key && *opts->api_key)
      zbuf_addf(&m, "%s rejected the API key (HTTP %ld): check %s (or the profile's apiKeyEnv)",
                name, status, keyenv);
    else
      zbuf_addf(&m, "%s requires an API key (HTTP %ld) and none is set: set %s (or the "
                "profile's apiKeyEnv)", name, status, keyenv);
  } else if (status == 404) {
    zbuf_addf(&m, "%s answered HTTP 404 for model \"%s\" at %s: check the model name and the "
              "base URL", name, opts->model ? opts->model : "", url ? url : "");
  } else if (status == 400 || status == 422) {
    zbuf_addf(&m, "%s rejected the request (HTTP %ld)", name, status);
  } else if (status == 429 && quota_exhausted(body, body_len)) {
    zbuf_addf(&m, "%s refused the request: the account has no quota or credit left (HTTP 429); "
              "check the plan and billing details, or use another provider", name);
  } else if (status == 429) {
    zbuf_addf(&m, "%s is rate limiting requests (HTTP 429): wait a moment, or check the "
              "account's quota and plan", name);
  } else if (status >= 500) {
    zbuf_addf(&m, "%s had a server error (HTTP %ld): try again later", name, status);
  } else {
    zbuf_addf(&m, "%s answered HTTP %ld", name, status);
  }
  if (smsg) zbuf_addf(&m, "; the server said: %s", smsg);
  /* A server may echo the key: scrubbed before the message is made (which
   * redacts what else looks like a credential, base/err.h). */
  char msg[sizeof err->msg];
  snprintf(msg, sizeof msg, "%s", m.data);
  zprov_scrub_secrets(opts, msg, sizeof msg);
  zerr_set(err, ZE_PROVIDER, "%s", msg);
  zbuf_release(&m);
  if (err) {
    err->http_status = (int)status;
    err->retryable = zretry_status_retryable(status) &&
                     !(status == 429 && quota_exhausted(body, body_len));
  }
}
