/* test_tui_units.c — the TUI's pure parts: key decoding, widths and
 * wrapping, markdown block boundaries, the composer, diffs, highlighting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/path.h"
#include "cli/tui_commands.h"
#include "cli/tui_question.h"
#include "ext/ext.h"
#include "ui/tui/app.h"
#include "ui/tui/composer.h"
#include "ui/tui/diff.h"
#include "ui/tui/highlight.h"
#include "ui/tui/theme.h"
#include "ui/tui/keys.h"
#include "ui/tui/markdown.h"
#include "ui/tui/width.h"

#define NOKEY ((tui_key_type)99)

static tui_key next(tui_keys *k, bool flush) {
  tui_key key;
  memset(&key, 0, sizeof key);
  key.type = TK_UNKNOWN;
  if (!tui_keys_next(k, &key, flush)) key.type = NOKEY;
  return key;
}

static void keys_decode_control_and_modified_keys(void **state) {
  (void)state;
  tui_keys k;
  tui_keys_init(&k);
  const char in[] = "a\x03\r\x1b[Z\x1b[13;2u\x1b[27;2;13~\x1b" "b\x1b[1;5C\x1b[3~\x7f\x1b[99;5u\xc3\xa9";
  tui_keys_feed(&k, in, sizeof in - 1);
  tui_key x = next(&k, false);
  assert_int_equal(x.type, TK_CHAR);
  assert_int_equal(x.ch, 'a');
  x = next(&k, false);
  assert_int_equal(x.type, TK_CHAR);
  assert_int_equal(x.ch, 'c');
  assert_true(x.mods & TK_CTRL);
  assert_int_equal(next(&k, false).type, TK_ENTER);
  assert_int_equal(next(&k, false).type, TK_BACKTAB);
  x = next(&k, false);
  assert_int_equal(x.type, TK_ENTER);
  assert_true(x.mods & TK_SHIFT);
  x = next(&k, false);
  assert_int_equal(x.type, TK_ENTER);
  assert_true(x.mods & TK_SHIFT);
  x = next(&k, false);
  assert_int_equal(x.type, TK_CHAR);
  assert_int_equal(x.ch, 'b');
  assert_true(x.mods & TK_ALT);
  x = next(&k, false);
  assert_int_equal(x.type, TK_RIGHT);
  assert_true(x.mods & TK_CTRL);
  assert_int_equal(next(&k, false).type, TK_DELETE);
  assert_int_equal(next(&k, false).type, TK_BACKSPACE);
  x = next(&k, false);
  assert_int_equal(x.ch, 'c');
  assert_true(x.mods & TK_CTRL);
  x = next(&k, false);
  assert_string_equal(x.utf8, "é");
  tui_keys_release(&k);
}

static void keys_wait_for_split_sequences_and_flush_a_lone_escape(void **state) {
  (void)state;
  tui_keys k;
  tui_keys_init(&k);
  tui_keys_feed(&k, "\x1b", 1);
  assert_int_equal(next(&k, false).type, NOKEY);
  tui_keys_feed(&k, "[", 1);
  assert_int_equal(next(&k, false).type, NOKEY);
  tui_keys_feed(&k, "A", 1);
  assert_int_equal(next(&k, false).type, TK_UP);
  tui_keys_feed(&k, "\x1b", 1);
  assert_int_equal(next(&k, true).type, TK_ESC);
  tui_keys_feed(&k, "\xe6\x97", 2); /* half of 日 */
  assert_int_equal(next(&k, false).type, NOKEY);
  tui_keys_feed(&k, "\xa5", 1);
  assert_string_equal(next(&k, false).utf8, "日");
  tui_keys_release(&k);
}

