/* http.h — HTTP client over the libcurl multi interface.
 *
 * One request at a time per call, driven by curl_multi_poll so that the
 * process cancellation pipe (base/cancel.h) wakes the loop at once: a SIGINT
 * aborts a stream within milliseconds. Response bodies of 2xx answers are
 * streamed to on_body as they arrive; bodies of error answers (status >= 400)
 * are collected in resp->error_body (capped at 64 KiB) for the caller to
 * explain.
 */
#ifndef ZERO_NET_HTTP_H
#define ZERO_NET_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/err.h"

typedef struct zhttp_request {
  const char *method;             /* "GET", "POST", … */
  const char *url;
  const char *const *headers;     /* NULL-terminated "Name: value" list, may be NULL */
  const char *body;               /* may be NULL */
  size_t body_len;
  long connect_timeout_ms;        /* 0 = 30 s */
  long idle_timeout_ms;           /* no byte received for this long = timeout; 0 = 300 s */
  /* Once the request is sent, no response byte at all for this long =
   * timeout (a server that accepted the connection and says nothing), told
   * apart from a stream gone quiet; 0 = idle_timeout_ms applies. */
  long first_byte_timeout_ms;
  /* With no response byte after ZHTTP_WAIT_NOTICE_MS (or halfway to a
   * shorter first-byte timeout), call the process's wait notifier once (zhttp_set_wait_notifier): a
   * model request a person is waiting on. */
  bool announce_wait;
  long total_timeout_ms;          /* 0 = none */
  /* Optional: every response header line ("Name: value\r\n"), e.g. for
   * Mcp-Session-Id / WWW-Authenticate. */
  void (*on_header)(void *ud, const char *line, size_t len);
  void *header_ud;
  /* Optional, > 0: the transfer ends with ZE_CANCELLED once this descriptor
   * is readable (stops a long-lived stream running on another thread). */
  int stop_fd;
  /* Optional, > 0: whenever this descriptor is readable during the transfer,
   * on_wake(wake_ud) runs (between curl's steps, never inside one of its
   * callbacks) and must drain it. MCP uses it to answer what a server asks
   * on another stream while this request waits for its reply. */
  int wake_fd;
  void (*on_wake)(void *ud);
  void *wake_ud;
  /* Performs the request even after cancellation was requested (base/
   * cancel.h): a short farewell such as MCP's notifications/cancelled. Set a
   * total_timeout_ms with it. */
  bool ignore_cancel;
} zhttp_request;

enum { ZHTTP_WAIT_NOTICE_MS = 10000 };

/* Installs fn as the notifier of requests marked announce_wait: called once
 * per such request, on the transfer's thread, with the request's origin
 * ("scheme://host:port", never a path) and how long it has waited. NULL
 * removes it. `zero exec` prints a notice to stderr with it. */
void zhttp_set_wait_notifier(void (*fn)(const char *origin, long waited_ms));

typedef struct zhttp_response {
  long status;                    /* 0 when no response arrived */
  zbuf error_body;                /* body of a >= 400 answer (capped) */
  char *retry_after;              /* Retry-After header value or NULL; owned */
  char *content_type;             /* owned, may be NULL */
  bool sent_request;              /* the request reached the server (retry safety) */
  size_t body_bytes;              /* bytes of body received */
} zhttp_response;

#define ZHTTP_RESPONSE_INIT { 0, ZBUF_INIT, NULL, NULL, false, 0 }

/* Called with each piece of a 2xx body; return nonzero to abort the transfer
 * (zhttp_perform then fails with ZE_CANCELLED). */
typedef int (*zhttp_body_fn)(void *ud, const char *data, size_t len);

/* Performs the request. Returns 0 when a response was received (any status:
 * the caller inspects resp->status), -1 on transport failure, timeout or
 * cancellation with err set:
 *   ZE_CANCELLED  cancellation pipe fired or on_body asked to stop
 *   ZE_TIMEOUT    connect / idle / total timeout (retryable when !sent_request)
 *   ZE_PROVIDER   other transport errors; err->retryable when the connection
 *                 failed before the request was sent.
 * A transfer that ends early (connection reset, truncated chunked body) is a
 * ZE_PROVIDER error even if some body arrived. */
/* resp must hold ZHTTP_RESPONSE_INIT or a released response; it is reset
 * first and must be released with zhttp_response_release afterwards, on
 * success and failure alike (status, error_body and retry_after are kept on
 * failure when they arrived). Call from the event-loop thread: connections
 * are pooled in one process-wide multi handle and reused by the next call. */
int zhttp_perform(const zhttp_request *req, zhttp_response *resp, zhttp_body_fn on_body,
                  void *ud, zerr *err);
void zhttp_response_release(zhttp_response *resp);

/* Performs req for a small JSON answer (a local runtime's model list): the
 * parsed body of a 200 answer of at most max_bytes; NULL for no answer,
 * another status, a larger body or one that is not JSON. */
json_t *zhttp_fetch_json(const zhttp_request *req, size_t max_bytes);

/* Seconds to wait from a Retry-After value (delta-seconds or HTTP date);
 * -1 when absent or unparseable. */
long zhttp_retry_after_seconds(const char *value);

/* zero's own HTTPS trusts the CA certificates of path (config
 * "network.caBundle") instead of the system bundle; NULL restores the
 * default. Copied. Call before requests start (run setup): requests on
 * other threads read it without a lock. */
void zhttp_set_ca_bundle(const char *path);
/* The CA bundle zero's own requests use, or NULL for libcurl's default: the
 * config's, else SSL_CERT_FILE, else CURL_CA_BUNDLE (Debian's libcurl reads
 * neither by itself). Borrowed. web_fetch applies it too. */
const char *zhttp_ca_file(void);
/* SSL_CERT_DIR, or NULL. Borrowed. */
const char *zhttp_ca_dir(void);

/* One-time global init (curl_global_init); safe to call repeatedly.
 * zhttp_perform calls it itself. */
void zhttp_global_init(void);
/* Closes pooled connections and releases curl's global state; for a clean
 * exit (leak checkers). No zhttp_* call may follow it. */
void zhttp_global_cleanup(void);
/* "libcurl/7.88.1 OpenSSL/3.0…" for --version. Borrowed. */
const char *zhttp_version(void);

#endif
