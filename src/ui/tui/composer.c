/* composer.c — see composer.h. */
#include "ui/tui/composer.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/num.h"

void tui_composer_init(tui_composer *c) {
  memset(c, 0, sizeof *c);
  zbuf_init(&c->text);
  zbuf_init(&c->kill);
}

void tui_composer_release(tui_composer *c) {
  zbuf_release(&c->text);
  zbuf_release(&c->kill);
  for (size_t i = 0; i < c->npastes; i++) free(c->pastes[i]);
  free(c->pastes);
  for (size_t i = 0; i < c->nhist; i++) free(c->hist[i]);
  free(c->hist);
  free(c->draft);
  free(c->hist_path);
  memset(c, 0, sizeof *c);
}

static void stop_browsing(tui_composer *c) {
  c->hist_pos = c->nhist;
  free(c->draft);
  c->draft = NULL;
}

void tui_composer_insert(tui_composer *c, const char *s, size_t n) {
  zbuf tail = ZBUF_INIT;
  zbuf_add(&tail, c->text.data + c->cur, c->text.len - c->cur);
  zbuf_setlen(&c->text, c->cur);
  /* Carriage returns from pastes become newlines. */
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\r') {
      if (i + 1 < n && s[i + 1] == '\n') continue;
      zbuf_addch(&c->text, '\n');
    } else {
      zbuf_addch(&c->text, s[i]);
    }
  }
  c->cur = c->text.len;
  zbuf_add(&c->text, tail.data, tail.len);
  zbuf_release(&tail);
}

void tui_composer_paste(tui_composer *c, const char *s, size_t n) {
  /* Terminals send a pasted line break as CR (most of them) or CRLF: one
   * newline each, before anything is counted or kept. */
  zbuf norm = ZBUF_INIT;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\r') {
      if (i + 1 < n && s[i + 1] == '\n') continue;
      zbuf_addch(&norm, '\n');
    } else {
      zbuf_addch(&norm, s[i]);
    }
  }
  size_t lines = norm.len && norm.data[norm.len - 1] != '\n';
  for (size_t i = 0; i < norm.len; i++) lines += norm.data[i] == '\n';
  if (lines <= TUI_PASTE_LINES && norm.len <= TUI_PASTE_BYTES) {
    tui_composer_insert(c, norm.data, norm.len);
  } else {
    c->pastes = xrealloc(c->pastes, (c->npastes + 1) * sizeof *c->pastes);
    c->pastes[c->npastes++] = xstrndup(norm.data, norm.len);
    char ph[80];
    snprintf(ph, sizeof ph, "[Pasted text #%zu, %zu lines]", c->npastes, lines);
    tui_composer_insert(c, ph, strlen(ph));
  }
  zbuf_release(&norm);
}

void tui_composer_newline(tui_composer *c) { tui_composer_insert(c, "\n", 1); }

/* Start of the grapheme before / after the cursor. */
static size_t prev_g(const tui_composer *c, size_t pos) {
  return tw_prev(c->text.data, c->text.len, pos);
}

static size_t next_g(const tui_composer *c, size_t pos) {
  if (pos >= c->text.len) return c->text.len;
  int w;
  return pos + tw_next(c->text.data + pos, c->text.len - pos, &w);
}

static void cut(tui_composer *c, size_t from, size_t to, bool save) {
  if (to <= from) return;
  if (save) {
    zbuf_reset(&c->kill);
    zbuf_add(&c->kill, c->text.data + from, to - from);
  }
  memmove(c->text.data + from, c->text.data + to, c->text.len - to);
  zbuf_setlen(&c->text, c->text.len - (to - from));
  c->cur = from;
}

void tui_composer_backspace(tui_composer *c) {
  if (c->cur) cut(c, prev_g(c, c->cur), c->cur, false);
}
void tui_composer_delete(tui_composer *c) {
  if (c->cur < c->text.len) cut(c, c->cur, next_g(c, c->cur), false);
}
void tui_composer_left(tui_composer *c) {
  if (c->cur) c->cur = prev_g(c, c->cur);
}
void tui_composer_right(tui_composer *c) { c->cur = next_g(c, c->cur); }