static void keys_bracketed_paste_arrives_whole(void **state) {
  (void)state;
  tui_keys k;
  tui_keys_init(&k);
  tui_keys_feed(&k, "\x1b[200~line one\r\nline \x1b[A", 24);
  assert_int_equal(next(&k, false).type, NOKEY);
  tui_keys_feed(&k, "two\x1b[20", 7);
  assert_int_equal(next(&k, false).type, NOKEY);
  tui_keys_feed(&k, "1~x", 3);
  tui_key p = next(&k, false);
  assert_int_equal(p.type, TK_PASTE);
  assert_int_equal(p.paste_len, strlen("line one\r\nline \x1b[Atwo"));
  assert_memory_equal(p.paste, "line one\r\nline \x1b[Atwo", p.paste_len);
  assert_int_equal(next(&k, false).ch, 'x');
  tui_keys_release(&k);
}

static void widths_count_wide_combining_and_emoji(void **state) {
  (void)state;
  assert_int_equal(tw_strwidth("abc"), 3);
  assert_int_equal(tw_strwidth("日本"), 4);
  assert_int_equal(tw_strwidth("e\xCC\x81"), 1);         /* e + combining acute */
  assert_int_equal(tw_strwidth("🎉"), 2);
  assert_int_equal(tw_strwidth("👩‍💻"), 2);              /* ZWJ sequence */
  assert_int_equal(tw_strwidth("\x1b[1mbold\x1b[0m"), 4); /* SGR takes no columns */
}

/* Backspace lands on the start of the grapheme cluster before pos, whole. */
static void prev_steps_back_one_grapheme(void **state) {
  (void)state;
  const char *s = "ae\xCC\x81\xE6\x97\xA5"; /* a, e + combining acute, 日 */
  size_t n = strlen(s);
  assert_int_equal(tw_prev(s, n, n), 4);     /* before 日 */
  assert_int_equal(tw_prev(s, n, 4), 1);     /* before e + accent, not the accent */
  assert_int_equal(tw_prev(s, n, 1), 0);
  assert_int_equal(tw_prev(s, n, 0), 0);
  assert_int_equal(tw_prev("", 0, 0), 0);
}

static void wrap_breaks_at_words_and_carries_style(void **state) {
  (void)state;
  tw_lines l = {0};
  const char *s = "\x1b[1mhello wonderful\x1b[0m world";
  tw_wrap(&l, s, strlen(s), 10, "", "");
  assert_int_equal(l.len, 3);
  assert_string_equal(l.items[0], "\x1b[1mhello\x1b[0m");
  assert_string_equal(l.items[1], "\x1b[1mwonderful\x1b[0m");
  assert_string_equal(l.items[2], "world");
  tw_lines_free(&l);
  /* a word longer than the line is cut, never a wide character */
  tw_wrap(&l, "日本語日本語", strlen("日本語日本語"), 5, "", "");
  for (size_t i = 0; i < l.len; i++) assert_true(tw_strwidth(l.items[i]) <= 5);
  tw_lines_free(&l);
}

static void sanitize_neutralises_escapes(void **state) {
  (void)state;
  zbuf b = ZBUF_INIT;
  tw_sanitize(&b, "a\x1b[2Jb\tc\xc2\x9b", 10);
  assert_null(strchr(b.data, '\x1b'));
  assert_non_null(strstr(b.data, "^["));
  zbuf_release(&b);
}

static void markdown_boundary_respects_fences(void **state) {
  (void)state;
  const char *a = "para one\n\npara two";
  assert_int_equal(tui_md_boundary(a, strlen(a)), strlen("para one\n\n"));
  const char *b = "```\ncode\n\nmore code\n";
  assert_int_equal(tui_md_boundary(b, strlen(b)), 0); /* blank line inside an open fence */
  const char *c = "```\ncode\n```\nafter";
  assert_int_equal(tui_md_boundary(c, strlen(c)), strlen("```\ncode\n```\n"));
  const char *d = "# Title\nbody";
  assert_int_equal(tui_md_boundary(d, strlen(d)), strlen("# Title\n"));
}

