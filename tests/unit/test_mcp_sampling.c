/* test_mcp_sampling.c — a server's sampling/createMessage as zero reads and
 * answers it (mcp/sampling.h): messages into a provider conversation,
 * maxTokens capped, what zero does not offer refused, the preview a prompt
 * shows, the result's shape and stop reasons, the per-server rate limit
 * (with given times: no clock), and the permission module's decision. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "mcp/sampling.h"
#include "perm/engine.h"

static json_t *J(const char *text) {
  json_error_t je;
  json_t *v = json_loads(text, 0, &je);
  if (!v) fail_msg("bad test JSON: %s", je.text);
  return v;
}

static void test_parse_messages_system_and_cap(void **state) {
  (void)state;
  json_t *p =
      J("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hi\"}},"
        "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
        "{\"type\":\"text\",\"text\":\"b\"}]},"
        "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"look\"},"
        "{\"type\":\"image\",\"mimeType\":\"image/png\",\"data\":\"AAAA\"}]}],"
        "\"systemPrompt\":\"be brief\",\"maxTokens\":100000,"
        "\"modelPreferences\":{\"hints\":[{\"name\":\"claude-3\"},{\"x\":1}]}}");
  zmcp_sampling_req rq;
  zerr err = ZERR_INIT;
  assert_int_equal(zmcp_sampling_parse(p, &rq, &err), 0);
  assert_string_equal(rq.system, "be brief");
  assert_int_equal(rq.conv.len, 3);
  assert_int_equal(rq.conv.items[0].role, ZROLE_USER);
  assert_string_equal(rq.conv.items[0].content, "hi");
  assert_int_equal(rq.conv.items[1].role, ZROLE_ASSISTANT);
  assert_string_equal(rq.conv.items[1].content, "a\nb");
  assert_int_equal(rq.conv.items[2].nimages, 1);
  assert_string_equal(rq.conv.items[2].images[0].media_type, "image/png");
  /* A server cannot make zero spend more than the cap on one answer. */
  assert_int_equal(rq.max_tokens, ZMCP_SAMPLING_MAX_TOKENS);
  assert_int_equal(rq.asked_tokens, 100000);
  assert_int_equal(json_array_size(rq.hints), 1);
  assert_string_equal(json_string_value(json_array_get(rq.hints, 0)), "claude-3");
  zmcp_sampling_req_release(&rq);
  json_decref(p);

  /* Under the cap: as asked. */
  p = J("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"x\"}}],"
        "\"maxTokens\":100}");
  assert_int_equal(zmcp_sampling_parse(p, &rq, &err), 0);
  assert_int_equal(rq.max_tokens, 100);
  assert_null(rq.system);
  zmcp_sampling_req_release(&rq);
  json_decref(p);
}