static bool is_word(char ch) {
  return (unsigned char)ch >= 0x80 || (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
         (ch >= 'A' && ch <= 'Z') || ch == '_';
}

static size_t word_start(const tui_composer *c, size_t p) {
  while (p && !is_word(c->text.data[p - 1])) p--;
  while (p && is_word(c->text.data[p - 1])) p--;
  return p;
}

void tui_composer_word_left(tui_composer *c) { c->cur = word_start(c, c->cur); }
void tui_composer_word_right(tui_composer *c) {
  size_t p = c->cur, n = c->text.len;
  while (p < n && !is_word(c->text.data[p])) p++;
  while (p < n && is_word(c->text.data[p])) p++;
  c->cur = p;
}

static size_t line_start(const tui_composer *c, size_t p) {
  while (p && c->text.data[p - 1] != '\n') p--;
  return p;
}
static size_t line_end(const tui_composer *c, size_t p) {
  while (p < c->text.len && c->text.data[p] != '\n') p++;
  return p;
}

void tui_composer_home(tui_composer *c) { c->cur = line_start(c, c->cur); }
void tui_composer_end(tui_composer *c) { c->cur = line_end(c, c->cur); }
void tui_composer_kill_end(tui_composer *c) {
  size_t e = line_end(c, c->cur);
  if (e == c->cur && e < c->text.len) e++; /* at the end of a line: join */
  cut(c, c->cur, e, true);
}
void tui_composer_kill_start(tui_composer *c) { cut(c, line_start(c, c->cur), c->cur, true); }
void tui_composer_kill_word(tui_composer *c) { cut(c, word_start(c, c->cur), c->cur, true); }
void tui_composer_yank(tui_composer *c) { tui_composer_insert(c, c->kill.data, c->kill.len); }

/* Moves to the same column (in columns) of another line. */
static void goto_col(tui_composer *c, size_t ls, size_t col) {
  size_t p = ls, le = line_end(c, ls), w_acc = 0;
  while (p < le) {
    int w;
    size_t n = tw_next(c->text.data + p, le - p, &w);
    if (w_acc + (size_t)w > col) break;
    w_acc += (size_t)w;
    p += n;
  }
  c->cur = p;
}

bool tui_composer_up(tui_composer *c) {
  size_t ls = line_start(c, c->cur);
  if (ls == 0) return false;
  size_t col = tw_width(c->text.data + ls, c->cur - ls);
  goto_col(c, line_start(c, ls - 1), col);
  return true;
}

bool tui_composer_down(tui_composer *c) {
  size_t le = line_end(c, c->cur);
  if (le >= c->text.len) return false;
  size_t ls = line_start(c, c->cur);
  size_t col = tw_width(c->text.data + ls, c->cur - ls);
  goto_col(c, le + 1, col);
  return true;
}

void tui_composer_set(tui_composer *c, const char *s) {
  zbuf_reset(&c->text);
  zbuf_addstr(&c->text, s);
  c->cur = c->text.len;
}

void tui_composer_clear(tui_composer *c) {
  zbuf_reset(&c->text);
  c->cur = 0;
  for (size_t i = 0; i < c->npastes; i++) free(c->pastes[i]);
  free(c->pastes);
  c->pastes = NULL;
  c->npastes = 0;
  stop_browsing(c);
}

void tui_composer_history_prev(tui_composer *c) {
  if (!c->nhist || c->hist_pos == 0) return;
  if (c->hist_pos == c->nhist) {
    free(c->draft);
    c->draft = xstrdup(c->text.data);
  }
  c->hist_pos--;
  tui_composer_set(c, c->hist[c->hist_pos]);
}

void tui_composer_history_next(tui_composer *c) {
  if (c->hist_pos >= c->nhist) return;
  c->hist_pos++;
  if (c->hist_pos == c->nhist) {
    tui_composer_set(c, c->draft ? c->draft : "");
    free(c->draft);
    c->draft = NULL;
  } else {
    tui_composer_set(c, c->hist[c->hist_pos]);
  }
}

static void hist_add(tui_composer *c, const char *s, bool save) {
  if (!*s) return;
  if (c->nhist && !strcmp(c->hist[c->nhist - 1], s)) return;
  if (c->nhist == TUI_HISTORY_MAX) {
    free(c->hist[0]);
    memmove(c->hist, c->hist + 1, (c->nhist - 1) * sizeof *c->hist);
    c->nhist--;
  }
  c->hist = xrealloc(c->hist, (c->nhist + 1) * sizeof *c->hist);
  c->hist[c->nhist++] = xstrdup(s);
  if (save && c->hist_path) {
    json_t *j = json_string(s);
    char *line = j ? zjson_dumps(j) : NULL;
    json_decref(j);
    if (line) {
      int fd = open(c->hist_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
      if (fd >= 0) {
        zbuf l = ZBUF_INIT;
        zbuf_addf(&l, "%s\n", line);
        ssize_t w = write(fd, l.data, l.len); /* best effort: history is a convenience */
        (void)w;
        zbuf_release(&l);
        close(fd);
      }
      free(line);
    }
  }
}

/* The paste number N of a "[Pasted text #N, L lines]" placeholder at s
 * (*len: its length), or 0 when s starts no placeholder. */
static long placeholder_at(const char *s, size_t *len) {
  if (strncmp(s, "[Pasted text #", 14) != 0) return 0;
  const char *p = s + 14;
  long n, lines;
  if (!znum_long(&p, 1, LONG_MAX, &n) || *p++ != ',' || !znum_long(&p, 0, LONG_MAX, &lines) ||
      strncmp(p, " lines]", 7) != 0)
    return 0;
  *len = (size_t)(p + 7 - s);
  return n;
}

char *tui_composer_take(tui_composer *c) {
  zbuf out = ZBUF_INIT;
  const char *s = c->text.data;
  while (*s) {
    size_t used = 0;
    long n = placeholder_at(s, &used);
    if (n >= 1 && (size_t)n <= c->npastes) {
      zbuf_addstr(&out, c->pastes[n - 1]);
      s += used;
      continue;
    }
    zbuf_addch(&out, *s++);
  }
  hist_add(c, out.data, true);
  tui_composer_clear(c);
  return zbuf_detach(&out, NULL);
}

void tui_composer_history_open(tui_composer *c, const char *path) {
  free(c->hist_path);
  c->hist_path = xstrdup(path);
  zbuf raw = ZBUF_INIT;
  if (zfs_read_file(path, &raw, 8u << 20, NULL) == 0) {
    char *p = raw.data, *end = raw.data + raw.len;
    while (p < end) {
      char *nl = memchr(p, '\n', (size_t)(end - p));
      size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
      json_t *j = json_loadb(p, n, JSON_DECODE_ANY, NULL);
      if (json_is_string(j)) hist_add(c, json_string_value(j), false);
      json_decref(j);
      p += n + 1;
    }
  }
  zbuf_release(&raw);
  c->hist_pos = c->nhist;
}

void tui_composer_layout(const tui_composer *c, int width, const char *prompt, int prompt_w,
                         const char *style, const char *reset, tw_lines *rows, int *crow,
                         int *ccol) {
  int avail = width - prompt_w - 1;
  if (avail < 4) avail = 4;
  zbuf row = ZBUF_INIT;
  int col = 0, nrow = 0;
  *crow = 0;
  *ccol = prompt_w;
  const char *s = c->text.data;
  size_t n = c->text.len, i = 0;
  zbuf_addstr(&row, prompt);
  zbuf_addstr(&row, style);
  for (;;) {
    if (i == c->cur) {
      *crow = nrow;
      *ccol = prompt_w + col;
    }
    if (i >= n) break;
    int w = 0;
    size_t m = s[i] == '\n' ? 1 : tw_next(s + i, n - i, &w);
    if (s[i] == '\n' || (col > 0 && col + w > avail)) {
      zbuf_addstr(&row, reset);
      tw_lines_push(rows, zbuf_detach(&row, NULL));
      nrow++;
      for (int k = 0; k < prompt_w; k++) zbuf_addch(&row, ' ');
      zbuf_addstr(&row, style);
      col = 0;
      if (s[i] == '\n') i++;
      continue;
    }
    tw_sanitize(&row, s + i, m);
    col += w;
    i += m;
  }
  zbuf_addstr(&row, reset);
  tw_lines_push(rows, zbuf_detach(&row, NULL));
}