static void markdown_stream_makes_only_finished_blocks_final(void **state) {
  (void)state;
  tui_theme th;
  tui_theme_init(&th, "dark", TUI_DEPTH_NONE);
  tui_md_stream m;
  tui_md_stream_init(&m, 40, &th);
  tw_lines fin = {0};
  tui_md_stream_add(&m, "Hello **wor", 11, &fin);
  assert_int_equal(fin.len, 0);
  tui_md_stream_add(&m, "ld**\n\nNext", 10, &fin);
  assert_int_equal(fin.len, 1);
  assert_non_null(strstr(fin.items[0], "world"));
  tw_lines tail = {0};
  tui_md_stream_tail(&m, &tail);
  assert_true(tail.len >= 1);
  assert_non_null(strstr(tail.items[tail.len - 1], "Next"));
  tw_lines_free(&tail);
  tui_md_stream_finish(&m, &fin);
  assert_non_null(strstr(fin.items[fin.len - 1], "Next"));
  tw_lines_free(&fin);
  tui_md_stream_release(&m);
}

/* Regression (found by fuzz_tui_markdown): a control character in a code
 * fence's info string reached the terminal unsanitized. */
static void markdown_fence_language_is_sanitized(void **state) {
  (void)state;
  tui_theme th;
  tui_theme_init(&th, "dark", TUI_DEPTH_NONE);
  tw_lines l = {0};
  const char *src = "```c\x1b]0;pwned\x07\nint x;\n```\n";
  tui_md_render(src, strlen(src), 40, &th, &l);
  for (size_t i = 0; i < l.len; i++) {
    assert_null(strchr(l.items[i], '\x07'));
    assert_null(strstr(l.items[i], "\x1b]"));
  }
  tw_lines_free(&l);
}

static void composer_edits_like_emacs(void **state) {
  (void)state;
  tui_composer c;
  tui_composer_init(&c);
  tui_composer_insert(&c, "hello big world", 15);
  tui_composer_kill_word(&c);
  assert_string_equal(c.text.data, "hello big ");
  tui_composer_yank(&c);
  assert_string_equal(c.text.data, "hello big world");
  tui_composer_home(&c);
  tui_composer_word_right(&c);
  tui_composer_kill_end(&c);
  assert_string_equal(c.text.data, "hello");
  tui_composer_newline(&c);
  tui_composer_insert(&c, "日本", strlen("日本"));
  tui_composer_left(&c);
  tui_composer_backspace(&c);
  assert_string_equal(c.text.data, "hello\n本");
  assert_true(tui_composer_up(&c));
  assert_false(tui_composer_up(&c));
  char *s = tui_composer_take(&c);
  assert_string_equal(s, "hello\n本");
  free(s);
  assert_int_equal(c.text.len, 0);
  tui_composer_history_prev(&c);
  assert_string_equal(c.text.data, "hello\n本");
  tui_composer_history_next(&c);
  assert_string_equal(c.text.data, "");
  tui_composer_release(&c);
}

static void composer_history_persists(void **state) {
  (void)state;
  char path[] = "/tmp/zero-hist-XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  tui_composer c;
  tui_composer_init(&c);
  tui_composer_history_open(&c, path);
  tui_composer_insert(&c, "first \"quoted\"\nline", 19);
  free(tui_composer_take(&c));
  tui_composer_release(&c);
  tui_composer_init(&c);
  tui_composer_history_open(&c, path);
  assert_int_equal(c.nhist, 1);
  assert_string_equal(c.hist[0], "first \"quoted\"\nline");
  tui_composer_release(&c);
  unlink(path);
}

