/* test_anthropic.c — the Anthropic Messages stream parser on recorded-format
 * fixtures (whole and split at every byte), request rendering (thinking
 * budget, cache_control, tool_result, thinking replay, images), URL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stream_replay.h"
#include "provider/anthropic.h"

#define DIR FIXTURES_DIR "/anthropic"

static void p_init(void *p, zprov_event_fn fn, void *ud) { zanth_parser_init(p, "anthropic", fn, ud); }
static int p_feed(void *p, const char *d, size_t n, zerr *e) { return zanth_parser_feed(p, d, n, e); }
static int p_finish(void *p, zerr *e) { return zanth_parser_finish(p, e); }
static void p_release(void *p) { zanth_parser_release(p); }
static void p_slow(void *p, bool slow) { ((zanth_parser *)p)->turn.slow_only = slow; }
static const replay_proto proto = {sizeof(zanth_parser), p_init, p_feed, p_finish, p_release, p_slow};

static void stream_text_only(void **s) { (void)s; replay_check(&proto, DIR, "text"); }
static void stream_one_tool_call(void **s) { (void)s; replay_check(&proto, DIR, "tool_call"); }
static void stream_parallel_tool_calls(void **s) { (void)s; replay_check(&proto, DIR, "parallel_tools"); }
static void stream_thinking_with_signature(void **s) { (void)s; replay_check(&proto, DIR, "reasoning"); }
static void stream_overloaded_error_event(void **s) { (void)s; replay_check(&proto, DIR, "stream_error"); }
static void stream_usage_with_cache_hits(void **s) { (void)s; replay_check(&proto, DIR, "usage_cached"); }
static void stream_ping_anywhere(void **s) { (void)s; replay_check(&proto, DIR, "ping"); }
static void stream_cut_before_output_retryable(void **s) { (void)s; replay_check(&proto, DIR, "cut_before_output"); }
static void stream_cut_after_text_final(void **s) { (void)s; replay_check(&proto, DIR, "cut_after_text"); }

/* The fast path takes the frequent delta events and leaves the rest (and
 * anything it is unsure of: bad escapes, repeated keys) to jansson. */
static void feed_one(zanth_parser *p, const char *data, size_t hits) {
  zerr err = ZERR_INIT;
  zanth_parser_feed(p, data, strlen(data), &err);
  if (p->turn.fast_hits != hits)
    fail_msg("fast_hits %zu, expected %zu after %s", p->turn.fast_hits, hits, data);
}

static void fast_path_takes_delta_events(void **s) {
  (void)s;
  zanth_parser p;
  zanth_parser_init(&p, "test", NULL, NULL);
  feed_one(&p, "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}", 0);
  feed_one(&p, "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}", 1);
  feed_one(&p, "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\\ud800\"}}", 1);
  feed_one(&p, "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\",\"text\":\"b\"}}", 1);
  zanth_parser_release(&p);
}
static void stream_fast_path_edge_cases(void **s) { (void)s; replay_check(&proto, DIR, "fastpath"); }

/* An event that is not a JSON object: an error naming the API. */
static void not_an_object_names_the_api(void **s) {
  (void)s;
  replay_check_not_object(&proto, "anthropic", "the Anthropic Messages API");
}

static zprov_opts opts(const char *kind) {
  zprov_opts o;
  memset(&o, 0, sizeof o);
  o.name = "anthropic";
  o.kind = kind;
  o.base_url = "https://api.anthropic.com";
  o.model = "claude-sonnet-4-5";
  return o;
}

static void render_thinking_budget_by_effort(void **s) {
  (void)s;
  assert_int_equal(zanth_thinking_budget("minimal"), 1024);
  assert_int_equal(zanth_thinking_budget("low"), 4096);
  assert_int_equal(zanth_thinking_budget("medium"), 10000);
  assert_int_equal(zanth_thinking_budget("high"), 24000);
  assert_int_equal(zanth_thinking_budget(NULL), 0);
  zprov_opts o = opts("anthropic");
  o.reasoning_effort = "high";
  o.max_output_tokens = 8192;
  zconv c = ZCONV_INIT;
  zconv_add_user(&c, "hi");
  zprov_request r = {.system = "sys", .conv = &c};
  json_t *b = zanth_render(&o, &r);
  json_t *th = json_object_get(b, "thinking");
  assert_string_equal(zjson_str(th, "type"), "enabled");
  assert_int_equal(zjson_int_or(th, "budget_tokens", 0), 24000);
  /* max_tokens raised above the budget. */
  assert_true(zjson_int_or(b, "max_tokens", 0) > 24000);
  json_decref(b);
  o.reasoning_effort = NULL;
  b = zanth_render(&o, &r);
  assert_null(json_object_get(b, "thinking"));
  assert_int_equal(zjson_int_or(b, "max_tokens", 0), 8192);
  json_decref(b);
  zconv_release(&c);
}

