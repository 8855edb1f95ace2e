/* diff_words.c — see diff_words.h. */
#include "ui/tui/diff_words.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"

typedef struct tok {
  size_t off, len;
} tok;

static bool word_byte(unsigned char c) {
  return c >= 0x80 || c == '_' || (c >= '0' && c <= '9') ||
         ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

static bool space_byte(unsigned char c) { return c == ' ' || c == '\t'; }

/* The tokens of s into v (at most TUI_WORDS_MAX); -1 when there are more. */
static int tokenize(const char *s, size_t n, tok *v) {
  int nt = 0;
  for (size_t i = 0; i < n;) {
    if (nt == TUI_WORDS_MAX) return -1;
    size_t j = i + 1;
    unsigned char c = (unsigned char)s[i];
    if (word_byte(c))
      while (j < n && word_byte((unsigned char)s[j])) j++;
    else if (space_byte(c))
      while (j < n && space_byte((unsigned char)s[j])) j++;
    v[nt++] = (tok){i, j - i};
    i = j;
  }
  return nt;
}

static bool tok_eq(const char *a, tok x, const char *b, tok y) {
  return x.len == y.len && !memcmp(a + x.off, b + y.off, x.len);
}

/* keep[i] = 1 for the tokens of one side in the common subsequence. */
static void common_tokens(const char *a, const tok *ta, int na, const char *b, const tok *tb,
                          int nb, unsigned char *keep_a, unsigned char *keep_b) {
  size_t w = (size_t)nb + 1;
  uint16_t *t = xcalloc(((size_t)na + 1) * w, sizeof *t);
  for (int i = na; i-- > 0;)
    for (int j = nb; j-- > 0;)
      t[(size_t)i * w + (size_t)j] =
          tok_eq(a, ta[i], b, tb[j])
              ? (uint16_t)(t[(size_t)(i + 1) * w + (size_t)j + 1] + 1)
              : (uint16_t)(t[(size_t)(i + 1) * w + (size_t)j] > t[(size_t)i * w + (size_t)j + 1]
                               ? t[(size_t)(i + 1) * w + (size_t)j]
                               : t[(size_t)i * w + (size_t)j + 1]);
  int i = 0, j = 0;
  while (i < na && j < nb) {
    if (tok_eq(a, ta[i], b, tb[j])) {
      keep_a[i++] = 1;
      keep_b[j++] = 1;
    } else if (t[(size_t)(i + 1) * w + (size_t)j] >= t[(size_t)i * w + (size_t)j + 1]) {
      i++;
    } else {
      j++;
    }
  }
  free(t);
}

/* The byte mask of one side from its kept tokens; returns the kept bytes
 * that are not spaces. */
static size_t to_mask(const char *s, const tok *v, int n, const unsigned char *keep,
                      unsigned char *mask) {
  size_t common = 0;
  for (int k = 0; k < n; k++) {
    bool changed = !keep[k];
    /* a space between two changed tokens joins them into one span */
    if (!changed && space_byte((unsigned char)s[v[k].off]) && k > 0 && k + 1 < n && !keep[k - 1] &&
        !keep[k + 1])
      changed = true;
    memset(mask + v[k].off, changed, v[k].len);
    if (!changed && !space_byte((unsigned char)s[v[k].off])) common += v[k].len;
  }
  return common;
}

bool tui_diff_words(const char *a, size_t na, const char *b, size_t nb, unsigned char *ma,
                    unsigned char *mb) {
  tok ta[TUI_WORDS_MAX], tb[TUI_WORDS_MAX];
  int nta = tokenize(a, na, ta), ntb = tokenize(b, nb, tb);
  if (nta <= 0 || ntb <= 0) return false;
  unsigned char keep_a[TUI_WORDS_MAX] = {0}, keep_b[TUI_WORDS_MAX] = {0};
  common_tokens(a, ta, nta, b, tb, ntb, keep_a, keep_b);
  size_t common = to_mask(a, ta, nta, keep_a, ma);
  (void)to_mask(b, tb, ntb, keep_b, mb);
  /* Lines that share less than a quarter of the longer one: the whole line
   * changed, and a highlight over most of it would only be noise. */
  size_t longer = na > nb ? na : nb;
  return common * 4 >= longer;
}