static void colors_follow_the_environment_and_the_theme(void **state) {
  (void)state;
  char *saved[3];
  const char *names[3] = {"NO_COLOR", "COLORTERM", "TERM"};
  for (int i = 0; i < 3; i++) {
    const char *v = getenv(names[i]);
    saved[i] = v ? strdup(v) : NULL;
  }
  unsetenv("NO_COLOR");
  unsetenv("COLORTERM");
  setenv("TERM", "xterm", 1);
  assert_int_equal(tui_depth_detect(), TUI_DEPTH_16);
  setenv("TERM", "xterm-256color", 1);
  assert_int_equal(tui_depth_detect(), TUI_DEPTH_256);
  setenv("COLORTERM", "truecolor", 1);
  assert_int_equal(tui_depth_detect(), TUI_DEPTH_TRUE);
  setenv("NO_COLOR", "1", 1);
  assert_int_equal(tui_depth_detect(), TUI_DEPTH_NONE);
  setenv("NO_COLOR", "", 1); /* empty: not set (no-color.org) */
  assert_int_equal(tui_depth_detect(), TUI_DEPTH_TRUE);
  unsetenv("COLORTERM");
  setenv("TERM", "dumb", 1);
  assert_int_equal(tui_depth_detect(), TUI_DEPTH_NONE);
  for (int i = 0; i < 3; i++) {
    if (saved[i]) setenv(names[i], saved[i], 1);
    else unsetenv(names[i]);
    free(saved[i]);
  }
  tui_theme dark, light, none, c16, c256;
  assert_int_equal(tui_theme_init(&dark, "dark", TUI_DEPTH_TRUE), 0);
  assert_int_equal(tui_theme_init(&light, "light", TUI_DEPTH_TRUE), 0);
  assert_int_equal(tui_theme_init(&none, "dark", TUI_DEPTH_NONE), 0);
  assert_int_equal(tui_theme_init(&c16, "dark", TUI_DEPTH_16), 0);
  assert_int_equal(tui_theme_init(&c256, "dark", TUI_DEPTH_256), 0);
  assert_int_equal(tui_theme_init(&dark, "sepia", TUI_DEPTH_TRUE), -1);
  assert_int_equal(tui_theme_init(&dark, "dark", TUI_DEPTH_TRUE), 0);
  /* light backgrounds get other colors; each depth its own form */
  assert_string_not_equal(dark.accent, light.accent);
  assert_non_null(strstr(dark.add, "\x1b[38;2;"));
  assert_non_null(strstr(c256.add, "\x1b[38;5;"));
  assert_string_equal(c16.add, "\x1b[32m");
  /* no colors, but structure stays */
  assert_string_equal(none.add, "");
  assert_string_equal(none.accent, "");
  assert_string_equal(none.bold, "\x1b[1m");
  assert_string_equal(none.reverse, "\x1b[7m");
}

static void diff_shows_changed_lines_with_numbers(void **state) {
  (void)state;
  tui_theme th;
  tui_theme_init(&th, "dark", TUI_DEPTH_NONE);
  tw_lines l = {0};
  size_t add, del;
  tui_diff_render("a\nb\nc\n", "a\nB\nc\n", 10, 80, &th, 0, &l, &add, &del);
  assert_int_equal(add, 1);
  assert_int_equal(del, 1);
  long minus = -1, plus = -1;
  for (size_t i = 0; i < l.len; i++) {
    if (strstr(l.items[i], "11 - b")) minus = (long)i;
    if (strstr(l.items[i], "11 + B")) plus = (long)i;
  }
  assert_true(minus >= 0 && plus >= 0);
  assert_true(minus < plus); /* the removed line before the added one */
  tw_lines_free(&l);
  /* a block replaced by another: every removal before the additions */
  tw_lines m = {0};
  tui_diff_render("x\nold1\nold2\ny\n", "x\nnew1\nnew2\ny\n", 1, 80, &th, 0, &m, &add, &del);
  const char *order[] = {"2 - old1", "3 - old2", "2 + new1", "3 + new2"};
  size_t k = 0;
  for (size_t i = 0; i < m.len && k < 4; i++)
    if (strstr(m.items[i], order[k])) k++;
  assert_int_equal(k, 4);
  tw_lines_free(&m);
}

