/* test_openai_responses.c — the OpenAI Responses stream parser on
 * recorded-format fixtures (whole and split at every byte), and request
 * rendering (input items, official-only fields, images). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stream_replay.h"
#include "provider/openai_responses.h"

#define DIR FIXTURES_DIR "/responses"

static void p_init(void *p, zprov_event_fn fn, void *ud) { zresp_parser_init(p, "openai", fn, ud); }
static int p_feed(void *p, const char *d, size_t n, zerr *e) { return zresp_parser_feed(p, d, n, e); }
static int p_finish(void *p, zerr *e) { return zresp_parser_finish(p, e); }
static void p_release(void *p) { zresp_parser_release(p); }
static void p_slow(void *p, bool slow) { ((zresp_parser *)p)->turn.slow_only = slow; }
static const replay_proto proto = {sizeof(zresp_parser), p_init, p_feed, p_finish, p_release, p_slow};

static void stream_text_only(void **s) { (void)s; replay_check(&proto, DIR, "text"); }
static void stream_one_tool_call(void **s) { (void)s; replay_check(&proto, DIR, "tool_call"); }
/* A freeform (custom) tool call: its raw input is the call's arguments. */
static void stream_custom_tool_call(void **s) { (void)s; replay_check(&proto, DIR, "custom_tool"); }
static void stream_parallel_tool_calls(void **s) { (void)s; replay_check(&proto, DIR, "parallel_tools"); }
static void stream_reasoning_summary(void **s) { (void)s; replay_check(&proto, DIR, "reasoning"); }
static void stream_response_failed(void **s) { (void)s; replay_check(&proto, DIR, "stream_error"); }
static void stream_usage_with_cached_tokens(void **s) { (void)s; replay_check(&proto, DIR, "usage_cached"); }
static void stream_cut_before_output_retryable(void **s) { (void)s; replay_check(&proto, DIR, "cut_before_output"); }
static void stream_cut_after_text_final(void **s) { (void)s; replay_check(&proto, DIR, "cut_after_text"); }

/* The fast path takes the frequent delta events and leaves the rest (and
 * anything it is unsure of: bad escapes, repeated keys) to jansson. */
static void feed_one(zresp_parser *p, const char *data, size_t hits) {
  zerr err = ZERR_INIT;
  zresp_parser_feed(p, data, strlen(data), &err);
  if (p->turn.fast_hits != hits)
    fail_msg("fast_hits %zu, expected %zu after %s", p->turn.fast_hits, hits, data);
}

static void fast_path_takes_delta_events(void **s) {
  (void)s;
  zresp_parser p;
  zresp_parser_init(&p, "test", NULL, NULL);
  feed_one(&p, "{\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"output_index\":0,\"delta\":\"hi\"}", 1);
  feed_one(&p, "{\"type\":\"response.content_part.done\",\"part\":{\"text\":\"whole\"}}", 2);
  feed_one(&p, "{\"type\":\"response.output_text.delta\",\"delta\":\"\xff\"}", 2);
  /* The end of the response: its usage is read without a tree of the rest
   * (the official API echoes instructions and tools there). */
  feed_one(&p, "{\"type\":\"response.completed\",\"response\":{\"instructions\":\"long\","
               "\"tools\":[{\"type\":\"function\"}],\"usage\":{\"input_tokens\":7,"
               "\"output_tokens\":2}}}", 3);
  assert_true(p.turn.complete);
  assert_int_equal(p.turn.usage.prompt_tokens, 7);
  assert_int_equal(p.turn.usage.total_tokens, 9);
  zresp_parser_release(&p);

  /* A repeated usage (jansson keeps the last) and a response that is not an
   * object go through jansson. */
  zresp_parser_init(&p, "test", NULL, NULL);
  feed_one(&p, "{\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":1},"
               "\"usage\":{\"input_tokens\":4}}}", 0);
  assert_int_equal(p.turn.usage.prompt_tokens, 4);
  zresp_parser_release(&p);
  zresp_parser_init(&p, "test", NULL, NULL);
  feed_one(&p, "{\"type\":\"response.incomplete\",\"response\":null}", 0);
  assert_true(p.turn.complete);
  zresp_parser_release(&p);
  zresp_parser_init(&p, "test", NULL, NULL);
  feed_one(&p, "{\"type\":\"response.incomplete\",\"response\":{\"incomplete_details\":"
               "{\"reason\":\"content_filter\"}}}", 1);
  assert_string_equal(p.turn.finish_reason, "content_filter");
  zresp_parser_release(&p);
}
static void stream_fast_path_edge_cases(void **s) { (void)s; replay_check(&proto, DIR, "fastpath"); }

static void incomplete_is_length(void **s) {
  (void)s;
  zbuf out = ZBUF_INIT;
  zresp_parser p;
  zresp_parser_init(&p, "openai", replay_record, &out);
  zerr err = ZERR_INIT;
  const char *ev = "{\"type\":\"response.incomplete\",\"response\":{\"incomplete_details\":"
                   "{\"reason\":\"max_output_tokens\"},\"usage\":{\"input_tokens\":5,"
                   "\"output_tokens\":7}}}";
  assert_int_equal(zresp_parser_feed(&p, ev, strlen(ev), &err), 0);
  assert_int_equal(zresp_parser_finish(&p, &err), 0);
  assert_non_null(strstr(out.data, "DONE length"));
  assert_non_null(strstr(out.data, "prompt=5 completion=7 total=12"));
  zresp_parser_release(&p);
  zbuf_release(&out);
}

/* A server that sends the message whole (output_item.done) without
 * output_text deltas still gives its text; with deltas it is not doubled. */
