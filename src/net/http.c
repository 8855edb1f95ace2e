/* http.c — HTTP client over the libcurl multi interface; see http.h.
 *
 * Why the multi interface for one request at a time: curl_multi_poll accepts
 * extra file descriptors, so the cancellation self-pipe (base/cancel.h) wakes
 * the transfer loop the moment SIGINT arrives, and the loop can enforce an
 * idle timeout with millisecond precision (curl's LOW_SPEED options work in
 * whole seconds and count bytes, not silence).
 *
 * Connection reuse: the process keeps one multi handle (the singleton
 * http_shared_multi) whose connection and DNS caches survive between calls,
 * so the many requests of an agent turn share one TLS connection. A nested
 * or concurrent call (which the single event loop should never make) gets a
 * private multi handle instead of corrupting the shared one.
 */
#include "net/http.h"

#include <curl/curl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/log.h"
#include "base/time.h"

#define HTTP_ERROR_BODY_CAP (64u << 10)
#define HTTP_DEFAULT_CONNECT_MS 30000L
#define HTTP_DEFAULT_IDLE_MS 300000L
/* Longest single curl_multi_poll wait: curl asks for less when it has timers. */
#define HTTP_MAX_WAIT_MS 1000
/* Without a cancellation pipe the flag is polled this often instead. */
#define HTTP_FLAG_POLL_MS 50

/* ---- process-wide state: curl init and the shared multi handle ---- */

static pthread_once_t http_init_once = PTHREAD_ONCE_INIT;
static CURLM *http_shared_multi;
static atomic_flag http_shared_busy = ATOMIC_FLAG_INIT;

static void http_do_global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

void zhttp_global_init(void) { pthread_once(&http_init_once, http_do_global_init); }

void zhttp_global_cleanup(void) {
  if (http_shared_multi) {
    curl_multi_cleanup(http_shared_multi);
    http_shared_multi = NULL;
  }
  curl_global_cleanup();
}

const char *zhttp_version(void) {
  zhttp_global_init();
  return curl_version();
}

void zhttp_response_release(zhttp_response *resp) {
  zbuf_release(&resp->error_body);
  free(resp->retry_after);
  free(resp->content_type);
  resp->retry_after = NULL;
  resp->content_type = NULL;
  resp->status = 0;
  resp->sent_request = false;
  resp->body_bytes = 0;
}

/* ---- one transfer ---- */

typedef struct http_xfer {
  const zhttp_request *req;
  zhttp_response *resp;
  zhttp_body_fn on_body;
  void *ud;
  CURL *easy;
  bool connected;          /* PREREQ ran: the request is on its way */
  bool responded;          /* a response byte arrived after the request was sent */
  bool announced;          /* the wait notifier was called for this transfer */
  bool status_known;       /* resp->status holds the final answer's status */
  bool body_aborted;       /* on_body asked to stop */
  int64_t last_activity;   /* monotonic ms of the last byte moved */
  curl_off_t last_ul;      /* upload progress seen so far */
  char errbuf[CURL_ERROR_SIZE];
} http_xfer;

