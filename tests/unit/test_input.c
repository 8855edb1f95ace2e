/* test_input.c — `-i stream-json` prompt input: accepted lines, how they are
 * joined, and every rejection naming its line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "ui/input.h"

/* Parses s; on success returns the prompt (static buffer, valid until the
 * next call), on failure NULL with *err set. */
static zbuf parsed = ZBUF_INIT;

static const char *parse(const char *s, zerr *err) {
  zbuf_release(&parsed);
  if (zin_stream_json_parse(s, strlen(s), &parsed, err) < 0) return NULL;
  return parsed.data;
}

static int teardown(void **state) {
  (void)state;
  zbuf_release(&parsed);
  return 0;
}

static void test_prompt_and_message_lines_are_joined_with_blank_line(void **state) {
  (void)state;
  zerr err = ZERR_INIT;
  const char *in =
      "{\"schemaVersion\":2,\"type\":\"prompt\",\"content\":\"first\"}\n"
      "{\"schemaVersion\":2,\"type\":\"message\",\"role\":\"user\",\"content\":\"second\"}\n";
  const char *out = parse(in, &err);
  if (!out) fail_msg("%s", err.msg);
  assert_string_equal(out, "first\n\nsecond");
}

static void test_crlf_blank_lines_and_no_final_newline(void **state) {
  (void)state;
  zerr err = ZERR_INIT;
  const char *in =
      "\r\n"
      "   \t \n"
      "{\"schemaVersion\":2,\"type\":\"prompt\",\"content\":\"  one \\n\"}\r\n"
      "\n"
      "{\"type\":\"prompt\",\"content\":\"two\",\"schemaVersion\":2}";
  const char *out = parse(in, &err);
  if (!out) fail_msg("%s", err.msg);
  /* Contents are trimmed; blank lines and CRs do not count as events. */
  assert_string_equal(out, "one\n\ntwo");
}

static void test_appends_to_existing_buffer(void **state) {
  (void)state;
  zbuf out = ZBUF_INIT;
  zbuf_addstr(&out, "already");
  zerr err = ZERR_INIT;
  const char *in = "{\"schemaVersion\":2,\"type\":\"prompt\",\"content\":\"more\"}\n";
  assert_int_equal(zin_stream_json_parse(in, strlen(in), &out, &err), 0);
  assert_string_equal(out.data, "already\n\nmore");
  zbuf_release(&out);
}

/* Every rejection is ZE_USAGE and names the offending line. */
static void expect_error(const char *in, size_t line, const char *needle) {
  zerr err = ZERR_INIT;
  if (parse(in, &err)) fail_msg("accepted invalid input: %s", in);
  assert_int_equal(err.kind, ZE_USAGE);
  char want[32];
  snprintf(want, sizeof want, "line %zu", line);
  if (!strstr(err.msg, want)) fail_msg("\"%s\" does not name %s", err.msg, want);
  if (!strstr(err.msg, needle)) fail_msg("\"%s\" does not contain \"%s\"", err.msg, needle);
}

#define OK_LINE "{\"schemaVersion\":2,\"type\":\"prompt\",\"content\":\"ok\"}\n"

