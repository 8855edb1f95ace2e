/* diff.c — see diff.h. */
#include "ui/tui/diff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "ui/tui/diff_words.h"

typedef struct line {
  const char *s;
  size_t n;
} line;

static size_t split(const char *t, line **out) {
  size_t cap = 16, n = 0;
  line *v = xmalloc(cap * sizeof *v);
  const char *p = t;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (n == cap) v = xrealloc(v, (cap *= 2) * sizeof *v);
    v[n++] = (line){p, len};
    if (!nl) break;
    p = nl + 1;
  }
  *out = v;
  return n;
}

static bool eq(line a, line b) { return a.n == b.n && !memcmp(a.s, b.s, a.n); }

/* op: ' ' same, '-' removed, '+' added; with old / new line numbers. */
typedef struct op {
  char kind;
  line l;
  long oldno, newno;
} op;

void tui_diff_render(const char *old_text, const char *new_text, long first_line, int width,
                     const tui_theme *th, size_t max_rows, tw_lines *out, size_t *added,
                     size_t *removed) {
  tui_diff_render_at(old_text, new_text, first_line, first_line, width, th, max_rows, out, added,
                     removed);
}

/* The LCS lengths of every pair of suffixes of a and b, (na+1) x (nb+1)
 * (caller frees); 2000 lines each at most, so they fit 16 bits. */
static uint16_t *lcs_table(const line *a, size_t na, const line *b, size_t nb) {
  uint16_t *t = xcalloc((na + 1) * (nb + 1), sizeof *t);
  for (size_t i = na; i-- > 0;)
    for (size_t j = nb; j-- > 0;) {
      uint16_t down = t[(i + 1) * (nb + 1) + j], right = t[i * (nb + 1) + j + 1];
      t[i * (nb + 1) + j] = eq(a[i], b[j]) ? (uint16_t)(t[(i + 1) * (nb + 1) + j + 1] + 1)
                                           : (down > right ? down : right);
    }
  return t;
}

/* The line diff of a and b as ops (caller frees), numbered from old_first /
 * new_first. */
static op *diff_ops(const line *a, size_t na, const line *b, size_t nb, long old_first,
                    long new_first, size_t *nops_out) {
  op *ops = xmalloc((na + nb + 1) * sizeof *ops);
  size_t nops = 0;
  if (na <= 2000 && nb <= 2000) {
    uint16_t *t = lcs_table(a, na, b, nb);
#define T(i, j) t[(i) * (nb + 1) + (j)]
    size_t i = 0, j = 0;
    long on = old_first, nn = new_first;
    while (i < na || j < nb) {
      if (i < na && j < nb && eq(a[i], b[j])) {
        ops[nops++] = (op){' ', a[i], on++, nn++};
        i++, j++;
      } else if (i < na && (j == nb || T(i + 1, j) >= T(i, j + 1))) {
        /* on a tie the removal first: a changed line reads "- old" then
         * "+ new", as git shows it */
        ops[nops++] = (op){'-', a[i], on++, 0};
        i++;
      } else {
        ops[nops++] = (op){'+', b[j], 0, nn++};
        j++;
      }
    }
#undef T
    free(t);
  } else {
    for (size_t i = 0; i < na; i++) ops[nops++] = (op){'-', a[i], old_first + (long)i, 0};
    for (size_t j = 0; j < nb; j++) ops[nops++] = (op){'+', b[j], 0, new_first + (long)j};
  }
  *nops_out = nops;
  return ops;
}

static bool near_change(const op *ops, size_t nops, size_t k) {
  for (size_t d = (k >= 3 ? k - 3 : 0); d <= k + 3 && d < nops; d++)
    if (ops[d].kind != ' ') return true;
  return false;
}

/* Pairs each removed line with the added line that replaces it: the i-th
 * of a run of removals with the i-th of the run of additions right after
 * it. partner[k]: the index of k's pair, or -1. */