/* Each refusal names what zero does not take. */
static void test_parse_refuses_what_zero_does_not_offer(void **state) {
  (void)state;
  static const struct {
    const char *params, *says;
  } cases[] = {
      {"{\"messages\":[]}", "non-empty"},
      {"{\"maxTokens\":5}", "non-empty"},
      {"{\"messages\":[{\"role\":\"system\",\"content\":{\"type\":\"text\",\"text\":\"x\"}}]}",
       "role"},
      {"{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"audio\",\"data\":\"AA\","
       "\"mimeType\":\"audio/wav\"}}]}",
       "\"audio\""},
      {"{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"x\"}}],"
       "\"tools\":[{\"name\":\"t\"}]}",
       "no tools"},
      {"{\"messages\":[{\"role\":\"assistant\",\"content\":{\"type\":\"tool_use\",\"id\":\"1\","
       "\"name\":\"t\",\"input\":{}}}]}",
       "no tools"},
      {"{\"messages\":[{\"role\":\"assistant\",\"content\":{\"type\":\"image\","
       "\"mimeType\":\"image/png\",\"data\":\"AA\"}}]}",
       "user messages"},
      {"{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"image\","
       "\"mimeType\":\"image/tiff\",\"data\":\"AA\"}}]}",
       "PNG"},
      {"{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"x\"}}],"
       "\"maxTokens\":0}",
       "maxTokens"},
      {"{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"x\"}}],"
       "\"systemPrompt\":7}",
       "systemPrompt"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    json_t *p = J(cases[i].params);
    zmcp_sampling_req rq;
    zerr err = ZERR_INIT;
    assert_int_equal(zmcp_sampling_parse(p, &rq, &err), -1);
    assert_int_equal(err.kind, ZE_USAGE);
    if (!strstr(err.msg, cases[i].says))
      fail_msg("case %zu: \"%s\" does not say \"%s\"", i, err.msg, cases[i].says);
    assert_null(rq.hints); /* released on failure */
    json_decref(p);
  }
}

static void test_preview_is_bounded(void **state) {
  (void)state;
  zbuf big = ZBUF_INIT;
  for (int i = 0; i < 400; i++) zbuf_addstr(&big, "é"); /* two bytes each */
  json_t *p = json_pack("{s:[{s:s, s:{s:s, s:s}}], s:s}", "messages", "role", "user", "content",
                        "type", "text", "text", big.data, "systemPrompt", "sys");
  zmcp_sampling_req rq;
  zerr err = ZERR_INIT;
  assert_int_equal(zmcp_sampling_parse(p, &rq, &err), 0);
  zbuf out = ZBUF_INIT;
  zmcp_sampling_preview(&rq, &out);
  assert_true(strncmp(out.data, "system: sys\nuser: é", 20) == 0);
  assert_true(out.len <= ZMCP_SAMPLING_PREVIEW + strlen("…"));
  /* cut on a character boundary, then the ellipsis */
  assert_string_equal(out.data + out.len - strlen("…"), "…");
  assert_true(((unsigned char)out.data[out.len - strlen("…") - 1] & 0xC0) != 0xC0);
  zbuf_release(&out);
  zbuf_release(&big);
  zmcp_sampling_req_release(&rq);
  json_decref(p);
}

static void test_result_shape_and_stop_reasons(void **state) {
  (void)state;
  json_t *r = zmcp_sampling_result("hello", "gpt-x", "stop");
  char *s = json_dumps(r, JSON_SORT_KEYS | JSON_COMPACT);
  assert_string_equal(s, "{\"content\":{\"text\":\"hello\",\"type\":\"text\"},\"model\":\"gpt-x\","
                         "\"role\":\"assistant\",\"stopReason\":\"endTurn\"}");
  free(s);
  json_decref(r);
  assert_string_equal(zmcp_sampling_stop_reason("length"), "maxTokens");
  assert_string_equal(zmcp_sampling_stop_reason("max_tokens"), "maxTokens");
  assert_string_equal(zmcp_sampling_stop_reason(NULL), "endTurn");
  assert_string_equal(zmcp_sampling_stop_reason("content_filter"), "content_filter");
}

/* N in a window, then refused until the oldest leaves it (times given). */
static void test_rate_limit_window(void **state) {
  (void)state;
  zmcp_rate r = {0};
  int64_t t0 = 1000000;
  for (int i = 0; i < ZMCP_SAMPLING_PER_MINUTE; i++) assert_true(zmcp_rate_take(&r, t0 + i));
  assert_false(zmcp_rate_take(&r, t0 + 59999));
  assert_true(zmcp_rate_take(&r, t0 + 60000));  /* the first left the window */
  assert_false(zmcp_rate_take(&r, t0 + 60000)); /* the second is still in it */
  assert_true(zmcp_rate_take(&r, t0 + 60001));
  /* refusals are not counted: a minute after the last takes, all free again */
  for (int i = 0; i < ZMCP_SAMPLING_PER_MINUTE; i++)
    assert_true(zmcp_rate_take(&r, t0 + 200000 + i));
  assert_false(zmcp_rate_take(&r, t0 + 200000 + ZMCP_SAMPLING_PER_MINUTE));
}

/* The permission module: asked in every mode but unsafe; no grant answers it. */
static void test_sampling_decision(void **state) {
  (void)state;
  ztool stand_in = {.name = "mcp_sampling", .side_effect = ZSIDE_NETWORK};
  zperm_call c = {.tool = &stand_in, .mcp_server = "srv", .mcp_sampling = true};
  static const zperm_mode asked[] = {ZPERM_ASK, ZPERM_AUTO, ZPERM_PLAN, ZPERM_ACCEPT_EDITS};
  for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++) {
    zperm_engine e = {.mode = asked[i]};
    zperm_decision d = zperm_decide_call(&e, &c);
    assert_int_equal(d.action, ZPERM_PROMPT);
    assert_string_equal(d.code, "sampling");
    assert_non_null(strstr(d.reason, "\"srv\""));
    assert_non_null(strstr(d.allow_hint, "--skip-permissions-unsafe"));
  }
  zperm_engine e = {.mode = ZPERM_UNSAFE};
  assert_int_equal(zperm_decide_call(&e, &c).action, ZPERM_ALLOW);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_messages_system_and_cap),
      cmocka_unit_test(test_parse_refuses_what_zero_does_not_offer),
      cmocka_unit_test(test_preview_is_bounded),
      cmocka_unit_test(test_result_shape_and_stop_reasons),
      cmocka_unit_test(test_rate_limit_window),
      cmocka_unit_test(test_sampling_decision),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
