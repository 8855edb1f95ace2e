/* h1check.c — checking an inspected HTTP/1.1 request stream; see
 * h1check.h. Hand-written: the proxy needs request framing and four header
 * fields, not an HTTP library (libcurl has no server-side parser). */
#include "net/egress/h1check.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum { H1_HEAD, H1_BODY, H1_CHUNK_SIZE, H1_CHUNK_DATA, H1_CHUNK_END, H1_TRAILER };

#define CHUNK_LINE_MAX 1024

void zeg_h1_init(zeg_h1 *h, const char *host, int port) {
  memset(h, 0, sizeof *h);
  snprintf(h->host, sizeof h->host, "%s", host);
  h->port = port;
  zbuf_init(&h->line);
}

void zeg_h1_release(zeg_h1 *h) { zbuf_release(&h->line); }

/* What one request head says about the stream. */
typedef struct head_info {
  unsigned hosts, lengths, encodings;
  bool chunked, upgrade;
  uint64_t length;
} head_info;

static bool is_tchar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* true when the authority (len bytes) names the tunnel's host, and its port
 * when it gives one. */
static bool names_target(const zeg_h1 *h, const char *a, size_t len) {
  char host[ZEG_HOST_MAX];
  int port;
  if (!zeg_split_authority(a, len, false, 0, host, sizeof host, &port)) return false;
  return !strcmp(host, h->host) && (port == 0 || port == h->port);
}

static int fail(char *why, size_t cap, const char *msg) {
  snprintf(why, cap, "%s", msg);
  return -1;
}

/* The request line: METHOD SP target SP HTTP/1.x, the target in origin
 * form, "*", or an absolute URL of the tunnel's own host. */
static int check_request_line(const zeg_h1 *h, const char *l, size_t len, char *why, size_t cap) {
  const char *sp1 = memchr(l, ' ', len);
  const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', len - (size_t)(sp1 + 1 - l)) : NULL;
  if (!sp1 || sp1 == l || !sp2) return fail(why, cap, "malformed request line");
  for (const char *c = l; c < sp1; c++)
    if (!is_tchar(*c)) return fail(why, cap, "malformed request method");
  size_t vlen = len - (size_t)(sp2 + 1 - l);
  if (vlen != 8 || (memcmp(sp2 + 1, "HTTP/1.1", 8) && memcmp(sp2 + 1, "HTTP/1.0", 8)))
    return fail(why, cap, "only HTTP/1.1 passes an inspected connection");
  if (sp1 - l == 7 && !memcmp(l, "CONNECT", 7))
    return fail(why, cap, "a CONNECT inside an inspected connection is refused");
  const char *t = sp1 + 1;
  size_t tlen = (size_t)(sp2 - t);
  if (t[0] == '/' || (tlen == 1 && t[0] == '*')) return 0;
  size_t scheme = tlen > 8 && !strncasecmp(t, "https://", 8)  ? 8
                  : tlen > 7 && !strncasecmp(t, "http://", 7) ? 7
                                                              : 0;
  if (!scheme) return fail(why, cap, "the request target must be a path");
  const char *a = t + scheme;
  size_t alen = strcspn(a, "/?# ");
  if (names_target(h, a, alen)) return 0;
  snprintf(why, cap, "the request's target names another host than %s (domain fronting)", h->host);
  return -1;
}

/* A Host header's value (vlen bytes): it must name the tunnel's host. */
static int check_host(const zeg_h1 *h, const char *v, size_t vlen, char *why, size_t cap) {
  if (names_target(h, v, vlen)) return 0;
  char named[ZEG_HOST_MAX + 8];
  snprintf(named, sizeof named, "%.*s", (int)(vlen < 200 ? vlen : 200), v);
  snprintf(why, cap,
           "the Host header names %s, not %s, the host of the tunnel (domain fronting is "
           "refused)",
           named, h->host);
  return -1;
}

/* A Content-Length value: 1 to 18 digits, into *out. */
static int parse_length(const char *v, size_t vlen, uint64_t *out, char *why, size_t cap) {
  *out = 0;
  if (vlen == 0 || vlen > 18) return fail(why, cap, "malformed Content-Length");
  for (size_t i = 0; i < vlen; i++) {
    if (v[i] < '0' || v[i] > '9') return fail(why, cap, "malformed Content-Length");
    *out = *out * 10 + (uint64_t)(v[i] - '0');
  }
  return 0;
}

