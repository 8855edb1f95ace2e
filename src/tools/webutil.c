/* webutil.c — address policy and HTML → markdown for web_fetch.
 *
 * The converter is hand-written (no packaged C library turns HTML into
 * markdown): a forgiving tag scanner, not a DOM parser. It aims at readable
 * text for a model, not at round-tripping.
 */
#include "tools/webutil.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/json.h"

/* ---- addresses ---------------------------------------------------------------- */

static const char *v4_refusal(uint32_t a, bool allow_loopback) {
  struct { uint32_t net, mask; const char *what; } r[] = {
      {0x00000000, 0xFF000000, "the unspecified network (0.0.0.0/8)"},
      {0x0A000000, 0xFF000000, "private (10.0.0.0/8)"},
      {0x64400000, 0xFFC00000, "shared address space (100.64.0.0/10)"},
      {0x7F000000, 0xFF000000, "loopback (127.0.0.0/8)"},
      {0xA9FE0000, 0xFFFF0000, "link-local / cloud metadata (169.254.0.0/16)"},
      {0xAC100000, 0xFFF00000, "private (172.16.0.0/12)"},
      {0xC0000000, 0xFFFFFF00, "IETF protocol assignments (192.0.0.0/24)"},
      {0xC0000200, 0xFFFFFF00, "documentation (192.0.2.0/24)"},
      {0xC0A80000, 0xFFFF0000, "private (192.168.0.0/16)"},
      {0xC6120000, 0xFFFE0000, "benchmarking (198.18.0.0/15)"},
      {0xC6336400, 0xFFFFFF00, "documentation (198.51.100.0/24)"},
      {0xCB007100, 0xFFFFFF00, "documentation (203.0.113.0/24)"},
      {0xE0000000, 0xF0000000, "multicast (224.0.0.0/4)"},
      {0xF0000000, 0xF0000000, "reserved (240.0.0.0/4)"},
  };
  for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
    if ((a & r[i].mask) == r[i].net) {
      if (allow_loopback && r[i].net == 0x7F000000) return NULL;
      return r[i].what;
    }
  return NULL;
}

const char *zweb_address_refusal(const struct sockaddr *addr, bool allow_loopback) {
  if (addr->sa_family == AF_INET) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
    return v4_refusal(ntohl(in->sin_addr.s_addr), allow_loopback);
  }
  if (addr->sa_family != AF_INET6) return "not an internet address";
  const uint8_t *b = ((const struct sockaddr_in6 *)addr)->sin6_addr.s6_addr;
  static const uint8_t zero[16];
  static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
  static const uint8_t nat64[12] = {0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0};
  if (!memcmp(b, zero, 15) && b[15] == 1) return "loopback (::1)";
  if (!memcmp(b, zero, 16)) return "the unspecified address (::)";
  if (!memcmp(b, mapped, 12) || !memcmp(b, nat64, 12) || !memcmp(b, zero, 12)) {
    uint32_t v4 = (uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 | b[15];
    return v4_refusal(v4, allow_loopback);
  }
  if ((b[0] & 0xFE) == 0xFC) return "unique local (fc00::/7)";
  if (b[0] == 0xFE && (b[1] & 0xC0) == 0x80) return "link-local (fe80::/10)";
  if (b[0] == 0xFE && (b[1] & 0xC0) == 0xC0) return "site-local (fec0::/10)";
  if (b[0] == 0xFF) return "multicast (ff00::/8)";
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8) return "documentation (2001:db8::/32)";
  return NULL;
}

/* ---- HTML → markdown ---------------------------------------------------------------- */

typedef struct md {
  zbuf *out;
  int pre;          /* inside <pre> */
  int skip;         /* inside script/style/head/… */
  int list_depth;
  bool space;       /* a space is pending */
  zbuf href;        /* the open link's target */
  size_t link_start;
  bool in_link;
  bool saw_h1;
  zbuf title;
  bool in_title;
} md;

static bool at_line_start(const md *m) {
  return m->out->len == 0 || m->out->data[m->out->len - 1] == '\n';
}

/* Ends the current line and leaves `blank` empty lines (0 or 1). */
static void newline(md *m, int blank) {
  m->space = false;
  if (m->out->len == 0) return;
  while (m->out->len && m->out->data[m->out->len - 1] == ' ') zbuf_setlen(m->out, m->out->len - 1);
  int have = 0;
  for (size_t i = m->out->len; i > 0 && m->out->data[i - 1] == '\n' && have < 2; i--) have++;
  while (have < 1 + blank) {
    zbuf_addch(m->out, '\n');
    have++;
  }
}

