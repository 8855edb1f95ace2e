/* test_lsp.c — the language-server client's parts that need no server:
 * the LSP base-protocol framer (lsp/frame.h), the "lsp" config section
 * (lsp/config.h) and file:// URIs (base/url.h). The servers themselves are
 * tested for real in tests/e2e/test_lsp.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/url.h"
#include "lsp/config.h"
#include "lsp/frame.h"

typedef struct got {
  char *bodies[16];
  size_t n;
  int stop_after; /* return 7 after this many bodies (0 = never) */
} got;

static int on_body(void *ud, const char *body, size_t len) {
  got *g = ud;
  assert_true(g->n < 16);
  g->bodies[g->n] = strndup(body, len);
  g->n++;
  return g->stop_after && (int)g->n == g->stop_after ? 7 : 0;
}

static void got_free(got *g) {
  for (size_t i = 0; i < g->n; i++) free(g->bodies[i]);
  memset(g, 0, sizeof *g);
}

/* Every split of a stream into two feeds gives the same messages. */
static void test_framer_any_split(void **state) {
  (void)state;
  const char *s = "Content-Length: 2\r\n\r\n{}"
                  "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
                  "content-length:  14 \r\n\r\n{\"id\":1,\"a\":1}"
                  "Content-Length: 3\n\n[1]"; /* bare LF line ends, as some servers write */
  size_t n = strlen(s);
  for (size_t cut = 0; cut <= n; cut++) {
    zlsp_framer f = ZLSP_FRAMER_INIT;
    got g = {0};
    zerr err = ZERR_INIT;
    assert_int_equal(zlsp_framer_feed(&f, s, cut, on_body, &g, &err), 0);
    assert_int_equal(zlsp_framer_feed(&f, s + cut, n - cut, on_body, &g, &err), 0);
    assert_int_equal(g.n, 3);
    assert_string_equal(g.bodies[0], "{}");
    assert_string_equal(g.bodies[1], "{\"id\":1,\"a\":1}");
    assert_string_equal(g.bodies[2], "[1]");
    assert_int_equal(zlsp_framer_pending(&f), 0);
    got_free(&g);
    zlsp_framer_release(&f);
  }
}

/* A body is exactly Content-Length bytes, whatever it holds (newlines,
 * something that looks like a header), byte by byte. */
static void test_framer_body_is_opaque(void **state) {
  (void)state;
  const char *s = "Content-Length: 25\r\n\r\n\"a\\nContent-Length: 9\r\n\r\n\"";
  zlsp_framer f = ZLSP_FRAMER_INIT;
  got g = {0};
  zerr err = ZERR_INIT;
  for (size_t i = 0; s[i]; i++) assert_int_equal(zlsp_framer_feed(&f, s + i, 1, on_body, &g, &err), 0);
  assert_int_equal(g.n, 1);
  assert_int_equal(strlen(g.bodies[0]), 25);
  got_free(&g);
  zlsp_framer_release(&f);
}

/* A callback's stop value comes back, and the next message stays buffered
 * until the next feed. */
static void test_framer_stop(void **state) {
  (void)state;
  const char *s = "Content-Length: 1\r\n\r\n1Content-Length: 1\r\n\r\n2";
  zlsp_framer f = ZLSP_FRAMER_INIT;
  got g = {.stop_after = 1};
  zerr err = ZERR_INIT;
  assert_int_equal(zlsp_framer_feed(&f, s, strlen(s), on_body, &g, &err), 7);
  assert_int_equal(g.n, 1);
  g.stop_after = 0;
  assert_int_equal(zlsp_framer_feed(&f, "", 0, on_body, &g, &err), 0);
  assert_int_equal(g.n, 2);
  assert_string_equal(g.bodies[1], "2");
  got_free(&g);
  zlsp_framer_release(&f);
}