/* The header field line (len bytes, no CRLF) into hi. */
static int check_field(const zeg_h1 *h, const char *l, size_t len, head_info *hi, char *why,
                       size_t cap) {
  if (len && (l[0] == ' ' || l[0] == '\t')) return fail(why, cap, "a folded header line");
  const char *colon = memchr(l, ':', len);
  if (!colon || colon == l) return fail(why, cap, "malformed header line");
  for (const char *c = l; c < colon; c++)
    if (!is_tchar(*c)) return fail(why, cap, "malformed header name");
  size_t nlen = (size_t)(colon - l);
  const char *v = colon + 1;
  size_t vlen = len - nlen - 1;
  while (vlen && (*v == ' ' || *v == '\t')) v++, vlen--;
  while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t')) vlen--;
#define IS(name) (nlen == sizeof(name) - 1 && !strncasecmp(l, name, nlen))
  int rc = 0;
  if (IS("Host")) {
    hi->hosts++;
    rc = check_host(h, v, vlen, why, cap);
  } else if (IS("Content-Length")) {
    hi->lengths++;
    rc = parse_length(v, vlen, &hi->length, why, cap);
  } else if (IS("Transfer-Encoding")) {
    hi->encodings++;
    hi->chunked = vlen == 7 && !strncasecmp(v, "chunked", 7);
    if (!hi->chunked)
      rc = fail(why, cap, "only Transfer-Encoding: chunked passes an inspected connection");
  } else if (IS("Upgrade")) {
    hi->upgrade = true;
  }
#undef IS
  return rc;
}

/* A complete head (ending in CRLF CRLF): every line checked. On success
 * *hi says how the body is framed. */
static int check_head(const zeg_h1 *h, const char *head, size_t len, head_info *hi, char *why,
                      size_t cap) {
  memset(hi, 0, sizeof *hi);
  for (size_t i = 0; i < len; i++) {
    bool bare_cr = head[i] == '\r' && (i + 1 == len || head[i + 1] != '\n');
    bool bare_lf = head[i] == '\n' && (i == 0 || head[i - 1] != '\r');
    if (bare_cr || bare_lf || head[i] == '\0')
      return fail(why, cap, "a bare CR, LF or NUL in the request head");
  }
  const char *end = head + len - 2; /* the final empty line */
  const char *l = head;
  const char *e = strstr(l, "\r\n");
  if (check_request_line(h, l, (size_t)(e - l), why, cap) < 0) return -1;
  for (l = e + 2; l < end; l = e + 2) {
    e = strstr(l, "\r\n");
    if (check_field(h, l, (size_t)(e - l), hi, why, cap) < 0) return -1;
  }
  if (hi->hosts != 1) return fail(why, cap, "a request must carry exactly one Host header");
  if (hi->lengths > 1 || hi->encodings > 1 || (hi->lengths && hi->encodings))
    return fail(why, cap, "ambiguous request framing (Content-Length / Transfer-Encoding)");
  if (hi->upgrade)
    return fail(why, cap,
                "protocol upgrades (WebSocket, h2c) are not supported under "
                "sandbox.inspectTLS");
  return 0;
}

/* Takes bytes up to and including the next LF into h->line; true once the
 * line is complete. */
static size_t take_line(zeg_h1 *h, const char *data, size_t n, bool *complete) {
  const char *lf = memchr(data, '\n', n);
  size_t k = lf ? (size_t)(lf - data) + 1 : n;
  zbuf_add(&h->line, data, k);
  *complete = lf != NULL;
  return k;
}

static bool line_ends_crlf(const zbuf *l) {
  return l->len >= 2 && l->data[l->len - 2] == '\r' && l->data[l->len - 1] == '\n';
}

/* H1_HEAD, a line more of the head in h->line: 1 when the head is complete
 * and checked (the state then follows its framing), 0 when more lines are
 * to come, -1 refused. */