static void render_tool_results_cache_and_thinking_replay(void **s) {
  (void)s;
  zprov_opts o = opts("anthropic");
  o.reasoning_effort = "low";
  zconv c = ZCONV_INIT;
  zmsg *u = zconv_add_user(&c, "look");
  zmsg_add_image(u, "image/png", "iVBORw0KGgo=");
  zmsg *a = zconv_add_assistant(&c, "Reading.", "thinking…");
  zmsg_add_thinking(a, "thinking…", "SIG1", 0);
  zmsg_add_call(a, "toolu_1", "read_file", "{\"path\":\"a\"}");
  zmsg_add_call(a, "toolu_2", "read_file", "not json");
  zconv_add_tool_result(&c, "toolu_1", "read_file", "content", 0);
  zconv_add_tool_result(&c, "toolu_2", "read_file", "no such file", 1);
  zprov_request r = {.system = "sys", .conv = &c};
  json_t *b = zanth_render(&o, &r);
  cleanup_free char *dump = zjson_dumps(b);
  json_t *msgs = json_object_get(b, "messages");
  assert_int_equal(json_array_size(msgs), 3); /* user, assistant, user(tool results) */
  json_t *m0 = json_array_get(msgs, 0);
  assert_string_equal(zjson_str(json_array_get(json_object_get(m0, "content"), 0), "type"), "image");
  json_t *m1c = json_object_get(json_array_get(msgs, 1), "content");
  assert_string_equal(zjson_str(json_array_get(m1c, 0), "type"), "thinking");
  assert_string_equal(zjson_str(json_array_get(m1c, 0), "signature"), "SIG1");
  assert_string_equal(zjson_str(json_array_get(m1c, 2), "type"), "tool_use");
  assert_true(json_is_object(json_object_get(json_array_get(m1c, 3), "input")));
  json_t *m2c = json_object_get(json_array_get(msgs, 2), "content");
  assert_int_equal(json_array_size(m2c), 2);
  assert_string_equal(zjson_str(json_array_get(m2c, 0), "tool_use_id"), "toolu_1");
  assert_true(json_is_true(json_object_get(json_array_get(m2c, 1), "is_error")));
  /* cache_control on the system prompt and the newest message. */
  assert_non_null(json_object_get(json_array_get(json_object_get(b, "system"), 0), "cache_control"));
  assert_non_null(json_object_get(json_array_get(m2c, 1), "cache_control"));
  json_decref(b);
  /* A compatible endpoint gets no vendor-only cache_control. */
  o.kind = "anthropic-compatible";
  b = zanth_render(&o, &r);
  dump = (free(dump), zjson_dumps(b));
  assert_null(strstr(dump, "cache_control"));
  json_decref(b);
  zconv_release(&c);
}

/* The adaptive shape (Opus 4.7+, Sonnet 5+, Fable): thinking adaptive with
 * summarized display, the effort in output_config, never budget_tokens. */
static void render_adaptive_thinking(void **s) {
  (void)s;
  zprov_opts o = opts("anthropic");
  o.model = "claude-opus-4-8";
  o.thinking = ZPT_ADAPTIVE;
  o.reasoning_effort = "xhigh";
  o.max_output_tokens = 8192;
  zconv c = ZCONV_INIT;
  zconv_add_user(&c, "hi");
  zprov_request r = {.system = "sys", .conv = &c};
  json_t *b = zanth_render(&o, &r);
  cleanup_free char *th = zjson_dumps(json_object_get(b, "thinking"));
  assert_string_equal(th, "{\"type\":\"adaptive\",\"display\":\"summarized\"}");
  cleanup_free char *oc = zjson_dumps(json_object_get(b, "output_config"));
  assert_string_equal(oc, "{\"effort\":\"xhigh\"}");
  assert_int_equal(zjson_int_or(b, "max_tokens", 0), 8192); /* no budget to make room for */
  json_decref(b);
  /* minimal has no output_config level: the nearest, low. */
  o.reasoning_effort = "minimal";
  b = zanth_render(&o, &r);
  assert_string_equal(zjson_str(json_object_get(b, "output_config"), "effort"), "low");
  json_decref(b);
  /* No effort: an adaptive model that thinks only when asked is not asked. */
  o.reasoning_effort = NULL;
  b = zanth_render(&o, &r);
  assert_null(json_object_get(b, "thinking"));
  assert_null(json_object_get(b, "output_config"));
  json_decref(b);
  /* A model that thinks unasked is asked for its summarized text, with its
   * own default effort. */
  o.thinking = ZPT_ADAPTIVE_ON;
  o.model = "claude-fable-5-1";
  b = zanth_render(&o, &r);
  assert_string_equal(zjson_str(json_object_get(b, "thinking"), "type"), "adaptive");
  assert_null(json_object_get(b, "output_config"));
  json_decref(b);
  o.reasoning_effort = "none"; /* nothing to turn off: the same */
  b = zanth_render(&o, &r);
  assert_null(json_object_get(b, "output_config"));
  json_decref(b);
  /* No thinking control at all: nothing, whatever the effort. */
  o.thinking = ZPT_NONE;
  o.reasoning_effort = "high";
  b = zanth_render(&o, &r);
  assert_null(json_object_get(b, "thinking"));
  assert_null(json_object_get(b, "output_config"));
  json_decref(b);
  /* A budget model: xhigh / max are bigger budgets, none is off. */
  o.thinking = ZPT_BUDGET;
  o.reasoning_effort = "none";
  b = zanth_render(&o, &r);
  assert_null(json_object_get(b, "thinking"));
  json_decref(b);
  assert_int_equal(zanth_thinking_budget("xhigh"), 32000);
  assert_int_equal(zanth_thinking_budget("max"), 48000);
  assert_int_equal(zanth_thinking_budget("none"), 0);
  zconv_release(&c);
}

