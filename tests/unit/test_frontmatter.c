/* test_frontmatter.c — Markdown front matter (base/frontmatter.h): the YAML
 * subset skills, commands and agent files use, and its errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/frontmatter.h"

/* Parses text, asserting success; returns meta, sets *body. */
static json_t *parse_ok(const char *text, char **body) {
  json_t *meta = NULL;
  zerr err = ZERR_INIT;
  int rc = zfrontmatter_parse(text, strlen(text), &meta, body, &err);
  if (rc != 0) fail_msg("parse failed: %s", err.msg);
  assert_non_null(meta);
  return meta;
}

/* Asserts text fails with a message containing want. */
static void parse_fails(const char *text, const char *want) {
  json_t *meta = (json_t *)1;
  char *body = (char *)1;
  zerr err = ZERR_INIT;
  assert_int_equal(zfrontmatter_parse(text, strlen(text), &meta, &body, &err), -1);
  assert_null(meta);
  assert_null(body);
  assert_int_equal(err.kind, ZE_INVALID);
  if (!strstr(err.msg, want)) fail_msg("error \"%s\" lacks \"%s\"", err.msg, want);
}

/* Asserts meta serialises (compact, keys in file order) to want. */
static void assert_json(const json_t *meta, const char *want) {
  char *got = json_dumps(meta, JSON_COMPACT | JSON_PRESERVE_ORDER);
  if (strcmp(got, want) != 0) fail_msg("got  %s\nwant %s", got, want);
  free(got);
}

static void text_without_front_matter_is_all_body(void **state) {
  (void)state;
  char *body = NULL;
  json_t *meta = parse_ok("# Title\n---\nnot front matter\n", &body);
  assert_json(meta, "{}");
  assert_string_equal(body, "# Title\n---\nnot front matter\n");
  json_decref(meta);
  free(body);
}

static void scalars_quotes_and_flow_lists(void **state) {
  (void)state;
  char *body = NULL;
  json_t *meta = parse_ok("---\n"
                          "name: review   # the id\n"
                          "description: \"Reviews a diff: \\\"carefully\\\"\"\n"
                          "note: 'it''s # not a comment'\n"
                          "tools: [read_file, \"grep\", 'glob']\n"
                          "hidden: true\n"
                          "max: 12\n"
                          "ratio: 0.5\n"
                          "model: ~\n"
                          "version: 1.2.3\n"
                          "url: http://x.test/a#frag\n"
                          "---\n"
                          "Body line.\n",
                          &body);
  assert_json(meta, "{\"name\":\"review\",\"description\":\"Reviews a diff: \\\"carefully\\\"\","
                    "\"note\":\"it's # not a comment\",\"tools\":[\"read_file\",\"grep\",\"glob\"],"
                    "\"hidden\":true,\"max\":12,\"ratio\":0.5,\"model\":null,\"version\":\"1.2.3\","
                    "\"url\":\"http://x.test/a#frag\"}");
  assert_string_equal(body, "Body line.\n");
  assert_string_equal(zfrontmatter_str(meta, "name"), "review");
  assert_null(zfrontmatter_str(meta, "max"));
  json_decref(meta);
  free(body);
}

static void nested_maps_and_sequences(void **state) {
  (void)state;
  char *body = NULL;
  json_t *meta = parse_ok("---\n"
                          "metadata:\n"
                          "  author: team\n"
                          "  tags:\n"
                          "    - a\n"
                          "    - b\n"
                          "hooks:\n"
                          "- matcher: Bash\n"
                          "  command: ./check.sh\n"
                          "  timeout: 5\n"
                          "-   matcher: Edit\n"
                          "    command: fmt\n"
                          "empty:\n"
                          "last: x\n"
                          "---\n",
                          &body);
  assert_json(meta, "{\"metadata\":{\"author\":\"team\",\"tags\":[\"a\",\"b\"]},"
                    "\"hooks\":[{\"matcher\":\"Bash\",\"command\":\"./check.sh\",\"timeout\":5},"
                    "{\"matcher\":\"Edit\",\"command\":\"fmt\"}],\"empty\":null,\"last\":\"x\"}");
  assert_string_equal(body, "");
  json_decref(meta);
  free(body);
}

static void block_scalars_keep_or_fold_lines(void **state) {
  (void)state;
  char *body = NULL;
  json_t *meta = parse_ok("---\n"
                          "literal: |\n"
                          "  line one\n"
                          "    indented\n"
                          "\n"
                          "  after blank\n"
                          "folded: >-\n"
                          "  joined\n"
                          "  words\n"
                          "\n"
                          "  new para\n"
                          "plain: starts here\n"
                          "  and goes on\n"
                          "end: 1\n"
                          "---\n"
                          "b\n",
                          &body);
  assert_json(
      meta,
      "{\"literal\":\"line one\\n  indented\\n\\nafter blank\\n\","
      "\"folded\":\"joined words\\nnew para\",\"plain\":\"starts here and goes on\",\"end\":1}");
  json_decref(meta);
  free(body);
}

