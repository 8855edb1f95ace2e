/* httpd.c — HTTP/1.1 request parser; see httpd.h. */
#include "net/httpd.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/common.h"

#define LINE_MAX_BYTES 1024 /* a chunk-size or trailer line */

void zhttpd_init(zhttpd_parser *p, size_t max_head, size_t max_body) {
  memset(p, 0, sizeof *p);
  p->max_head = max_head ? max_head : ZHTTPD_DEFAULT_MAX_HEAD;
  p->max_body = max_body ? max_body : ZHTTPD_DEFAULT_MAX_BODY;
  zbuf_init(&p->head);
  zbuf_init(&p->line);
  zbuf_init(&p->req.body);
}

void zhttpd_reset(zhttpd_parser *p) {
  zbuf_reset(&p->head);
  zbuf_reset(&p->line);
  zbuf_reset(&p->req.body);
  zbuf body = p->req.body;
  memset(&p->req, 0, sizeof p->req);
  p->req.body = body;
  p->state = ZHTTPD_HEAD;
  p->remaining = p->trailer_bytes = 0;
  p->error_status = 0;
  p->error[0] = 0;
}

void zhttpd_release(zhttpd_parser *p) {
  zbuf_release(&p->head);
  zbuf_release(&p->line);
  zbuf_release(&p->req.body);
}

static void fail(zhttpd_parser *p, int status, const char *why) {
  p->state = ZHTTPD_FAILED;
  p->error_status = status;
  snprintf(p->error, sizeof p->error, "%s", why);
}

static bool is_tchar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (c && strchr("!#$%&'*+-.^_`|~", c));
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = 0;
  return s;
}

/* Cuts the next line off *cur (NUL-terminating it, dropping a CR before the
 * LF); NULL at the end of the head. */
static char *next_line(char **cur) {
  char *s = *cur, *nl = strchr(s, '\n');
  if (!nl) return NULL;
  *nl = 0;
  if (nl > s && nl[-1] == '\r') nl[-1] = 0;
  *cur = nl + 1;
  return s;
}

static bool parse_request_line(zhttpd_parser *p, char *line) {
  zhttpd_req *r = &p->req;
  char *sp1 = strchr(line, ' ');
  char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
  if (!sp1 || !sp2 || strchr(sp2 + 1, ' ')) {
    fail(p, 400, "malformed request line");
    return false;
  }
  *sp1 = *sp2 = 0;
  if (sp1 == line || sp1 - line > 15) {
    fail(p, 400, "malformed method");
    return false;
  }
  for (const char *c = line; *c; c++)
    if (!is_tchar((unsigned char)*c)) {
      fail(p, 400, "malformed method");
      return false;
    }
  const char *target = sp1 + 1;
  if (!*target) {
    fail(p, 400, "empty request target");
    return false;
  }
  for (const unsigned char *c = (const unsigned char *)target; *c; c++)
    if (*c <= 0x20 || *c >= 0x7f) {
      fail(p, 400, "request target is not printable ASCII");
      return false;
    }
  const char *ver = sp2 + 1;
  if (strncmp(ver, "HTTP/1.", 7) != 0 || (ver[7] != '0' && ver[7] != '1') || ver[8]) {
    fail(p, strncmp(ver, "HTTP/", 5) == 0 ? 505 : 400, "only HTTP/1.0 and HTTP/1.1 are served");
    return false;
  }
  r->method = line;
  r->target = target;
  r->minor = ver[7] - '0';
  return true;
}

static bool parse_header_line(zhttpd_parser *p, char *line) {
  zhttpd_req *r = &p->req;
  if (*line == ' ' || *line == '\t') {
    fail(p, 400, "obsolete header line folding is not accepted");
    return false;
  }
  char *colon = strchr(line, ':');
  if (!colon || colon == line) {
    fail(p, 400, "malformed header field");
    return false;
  }
  *colon = 0;
  for (char *c = line; *c; c++) {
    if (!is_tchar((unsigned char)*c)) {
      fail(p, 400, "malformed header field name");
      return false;
    }
    if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
  }
  char *value = trim(colon + 1);
  for (const unsigned char *c = (const unsigned char *)value; *c; c++)
    if ((*c < 0x20 && *c != '\t') || *c == 0x7f) {
      fail(p, 400, "control character in a header value");
      return false;
    }
  if (r->n_headers == ZHTTPD_MAX_HEADERS) {
    fail(p, 431, "too many header fields");
    return false;
  }
  r->headers[r->n_headers].name = line;
  r->headers[r->n_headers].value = value;
  r->n_headers++;
  return true;
}

