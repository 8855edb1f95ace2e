/* test_wirejson.c — request bodies written directly (provider/wirejson.h)
 * are byte for byte the compact jansson dump of the reference renderers, for
 * Chat Completions and Responses, from a cold and a warm cache; a message
 * changed after it was rendered is rendered again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/json.h"
#include "provider/openai_chat.h"
#include "provider/openai_responses.h"
#include "provider/wirejson.h"
#include "tools/tool.h"

/* ---- strings ------------------------------------------------------------- */

static void check_string(const char *s, size_t n) {
  json_t *ref = json_stringn(s, n);
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, "x");
  bool ok = zjw_str(&b, s, n);
  if (!ref) {
    assert_false(ok);
    assert_string_equal(b.data, "x"); /* left as it was */
  } else {
    assert_true(ok);
    char *want = zjson_dumps(ref);
    if (strcmp(b.data + 1, want) != 0) fail_msg("escaped %s, jansson %s", b.data + 1, want);
    free(want);
  }
  json_decref(ref);
  zbuf_release(&b);
}

static void strings_escape_like_jansson(void **state) {
  (void)state;
  for (int c = 1; c < 256; c++) {
    char s[4] = {'a', (char)c, 'z', 0};
    check_string(s, 3);
  }
  const char *samples[] = {"", "plain", "quote \" back \\ slash /", "tab\tnl\ncr\r\b\f\x01\x1f\x7f",
                           "é ü ß", "日本語", "emoji 😀", "\xed\xa0\x80" /* surrogate */,
                           "\xc0\xaf" /* overlong */, "\xf4\x90\x80\x80" /* > U+10FFFF */,
                           "cut \xe6\x97", "\xff", "lone \x80 cont"};
  for (size_t i = 0; i < ZARRAY_LEN(samples); i++) check_string(samples[i], strlen(samples[i]));
  /* Random bytes, biased to the interesting ranges. */
  uint32_t x = 12345;
  for (int round = 0; round < 4000; round++) {
    char s[24];
    size_t n = (size_t)(round % 23);
    for (size_t i = 0; i < n; i++) {
      x = x * 1103515245u + 12345u;
      unsigned r = (x >> 16) & 0xff;
      s[i] = (char)(r < 0x40 ? r : r < 0x80 ? 0x20 + r % 0x5f : r | 0x80);
      if (!s[i]) s[i] = 'n';
    }
    check_string(s, n);
  }
}

/* zjson_dump_to writes values itself: the bytes of jansson's compact dump. */
static json_t *random_value(uint32_t *x, int depth) {
  *x = *x * 1103515245u + 12345u;
  unsigned r = (*x >> 16) % (depth > 3 ? 6 : 8);
  static const char *const strs[] = {"", "a\"b", "tab\t", "é😀", "\x01\x7f", "/slash", "k"};
  switch (r) {
    case 0: return json_string(strs[(*x >> 8) % 7]);
    case 1: return json_integer((json_int_t)(*x) - 2000000000LL * (*x & 1));
    case 2: return json_true();
    case 3: return json_null();
    case 4: return json_stringn("nul\0inside", 11);
    case 5: return (*x & 0x100) ? json_real(1.5 * (double)(*x % 1000)) : json_false();
    case 6: {
      json_t *a = json_array();
      for (unsigned i = 0; i < (*x >> 20) % 4; i++) json_array_append_new(a, random_value(x, depth + 1));
      return a;
    }
    default: {
      json_t *o = json_object();
      for (unsigned i = 0; i < (*x >> 20) % 5; i++) {
        char key[16];
        snprintf(key, sizeof key, "%s%u", i & 1 ? "ké\"y" : "z", (*x >> 4) % 7);
        json_object_set_new(o, key, random_value(x, depth + 1));
      }
      return o;
    }
  }
}

static int add_cb(const char *buf, size_t n, void *ud) {
  zbuf_add(ud, buf, n);
  return 0;
}

