/* test_tui_screen.c — screen tests: the TUI's bytes are fed into libvterm, a
 * real terminal emulator, and the resulting grid (and the lines it scrolled
 * into its scrollback) is asserted on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vterm.h>

#include "base/common.h"
#include "base/fs.h"
#include "cli/tui_commands.h"
#include "perm/grants.h"
#include "ui/tui/app.h"
#include "ui/tui/width.h"

typedef struct vt {
  VTerm *vt;
  VTermScreen *scr;
  int rows, cols;
  char **sb; /* scrollback lines, oldest first */
  size_t nsb;
} vt;

static char *cells_text(const VTermScreenCell *cells, int n) {
  zbuf b = ZBUF_INIT;
  for (int i = 0; i < n; i++) {
    const VTermScreenCell *c = &cells[i];
    if (c->chars[0] == 0) {
      zbuf_addch(&b, ' ');
      continue;
    }
    if (c->chars[0] == (uint32_t)-1) continue;
    for (int k = 0; k < VTERM_MAX_CHARS_PER_CELL && c->chars[k]; k++) {
      char u[8];
      int len = 0;
      uint32_t cp = c->chars[k];
      if (cp < 0x80) u[len++] = (char)cp;
      else if (cp < 0x800) { u[len++] = (char)(0xc0 | (cp >> 6)); u[len++] = (char)(0x80 | (cp & 63)); }
      else if (cp < 0x10000) { u[len++] = (char)(0xe0 | (cp >> 12)); u[len++] = (char)(0x80 | ((cp >> 6) & 63)); u[len++] = (char)(0x80 | (cp & 63)); }
      else { u[len++] = (char)(0xf0 | (cp >> 18)); u[len++] = (char)(0x80 | ((cp >> 12) & 63)); u[len++] = (char)(0x80 | ((cp >> 6) & 63)); u[len++] = (char)(0x80 | (cp & 63)); }
      zbuf_add(&b, u, (size_t)len);
    }
    if (c->width == 2) i++;
  }
  zbuf_rtrim(&b);
  return zbuf_detach(&b, NULL);
}

static int sb_push(int cols, const VTermScreenCell *cells, void *user) {
  vt *t = user;
  t->sb = xrealloc(t->sb, (t->nsb + 1) * sizeof *t->sb);
  t->sb[t->nsb++] = cells_text(cells, cols);
  return 1;
}

static const VTermScreenCallbacks CBS = {.sb_pushline = sb_push};

static void vt_open(vt *t, int rows, int cols) {
  memset(t, 0, sizeof *t);
  t->rows = rows;
  t->cols = cols;
  t->vt = vterm_new(rows, cols);
  vterm_set_utf8(t->vt, 1);
  t->scr = vterm_obtain_screen(t->vt);
  vterm_screen_set_callbacks(t->scr, &CBS, t);
  vterm_screen_reset(t->scr, 1);
}

static void vt_close(vt *t) {
  for (size_t i = 0; i < t->nsb; i++) free(t->sb[i]);
  free(t->sb);
  vterm_free(t->vt);
}

static void vt_feed(vt *t, zbuf *out) {
  vterm_input_write(t->vt, out->data, out->len);
  zbuf_reset(out);
}

static char *vt_row(vt *t, int row) {
  VTermScreenCell *cells = xcalloc((size_t)t->cols, sizeof *cells);
  for (int c = 0; c < t->cols; c++) vterm_screen_get_cell(t->scr, (VTermPos){row, c}, &cells[c]);
  char *s = cells_text(cells, t->cols);
  free(cells);
  return s;
}

/* Scrollback + screen as one text, rows joined by '\n'. */
static char *vt_all(vt *t) {
  zbuf b = ZBUF_INIT;
  for (size_t i = 0; i < t->nsb; i++) zbuf_addf(&b, "%s\n", t->sb[i]);
  for (int r = 0; r < t->rows; r++) {
    char *s = vt_row(t, r);
    zbuf_addf(&b, "%s\n", s);
    free(s);
  }
  return zbuf_detach(&b, NULL);
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

static void frame(tui_app *a, vt *t) {
  tui_app_render(a);
  vt_feed(t, &a->scr.out);
}

static void text_event(tui_app *a, const char *s, size_t n) {
  zagent_event ev = {.kind = ZAEV_TEXT, .delta = {.text = s, .len = n}};
  tui_app_event(a, &ev);
}

static const char DOC[] =
    "# Release notes\n\nThis release makes **everything** faster and adds `zero --resume`.\n\n"
    "- first item\n- second item with more words than fit on one line of this narrow screen\n\n"
    "```c\nint main(void) { return 0; }\n```\n\n| name | value |\n|------|-------|\n| a    | 1     |\n\n"
    "> a quote\n\nThe end.";

static void streaming_markdown_lands_in_scrollback_without_garbage(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 12, 50);
  tui_app a;
  tui_app_init(&a, 50, 12, "dark", TUI_DEPTH_256);
  tui_app_turn_start(&a, 0);
  frame(&a, &t);
  /* one byte at a time, a frame after each */
  for (size_t i = 0; i < sizeof DOC - 1; i++) {
    text_event(&a, DOC + i, 1);
    frame(&a, &t);
  }
  zagent_event am = {.kind = ZAEV_ASSISTANT_MESSAGE,
                     .assistant_message = {.text = DOC, .len = sizeof DOC - 1}};
  tui_app_event(&a, &am);
  tui_app_turn_end(&a, NULL);
  frame(&a, &t);
  char *all = vt_all(&t);
  if (getenv("SHOW")) fprintf(stderr, "%s", all);
  assert_int_equal(count(all, "# Release notes"), 1);
  assert_non_null(strstr(all, "This release makes everything faster and adds"));
  assert_int_equal(count(all, "• first item"), 1);
  assert_non_null(strstr(all, "  int main(void) { return 0; }"));
  assert_non_null(strstr(all, "name │ value"));
  assert_non_null(strstr(all, "│ a quote"));
  assert_int_equal(count(all, "The end."), 1);
  /* the composer and the status line exist once, at the bottom */
  assert_int_equal(count(all, "Ask anything"), 1);
  char *last = vt_row(&t, 11);
  assert_non_null(strstr(last, "ask mode"));
  free(last);
  /* streamed rendering equals rendering the whole document at once */
  tw_lines once = {0};
  tui_theme th;
  tui_theme_init(&th, "dark", TUI_DEPTH_NONE);
  tui_md_render(DOC, sizeof DOC - 1, 50, &th, &once);
  for (size_t i = 0; i < once.len; i++) {
    /* strip escapes */
    zbuf plain = ZBUF_INIT;
    for (const char *p = once.items[i]; *p; p++) {
      if (*p == '\x1b') { while (*p && *p != 'm') p++; continue; }
      zbuf_addch(&plain, *p);
    }
    zbuf_rtrim(&plain);
    if (plain.len) assert_non_null(strstr(all, plain.data));
    zbuf_release(&plain);
  }
  tw_lines_free(&once);
  free(all);
  tui_app_release(&a);
  vt_close(&t);
}