static void highlight_colors_keywords_strings_comments(void **state) {
  (void)state;
  tui_theme th;
  tui_theme_init(&th, "dark", TUI_DEPTH_16);
  tui_hl h;
  tui_hl_init(&h, "python", 6);
  zbuf out = ZBUF_INIT;
  tui_hl_line(&h, &th, "def f(): return \"s\" # c", 24, &out);
  assert_non_null(strstr(out.data, th.kw));
  assert_non_null(strstr(out.data, th.str));
  assert_non_null(strstr(out.data, th.comment));
  zbuf_reset(&out);
  tui_hl_init(&h, "c", 1);
  tui_hl_line(&h, &th, "/* start", 8, &out);
  assert_int_equal(h.state, 1);
  tui_hl_line(&h, &th, "end */ int", 10, &out);
  assert_int_equal(h.state, 0);
  zbuf_release(&out);
}

static void fuzzy_prefers_prefix_matches(void **state) {
  (void)state;
  assert_true(tui_fuzzy("mo", 2, "model") > tui_fuzzy("mo", 2, "compact-more"));
  assert_int_equal(tui_fuzzy("xz", 2, "model"), -1);
  char *s = tui_tool_summary("exec_command", "{\"cmd\":\"ls -la\\nrm x\"}");
  assert_string_equal(s, "ls -la^Jrm x");
  free(s);
}

/* A table column is counted in columns, not bytes (regression: the /resume
 * picker cut a Japanese title in the middle of a character). */
static void columns_cut_and_pad_by_display_width(void **state) {
  (void)state;
  zbuf b = ZBUF_INIT;
  tw_addcol(&b, "日本語のセッションのタイトルです", 10);
  assert_string_equal(b.data, "日本語の… ");
  assert_int_equal(tw_strwidth(b.data), 10);
  zbuf_reset(&b);
  tw_addcol(&b, "short", 8);
  assert_string_equal(b.data, "short   ");
  zbuf_reset(&b);
  tw_addcol(&b, "tab\there\x1b[31m", 16);
  assert_null(strchr(b.data, '\x1b'));
  assert_int_equal(tw_strwidth(b.data), 16);
  zbuf_release(&b);
}

static char *no_sgr(const char *s) {
  zbuf b = ZBUF_INIT;
  while (*s) {
    if (s[0] == '\x1b' && s[1] == '[') {
      s += 2;
      while (*s && *s != 'm') s++;
      if (*s) s++;
      continue;
    }
    zbuf_addch(&b, *s++);
  }
  return zbuf_detach(&b, NULL);
}

/* Tables: a cell too wide for the terminal wraps inside its column instead
 * of being cut with "…" (the words were lost), and columns are aligned as the
 * delimiter row says. */
static void markdown_table_cells_wrap_and_align(void **state) {
  (void)state;
  tui_theme th;
  tui_theme_init(&th, "dark", TUI_DEPTH_NONE);
  tw_lines l = {0};
  const char *src = "| name | n | ccc |\n|:--|--:|:-:|\n"
                    "| a cell with a good many words in it | 7 | x |\n| b | 12345 | yy |\n";
  tui_md_render(src, strlen(src), 30, &th, &l);
  zbuf all = ZBUF_INIT;
  for (size_t i = 0; i < l.len; i++) {
    char *p = no_sgr(l.items[i]);
    assert_true(tw_strwidth(p) <= 30);
    zbuf_addf(&all, "%s\n", p);
    free(p);
  }
  assert_null(strstr(all.data, "…"));
  /* every word is there, in order, in the first column */
  assert_non_null(strstr(all.data, "a cell with a"));
  assert_non_null(strstr(all.data, "good many words"));
  assert_non_null(strstr(all.data, "\nin it "));
  assert_non_null(strstr(all.data, "│     7 │"));  /* right */
  assert_non_null(strstr(all.data, "│ 12345 │ yy"));
  assert_non_null(strstr(all.data, "│     n │ ccc\n"));
  assert_non_null(strstr(all.data, "│     7 │  x\n"));  /* centred */
  zbuf_release(&all);
  tw_lines_free(&l);
}