/* Trims the header value [s, e) and returns a malloc'd copy. */
static char *http_header_value(const char *s, const char *e) {
  while (s < e && (*s == ' ' || *s == '\t')) s++;
  while (e > s && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t')) e--;
  return xstrndup(s, (size_t)(e - s));
}

/* true when the header line starts with "name:" (case-insensitive). */
static bool http_header_is(const char *line, size_t n, const char *name) {
  size_t l = strlen(name);
  return n > l && line[l] == ':' && strncasecmp(line, name, l) == 0;
}

static size_t http_on_header(char *line, size_t size, size_t nitems, void *ud) {
  http_xfer *x = ud;
  size_t n = size * nitems;
  x->last_activity = ztime_mono_ms();
  /* A proxy's answer to CONNECT comes before the request is sent. */
  if (x->connected) x->responded = true;
  if (x->req->on_header) x->req->on_header(x->req->header_ud, line, n);
  if (n >= 5 && memcmp(line, "HTTP/", 5) == 0) {
    /* A new response (after a 1xx or a proxy CONNECT): its headers replace
     * whatever the previous one said. */
    free(x->resp->retry_after);
    free(x->resp->content_type);
    x->resp->retry_after = NULL;
    x->resp->content_type = NULL;
  } else if (http_header_is(line, n, "Retry-After")) {
    free(x->resp->retry_after);
    x->resp->retry_after = http_header_value(line + 12, line + n);
  } else if (http_header_is(line, n, "Content-Type")) {
    free(x->resp->content_type);
    x->resp->content_type = http_header_value(line + 13, line + n);
  }
  return n;
}

static size_t http_on_write(char *data, size_t size, size_t nmemb, void *ud) {
  http_xfer *x = ud;
  size_t n = size * nmemb;
  x->last_activity = ztime_mono_ms();
  if (!x->status_known) {
    /* Body bytes only flow for the final response, so its status is set. */
    long code = 0;
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
    x->resp->status = code;
    x->status_known = true;
  }
  x->resp->body_bytes += n;
  if (x->resp->status >= 200 && x->resp->status < 300) {
    if (x->on_body && n && x->on_body(x->ud, data, n) != 0) {
      x->body_aborted = true;
      return CURL_WRITEFUNC_ERROR;
    }
  } else {
    size_t room = HTTP_ERROR_BODY_CAP - x->resp->error_body.len;
    zbuf_add(&x->resp->error_body, data, n < room ? n : room);
  }
  return n;
}

/* Runs once the connection (TLS included) is ready, just before the request is
 * written: from here on the server may act on it, so a retry is no longer
 * known to be safe. */
static int http_on_prereq(void *ud, char *primary_ip, char *local_ip, int primary_port,
                          int local_port) {
  http_xfer *x = ud;
  x->connected = true;
  x->resp->sent_request = true;
  x->last_activity = ztime_mono_ms();
  return CURL_PREREQFUNC_OK;
}

/* Upload progress counts as activity, so a slow upload of a large prompt is
 * not mistaken for a silent server. */
static int http_on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                            curl_off_t ulnow) {
  http_xfer *x = ud;
  if (ulnow > x->last_ul) {
    x->last_ul = ulnow;
    x->last_activity = ztime_mono_ms();
  }
  return 0;
}

/* "scheme://host:port" of url for messages: never the path or query, which
 * may carry keys. */
static void http_origin(const char *url, char *out, size_t outlen) {
  snprintf(out, outlen, "%s", "the server");
  CURLU *u = curl_url();
  if (!u) return;
  if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK) {
    char *scheme = NULL, *host = NULL, *port = NULL;
    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
    curl_url_get(u, CURLUPART_HOST, &host, 0);
    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
    if (scheme && host)
      snprintf(out, outlen, "%s://%s%s%s", scheme, host, port ? ":" : "", port ? port : "");
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
  }
  curl_url_cleanup(u);
}

static void http_slist_cleanup(struct curl_slist **l) { curl_slist_free_all(*l); }

/* zero's own traffic behind a corporate network (issue 19, part 6): the CA
 * bundle of the config (network.caBundle) or of SSL_CERT_FILE /
 * CURL_CA_BUNDLE, and the directory of SSL_CERT_DIR,
 * which Debian's libcurl does not read by itself, and the upper-case
 * HTTP_PROXY for http:// URLs, which libcurl ignores (it reads the others —
 * https_proxy, HTTPS_PROXY, ALL_PROXY, NO_PROXY — in both cases itself).
 * A value of "" counts as unset. */
/* The config's CA bundle (zhttp_set_ca_bundle); a named singleton set once
 * by run setup before any request. */
static char *config_ca_bundle;

void zhttp_set_ca_bundle(const char *path) {
  free(config_ca_bundle);
  config_ca_bundle = path && *path ? xstrdup(path) : NULL;
}

const char *zhttp_ca_file(void) {
  if (config_ca_bundle) return config_ca_bundle;
  const char *ca = getenv("SSL_CERT_FILE");
  if (!ca || !*ca) ca = getenv("CURL_CA_BUNDLE");
  return ca && *ca ? ca : NULL;
}

const char *zhttp_ca_dir(void) {
  const char *dir = getenv("SSL_CERT_DIR");
  return dir && *dir ? dir : NULL;
}