static void wide_characters_wrap_without_splitting(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 10, 21);
  tui_app a;
  tui_app_init(&a, 21, 10, "dark", TUI_DEPTH_16);
  const char *msg = "日本語のテキストと絵文字🎉🎉を含む長い文 e\xCC\x81t\xC3\xA9 done";
  tui_app_print(&a, "", msg);
  frame(&a, &t);
  /* every grid row fits, and no wide character was cut in half */
  char *all = vt_all(&t);
  zbuf joined = ZBUF_INIT;
  for (const char *p = all; *p; p++)
    if (*p != '\n' && *p != ' ') zbuf_addch(&joined, *p);
  zbuf want = ZBUF_INIT;
  for (const char *p = msg; *p; p++)
    if (*p != ' ') zbuf_addch(&want, *p);
  assert_non_null(strstr(joined.data, want.data));
  for (size_t i = 0; i < t.nsb; i++) assert_true(tw_strwidth(t.sb[i]) <= 21);
  zbuf_release(&joined);
  zbuf_release(&want);
  free(all);
  tui_app_release(&a);
  vt_close(&t);
}

static void resize_mid_stream_redraws_cleanly(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 14, 60);
  tui_app a;
  tui_app_init(&a, 60, 14, "dark", TUI_DEPTH_NONE);
  tui_app_turn_start(&a, 0);
  const char *p1 = "A first paragraph that is long enough to wrap on a narrow screen.\n\nSecond ";
  const char *p2 = "paragraph keeps streaming after the resize and ends here.";
  for (const char *p = p1; *p; p++) {
    text_event(&a, p, 1);
    frame(&a, &t);
  }
  vterm_set_size(t.vt, 14, 30);
  t.cols = 30;
  tui_app_resize(&a, 30, 14);
  frame(&a, &t);
  for (const char *p = p2; *p; p++) {
    text_event(&a, p, 1);
    frame(&a, &t);
  }
  char *all = vt_all(&t);
  /* the unfinished paragraph was re-rendered for 30 columns, once */
  if (getenv("SHOW")) fprintf(stderr, "%s", all);
  assert_int_equal(count(all, "Second paragraph keeps"), 1);
  assert_int_equal(count(all, "Working"), 1);
  assert_int_equal(count(all, "Type to queue"), 1);
  for (int r = 0; r < t.rows; r++) {
    char *row = vt_row(&t, r);
    assert_true(tw_strwidth(row) <= 30);
    free(row);
  }
  free(all);
  tui_app_release(&a);
  vt_close(&t);
}

