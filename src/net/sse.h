/* sse.h — Server-Sent Events parser (hand-written: no packaged library
 * follows the WHATWG spec and streams incrementally).
 *
 * Follows https://html.spec.whatwg.org/multipage/server-sent-events.html:
 *  - lines end in LF, CRLF or CR (a CR at the end of one read followed by LF at
 *    the start of the next is one line ending);
 *  - "data:" values are joined with "\n"; one leading space after the colon is
 *    removed; an event is dispatched at a blank line when at least one data
 *    field was seen since the last dispatch (the spec's "data buffer is not
 *    empty": a bare "data:" dispatches an event with empty data; "event:" and
 *    "id:" alone do not dispatch);
 *  - "id:" sets the last event id unless its value contains NUL; "retry:"
 *    with only ASCII digits sets retry_ms (the reconnection time a client
 *    that reopens the stream should wait); unknown fields are ignored;
 *  - lines starting with ':' are comments (keep-alives) and are ignored, but
 *    are counted in zsse_parser.comments;
 *  - a leading UTF-8 BOM on the stream is skipped;
 *  - an event whose accumulated data passes max_event_bytes, or a single line
 *    longer than max_event_bytes + 64 (room for the field name), fails with
 *    ZE_TOO_LARGE and a message naming the limit. After any error the parser
 *    stays failed: later zsse_feed calls return -1 again until zsse_init;
 *  - any byte split is legal: feeding a stream in pieces of any size yields the
 *    same events as feeding it whole.
 * An event still open at end of stream is discarded (per spec), reported by
 * zsse_finish as a truncation so callers can say the stream was cut.
 */
#ifndef ZERO_NET_SSE_H
#define ZERO_NET_SSE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define ZSSE_DEFAULT_MAX_EVENT (16u << 20) /* 16 MiB */

typedef struct zsse_event {
  const char *event; /* "message" when no event: field was given */
  const char *data;  /* joined data lines, NUL-terminated */
  size_t data_len;
  const char *id;    /* last event id seen on the stream ("" if none) */
} zsse_event;

/* Called for each dispatched event; return nonzero to stop parsing (zsse_feed
 * then returns that value). Pointers are valid only during the call. */
typedef int (*zsse_event_fn)(void *ud, const zsse_event *ev);

typedef struct zsse_parser {
  zsse_event_fn on_event;
  void *ud;
  size_t max_event_bytes;
  zbuf line;       /* current partial line */
  zbuf data;       /* data of the event being built */
  zbuf event_type;
  zbuf last_id;
  bool has_data;
  bool last_was_cr; /* previous chunk ended in CR: swallow a leading LF */
  bool bom_checked;
  bool failed;      /* an error was reported; feeding again fails */
  size_t comments;  /* comment lines seen (keep-alives) */
  size_t events;    /* events dispatched */
  long retry_ms;    /* the last valid "retry:" value, -1 when none came */
} zsse_parser;

/* Prepares p (any previous content is ignored, not freed). max_event_bytes 0
 * means ZSSE_DEFAULT_MAX_EVENT. */
void zsse_init(zsse_parser *p, zsse_event_fn fn, void *ud, size_t max_event_bytes);
/* Feeds bytes. Returns 0, -1 on error (err set), or the callback's nonzero value. */
int zsse_feed(zsse_parser *p, const char *data, size_t len, zerr *err);
/* End of stream. Returns 1 when an incomplete event (or line) was pending and
 * was discarded, 0 when the stream ended cleanly. "Pending" means a partial
 * line, data not yet closed by a blank line, or an "event:" type set since
 * the last blank line. The pending event is dropped; the last id is kept. */
int zsse_finish(zsse_parser *p);
/* Frees the buffers; p may be zsse_init'ed again afterwards. */
void zsse_release(zsse_parser *p);

#endif