/* Content-Length as digits only; -1 when malformed. */
static long long parse_length(const char *v) {
  if (!*v) return -1;
  long long n = 0;
  for (; *v; v++) {
    if (*v < '0' || *v > '9') return -1;
    if (n > (1LL << 40)) return -1;
    n = n * 10 + (*v - '0');
  }
  return n;
}

/* Decides the body's framing from the headers (RFC 9112 §6.3). */
static void start_body(zhttpd_parser *p) {
  zhttpd_req *r = &p->req;
  const char *te = NULL;
  long long len = -2; /* -2: none seen */
  for (size_t i = 0; i < r->n_headers; i++) {
    const zhttpd_header *h = &r->headers[i];
    if (!strcmp(h->name, "transfer-encoding")) {
      if (te || strcasecmp(h->value, "chunked") != 0) {
        fail(p, 501, "only the chunked transfer coding is accepted");
        return;
      }
      te = h->value;
    } else if (!strcmp(h->name, "content-length")) {
      long long n = parse_length(h->value);
      if (n < 0 || (len != -2 && n != len)) {
        fail(p, 400, "malformed or conflicting Content-Length");
        return;
      }
      len = n;
    }
  }
  if (te && len != -2) {
    fail(p, 400, "both Transfer-Encoding and Content-Length");
    return;
  }
  const char *conn = zhttpd_header_get(r, "connection");
  r->keep_alive = r->minor == 1 ? !(conn && zhttpd_list_has(conn, "close"))
                                : (conn && zhttpd_list_has(conn, "keep-alive"));
  const char *expect = zhttpd_header_get(r, "expect");
  r->expect_continue = r->minor == 1 && expect && !strcasecmp(expect, "100-continue");
  if (te) {
    p->state = ZHTTPD_CHUNK_SIZE;
  } else if (len > 0) {
    if ((unsigned long long)len > p->max_body) {
      fail(p, 413, "request body too large");
      return;
    }
    p->remaining = (size_t)len;
    p->state = ZHTTPD_BODY;
  } else {
    p->state = ZHTTPD_DONE;
  }
}

static void parse_head(zhttpd_parser *p) {
  char *cur = p->head.data;
  char *line = next_line(&cur);
  if (!line || !parse_request_line(p, line)) return;
  while ((line = next_line(&cur)) && *line)
    if (!parse_header_line(p, line)) return;
  start_body(p);
}

/* Head bytes: up to and including the blank line that ends the headers. */
static size_t feed_head(zhttpd_parser *p, const char *data, size_t len) {
  size_t i = 0;
  for (; i < len; i++) {
    char c = data[i];
    if (p->head.len == 0 && (c == '\r' || c == '\n')) continue; /* blank lines before */
    if (p->head.len >= p->max_head) {
      fail(p, 431, "request head too large");
      return i;
    }
    if (!c) {
      fail(p, 400, "NUL byte in the request head");
      return i;
    }
    zbuf_addch(&p->head, c);
    if (c == '\n' && (zbuf_ends_with(&p->head, "\n\n") || zbuf_ends_with(&p->head, "\n\r\n"))) {
      parse_head(p);
      return i + 1;
    }
  }
  return i;
}

/* Collects one line of a chunked body into p->line; true when it is whole
 * (the LF seen; the line, without CRLF, is in p->line). */
static bool feed_line(zhttpd_parser *p, const char *data, size_t len, size_t *used) {
  while (*used < len) {
    char c = data[(*used)++];
    if (c == '\n') {
      if (p->line.len && p->line.data[p->line.len - 1] == '\r')
        zbuf_setlen(&p->line, p->line.len - 1);
      return true;
    }
    if (p->line.len >= LINE_MAX_BYTES) {
      fail(p, 400, "chunk line too long");
      return false;
    }
    zbuf_addch(&p->line, c);
  }
  return false;
}

