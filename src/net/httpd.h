/* httpd.h — the request side of the small HTTP/1.1 server behind
 * `zero serve --mcp --http`: an incremental request parser and the bytes of
 * a response's head.
 *
 * Hand-written: libmicrohttpd would be one more library to load for one
 * face, and its threading and suspend/resume model fits long-lived SSE
 * streams worse than a few hundred lines that serve one known client shape.
 * The parser is strict where leniency lets a request mean two things
 * (request smuggling) and capped everywhere (RFC 9112):
 *  - request line "METHOD SP target SP HTTP/1.x"; blank lines before it are
 *    skipped; lines end in CRLF (a bare LF is accepted); HTTP/1.0 and 1.1
 *    only (else 505); a method longer than 15 bytes or a target that is not
 *    printable ASCII is 400;
 *  - header names are tokens with no space before the colon; obsolete line
 *    folding is 400; names are lowercased, values trimmed of SP/HTAB;
 *  - Content-Length is digits only; two that differ, or Content-Length with
 *    Transfer-Encoding, is 400; a Transfer-Encoding other than "chunked" is
 *    501; chunk sizes are hex with optional ";ext" (ignored); trailers are
 *    read and dropped;
 *  - caps: the head (request line + headers, or the trailers) max_head bytes
 *    and ZHTTPD_MAX_HEADERS fields (else 431); the body max_body bytes,
 *    chunked or not (else 413).
 * Any split of the input gives the same result as feeding it whole. After
 * an error the parser stays failed: the connection must be answered with
 * error_status and closed, since where the next request starts is unknown.
 */
#ifndef ZERO_NET_HTTPD_H
#define ZERO_NET_HTTPD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

#define ZHTTPD_MAX_HEADERS 64
#define ZHTTPD_DEFAULT_MAX_HEAD (16u << 10) /* 16 KiB of request line and headers */
#define ZHTTPD_DEFAULT_MAX_BODY (4u << 20)  /* 4 MiB of body */

typedef enum zhttpd_state {
  ZHTTPD_HEAD,       /* reading the request line and headers */
  ZHTTPD_BODY,       /* reading a Content-Length body */
  ZHTTPD_CHUNK_SIZE, /* reading a chunk-size line */
  ZHTTPD_CHUNK_DATA, /* reading chunk data */
  ZHTTPD_CHUNK_END,  /* the CRLF after chunk data */
  ZHTTPD_TRAILERS,   /* trailer fields after the last chunk */
  ZHTTPD_DONE,       /* one whole request is in req */
  ZHTTPD_FAILED,     /* error_status says why */
} zhttpd_state;

typedef struct zhttpd_header {
  const char *name;  /* lowercased; points into the parser's head buffer */
  const char *value; /* trimmed */
} zhttpd_header;

/* One parsed request. Strings point into the parser and live until its next
 * zhttpd_reset or zhttpd_release. */
typedef struct zhttpd_req {
  const char *method;
  const char *target; /* as sent: "/mcp?x=1" */
  int minor;          /* HTTP/1.<minor> */
  zhttpd_header headers[ZHTTPD_MAX_HEADERS];
  size_t n_headers;
  zbuf body;            /* decoded (de-chunked) body, NUL-terminated */
  bool keep_alive;      /* the client allows another request on the connection */
  bool expect_continue; /* "Expect: 100-continue": answer 100 before the body arrives */
} zhttpd_req;

typedef struct zhttpd_parser {
  zhttpd_state state;
  size_t max_head, max_body;
  zbuf head;        /* the request's head bytes; header strings point here */
  zbuf line;        /* a chunk-size or trailer line being assembled */
  size_t remaining; /* bytes left of the body or of the current chunk */
  size_t trailer_bytes;
  zhttpd_req req;
  int error_status; /* 400, 413, 431, 501 or 505 when FAILED */
  char error[160];  /* what was wrong, for the response body */
} zhttpd_parser;

/* Sets p up with the given caps (0 = the defaults above). */
void zhttpd_init(zhttpd_parser *p, size_t max_head, size_t max_body);
/* Ready for the next request on the same connection (keeps the caps). */
void zhttpd_reset(zhttpd_parser *p);
void zhttpd_release(zhttpd_parser *p);

/* Feeds len bytes; returns how many it used. It stops at the end of a
 * request (state DONE): the rest belongs to the next one (pipelining), to be
 * fed again after zhttpd_reset. In state FAILED it uses nothing. */
size_t zhttpd_feed(zhttpd_parser *p, const char *data, size_t len);

/* The first value of header name (lowercase), or NULL. */
const char *zhttpd_header_get(const zhttpd_req *r, const char *name);

/* true when the comma-separated header list value holds token (ASCII case
 * ignored; parameters after ';' ignored): "text/event-stream" in an Accept. */
bool zhttpd_list_has(const char *value, const char *token);

/* The reason phrase of a status code ("Not Found"); "Unknown" for others. */
const char *zhttpd_reason(int status);

#endif
