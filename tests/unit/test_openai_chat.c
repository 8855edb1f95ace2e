/* test_openai_chat.c — the OpenAI Chat Completions stream parser (fed from
 * recorded-style SSE fixtures, whole and split at every byte), request
 * rendering, HTTP error messages and the retry policy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/time.h"
#include "base/json.h"
#include "net/sse.h"
#include "provider/openai_chat.h"
#include "provider/provider.h"
#include "provider/retry.h"

#define OAI_DIR FIXTURES_DIR "/openai_chat/"

/* ------------------------------------------------------------ transcript */

/* One line per event, in the format of the *.events fixture files. */
static void add_quoted(zbuf *out, const char *s, size_t len) {
  json_t *j = json_stringn(s, len);
  assert_non_null(j);
  zjson_dump_to(j, out);
  json_decref(j);
}

static int record_event(void *ud, const zprov_event *ev) {
  zbuf *out = ud;
  switch (ev->kind) {
    case ZPEV_TEXT:
      zbuf_addstr(out, "TEXT ");
      add_quoted(out, ev->text, ev->len);
      break;
    case ZPEV_REASONING:
      zbuf_addstr(out, "REASONING ");
      add_quoted(out, ev->text, ev->len);
      break;
    case ZPEV_TOOL_START:
      zbuf_addf(out, "TOOL_START %d %s %s", ev->index, ev->id, ev->name);
      break;
    case ZPEV_TOOL_ARGS:
      zbuf_addf(out, "TOOL_ARGS %d ", ev->index);
      add_quoted(out, ev->text, ev->len);
      break;
    case ZPEV_TOOL_END:
      zbuf_addf(out, "TOOL_END %d %s %s ", ev->index, ev->id, ev->name);
      add_quoted(out, ev->arguments, strlen(ev->arguments));
      break;
    case ZPEV_USAGE:
      zbuf_addf(out, "USAGE prompt=%lld completion=%lld total=%lld cached=%lld reasoning=%lld",
                (long long)ev->usage.prompt_tokens, (long long)ev->usage.completion_tokens,
                (long long)ev->usage.total_tokens, (long long)ev->usage.cached_tokens,
                (long long)ev->usage.reasoning_tokens);
      break;
    case ZPEV_RETRY:
      zbuf_addf(out, "RETRY attempt=%d delay=%lld %s", ev->attempt, (long long)ev->delay_ms,
                ev->text);
      break;
    case ZPEV_DONE:
      zbuf_addf(out, "DONE %s", ev->finish_reason);
      break;
    case ZPEV_THINKING:
      zbuf_addstr(out, "THINKING");
      break;
  }
  zbuf_addch(out, '\n');
  return 0;
}

typedef struct feed_ctx {
  zoai_chat_parser parser;
  zerr perr;
} feed_ctx;

static int feed_sse_event(void *ud, const zsse_event *ev) {
  feed_ctx *c = ud;
  return zoai_chat_parser_feed(&c->parser, ev->data, ev->data_len, &c->perr) < 0 ? 1 : 0;
}

/* Runs `data` through zsse + the parser in pieces of `piece` bytes (0 =
 * whole), or split once at `split` when piece is SIZE_MAX; returns the
 * transcript (caller frees), ending in an ERROR line on failure. */
static char *run_stream_path(const char *data, size_t len, size_t piece, size_t split,
                             bool slow) {
  zbuf out = ZBUF_INIT;
  feed_ctx c;
  zoai_chat_parser_init(&c.parser, "test", record_event, &out);
  c.parser.turn.slow_only = slow;
  zerr_clear(&c.perr);
  zsse_parser sse;
  zsse_init(&sse, feed_sse_event, &c, ZSSE_DEFAULT_MAX_EVENT);
  int rc = 0;
  if (piece == SIZE_MAX) {
    rc = zsse_feed(&sse, data, split, &c.perr);
    if (rc == 0) rc = zsse_feed(&sse, data + split, len - split, &c.perr);
  } else {
    size_t step = piece ? piece : (len ? len : 1);
    for (size_t off = 0; off < len && rc == 0; off += step)
      rc = zsse_feed(&sse, data + off, len - off < step ? len - off : step, &c.perr);
  }
  if (rc == 0) {
    zsse_finish(&sse);
    rc = zoai_chat_parser_finish(&c.parser, &c.perr);
  }
  if (rc != 0)
    zbuf_addf(&out, "ERROR %s retryable=%d %s\n", zerr_kind_name(c.perr.kind),
              c.perr.retryable ? 1 : 0, c.perr.msg);
  zsse_release(&sse);
  zoai_chat_parser_release(&c.parser);
  return zbuf_detach(&out, NULL);
}

/* The fast path (tree-free scanner) and the jansson slow path must give the
 * identical transcript; returns it (caller frees). */
static char *run_stream(const char *data, size_t len, size_t piece, size_t split) {
  char *fast = run_stream_path(data, len, piece, split, false);
  cleanup_free char *slow = run_stream_path(data, len, piece, split, true);
  if (strcmp(fast, slow) != 0)
    fail_msg("fast and slow paths differ (piece %zu, split %zu)\n--- slow\n%s--- fast\n%s", piece,
             split, slow, fast);
  return fast;
}

static char *read_fixture(const char *name, size_t *len) {
  zbuf b = ZBUF_INIT;
  zerr err = ZERR_INIT;
  char path[512];
  snprintf(path, sizeof path, "%s%s", OAI_DIR, name);
  if (zfs_read_file(path, &b, 1u << 20, &err) < 0) fail_msg("%s", err.msg);
  return zbuf_detach(&b, len);
}

static void check_fixture(const char *stem) {
  char name[128];
  size_t len, elen;
  snprintf(name, sizeof name, "%s.sse", stem);
  cleanup_free char *data = read_fixture(name, &len);
  cleanup_free char *whole = run_stream(data, len, 0, 0);
  snprintf(name, sizeof name, "%s.events", stem);
  if (getenv("ZERO_WRITE_EVENTS")) { /* writes a missing transcript; check it by hand */
    char path[512];
    snprintf(path, sizeof path, "%s%s", OAI_DIR, name);
    if (access(path, F_OK) != 0) {
      FILE *f = fopen(path, "w");
      fputs(whole, f);
      fclose(f);
    }
  }
  cleanup_free char *expected = read_fixture(name, &elen);

  if (strcmp(whole, expected) != 0)
    fail_msg("%s: events differ\n--- expected\n%s--- got\n%s", stem, expected, whole);
  for (size_t k = 0; k <= len; k++) {
    cleanup_free char *split = run_stream(data, len, SIZE_MAX, k);
    if (strcmp(split, whole) != 0)
      fail_msg("%s: split at byte %zu differs\n--- whole\n%s--- split\n%s", stem, k, whole, split);
  }
  for (size_t piece = 1; piece <= 7; piece++) {
    cleanup_free char *pieces = run_stream(data, len, piece, 0);
    if (strcmp(pieces, whole) != 0)
      fail_msg("%s: %zu-byte pieces differ\n--- whole\n%s--- got\n%s", stem, piece, whole, pieces);
  }
}