static void permission_prompt_defaults_to_deny_and_answers(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 24, 80);
  tui_app a;
  tui_app_init(&a, 80, 24, "dark", TUI_DEPTH_TRUE);
  tui_app_turn_start(&a, 0);
  zagent_event tc = {.kind = ZAEV_TOOL_CALL,
                     .tool_call = {.id = "c1",
                                   .name = "edit_file",
                                   .arguments = "{\"path\":\"src/a.c\",\"old_string\":\"int x = "
                                                "1;\",\"new_string\":\"int x = 2;\"}"}};
  tui_app_event(&a, &tc);
  tui_ask q = {.tool = "edit_file",
               .side = ZSIDE_WRITE,
               .arguments = tc.tool_call.arguments,
               .reason = "file changes need approval in ask mode",
               .workspace = "/work",
               .code = "needs_approval",
               .can_remember = true,
               .grant_kind = ZGRANT_PATH,
               .grant_value = "/work/src/a.c",
               .grants_file = "/home/u/.config/zero/sandbox-grants.json"};
  tui_app_ask(&a, &q);
  frame(&a, &t);
  char *all = vt_all(&t);
  assert_non_null(strstr(all, "Permission needed: edit_file wants to write src/a.c"));
  assert_non_null(strstr(all, "cwd: /work"));
  assert_non_null(strstr(all, "why asking: file changes need approval"));
  assert_non_null(strstr(all, "- int x = 1;"));
  assert_non_null(strstr(all, "+ int x = 2;"));
  assert_non_null(strstr(all, "› 1. Deny"));
  free(all);
  /* the cursor is hidden while the prompt has focus */
  VTermState *st = vterm_obtain_state(t.vt);
  VTermValue v;
  vterm_state_get_penattr(st, VTERM_ATTR_BOLD, &v);
  (void)v;
  /* Enter on the default choice denies */
  tui_key k = {.type = TK_ENTER};
  char *text = NULL;
  assert_int_equal(tui_app_key(&a, &k, &text), TUI_ACT_PERMISSION);
  assert_int_equal(a.prompt.answer, ZPERM_DENY);
  /* a second prompt: Down, Down selects "allow for this session" */
  tui_app_ask(&a, &q);
  tui_key down = {.type = TK_DOWN};
  assert_int_equal(tui_app_key(&a, &down, &text), TUI_ACT_NONE);
  assert_int_equal(tui_app_key(&a, &down, &text), TUI_ACT_NONE);
  frame(&a, &t);
  all = vt_all(&t);
  assert_non_null(strstr(all, "› 3. Allow for this session: edit_file on /work/src/a.c"));
  free(all);
  assert_int_equal(tui_app_key(&a, &k, &text), TUI_ACT_PERMISSION);
  assert_int_equal(a.prompt.answer, ZPERM_ALLOW);
  assert_int_equal(a.prompt.scope, TUI_PERM_SESSION);
  /* "p": always, remembered and saved */
  tui_app_ask(&a, &q);
  tui_key pk = {.type = TK_CHAR, .ch = 'p', .utf8 = "p"};
  assert_int_equal(tui_app_key(&a, &pk, &text), TUI_ACT_PERMISSION);
  assert_int_equal(a.prompt.answer, ZPERM_ALLOW);
  assert_int_equal(a.prompt.scope, TUI_PERM_ALWAYS);
  /* deny with a note: the fifth choice */
  tui_app_ask(&a, &q);
  tui_key d = {.type = TK_CHAR, .ch = 'd', .utf8 = "d"};
  assert_int_equal(tui_app_key(&a, &d, &text), TUI_ACT_NONE);
  const char *note = "use x=3";
  for (const char *p = note; *p; p++) {
    tui_key ch = {.type = TK_CHAR, .ch = (uint32_t)*p, .utf8 = {*p}};
    tui_app_key(&a, &ch, &text);
  }
  assert_int_equal(tui_app_key(&a, &k, &text), TUI_ACT_PERMISSION);
  assert_int_equal(a.prompt.answer, ZPERM_DENY);
  assert_string_equal(a.prompt.note.data, "use x=3");
  tui_app_release(&a);
  vt_close(&t);
}

static void permission_prompt_names_the_always_grant_for_a_command(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 30, 80);
  tui_app a;
  tui_app_init(&a, 80, 30, "dark", TUI_DEPTH_TRUE);
  tui_app_turn_start(&a, 0);
  const char *args = "{\"cmd\":\"git push origin main\"}";
  tui_ask q = {.tool = "exec_command", .side = ZSIDE_SHELL, .arguments = args,
               .reason = "network access needs approval", .workspace = "/work",
               .code = "network", .escalate_network = true, .can_remember = true,
               .grant_kind = ZGRANT_PREFIX, .grant_value = "git push",
               .grants_file = "/home/u/.config/zero/sandbox-grants.json"};
  tui_app_ask(&a, &q);
  frame(&a, &t);
  char *all = vt_all(&t);
  assert_non_null(strstr(all, "exec_command wants to run git push origin main"));
  assert_non_null(strstr(all, "risk: medium"));
  assert_non_null(strstr(all, "with network access"));
  assert_non_null(strstr(all, "› 1. Deny"));
  assert_non_null(strstr(all, "4. Always allow (saved): commands starting with `git push` (p)"));
  assert_null(strstr(all, "Saved to /home/u"));
  free(all);
  /* moving the focus onto "always" says where it is saved */
  char *text = NULL;
  tui_key down = {.type = TK_DOWN};
  for (int i = 0; i < 3; i++) tui_app_key(&a, &down, &text);
  frame(&a, &t);
  all = vt_all(&t);
  assert_non_null(strstr(all, "› 4. Always allow (saved)"));
  assert_non_null(strstr(all, "Saved to /home/u/.config/zero/sandbox-grants.json"));
  free(all);
  tui_key enter = {.type = TK_ENTER};
  assert_int_equal(tui_app_key(&a, &enter, &text), TUI_ACT_PERMISSION);
  assert_int_equal(a.prompt.scope, TUI_PERM_ALWAYS);
  assert_int_equal(a.prompt.answer, ZPERM_ALLOW);

  /* a destructive command the engine cannot narrow: only once is offered */
  const char *args2 = "{\"cmd\":\"rm -rf build | tee x\"}";
  tui_ask q2 = {.tool = "exec_command", .side = ZSIDE_SHELL, .arguments = args2,
                .reason = "destructive", .workspace = "/work", .code = "destructive",
                .can_remember = false};
  tui_app_ask(&a, &q2);
  frame(&a, &t);
  all = vt_all(&t);
  assert_non_null(strstr(all, "risk: high"));
  assert_non_null(strstr(all, "can only be allowed once"));
  assert_null(strstr(all, "Always allow"));
  assert_null(strstr(all, "Allow for this session"));
  assert_non_null(strstr(all, "3. Deny and tell the model why (d)"));
  free(all);
  /* "p" and "a" do nothing here; Esc denies */
  tui_key p = {.type = TK_CHAR, .ch = 'p', .utf8 = "p"};
  assert_int_equal(tui_app_key(&a, &p, &text), TUI_ACT_NONE);
  tui_key esc = {.type = TK_ESC};
  assert_int_equal(tui_app_key(&a, &esc, &text), TUI_ACT_PERMISSION);
  assert_int_equal(a.prompt.answer, ZPERM_DENY);
  tui_app_release(&a);
  vt_close(&t);
}

