/* test_gemini.c — the Gemini stream parser on recorded-format fixtures
 * (whole and split at every byte), request rendering (functionResponse,
 * thoughtSignature replay, schema reduction, thinking), URL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stream_replay.h"
#include "provider/gemini.h"

#define DIR FIXTURES_DIR "/gemini"

static void p_init(void *p, zprov_event_fn fn, void *ud) { zgem_parser_init(p, "google", fn, ud); }
static int p_feed(void *p, const char *d, size_t n, zerr *e) { return zgem_parser_feed(p, d, n, e); }
static int p_finish(void *p, zerr *e) { return zgem_parser_finish(p, e); }
static void p_release(void *p) { zgem_parser_release(p); }
static void p_slow(void *p, bool slow) { ((zgem_parser *)p)->turn.slow_only = slow; }
static const replay_proto proto = {sizeof(zgem_parser), p_init, p_feed, p_finish, p_release, p_slow};

static void stream_text_only(void **s) { (void)s; replay_check(&proto, DIR, "text"); }
static void stream_one_tool_call_with_signature(void **s) { (void)s; replay_check(&proto, DIR, "tool_call"); }
static void stream_parallel_tool_calls(void **s) { (void)s; replay_check(&proto, DIR, "parallel_tools"); }
static void stream_thoughts(void **s) { (void)s; replay_check(&proto, DIR, "reasoning"); }
static void stream_error_object(void **s) { (void)s; replay_check(&proto, DIR, "stream_error"); }
static void stream_cached_content_tokens(void **s) { (void)s; replay_check(&proto, DIR, "usage_cached"); }
static void stream_cut_before_output_retryable(void **s) { (void)s; replay_check(&proto, DIR, "cut_before_output"); }
static void stream_cut_after_text_final(void **s) { (void)s; replay_check(&proto, DIR, "cut_after_text"); }

/* The fast path takes the frequent delta events and leaves the rest (and
 * anything it is unsure of: bad escapes, repeated keys) to jansson. */
static void feed_one(zgem_parser *p, const char *data, size_t hits) {
  zerr err = ZERR_INIT;
  zgem_parser_feed(p, data, strlen(data), &err);
  if (p->turn.fast_hits != hits)
    fail_msg("fast_hits %zu, expected %zu after %s", p->turn.fast_hits, hits, data);
}

static void fast_path_takes_delta_events(void **s) {
  (void)s;
  zgem_parser p;
  zgem_parser_init(&p, "test", NULL, NULL);
  feed_one(&p, "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"hi\"}],\"role\":\"model\"},\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":1}}", 1);
  feed_one(&p, "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"x\"}]}}],\"error\":null}", 1);
  feed_one(&p, "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"bad \\u0000\"}]}}]}", 1);
  zgem_parser_release(&p);
}
static void stream_fast_path_edge_cases(void **s) { (void)s; replay_check(&proto, DIR, "fastpath"); }

static void render_contents_and_signatures(void **s) {
  (void)s;
  zprov_opts o;
  memset(&o, 0, sizeof o);
  o.name = "google";
  o.kind = "google";
  o.model = "gemini-2.5-flash";
  o.reasoning_effort = "medium";
  zconv c = ZCONV_INIT;
  zconv_add_user(&c, "list files");
  zmsg *a = zconv_add_assistant(&c, NULL, NULL);
  zmsg_add_call(a, "call_0", "list_directory", "{\"path\":\".\"}");
  zmsg_set_last_call_signature(a, "SIGX");
  zconv_add_tool_result(&c, "call_0", "list_directory", "a.txt", 0);
  json_t *tools = json_pack("[{s:s, s:{s:s, s:b, s:{s:{s:s}}}}]", "name", "list_directory",
                            "parameters", "type", "object", "additionalProperties", 0,
                            "properties", "additionalProperties", "type", "string");
  zprov_request r = {.system = "sys", .conv = &c, .tools = tools};
  json_t *b = zgem_render(&o, &r);
  json_t *cs = json_object_get(b, "contents");
  assert_int_equal(json_array_size(cs), 3);
  json_t *p1 = json_array_get(json_object_get(json_array_get(cs, 1), "parts"), 0);
  assert_string_equal(zjson_str(json_array_get(cs, 1), "role"), "model");
  assert_string_equal(zjson_str(p1, "thoughtSignature"), "SIGX");
  json_t *p2 = json_array_get(json_object_get(json_array_get(cs, 2), "parts"), 0);
  assert_string_equal(zjson_str(json_object_get(p2, "functionResponse"), "name"), "list_directory");
  json_t *decl = json_array_get(json_object_get(json_array_get(json_object_get(b, "tools"), 0),
                                                "functionDeclarations"), 0);
  json_t *params = json_object_get(decl, "parameters");
  assert_null(json_object_get(params, "additionalProperties"));
  /* A property that happens to be called additionalProperties survives. */
  assert_non_null(json_object_get(json_object_get(params, "properties"), "additionalProperties"));
  json_t *tc = json_object_get(json_object_get(b, "generationConfig"), "thinkingConfig");
  assert_int_equal(zjson_int_or(tc, "thinkingBudget", 0), 10000);
  assert_string_equal(zjson_str(json_array_get(json_object_get(json_object_get(b, "systemInstruction"), "parts"), 0), "text"), "sys");
  json_decref(b);
  json_decref(tools);
  zconv_release(&c);
  cleanup_free char *u = zgem_url("https://generativelanguage.googleapis.com", "gemini-2.5-pro");
  assert_string_equal(u, "https://generativelanguage.googleapis.com/v1beta/models/"
                         "gemini-2.5-pro:streamGenerateContent?alt=sse");
}

