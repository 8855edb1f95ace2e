/* wire.c — the shared streaming transport; see wire.h. */
#include "provider/wire.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/time.h"
#include "net/http.h"
#include "provider/retry.h"
#include "provider/turn.h"

#define RAW_KEEP_MAX (4u << 20) /* a non-streamed JSON answer larger than this is refused */
#define DEFAULT_IDLE_MS 300000L
/* A server that accepted the connection and sent nothing for this long is
 * reported, instead of waiting out the stream's idle timeout. */
#define DEFAULT_FIRST_BYTE_MS 60000L

/* ---------------------------------------------------------------- helpers */

bool zwire_header_safe(const char *s) {
  for (; *s; s++)
    if (*s == '\r' || *s == '\n') return false;
  return true;
}

static void push(char ***h, size_t *n, char *line) {
  *h = xrealloc(*h, (*n + 2) * sizeof **h);
  (*h)[(*n)++] = line;
  (*h)[*n] = NULL;
}

static bool extra_has(const json_t *extra, const char *line) {
  const char *colon = strchr(line, ':');
  size_t n = colon ? (size_t)(colon - line) : strlen(line);
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)extra, k, v) {
    if (strlen(k) == n && strncasecmp(k, line, n) == 0) return true;
  }
  return false;
}

/* Posts body to url with the protocol's headers and streams the reply
 * through parser (see zwire_provider_stream). */
static int post(const zprov_opts *o, const zwire_provider *p, const char *body, size_t body_len,
                void *parser, zprov_event_fn fn, void *ud, zerr *err) {
  const zwire_protocol *proto = p->proto;
  zbuf cred = ZBUF_INIT;
  /* An OAuth access token is a bearer token for every protocol. */
  const char *prefix = o->oauth_login ? "Authorization: Bearer " : proto->cred_prefix;
  if (o->api_key && *o->api_key && zwire_header_safe(o->api_key))
    zbuf_addf(&cred, "%s%s", prefix, o->api_key);
  const char *defaults[] = {cred.len ? cred.data : "",
                            proto->extra_header ? proto->extra_header : "",
                            "Content-Type: application/json", "Accept: text/event-stream", NULL};
  char **headers = zwire_headers_new(o, defaults);
  zbuf_release(&cred);
  zwire_call call = {.opts = o,
                     .url = p->url,
                     .headers = (const char *const *)headers,
                     .body = body,
                     .body_len = body_len,
                     .ops = &p->ops,
                     .parser = parser};
  int rc = zwire_stream(&call, fn, ud, err);
  zwire_headers_free(headers);
  return rc;
}

/* After a 401 with an OAuth login: one renewal (the token may have been
 * revoked or expired early), then 0 to retry the request. -1 (err
 * rewritten when the renewal itself failed) when there is nothing to retry:
 * no 401 or no login. Once per request: a long session renews as often as
 * its tokens expire, a token refused right after renewal is not renewed
 * again. */
static int renew_after_401(zwire_provider *p, zerr *err) {
  zprov_opts *o = &p->base.opts;
  if (err->http_status != 401 || !o->oauth_login || !o->renew_key) return -1;
  char *key = NULL;
  zerr rerr = ZERR_INIT;
  if (o->renew_key(o->oauth_login, &key, &rerr) < 0 || !key) {
    free(key);
    zerr_set(err, ZE_PROVIDER,
             "%s rejected the OAuth token of login \"%s\" (HTTP 401) and renewing it failed: "
             "%s; run `zero auth login %s`",
             o->name && *o->name ? o->name : "the provider", o->oauth_login, rerr.msg,
             o->oauth_login);
    err->http_status = 401;
    return -1;
  }
  o->api_key = key;
  free(p->renewed_key);
  p->renewed_key = key;
  zerr_clear(err);
  return 0;
}

int zwire_provider_stream(zprovider *base, const zprov_request *req, zprov_event_fn fn, void *ud,
                          zerr *err) {
  zwire_provider *p = (zwire_provider *)base;
  const zwire_protocol *proto = p->proto;
  const zprov_opts *o = &base->opts;
  size_t body_len = 0;
  cleanup_free char *body = proto->render(p, req, &body_len);
  /* The parser's type is the protocol's own; one allocation a turn. */
  cleanup_free void *parser = xcalloc(1, proto->parser_size);
  proto->parser_init(parser, o->name, fn, ud);
  int rc = post(o, p, body, body_len, parser, fn, ud, err);
  if (rc < 0 && renew_after_401(p, err) == 0) {
    proto->parser_release(parser);
    memset(parser, 0, proto->parser_size);
    proto->parser_init(parser, o->name, fn, ud);
    rc = post(o, p, body, body_len, parser, fn, ud, err);
  }
  proto->parser_release(parser);
  return rc;
}

