/* wire.h — the transport every streaming wire protocol shares: one HTTP
 * POST, its SSE body fed to a protocol parser, the retry policy of retry.h
 * around it, and the stream-level idle rule.
 *
 * A protocol supplies a parser behind zwire_parser_ops; wire.c does the rest
 * the same way for all of them, so a fault (429 with Retry-After, 529,
 * overloaded_error, a cut or silent stream) is handled identically whichever
 * API the user talks to.
 *
 * Idle rule: besides the transport's byte-level idle timeout, a stream whose
 * only traffic for longer than the idle limit is keep-alive comments or
 * protocol pings (Anthropic "ping") fails with ZE_TIMEOUT; before any visible
 * output that failure is retried like any other early cut.
 */
#ifndef ZERO_PROVIDER_WIRE_H
#define ZERO_PROVIDER_WIRE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "net/sse.h"
#include "provider/provider.h"
#include "provider/wirejson.h"

/* What a protocol parser offers the transport. `p` is the protocol's parser
 * object; its event callback was set at its own init. */
typedef struct zwire_parser_ops {
  /* Starts a fresh attempt (forgets partial state, keeps fn / ud). */
  void (*reset)(void *p);
  /* One SSE event. Returns 0 or -1 with err set (in-stream error, malformed
   * data, consumer stop = ZE_CANCELLED). */
  int (*feed)(void *p, const zsse_event *ev, zerr *err);
  /* true when the stream may end here without being truncated. */
  bool (*complete)(const void *p);
  /* End of stream: emits the closing events (TOOL_END…, USAGE, DONE), or
   * fails "ended early" (retryable when nothing was emitted). */
  int (*finish)(void *p, zerr *err);
  /* A text / reasoning / tool event went to the consumer. */
  bool (*emitted)(const void *p);
  /* Optional: a 2xx body with no SSE event at all, parsed as one JSON value
   * (a server that ignored "stream": true). NULL = treat as ended early. */
  int (*feed_json)(void *p, const json_t *body, zerr *err);
  /* Optional: true for events that only keep the stream alive ("ping"). */
  bool (*is_keepalive)(const zsse_event *ev);
} zwire_parser_ops;

typedef struct zwire_call {
  const zprov_opts *opts;     /* name, timeouts, retries */
  const char *url;
  const char *const *headers; /* NULL-terminated "Name: value" lines */
  const char *body;
  size_t body_len;
  const zwire_parser_ops *ops;
  void *parser;
} zwire_call;

/* Streams one turn with retries; see provider.h for the contract of
 * zprovider_vtbl.stream. fn receives the RETRY events (the parser delivers
 * the others itself). */
int zwire_stream(const zwire_call *c, zprov_event_fn fn, void *ud, zerr *err);

/* Request headers: `defaults` ("Name: value", NULL-terminated; entries may
 * be NULL-skipped with a leading '\0'), then the profile's extra headers,
 * which replace a default of the same name. Header values with line breaks
 * are dropped (no header smuggling through a key). Caller frees with
 * zwire_headers_free. */
char **zwire_headers_new(const zprov_opts *o, const char *const *defaults);
void zwire_headers_free(char **h);

/* true when s is safe inside one header line (no CR / LF). */
bool zwire_header_safe(const char *s);

/* "<base>/<suffix>" with exactly one slash between; a base that already
 * ends with suffix is used as is. Caller frees. */
char *zwire_url(const char *base, const char *suffix);

/* Common checks for a new provider: http(s) base URL and a model; ZE_CONFIG
 * with what to fix. */
int zwire_check_opts(const zprov_opts *opts, zerr *err);

typedef struct zwire_provider zwire_provider;

/* One wire protocol as the shared provider drives it: the request it
 * renders, the credential header it sends, and the parser its reply feeds.
 * Each protocol file holds one const instance; zwire_provider_new and the
 * vtable's stream (zwire_provider_stream) do the rest the same way for all,
 * so a protocol file is its renderer, its parser and this table. */
typedef struct zwire_protocol {
  zprovider_vtbl vt;        /* .wire names the protocol; stream and destroy
                             * NULL: zwire_provider_stream / _destroy */
  const char *cred_prefix;  /* "x-api-key: ", "Authorization: Bearer " … */
  const char *extra_header; /* one more header line, or NULL */
  /* The endpoint for opts (base URL, model). Caller frees. */
  char *(*url)(const zprov_opts *opts);
  /* The request body for req; *len its length. Caller frees. */
  char *(*render)(zwire_provider *p, const zprov_request *req, size_t *len);
  /* The parser object: parser_size bytes, set up by parser_init for one
   * turn and released by parser_release after it, whatever the outcome. */
  size_t parser_size;
  void (*parser_init)(void *parser, const char *provider_name, zprov_event_fn fn, void *ud);
  void (*parser_release)(void *parser);
  /* ops.complete / ops.emitted NULL: the parser's first member is a zturn
   * and its complete / emitted flags answer. */
  zwire_parser_ops ops;
} zwire_protocol;