/* A paste whose end marker never comes does not swallow every later key:
 * after TUI_PASTE_GIVE_UP idle flushes it is delivered and keys work again
 * (regression: Ctrl+C and everything else went into the paste for good). A
 * slow paste with input between the flushes still arrives whole. */
static void keys_paste_without_an_end_gives_up(void **state) {
  (void)state;
  tui_keys k;
  tui_keys_init(&k);
  tui_keys_feed(&k, "\x1b[200~slow ", 11);
  assert_true(tui_keys_pending(&k));
  for (int i = 0; i < TUI_PASTE_GIVE_UP - 1; i++) assert_int_equal(next(&k, true).type, NOKEY);
  tui_keys_feed(&k, "paste\x1b[201~", 11); /* input again: still one paste */
  tui_key p = next(&k, false);
  assert_int_equal(p.type, TK_PASTE);
  assert_memory_equal(p.paste, "slow paste", p.paste_len);
  assert_false(tui_keys_pending(&k));
  tui_keys_feed(&k, "\x1b[200~stray", 11);
  for (int i = 0; i < TUI_PASTE_GIVE_UP - 1; i++) assert_int_equal(next(&k, true).type, NOKEY);
  p = next(&k, true);
  assert_int_equal(p.type, TK_PASTE);
  assert_int_equal(p.paste_len, 5);
  assert_memory_equal(p.paste, "stray", 5);
  tui_keys_feed(&k, "\x03", 1);
  tui_key c = next(&k, false);
  assert_int_equal(c.type, TK_CHAR);
  assert_int_equal(c.ch, 'c');
  assert_true(c.mods & TK_CTRL);
  tui_keys_release(&k);
}

/* The slash commands are one table: every row is well formed and named
 * once, an alias finds its command without being listed, and the `/` menu
 * offers exactly the table's commands, in its order. */
static void slash_command_table_drives_the_menu(void **state) {
  (void)state;
  assert_true(tui_ncommands > 10);
  for (size_t i = 0; i < tui_ncommands; i++) {
    const tui_command *c = &tui_commands[i];
    assert_int_equal(c->name[0], '/');
    assert_non_null(c->run);
    assert_non_null(c->args);
    assert_true(strlen(c->help) > 0);
    assert_ptr_equal(tui_command_find(c->name), c);
    for (size_t k = i + 1; k < tui_ncommands; k++) assert_string_not_equal(c->name, tui_commands[k].name);
  }
  const tui_command *quit = tui_command_find("/exit");
  assert_non_null(quit);
  assert_string_equal(quit->name, "/quit");
  assert_null(tui_command_find("/nosuch"));
  assert_null(tui_command_find("/model gpt-4.1")); /* a name, not a line */
  /* Tab after "/" completes the first command; Down then Tab each next one */
  for (size_t i = 0; i < tui_ncommands; i++) {
    tui_app a;
    tui_app_init(&a, 80, 24, "dark", TUI_DEPTH_16);
    char *text = NULL;
    tui_key slash = {.type = TK_CHAR, .ch = '/', .utf8 = "/"};
    tui_app_key(&a, &slash, &text);
    tui_key down = {.type = TK_DOWN}, tab = {.type = TK_TAB};
    for (size_t k = 0; k < i; k++) tui_app_key(&a, &down, &text);
    tui_app_key(&a, &tab, &text);
    char want[64];
    snprintf(want, sizeof want, "%s ", tui_commands[i].name);
    assert_string_equal(a.comp.text.data, want);
    tui_app_release(&a);
  }
}

/* A custom command never takes a built-in's name: a command file named
 * after any row of the TUI's table (the one the / menu and dispatch use) is
 * refused as a built-in, so the extensions' list of built-ins cannot drift
 * behind the table. */