/* A plain value on one line is read without a copy, and only a value that
 * is wholly a number, boolean or null is typed: the fast path must agree. */
static void plain_values_one_line_continued_or_typed(void **state) {
  (void)state;
  char *body = NULL;
  json_t *meta = parse_ok("---\n"
                          "a: plain\n"
                          "# a comment line ends nothing\n"
                          "b: first\n"
                          "  second\n"
                          "c: para\n"
                          "\n"
                          "  after blank\n"
                          "d: x\n"
                          "  # a deeper comment ends the value\n"
                          "e: +5\n"
                          "f: .5\n"
                          "g: -x\n"
                          "h: True story\n"
                          "i: nan\n"
                          "j: FALSE\n"
                          "---\n",
                          &body);
  assert_json(meta, "{\"a\":\"plain\",\"b\":\"first second\",\"c\":\"para\\nafter blank\","
                    "\"d\":\"x\",\"e\":5,\"f\":0.5,\"g\":\"-x\",\"h\":\"True story\","
                    "\"i\":\"nan\",\"j\":false}");
  json_decref(meta);
  free(body);
}

static void crlf_bom_and_closing_dots(void **state) {
  (void)state;
  char *body = NULL;
  json_t *meta = parse_ok("\xEF\xBB\xBF---\r\nname: x\r\n...\r\nbody\r\n", &body);
  assert_json(meta, "{\"name\":\"x\"}");
  assert_string_equal(body, "body\r\n");
  json_decref(meta);
  free(body);
}

static void malformed_front_matter_names_the_line(void **state) {
  (void)state;
  parse_fails("---\nname: x\nbody without close\n", "never closed");
  parse_fails("---\nname: x\n\tbad: tab\n---\n", "line 3: tabs");
  parse_fails("---\nname: &a x\n---\n", "line 2: anchors");
  parse_fails("---\nname:\n  a: 1\n b: 2\n---\n", "line 4: unexpected indentation");
  parse_fails("---\n- a\n---\n", "line 2: front matter must be a mapping");
  parse_fails("---\njust text\n---\n", "line 2: expected \"key: value\"");
  parse_fails("---\ns: \"open\n---\n", "line 2: a quoted string is never closed");
  parse_fails("---\nl: [a, b\n---\n", "line 2: a flow sequence");
  parse_fails("---\nok: 1\ntools: [read_fil\xff, grep]\n---\n", "line 3: not valid UTF-8");
}

static void deep_nesting_is_refused_not_overflowed(void **state) {
  (void)state;
  char text[16384];
  size_t off = (size_t)snprintf(text, sizeof text, "---\nk:\n");
  for (int d = 1; d <= 100; d++) {
    for (int k = 0; k < d; k++) text[off++] = ' ';
    memcpy(text + off, "-\n", 2);
    off += 2;
  }
  snprintf(text + off, sizeof text - off, "---\n");
  parse_fails(text, "nesting is too deep");
}

static void string_lists_from_sequences_or_commas(void **state) {
  (void)state;
  char *body = NULL;
  json_t *meta = parse_ok("---\n"
                          "a: [x, y]\n"
                          "b: Read, Grep Bash(git add:*, git commit:*)\n"
                          "c: 3\n"
                          "---\n",
                          &body);
  zerr err = ZERR_INIT;
  json_t *l = zfrontmatter_strlist(meta, "a", &err);
  assert_json(l, "[\"x\",\"y\"]");
  json_decref(l);
  l = zfrontmatter_strlist(meta, "b", &err);
  assert_json(l, "[\"Read\",\"Grep\",\"Bash(git add:*, git commit:*)\"]");
  json_decref(l);
  l = zfrontmatter_strlist(meta, "missing", &err);
  assert_json(l, "[]");
  json_decref(l);
  assert_null(zfrontmatter_strlist(meta, "c", &err));
  assert_int_equal(err.kind, ZE_INVALID);
  json_decref(meta);
  free(body);
}

/* Writes text to a new file under dir; returns its path (caller frees). */
static char *write_tmp(const char *dir, const char *name, const char *text, size_t len) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *path = malloc(n);
  snprintf(path, n, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, len, f), len);
  fclose(f);
  return path;
}

/* zfrontmatter_load reads the head only: the fence may fall across its
 * 4 KiB chunks, a huge body past the limit does not matter, and the errors
 * say which file. */