/* What Gemini refuses never reaches it: free-form object properties
 * ("properties: should be non-empty for OBJECT type"), "required" naming
 * them, and an empty parameters object. */
static void schema_leaves_out_what_gemini_refuses(void **s) {
  (void)s;
  json_t *schema = json_loads(
      "{\"type\":\"object\",\"properties\":{"
      "\"cmd\":{\"type\":\"string\"},"
      "\"extra\":{\"type\":\"object\",\"description\":\"anything\"},"
      "\"empty\":{\"type\":\"object\",\"properties\":{}},"
      "\"list\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
      "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
      "\"opts\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
      "\"b\":{\"type\":\"object\"}},\"required\":[\"b\"]}},"
      "\"required\":[\"cmd\",\"extra\"],\"additionalProperties\":false}", 0, NULL);
  assert_non_null(schema);
  json_t *g = zgem_schema(schema);
  json_t *props = json_object_get(g, "properties");
  assert_non_null(json_object_get(props, "cmd"));
  assert_non_null(json_object_get(props, "tags"));
  assert_null(json_object_get(props, "extra"));
  assert_null(json_object_get(props, "empty"));
  assert_null(json_object_get(props, "list"));
  json_t *opts = json_object_get(props, "opts");
  assert_non_null(json_object_get(json_object_get(opts, "properties"), "a"));
  assert_null(json_object_get(json_object_get(opts, "properties"), "b"));
  assert_null(json_object_get(opts, "required")); /* only "b", which is gone */
  json_t *req = json_object_get(g, "required");
  assert_int_equal(json_array_size(req), 1);
  assert_string_equal(json_string_value(json_array_get(req, 0)), "cmd");
  json_decref(g);
  json_decref(schema);

  /* Through the request: a parameterless tool declares no parameters, and
   * every built-in tool's schema is one Gemini takes. */
  zprov_opts o;
  memset(&o, 0, sizeof o);
  o.name = "google";
  o.kind = "google";
  o.model = "gemini-2.5-flash";
  zconv c = ZCONV_INIT;
  zconv_add_user(&c, "hi");
  json_t *tools = json_loads(
      "[{\"name\":\"ping\",\"description\":\"no arguments\",\"parameters\":"
      "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}},"
      "{\"name\":\"only_free\",\"parameters\":{\"type\":\"object\",\"properties\":"
      "{\"x\":{\"type\":\"object\"}}}}]", 0, NULL);
  zprov_request r = {.system = "sys", .conv = &c, .tools = tools};
  json_t *b = zgem_render(&o, &r);
  json_t *decls = json_object_get(json_array_get(json_object_get(b, "tools"), 0),
                                  "functionDeclarations");
  assert_int_equal(json_array_size(decls), 2);
  assert_string_equal(zjson_str(json_array_get(decls, 0), "name"), "ping");
  assert_null(json_object_get(json_array_get(decls, 0), "parameters"));
  assert_null(json_object_get(json_array_get(decls, 1), "parameters"));
  json_decref(b);
  json_decref(tools);
  zconv_release(&c);
}

/* An event that is not a JSON object: an error naming the API. */
static void not_an_object_names_the_api(void **s) {
  (void)s;
  replay_check_not_object(&proto, "google", "the Gemini API");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(not_an_object_names_the_api),
      cmocka_unit_test(stream_text_only),
      cmocka_unit_test(schema_leaves_out_what_gemini_refuses),
      cmocka_unit_test(stream_one_tool_call_with_signature),
      cmocka_unit_test(stream_parallel_tool_calls),
      cmocka_unit_test(stream_thoughts),
      cmocka_unit_test(stream_error_object),
      cmocka_unit_test(stream_cached_content_tokens),
      cmocka_unit_test(stream_cut_before_output_retryable),
      cmocka_unit_test(fast_path_takes_delta_events),
      cmocka_unit_test(stream_fast_path_edge_cases),
      cmocka_unit_test(stream_cut_after_text_final),
      cmocka_unit_test(render_contents_and_signatures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