static void stream_text_only(void **s) { (void)s; check_fixture("text"); }
static void stream_one_tool_call(void **s) { (void)s; check_fixture("tool_call"); }
static void stream_parallel_tool_calls(void **s) { (void)s; check_fixture("parallel_tools"); }
static void stream_reasoning_content(void **s) { (void)s; check_fixture("reasoning"); }
static void stream_reasoning_field_without_done(void **s) {
  (void)s;
  check_fixture("reasoning_field_no_done");
}
static void stream_usage_with_cached_tokens(void **s) { (void)s; check_fixture("usage_cached"); }
static void stream_error_object_fails(void **s) { (void)s; check_fixture("stream_error"); }
static void stream_keepalives_and_crlf(void **s) { (void)s; check_fixture("keepalive"); }
static void stream_cut_after_text_is_final(void **s) { (void)s; check_fixture("cut_after_text"); }
static void stream_cut_before_output_is_retryable(void **s) {
  (void)s;
  check_fixture("cut_before_output");
}

static void stream_fast_path_edge_cases(void **s) { (void)s; check_fixture("fastpath"); }

/* The fast path takes the frequent chunks and leaves the rest (and anything
 * it is unsure of: bad escapes, repeated keys, a new call) to jansson. */
static void chat_feed_one(zoai_chat_parser *p, const char *data, size_t hits) {
  zerr err = ZERR_INIT;
  zoai_chat_parser_feed(p, data, strlen(data), &err);
  if (p->turn.fast_hits != hits)
    fail_msg("fast_hits %zu, expected %zu after %s", p->turn.fast_hits, hits, data);
}

static void fast_path_takes_delta_chunks(void **s) {
  (void)s;
  zoai_chat_parser p;
  zoai_chat_parser_init(&p, "test", NULL, NULL);
  chat_feed_one(&p, "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}", 1);
  chat_feed_one(&p, "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
                    "\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]}}]}", 1);
  chat_feed_one(&p, "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
                    "\"function\":{\"arguments\":\"{}\"}}]}}]}", 2);
  chat_feed_one(&p, "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\udc00\"}}]}", 2);
  chat_feed_one(&p, "{\"choices\":[{\"index\":1,\"delta\":{\"content\":\"x\"}}]}", 2);
  chat_feed_one(&p, "{\"choices\":[],\"usage\":{\"prompt_tokens\":1}}", 2);
  zoai_chat_parser_release(&p);
}

static int stop_on_text(void *ud, const zprov_event *ev) {
  int *n = ud;
  (*n)++;
  return ev->kind == ZPEV_TEXT;
}

static void consumer_stop_cancels(void **s) {
  (void)s;
  int n = 0;
  zoai_chat_parser p;
  zoai_chat_parser_init(&p, "test", stop_on_text, &n);
  zerr err = ZERR_INIT;
  const char *chunk = "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}";
  assert_int_equal(zoai_chat_parser_feed(&p, chunk, strlen(chunk), &err), -1);
  assert_int_equal(err.kind, ZE_CANCELLED);
  assert_int_equal(n, 1);
  zoai_chat_parser_release(&p);
}

static void malformed_chunk_names_provider(void **s) {
  (void)s;
  zoai_chat_parser p;
  zoai_chat_parser_init(&p, "ollama", NULL, NULL);
  zerr err = ZERR_INIT;
  assert_int_equal(zoai_chat_parser_feed(&p, "{\"choices\":[", 12, &err), -1);
  assert_int_equal(err.kind, ZE_PROVIDER);
  assert_non_null(strstr(err.msg, "ollama"));
  zoai_chat_parser_release(&p);
}

static void tool_calls_without_index_are_matched_by_id(void **s) {
  (void)s;
  zbuf out = ZBUF_INIT;
  zoai_chat_parser p;
  zoai_chat_parser_init(&p, "test", record_event, &out);
  zerr err = ZERR_INIT;
  const char *chunks[] = {
      "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"c1\",\"function\":{\"name\":\"a\","
      "\"arguments\":\"{}\"}},{\"id\":\"c2\",\"function\":{\"name\":\"b\",\"arguments\":"
      "{\"k\":1}}}]}}]}",
      "{\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}",
  };
  for (size_t i = 0; i < ZARRAY_LEN(chunks); i++)
    assert_int_equal(zoai_chat_parser_feed(&p, chunks[i], strlen(chunks[i]), &err), 0);
  assert_int_equal(zoai_chat_parser_finish(&p, &err), 0);
  assert_string_equal(out.data,
                      "TOOL_START 0 c1 a\n"
                      "TOOL_ARGS 0 \"{}\"\n"
                      "TOOL_START 1 c2 b\n"
                      "TOOL_ARGS 1 \"{\\\"k\\\":1}\"\n"
                      "TOOL_END 0 c1 a \"{}\"\n"
                      "TOOL_END 1 c2 b \"{\\\"k\\\":1}\"\n"
                      "DONE tool_calls\n");
  zoai_chat_parser_release(&p);
  zbuf_release(&out);
}

static void non_streamed_completion_is_converted(void **s) {
  (void)s;
  zbuf out = ZBUF_INIT;
  zoai_chat_parser p;
  zoai_chat_parser_init(&p, "test", record_event, &out);
  zerr err = ZERR_INIT;
  json_t *c = json_loads(
      "{\"id\":\"x\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
      "{\"role\":\"assistant\",\"content\":\"hi\",\"tool_calls\":[{\"id\":\"t1\",\"type\":"
      "\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":2}\"}}]},"
      "\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,"
      "\"total_tokens\":7}}",
      0, NULL);
  assert_non_null(c);
  assert_int_equal(zoai_chat_parser_feed_completion(&p, c, &err), 0);
  assert_string_equal(out.data,
                      "TEXT \"hi\"\n"
                      "TOOL_START 0 t1 f\n"
                      "TOOL_ARGS 0 \"{\\\"a\\\":2}\"\n"
                      "TOOL_END 0 t1 f \"{\\\"a\\\":2}\"\n"
                      "USAGE prompt=3 completion=4 total=7 cached=0 reasoning=0\n"
                      "DONE tool_calls\n");
  json_decref(c);
  zoai_chat_parser_release(&p);
  zbuf_release(&out);
}