static void message_without_deltas_keeps_its_text(void **s) {
  (void)s;
  const char *done = "{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":"
                     "{\"type\":\"message\",\"id\":\"m1\",\"role\":\"assistant\",\"content\":"
                     "[{\"type\":\"output_text\",\"text\":\"whole answer\"}]}}";
  const char *delta = "{\"type\":\"response.output_text.delta\",\"item_id\":\"m1\","
                      "\"output_index\":0,\"content_index\":0,\"delta\":\"whole answer\"}";
  const char *end = "{\"type\":\"response.completed\",\"response\":{\"usage\":"
                    "{\"input_tokens\":1,\"output_tokens\":2}}}";
  for (int with_delta = 0; with_delta < 2; with_delta++) {
    for (int slow = 0; slow < 2; slow++) {
      zbuf out = ZBUF_INIT;
      zresp_parser p;
      zresp_parser_init(&p, "openai", replay_record, &out);
      p.turn.slow_only = slow;
      zerr err = ZERR_INIT;
      if (with_delta) assert_int_equal(zresp_parser_feed(&p, delta, strlen(delta), &err), 0);
      assert_int_equal(zresp_parser_feed(&p, done, strlen(done), &err), 0);
      assert_int_equal(zresp_parser_feed(&p, end, strlen(end), &err), 0);
      assert_int_equal(zresp_parser_finish(&p, &err), 0);
      const char *first = strstr(out.data, "whole answer");
      assert_non_null(first);
      assert_null(strstr(first + 1, "whole answer")); /* once, not twice */
      zresp_parser_release(&p);
      zbuf_release(&out);
    }
  }
}

/* An event that is not a JSON object: an error naming the API. */
static void not_an_object_names_the_api(void **s) {
  (void)s;
  replay_check_not_object(&proto, "openai",
                          "the OpenAI Responses API (set \"wireApi\": \"chat\" in the profile)");
}

static zprov_opts opts(const char *kind) {
  zprov_opts o;
  memset(&o, 0, sizeof o);
  o.name = "openai";
  o.kind = kind;
  o.base_url = "https://api.openai.com/v1";
  o.model = "gpt-5";
  return o;
}

static void render_items_and_official_fields(void **s) {
  (void)s;
  zprov_opts o = opts("openai");
  o.cache_key = "zero_20250101_1";
  o.reasoning_effort = "low";
  zconv c = ZCONV_INIT;
  zmsg *u = zconv_add_user(&c, "what is in this image?");
  zmsg_add_image(u, "image/png", "iVBORw0KGgo=");
  zmsg *a = zconv_add_assistant(&c, "Let me look.", NULL);
  zmsg_add_call(a, "call_1", "read_file", "{\"path\":\"x\"}");
  zconv_add_tool_result(&c, "call_1", "read_file", "data", 0);
  json_t *tools = json_pack("[{s:s, s:s, s:{s:s}}]", "name", "read_file", "description", "d",
                            "parameters", "type", "object");
  zprov_request r = {.system = "be brief", .conv = &c, .tools = tools};
  json_t *b = zresp_render(&o, &r);
  assert_string_equal(zjson_str(b, "instructions"), "be brief");
  assert_string_equal(zjson_str(b, "prompt_cache_key"), "zero_20250101_1");
  assert_true(json_is_false(json_object_get(b, "store")));
  assert_string_equal(zjson_str(json_object_get(b, "reasoning"), "effort"), "low");
  json_t *in = json_object_get(b, "input");
  assert_int_equal(json_array_size(in), 4);
  json_t *uc = json_object_get(json_array_get(in, 0), "content");
  assert_string_equal(zjson_str(json_array_get(uc, 1), "type"), "input_image");
  assert_non_null(strstr(zjson_str(json_array_get(uc, 1), "image_url"), "data:image/png;base64,"));
  assert_string_equal(zjson_str(json_array_get(in, 2), "type"), "function_call");
  assert_string_equal(zjson_str(json_array_get(in, 2), "call_id"), "call_1");
  assert_string_equal(zjson_str(json_array_get(in, 3), "type"), "function_call_output");
  json_t *t0 = json_array_get(json_object_get(b, "tools"), 0);
  assert_string_equal(zjson_str(t0, "type"), "function");
  assert_string_equal(zjson_str(t0, "name"), "read_file");
  json_decref(b);
  /* A compatible endpoint gets none of the vendor-only fields. */
  o.kind = "openai-compatible";
  b = zresp_render(&o, &r);
  assert_null(json_object_get(b, "prompt_cache_key"));
  assert_null(json_object_get(b, "store"));
  json_decref(b);
  json_decref(tools);
  zconv_release(&c);
  cleanup_free char *url = zresp_url("https://api.openai.com/v1/");
  assert_string_equal(url, "https://api.openai.com/v1/responses");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(not_an_object_names_the_api),
      cmocka_unit_test(stream_text_only),
      cmocka_unit_test(stream_one_tool_call),
      cmocka_unit_test(stream_parallel_tool_calls),
      cmocka_unit_test(stream_custom_tool_call),
      cmocka_unit_test(stream_reasoning_summary),
      cmocka_unit_test(stream_response_failed),
      cmocka_unit_test(stream_usage_with_cached_tokens),
      cmocka_unit_test(stream_cut_before_output_retryable),
      cmocka_unit_test(fast_path_takes_delta_events),
      cmocka_unit_test(stream_fast_path_edge_cases),
      cmocka_unit_test(stream_cut_after_text_final),
      cmocka_unit_test(incomplete_is_length),
      cmocka_unit_test(message_without_deltas_keeps_its_text),
      cmocka_unit_test(render_items_and_official_fields),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
