/* think.c — inline think-tag parsing; see think.h. */
#include "provider/think.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static const char OPEN[] = "<think>";
static const char CLOSE[] = "</think>";

void zthink_init(zthink_filter *f, zprov_event_fn fn, void *ud) {
  memset(f, 0, sizeof *f);
  f->fn = fn;
  f->ud = ud;
  zbuf_init(&f->held);
}

void zthink_release(zthink_filter *f) { zbuf_release(&f->held); }

static int out(zthink_filter *f, bool reasoning, const char *s, size_t n) {
  if (!n) return 0;
  zprov_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = reasoning ? ZPEV_REASONING : ZPEV_TEXT;
  ev.text = s;
  ev.len = n;
  return f->fn ? f->fn(f->ud, &ev) : 0;
}

/* Tags match case-insensitively (<THINK>, <Think>: some chat templates and
 * fine-tunes write them so), as Go zero matches them. */

/* Length of the longest suffix of s[0..n) that is a proper prefix of tag. */
static size_t partial_tag(const char *s, size_t n, const char *tag) {
  size_t tl = strlen(tag);
  size_t max = n < tl - 1 ? n : tl - 1;
  for (size_t k = max; k > 0; k--)
    if (strncasecmp(s + n - k, tag, k) == 0) return k;
  return 0;
}

/* The first occurrence of tag (ASCII, tl bytes) in s[0..n), any case. */
static const char *find_tag(const char *s, size_t n, const char *tag, size_t tl) {
  for (size_t i = 0; i + tl <= n; i++) {
    const char *lt = memchr(s + i, '<', n - i - tl + 1);
    if (!lt) return NULL;
    if (strncasecmp(lt, tag, tl) == 0) return lt;
    i = (size_t)(lt - s);
  }
  return NULL;
}

/* Scans s (held bytes + the new chunk, contiguous). */
static int scan(zthink_filter *f, const char *s, size_t n) {
  while (n) {
    if (f->after_close) {
      while (n && (*s == '\n' || *s == '\r')) s++, n--;
      if (!n) return 0;
      f->after_close = false;
    }
    const char *tag = f->in_think ? CLOSE : OPEN;
    size_t tl = strlen(tag);
    const char *hit = find_tag(s, n, tag, tl);
    if (hit) {
      if (out(f, f->in_think, s, (size_t)(hit - s))) return 1;
      n -= (size_t)(hit - s) + tl;
      s = hit + tl;
      f->after_close = f->in_think;
      f->in_think = !f->in_think;
      continue;
    }
    size_t keep = partial_tag(s, n, tag);
    if (out(f, f->in_think, s, n - keep)) return 1;
    zbuf_add(&f->held, s + n - keep, keep);
    return 0;
  }
  return 0;
}

int zthink_flush(zthink_filter *f) {
  if (!f->held.len) return 0;
  zbuf h = f->held;
  zbuf_init(&f->held);
  int rc = out(f, f->in_think, h.data, h.len);
  zbuf_release(&h);
  return rc;
}

int zthink_on_event(void *filter, const zprov_event *ev) {
  zthink_filter *f = filter;
  if (ev->kind == ZPEV_TEXT) {
    if (!f->held.len) return scan(f, ev->text, ev->len);
    zbuf joined = f->held;
    zbuf_init(&f->held);
    zbuf_add(&joined, ev->text, ev->len);
    int rc = scan(f, joined.data, joined.len);
    zbuf_release(&joined);
    return rc;
  }
  if (ev->kind != ZPEV_REASONING && ev->kind != ZPEV_RETRY && zthink_flush(f)) return 1;
  return f->fn ? f->fn(f->ud, ev) : 0;
}

bool zthink_model_default(const char *model) {
  if (!model) return false;
  /* Matched anywhere in the lowercased name (org/model:tag, any case). */
  static const char *const families[] = {"deepseek-r1",
                                         "deepseek-reasoner",
                                         "r1-distill",
                                         "qwq",
                                         "qwen3",
                                         "gpt-oss",
                                         "magistral",
                                         "phi4-reasoning",
                                         "phi-4-reasoning",
                                         "exaone-deep",
                                         "cogito",
                                         "glm-4.5",
                                         "glm-4.6",
                                         "glm-z1",
                                         "minimax-m1",
                                         "minimax-m2",
                                         "kimi-k2-thinking",
                                         "nemotron",
                                         "hunyuan",
                                         "skywork-or1",
                                         "openthinker",
                                         "olmo-3-think",
                                         "seed-oss",
                                         NULL};
  /* Lowercased copy of the model's last path element (org/model:tag). */
  char low[256];
  size_t n = 0;
  for (const char *p = model; *p && n + 1 < sizeof low; p++)
    low[n++] = (char)tolower((unsigned char)*p);
  low[n] = '\0';
  for (size_t i = 0; families[i]; i++)
    if (strstr(low, families[i])) return true;
  return false;
}