static void compaction_event_says_what_it_reclaimed(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 10, 80);
  tui_app a;
  tui_app_init(&a, 80, 10, "dark", TUI_DEPTH_TRUE);
  tui_app_turn_start(&a, 0);
  zagent_event ev = {.kind = ZAEV_COMPACTION,
                     .compaction = {.method = "summary",
                                    .reason = "threshold",
                                    .tokens_before = 91000,
                                    .tokens_after = 12000}};
  tui_app_event(&a, &ev);
  frame(&a, &t);
  char *all = vt_all(&t);
  assert_non_null(strstr(all, "↻ Context compacted (summary, threshold): ~91000 → ~12000 tokens"));
  free(all);
  tui_app_release(&a);
  vt_close(&t);
}

/* An applied patch's card shows every file it touched as a diff, removal
 * before addition, numbered with the file's real lines (regression: the
 * card said only "Success. … M calc.sh"). */
static void patch_card_shows_every_file_with_real_line_numbers(void **state) {
  (void)state;
  char ws[] = "/tmp/zero-tui-patch-XXXXXX";
  assert_non_null(mkdtemp(ws));
  char calc[64], added[64];
  snprintf(calc, sizeof calc, "%s/calc.sh", ws);
  snprintf(added, sizeof added, "%s/new.txt", ws);
  /* the files as the patch left them */
  FILE *f = fopen(calc, "w");
  assert_non_null(f);
  fputs("#!/bin/sh\n# one\n# two\n# three\n# four\n# five\necho $((2 + 2))\n", f);
  fclose(f);
  f = fopen(added, "w");
  assert_non_null(f);
  fputs("hello\n", f);
  fclose(f);
  vt t;
  vt_open(&t, 30, 80);
  tui_app a;
  tui_app_init(&a, 80, 30, "dark", TUI_DEPTH_NONE);
  tui_app_turn_start(&a, 0);
  const char *args = "{\"input\":\"*** Begin Patch\\n*** Update File: calc.sh\\n@@\\n # five\\n"
                     "-echo $((1 + 1))\\n+echo $((2 + 2))\\n*** Add File: new.txt\\n+hello\\n"
                     "*** End Patch\\n\"}";
  zagent_event tc = {.kind = ZAEV_TOOL_CALL,
                     .tool_call = {.id = "p1", .name = "apply_patch", .arguments = args}};
  tui_app_event(&a, &tc);
  json_t *meta = json_pack("{s:[{s:s, s:s}, {s:s, s:s}]}", "files", "op", "M", "path", calc, "op",
                           "A", "path", added);
  const char *out = "Success. Updated the following files:\nM calc.sh\nA new.txt";
  zagent_event res = {.kind = ZAEV_TOOL_RESULT,
                      .tool_result = {.id = "p1",
                                      .name = "apply_patch",
                                      .ok = true,
                                      .output = out,
                                      .output_len = strlen(out),
                                      .meta = meta}};
  tui_app_event(&a, &res);
  tui_app_turn_end(&a, NULL);
  frame(&a, &t);
  char *all = vt_all(&t);
  assert_non_null(strstr(all, "M calc.sh  +1 -1"));
  assert_non_null(strstr(all, "A new.txt  +1 -0"));
  const char *minus = strstr(all, "7 - echo $((1 + 1))");
  const char *plus = strstr(all, "7 + echo $((2 + 2))");
  assert_non_null(minus);
  assert_non_null(plus);
  assert_true(minus < plus);
  assert_non_null(strstr(all, "6   # five"));
  assert_non_null(strstr(all, "1 + hello"));
  free(all);
  json_decref(meta);
  tui_app_release(&a);
  vt_close(&t);
  assert_int_equal(zfs_remove_tree(ws), 0);
}

/* The edit_file prompt numbers the diff with the file's real lines
 * (regression: it numbered from 1 wherever the edit was), removal first. */
static void permission_prompt_for_an_edit_numbers_the_real_lines(void **state) {
  (void)state;
  char ws[] = "/tmp/zero-tui-edit-XXXXXX";
  assert_non_null(mkdtemp(ws));
  char path[64];
  snprintf(path, sizeof path, "%s/calc.sh", ws);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("#!/bin/sh\n# one\n# two\n# three\n# four\n# five\necho $((1 + 1))\n", f);
  fclose(f);
  vt t;
  vt_open(&t, 24, 80);
  tui_app a;
  tui_app_init(&a, 80, 24, "dark", TUI_DEPTH_NONE);
  tui_app_turn_start(&a, 0);
  tui_ask q = {.tool = "edit_file",
               .side = ZSIDE_WRITE,
               .arguments = "{\"path\":\"calc.sh\",\"old_string\":\"echo $((1 + 1))\","
                            "\"new_string\":\"echo $((2 + 2))\"}",
               .reason = "file changes need approval in ask mode",
               .workspace = ws};
  tui_app_ask(&a, &q);
  frame(&a, &t);
  char *all = vt_all(&t);
  const char *minus = strstr(all, "7 - echo $((1 + 1))");
  const char *plus = strstr(all, "7 + echo $((2 + 2))");
  assert_non_null(minus);
  assert_non_null(plus);
  assert_true(minus < plus);
  assert_null(strstr(all, "1 - echo"));
  free(all);
  tui_app_release(&a);
  vt_close(&t);
  assert_int_equal(zfs_remove_tree(ws), 0);
}