static void emit_text(md *m, const char *s, size_t n) {
  if (m->skip) return;
  zbuf *o = m->in_title ? &m->title : m->out;
  if (m->pre) {
    zbuf_add(o, s, n);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    if (isspace((unsigned char)s[i])) {
      m->space = true;
      continue;
    }
    if (m->space && o->len && !isspace((unsigned char)o->data[o->len - 1]) && !(o == m->out && at_line_start(m)))
      zbuf_addch(o, ' ');
    m->space = false;
    zbuf_addch(o, s[i]);
  }
}

/* An entity's code point as UTF-8; what no character may be becomes U+FFFD. */
static void put_utf8(zbuf *b, unsigned cp) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  zutf8_put(b, cp);
}

/* Decodes entities in s[0..n) into out. */
static void decode(const char *s, size_t n, zbuf *out) {
  static const struct { const char *name; unsigned cp; } ents[] = {
      {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}, {"nbsp", ' '},
      {"mdash", 0x2014}, {"ndash", 0x2013}, {"hellip", 0x2026}, {"copy", 0xA9},
      {"rsquo", 0x2019}, {"lsquo", 0x2018}, {"rdquo", 0x201D}, {"ldquo", 0x201C},
  };
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '&') { zbuf_addch(out, s[i]); continue; }
    const char *semi = memchr(s + i, ';', n - i < 12 ? n - i : 12);
    if (!semi) { zbuf_addch(out, '&'); continue; }
    size_t len = (size_t)(semi - (s + i)) - 1;
    const char *name = s + i + 1;
    bool done = false;
    if (len > 1 && name[0] == '#') {
      unsigned long cp = name[1] == 'x' || name[1] == 'X' ? strtoul(name + 2, NULL, 16)
                                                          : strtoul(name + 1, NULL, 10);
      put_utf8(out, (unsigned)(cp > 0x10FFFF ? 0xFFFD : cp));
      done = true;
    } else {
      for (size_t k = 0; k < sizeof ents / sizeof ents[0]; k++)
        if (strlen(ents[k].name) == len && !memcmp(ents[k].name, name, len)) {
          put_utf8(out, ents[k].cp);
          done = true;
          break;
        }
    }
    if (done) i = (size_t)(semi - s);
    else zbuf_addch(out, '&');
  }
}

/* The value of attribute `name` inside a tag's text, decoded; "" if absent. */
static void attr(const char *tag, size_t n, const char *name, zbuf *out) {
  size_t nl = strlen(name);
  for (size_t i = 0; i + nl < n; i++) {
    if (strncasecmp(tag + i, name, nl) || (i && !isspace((unsigned char)tag[i - 1]))) continue;
    size_t j = i + nl;
    while (j < n && isspace((unsigned char)tag[j])) j++;
    if (j >= n || tag[j] != '=') continue;
    j++;
    while (j < n && isspace((unsigned char)tag[j])) j++;
    char q = j < n && (tag[j] == '"' || tag[j] == '\'') ? tag[j++] : 0;
    size_t k = j;
    while (k < n && (q ? tag[k] != q : !isspace((unsigned char)tag[k]) && tag[k] != '>')) k++;
    decode(tag + j, k - j, out);
    return;
  }
}

static bool name_is(const char *nm, size_t n, const char *lit) {
  return strlen(lit) == n && !strncasecmp(nm, lit, n);
}