static void dumps_match_jansson(void **state) {
  (void)state;
  uint32_t x = 99;
  for (int round = 0; round < 3000; round++) {
    json_t *v = random_value(&x, 0);
    char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    zbuf got = ZBUF_INIT;
    zbuf_addstr(&got, "pre");
    zjson_dump_to(v, &got);
    if (strcmp(got.data + 3, want) != 0) fail_msg("dump\n got  %s\n want %s", got.data + 3, want);
    free(want);
    zbuf_release(&got);
    json_decref(v);
  }
  /* A string jansson was made to hold without checking: its dump decides. */
  json_t *bad = json_pack("{s:s#}", "k", "ok", 2);
  json_object_set_new_nocheck(bad, "k\xff", json_true());
  zbuf want = ZBUF_INIT;
  json_dump_callback(bad, add_cb, &want, JSON_COMPACT | JSON_ENCODE_ANY);
  char *got = zjson_dumps(bad);
  assert_string_equal(got, want.data);
  zbuf_release(&want);
  free(got);
  json_decref(bad);
}

/* zjson_parse_plain gives jansson's tree for what it takes, NULL otherwise. */
static void check_plain(const char *text, bool want_fast) {
  json_t *fast = zjson_parse_plain(text, strlen(text));
  json_t *ref = json_loads(text, 0, NULL);
  if (want_fast && !fast) fail_msg("not taken: %s", text);
  if (!want_fast && fast) fail_msg("taken: %s", text);
  if (fast) {
    assert_non_null(ref);
    assert_true(json_equal(fast, ref));
    char *a = zjson_dumps(fast), *b = zjson_dumps(ref);
    assert_string_equal(a, b);
    free(a);
    free(b);
  }
  json_decref(fast);
  json_decref(ref);
}

static void plain_parser_matches_jansson(void **state) {
  (void)state;
  size_t n;
  const ztool *const *all = ztool_all(&n);
  for (size_t i = 0; i < n; i++) check_plain(all[i]->parameters_json, true);
  check_plain("{}", true);
  check_plain(" [ 1 , -2 , true , false , null , \"a\\\"\\\\\\/\\b\\f\\n\\r\\t\" ] ", true);
  check_plain("{\"a\":1,\"a\":2,\"b\":{\"c\":[[],{}]}}", true); /* duplicate: the last wins */
  check_plain("{\"n\":123456789012345678}", true);
  const char *refused[] = {"", "1", "\"s\"", "{\"a\":1.5}", "{\"a\":1e3}", "{\"a\":01}",
                           "{\"a\":-0}", "{\"a\":1234567890123456789}", "{\"a\":\"\\u0041\"}",
                           "{\"a\":\"é\"}", "{\"a\":\"x\ty\"}", "{\"a\":1,}", "[1 2]",
                           "{\"a\"}", "{} x", "[tru]", "{\"a\":\"\\q\"}", "[", "{\"a\":[1,"};
  for (size_t i = 0; i < ZARRAY_LEN(refused); i++) check_plain(refused[i], false);
}

/* ---- whole bodies -------------------------------------------------------- */

static json_t *tools_array(void) {
  json_t *tools = json_array();
  json_array_append_new(tools, json_pack("{s:s, s:s, s:{s:s, s:{s:{s:s}}, s:[s], s:b}}", "name",
                                         "read_file", "description", "Reads \"a\" file\n",
                                         "parameters", "type", "object", "properties", "path",
                                         "type", "string", "required", "path",
                                         "additionalProperties", 0));
  json_array_append_new(tools, json_pack("{s:s}", "name", "no_params"));
  json_array_append_new(tools, json_pack("{s:s, s:{s:s, s:{}}}", "type", "function", "function",
                                         "name", "wire_form", "parameters"));
  json_array_append_new(tools, json_string("not an object"));
  return tools;
}

