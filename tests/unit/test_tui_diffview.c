/* test_tui_diffview.c — diffs in the TUI (issue 22 A1): the word-level
 * highlight inside a changed line (ui/tui/diff_words.h, drawn in reverse
 * video by ui/tui/diff.h), and a long diff in an edit's card collapsed to
 * its first rows with "… K more lines", the whole diff on Ctrl+O — checked
 * on the renderer's rows and on a real terminal emulator (libvterm). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vterm.h>

#include "base/buf.h"
#include "base/common.h"
#include "ui/tui/app.h"
#include "ui/tui/diff.h"
#include "ui/tui/diff_words.h"

/* The mask as a string: '^' under changed bytes, ' ' elsewhere. */
static char *mask_str(const unsigned char *m, size_t n) {
  char *s = xmalloc(n + 1);
  for (size_t i = 0; i < n; i++) s[i] = m[i] ? '^' : ' ';
  s[n] = 0;
  while (n && s[n - 1] == ' ') s[--n] = 0;
  return s;
}

static void words(const char *a, const char *b, bool want, const char *want_a, const char *want_b) {
  size_t na = strlen(a), nb = strlen(b);
  unsigned char *ma = xmalloc(na + 1), *mb = xmalloc(nb + 1);
  bool got = tui_diff_words(a, na, b, nb, ma, mb);
  assert_int_equal(got, want);
  if (want) {
    char *sa = mask_str(ma, na), *sb = mask_str(mb, nb);
    assert_string_equal(sa, want_a);
    assert_string_equal(sb, want_b);
    free(sa);
    free(sb);
  }
  free(ma);
  free(mb);
}

static void changed_words_are_marked_and_the_rest_is_not(void **state) {
  (void)state;
  words("x = 1;", "x = 42;", true, "    ^", "    ^^");
  /* a word, not the characters it shares with its replacement */
  words("return total + tax;", "return total + fees;", true, "               ^^^",
        "               ^^^^");
  /* two changed words with a space between read as one span */
  words("if (a && b) run();", "if (c || d) run();", true, "    ^^^^^^", "    ^^^^^^");
  /* an added argument: only the addition is marked on the new side */
  words("f(a, b)", "f(a, b, c)", true, "", "      ^^^");
  /* non-ASCII stays whole: the span covers the whole UTF-8 word */
  words("say héllo now", "say hallo now", true, "    ^^^^^^", "    ^^^^^");
}

static void unrelated_or_huge_lines_get_no_word_highlight(void **state) {
  (void)state;
  words("int main(void) {", "# a comment about nothing", false, NULL, NULL);
  zbuf a = ZBUF_INIT, b = ZBUF_INIT;
  for (int i = 0; i < TUI_WORDS_MAX; i++) zbuf_addstr(&a, "w ");
  zbuf_addf(&b, "%sz", a.data);
  unsigned char *ma = xmalloc(a.len), *mb = xmalloc(b.len);
  assert_false(tui_diff_words(a.data, a.len, b.data, b.len, ma, mb));
  free(ma);
  free(mb);
  zbuf_release(&a);
  zbuf_release(&b);
}

static void rendered_rows_reverse_only_the_changed_part(void **state) {
  (void)state;
  tui_theme th;
  tui_theme_init(&th, "dark", TUI_DEPTH_NONE); /* the reverse stays without color */
  tw_lines l = {0};
  size_t add, del;
  tui_diff_render("a\nx = 1;\nb\n", "a\nx = 42;\nb\n", 1, 80, &th, 0, &l, &add, &del);
  const char *minus = NULL, *plus = NULL;
  for (size_t i = 0; i < l.len; i++) {
    if (strstr(l.items[i], "2 - ")) minus = l.items[i];
    if (strstr(l.items[i], "2 + ")) plus = l.items[i];
  }
  if (!minus || !plus) {
    fail_msg("the changed pair is missing from the rows");
    return;
  }
  assert_non_null(strstr(minus, "x = \x1b[7m1\x1b[0m;"));
  assert_non_null(strstr(plus, "x = \x1b[7m42\x1b[0m;"));
  /* context lines and a pure addition carry no reverse */
  for (size_t i = 0; i < l.len; i++)
    if (strstr(l.items[i], "1   a")) assert_null(strstr(l.items[i], "\x1b[7m"));
  tw_lines_free(&l);
  tw_lines m = {0};
  tui_diff_render("a\n", "a\nnew line\n", 1, 80, &th, 0, &m, &add, &del);
  for (size_t i = 0; i < m.len; i++) assert_null(strstr(m.items[i], "\x1b[7m"));
  tw_lines_free(&m);
}