static void chunk_size_line(zhttpd_parser *p) {
  const char *s = p->line.data; /* zbuf keeps it NUL-terminated */
  size_t n = 0, digits = 0;
  for (; *s; s++, digits++) {
    int v = (*s >= '0' && *s <= '9')   ? *s - '0'
            : (*s >= 'a' && *s <= 'f') ? *s - 'a' + 10
            : (*s >= 'A' && *s <= 'F') ? *s - 'A' + 10
                                       : -1;
    if (v < 0) break;
    if (n > (p->max_body >> 4) + 1) {
      fail(p, 413, "request body too large");
      return;
    }
    n = n * 16 + (size_t)v;
  }
  while (*s == ' ' || *s == '\t') s++;
  if (!digits || (*s && *s != ';')) {
    fail(p, 400, "malformed chunk size");
    return;
  }
  if (n > p->max_body - p->req.body.len) {
    fail(p, 413, "request body too large");
    return;
  }
  zbuf_reset(&p->line);
  p->remaining = n;
  p->state = n ? ZHTTPD_CHUNK_DATA : ZHTTPD_TRAILERS;
}

/* The CRLF after a chunk's data. */
static void chunk_end_line(zhttpd_parser *p) {
  if (p->line.len) {
    fail(p, 400, "chunk data longer than its size");
    return;
  }
  p->state = ZHTTPD_CHUNK_SIZE;
}

/* A trailer line: dropped, the whole capped like the head; a blank one
 * ends the request. */
static size_t feed_trailer(zhttpd_parser *p, const char *data, size_t len) {
  size_t used = 0;
  bool whole = feed_line(p, data, len, &used);
  p->trailer_bytes += used;
  if (p->trailer_bytes > p->max_head) {
    fail(p, 431, "trailer fields too large");
    return used;
  }
  if (whole) {
    if (!p->line.len) p->state = ZHTTPD_DONE;
    zbuf_reset(&p->line);
  }
  return used;
}

/* Body bytes, up to the p->remaining of the body or chunk; at its end the
 * parser moves to next. Returns the bytes used. */
static size_t take_body(zhttpd_parser *p, const char *data, size_t len, zhttpd_state next) {
  size_t n = len < p->remaining ? len : p->remaining;
  zbuf_add(&p->req.body, data, n);
  p->remaining -= n;
  if (!p->remaining) p->state = next;
  return n;
}

static size_t feed_chunked(zhttpd_parser *p, const char *data, size_t len) {
  size_t used = 0;
  while (used < len && p->state != ZHTTPD_DONE && p->state != ZHTTPD_FAILED) {
    if (p->state == ZHTTPD_CHUNK_SIZE) {
      if (feed_line(p, data, len, &used)) chunk_size_line(p);
    } else if (p->state == ZHTTPD_CHUNK_DATA) {
      used += take_body(p, data + used, len - used, ZHTTPD_CHUNK_END);
    } else if (p->state == ZHTTPD_CHUNK_END) {
      if (feed_line(p, data, len, &used)) chunk_end_line(p);
    } else {
      used += feed_trailer(p, data + used, len - used);
    }
  }
  return used;
}

size_t zhttpd_feed(zhttpd_parser *p, const char *data, size_t len) {
  size_t used = 0;
  while (used < len && p->state != ZHTTPD_DONE && p->state != ZHTTPD_FAILED) {
    if (p->state == ZHTTPD_HEAD) {
      used += feed_head(p, data + used, len - used);
    } else if (p->state == ZHTTPD_BODY) {
      used += take_body(p, data + used, len - used, ZHTTPD_DONE);
    } else {
      used += feed_chunked(p, data + used, len - used);
    }
  }
  return used;
}

const char *zhttpd_header_get(const zhttpd_req *r, const char *name) {
  for (size_t i = 0; i < r->n_headers; i++)
    if (!strcmp(r->headers[i].name, name)) return r->headers[i].value;
  return NULL;
}

bool zhttpd_list_has(const char *value, const char *token) {
  size_t tl = strlen(token);
  const char *s = value;
  while (s && *s) {
    while (*s == ' ' || *s == '\t' || *s == ',') s++;
    const char *end = s + strcspn(s, ",;");
    const char *e = end;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t')) e--;
    if ((size_t)(e - s) == tl && !strncasecmp(s, token, tl)) return true;
    s = strchr(end, ',');
  }
  return false;
}

const char *zhttpd_reason(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}