static void build_conv(zconv *c, bool invalid) {
  zconv_add_user(c, "fix \"it\"\n\tplease é 😀");
  zmsg *u2 = zconv_add_user(c, "look");
  zmsg_add_image(u2, "image/png", "iVBORw0KGgo=");
  zconv_add_assistant(c, "", NULL);
  zmsg *a = zconv_add_assistant(c, "I will read it.", "thinking…");
  zmsg_add_call(a, "call_1", "read_file", "{\"path\":\"a.c\"}");
  zmsg_add_call(a, "call_2", "list_directory", "");
  zconv_add_tool_result(c, "call_1", "read_file", "1\tint main(void) {\x01}\r\n", 0);
  zmsg *t2 = zconv_add_tool_result(c, "call_2", "list_directory", "error: \\ no", 1);
  zmsg_add_image(t2, "image/jpeg", "/9j/4AAQ");
  zmsg *a2 = zconv_add_assistant(c, NULL, NULL);
  zmsg_add_call(a2, "call_3", "view_image", "{}");
  zconv_add_tool_result(c, "call_3", NULL, "", 0);
  zconv_add_assistant(c, "done", NULL);
  if (invalid) {
    zconv_add_user(c, "bad \xff byte");
    zmsg *a3 = zconv_add_assistant(c, "ok \xc0", NULL);
    zmsg_add_call(a3, "call_4", "x", "{\"a\":\"\xfe\"}");
    zconv_add_tool_result(c, "call_4", "x", "out \xed\xa0\x80", 0);
    zmsg *u3 = zconv_add_user(c, "img");
    zmsg_add_image(u3, "image/png", "bad\xff");
  }
}

static void check_bodies(const zprov_opts *o, const zprov_request *r, zjw_tools *tc_chat,
                         zjw_tools *tc_resp) {
  json_t *ref = zoai_chat_render(o, r);
  char *want = zjson_dumps(ref);
  json_decref(ref);
  zbuf got = ZBUF_INIT;
  zoai_chat_render_text(o, r, tc_chat, &got);
  if (strcmp(got.data, want) != 0) fail_msg("chat body\n got  %s\n want %s", got.data, want);
  free(want);
  zbuf_release(&got);

  ref = zresp_render(o, r);
  want = zjson_dumps(ref);
  json_decref(ref);
  zoai_chat_render_text(o, r, tc_chat, &got); /* a chat cache next to a responses one */
  zbuf_reset(&got);
  zresp_render_text(o, r, tc_resp, &got);
  if (strcmp(got.data, want) != 0) fail_msg("responses body\n got  %s\n want %s", got.data, want);
  free(want);
  zbuf_release(&got);
}

static void bodies_match_reference_renderers(void **state) {
  (void)state;
  json_t *tools = tools_array();
  for (int variant = 0; variant < 4; variant++) {
    zconv c = ZCONV_INIT;
    build_conv(&c, variant & 1);
    zprov_opts o = {.name = "t", .kind = variant & 2 ? "openai" : "openai-compatible",
                    .model = variant == 3 ? "bad\xff" : "gpt-x",
                    .reasoning_effort = variant & 2 ? "high" : NULL,
                    .cache_key = variant & 2 ? "sess-1" : NULL,
                    .max_output_tokens = variant == 2 ? 999 : 0};
    zprov_request r = {.system = variant == 1 ? "sys \xff" : "You are zero.\n\"be brief\"",
                       .conv = &c, .tools = variant == 3 ? NULL : tools,
                       .max_output_tokens = variant == 1 ? 4096 : 0};
    zjw_tools tc = ZJW_TOOLS_INIT, tr = ZJW_TOOLS_INIT;
    check_bodies(&o, &r, &tc, &tr); /* cold */
    check_bodies(&o, &r, &tc, &tr); /* every message and tool from the caches */
    zconv_add_user(&c, "one more");
    check_bodies(&o, &r, &tc, &tr);
    zjw_tools_release(&tc);
    zjw_tools_release(&tr);
    zconv_release(&c);
  }
  json_decref(tools);
}

/* ---- the cache follows changes ------------------------------------------- */

static char *chat_body(const zconv *c, zjw_tools *tc) {
  zprov_opts o = {.name = "t", .kind = "openai-compatible", .model = "m"};
  zprov_request r = {.conv = c};
  zbuf b = ZBUF_INIT;
  zoai_chat_render_text(&o, &r, tc, &b);
  return zbuf_detach(&b, NULL);
}