static void load_reads_only_the_front_matter(void **state) {
  (void)state;
  char dir[] = "/tmp/zero-fm-XXXXXX";
  assert_non_null(mkdtemp(dir));
  zerr err = ZERR_INIT;
  json_t *meta = NULL;
  /* a long value puts the closing fence across the first chunk's end */
  size_t big = 3 << 20;
  char *text = malloc(big);
  memset(text, 'x', big);
  const char *head = "---\nname: a\ndescription: \"";
  memcpy(text, head, strlen(head));
  size_t close = 4094 - strlen("\"\n---");
  memcpy(text + close, "\"\n---\nbody", strlen("\"\n---\nbody"));
  char *p = write_tmp(dir, "a.md", text, big);
  assert_int_equal(zfrontmatter_load(p, 1 << 20, &meta, &err), 0); /* body past the limit */
  assert_string_equal(zfrontmatter_str(meta, "name"), "a");
  assert_int_equal(strlen(zfrontmatter_str(meta, "description")), close - strlen(head));
  json_decref(meta);
  free(p);
  /* no front matter: an empty object */
  p = write_tmp(dir, "b.md", "just a body\n", 12);
  assert_int_equal(zfrontmatter_load(p, 1 << 20, &meta, &err), 0);
  assert_int_equal(json_object_size(meta), 0);
  json_decref(meta);
  free(p);
  /* never closed, and a head past the limit */
  p = write_tmp(dir, "c.md", "---\nname: c\n", 12);
  assert_int_equal(zfrontmatter_load(p, 1 << 20, &meta, &err), -1);
  assert_non_null(strstr(err.msg, "never closed"));
  free(p);
  memset(text + 4, 'x', 8192); /* no closing fence in the first 8 KiB */
  p = write_tmp(dir, "d.md", text, 8192);
  assert_int_equal(zfrontmatter_load(p, 4096, &meta, &err), -1);
  assert_int_equal(err.kind, ZE_TOO_LARGE);
  free(p);
  /* missing (also below a plain file), and a directory */
  size_t n = strlen(dir) + 32;
  char *q = malloc(n);
  snprintf(q, n, "%s/none.md", dir);
  assert_int_equal(zfrontmatter_load(q, 0, &meta, &err), -1);
  assert_int_equal(err.kind, ZE_NOT_FOUND);
  snprintf(q, n, "%s/b.md/SKILL.md", dir);
  assert_int_equal(zfrontmatter_load(q, 0, &meta, &err), -1);
  assert_int_equal(err.kind, ZE_NOT_FOUND);
  assert_int_equal(zfrontmatter_load(dir, 0, &meta, &err), -1);
  assert_int_equal(err.kind, ZE_INVALID);
  assert_null(meta);
  free(q);
  free(text);
  const char *names[] = {"a.md", "b.md", "c.md", "d.md"};
  for (size_t i = 0; i < 4; i++) {
    char f[64];
    snprintf(f, sizeof f, "%s/%s", dir, names[i]);
    assert_int_equal(unlink(f), 0);
  }
  assert_int_equal(rmdir(dir), 0);
}

/* zfrontmatter_body: the whole file's body without its front matter (the
 * blank line after the fence kept), the whole text without one, and NULL
 * with the reader's or the parser's error. */
static void body_reads_the_file_and_drops_the_front_matter(void **state) {
  (void)state;
  char dir[] = "/tmp/zero-fmb-XXXXXX";
  assert_non_null(mkdtemp(dir));
  zerr err = ZERR_INIT;
  const char *with = "---\nname: a\n---\n\nHello $ARGUMENTS\n";
  char *p = write_tmp(dir, "a.md", with, strlen(with));
  char *body = zfrontmatter_body(p, 1 << 20, &err);
  assert_non_null(body);
  assert_string_equal(body, "\nHello $ARGUMENTS\n");
  free(body);
  assert_null(zfrontmatter_body(p, 8, &err)); /* past max_bytes */
  assert_int_equal(err.kind, ZE_TOO_LARGE);
  free(p);
  p = write_tmp(dir, "b.md", "just a body\n", 12);
  body = zfrontmatter_body(p, 0, &err);
  assert_string_equal(body, "just a body\n");
  free(body);
  free(p);
  p = write_tmp(dir, "c.md", "---\nname: c\n", 12);
  assert_null(zfrontmatter_body(p, 0, &err));
  assert_int_equal(err.kind, ZE_INVALID);
  free(p);
  char q[64];
  snprintf(q, sizeof q, "%s/none.md", dir);
  assert_null(zfrontmatter_body(q, 0, &err));
  assert_int_equal(err.kind, ZE_NOT_FOUND);
  const char *names[] = {"a.md", "b.md", "c.md"};
  for (size_t i = 0; i < 3; i++) {
    snprintf(q, sizeof q, "%s/%s", dir, names[i]);
    assert_int_equal(unlink(q), 0);
  }
  assert_int_equal(rmdir(dir), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(text_without_front_matter_is_all_body),
      cmocka_unit_test(scalars_quotes_and_flow_lists),
      cmocka_unit_test(nested_maps_and_sequences),
      cmocka_unit_test(block_scalars_keep_or_fold_lines),
      cmocka_unit_test(plain_values_one_line_continued_or_typed),
      cmocka_unit_test(crlf_bom_and_closing_dots),
      cmocka_unit_test(malformed_front_matter_names_the_line),
      cmocka_unit_test(deep_nesting_is_refused_not_overflowed),
      cmocka_unit_test(string_lists_from_sequences_or_commas),
      cmocka_unit_test(load_reads_only_the_front_matter),
      cmocka_unit_test(body_reads_the_file_and_drops_the_front_matter),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