static void on_tag(md *m, const char *tag, size_t n) {
  bool closing = n && tag[0] == '/';
  const char *nm = tag + closing;
  size_t nn = 0;
  while (nm + nn < tag + n && (isalnum((unsigned char)nm[nn]))) nn++;
#define IS(lit) name_is(nm, nn, lit)
  if (IS("script") || IS("style") || IS("noscript") || IS("template") || IS("svg") ||
      IS("iframe") || IS("nav") || IS("footer")) {
    m->skip += closing ? (m->skip > 0 ? -1 : 0) : 1;
    return;
  }
  if (IS("title")) {
    m->in_title = !closing;
    return;
  }
  if (m->skip) return;
  if (nn == 2 && (nm[0] == 'h' || nm[0] == 'H') && nm[1] >= '1' && nm[1] <= '6') {
    newline(m, 1);
    if (!closing) {
      for (int i = 0; i < nm[1] - '0'; i++) zbuf_addch(m->out, '#');
      zbuf_addch(m->out, ' ');
      if (nm[1] == '1') m->saw_h1 = true;
    }
    return;
  }
  if (IS("p") || IS("div") || IS("section") || IS("article") || IS("main") || IS("header") ||
      IS("blockquote") || IS("table") || IS("ul") || IS("ol") || IS("dl")) {
    if (IS("ul") || IS("ol")) m->list_depth += closing ? (m->list_depth > 0 ? -1 : 0) : 1;
    newline(m, 1);
    return;
  }
  if (IS("br") || IS("tr") || IS("dt") || IS("dd")) {
    newline(m, 0);
    return;
  }
  if (IS("td") || IS("th")) {
    if (!closing && !at_line_start(m)) zbuf_addstr(m->out, " | ");
    return;
  }
  if (IS("li")) {
    newline(m, 0);
    if (!closing) {
      for (int i = 1; i < m->list_depth; i++) zbuf_addstr(m->out, "  ");
      zbuf_addstr(m->out, "- ");
    }
    return;
  }
  if (IS("hr")) {
    newline(m, 1);
    zbuf_addstr(m->out, "---");
    newline(m, 1);
    return;
  }
  if (IS("pre")) {
    newline(m, closing ? 0 : 1);
    zbuf_addstr(m->out, "```");
    newline(m, closing ? 1 : 0);
    m->pre += closing ? (m->pre > 0 ? -1 : 0) : 1;
    return;
  }
  if (IS("code") && !m->pre) {
    if (!closing && m->space && !at_line_start(m)) zbuf_addch(m->out, ' ');
    m->space = false;
    zbuf_addch(m->out, '`');
    return;
  }
  if (IS("strong") || IS("b")) {
    if (!closing && m->space && !at_line_start(m)) zbuf_addch(m->out, ' ');
    m->space = false;
    zbuf_addstr(m->out, "**");
    return;
  }
  if (IS("em") || IS("i")) {
    if (!closing && m->space && !at_line_start(m)) zbuf_addch(m->out, ' ');
    m->space = false;
    zbuf_addch(m->out, '*');
    return;
  }
  if (IS("a")) {
    if (!closing) {
      zbuf_reset(&m->href);
      attr(tag, n, "href", &m->href);
      if (m->space && !at_line_start(m)) zbuf_addch(m->out, ' ');
      m->space = false;
      zbuf_addch(m->out, '[');
      m->in_link = true;
    } else if (m->in_link) {
      m->in_link = false;
      if (m->href.len && strncmp(m->href.data, "javascript:", 11) != 0)
        zbuf_addf(m->out, "](%s)", m->href.data);
      else
        zbuf_addch(m->out, ']');
    }
    return;
  }
  if (IS("img") && !closing) {
    zbuf alt = ZBUF_INIT;
    attr(tag, n, "alt", &alt);
    if (alt.len) {
      if (m->space && !at_line_start(m)) zbuf_addch(m->out, ' ');
      m->space = false;
      zbuf_addf(m->out, "[image: %s]", alt.data);
    }
    zbuf_release(&alt);
  }
#undef IS
}

void zweb_html_to_markdown(const char *html, size_t len, zbuf *out) {
  zbuf body = ZBUF_INIT;
  md m = {.out = &body, .href = ZBUF_INIT, .title = ZBUF_INIT};
  size_t i = 0;
  while (i < len) {
    if (html[i] == '<') {
      if (i + 3 < len && !memcmp(html + i, "<!--", 4)) {
        const char *end = memmem(html + i + 4, len - i - 4, "-->", 3);
        i = end ? (size_t)(end - html) + 3 : len;
        continue;
      }
      const char *gt = memchr(html + i, '>', len - i);
      if (!gt) break;
      size_t tn = (size_t)(gt - html) - i - 1;
      const char *tag = html + i + 1;
      if (tn && (isalpha((unsigned char)tag[0]) || tag[0] == '/')) {
        on_tag(&m, tag, tn);
      } else if (tn && tag[0] != '!' && tag[0] != '?') {
        emit_text(&m, html + i, 1); /* a lone '<' */
        i++;
        continue;
      }
      i = (size_t)(gt - html) + 1;
      continue;
    }
    const char *lt = memchr(html + i, '<', len - i);
    size_t n = lt ? (size_t)(lt - html) - i : len - i;
    zbuf dec = ZBUF_INIT;
    decode(html + i, n, &dec);
    emit_text(&m, dec.data, dec.len);
    zbuf_release(&dec);
    i += n;
  }
  if (m.title.len && !m.saw_h1) zbuf_addf(out, "# %s\n\n", m.title.data);
  /* Trim leading blank lines and runs of more than one blank line. */
  const char *s = body.data;
  size_t k = 0;
  while (k < body.len && (s[k] == '\n' || s[k] == ' ')) k++;
  int nl = 0;
  for (; k < body.len; k++) {
    if (s[k] == '\n') {
      if (++nl > 2) continue;
    } else {
      nl = 0;
    }
    zbuf_addch(out, s[k]);
  }
  while (out->len && isspace((unsigned char)out->data[out->len - 1])) zbuf_setlen(out, out->len - 1);
  zbuf_release(&body);
  zbuf_release(&m.href);
  zbuf_release(&m.title);
}