/* --- on a terminal --------------------------------------------------------- */

typedef struct term {
  VTerm *vt;
  VTermScreen *scr;
  int rows, cols;
  zbuf sb; /* the rows scrolled off, one per line */
} term;

static void cell_utf8(const VTermScreenCell *c, zbuf *out) {
  if (!c->chars[0]) {
    zbuf_addch(out, ' ');
    return;
  }
  uint32_t cp = c->chars[0];
  if (cp < 0x80) zbuf_addch(out, (char)cp);
  else zbuf_addch(out, '?'); /* these tests look at ASCII text only */
}

static int on_scroll(int cols, const VTermScreenCell *cells, void *user) {
  term *t = user;
  for (int i = 0; i < cols; i++) cell_utf8(&cells[i], &t->sb);
  zbuf_addch(&t->sb, '\n');
  return 1;
}

static const VTermScreenCallbacks CALLBACKS = {.sb_pushline = on_scroll};

static void term_open(term *t, int rows, int cols) {
  memset(t, 0, sizeof *t);
  t->rows = rows;
  t->cols = cols;
  t->vt = vterm_new(rows, cols);
  vterm_set_utf8(t->vt, 1);
  t->scr = vterm_obtain_screen(t->vt);
  vterm_screen_set_callbacks(t->scr, &CALLBACKS, t);
  vterm_screen_reset(t->scr, 1);
  zbuf_init(&t->sb);
}

static void term_draw(term *t, tui_app *a) {
  tui_app_render(a);
  vterm_input_write(t->vt, a->scr.out.data, a->scr.out.len);
  zbuf_reset(&a->scr.out);
}

/* Everything shown: the scrolled-off rows, then the screen. */
static char *term_text(term *t) {
  zbuf b = ZBUF_INIT;
  zbuf_add(&b, t->sb.data ? t->sb.data : "", t->sb.len);
  for (int r = 0; r < t->rows; r++) {
    for (int c = 0; c < t->cols; c++) {
      VTermScreenCell cell;
      vterm_screen_get_cell(t->scr, (VTermPos){r, c}, &cell);
      cell_utf8(&cell, &b);
    }
    zbuf_addch(&b, '\n');
  }
  return zbuf_detach(&b, NULL);
}

/* The screen position of the first occurrence of s, or false. */
static bool term_find(term *t, const char *s, VTermPos *at) {
  for (int r = 0; r < t->rows; r++) {
    zbuf row = ZBUF_INIT;
    for (int c = 0; c < t->cols; c++) {
      VTermScreenCell cell;
      vterm_screen_get_cell(t->scr, (VTermPos){r, c}, &cell);
      cell_utf8(&cell, &row);
    }
    const char *hit = strstr(row.data, s);
    if (hit) *at = (VTermPos){r, (int)(hit - row.data)};
    zbuf_release(&row);
    if (hit) return true;
  }
  return false;
}

static bool reverse_at(term *t, VTermPos p) {
  VTermScreenCell cell;
  vterm_screen_get_cell(t->scr, p, &cell);
  return cell.attrs.reverse;
}

static void term_close(term *t) {
  vterm_free(t->vt);
  zbuf_release(&t->sb);
}

/* An edit_file card of old → new, shown on t. */
static void edit_card(tui_app *a, term *t, const char *old_s, const char *new_s) {
  json_t *args =
      json_pack("{s:s, s:s, s:s}", "path", "a.c", "old_string", old_s, "new_string", new_s);
  char *js = json_dumps(args, 0);
  tui_app_turn_start(a, 0);
  zagent_event tc = {.kind = ZAEV_TOOL_CALL,
                     .tool_call = {.id = "e1", .name = "edit_file", .arguments = js}};
  tui_app_event(a, &tc);
  json_t *meta = json_pack("{s:i}", "first_line", 1);
  zagent_event res = {.kind = ZAEV_TOOL_RESULT,
                      .tool_result = {.id = "e1",
                                      .name = "edit_file",
                                      .ok = true,
                                      .output = "ok",
                                      .output_len = 2,
                                      .meta = meta}};
  tui_app_event(a, &res);
  tui_app_turn_end(a, NULL);
  term_draw(t, a);
  json_decref(meta);
  free(js);
  json_decref(args);
}