static void permission_prompt_for_a_patch_names_its_files_and_changes(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 30, 80);
  tui_app a;
  tui_app_init(&a, 80, 30, "dark", TUI_DEPTH_TRUE);
  tui_app_turn_start(&a, 0);
  const char *args =
      "{\"input\":\"*** Begin Patch\\n*** Update File: src/a.c\\n@@ int main\\n-  return 1;\\n"
      "+  return 0;\\n*** Add File: src/b.c\\n+int b;\\n*** End Patch\\n\"}";
  tui_ask q = {.tool = "apply_patch", .side = ZSIDE_WRITE, .arguments = args,
               .reason = "file changes need approval in ask mode", .workspace = "/work",
               .can_remember = true, .grant_kind = ZGRANT_TOOL, .grant_value = ""};
  tui_app_ask(&a, &q);
  frame(&a, &t);
  char *all = vt_all(&t);
  assert_non_null(strstr(all, "apply_patch wants to write update src/a.c, add src/b.c"));
  assert_non_null(strstr(all, "*** Update File: src/a.c"));
  assert_non_null(strstr(all, "-  return 1;"));
  assert_non_null(strstr(all, "+  return 0;"));
  assert_non_null(strstr(all, "+int b;"));
  assert_null(strstr(all, "Begin Patch"));
  assert_non_null(strstr(all, "Always allow (saved): every apply_patch call (p)"));
  free(all);
  char *sum = tui_tool_summary("apply_patch", "{\"input\":\"not a patch\"}");
  assert_string_equal(sum, "a patch it could not parse");
  free(sum);
  tui_app_release(&a);
  vt_close(&t);
}

static void composer_shows_a_multiline_paste_and_collapses_a_large_one(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 20, 40);
  tui_app a;
  tui_app_init(&a, 40, 20, "dark", TUI_DEPTH_16);
  const char *paste = "first line\nsecond line\nthird line";
  tui_key k = {.type = TK_PASTE, .paste = paste, .paste_len = strlen(paste)};
  char *text = NULL;
  tui_app_key(&a, &k, &text);
  frame(&a, &t);
  int found = -1;
  for (int r = 0; r < t.rows; r++) {
    char *row = vt_row(&t, r);
    if (!strcmp(row, "› first line")) found = r;
    free(row);
  }
  assert_true(found >= 0);
  char *r2 = vt_row(&t, found + 1), *r3 = vt_row(&t, found + 2);
  assert_string_equal(r2, "  second line");
  assert_string_equal(r3, "  third line");
  free(r2);
  free(r3);
  /* the cursor sits after "third line" */
  VTermPos pos;
  vterm_state_get_cursorpos(vterm_obtain_state(t.vt), &pos);
  assert_int_equal(pos.row, found + 2);
  assert_int_equal(pos.col, 2 + 10);
  /* a 50-line paste becomes a placeholder, expanded when sent */
  zbuf big = ZBUF_INIT;
  for (int i = 0; i < 50; i++) zbuf_addf(&big, "line %d\n", i);
  tui_key kb = {.type = TK_PASTE, .paste = big.data, .paste_len = big.len};
  tui_app_key(&a, &kb, &text);
  frame(&a, &t);
  char *all = vt_all(&t);
  /* 50 lines, each ending in a newline: 50 (not 51) */
  assert_non_null(strstr(all, "[Pasted text #1, 50 lines]"));
  assert_null(strstr(all, "line 49"));
  free(all);
  tui_key enter = {.type = TK_ENTER};
  assert_int_equal(tui_app_key(&a, &enter, &text), TUI_ACT_SUBMIT);
  assert_non_null(strstr(text, "third line"));
  assert_non_null(strstr(text, "line 49"));
  free(text);
  zbuf_release(&big);
  /* Most terminals send a pasted line break as CR (tmux's paste-buffer, xterm,
   * VTE): 12 CR-separated lines collapse too, and are sent with newlines.
   * Regression: only '\n' was counted, so the paste stayed inline, and a
   * large one reached the model with bare CRs. */
  zbuf cr = ZBUF_INIT;
  for (int i = 0; i < 12; i++) zbuf_addf(&cr, "row %d\r", i);
  tui_key kc = {.type = TK_PASTE, .paste = cr.data, .paste_len = cr.len};
  tui_app_key(&a, &kc, &text);
  frame(&a, &t);
  all = vt_all(&t);
  assert_non_null(strstr(all, "[Pasted text #1, 12 lines]"));
  assert_null(strstr(all, "row 11"));
  free(all);
  assert_int_equal(tui_app_key(&a, &enter, &text), TUI_ACT_SUBMIT);
  assert_non_null(strstr(text, "row 0\nrow 1\n"));
  assert_null(strchr(text, '\r'));
  free(text);
  /* the history holds what was sent, not the placeholder: recalling it and
   * sending it again sends the same text */
  tui_key up = {.type = TK_UP};
  tui_app_key(&a, &up, &text);
  assert_non_null(strstr(a.comp.text.data, "row 11"));
  assert_int_equal(tui_app_key(&a, &enter, &text), TUI_ACT_SUBMIT);
  assert_non_null(strstr(text, "row 0\nrow 1\n"));
  assert_null(strstr(text, "[Pasted text"));
  free(text);
  zbuf_release(&cr);
  tui_app_release(&a);
  vt_close(&t);
}