/* A tool loop on an adaptive model: the assistant turn goes back with its
 * signed blocks first, as received: an omitted-display block (empty text,
 * signature only) and a redacted one, in their order; no cache_control on a
 * thinking block. Without thinking on, none are sent. */
static void render_adaptive_replay_exact(void **s) {
  (void)s;
  zprov_opts o = opts("anthropic");
  o.model = "claude-opus-5-5";
  o.thinking = ZPT_ADAPTIVE_ON;
  zconv c = ZCONV_INIT;
  zconv_add_user(&c, "look");
  zmsg *a = zconv_add_assistant(&c, NULL, NULL);
  zmsg_add_thinking(a, "", "SIG-omitted", 0);
  zmsg_add_thinking(a, NULL, "REDACTED-DATA", 1);
  zmsg_add_call(a, "toolu_1", "list_directory", "{}");
  zconv_add_tool_result(&c, "toolu_1", "list_directory", "a.txt", 0);
  zmsg *only = zconv_add_assistant(&c, NULL, NULL); /* a turn that only thought */
  zmsg_add_thinking(only, "hm", "SIG-2", 0);
  zconv_add_user(&c, "and?");
  zprov_request r = {.system = "sys", .conv = &c};
  json_t *b = zanth_render(&o, &r);
  json_t *m1c = json_object_get(json_array_get(json_object_get(b, "messages"), 1), "content");
  cleanup_free char *got = zjson_dumps(m1c);
  assert_string_equal(got, "[{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":"
                           "\"SIG-omitted\"},{\"type\":\"redacted_thinking\",\"data\":"
                           "\"REDACTED-DATA\"},{\"type\":\"tool_use\",\"id\":\"toolu_1\","
                           "\"name\":\"list_directory\",\"input\":{}}]");
  cleanup_free char *all = zjson_dumps(json_object_get(b, "messages"));
  json_t *m3c = json_object_get(json_array_get(json_object_get(b, "messages"), 3), "content");
  assert_null(json_object_get(json_array_get(m3c, 0), "cache_control"));
  json_decref(b);
  o.thinking = ZPT_ADAPTIVE; /* no effort: thinking off, nothing replayed */
  b = zanth_render(&o, &r);
  cleanup_free char *off = zjson_dumps(json_object_get(b, "messages"));
  assert_null(strstr(off, "SIG-omitted"));
  assert_null(strstr(off, "REDACTED-DATA"));
  json_decref(b);
  zconv_release(&c);
  (void)all;
}

static void url_forms(void **s) {
  (void)s;
  cleanup_free char *a = zanth_url("https://api.anthropic.com");
  assert_string_equal(a, "https://api.anthropic.com/v1/messages");
  cleanup_free char *b = zanth_url("http://127.0.0.1:9/v1/");
  assert_string_equal(b, "http://127.0.0.1:9/v1/messages");
  cleanup_free char *c = zanth_url("https://gw.example/anthropic/v1/messages");
  assert_string_equal(c, "https://gw.example/anthropic/v1/messages");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(not_an_object_names_the_api),
      cmocka_unit_test(stream_text_only),
      cmocka_unit_test(stream_one_tool_call),
      cmocka_unit_test(stream_parallel_tool_calls),
      cmocka_unit_test(stream_thinking_with_signature),
      cmocka_unit_test(stream_overloaded_error_event),
      cmocka_unit_test(stream_usage_with_cache_hits),
      cmocka_unit_test(stream_ping_anywhere),
      cmocka_unit_test(stream_cut_before_output_retryable),
      cmocka_unit_test(fast_path_takes_delta_events),
      cmocka_unit_test(stream_fast_path_edge_cases),
      cmocka_unit_test(stream_cut_after_text_final),
      cmocka_unit_test(render_thinking_budget_by_effort),
      cmocka_unit_test(render_tool_results_cache_and_thinking_replay),
      cmocka_unit_test(render_adaptive_thinking),
      cmocka_unit_test(render_adaptive_replay_exact),
      cmocka_unit_test(url_forms),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