char *zwire_json_body(json_t *body, size_t *len) {
  char *s = zjson_dumps(body);
  json_decref(body);
  *len = strlen(s);
  return s;
}

/* The default ops.complete / ops.emitted: the parser starts with a zturn. */
static bool turn_complete(const void *parser) { return ((const zturn *)parser)->complete; }
static bool turn_emitted(const void *parser) { return ((const zturn *)parser)->emitted; }

char **zwire_headers_new(const zprov_opts *o, const char *const *defaults) {
  const json_t *extra = json_is_object(o->headers) ? o->headers : NULL;
  char **h = NULL;
  size_t n = 0;
  push(&h, &n, NULL);
  n = 0;
  for (size_t i = 0; defaults && defaults[i]; i++) {
    if (!defaults[i][0] || !zwire_header_safe(defaults[i])) continue;
    if (extra && extra_has(extra, defaults[i])) continue;
    push(&h, &n, xstrdup(defaults[i]));
  }
  if (extra) {
    const char *k;
    json_t *v;
    zbuf b = ZBUF_INIT;
    json_object_foreach((json_t *)extra, k, v) {
      if (!*k || strchr(k, ':') || !zwire_header_safe(k)) continue;
      if (json_is_string(v) && zwire_header_safe(json_string_value(v)))
        zbuf_addf(&b, "%s: %s", k, json_string_value(v));
      else if (json_is_integer(v))
        zbuf_addf(&b, "%s: %lld", k, (long long)json_integer_value(v));
      else
        continue;
      push(&h, &n, zbuf_detach(&b, NULL));
    }
    zbuf_release(&b);
  }
  return h;
}

void zwire_headers_free(char **h) {
  if (!h) return;
  for (size_t i = 0; h[i]; i++) free(h[i]);
  free(h);
}

char *zwire_url(const char *base, const char *suffix) {
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, base ? base : "");
  while (b.len && b.data[b.len - 1] == '/') zbuf_setlen(&b, b.len - 1);
  if (!zbuf_ends_with(&b, suffix)) {
    if (suffix[0] != '/') zbuf_addch(&b, '/');
    zbuf_addstr(&b, suffix);
  }
  return zbuf_detach(&b, NULL);
}

zprovider *zwire_provider_new(const zwire_protocol *proto, const zprov_opts *opts, zerr *err) {
  if (zwire_check_opts(opts, err) < 0) return NULL;
  zhttp_global_init();
  zwire_provider *p = xcalloc(1, sizeof *p);
  /* The rows every protocol shares are left NULL in its table. */
  p->vt = proto->vt;
  if (!p->vt.stream) p->vt.stream = zwire_provider_stream;
  if (!p->vt.destroy) p->vt.destroy = zwire_provider_destroy;
  p->ops = proto->ops;
  if (!p->ops.complete) p->ops.complete = turn_complete;
  if (!p->ops.emitted) p->ops.emitted = turn_emitted;
  p->base.vt = &p->vt;
  p->base.opts = *opts;
  p->proto = proto;
  p->url = proto->url(opts);
  return &p->base;
}

void zwire_provider_destroy(zprovider *base) {
  zwire_provider *p = (zwire_provider *)base;
  free(p->url);
  free(p->renewed_key);
  zjw_tools_release(&p->tools);
  free(p);
}

int zwire_check_opts(const zprov_opts *opts, zerr *err) {
  const char *name = opts->name && *opts->name ? opts->name : "the provider";
  if (!opts->base_url || !*opts->base_url)
    return zerr_set(err, ZE_CONFIG, "provider \"%s\" has no base URL: set baseURL in its profile",
                    name);
  if (strncmp(opts->base_url, "http://", 7) != 0 && strncmp(opts->base_url, "https://", 8) != 0)
    return zerr_set(err, ZE_CONFIG,
                    "provider \"%s\" has base URL \"%s\", which is not an http:// or https:// "
                    "URL: fix baseURL in its profile", name, opts->base_url);
  if (!opts->model || !*opts->model)
    return zerr_set(err, ZE_CONFIG,
                    "provider \"%s\" has no model: set \"model\" in its profile or pass --model",
                    name);
  return 0;
}

long zwire_parse_duration_ms(const char *s) {
  if (!s || !*s) return -1;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || v <= 0) return -1;
  double mult = 1000;
  if (!strcmp(end, "ms")) mult = 1;
  else if (!strcmp(end, "s") || !*end) mult = 1000;
  else if (!strcmp(end, "m")) mult = 60000;
  else if (!strcmp(end, "h")) mult = 3600000;
  else return -1;
  double ms = v * mult;
  if (ms < 1 || ms > 86400000.0) return -1;
  return (long)ms;
}