/* The printable text of terminal output: escape sequences (CSI, OSC and
 * two-byte ESC sequences) removed, so a check for a typed character cannot be
 * satisfied by the letter ending a sequence such as ESC[?2026h. */
static char *visible_text(const zbuf *out) {
  zbuf v = ZBUF_INIT;
  for (size_t i = 0; i < out->len; i++) {
    unsigned char c = (unsigned char)out->data[i];
    if (c != 0x1b) {
      if (c >= 0x20) zbuf_addch(&v, (char)c);
      continue;
    }
    if (i + 1 >= out->len) break;
    unsigned char k = (unsigned char)out->data[++i];
    if (k == '[') { /* CSI: parameters and intermediates, then a final 0x40-0x7e */
      while (i + 1 < out->len && !((unsigned char)out->data[i + 1] >= 0x40 &&
                                   (unsigned char)out->data[i + 1] <= 0x7e))
        i++;
      i++;
    } else if (k == ']') { /* OSC: up to BEL or ESC \ */
      while (i + 1 < out->len && out->data[i + 1] != '\a' && out->data[i + 1] != 0x1b) i++;
      i++;
      if (i < out->len && out->data[i] == 0x1b) i++;
    }
  }
  return zbuf_detach(&v, NULL);
}

static void unchanged_frames_write_nothing_and_a_key_rewrites_one_row(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 10, 40);
  tui_app a;
  tui_app_init(&a, 40, 10, "dark", TUI_DEPTH_16);
  frame(&a, &t);
  char *before[10];
  for (int r = 0; r < 10; r++) before[r] = vt_row(&t, r);
  tui_app_render(&a);
  assert_int_equal(a.scr.out.len, 0);
  tui_key k = {.type = TK_CHAR, .ch = 'h', .utf8 = "h"};
  char *text = NULL;
  tui_app_key(&a, &k, &text);
  tui_app_render(&a);
  /* one composer row changed: its text (outside any escape sequence), no
   * other row's content */
  char *seen = visible_text(&a.scr.out);
  assert_non_null(strchr(seen, 'h'));
  assert_null(strstr(seen, "ask mode"));
  free(seen);
  assert_non_null(memmem(a.scr.out.data, a.scr.out.len, "\x1b[?2026h", 8));
  vt_feed(&t, &a.scr.out);
  /* and on the terminal exactly one row changed: the composer's, to the h */
  int changed = 0;
  for (int r = 0; r < 10; r++) {
    char *now = vt_row(&t, r);
    if (strcmp(now, before[r])) {
      changed++;
      assert_string_equal(now, "› h"); /* the placeholder gave way to the h */
    }
    free(now);
    free(before[r]);
  }
  assert_int_equal(changed, 1);
  tui_app_release(&a);
  vt_close(&t);
}

static void picker_filters_and_returns_the_command(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 16, 60);
  tui_app a;
  tui_app_init(&a, 60, 16, "dark", TUI_DEPTH_16);
  const char *labels[] = {"1. fix the parser", "2. bird session", "3. write docs"};
  const char *values[] = {"id_a", "id_b", "id_c"};
  tui_app_picker(&a, "/resume", "Resume a session", labels, values, 3);
  frame(&a, &t);
  char *all = vt_all(&t);
  assert_non_null(strstr(all, "Resume a session"));
  assert_non_null(strstr(all, "› 1. fix the parser"));
  free(all);
  char *text = NULL;
  for (const char *p = "bird"; *p; p++) {
    tui_key k = {.type = TK_CHAR, .ch = (uint32_t)*p, .utf8 = {*p}};
    assert_int_equal(tui_app_key(&a, &k, &text), TUI_ACT_NONE);
  }
  frame(&a, &t);
  all = vt_all(&t);
  assert_non_null(strstr(all, "› 2. bird session"));
  assert_null(strstr(all, "write docs"));
  free(all);
  tui_key enter = {.type = TK_ENTER};
  assert_int_equal(tui_app_key(&a, &enter, &text), TUI_ACT_COMMAND);
  assert_string_equal(text, "/resume id_b");
  free(text);
  assert_false(a.picker.active);
  tui_app_release(&a);
  vt_close(&t);
}

/* A narrow terminal: every row of the prompt fits (long lines wrap instead of
 * being wrapped by the terminal behind the renderer's back), and once the
 * prompt is answered nothing of it is left on the screen. Regression: at 30
 * columns "no command prefix … allowed once" and the key hint overflowed, and
 * a row of the prompt stayed on the screen after it closed. */