static void test_each_error_names_its_line(void **state) {
  (void)state;
  expect_error("[1,2]\n", 1, "expected a JSON object");
  /* A scalar is refused by the JSON parser itself ("'[' or '{' expected"). */
  expect_error(OK_LINE "\"text\"\n", 2, "expected");
  expect_error(OK_LINE "\n"
               "{\"schemaVersion\":2,\"type\":\"prompt\",\"content\":\"x\",\"extra\":1}\n",
               3, "unknown field extra");
  /* role is only known on message lines. */
  expect_error("{\"schemaVersion\":2,\"type\":\"prompt\",\"role\":\"user\",\"content\":\"x\"}",
               1, "unknown field role");
  expect_error("{\"schemaVersion\":1,\"type\":\"prompt\",\"content\":\"x\"}", 1,
               "schemaVersion must be 2");
  expect_error("{\"schemaVersion\":\"2\",\"type\":\"prompt\",\"content\":\"x\"}", 1,
               "schemaVersion must be 2");
  expect_error("{\"type\":\"prompt\",\"content\":\"x\"}", 1, "schemaVersion must be 2");
  expect_error(OK_LINE "{\"schemaVersion\":2,\"type\":\"prompt\",\"content\":\"\"}", 2,
               "content is required");
  expect_error("{\"schemaVersion\":2,\"type\":\"prompt\",\"content\":5}", 1,
               "content is required");
  expect_error("{\"schemaVersion\":2,\"type\":\"prompt\"}", 1, "content is required");
  expect_error("{\"schemaVersion\":2,\"type\":\"command\",\"content\":\"x\"}", 1,
               "type must be prompt or message");
  expect_error("{\"schemaVersion\":2,\"content\":\"x\"}", 1, "type must be prompt or message");
  expect_error("{\"schemaVersion\":2,\"type\":\"message\",\"role\":\"assistant\",\"content\":\"x\"}",
               1, "role must be user");
  expect_error("{\"schemaVersion\":2,\"type\":\"message\",\"content\":\"x\"}", 1,
               "role must be user");
  expect_error(OK_LINE OK_LINE "{\"schemaVersion\":2,\n", 3, "Invalid stream-json input");
  expect_error("\r\n{not json}\r\n", 2, "column");
}

static void test_no_events_is_an_error(void **state) {
  (void)state;
  static const char *inputs[] = {
      "",
      "\n\n  \r\n",
      /* Content that is only whitespace adds nothing either. */
      "{\"schemaVersion\":2,\"type\":\"prompt\",\"content\":\"  \\n \"}\n",
  };
  for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
    zerr err = ZERR_INIT;
    if (parse(inputs[i], &err)) fail_msg("input %zu accepted", i);
    assert_int_equal(err.kind, ZE_USAGE);
    assert_non_null(strstr(err.msg, "at least one prompt or user message"));
  }
}

static void test_read_all_reads_a_stream(void **state) {
  (void)state;
  FILE *f = tmpfile();
  assert_non_null(f);
  char big[100000];
  memset(big, 'q', sizeof big);
  assert_int_equal(fwrite(big, 1, sizeof big, f), sizeof big);
  rewind(f);
  zbuf out = ZBUF_INIT;
  zerr err = ZERR_INIT;
  assert_int_equal(zin_read_all(f, &out, &err), 0);
  assert_int_equal(out.len, sizeof big);
  assert_memory_equal(out.data, big, sizeof big);
  zbuf_release(&out);
  fclose(f);
}

/* Images on a message line (Go zero's shape), checked and collected. */
#define PNG "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
static int parse_images(const char *in, zbuf *out, json_t *images, zerr *err) {
  return zin_stream_json_parse_ex(in, strlen(in), out, images, err);
}