long zwire_idle_ms(const zprov_opts *opts) {
  if (opts && opts->idle_timeout_ms > 0) return opts->idle_timeout_ms;
  long env = zwire_parse_duration_ms(getenv("ZERO_STREAM_IDLE_TIMEOUT"));
  return env > 0 ? env : DEFAULT_IDLE_MS;
}

long zwire_first_byte_ms(const zprov_opts *opts) {
  long env = zwire_parse_duration_ms(getenv("ZERO_FIRST_BYTE_TIMEOUT"));
  long first = env > 0 ? env : DEFAULT_FIRST_BYTE_MS;
  long idle = zwire_idle_ms(opts);
  return first < idle ? first : idle;
}

int zwire_emit(zprov_event_fn fn, void *ud, const zprov_event *ev, bool *emitted,
               const char *provider_name, zerr *err) {
  if ((ev->kind == ZPEV_TEXT || ev->kind == ZPEV_REASONING || ev->kind == ZPEV_TOOL_ARGS) &&
      ev->len == 0)
    return 0;
  if (ev->kind == ZPEV_TEXT || ev->kind == ZPEV_REASONING || ev->kind == ZPEV_TOOL_START ||
      ev->kind == ZPEV_TOOL_ARGS)
    *emitted = true;
  if (fn && fn(ud, ev) != 0)
    return zerr_set(err, ZE_CANCELLED, "the answer from %s was stopped by its consumer",
                    provider_name && *provider_name ? provider_name : "the provider");
  return 0;
}

/* ---------------------------------------------------------------- attempt */

typedef struct attempt {
  const zwire_call *c;
  zsse_parser sse;
  zerr perr;     /* failure raised inside the body callback */
  bool failed;
  zbuf raw;      /* body start, kept while no SSE event arrived */
  bool raw_dropped;
  long idle_ms;
  int64_t last_event_ms; /* monotonic time of the latest meaningful event */
  size_t events;         /* meaningful events */
} attempt;

static int on_sse(void *ud, const zsse_event *ev) {
  attempt *a = ud;
  if (!(a->c->ops->is_keepalive && a->c->ops->is_keepalive(ev))) {
    a->last_event_ms = ztime_mono_ms();
    a->events++;
  }
  return a->c->ops->feed(a->c->parser, ev, &a->perr) < 0 ? 1 : 0;
}

static int on_body(void *ud, const char *data, size_t len) {
  attempt *a = ud;
  if (!a->raw_dropped) {
    if (a->sse.events == 0 && a->raw.len + len <= RAW_KEEP_MAX) {
      zbuf_add(&a->raw, data, len);
    } else {
      a->raw_dropped = true;
      zbuf_release(&a->raw);
    }
  }
  zerr_clear(&a->perr);
  if (zsse_feed(&a->sse, data, len, &a->perr) != 0) {
    a->failed = true;
    return 1;
  }
  /* Keep-alives alone do not keep a stream alive forever. */
  if (ztime_mono_ms() - a->last_event_ms > a->idle_ms) {
    const char *name = a->c->opts->name && *a->c->opts->name ? a->c->opts->name : "the provider";
    zerr_set(&a->perr, ZE_TIMEOUT,
             "%s sent only keep-alives for more than %ld ms (idle timeout, "
             "ZERO_STREAM_IDLE_TIMEOUT); the session is saved, retry with --resume",
             name, a->idle_ms);
    a->perr.retryable = !a->c->ops->emitted(a->c->parser);
    a->failed = true;
    return 1;
  }
  return 0;
}

static int finish_plain_json(attempt *a, zerr *err) {
  const zwire_parser_ops *ops = a->c->ops;
  json_t *root = ops->feed_json ? json_loadb(a->raw.data, a->raw.len, 0, NULL) : NULL;
  if (!root) {
    /* An HTML page (a proxy, a captive portal, a web server at the wrong
     * URL) is no stream that ended early: no retry helps, and it says why. */
    size_t i = 0;
    while (i < a->raw.len && strchr(" \t\r\n", a->raw.data[i])) i++;
    if (i < a->raw.len && a->raw.data[i] == '<') {
      const char *name = a->c->opts->name && *a->c->opts->name ? a->c->opts->name
                                                                : "the provider";
      cleanup_free char *start = zprov_error_message(a->raw.data + i, a->raw.len - i);
      zerr_set(err, ZE_PROVIDER,
               "%s answered %s with a web page instead of an event stream (it starts: %s); "
               "check the base URL, and any proxy in between",
               name, a->c->url, start ? start : "<");
      err->retryable = false;
      return -1;
    }
    return ops->finish(a->c->parser, err);
  }
  int rc = ops->feed_json(a->c->parser, root, err);
  json_decref(root);
  return rc;
}