static CURLcode http_configure_env(CURL *e, const char *url) {
  CURLcode c = CURLE_OK;
  const char *ca = zhttp_ca_file();
  if (ca) c = curl_easy_setopt(e, CURLOPT_CAINFO, ca);
  const char *dir = zhttp_ca_dir();
  if (c == CURLE_OK && dir) c = curl_easy_setopt(e, CURLOPT_CAPATH, dir);
  const char *lower = getenv("http_proxy"), *upper = getenv("HTTP_PROXY");
  if (c == CURLE_OK && !strncasecmp(url, "http://", 7) && (!lower || !*lower) && upper && *upper)
    c = curl_easy_setopt(e, CURLOPT_PROXY, upper); /* NO_PROXY still applies */
  return c;
}

/* Applies method, body, headers and callbacks. Returns 0 or -1 with err. */
static int http_configure(http_xfer *x, struct curl_slist **headers, zerr *err) {
  const zhttp_request *req = x->req;
  CURL *e = x->easy;
  bool has_expect = false;
  if (req->headers) {
    for (const char *const *h = req->headers; *h; h++) {
      struct curl_slist *n = curl_slist_append(*headers, *h);
      if (!n) return zerr_set(err, ZE_INTERNAL, "out of memory building request headers");
      *headers = n;
      if (strncasecmp(*h, "Expect:", 7) == 0) has_expect = true;
    }
  }
  /* No "Expect: 100-continue" round trip before large bodies. */
  if (!has_expect) {
    struct curl_slist *n = curl_slist_append(*headers, "Expect:");
    if (!n) return zerr_set(err, ZE_INTERNAL, "out of memory building request headers");
    *headers = n;
  }

  const char *method = req->method ? req->method : (req->body ? "POST" : "GET");
  CURLcode c = CURLE_OK;
#define HTTP_SET(opt, val) \
  do { if (c == CURLE_OK) c = curl_easy_setopt(e, opt, val); } while (0)
  HTTP_SET(CURLOPT_URL, req->url);
  HTTP_SET(CURLOPT_NOSIGNAL, 1L);
  HTTP_SET(CURLOPT_USERAGENT, "zero/" ZERO_VERSION);
  HTTP_SET(CURLOPT_HTTPHEADER, *headers);
  HTTP_SET(CURLOPT_PROTOCOLS_STR, "http,https");
  /* libcurl never follows a redirect for zero (a caller that follows one
   * checks each hop itself); were it told to, no hop may drop to http. */
  HTTP_SET(CURLOPT_FOLLOWLOCATION, 0L);
  HTTP_SET(CURLOPT_REDIR_PROTOCOLS_STR, "https");
  HTTP_SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
  HTTP_SET(CURLOPT_TCP_KEEPALIVE, 1L);
  HTTP_SET(CURLOPT_CONNECTTIMEOUT_MS,
           req->connect_timeout_ms > 0 ? req->connect_timeout_ms : HTTP_DEFAULT_CONNECT_MS);
  HTTP_SET(CURLOPT_ERRORBUFFER, x->errbuf);
  HTTP_SET(CURLOPT_WRITEFUNCTION, http_on_write);
  HTTP_SET(CURLOPT_WRITEDATA, x);
  HTTP_SET(CURLOPT_HEADERFUNCTION, http_on_header);
  HTTP_SET(CURLOPT_HEADERDATA, x);
  HTTP_SET(CURLOPT_PREREQFUNCTION, http_on_prereq);
  HTTP_SET(CURLOPT_PREREQDATA, x);
  HTTP_SET(CURLOPT_XFERINFOFUNCTION, http_on_progress);
  HTTP_SET(CURLOPT_XFERINFODATA, x);
  HTTP_SET(CURLOPT_NOPROGRESS, 0L);
  if (c == CURLE_OK) c = http_configure_env(e, req->url);
  if (req->body || strcmp(method, "POST") == 0) {
    HTTP_SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(req->body ? req->body_len : 0));
    HTTP_SET(CURLOPT_POSTFIELDS, req->body ? req->body : "");
    if (strcmp(method, "POST") != 0) HTTP_SET(CURLOPT_CUSTOMREQUEST, method);
  } else if (strcmp(method, "GET") == 0) {
    HTTP_SET(CURLOPT_HTTPGET, 1L);
  } else if (strcmp(method, "HEAD") == 0) {
    HTTP_SET(CURLOPT_NOBODY, 1L);
  } else {
    HTTP_SET(CURLOPT_CUSTOMREQUEST, method);
  }