/* The type-erasing adapters zwire_protocol takes, for a parser type T whose
 * functions are PREFIX_parser_init / _release / _feed (data, len) / _finish:
 * defines static PREFIX_op_init, PREFIX_op_release, PREFIX_op_feed and
 * PREFIX_op_finish. */
#define ZWIRE_PARSER_ADAPTERS(T, PREFIX)                                                 \
  static void PREFIX##_op_init(void *p, const char *name, zprov_event_fn fn, void *ud) { \
    PREFIX##_parser_init((T *)p, name, fn, ud);                                          \
  }                                                                                      \
  static void PREFIX##_op_release(void *p) { PREFIX##_parser_release((T *)p); }          \
  static int PREFIX##_op_feed(void *p, const zsse_event *ev, zerr *err) {                \
    return PREFIX##_parser_feed((T *)p, ev->data, ev->data_len, err);                    \
  }                                                                                      \
  static int PREFIX##_op_finish(void *p, zerr *err) { return PREFIX##_parser_finish((T *)p, err); }

/* Asserts that parser type T starts with its zturn (member `turn`), as the
 * default ops.complete / ops.emitted read it there. */
#define ZWIRE_TURN_FIRST(T) \
  _Static_assert(offsetof(T, turn) == 0, "the default wire ops read the zturn at the start")

/* A request body rendered as a JSON value, dumped: takes body (decref'd),
 * sets *len. Caller frees. */
char *zwire_json_body(json_t *body, size_t *len);

/* The state every wire protocol's provider holds: the vtable and options,
 * its protocol, the endpoint URL and the cache of rendered tool schemas
 * (left empty by the protocols that render tools as JSON values). */
struct zwire_provider {
  zprovider base; /* first: zprovider* and zwire_provider* convert */
  const zwire_protocol *proto;
  zprovider_vtbl vt;    /* proto->vt, its NULL rows filled with the defaults */
  zwire_parser_ops ops; /* proto->ops, likewise */
  char *url;      /* owned */
  zjw_tools tools;
  char *renewed_key; /* owned: the access token a 401 renewed (base.opts.api_key points here) */
};

/* Every zprovider_<wire>_new: checks opts (zwire_check_opts), initialises
 * HTTP once, allocates a provider for proto with a copy of opts and its
 * endpoint URL. NULL with err set when opts are wrong. */
zprovider *zwire_provider_new(const zwire_protocol *proto, const zprov_opts *opts, zerr *err);
/* The vtable's stream for a zwire_provider: renders req, posts it with the
 * protocol's headers (the credential line "<cred_prefix><api key>", left out
 * when the key is empty or would smuggle a header line, so the server's 401
 * says what to fix; the extra header; Content-Type: application/json;
 * Accept: text/event-stream; then the profile's own headers, see
 * zwire_headers_new) and streams the SSE reply through a fresh parser
 * (zwire_stream). Contract: zprovider_vtbl.stream. */
int zwire_provider_stream(zprovider *base, const zprov_request *req, zprov_event_fn fn, void *ud,
                          zerr *err);
/* The vtable's destroy for a zwire_provider: frees url, tools and p. */
void zwire_provider_destroy(zprovider *base);

/* Idle limit in ms for opts: opts->idle_timeout_ms, else
 * ZERO_STREAM_IDLE_TIMEOUT (seconds, or with a unit: 500ms, 30s, 5m), else
 * 300000. */
long zwire_idle_ms(const zprov_opts *opts);
/* How long a sent request may wait for the first byte of its response:
 * ZERO_FIRST_BYTE_TIMEOUT (a duration as ZERO_STREAM_IDLE_TIMEOUT takes it),
 * default 60 s, never longer than zwire_idle_ms. */
long zwire_first_byte_ms(const zprov_opts *opts);

/* Parses a ZERO_STREAM_IDLE_TIMEOUT value; -1 when invalid. */
long zwire_parse_duration_ms(const char *s);

/* Emits a delta event (text / reasoning) of len bytes; skips empty ones.
 * Returns fn's verdict as -1 + ZE_CANCELLED. *emitted is set. */
int zwire_emit(zprov_event_fn fn, void *ud, const zprov_event *ev, bool *emitted,
               const char *provider_name, zerr *err);

#endif