static int head_line(zeg_h1 *h, char *why, size_t cap) {
  if (!(h->line.len >= 4 && !memcmp(h->line.data + h->line.len - 4, "\r\n\r\n", 4))) return 0;
  head_info hi;
  if (check_head(h, h->line.data, h->line.len, &hi, why, cap) < 0) return -1;
  h->requests++;
  if (hi.chunked) h->state = H1_CHUNK_SIZE;
  else if (hi.length) h->state = H1_BODY, h->left = hi.length;
  return 1;
}

/* H1_CHUNK_SIZE, "hex[;ext]\r\n" in h->line: 1, or -1 refused. */
static int chunk_size_line(zeg_h1 *h, char *why, size_t cap) {
  uint64_t size = 0;
  size_t i = 0, digits = 0;
  for (; i < h->line.len; i++, digits++) {
    char c = h->line.data[i];
    int v = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (v < 0) break;
    if (digits >= 15) return fail(why, cap, "chunk too large");
    size = size * 16 + (uint64_t)v;
  }
  char next = i < h->line.len ? h->line.data[i] : 0;
  if (!digits || (next != ';' && next != '\r') || !line_ends_crlf(&h->line) ||
      memchr(h->line.data, '\r', h->line.len) != h->line.data + h->line.len - 2)
    return fail(why, cap, "malformed chunk size");
  h->state = size ? H1_CHUNK_DATA : H1_TRAILER;
  h->left = size;
  return 1;
}

/* H1_CHUNK_END (the CRLF after a chunk's data) or H1_TRAILER (field lines
 * up to an empty one) in h->line: 1, or -1 refused. */
static int chunk_end_line(zeg_h1 *h, char *why, size_t cap) {
  bool empty = h->line.len == 2 && line_ends_crlf(&h->line);
  if (h->state == H1_CHUNK_END && !empty) return fail(why, cap, "malformed chunked body");
  if (!line_ends_crlf(&h->line)) return fail(why, cap, "malformed chunked trailer");
  if (h->state == H1_CHUNK_END) h->state = H1_CHUNK_SIZE;
  else if (empty) h->state = H1_HEAD;
  return 1;
}

/* The line-based states: takes bytes up to the next LF into h->line, and
 * once a line is complete judges it; what is judged good passes to out. */
static int step_line(zeg_h1 *h, const char *d, size_t n, size_t *used, zbuf *out, char *why,
                     size_t cap) {
  bool complete;
  *used = take_line(h, d, n, &complete);
  bool head = h->state == H1_HEAD;
  if (h->line.len > (head ? ZEG_H1_HEAD_MAX : CHUNK_LINE_MAX))
    return fail(why, cap, head ? "the request head is too large" : "malformed chunked body");
  if (!complete) return 0;
  int rc = head                        ? head_line(h, why, cap)
           : h->state == H1_CHUNK_SIZE ? chunk_size_line(h, why, cap)
                                       : chunk_end_line(h, why, cap);
  if (rc <= 0) return rc;
  zbuf_add(out, h->line.data, h->line.len);
  zbuf_reset(&h->line);
  return 0;
}

int zeg_h1_feed(zeg_h1 *h, const char *data, size_t n, zbuf *out, char *why, size_t cap) {
  while (n) {
    size_t used = 0;
    int rc = 0;
    if (h->state == H1_BODY || h->state == H1_CHUNK_DATA) {
      used = n < h->left ? n : (size_t)h->left;
      zbuf_add(out, data, used);
      h->left -= used;
      if (!h->left) h->state = h->state == H1_BODY ? H1_HEAD : H1_CHUNK_END;
    } else {
      rc = step_line(h, data, n, &used, out, why, cap);
    }
    if (rc < 0) return -1;
    data += used;
    n -= used;
  }
  return 0;
}

void zeg_h1_refusal(int status, const char *body, zbuf *out) {
  const char *phrase = status == 403 ? "Forbidden" : status == 502 ? "Bad Gateway" : "Bad Request";
  zbuf_addf(out,
            "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
            "Content-Length: %zu\r\nConnection: close\r\nX-Zero-Egress: refused\r\n\r\n%s",
            status, phrase, strlen(body), body);
}