#undef HTTP_SET
  if (c != CURLE_OK)
    return zerr_set(err, ZE_INTERNAL, "could not configure the HTTP request: %s",
                    curl_easy_strerror(c));
  return 0;
}

/* Turns a finished transfer's CURLcode into the contract's error kinds. */
static int http_classify(http_xfer *x, CURLcode rc, zerr *err) {
  char origin[512];
  http_origin(x->req->url, origin, sizeof origin);
  const char *detail = x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc);
  zhttp_response *resp = x->resp;
  int ret;

  long proxy_code = 0;
  if (rc != CURLE_OK &&
      curl_easy_getinfo(x->easy, CURLINFO_HTTP_CONNECTCODE, &proxy_code) == CURLE_OK &&
      proxy_code >= 400) {
    /* The proxy answered the tunnel request, not the server: never a
     * rejected API key. */
    ret = zerr_set(err, ZE_PROVIDER,
                   "the proxy refused the connection to %s (HTTP %ld from the proxy%s); check "
                   "HTTPS_PROXY / NO_PROXY, or ask the proxy's administrators to allow the host",
                   origin, proxy_code,
                   proxy_code == 407 ? ": it wants credentials, give them in the proxy URL, "
                                       "http://user:password@proxy:port"
                                     : "");
    if (err) err->retryable = false;
    return ret;
  }
  switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
      ret = zerr_set(err, ZE_PROVIDER,
                     "could not resolve the host of %s (%s); check the base URL and your "
                     "network or DNS settings",
                     origin, detail);
      break;
    case CURLE_COULDNT_RESOLVE_PROXY:
      ret = zerr_set(err, ZE_PROVIDER,
                     "could not resolve the proxy for %s (%s); check the https_proxy / "
                     "http_proxy environment variables",
                     origin, detail);
      break;
    case CURLE_COULDNT_CONNECT:
      ret = zerr_set(err, ZE_PROVIDER,
                     "could not connect to %s (%s); is the server running and is the base "
                     "URL right?",
                     origin, detail);
      break;
    case CURLE_OPERATION_TIMEDOUT:
      if (!x->connected)
        ret = zerr_set(err, ZE_TIMEOUT,
                       "connecting to %s timed out after %ld ms; check your network or "
                       "proxy, or raise the connect timeout",
                       origin,
                       x->req->connect_timeout_ms > 0 ? x->req->connect_timeout_ms
                                                      : HTTP_DEFAULT_CONNECT_MS);
      else
        ret = zerr_set(err, ZE_TIMEOUT, "the request to %s timed out (%s); retry later",
                       origin, detail);
      break;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
      ret = zerr_set(err, ZE_PROVIDER,
                     "the TLS handshake with %s failed (%s); check the system clock, the CA "
                     "certificates (network.caBundle in the user config, or SSL_CERT_FILE or "
                     "CURL_CA_BUNDLE for a bundle, SSL_CERT_DIR for a directory; now: %s) and "
                     "any intercepting proxy",
                     origin, detail, zhttp_ca_file() ? zhttp_ca_file() : "the system's");
      break;
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_WEIRD_SERVER_REPLY:
      if (x->status_known || resp->status > 0 || resp->body_bytes > 0) {
        const char *why = "the server or a proxy closed the connection early";
        if (rc == CURLE_RECV_ERROR && strstr(detail, "hunked"))
          why = "the server sent a malformed chunked body";
        else if (rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR)
          why = "the network connection failed";
        else if (rc == CURLE_HTTP2 || rc == CURLE_HTTP2_STREAM)
          why = "the HTTP/2 stream was reset";
        ret = zerr_set(err, ZE_PROVIDER,
                       "the response stream from %s was cut after %zu bytes of body (%s): "
                       "%s — retry the request",
                       origin, resp->body_bytes, detail, why);
      }
      else
        ret = zerr_set(err, ZE_PROVIDER,
                       "the connection to %s was cut before a response arrived (%s); retry "
                       "the request, and check the base URL if it keeps happening",
                       origin, detail);
      break;
    default:
      ret = zerr_set(err, ZE_PROVIDER, "the request to %s failed: %s; retry the request",
                     origin, detail);
      break;
  }
  if (err) {
    /* Safe to repeat only when nothing reached the server. */
    err->retryable = !resp->sent_request;
    err->http_status = (int)resp->status;
  }
  return ret;
}