static void test_message_images(void **state) {
  (void)state;
  zerr err = ZERR_INIT;
  zbuf out = ZBUF_INIT;
  json_t *images = json_array();
  const char *in =
      "{\"schemaVersion\":2,\"type\":\"message\",\"role\":\"user\",\"content\":\"what is it\","
      "\"images\":[{\"mediaType\":\"image/png\",\"data\":\"" PNG "\"}]}\n"
      "{\"schemaVersion\":2,\"type\":\"message\",\"role\":\"user\","
      "\"images\":[{\"mediaType\":\"image/webp\",\"data\":\"UklGRg\"}]}\n";
  if (parse_images(in, &out, images, &err) < 0) fail_msg("%s", err.msg);
  assert_string_equal(out.data, "what is it"); /* content may be absent with images */
  assert_int_equal(json_array_size(images), 2);
  assert_string_equal(zjson_str(json_array_get(images, 0), "media_type"), "image/png");
  assert_string_equal(zjson_str(json_array_get(images, 0), "data"), PNG);
  assert_string_equal(zjson_str(json_array_get(images, 1), "media_type"), "image/webp");
  zbuf_release(&out);
  /* Images alone are a prompt. */
  const char *only = "{\"schemaVersion\":2,\"type\":\"message\",\"role\":\"user\",\"content\":\"\","
                     "\"images\":[{\"mediaType\":\"image/jpeg\",\"data\":\"/9j/4A==\"}]}";
  assert_int_equal(parse_images(only, &out, images, &err), 0);
  assert_int_equal(json_array_size(images), 3);
  zbuf_release(&out);

  static const struct {
    const char *line, *needle;
  } bad[] = {
      {"{\"schemaVersion\":2,\"type\":\"message\",\"role\":\"user\",\"content\":\"x\","
       "\"images\":[{\"mediaType\":\"image/bmp\",\"data\":\"" PNG "\"}]}",
       "line 1: image 1 has an unsupported image media type \"image/bmp\""},
      {"{\"schemaVersion\":2,\"type\":\"message\",\"role\":\"user\",\"content\":\"x\","
       "\"images\":[{\"mediaType\":\"image/png\",\"data\":\"data:image/png;base64," PNG "\"}]}",
       "line 1: image 1 data is not valid base64"},
      {"{\"schemaVersion\":2,\"type\":\"message\",\"role\":\"user\",\"content\":\"x\","
       "\"images\":[{\"mediaType\":\"image/png\",\"data\":\"abcde\"}]}",
       "image 1 data is not valid base64"},
      {"{\"schemaVersion\":2,\"type\":\"message\",\"role\":\"user\",\"content\":\"x\","
       "\"images\":[{\"mediaType\":\"image/png\",\"data\":\"" PNG "\",\"name\":\"a\"}]}",
       "unknown field images[0].name"},
      {"{\"schemaVersion\":2,\"type\":\"message\",\"role\":\"user\",\"content\":\"x\","
       "\"images\":{}}", "images must be an array"},
      {"{\"schemaVersion\":2,\"type\":\"prompt\",\"content\":\"x\",\"images\":[]}",
       "unknown field images"},
      {"{\"schemaVersion\":2,\"type\":\"message\",\"role\":\"user\",\"images\":[]}",
       "content is required"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    zerr e = ZERR_INIT;
    zbuf o = ZBUF_INIT;
    if (parse_images(bad[i].line, &o, images, &e) == 0) fail_msg("accepted: %s", bad[i].line);
    assert_int_equal(e.kind, ZE_USAGE);
    if (!strstr(e.msg, bad[i].needle)) fail_msg("%s\n  lacks: %s", e.msg, bad[i].needle);
    zbuf_release(&o);
  }
  /* Past 10 MiB decoded. */
  size_t n = (ZIN_IMAGE_MAX_BYTES / 3 + 2) * 4;
  zbuf big = ZBUF_INIT;
  zbuf_addstr(&big, "{\"schemaVersion\":2,\"type\":\"message\",\"role\":\"user\",\"content\":\"x\","
                    "\"images\":[{\"mediaType\":\"image/png\",\"data\":\"");
  for (size_t i = 0; i < n; i++) zbuf_addch(&big, 'A');
  zbuf_addstr(&big, "\"}]}");
  assert_int_equal(zin_stream_json_parse_ex(big.data, big.len, &out, images, &err), -1);
  assert_non_null(strstr(err.msg, "image 1 exceeds the 10485760 byte limit"));
  zbuf_release(&big);
  zbuf_release(&out);
  /* The plain parser does not take images. */
  assert_null(parse("{\"schemaVersion\":2,\"type\":\"message\",\"role\":\"user\",\"content\":\"x\","
                    "\"images\":[]}", &err));
  assert_non_null(strstr(err.msg, "unknown field images"));
  json_decref(images);
}

#define T(fn) cmocka_unit_test_teardown(fn, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(test_prompt_and_message_lines_are_joined_with_blank_line),
      T(test_crlf_blank_lines_and_no_final_newline),
      T(test_appends_to_existing_buffer),
      T(test_each_error_names_its_line),
      T(test_no_events_is_an_error),
      T(test_read_all_reads_a_stream),
      T(test_message_images),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