static int attempt_once(void *ud, int n, zretry_info *info, zerr *err) {
  attempt *a = ud;
  const zwire_call *c = a->c;
  const zprov_opts *o = c->opts;
  const zwire_parser_ops *ops = c->ops;
  const char *name = o->name && *o->name ? o->name : "the provider";
  (void)n;
  ops->reset(c->parser);
  zsse_init(&a->sse, on_sse, a, ZSSE_DEFAULT_MAX_EVENT);
  zerr_clear(&a->perr);
  a->failed = false;
  zbuf_reset(&a->raw);
  a->raw_dropped = false;
  a->last_event_ms = ztime_mono_ms();
  a->events = 0;

  zhttp_request hreq = {
      .method = "POST",
      .url = c->url,
      .headers = c->headers,
      .body = c->body,
      .body_len = c->body_len,
      .connect_timeout_ms = o->connect_timeout_ms,
      .idle_timeout_ms = a->idle_ms,
      .first_byte_timeout_ms = zwire_first_byte_ms(o),
      .announce_wait = true,
      .total_timeout_ms = 0,
  };
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  int rc = zhttp_perform(&hreq, &resp, on_body, a, err);
  bool emitted = ops->emitted(c->parser);

  if (a->failed) {
    *err = a->perr;
    rc = -1;
  } else if (rc < 0 && resp.status >= 400) {
    info->retry_after = steal_pointer(&resp.retry_after);
    if (!info->retry_after)
      info->retry_after = zprov_retry_delay_from_body(resp.error_body.data, resp.error_body.len);
    zprov_http_error(o, c->url, resp.status, resp.error_body.data, resp.error_body.len, err);
  } else if (rc < 0 && err->kind == ZE_CANCELLED) {
    /* keep the transport's message */
  } else if (rc < 0 && resp.body_bytes == 0 && a->events == 0) {
    bool retryable = err->retryable || (resp.status >= 200 && resp.status < 300);
    zerr_prefix(err, "could not get an answer from %s at %s", name, c->url);
    err->retryable = retryable;
  } else if (rc < 0) {
    /* Cut mid-stream: what arrived may still be a whole answer. */
    zsse_finish(&a->sse);
    if (ops->complete(c->parser)) {
      rc = ops->finish(c->parser, err);
    } else if (err->kind == ZE_TIMEOUT) {
      zerr_set(err, ZE_TIMEOUT,
               "%s stopped sending mid-answer (idle timeout); the session is saved, retry "
               "with --resume", name);
      err->retryable = !emitted;
    } else {
      rc = ops->finish(c->parser, err); /* sets the ended-early error */
    }
  } else if (resp.status < 200 || resp.status >= 300) {
    info->retry_after = steal_pointer(&resp.retry_after);
    if (!info->retry_after)
      info->retry_after = zprov_retry_delay_from_body(resp.error_body.data, resp.error_body.len);
    zprov_http_error(o, c->url, resp.status, resp.error_body.data, resp.error_body.len, err);
    rc = -1;
  } else {
    zsse_finish(&a->sse);
    if (a->sse.events == 0 && !a->raw_dropped && a->raw.len)
      rc = finish_plain_json(a, err);
    else
      rc = ops->finish(c->parser, err);
  }
  info->emitted = ops->emitted(c->parser);
  zsse_release(&a->sse);
  zhttp_response_release(&resp);
  /* In-stream error events quote the server too (and retries show it). */
  if (rc < 0) zprov_scrub_secrets(o, err->msg, sizeof err->msg);
  return rc;
}

int zwire_stream(const zwire_call *c, zprov_event_fn fn, void *ud, zerr *err) {
  attempt a;
  memset(&a, 0, sizeof a);
  a.c = c;
  a.idle_ms = zwire_idle_ms(c->opts);
  zbuf_init(&a.raw);
  zretry_policy pol;
  zretry_policy_init(&pol, c->opts->max_retries);
  int rc = zretry_run(&pol, attempt_once, &a, fn, ud, err);
  zbuf_release(&a.raw);
  /* Whatever went wrong on the wire (an oversized event, bad UTF-8 …) is the
   * provider's failure for the caller (exit 3), not an internal error. */
  if (rc < 0 && err && err->kind != ZE_PROVIDER && err->kind != ZE_TIMEOUT &&
      err->kind != ZE_CANCELLED && err->kind != ZE_CONFIG && err->kind != ZE_USAGE &&
      err->kind != ZE_INTERNAL) {
    const char *name = c->opts->name && *c->opts->name ? c->opts->name : "the provider";
    zerr_prefix(err, "the stream from %s failed", name);
    err->kind = ZE_PROVIDER;
  }
  return rc;
}