static void changed_messages_are_rendered_again(void **state) {
  (void)state;
  zjw_tools tc = ZJW_TOOLS_INIT;
  zconv c = ZCONV_INIT;
  zconv_add_user(&c, "hello");
  zmsg *a = zconv_add_assistant(&c, NULL, NULL);
  zmsg_add_call(a, "c1", "read_file", "{}");
  zconv_add_tool_result(&c, "c1", "read_file", "AAAA", 0);
  char *b1 = chat_body(&c, &tc);
  assert_non_null(strstr(b1, "\"content\":\"AAAA\""));
  assert_non_null(c.items[2].wire);

  /* Edited in place, same pointer and length: only zmsg_touch can tell. */
  memcpy(c.items[2].content, "BBBB", 4);
  zmsg_touch(&c.items[2]);
  assert_null(c.items[2].wire);
  char *b2 = chat_body(&c, &tc);
  assert_non_null(strstr(b2, "\"content\":\"BBBB\""));

  /* Replaced (as compaction does) without telling: the fingerprint sees the
   * new pointer / length. */
  free(c.items[2].content);
  c.items[2].content = xstrdup("[zero: output of read_file removed to save context]");
  char *b3 = chat_body(&c, &tc);
  assert_non_null(strstr(b3, "removed to save context"));
  assert_null(strstr(b3, "BBBB"));

  /* A call added to an assistant message that was rendered already. */
  zmsg_add_call(&c.items[1], "c2", "glob", "{\"pattern\":\"*\"}");
  char *b4 = chat_body(&c, &tc);
  assert_non_null(strstr(b4, "\"id\":\"c2\""));

  /* Rewound (messages dropped and new ones added in their place). */
  zmsg_release(&c.items[2]);
  c.len = 2;
  zconv_add_tool_result(&c, "c1", "read_file", "CCCC", 0);
  char *b5 = chat_body(&c, &tc);
  assert_non_null(strstr(b5, "CCCC"));
  assert_null(strstr(b5, "removed to save context"));

  /* The caches of the two wire formats do not mix. */
  zprov_opts o = {.name = "t", .kind = "openai-compatible", .model = "m"};
  zprov_request r = {.conv = &c};
  zbuf rb = ZBUF_INIT;
  zjw_tools tr = ZJW_TOOLS_INIT;
  zresp_render_text(&o, &r, &tr, &rb);
  assert_non_null(strstr(rb.data, "\"type\":\"function_call_output\""));
  char *b6 = chat_body(&c, &tc);
  assert_string_equal(b5, b6);

  zbuf_release(&rb);
  zjw_tools_release(&tr);
  free(b1), free(b2), free(b3), free(b4), free(b5), free(b6);
  zjw_tools_release(&tc);
  zconv_release(&c);
}

/* Tool schemas: rendered once per schema object; a schema array that changes
 * (MCP tools come and go) renders what is new and forgets what is gone. */
static void tool_cache_follows_the_offered_set(void **state) {
  (void)state;
  zjw_tools tc = ZJW_TOOLS_INIT;
  json_t *tools = tools_array();
  zconv c = ZCONV_INIT;
  zconv_add_user(&c, "x");
  zprov_opts o = {.name = "t", .kind = "openai-compatible", .model = "m"};
  zprov_request r = {.conv = &c, .tools = tools};
  zjw_tools tr = ZJW_TOOLS_INIT;
  check_bodies(&o, &r, &tc, &tr);
  assert_int_equal(tc.len, 3);
  json_t *fewer = json_array();
  json_array_append(fewer, json_array_get(tools, 2));
  json_array_append_new(fewer, json_pack("{s:s, s:s}", "name", "mcp__new", "description", "d"));
  r.tools = fewer;
  check_bodies(&o, &r, &tc, &tr);
  assert_int_equal(tc.len, 2);
  assert_int_equal(tr.len, 2);
  json_decref(fewer);
  json_decref(tools);
  zjw_tools_release(&tc);
  zjw_tools_release(&tr);
  zconv_release(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(strings_escape_like_jansson),
      cmocka_unit_test(dumps_match_jansson),
      cmocka_unit_test(plain_parser_matches_jansson),
      cmocka_unit_test(bodies_match_reference_renderers),
      cmocka_unit_test(changed_messages_are_rendered_again),
      cmocka_unit_test(tool_cache_follows_the_offered_set),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