static void pair_changes(const op *ops, size_t nops, long *partner) {
  for (size_t k = 0; k < nops; k++) partner[k] = -1;
  for (size_t k = 0; k < nops;) {
    if (ops[k].kind != '-') {
      k++;
      continue;
    }
    size_t i = k, j;
    while (i < nops && ops[i].kind == '-') i++;
    for (j = i; j < nops && ops[j].kind == '+';) j++;
    for (size_t p = 0; k + p < i && i + p < j; p++) {
      partner[k + p] = (long)(i + p);
      partner[i + p] = (long)(k + p);
    }
    k = j;
  }
}

/* o's text into row in style st, its changed part against its pair (may be
 * NULL) in reverse video: the reverse carries the meaning without color. */
static void add_text(zbuf *row, const op *o, const op *pair, const char *st, const tui_theme *th) {
  unsigned char *mine = o->l.n ? xmalloc(o->l.n) : NULL;
  unsigned char *theirs = pair && pair->l.n ? xmalloc(pair->l.n) : NULL;
  bool marked =
      pair && mine && theirs &&
      (o->kind == '-' ? tui_diff_words(o->l.s, o->l.n, pair->l.s, pair->l.n, mine, theirs)
                      : tui_diff_words(pair->l.s, pair->l.n, o->l.s, o->l.n, theirs, mine));
  if (!marked) tw_sanitize(row, o->l.s, o->l.n);
  for (size_t i = 0; marked && i < o->l.n;) {
    size_t j = i;
    while (j < o->l.n && mine[j] == mine[i]) j++;
    if (mine[i]) zbuf_addstr(row, th->reverse);
    tw_sanitize(row, o->l.s + i, j - i);
    if (mine[i]) zbuf_addf(row, "%s%s", th->reset, st);
    i = j;
  }
  free(mine);
  free(theirs);
}

static void push_op(const op *o, const op *pair, int width, const tui_theme *th, tw_lines *out) {
  long no = o->kind == '+' ? o->newno : o->oldno;
  const char *st = o->kind == '+' ? th->add : o->kind == '-' ? th->del : th->muted;
  zbuf row = ZBUF_INIT;
  zbuf_addf(&row, "%s%5ld %c ", st, no, o->kind);
  zbuf_addstr(&row, o->kind == ' ' ? th->reset : "");
  add_text(&row, o, pair, st, th);
  zbuf_addstr(&row, th->reset);
  tw_lines_push(out, tw_truncate(row.data, width));
  zbuf_release(&row);
}

void tui_diff_render_at(const char *old_text, const char *new_text, long old_first, long new_first,
                        int width, const tui_theme *th, size_t max_rows, tw_lines *out,
                        size_t *added, size_t *removed) {
  line *a, *b;
  size_t na = split(old_text, &a), nb = split(new_text, &b);
  size_t nops = 0;
  op *ops = diff_ops(a, na, b, nb, old_first, new_first, &nops);
  long *partner = xmalloc((nops + 1) * sizeof *partner);
  pair_changes(ops, nops, partner);
  *added = *removed = 0;
  /* Show changed lines with 3 lines of context; "⋮" between hunks. */
  size_t shown = 0, hidden = 0;
  long last_shown = -10;
  for (size_t k = 0; k < nops; k++) {
    if (ops[k].kind == '+') (*added)++;
    if (ops[k].kind == '-') (*removed)++;
    if (!near_change(ops, nops, k)) continue;
    if (max_rows && shown >= max_rows) {
      hidden++;
      continue;
    }
    if (last_shown >= 0 && (long)k != last_shown + 1) {
      tw_lines_pushf(out, "     %s⋮%s", th->muted, th->reset);
      shown++;
    }
    last_shown = (long)k;
    push_op(&ops[k], partner[k] >= 0 ? &ops[partner[k]] : NULL, width, th, out);
    shown++;
  }
  if (hidden) tw_lines_pushf(out, "      %s… %zu more diff lines%s", th->muted, hidden, th->reset);
  free(partner);
  free(ops);
  free(a);
  free(b);
}