static void custom_commands_never_shadow_a_table_command(void **state) {
  (void)state;
  char tmpl[] = "/tmp/zero-tui-cmds-XXXXXX";
  char *d = mkdtemp(tmpl);
  assert_non_null(d);
  char *cfg = zpath_join(d, "cfg"), *cmds = zpath_join(cfg, "zero/commands"),
       *ws = zpath_join(d, "ws");
  zerr err = ZERR_INIT;
  assert_int_equal(zfs_mkdir_p(cmds, 0700, &err), 0);
  assert_int_equal(zfs_mkdir_p(ws, 0700, &err), 0);
  for (size_t i = 0; i < tui_ncommands; i++) {
    char name[128];
    snprintf(name, sizeof name, "%s/%s.md", cmds, tui_commands[i].name + 1);
    assert_int_equal(zfs_write_atomic(name, "Do it\n", 6, 0600, &err), 0);
  }
  setenv("XDG_CONFIG_HOME", cfg, 1);
  zext x;
  zext_load(&x, ws, false);
  const zcmds *cs = zext_commands(&x);
  for (size_t i = 0; i < cs->n; i++) fail_msg("/%s shadows a built-in", cs->v[i].name);
  assert_int_equal(cs->n, 0);
  zext_release(&x);
  unsetenv("XDG_CONFIG_HOME");
  for (size_t i = 0; i < tui_ncommands; i++) {
    char name[128];
    snprintf(name, sizeof name, "%s/%s.md", cmds, tui_commands[i].name + 1);
    unlink(name);
  }
  rmdir(cmds);
  char *zdir = zpath_join(cfg, "zero");
  rmdir(zdir);
  rmdir(cfg);
  rmdir(ws);
  rmdir(d);
  free(zdir);
  free(cfg);
  free(cmds);
  free(ws);
}

/* ask_user in the TUI: a typed number picks that choice, anything else
 * (a number out of range, text, a number with more after it) is the
 * answer as typed. */
static void question_answer_picks_a_choice_by_number(void **state) {
  (void)state;
  strvec ch = STRVEC_INIT;
  strvec_pushl(&ch, "red", "blue", NULL);
  const char *cases[][2] = {{"1", "red"}, {"2", "blue"},      {"3", "3"}, {"0", "0"},
                            {"2x", "2x"}, {"green", "green"}, {"", ""}};
  for (size_t i = 0; i < ZARRAY_LEN(cases); i++) {
    char *a = tui_question_resolve(&ch, cases[i][0]);
    assert_string_equal(a, cases[i][1]);
    free(a);
  }
  strvec_clear(&ch);
  strvec none = STRVEC_INIT;
  char *a = tui_question_resolve(&none, "1");
  assert_string_equal(a, "1");
  free(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(question_answer_picks_a_choice_by_number),
      cmocka_unit_test(keys_decode_control_and_modified_keys),
      cmocka_unit_test(keys_wait_for_split_sequences_and_flush_a_lone_escape),
      cmocka_unit_test(keys_bracketed_paste_arrives_whole),
      cmocka_unit_test(widths_count_wide_combining_and_emoji),
      cmocka_unit_test(prev_steps_back_one_grapheme),
      cmocka_unit_test(wrap_breaks_at_words_and_carries_style),
      cmocka_unit_test(sanitize_neutralises_escapes),
      cmocka_unit_test(markdown_boundary_respects_fences),
      cmocka_unit_test(markdown_stream_makes_only_finished_blocks_final),
      cmocka_unit_test(markdown_fence_language_is_sanitized),
      cmocka_unit_test(composer_edits_like_emacs),
      cmocka_unit_test(composer_history_persists),
      cmocka_unit_test(diff_shows_changed_lines_with_numbers),
      cmocka_unit_test(highlight_colors_keywords_strings_comments),
      cmocka_unit_test(colors_follow_the_environment_and_the_theme),
      cmocka_unit_test(fuzzy_prefers_prefix_matches),
      cmocka_unit_test(columns_cut_and_pad_by_display_width),
      cmocka_unit_test(markdown_table_cells_wrap_and_align),
      cmocka_unit_test(keys_paste_without_an_end_gives_up),
      cmocka_unit_test(slash_command_table_drives_the_menu),
      cmocka_unit_test(custom_commands_never_shadow_a_table_command),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
