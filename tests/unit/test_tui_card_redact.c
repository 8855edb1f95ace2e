/* test_tui_card_redact.c — a tool card's title never shows a secret the
 * model put in a command line (regression, issue 22: the running and the
 * finished card, and the permission prompt, showed the command as written).
 * Checked on a real terminal emulator (libvterm): the key is nowhere on the
 * screen or in its scrollback. */
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
#include "base/secrets.h"
#include "ui/tui/app.h"

#define KEY "sk-proj-Zx8Qw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz"
#define CONFIGURED "hunter2-correct-horse-battery-staple-42"

typedef struct screen {
  VTerm *vt;
  VTermScreen *scr;
  zbuf gone; /* rows scrolled off */
} screen;

static void add_cells(zbuf *b, const VTermScreenCell *cells, int n) {
  for (int i = 0; i < n; i++)
    zbuf_addch(b, cells[i].chars[0] && cells[i].chars[0] < 0x80 ? (char)cells[i].chars[0] : ' ');
  zbuf_addch(b, '\n');
}

static int scrolled(int cols, const VTermScreenCell *cells, void *user) {
  add_cells(&((screen *)user)->gone, cells, cols);
  return 1;
}

static const VTermScreenCallbacks CBS = {.sb_pushline = scrolled};

/* Everything the terminal shows or showed, as ASCII. */
static char *everything(screen *s, int rows, int cols) {
  zbuf b = ZBUF_INIT;
  zbuf_add(&b, s->gone.data ? s->gone.data : "", s->gone.len);
  VTermScreenCell *row = xcalloc((size_t)cols, sizeof *row);
  for (int r = 0; r < rows; r++) {
    for (int c = 0; c < cols; c++) vterm_screen_get_cell(s->scr, (VTermPos){r, c}, &row[c]);
    add_cells(&b, row, cols);
  }
  free(row);
  return zbuf_detach(&b, NULL);
}

static void draw(screen *s, tui_app *a) {
  tui_app_render(a);
  vterm_input_write(s->vt, a->scr.out.data, a->scr.out.len);
  zbuf_reset(&a->scr.out);
}

static void command_card_titles_are_redacted(void **state) {
  (void)state;
  zsecret_add_value(CONFIGURED);   /* a configured secret of this run */
  const int rows = 24, cols = 200; /* wide: nothing is cut by the width */
  screen s = {0};
  zbuf_init(&s.gone);
  s.vt = vterm_new(rows, cols);
  vterm_set_utf8(s.vt, 1);
  s.scr = vterm_obtain_screen(s.vt);
  vterm_screen_set_callbacks(s.scr, &CBS, &s);
  vterm_screen_reset(s.scr, 1);
  tui_app a;
  tui_app_init(&a, cols, rows, "dark", TUI_DEPTH_NONE);
  tui_app_turn_start(&a, 0);
  json_t *args = json_pack("{s:s}", "cmd",
                           "curl -H 'Authorization: Bearer " KEY "' https://api.example.com "
                           "&& DB_PASSWORD=" CONFIGURED " ./migrate");
  char *js = json_dumps(args, 0);
  zagent_event tc = {.kind = ZAEV_TOOL_CALL,
                     .tool_call = {.id = "c1", .name = "exec_command", .arguments = js}};
  tui_app_event(&a, &tc);
  draw(&s, &a); /* the running card */
  char *running = everything(&s, rows, cols);
  assert_non_null(strstr(running, "exec_command curl -H"));
  assert_non_null(strstr(running, "[REDACTED"));
  assert_null(strstr(running, KEY));
  assert_null(strstr(running, CONFIGURED));
  free(running);
  /* the permission prompt names the call with the same summary */
  tui_ask q = {.tool = "exec_command",
               .arguments = js,
               .reason = "runs a command",
               .workspace = "/w",
               .side = ZSIDE_SHELL};
  tui_app_ask(&a, &q);
  draw(&s, &a);
  char *asking = everything(&s, rows, cols);
  assert_non_null(strstr(asking, "Permission needed"));
  assert_null(strstr(asking, KEY));
  assert_null(strstr(asking, CONFIGURED));
  free(asking);
  a.prompt.active = false;
  json_t *meta = json_pack("{s:i}", "exit_code", 0);
  zagent_event res = {.kind = ZAEV_TOOL_RESULT,
                      .tool_result = {.id = "c1",
                                      .name = "exec_command",
                                      .ok = true,
                                      .output = "done",
                                      .output_len = 4,
                                      .meta = meta}};
  tui_app_event(&a, &res);
  tui_app_turn_end(&a, NULL);
  draw(&s, &a); /* the finished card, in the scrollback */
  char *done = everything(&s, rows, cols);
  assert_non_null(strstr(done, "exec_command curl -H"));
  assert_null(strstr(done, KEY));
  assert_null(strstr(done, CONFIGURED));
  free(done);
  /* and the summary itself, which other views use */
  char *sum = tui_tool_summary("exec_command", js);
  assert_null(strstr(sum, KEY));
  assert_non_null(strstr(sum, "./migrate"));
  free(sum);
  json_decref(meta);
  free(js);
  json_decref(args);
  tui_app_release(&a);
  vterm_free(s.vt);
  zbuf_release(&s.gone);
  zsecret_reset();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(command_card_titles_are_redacted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