/* Takes the shared multi handle, or makes a private one when it is in use.
 * *shared tells which, for http_multi_put. */
static CURLM *http_multi_get(bool *shared) {
  if (!atomic_flag_test_and_set(&http_shared_busy)) {
    if (!http_shared_multi) http_shared_multi = curl_multi_init();
    if (http_shared_multi) {
      *shared = true;
      return http_shared_multi;
    }
    atomic_flag_clear(&http_shared_busy);
  }
  *shared = false;
  return curl_multi_init();
}

static void http_multi_put(CURLM *m, bool shared) {
  if (shared)
    atomic_flag_clear(&http_shared_busy);
  else if (m)
    curl_multi_cleanup(m);
}

static void (*g_wait_notifier)(const char *origin, long waited_ms);

void zhttp_set_wait_notifier(void (*fn)(const char *origin, long waited_ms)) {
  g_wait_notifier = fn;
}

/* The silence checks of a sent request at time now: no response byte within
 * the first-byte timeout, or no byte within the idle timeout once the
 * response began. Time counts from the last byte moved (the end of the
 * upload at first); before the connection is ready curl's connect timeout is
 * in charge. Lowers *wait to the next deadline; -1 with ZE_TIMEOUT when one
 * passed. Calls the wait notifier once when the request asks for it. */
static int http_check_silence(http_xfer *x, int64_t now, long idle_ms, long *wait, zerr *err) {
  const zhttp_request *req = x->req;
  char origin[512];
  bool silent = !x->responded && req->first_byte_timeout_ms > 0;
  long limit = silent ? req->first_byte_timeout_ms : idle_ms;
  int64_t quiet = now - x->last_activity;
  if (!x->responded && req->announce_wait && !x->announced && g_wait_notifier) {
    /* Halfway to a shorter first-byte timeout, so the notice comes first. */
    int64_t notice_at =
        silent && limit / 2 < ZHTTP_WAIT_NOTICE_MS ? limit / 2 : ZHTTP_WAIT_NOTICE_MS;
    if (quiet >= notice_at) {
      x->announced = true;
      http_origin(req->url, origin, sizeof origin);
      g_wait_notifier(origin, (long)quiet);
    } else if (notice_at - quiet < *wait) {
      *wait = (long)(notice_at - quiet);
    }
  }
  int64_t left = limit - quiet;
  if (left <= 0) {
    http_origin(req->url, origin, sizeof origin);
    if (silent)
      return zerr_set(err, ZE_TIMEOUT,
                      "%s accepted the connection but sent no response for %ld ms (first-byte "
                      "timeout); the server or a proxy in between is stuck — retry, or raise "
                      "ZERO_FIRST_BYTE_TIMEOUT",
                      origin, limit);
    return zerr_set(err, ZE_TIMEOUT,
                    "%s sent no data for %ld ms (idle timeout) after %zu bytes of body; "
                    "the server may be overloaded — retry, or raise the idle timeout",
                    origin, idle_ms, x->resp->body_bytes);
  }
  if (left < *wait) *wait = (long)left;
  return 0;
}

/* The transfer loop. Returns the finished transfer's CURLcode in *result, or
 * -1 with err set when the loop itself ended it (cancel, our timeouts, curl
 * multi failure). */