static void permission_prompt_fits_a_narrow_terminal_and_leaves_nothing(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 40, 30);
  tui_app a;
  tui_app_init(&a, 30, 40, "dark", TUI_DEPTH_TRUE);
  tui_app_turn_start(&a, 0);
  const char *args = "{\"cmd\":\"echo one && ls -la\"}";
  zagent_event tc = {.kind = ZAEV_TOOL_CALL,
                     .tool_call = {.id = "c1", .name = "exec_command", .arguments = args}};
  tui_app_event(&a, &tc);
  tui_ask q = {.tool = "exec_command", .side = ZSIDE_SHELL, .arguments = args,
               .reason = "commands need approval in ask mode",
               .workspace = "/home/someone/projects/a-rather-long-workspace-name",
               .code = "needs_approval", .can_remember = false};
  tui_app_ask(&a, &q);
  frame(&a, &t);
  for (int r = 0; r < t.rows; r++) {
    char *row = vt_row(&t, r);
    /* nothing reaches the last column: the terminal never wrapped a row */
    assert_true(tw_strwidth(row) <= 30);
    free(row);
  }
  char *all = vt_all(&t);
  assert_non_null(strstr(all, "allowed once"));
  assert_non_null(strstr(all, "Esc deny"));
  assert_non_null(strstr(all, "/home/someone/projects/a-r"));
  assert_non_null(strstr(all, "ather-long-workspace-name"));
  free(all);
  tui_key k = {.type = TK_ENTER};
  char *text = NULL;
  assert_int_equal(tui_app_key(&a, &k, &text), TUI_ACT_PERMISSION);
  zagent_event res = {.kind = ZAEV_TOOL_RESULT,
                      .tool_result = {.id = "c1",
                                      .name = "exec_command",
                                      .ok = false,
                                      .output = "permission denied",
                                      .output_len = 17}};
  tui_app_event(&a, &res);
  tui_app_turn_end(&a, NULL);
  frame(&a, &t);
  all = vt_all(&t);
  assert_null(strstr(all, "why asking"));
  assert_null(strstr(all, "Esc deny"));
  assert_null(strstr(all, "workspace-name"));
  free(all);
  tui_app_release(&a);
  vt_close(&t);
}

/* The renderer's safety net: a live row wider than the terminal (laid out
 * before a resize, say) is cut to the width, so the next frame still knows
 * where every row is. */
static void over_wide_live_rows_are_cut_not_wrapped(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 10, 20);
  tui_screen s;
  tui_screen_init(&s, 20, 10);
  char *wide[] = {"0123456789abcdefghijKLMNOP", "second row", "三四五六七八九十一二三四"};
  tui_screen_frame(&s, NULL, 0, wide, 3, 1, 3);
  vt_feed(&t, &s.out);
  char *r0 = vt_row(&t, 0), *r1 = vt_row(&t, 1), *r2 = vt_row(&t, 2);
  assert_string_equal(r0, "0123456789abcdefghi…");
  assert_string_equal(r1, "second row");
  assert_string_equal(r2, "三四五六七八九十一…");
  free(r0), free(r1), free(r2);
  char *small[] = {"only"};
  tui_screen_frame(&s, NULL, 0, small, 1, 0, 4);
  vt_feed(&t, &s.out);
  char *all = vt_all(&t);
  assert_null(strstr(all, "KLMNOP"));
  assert_null(strstr(all, "second"));
  assert_null(strstr(all, "三四"));
  assert_non_null(strstr(all, "only"));
  free(all);
  tui_screen_release(&s);
  vt_close(&t);
}

static void type_text(tui_app *a, const char *s) {
  char *text = NULL;
  for (const char *p = s; *p; p++) {
    tui_key k = {.type = TK_CHAR, .ch = (uint32_t)*p, .utf8 = {*p}};
    tui_app_key(a, &k, &text);
  }
}

/* "/" alone lists the commands (regression: an empty filter matched nothing,
 * so the list only appeared after a letter), in the table's order, in a
 * window that scrolls with the selection to the last command. */
static void slash_alone_lists_the_commands_and_the_list_scrolls(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 24, 80);
  tui_app a;
  tui_app_init(&a, 80, 24, "dark", TUI_DEPTH_16);
  type_text(&a, "/");
  frame(&a, &t);
  char *all = vt_all(&t);
  assert_non_null(strstr(all, "› /help"));
  assert_non_null(strstr(all, "  /model"));
  assert_non_null(strstr(all, "more"));
  assert_null(strstr(all, "/quit"));
  free(all);
  char *text = NULL;
  tui_key up = {.type = TK_UP};
  tui_app_key(&a, &up, &text); /* wraps around to the last: /quit */
  frame(&a, &t);
  all = vt_all(&t);
  assert_non_null(strstr(all, "› /quit"));
  assert_null(strstr(all, "keys and commands")); /* /help scrolled out */
  char more[32]; /* the menu shows 8 rows: the rest scrolled out above */
  snprintf(more, sizeof more, "↑ %zu more", tui_ncommands - 8);
  assert_non_null(strstr(all, more));
  free(all);
  tui_key tab = {.type = TK_TAB};
  tui_app_key(&a, &tab, &text);
  assert_string_equal(a.comp.text.data, "/quit ");
  tui_app_release(&a);
  vt_close(&t);
}

/* Up walks the history through a recalled "/command" (regression: the
 * command's suggestion took Up/Down and the walk stopped there). */