static void card_shows_the_changed_word_in_reverse(void **state) {
  (void)state;
  term t;
  term_open(&t, 24, 80);
  tui_app a;
  tui_app_init(&a, 80, 24, "dark", TUI_DEPTH_256);
  edit_card(&a, &t, "int rate = 10;\n", "int rate = 25;\n");
  VTermPos minus, plus;
  assert_true(term_find(&t, "1 - int rate = 10;", &minus));
  assert_true(term_find(&t, "1 + int rate = 25;", &plus));
  int col_old = minus.col + (int)strlen("1 - int rate = ");
  int col_new = plus.col + (int)strlen("1 + int rate = ");
  assert_true(reverse_at(&t, (VTermPos){minus.row, col_old}));      /* "1" of 10 */
  assert_true(reverse_at(&t, (VTermPos){minus.row, col_old + 1}));  /* "0" */
  assert_false(reverse_at(&t, (VTermPos){minus.row, col_old + 2})); /* ";" */
  assert_false(reverse_at(&t, (VTermPos){minus.row, col_old - 3})); /* "e" of rate */
  assert_true(reverse_at(&t, (VTermPos){plus.row, col_new}));
  assert_false(reverse_at(&t, (VTermPos){plus.row, col_new - 4}));
  tui_app_release(&a);
  term_close(&t);
}

static void long_diff_collapses_and_ctrl_o_shows_it_all(void **state) {
  (void)state;
  zbuf o = ZBUF_INIT, n = ZBUF_INIT;
  for (int i = 1; i <= 60; i++) {
    zbuf_addf(&o, "old line %d\n", i);
    zbuf_addf(&n, "new line %d\n", i);
  }
  term t;
  term_open(&t, 30, 80);
  tui_app a;
  tui_app_init(&a, 80, 30, "dark", TUI_DEPTH_NONE);
  edit_card(&a, &t, o.data, n.data);
  char *shown = term_text(&t);
  assert_non_null(strstr(shown, "+60 -60 lines"));
  assert_non_null(strstr(shown, "1 - old line 1"));
  /* 120 changed rows, TUI_CARD_DIFF_ROWS of them shown */
  char more[64];
  snprintf(more, sizeof more, "%d more lines (Ctrl+O shows the whole diff)",
           120 - TUI_CARD_DIFF_ROWS);
  assert_non_null(strstr(shown, more));
  assert_null(strstr(shown, "60 + new line 60"));
  free(shown);
  char *text = NULL;
  tui_key k = {.type = TK_CHAR, .ch = 'o', .mods = TK_CTRL};
  assert_int_equal(tui_app_key(&a, &k, &text), TUI_ACT_NONE);
  term_draw(&t, &a);
  char *all = term_text(&t);
  assert_non_null(strstr(all, "60 + new line 60"));
  assert_non_null(strstr(all, "45 - old line 45"));
  free(all);
  /* a short diff is shown whole: nothing to expand */
  edit_card(&a, &t, "short\n", "shorter\n");
  char *last = term_text(&t);
  const char *card = strstr(last, "1 - short");
  assert_non_null(card);
  assert_null(strstr(card, "more lines"));
  free(last);
  zbuf_release(&o);
  zbuf_release(&n);
  tui_app_release(&a);
  term_close(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(changed_words_are_marked_and_the_rest_is_not),
      cmocka_unit_test(unrelated_or_huge_lines_get_no_word_highlight),
      cmocka_unit_test(rendered_rows_reverse_only_the_changed_part),
      cmocka_unit_test(card_shows_the_changed_word_in_reverse),
      cmocka_unit_test(long_diff_collapses_and_ctrl_o_shows_it_all),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