static int http_run(CURLM *multi, http_xfer *x, CURLcode *result, zerr *err) {
  const zhttp_request *req = x->req;
  long idle_ms = req->idle_timeout_ms > 0 ? req->idle_timeout_ms : HTTP_DEFAULT_IDLE_MS;
  long total_ms = req->total_timeout_ms;
  int64_t start = ztime_mono_ms();
  x->last_activity = start;
  char origin[512];

  bool cancellable = !req->ignore_cancel;
  for (;;) {
    if (cancellable && zcancel_requested())
      return zerr_set(err, ZE_CANCELLED, "the request was cancelled");

    int running = 0;
    CURLMcode mc = curl_multi_perform(multi, &running);
    if (mc != CURLM_OK)
      return zerr_set(err, ZE_INTERNAL, "HTTP transfer loop failed: %s",
                      curl_multi_strerror(mc));
    int queued;
    CURLMsg *m;
    while ((m = curl_multi_info_read(multi, &queued)) != NULL) {
      if (m->msg == CURLMSG_DONE && m->easy_handle == x->easy) {
        *result = m->data.result;
        return 0;
      }
    }

    int64_t now = ztime_mono_ms();
    long wait = HTTP_MAX_WAIT_MS;
    if (total_ms > 0) {
      int64_t left = total_ms - (now - start);
      if (left <= 0) {
        http_origin(req->url, origin, sizeof origin);
        return zerr_set(err, ZE_TIMEOUT,
                        "the request to %s did not finish within the total timeout of %ld "
                        "ms; retry, or raise the timeout",
                        origin, total_ms);
      }
      if (left < wait) wait = (long)left;
    }
    if (x->connected && http_check_silence(x, now, idle_ms, &wait, err) < 0) return -1;

    struct curl_waitfd extra[3];
    unsigned nextra = 0;
    if (cancellable && zcancel_fd() >= 0)
      extra[nextra++] = (struct curl_waitfd){zcancel_fd(), CURL_WAIT_POLLIN, 0};
    if (cancellable && zcancel_fd() < 0 && wait > HTTP_FLAG_POLL_MS) wait = HTTP_FLAG_POLL_MS;
    int stop_idx = -1;
    if (req->stop_fd > 0) {
      stop_idx = (int)nextra;
      extra[nextra++] = (struct curl_waitfd){req->stop_fd, CURL_WAIT_POLLIN, 0};
    }
    int wake_idx = -1;
    if (req->wake_fd > 0 && req->on_wake) {
      wake_idx = (int)nextra;
      extra[nextra++] = (struct curl_waitfd){req->wake_fd, CURL_WAIT_POLLIN, 0};
    }
    mc = curl_multi_poll(multi, nextra ? extra : NULL, nextra, (int)wait, NULL);
    if (mc != CURLM_OK)
      return zerr_set(err, ZE_INTERNAL, "waiting for HTTP data failed: %s",
                      curl_multi_strerror(mc));
    if (stop_idx >= 0 && extra[stop_idx].revents)
      return zerr_set(err, ZE_CANCELLED, "the request was stopped");
    if (wake_idx >= 0 && extra[wake_idx].revents) req->on_wake(req->wake_ud);
    /* A readable pipe shows up as zcancel_requested() at the top. */
  }
}

/* The debug log's line for a finished transfer (base/log.h): what it asked,
 * what came back and how long each part took; the body only when asked. */
static void http_log(const http_xfer *x, int rc, const zerr *err, int64_t started_ms) {
  const zhttp_request *req = x->req;
  curl_off_t connect_us = 0, first_us = 0;
  curl_easy_getinfo(x->easy, CURLINFO_CONNECT_TIME_T, &connect_us);
  curl_easy_getinfo(x->easy, CURLINFO_STARTTRANSFER_TIME_T, &first_us);
  zlog("http", "%s %s -> %ld in %lld ms (connect %lld ms, first byte %lld ms), sent %zu bytes%s%s",
       req->method ? req->method : "GET", req->url, x->resp->status,
       (long long)(ztime_mono_ms() - started_ms), (long long)(connect_us / 1000),
       (long long)(first_us / 1000), req->body_len, rc < 0 && err ? ": " : "",
       rc < 0 && err ? err->msg : "");
  if (zlog_bodies() && req->body)
    zlog("http", "request body: %.*s", (int)(req->body_len > INT_MAX ? INT_MAX : req->body_len),
         req->body);
}

static void http_easy_cleanup(CURL **e) {
  if (*e) curl_easy_cleanup(*e);
}