static void history_walk_passes_slash_commands(void **state) {
  (void)state;
  tui_app a;
  tui_app_init(&a, 80, 24, "dark", TUI_DEPTH_16);
  char *text = NULL;
  tui_key enter = {.type = TK_ENTER}, up = {.type = TK_UP}, down = {.type = TK_DOWN};
  type_text(&a, "fix the bug");
  assert_int_equal(tui_app_key(&a, &enter, &text), TUI_ACT_SUBMIT);
  free(text);
  type_text(&a, "/usage");
  assert_int_equal(tui_app_key(&a, &enter, &text), TUI_ACT_COMMAND);
  free(text);
  tui_app_key(&a, &up, &text);
  assert_string_equal(a.comp.text.data, "/usage");
  tui_app_key(&a, &up, &text);
  assert_string_equal(a.comp.text.data, "fix the bug");
  tui_app_key(&a, &down, &text);
  assert_string_equal(a.comp.text.data, "/usage");
  tui_app_key(&a, &down, &text);
  assert_string_equal(a.comp.text.data, "");
  tui_app_release(&a);
}

/* While an answer streams the status line counts tokens (about 4 bytes each)
 * instead of showing 0 until the provider's usage report; the report then
 * replaces the estimate. */
static void status_line_counts_tokens_while_streaming(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 12, 80);
  tui_app a;
  tui_app_init(&a, 80, 12, "dark", TUI_DEPTH_16);
  tui_app_turn_start(&a, 0);
  const char *s = "forty bytes of streamed text, 4 a token.";
  text_event(&a, s, strlen(s));
  frame(&a, &t);
  char *all = vt_all(&t);
  assert_non_null(strstr(all, "· 10 tokens · Esc to cancel"));
  free(all);
  zagent_event u = {
      .kind = ZAEV_USAGE,
      .usage = {.tokens = {.prompt_tokens = 100, .completion_tokens = 7, .total_tokens = 107}}};
  tui_app_event(&a, &u);
  frame(&a, &t);
  all = vt_all(&t);
  assert_non_null(strstr(all, "· 7 tokens · Esc to cancel"));
  free(all);
  tui_app_release(&a);
  vt_close(&t);
}

/* A terminal too short for the whole prompt: the diff gives way, the title,
 * cwd, reason and risk stay in view with the choices (regression: the
 * renderer kept the bottom rows, so in 80x15 the prompt lost its title and
 * asked without saying what for). */
static void permission_prompt_in_a_short_terminal_keeps_its_title(void **state) {
  (void)state;
  vt t;
  vt_open(&t, 15, 80);
  tui_app a;
  tui_app_init(&a, 80, 15, "dark", TUI_DEPTH_16);
  tui_app_turn_start(&a, 0);
  const char *args = "{\"path\":\"notes.txt\",\"content\":\"1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n10\\n\"}";
  zagent_event tc = {.kind = ZAEV_TOOL_CALL,
                     .tool_call = {.id = "c1", .name = "write_file", .arguments = args}};
  tui_app_event(&a, &tc);
  tui_ask q = {.tool = "write_file", .side = ZSIDE_WRITE, .arguments = args,
               .reason = "file changes need approval in ask mode", .workspace = "/work",
               .code = "needs_approval", .can_remember = true, .grant_kind = ZGRANT_PATH,
               .grant_value = "/work/notes.txt"};
  tui_app_ask(&a, &q);
  frame(&a, &t);
  char *all = vt_all(&t);
  assert_non_null(strstr(all, "Permission needed: write_file wants to write notes.txt"));
  assert_non_null(strstr(all, "cwd: /work"));
  assert_non_null(strstr(all, "risk: medium"));
  assert_non_null(strstr(all, "a taller terminal shows them"));
  assert_non_null(strstr(all, "› 1. Deny"));
  assert_non_null(strstr(all, "5. Deny and tell the model why"));
  free(all);
  /* taller again: the whole diff is back */
  vterm_set_size(t.vt, 40, 80);
  t.rows = 40;
  tui_app_resize(&a, 80, 40);
  frame(&a, &t);
  all = vt_all(&t);
  assert_non_null(strstr(all, "8 + 8"));
  assert_null(strstr(all, "a taller terminal shows them"));
  free(all);
  tui_app_release(&a);
  vt_close(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(streaming_markdown_lands_in_scrollback_without_garbage),
      cmocka_unit_test(wide_characters_wrap_without_splitting),
      cmocka_unit_test(resize_mid_stream_redraws_cleanly),
      cmocka_unit_test(permission_prompt_defaults_to_deny_and_answers),
      cmocka_unit_test(permission_prompt_names_the_always_grant_for_a_command),
      cmocka_unit_test(compaction_event_says_what_it_reclaimed),
      cmocka_unit_test(permission_prompt_for_an_edit_numbers_the_real_lines),
      cmocka_unit_test(patch_card_shows_every_file_with_real_line_numbers),
      cmocka_unit_test(permission_prompt_for_a_patch_names_its_files_and_changes),
      cmocka_unit_test(composer_shows_a_multiline_paste_and_collapses_a_large_one),
      cmocka_unit_test(unchanged_frames_write_nothing_and_a_key_rewrites_one_row),
      cmocka_unit_test(picker_filters_and_returns_the_command),
      cmocka_unit_test(permission_prompt_fits_a_narrow_terminal_and_leaves_nothing),
      cmocka_unit_test(over_wide_live_rows_are_cut_not_wrapped),
      cmocka_unit_test(slash_alone_lists_the_commands_and_the_list_scrolls),
      cmocka_unit_test(history_walk_passes_slash_commands),
      cmocka_unit_test(status_line_counts_tokens_while_streaming),
      cmocka_unit_test(permission_prompt_in_a_short_terminal_keeps_its_title),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