/* ------------------------------------------------------------ rendering */

static zprov_opts test_opts(const char *kind) {
  zprov_opts o;
  memset(&o, 0, sizeof o);
  o.name = "openai";
  o.kind = kind;
  o.base_url = "https://api.openai.com/v1/";
  o.api_key = "sk-test";
  o.api_key_env = "OPENAI_API_KEY";
  o.model = "gpt-4o-mini";
  return o;
}

static void render_full_conversation(void **s) {
  (void)s;
  zconv conv = ZCONV_INIT;
  zconv_add_user(&conv, "list files");
  zmsg *m = zconv_add_assistant(&conv, "Looking.", "secret thoughts");
  zmsg_add_call(m, "call_1", "list_dir", "{\"path\":\".\"}");
  zmsg_add_call(m, "call_2", "read_file", "");
  zconv_add_tool_result(&conv, "call_1", "list_dir", "a.c\nb.c", 0);
  zconv_add_tool_result(&conv, "call_2", "read_file", "error: missing path", 1);
  m = zconv_add_assistant(&conv, NULL, NULL);
  zmsg_add_call(m, "call_3", "grep", "{\"pattern\":\"x\"}");
  zconv_add_tool_result(&conv, "call_3", "grep", "", 0);
  zconv_add_assistant(&conv, "Two files.", NULL);
  json_t *tools = json_loads(
      "[{\"name\":\"list_dir\",\"description\":\"List a directory\",\"parameters\":{\"type\":"
      "\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}},"
      "{\"name\":\"now\"}]",
      0, NULL);
  zprov_request req = {"You are zero.", &conv, tools, 0};
  zprov_opts o = test_opts("openai-compatible");
  json_t *body = zoai_chat_render(&o, &req);
  cleanup_free char *got = zjson_dumps(body);
  assert_string_equal(
      got,
      "{\"model\":\"gpt-4o-mini\",\"messages\":["
      "{\"role\":\"system\",\"content\":\"You are zero.\"},"
      "{\"role\":\"user\",\"content\":\"list files\"},"
      "{\"role\":\"assistant\",\"content\":\"Looking.\",\"tool_calls\":["
      "{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"list_dir\","
      "\"arguments\":\"{\\\"path\\\":\\\".\\\"}\"}},"
      "{\"id\":\"call_2\",\"type\":\"function\",\"function\":{\"name\":\"read_file\","
      "\"arguments\":\"{}\"}}]},"
      "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"a.c\\nb.c\"},"
      "{\"role\":\"tool\",\"tool_call_id\":\"call_2\",\"content\":\"error: missing path\"},"
      "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
      "{\"id\":\"call_3\",\"type\":\"function\",\"function\":{\"name\":\"grep\","
      "\"arguments\":\"{\\\"pattern\\\":\\\"x\\\"}\"}}]},"
      "{\"role\":\"tool\",\"tool_call_id\":\"call_3\",\"content\":\"\"},"
      "{\"role\":\"assistant\",\"content\":\"Two files.\"}],"
      "\"tools\":["
      "{\"type\":\"function\",\"function\":{\"name\":\"list_dir\",\"description\":\"List a "
      "directory\",\"parameters\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":"
      "\"string\"}},\"required\":[\"path\"]}}},"
      "{\"type\":\"function\",\"function\":{\"name\":\"now\",\"parameters\":{\"type\":\"object\","
      "\"properties\":{}}}}],"
      "\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
  json_decref(body);
  json_decref(tools);
  zconv_release(&conv);
}

static void render_max_tokens_by_kind_and_no_empty_tools(void **s) {
  (void)s;
  zconv conv = ZCONV_INIT;
  zconv_add_user(&conv, "hi");
  json_t *empty = json_array();
  zprov_request req = {NULL, &conv, empty, 256};
  zprov_opts o = test_opts("openai");
  json_t *body = zoai_chat_render(&o, &req);
  assert_null(json_object_get(body, "tools"));
  assert_null(json_object_get(body, "max_tokens"));
  assert_int_equal(zjson_int_or(body, "max_completion_tokens", 0), 256);
  json_t *first = json_array_get(json_object_get(body, "messages"), 0);
  assert_string_equal(zjson_str(first, "role"), "user"); /* no system message */
  json_decref(body);

  o.kind = "openai-compatible";
  body = zoai_chat_render(&o, &req);
  assert_null(json_object_get(body, "max_completion_tokens"));
  assert_int_equal(zjson_int_or(body, "max_tokens", 0), 256);
  json_decref(body);

  req.max_output_tokens = 0;
  body = zoai_chat_render(&o, &req);
  assert_null(json_object_get(body, "max_tokens"));
  assert_true(zjson_bool_or(body, "stream", false));
  assert_true(zjson_bool_or(json_object_get(body, "stream_options"), "include_usage", false));
  json_decref(body);
  json_decref(empty);
  zconv_release(&conv);
}

static void url_joins_base_and_endpoint(void **s) {
  (void)s;
  const char *cases[][2] = {
      {"https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions"},
      {"http://127.0.0.1:11434/v1/", "http://127.0.0.1:11434/v1/chat/completions"},
      {"http://h/v1/chat/completions", "http://h/v1/chat/completions"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(cases); i++) {
    cleanup_free char *u = zoai_chat_url(cases[i][0]);
    assert_string_equal(u, cases[i][1]);
  }
}

/* ------------------------------------------------------------ errors */

static void http_401_names_provider_and_key_variable(void **s) {
  (void)s;
  zprov_opts o = test_opts("openai");
  o.name = "work-openai";
  o.api_key_env = "WORK_OPENAI_KEY";
  const char *body = "{\"error\":{\"message\":\"Incorrect API key provided: sk-test. You can find "
                     "your API key at https://platform.openai.com/account/api-keys.\",\"type\":"
                     "\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}";
  zerr err = ZERR_INIT;
  zprov_http_error(&o, "https://x/chat/completions", 401, body, strlen(body), &err);
  assert_int_equal(err.kind, ZE_PROVIDER);
  assert_int_equal(err.http_status, 401);
  assert_false(err.retryable);
  assert_non_null(strstr(err.msg, "work-openai rejected the API key (HTTP 401)"));
  assert_non_null(strstr(err.msg, "check WORK_OPENAI_KEY"));
  assert_non_null(strstr(err.msg, "Incorrect API key provided"));
}

static void http_404_400_429_503_messages(void **s) {
  (void)s;
  zprov_opts o = test_opts("openai-compatible");
  o.name = "ollama";
  o.model = "llama9";
  zerr err = ZERR_INIT;
  const char *b404 = "{\"error\":\"model \\\"llama9\\\" not found, try pulling it first\"}";
  zprov_http_error(&o, "http://127.0.0.1:11434/v1/chat/completions", 404, b404, strlen(b404),
                   &err);
  assert_int_equal(err.http_status, 404);
  assert_non_null(strstr(err.msg, "ollama"));
  assert_non_null(strstr(err.msg, "\"llama9\""));
  assert_non_null(strstr(err.msg, "http://127.0.0.1:11434/v1/chat/completions"));
  assert_non_null(strstr(err.msg, "check the model name and the base URL"));
  assert_non_null(strstr(err.msg, "try pulling it first"));

  const char *b400 = "{\"error\":{\"message\":\"Invalid 'messages[2].tool_call_id'\"}}";
  zprov_http_error(&o, "u", 400, b400, strlen(b400), &err);
  assert_non_null(strstr(err.msg, "rejected the request (HTTP 400)"));
  assert_non_null(strstr(err.msg, "Invalid 'messages[2].tool_call_id'"));
  assert_false(err.retryable);

  const char *b429 = "{\"error\":{\"message\":\"Rate limit reached for gpt-4o\"}}";
  zprov_http_error(&o, "u", 429, b429, strlen(b429), &err);
  assert_int_equal(err.http_status, 429);
  assert_true(err.retryable);
  assert_non_null(strstr(err.msg, "Rate limit reached for gpt-4o"));

  /* Out of credit is a 429 too, but no retry helps: not retried, and said. */
  const char *quota = "{\"error\":{\"message\":\"You exceeded your current quota, please check "
                      "your plan and billing details.\",\"type\":\"insufficient_quota\","
                      "\"param\":null,\"code\":\"insufficient_quota\"}}";
  zprov_http_error(&o, "u", 429, quota, strlen(quota), &err);
  assert_int_equal(err.http_status, 429);
  assert_false(err.retryable);
  assert_non_null(strstr(err.msg, "ollama refused the request: the account has no quota"));
  assert_non_null(strstr(err.msg, "You exceeded your current quota"));
  /* The words alone in a rate-limit message do not make it one. */
  const char *rl = "{\"error\":{\"message\":\"not insufficient_quota, just slow down\","
                   "\"type\":\"requests\"}}";
  zprov_http_error(&o, "u", 429, rl, strlen(rl), &err);
  assert_true(err.retryable);

  const char *html = "<html>\n<body>  Bad   gateway </body></html>";
  zprov_http_error(&o, "u", 503, html, strlen(html), &err);
  assert_true(err.retryable);
  assert_non_null(strstr(err.msg, "ollama had a server error (HTTP 503)"));
  assert_non_null(strstr(err.msg, "<html> <body> Bad gateway </body></html>"));

  /* 500 is retried, as the OpenAI and Anthropic SDKs do; 501 is not. */
  zprov_http_error(&o, "u", 500, NULL, 0, &err);
  assert_true(err.retryable);
  assert_null(strstr(err.msg, "server said"));
  zprov_http_error(&o, "u", 501, NULL, 0, &err);
  assert_false(err.retryable);
}

/* A server that echoes the rejected key does not get it shown or recorded. */
static void echoed_credentials_are_scrubbed(void **s) {
  (void)s;
  zprov_opts o = test_opts("openai");
  o.api_key = "sk-proj-SECRETSECRET123456";
  json_t *hdrs = json_pack("{s:s, s:s}", "Authorization", "Bearer gw-TOKEN-abcdefgh",
                           "X-Short", "abc");
  o.headers = hdrs;
  const char *body = "{\"error\":{\"message\":\"Invalid API key: sk-proj-SECRETSECRET123456 "
                     "(token gw-TOKEN-abcdefgh); again sk-proj-SECRETSECRET123456; abc\"}}";
  zerr err = ZERR_INIT;
  zprov_http_error(&o, "u", 401, body, strlen(body), &err);
  assert_null(strstr(err.msg, "SECRETSECRET"));
  assert_null(strstr(err.msg, "gw-TOKEN"));
  assert_non_null(strstr(err.msg, "Invalid API key: [REDACTED] (token [REDACTED]); again "
                                  "[REDACTED]; abc")); /* short values are not secrets */
  char msg[64] = "no secret here";
  zprov_scrub_secrets(&o, msg, sizeof msg);
  assert_string_equal(msg, "no secret here");
  json_decref(hdrs);
}

/* Gemini's 429 says when to retry in the body (RetryInfo), not in a header. */
static void retry_delay_from_google_error_body(void **s) {
  (void)s;
  const char *b = "{\"error\":{\"code\":429,\"message\":\"You exceeded your current quota\","
                  "\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/"
                  "google.rpc.QuotaFailure\",\"violations\":[]},{\"@type\":\"type.googleapis.com/"
                  "google.rpc.RetryInfo\",\"retryDelay\":\"37s\"}]}}";
  char *v = zprov_retry_delay_from_body(b, strlen(b));
  assert_non_null(v);
  assert_string_equal(v, "37");
  free(v);
  const char *frac = "{\"error\":{\"details\":[{\"retryDelay\":\"1.000340s\"}]}}";
  v = zprov_retry_delay_from_body(frac, strlen(frac));
  assert_string_equal(v, "2"); /* rounded up, never early */
  free(v);
  const char *none[] = {"{\"error\":{\"message\":\"slow down\"}}",
                        "{\"error\":{\"details\":[{\"retryDelay\":\"soon\"}]}}",
                        "{\"error\":{\"details\":[{\"retryDelay\":\"5m\"}]}}", "retryDelay", ""};
  for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
    assert_null(zprov_retry_delay_from_body(none[i], strlen(none[i])));
  /* And it is the wait zretry_delay_ms takes. */
  zretry_policy pol;
  zretry_policy_init(&pol, 4);
  assert_int_equal(zretry_delay_ms(&pol, 1, "37", 0.5), 37000);
}

static void provider_new_dispatches_by_kind(void **s) {
  (void)s;
  zerr err = ZERR_INIT;
  zprov_opts o = test_opts("openai");
  zprovider *p = zprovider_new(&o, &err);
  assert_non_null(p);
  assert_string_equal(p->vt->wire, "openai-responses");
  zprovider_free(p);
  o.wire_api = "chat";
  p = zprovider_new(&o, &err);
  assert_non_null(p);
  assert_string_equal(p->vt->wire, "openai-chat");
  zprovider_free(p);
  o.wire_api = NULL;
  o.kind = "openai-compatible";
  p = zprovider_new(&o, &err);
  assert_non_null(p);
  assert_string_equal(p->vt->wire, "openai-chat");
  zprovider_free(p);
  o.wire_api = "responses";
  p = zprovider_new(&o, &err);
  assert_non_null(p);
  assert_string_equal(p->vt->wire, "openai-responses");
  zprovider_free(p);
  o.wire_api = "soap";
  assert_null(zprovider_new(&o, &err));
  assert_non_null(strstr(err.msg, "wireApi"));
  o.wire_api = NULL;
  o.kind = "anthropic";
  p = zprovider_new(&o, &err);
  assert_string_equal(p->vt->wire, "anthropic");
  zprovider_free(p);
  o.kind = "anthropic-compatible";
  p = zprovider_new(&o, &err);
  assert_string_equal(p->vt->wire, "anthropic");
  zprovider_free(p);
  o.kind = "google";
  p = zprovider_new(&o, &err);
  assert_string_equal(p->vt->wire, "gemini");
  zprovider_free(p);
  o.model = "deepseek-r1:14b";
  o.kind = "openai-compatible";
  p = zprovider_new(&o, &err);
  assert_string_equal(p->vt->wire, "think-tags"); /* wrapped for inline <think> */
  zprovider_free(p);
  o.parse_think_tags = -1;
  p = zprovider_new(&o, &err);
  assert_string_equal(p->vt->wire, "openai-chat");
  zprovider_free(p);

  o.kind = "telepathy";
  assert_null(zprovider_new(&o, &err));
  assert_int_equal(err.kind, ZE_CONFIG);
  assert_non_null(strstr(err.msg, "telepathy"));
  assert_non_null(strstr(err.msg, "openai-compatible"));

  o.kind = "openai";
  o.model = "";
  assert_null(zprovider_new(&o, &err));
  assert_non_null(strstr(err.msg, "no model"));
  zprovider_free(NULL);
}

/* ------------------------------------------------------------ retry policy */

static void retry_after_is_honoured_and_capped(void **s) {
  (void)s;
  zretry_policy pol = {4, 500, 30000, 60000};
  assert_int_equal(zretry_delay_ms(&pol, 1, "7", 0.5), 7000);
  assert_int_equal(zretry_delay_ms(&pol, 3, "0", 0.5), 0);
  assert_int_equal(zretry_delay_ms(&pol, 1, "3600", 0.5), 60000);
  /* An HTTP date ten seconds ahead. */
  char date[64];
  time_t t = time(NULL) + 10;
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  int64_t d = zretry_delay_ms(&pol, 1, date, 0.5);
  assert_true(d >= 8000 && d <= 11000);
  /* Unparseable: falls back to backoff. */
  assert_int_equal(zretry_delay_ms(&pol, 1, "soon", 1.0), 500);
}

static void backoff_grows_and_is_capped(void **s) {
  (void)s;
  zretry_policy pol = {10, 500, 30000, 60000};
  assert_int_equal(zretry_delay_ms(&pol, 1, NULL, 0.0), 250);
  assert_int_equal(zretry_delay_ms(&pol, 1, NULL, 1.0), 500);
  assert_int_equal(zretry_delay_ms(&pol, 2, NULL, 1.0), 1000);
  assert_int_equal(zretry_delay_ms(&pol, 3, NULL, 1.0), 2000);
  assert_int_equal(zretry_delay_ms(&pol, 4, NULL, 0.0), 2000);
  assert_int_equal(zretry_delay_ms(&pol, 7, NULL, 1.0), 30000); /* 32000 capped */
  assert_int_equal(zretry_delay_ms(&pol, 60, NULL, 1.0), 30000);
  assert_int_equal(zretry_delay_ms(&pol, 60, NULL, 0.0), 15000);
  for (int i = 0; i < 100; i++) {
    double j = zretry_jitter();
    assert_true(j >= 0.0 && j <= 1.0);
    int64_t v = zretry_delay_ms(&pol, 2, NULL, j);
    assert_true(v >= 500 && v <= 1000);
  }
  assert_true(zretry_status_retryable(429) && zretry_status_retryable(503) &&
              zretry_status_retryable(529) && zretry_status_retryable(502) &&
              zretry_status_retryable(504) && zretry_status_retryable(500));
  assert_false(zretry_status_retryable(501) || zretry_status_retryable(400) ||
               zretry_status_retryable(401) || zretry_status_retryable(404));
}

static void policy_reads_base_from_environment(void **s) {
  (void)s;
  zretry_policy pol;
  setenv("ZERO_RETRY_BASE_MS", "3", 1);
  zretry_policy_init(&pol, 0);
  assert_int_equal(pol.base_ms, 3);
  assert_int_equal(pol.max_retries, ZRETRY_DEFAULT_MAX);
  setenv("ZERO_RETRY_BASE_MS", "x", 1);
  zretry_policy_init(&pol, 2);
  assert_int_equal(pol.base_ms, ZRETRY_DEFAULT_BASE_MS);
  assert_int_equal(pol.max_retries, 2);
  unsetenv("ZERO_RETRY_BASE_MS");
}

/* A scripted attempt: fails with the listed errors, then succeeds. */
typedef struct scripted {
  int calls;
  int nfail;
  long status[8];      /* 0 = transport failure */
  bool retryable[8];
  bool emitted[8];
  const char *retry_after[8];
} scripted;

static int scripted_attempt(void *ud, int attempt, zretry_info *info, zerr *err) {
  scripted *sc = ud;
  int i = sc->calls++;
  assert_int_equal(attempt, i + 1);
  if (i >= sc->nfail) return 0;
  zerr_set(err, ZE_PROVIDER, "failure %d", i + 1);
  err->http_status = (int)sc->status[i];
  err->retryable = sc->retryable[i];
  info->emitted = sc->emitted[i];
  if (sc->retry_after[i]) info->retry_after = xstrdup(sc->retry_after[i]);
  return -1;
}

static void retry_runs_until_success_and_reports(void **s) {
  (void)s;
  zretry_policy pol = {4, 2, 30000, 60000};
  scripted sc = {0, 2, {429, 0}, {true, true}, {false, false}, {"0", NULL}};
  zbuf out = ZBUF_INIT;
  zerr err = ZERR_INIT;
  assert_int_equal(zretry_run(&pol, scripted_attempt, &sc, record_event, &out, &err), 0);
  assert_int_equal(sc.calls, 3);
  assert_non_null(strstr(out.data, "RETRY attempt=2 delay=0 failure 1\n"));
  assert_non_null(strstr(out.data, "RETRY attempt=3 delay="));
  assert_non_null(strstr(out.data, "failure 2\n"));
  zbuf_release(&out);
}

static void retry_never_after_output_or_for_final_errors(void **s) {
  (void)s;
  zretry_policy pol = {4, 1, 30000, 60000};
  zerr err = ZERR_INIT;
  scripted emitted = {0, 1, {503}, {true}, {true}, {NULL}};
  assert_int_equal(zretry_run(&pol, scripted_attempt, &emitted, NULL, NULL, &err), -1);
  assert_int_equal(emitted.calls, 1);
  scripted final = {0, 1, {401}, {false}, {false}, {NULL}};
  assert_int_equal(zretry_run(&pol, scripted_attempt, &final, NULL, NULL, &err), -1);
  assert_int_equal(final.calls, 1);
  assert_int_equal(err.http_status, 401);
  assert_string_equal(err.msg, "failure 1");
}

static void retry_gives_up_after_max(void **s) {
  (void)s;
  zretry_policy pol = {2, 1, 30000, 60000};
  scripted sc = {0, 8, {503, 503, 503, 503}, {true, true, true, true}, {0}, {NULL}};
  zerr err = ZERR_INIT;
  assert_int_equal(zretry_run(&pol, scripted_attempt, &sc, NULL, NULL, &err), -1);
  assert_int_equal(sc.calls, 3);
  assert_int_equal(err.kind, ZE_PROVIDER);
  assert_int_equal(err.http_status, 503);
  assert_false(err.retryable);
  assert_string_equal(err.msg, "gave up after 3 attempts: failure 3");
}

static int cancel_on_retry(void *ud, const zprov_event *ev) {
  (void)ud;
  if (ev->kind == ZPEV_RETRY) zcancel_request();
  return 0;
}

static void retry_wait_is_cancellable(void **s) {
  (void)s;
  assert_int_equal(zcancel_install(), 0);
  zretry_policy pol = {4, 500, 30000, 60000};
  scripted sc = {0, 1, {429}, {true}, {false}, {"30"}};
  zerr err = ZERR_INIT;
  int64_t t0 = ztime_mono_ms();
  assert_int_equal(zretry_run(&pol, scripted_attempt, &sc, cancel_on_retry, NULL, &err), -1);
  assert_true(ztime_mono_ms() - t0 < 5000);
  assert_int_equal(err.kind, ZE_CANCELLED);
  assert_int_equal(sc.calls, 1);
  zcancel_reset();
  assert_int_equal(zretry_wait(5, &err), 0);
}


/* ------------------------------------------------------------ live: fake server */

/* These drive the real provider (http + sse + parser + retry) against
 * tests/e2e/fake_server.py; they are skipped when python3 is missing. */

#define FAKE_SERVER FIXTURES_DIR "/../e2e/fake_server.py"

typedef struct fake {
  pid_t pid;
  int port;
  char dir[64];
  char log[128];
} fake;

/* python3 on PATH (the fake server needs it): a fixed command line, no user
 * input reaches the shell. */
static bool have_python(void) {
  return system("python3 -c '' >/dev/null 2>&1") == 0; /* NOLINT(cert-env33-c) fixed command */
}

static void fake_start(fake *f, const char *script) {
  snprintf(f->dir, sizeof f->dir, "/tmp/zero-oai-test-XXXXXX");
  assert_non_null(mkdtemp(f->dir));
  char path[128];
  snprintf(path, sizeof path, "%s/script.json", f->dir);
  snprintf(f->log, sizeof f->log, "%s/log.jsonl", f->dir);
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs(script, fp);
  fclose(fp);
  int pfd[2];
  assert_int_equal(pipe(pfd), 0);
  f->pid = fork();
  assert_true(f->pid >= 0);
  if (f->pid == 0) {
    /* The server must not outlive a test that crashed or failed. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    dup2(pfd[1], 1);
    close(pfd[0]);
    close(pfd[1]);
    execlp("python3", "python3", FAKE_SERVER, path, "--log", f->log, (char *)NULL);
    _exit(127);
  }
  close(pfd[1]);
  char line[64] = "";
  size_t n = 0;
  while (n + 1 < sizeof line) {
    ssize_t r = read(pfd[0], line + n, 1);
    if (r <= 0 || line[n] == '\n') break;
    n++;
  }
  line[n] = '\0';
  close(pfd[0]);
  assert_int_equal(strncmp(line, "PORT ", 5), 0);
  char *end = NULL;
  long port = strtol(line + 5, &end, 10);
  assert_true(end != line + 5 && port > 0 && port < 65536);
  f->port = (int)port;
}

static void fake_stop(fake *f) {
  if (f->pid > 0) {
    kill(f->pid, SIGTERM);
    waitpid(f->pid, NULL, 0);
    f->pid = 0;
  }
  if (f->dir[0]) {
    if (zfs_remove_tree(f->dir) != 0) fprintf(stderr, "could not remove %s\n", f->dir);
    f->dir[0] = '\0';
  }
}

/* Each live test gets a fake in *state; teardown stops it even when an
 * assertion failed half-way. */
static int fake_setup(void **state) {
  *state = xcalloc(1, sizeof(fake));
  return 0;
}

static int fake_teardown(void **state) {
  fake_stop(*state);
  free(*state);
  return 0;
}

#define assert_has(hay, needle)                                                    \
  do {                                                                             \
    if (!strstr((hay), (needle)))                                                  \
      fail_msg("expected to find\n%s\n--- in\n%s", (needle), (hay));             \
  } while (0)
#define assert_lacks(hay, needle)                                                  \
  do {                                                                             \
    if (strstr((hay), (needle))) fail_msg("did not expect\n%s\n--- in\n%s", (needle), (hay)); \
  } while (0)

/* The fake server's request log as a JSON array of records. */
static json_t *fake_requests(fake *f) {
  zbuf b = ZBUF_INIT;
  assert_int_equal(zfs_read_file(f->log, &b, 1u << 20, NULL), 0);
  json_t *arr = json_array();
  char *line = b.data, *nl;
  while (line && *line && (nl = strchr(line, '\n'))) {
    json_t *rec = json_loadb(line, (size_t)(nl - line), 0, NULL);
    assert_non_null(rec);
    json_array_append_new(arr, rec);
    line = nl + 1;
  }
  zbuf_release(&b);
  return arr;
}

/* Streams one turn for "list files" with one tool; returns the transcript
 * (with an ERROR line on failure); caller frees. */
static char *live_turn(fake *f, const char *kind, const char *key, long idle_ms, zerr *err) {
  char base[64];
  snprintf(base, sizeof base, "http://127.0.0.1:%d/v1", f->port);
  zprov_opts o;
  memset(&o, 0, sizeof o);
  o.name = "fake";
  o.kind = kind;
  o.base_url = base;
  o.api_key = key;
  o.api_key_env = "FAKE_KEY";
  o.model = "fake-model";
  o.max_retries = 2;
  o.idle_timeout_ms = idle_ms;
  o.wire_api = "chat"; /* official OpenAI would default to the Responses API */
  json_t *headers = json_pack("{s:s}", "X-Zero-Test", "yes");
  o.headers = headers;
  zerr local = ZERR_INIT;
  if (!err) err = &local;
  zprovider *p = zprovider_new(&o, err);
  assert_non_null(p);
  zconv conv = ZCONV_INIT;
  zconv_add_user(&conv, "list files");
  json_t *tools = json_loads("[{\"name\":\"list_dir\",\"description\":\"d\"}]", 0, NULL);
  zprov_request req = {"sys", &conv, tools, 100};
  zbuf out = ZBUF_INIT;
  if (zprovider_stream(p, &req, record_event, &out, err) != 0)
    zbuf_addf(&out, "ERROR %s http=%d %s\n", zerr_kind_name(err->kind), err->http_status,
              err->msg);
  zprovider_free(p);
  zconv_release(&conv);
  json_decref(tools);
  json_decref(headers);
  return zbuf_detach(&out, NULL);
}

static int live_setup(void **s) {
  (void)s;
  setenv("ZERO_RETRY_BASE_MS", "5", 1);
  return 0;
}

static void live_stream_with_tiny_chunks_and_keepalives(void **s) {
  if (!have_python()) skip();
  fake *f = *s;
  fake_start(f, "[{\"text\":\"h\u00e9llo w\u00f6rld \U0001F389\",\"reasoning\":\"hmm\","
                 "\"tool_calls\":[{\"name\":\"list_dir\",\"arguments\":{\"path\":\".\"}}],"
                 "\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":9,\"cached_tokens\":32},"
                 "\"chunk_size\":1,\"keepalive\":true,\"args_fragment\":4}]");
  cleanup_free char *got = live_turn(f, "openai", "sk-abc", 0, NULL);
  assert_string_equal(got,
                      "REASONING \"hmm\"\n"
                      "TEXT \"h\u00e9llo \"\n"
                      "TEXT \"w\u00f6rld \"\n"
                      "TEXT \"\U0001F389\"\n"
                      "TOOL_START 0 call_0_0 list_dir\n"
                      "TOOL_ARGS 0 \"{\\\"pa\"\n"
                      "TOOL_ARGS 0 \"th\\\":\"\n"
                      "TOOL_ARGS 0 \"\\\".\\\"}\"\n"
                      "TOOL_END 0 call_0_0 list_dir \"{\\\"path\\\":\\\".\\\"}\"\n"
                      "USAGE prompt=50 completion=9 total=59 cached=32 reasoning=0\n"
                      "DONE tool_calls\n");
  json_t *reqs = fake_requests(f);
  assert_int_equal(json_array_size(reqs), 1);
  json_t *r = json_array_get(reqs, 0);
  assert_string_equal(zjson_str(r, "path"), "/v1/chat/completions");
  json_t *h = json_object_get(r, "headers");
  assert_string_equal(zjson_str(h, "Authorization"), "Bearer sk-abc");
  assert_string_equal(zjson_str(h, "Accept"), "text/event-stream");
  assert_string_equal(zjson_str(h, "Content-Type"), "application/json");
  assert_string_equal(zjson_str(h, "X-Zero-Test"), "yes");
  json_t *body = json_object_get(r, "body");
  assert_string_equal(zjson_str(body, "model"), "fake-model");
  assert_int_equal(zjson_int_or(body, "max_completion_tokens", 0), 100);
  assert_string_equal(
      zjson_str(json_array_get(json_object_get(body, "messages"), 0), "role"), "system");
  json_decref(reqs);
}

static void live_retries_429_and_503_then_succeeds(void **s) {
  if (!have_python()) skip();
  fake *f = *s;
  fake_start(f, "[{\"status\":429,\"retry_after\":0},{\"status\":503},{\"text\":\"ok\"}]");
  cleanup_free char *got = live_turn(f, "openai-compatible", NULL, 0, NULL);
  assert_has(got, "RETRY attempt=2 delay=0 fake is rate limiting requests (HTTP 429)");
  assert_has(got, "RETRY attempt=3 delay=");
  assert_has(got, "fake had a server error (HTTP 503)");
  assert_has(got, "TEXT \"ok\"\nUSAGE prompt=");
  assert_has(got, "\nDONE stop\n");
  json_t *reqs = fake_requests(f);
  assert_int_equal(json_array_size(reqs), 3);
  json_t *h = json_object_get(json_array_get(reqs, 0), "headers");
  assert_null(json_object_get(h, "Authorization")); /* keyless */
  assert_int_equal(
      zjson_int_or(json_object_get(json_array_get(reqs, 0), "body"), "max_tokens", 0), 100);
  json_decref(reqs);
}

static void live_401_is_explained_and_not_retried(void **s) {
  if (!have_python()) skip();
  fake *f = *s;
  fake_start(f, "[{\"status\":401,\"error\":{\"message\":\"Incorrect API key provided\","
                 "\"type\":\"invalid_request_error\"}},{\"text\":\"never\"}]");
  zerr err = ZERR_INIT;
  cleanup_free char *got = live_turn(f, "openai", "sk-bad", 0, &err);
  assert_int_equal(err.kind, ZE_PROVIDER);
  assert_int_equal(err.http_status, 401);
  assert_has(got, "fake rejected the API key (HTTP 401): check FAKE_KEY");
  assert_has(got, "Incorrect API key provided");
  json_t *reqs = fake_requests(f);
  assert_int_equal(json_array_size(reqs), 1);
  json_decref(reqs);
}

static void live_cut_before_output_is_retried(void **s) {
  if (!have_python()) skip();
  fake *f = *s;
  /* 60 bytes is inside the first (role-only) chunk: nothing visible yet. */
  fake_start(f, "[{\"text\":\"lost\",\"cut_after_bytes\":60},{\"text\":\"second\"}]");
  cleanup_free char *got = live_turn(f, "openai", "k", 0, NULL);
  assert_has(got, "RETRY attempt=2");
  assert_has(got, "ended early");
  assert_lacks(got, "lost");
  assert_has(got, "TEXT \"second\"\nUSAGE prompt=");
}

static void live_cut_after_text_fails_without_retry(void **s) {
  if (!have_python()) skip();
  fake *f = *s;
  fake_start(f, "[{\"text\":\"partial answer that will be cut\",\"cut_after_bytes\":600},"
                 "{\"text\":\"never\"}]");
  zerr err = ZERR_INIT;
  cleanup_free char *got = live_turn(f, "openai", "k", 0, &err);
  assert_has(got, "TEXT \"partial \"");
  assert_lacks(got, "RETRY");
  assert_int_equal(err.kind, ZE_PROVIDER);
  assert_false(err.retryable);
  assert_string_equal(err.msg, "the stream from fake ended early (connection closed mid-answer); "
                               "the session is saved, retry with --resume");
  json_t *reqs = fake_requests(f);
  assert_int_equal(json_array_size(reqs), 1);
  json_decref(reqs);
}

static void live_finish_without_done_is_complete(void **s) {
  if (!have_python()) skip();
  fake *f = *s;
  fake_start(f, "[{\"text\":\"fine\",\"no_done\":true,\"no_usage\":true}]");
  cleanup_free char *got = live_turn(f, "openai-compatible", NULL, 0, NULL);
  assert_string_equal(got, "TEXT \"fine\"\nDONE stop\n");
}

static void live_hang_after_text_times_out(void **s) {
  if (!have_python()) skip();
  fake *f = *s;
  fake_start(f, "[{\"text\":\"one two three\",\"hang_after_bytes\":700}]");
  zerr err = ZERR_INIT;
  cleanup_free char *got = live_turn(f, "openai", "k", 400, &err);
  assert_has(got, "TEXT \"one \"");
  assert_lacks(got, "three");
  assert_lacks(got, "RETRY");
  assert_int_equal(err.kind, ZE_TIMEOUT);
  assert_false(err.retryable);
  assert_non_null(strstr(err.msg, "fake stopped sending mid-answer"));
}

static void live_in_stream_error_is_reported(void **s) {
  if (!have_python()) skip();
  fake *f = *s;
  fake_start(f, "[{\"text\":\"a\",\"stream_error\":\"upstream overloaded\"}]");
  zerr err = ZERR_INIT;
  cleanup_free char *got = live_turn(f, "openai", "k", 0, &err);
  (void)got; /* only the error matters here */
  assert_int_equal(err.kind, ZE_PROVIDER);
  assert_non_null(strstr(err.msg, "fake reported an error mid-answer (server_error): upstream "
                                  "overloaded"));
}

/* A 500 is retried (max_retries 2 here), then explained with the server's
 * message. */
static void live_unscripted_turn_gets_500(void **s) {
  if (!have_python()) skip();
  fake *f = *s;
  fake_start(f, "[]");
  zerr err = ZERR_INIT;
  cleanup_free char *got = live_turn(f, "openai", "k", 0, &err);
  assert_int_equal(err.http_status, 500);
  assert_non_null(strstr(err.msg, "fake server: no scripted turn left"));
  assert_non_null(strstr(err.msg, "gave up after 3 attempts"));
  assert_has(got, "RETRY attempt=2");
  json_t *reqs = fake_requests(f);
  assert_int_equal(json_array_size(reqs), 3);
  json_decref(reqs);
}

static void live_connection_refused_is_retried_then_explained(void **s) {
  if (!have_python()) skip();
  fake *f = *s;
  fake_start(f, "[]");
  fake_stop(f); /* nothing listens on f->port any more */
  zerr err = ZERR_INIT;
  cleanup_free char *got = live_turn(f, "openai", "k", 0, &err);
  assert_has(got, "RETRY attempt=3");
  assert_non_null(strstr(err.msg, "gave up after 3 attempts"));
  assert_non_null(strstr(err.msg, "could not get an answer from fake at http://127.0.0.1:"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stream_text_only),
      cmocka_unit_test(stream_one_tool_call),
      cmocka_unit_test(stream_parallel_tool_calls),
      cmocka_unit_test(stream_reasoning_content),
      cmocka_unit_test(stream_reasoning_field_without_done),
      cmocka_unit_test(stream_usage_with_cached_tokens),
      cmocka_unit_test(stream_error_object_fails),
      cmocka_unit_test(stream_keepalives_and_crlf),
      cmocka_unit_test(stream_cut_after_text_is_final),
      cmocka_unit_test(stream_cut_before_output_is_retryable),
      cmocka_unit_test(stream_fast_path_edge_cases),
      cmocka_unit_test(fast_path_takes_delta_chunks),
      cmocka_unit_test(consumer_stop_cancels),
      cmocka_unit_test(malformed_chunk_names_provider),
      cmocka_unit_test(tool_calls_without_index_are_matched_by_id),
      cmocka_unit_test(non_streamed_completion_is_converted),
      cmocka_unit_test(render_full_conversation),
      cmocka_unit_test(render_max_tokens_by_kind_and_no_empty_tools),
      cmocka_unit_test(url_joins_base_and_endpoint),
      cmocka_unit_test(http_401_names_provider_and_key_variable),
      cmocka_unit_test(http_404_400_429_503_messages),
      cmocka_unit_test(retry_delay_from_google_error_body),
      cmocka_unit_test(echoed_credentials_are_scrubbed),
      cmocka_unit_test(provider_new_dispatches_by_kind),
      cmocka_unit_test(retry_after_is_honoured_and_capped),
      cmocka_unit_test(backoff_grows_and_is_capped),
      cmocka_unit_test(policy_reads_base_from_environment),
      cmocka_unit_test(retry_runs_until_success_and_reports),
      cmocka_unit_test(retry_never_after_output_or_for_final_errors),
      cmocka_unit_test(retry_gives_up_after_max),
      cmocka_unit_test(retry_wait_is_cancellable),
  };
  const struct CMUnitTest live[] = {
      cmocka_unit_test_setup_teardown(live_stream_with_tiny_chunks_and_keepalives, fake_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(live_retries_429_and_503_then_succeeds, fake_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(live_401_is_explained_and_not_retried, fake_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(live_cut_before_output_is_retried, fake_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(live_cut_after_text_fails_without_retry, fake_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(live_finish_without_done_is_complete, fake_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(live_hang_after_text_times_out, fake_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(live_in_stream_error_is_reported, fake_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(live_unscripted_turn_gets_500, fake_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(live_connection_refused_is_retried_then_explained, fake_setup, fake_teardown),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  failed += cmocka_run_group_tests_name("live", live, live_setup, NULL);
  return failed;
}