int zhttp_perform(const zhttp_request *req, zhttp_response *resp, zhttp_body_fn on_body,
                  void *ud, zerr *err) {
  zhttp_response_release(resp);
  zhttp_global_init();
  if (!(req && req->ignore_cancel) && zcancel_requested())
    return zerr_set(err, ZE_CANCELLED, "the request was cancelled");
  if (!req || !req->url) return zerr_set(err, ZE_INTERNAL, "HTTP request without a URL");

  http_xfer x;
  memset(&x, 0, sizeof x);
  x.req = req;
  x.resp = resp;
  x.on_body = on_body;
  x.ud = ud;

  __attribute__((cleanup(http_easy_cleanup))) CURL *easy = curl_easy_init();
  if (!easy) return zerr_set(err, ZE_INTERNAL, "could not create an HTTP handle (curl_easy_init)");
  x.easy = easy;
  __attribute__((cleanup(http_slist_cleanup))) struct curl_slist *headers = NULL;
  if (http_configure(&x, &headers, err) < 0) return -1;

  bool shared = false;
  CURLM *multi = http_multi_get(&shared);
  if (!multi) return zerr_set(err, ZE_INTERNAL, "could not create an HTTP multi handle");
  CURLMcode mc = curl_multi_add_handle(multi, easy);
  if (mc != CURLM_OK) {
    http_multi_put(multi, shared);
    return zerr_set(err, ZE_INTERNAL, "could not start the HTTP transfer: %s",
                    curl_multi_strerror(mc));
  }

  CURLcode result = CURLE_OK;
  int64_t started_ms = ztime_mono_ms();
  int rc = http_run(multi, &x, &result, err);
  if (rc == 0 && result != CURLE_OK) {
    if (x.body_aborted)
      rc = zerr_set(err, ZE_CANCELLED, "the response stream was stopped by its receiver");
    else
      rc = http_classify(&x, result, err);
  }
  if (!x.status_known) {
    long code = 0;
    if (curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK && code > 0)
      resp->status = code;
  }
  if (rc < 0 && err && err->kind != ZE_PROVIDER) {
    /* Timeouts are retryable only before the request went out. */
    err->retryable = err->kind == ZE_TIMEOUT && !resp->sent_request;
    err->http_status = (int)resp->status;
  }

  if (zlog_enabled()) http_log(&x, rc, err, started_ms);
  /* Removing an unfinished transfer closes its connection; a finished one
   * goes back to the shared pool for the next request. */
  curl_multi_remove_handle(multi, easy);
  http_multi_put(multi, shared);
  return rc;
}

long zhttp_retry_after_seconds(const char *value) {
  if (!value) return -1;
  const char *s = value;
  while (*s == ' ' || *s == '\t') s++;
  if (!*s) return -1;
  if (*s >= '0' && *s <= '9') {
    /* delta-seconds: 1*DIGIT, possibly huge; clamp instead of overflowing. */
    long v = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9') {
      int d = *p - '0';
      v = v > (LONG_MAX - d) / 10 ? LONG_MAX : v * 10 + d;
      p++;
    }
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    if (!*p) return v;
    /* Not a plain number: fall through to the date forms. */
  }
  /* HTTP-date: IMF-fixdate, RFC 850 or asctime; curl_getdate reads all three. */
  time_t when = curl_getdate(s, NULL);
  if (when == (time_t)-1) return -1;
  time_t now = time(NULL);
  return when <= now ? 0 : (long)(when - now);
}

/* ---- a small JSON answer -------------------------------------------------------- */

typedef struct json_body {
  zbuf b;
  size_t max;
} json_body;

static int on_json_body(void *ud, const char *data, size_t len) {
  json_body *j = ud;
  if (j->b.len + len > j->max) return 1;
  zbuf_add(&j->b, data, len);
  return 0;
}

json_t *zhttp_fetch_json(const zhttp_request *req, size_t max_bytes) {
  json_body j = {ZBUF_INIT, max_bytes};
  zerr err = ZERR_INIT;
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  json_t *out = NULL;
  if (zhttp_perform(req, &resp, on_json_body, &j, &err) == 0 && resp.status == 200)
    out = json_loadb(j.b.data ? j.b.data : "", j.b.len, 0, NULL);
  zhttp_response_release(&resp);
  zbuf_release(&j.b);
  return out;
}