static void framer_fails(const char *s, size_t max, zerr_kind kind, const char *want) {
  zlsp_framer f = ZLSP_FRAMER_INIT;
  f.max = max;
  got g = {0};
  zerr err = ZERR_INIT;
  assert_int_equal(zlsp_framer_feed(&f, s, strlen(s), on_body, &g, &err), -1);
  assert_int_equal(err.kind, kind);
  if (!strstr(err.msg, want)) fail_msg("error \"%s\" lacks \"%s\"", err.msg, want);
  assert_int_equal(g.n, 0);
  /* It stays failed: the next frame's position is unknowable. */
  zerr again = ZERR_INIT;
  assert_int_equal(zlsp_framer_feed(&f, "Content-Length: 2\r\n\r\n{}", 24, on_body, &g, &again), -1);
  assert_int_equal(g.n, 0);
  zlsp_framer_release(&f);
}

static void test_framer_bad_headers(void **state) {
  (void)state;
  framer_fails("Content-Type: x\r\n\r\n{}", 0, ZE_INVALID, "without Content-Length");
  framer_fails("Content-Length: 1x\r\n\r\n{}", 0, ZE_INVALID, "not a number");
  framer_fails("Content-Length: -1\r\n\r\n{}", 0, ZE_INVALID, "not a number");
  framer_fails("Content-Length:\r\n\r\n{}", 0, ZE_INVALID, "empty");
  framer_fails("Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 0, ZE_INVALID, "twice");
  framer_fails("garbage line\r\n\r\n", 0, ZE_INVALID, "without a colon");
  framer_fails("Content-Length: 100\r\n\r\n{}", 64, ZE_TOO_LARGE, "larger than 64");
  framer_fails("Content-Length: 99999999999999999999999999\r\n\r\n", 0, ZE_TOO_LARGE,
               "larger than");
  /* A header part that never ends is cut off at the cap, not buffered forever. */
  char *big = malloc(ZLSP_MAX_HEADER + 10);
  memset(big, 'a', ZLSP_MAX_HEADER + 9);
  big[ZLSP_MAX_HEADER + 9] = '\0';
  framer_fails(big, 0, ZE_TOO_LARGE, "header part longer");
  free(big);
}

static void test_frame_json(void **state) {
  (void)state;
  json_t *m = json_pack("{s:s}", "method", "é");
  zbuf out = ZBUF_INIT;
  zlsp_frame_json(&out, m);
  /* The length counts bytes (é is two in UTF-8), not characters. */
  assert_string_equal(out.data, "Content-Length: 15\r\n\r\n{\"method\":\"é\"}");
  zlsp_framer f = ZLSP_FRAMER_INIT;
  got g = {0};
  zerr err = ZERR_INIT;
  assert_int_equal(zlsp_framer_feed(&f, out.data, out.len, on_body, &g, &err), 0);
  assert_int_equal(g.n, 1);
  assert_string_equal(g.bodies[0], "{\"method\":\"é\"}");
  got_free(&g);
  zlsp_framer_release(&f);
  zbuf_release(&out);
  json_decref(m);
}

static void test_file_uris(void **state) {
  (void)state;
  char *u = zurl_from_path("/tmp/a b/ü#1.c");
  assert_string_equal(u, "file:///tmp/a%20b/%C3%BC%231.c");
  char *p = zurl_to_path(u);
  assert_string_equal(p, "/tmp/a b/ü#1.c");
  free(u);
  free(p);
  p = zurl_to_path("file://localhost/x%2fy");
  assert_string_equal(p, "/x/y");
  free(p);
  assert_null(zurl_to_path("http://x/y"));
  assert_null(zurl_to_path("file://host/y"));
  assert_null(zurl_to_path("file:///a%00b"));
  assert_null(zurl_to_path("file:///a%zz"));
}

static const zlsp_server_cfg *find(const zlsp_config *c, const char *name) {
  for (size_t i = 0; i < c->n; i++)
    if (!strcmp(c->servers[i].name, name)) return &c->servers[i];
  return NULL;
}

static void test_config_defaults_and_overrides(void **state) {
  (void)state;
  zlsp_config c;
  zlsp_config_defaults(&c);
  const zlsp_server_cfg *clangd = find(&c, "clangd");
  assert_non_null(clangd);
  assert_true(clangd->builtin);
  assert_true(zlsp_server_matches(clangd, "/w/src/a.c"));
  assert_false(zlsp_server_matches(clangd, "/w/src/a.py"));
  assert_string_equal(zlsp_language_id(clangd, "/w/x.cpp"), "cpp");
  assert_string_equal(zlsp_language_id(find(&c, "pyright"), "/w/x.py"), "python");
  assert_int_equal(c.diag_timeout_ms, ZLSP_DIAG_TIMEOUT_MS);

  json_error_t je;
  json_t *lsp = json_loads("{\"diagnosticsTimeoutMs\": 500, \"servers\": {"
                           "\"clangd\": {\"args\": [\"--log=error\"]},"
                           "\"pyright\": {\"disabled\": true},"
                           "\"mine\": {\"command\": \"my-ls\", \"filePatterns\": [\"*.foo\"],"
                           " \"languageId\": \"foo\"}}}",
                           0, &je);
  zerr err = ZERR_INIT;
  assert_int_equal(zlsp_config_apply(&c, lsp, "user.json", true, &err), 0);
  json_decref(lsp);
  clangd = find(&c, "clangd");
  assert_string_equal(clangd->argv[0], "clangd"); /* the command stays */
  assert_string_equal(clangd->argv[1], "--log=error");
  assert_null(clangd->argv[2]);
  assert_false(clangd->builtin); /* named by the user: a missing command is reported */
  assert_true(find(&c, "pyright")->disabled);
  const zlsp_server_cfg *mine = find(&c, "mine");
  assert_non_null(mine);
  assert_true(zlsp_server_matches(mine, "x.foo"));
  assert_string_equal(zlsp_language_id(mine, "x.foo"), "foo");
  assert_int_equal(c.diag_timeout_ms, 500);

  /* An untrusted project file's servers are skipped and named. */
  lsp = json_loads("{\"enabled\": false, \"servers\": {\"evil\": {\"command\": \"sh\","
                   " \"filePatterns\": [\"*\"]}}}",
                   0, &je);
  assert_int_equal(zlsp_config_apply(&c, lsp, "project.json", false, &err), 0);
  json_decref(lsp);
  assert_null(find(&c, "evil"));
  assert_string_equal(c.skipped_untrusted[0], "evil");
  assert_false(c.enabled);
  zlsp_config_release(&c);
}

static void config_fails(const char *text, const char *want) {
  zlsp_config c;
  zlsp_config_defaults(&c);
  json_error_t je;
  json_t *lsp = json_loads(text, 0, &je);
  assert_non_null(lsp);
  zerr err = ZERR_INIT;
  assert_int_equal(zlsp_config_apply(&c, lsp, "cfg.json", true, &err), -1);
  if (!strstr(err.msg, want)) fail_msg("error \"%s\" lacks \"%s\"", err.msg, want);
  assert_non_null(strstr(err.msg, "cfg.json"));
  json_decref(lsp);
  zlsp_config_release(&c);
}

static void test_config_errors(void **state) {
  (void)state;
  config_fails("{\"enabled\": \"yes\"}", "enabled must be true or false");
  config_fails("{\"diagnosticsTimeoutMs\": 0}", "milliseconds");
  config_fails("{\"servers\": []}", "servers must be an object");
  config_fails("{\"servers\": {\"x\": {\"filePatterns\": [\"*.x\"]}}}", "needs a \"command\"");
  config_fails("{\"servers\": {\"x\": {\"command\": \"x\"}}}", "needs \"filePatterns\"");
  config_fails("{\"servers\": {\"x\": {\"command\": \"x\", \"args\": [1],"
               " \"filePatterns\": [\"*.x\"]}}}",
               "non-empty strings");
  config_fails("{\"servers\": {\"clangd\": {\"command\": \"\"}}}", "non-empty string");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_framer_any_split),
      cmocka_unit_test(test_framer_body_is_opaque),
      cmocka_unit_test(test_framer_stop),
      cmocka_unit_test(test_framer_bad_headers),
      cmocka_unit_test(test_frame_json),
      cmocka_unit_test(test_file_uris),
      cmocka_unit_test(test_config_defaults_and_overrides),
      cmocka_unit_test(test_config_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
