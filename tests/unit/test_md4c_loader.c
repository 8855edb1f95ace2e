/* test_md4c_loader.c — md_parse through the loader (libmd4c dlopen'ed on
 * first use) and the plain-text fallback used when it cannot be loaded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "ui/tui/md4c_loader.h"

typedef struct rec {
  char log[512];
  int stop_at_text; /* return this from the text callback (0 = go on) */
} rec;

static void logf_(rec *r, const char *s) { strncat(r->log, s, sizeof r->log - strlen(r->log) - 1); }

static int enter_b(MD_BLOCKTYPE t, void *d, void *ud) {
  (void)d;
  logf_(ud, t == MD_BLOCK_DOC ? "<doc>" : t == MD_BLOCK_P ? "<p>" : t == MD_BLOCK_H ? "<h>" : "<?>");
  return 0;
}
static int leave_b(MD_BLOCKTYPE t, void *d, void *ud) {
  (void)d;
  logf_(ud, t == MD_BLOCK_DOC ? "</doc>" : t == MD_BLOCK_P ? "</p>" : t == MD_BLOCK_H ? "</h>" : "</?>");
  return 0;
}
static int span(MD_SPANTYPE t, void *d, void *ud) {
  (void)d;
  logf_(ud, t == MD_SPAN_STRONG ? "*" : "~");
  return 0;
}
static int text(MD_TEXTTYPE t, const MD_CHAR *s, MD_SIZE n, void *ud) {
  rec *r = ud;
  if (t == MD_TEXT_BR) logf_(r, "|");
  else {
    char b[128];
    snprintf(b, sizeof b, "[%.*s]", (int)n, s);
    logf_(r, b);
  }
  return r->stop_at_text;
}

static MD_PARSER parser(void) {
  MD_PARSER p = {0};
  p.flags = MD_DIALECT_GITHUB;
  p.enter_block = enter_b;
  p.leave_block = leave_b;
  p.enter_span = span;
  p.leave_span = span;
  p.text = text;
  return p;
}

/* The real library (installed with zero) is found and parses markdown. */
static void test_loaded_parses_markdown(void **state) {
  (void)state;
  rec r = {0};
  MD_PARSER p = parser();
  const char *src = "# T\n\nsome **bold**\n";
  assert_int_equal(md_parse(src, (MD_SIZE)strlen(src), &p, &r), 0);
  assert_string_equal(r.log, "<doc><h>[T]</h><p>[some ]*[bold]*</p></doc>");
}

/* Without the library: one paragraph of the raw lines, hard breaks between. */
static void test_plain_fallback(void **state) {
  (void)state;
  rec r = {0};
  MD_PARSER p = parser();
  const char *src = "# T\n\nsome **bold**\n";
  assert_int_equal(zmd_parse_plain(src, (MD_SIZE)strlen(src), &p, &r), 0);
  assert_string_equal(r.log, "<doc><p>[# T]||[some **bold**]</p></doc>");
  memset(&r, 0, sizeof r);
  assert_int_equal(zmd_parse_plain("", 0, &p, &r), 0);
  assert_string_equal(r.log, "<doc><p></p></doc>");
  /* A callback's non-zero result stops the walk and is returned. */
  memset(&r, 0, sizeof r);
  r.stop_at_text = 7;
  assert_int_equal(zmd_parse_plain("a\nb", 3, &p, &r), 7);
  assert_string_equal(r.log, "<doc><p>[a]");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_loaded_parses_markdown),
      cmocka_unit_test(test_plain_fallback),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
