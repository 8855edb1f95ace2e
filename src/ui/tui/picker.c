/* picker.c — see picker.h. */
#include "ui/tui/picker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tui_picker_init(tui_picker *p) {
  memset(p, 0, sizeof *p);
  zbuf_init(&p->filter);
}

void tui_picker_release(tui_picker *p) {
  free(p->cmd);
  free(p->title);
  for (size_t i = 0; i < p->labels.len; i++) free(p->labels.items[i]);
  for (size_t i = 0; i < p->values.len; i++) free(p->values.items[i]);
  zvec_free(&p->labels);
  zvec_free(&p->values);
  zbuf_release(&p->filter);
}

void tui_picker_close(tui_picker *p) {
  p->active = false;
  for (size_t i = 0; i < p->labels.len; i++) free(p->labels.items[i]);
  for (size_t i = 0; i < p->values.len; i++) free(p->values.items[i]);
  p->labels.len = p->values.len = 0;
  zbuf_reset(&p->filter);
}

void tui_picker_open(tui_picker *p, const char *cmd, const char *title, const char *const *labels,
                     const char *const *values, size_t n) {
  tui_picker_close(p);
  free(p->cmd);
  free(p->title);
  p->cmd = xstrdup(cmd);
  p->title = xstrdup(title);
  for (size_t i = 0; i < n; i++) {
    zvec_push(&p->labels, xstrdup(labels[i]));
    zvec_push(&p->values, xstrdup(values[i]));
  }
  p->sel = 0;
  p->active = true;
}

typedef struct pick_score {
  size_t idx;
  int score;
} pick_score;

static int cmp_pick(const void *x, const void *y) {
  const pick_score *p = x, *q = y;
  if (p->score != q->score) return q->score > p->score ? 1 : -1;
  return p->idx < q->idx ? -1 : p->idx > q->idx; /* ties keep the given order */
}

/* Indexes of the items matching the filter, best first (at most max). */
static size_t picker_matches(const tui_picker *p, size_t *out, size_t max) {
  size_t total = p->labels.len, n = 0;
  pick_score *v = xmalloc((total + 1) * sizeof *v);
  for (size_t i = 0; i < total; i++) {
    int sc = p->filter.len
                 ? tui_fuzzy(p->filter.data, p->filter.len, p->labels.items[i])
                 : 0;
    if (sc >= 0) v[n++] = (pick_score){i, sc};
  }
  qsort(v, n, sizeof *v, cmp_pick);
  if (n > max) n = max;
  for (size_t i = 0; i < n; i++) out[i] = v[i].idx;
  free(v);
  return n;
}

#define PICKER_ROWS 10

static bool picker_key_in(tui_picker *p, const tui_key *k, char **text, const size_t *idx,
                          size_t n);

bool tui_picker_key(tui_picker *p, const tui_key *k, char **text) {
  size_t *idx = xmalloc((p->labels.len + 1) * sizeof *idx);
  size_t n = picker_matches(p, idx, p->labels.len);
  bool chosen = picker_key_in(p, k, text, idx, n);
  free(idx);
  return chosen;
}

void tui_picker_lines(const tui_picker *p, const tui_theme *th, int width, tw_lines *out) {
  tw_lines_push(out, xstrdup(""));
  tw_lines_pushf(out, "%s%s%s%s %s(type to search · ↑/↓ · Enter choose · Esc close)%s",
                 th->bold, th->accent, p->title, th->reset, th->muted, th->reset);
  zbuf f = ZBUF_INIT;
  zbuf_addf(&f, "  %sSearch:%s ", th->muted, th->reset);
  tw_sanitize(&f, p->filter.data, p->filter.len);
  tw_lines_push(out, tw_truncate(f.data, width - 1));
  zbuf_release(&f);
  size_t *idx = xmalloc((p->labels.len + 1) * sizeof *idx);
  size_t n = picker_matches(p, idx, p->labels.len);
  if (!n) tw_lines_pushf(out, "  %s(no match)%s", th->muted, th->reset);
  /* a window of PICKER_ROWS rows that follows the selection */
  size_t sel = p->sel >= 0 && (size_t)p->sel < n ? (size_t)p->sel : 0;
  size_t first = sel >= PICKER_ROWS ? sel - PICKER_ROWS + 1 : 0;
  if (first) tw_lines_pushf(out, "  %s↑ %zu more%s", th->muted, first, th->reset);
  for (size_t i = first; i < n && i < first + PICKER_ROWS; i++) {
    zbuf l = ZBUF_INIT;
    bool on = i == sel;
    zbuf_addf(&l, "%s%s ", on ? th->reverse : "", on ? "›" : " ");
    tw_sanitize(&l, p->labels.items[idx[i]], strlen(p->labels.items[idx[i]]));
    if (on) zbuf_addstr(&l, th->reset);
    tw_lines_push(out, tw_truncate(l.data, width - 1));
    zbuf_release(&l);
  }
  if (n > first + PICKER_ROWS)
    tw_lines_pushf(out, "  %s↓ %zu more (type to filter)%s", th->muted, n - first - PICKER_ROWS,
                   th->reset);
  free(idx);
}

static bool picker_key_in(tui_picker *p, const tui_key *k, char **text, const size_t *idx,
                          size_t n) {
  switch (k->type) {
    case TK_ESC: tui_picker_close(p); return false;
    case TK_UP: if (n) p->sel = (p->sel + (int)n - 1) % (int)n; return false;
    case TK_DOWN:
    case TK_TAB: if (n) p->sel = (p->sel + 1) % (int)n; return false;
    case TK_BACKSPACE:
      zbuf_setlen(&p->filter, tw_prev(p->filter.data, p->filter.len, p->filter.len));
      p->sel = 0;
      return false;
    case TK_ENTER: {
      if (!n) return false;
      zbuf cmd = ZBUF_INIT;
      zbuf_addf(&cmd, "%s %s", p->cmd, p->values.items[idx[p->sel < (int)n ? p->sel : 0]]);
      tui_picker_close(p);
      *text = zbuf_detach(&cmd, NULL);
      return true;
    }
    case TK_CHAR:
      if (k->mods & TK_CTRL) {
        if (k->ch == 'c') tui_picker_close(p);
        return false;
      }
      zbuf_addstr(&p->filter, k->utf8);
      p->sel = 0;
      return false;
    default: return false;
  }
}


int tui_fuzzy(const char *pattern, size_t plen, const char *text) {
  int score = 0, run = 0;
  size_t i = 0;
  for (const char *t = text; *t && i < plen; t++) {
    char pc = pattern[i], tc = *t;
    if (pc >= 'A' && pc <= 'Z') pc += 32;
    if (tc >= 'A' && tc <= 'Z') tc += 32;
    if (pc == tc) {
      i++;
      run++;
      score += 1 + run * 2 + (t == text ? 5 : 0);
    } else {
      run = 0;
    }
  }
  if (i < plen) return -1;
  /* shorter texts first among equal matches; a match is never negative */
  size_t len = strlen(text);
  return score * 100 + (len < 99 ? 99 - (int)len : 0);
}
